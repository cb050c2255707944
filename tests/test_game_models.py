"""Native game models (``games.models``): the contract checked against OpenSpiel itself, state
by state along seeded playouts (the player to move, the legal moves, the chance outcomes and
their probabilities, the returns, the heuristics, the state read from a position), and a
search written over the contract alone giving the project's expectimax values and node counts.
"""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason='OpenSpiel games: pip install -c constraints.txt -e ".[games]"'
)

from starbench.engines import search  # noqa: E402
from starbench.errors import InputError  # noqa: E402
from starbench.games.heuristics import HEURISTICS  # noqa: E402
from starbench.games.models import CHANCE, TERMINAL, model_of  # noqa: E402
from starbench.games.source import game_source  # noqa: E402

PIGS = ("pig", "pig(winscore=10)", "pig(winscore=20,diceoutcomes=4)", "pig(winscore=50,horizon=9)")


def _children(m, s):
    """(action, probability or None, state) of every child of model state ``s``."""
    out = []
    if m.player(m.params, s) == CHANCE:
        for i in range(m.n_outcomes(m.params, s)):
            a = m.outcome(m.params, s, i)
            c = np.empty_like(s)
            m.apply(m.params, s, a, c)
            out.append((a, m.probability(m.params, s, i), c))
    else:
        for i in range(m.n_moves(m.params, s)):
            a = m.move(m.params, s, i)
            c = np.empty_like(s)
            m.apply(m.params, s, a, c)
            out.append((a, None, c))
    return out


@pytest.mark.parametrize("name", PIGS)
def test_pig_s_model_is_openspiel_s_pig_state_by_state(name):
    game = pyspiel.load_game(name)
    m = model_of(game)
    rng = np.random.default_rng(7)
    keys: dict[int, tuple[int, ...]] = {}  # key -> the state it keys: never two
    for _ in range(30):  # playouts from the start
        state, s = game.new_initial_state(), m.from_state(game.new_initial_state())
        while True:
            p = m.player(m.params, s)
            assert p == (TERMINAL if state.is_terminal() else state.current_player())
            assert np.array_equal(m.from_state(state), s)
            k = m.key(m.params, s)
            assert keys.setdefault(k, tuple(s)) == tuple(s)
            if state.is_terminal():
                assert [m.returns(m.params, s, q) for q in (0, 1)] == state.returns()
                break
            for h in ("score_difference", "score_share"):
                for root in (0, 1):
                    want = float(HEURISTICS[h].value(state, root))
                    assert m.heuristic(m.params, s, m.heuristic_code(h), root) == want
            kids = _children(m, s)
            if state.is_chance_node():
                assert [(a, pr) for a, pr, _ in kids] == state.chance_outcomes()
            else:
                assert [a for a, _, _ in kids] == state.legal_actions()
            j = int(rng.integers(len(kids)))
            state.apply_action(kids[j][0])
            s = kids[j][2]


def test_einstein_s_model_is_openspiel_s_game_state_by_state():
    game = pyspiel.load_game("einstein_wurfelt_nicht")
    m = model_of(game)
    rng = np.random.default_rng(11)
    code = m.heuristic_code("einstein_progress")
    keys: dict[int, tuple[int, ...]] = {}
    for _ in range(12):  # playouts from the start, set-up draws included
        state, s = game.new_initial_state(), m.from_state(game.new_initial_state())
        while True:
            p = m.player(m.params, s)
            assert p == (TERMINAL if state.is_terminal() else state.current_player())
            assert np.array_equal(m.from_state(state), s)
            if state.is_terminal():
                assert [m.returns(m.params, s, q) for q in (0, 1)] == state.returns()
                break
            for root in (0, 1):
                want = float(HEURISTICS["einstein_progress"].value(state, root))
                assert m.heuristic(m.params, s, code, root) == want
            kids = _children(m, s)
            if state.is_chance_node():
                assert [(a, pr) for a, pr, _ in kids] == state.chance_outcomes()
            else:
                assert [a for a, _, _ in kids] == state.legal_actions()
                k = m.key(m.params, s)  # one key per decision state (its die decides its moves)
                assert keys.setdefault(k, tuple(s[:28])) == tuple(s[:28])
            j = int(rng.integers(len(kids)))
            state.apply_action(kids[j][0])
            s = kids[j][2]


def test_games_without_a_model_and_piglet_are_none():
    assert model_of(pyspiel.load_game("pig(piglet=true)")) is None
    assert model_of(pyspiel.load_game("tic_tac_toe")) is None
    with pytest.raises(InputError, match="einstein_progress"):
        model_of(pyspiel.load_game("pig")).heuristic_code("einstein_progress")


def _expectimax(m, s, left, root, code, count):
    """Expectimax written over the contract alone, counting as the project counts: every node
    entered, a leaf at a terminal or at the horizon (``left`` decision plies)."""
    count[0] += 1
    p = m.player(m.params, s)
    if p == TERMINAL:
        return m.returns(m.params, s, root)
    if left == 0:
        return m.heuristic(m.params, s, code, root)
    kids = _children(m, s)
    if p == CHANCE:
        return sum(pr * _expectimax(m, c, left, root, code, count) for _, pr, c in kids)
    values = [_expectimax(m, c, left - 1, root, code, count) for _, _, c in kids]
    return max(values) if p == root else min(values)


@pytest.mark.parametrize(
    "name,position,depth,heuristic",
    [
        ("pig", None, 3, "score_share"),
        ("pig(winscore=10)", "0,3", 4, "score_share"),
        ("einstein_wurfelt_nicht", "5,0,2", 2, "einstein_progress"),
    ],
)
def test_a_search_over_the_contract_gives_the_project_s_values_and_counts(
    name, position, depth, heuristic
):
    src = game_source(name, depth, position, heuristic)
    ref = search(src.tree, "expectimax", engine="python")
    game = pyspiel.load_game(name)
    m = model_of(game)
    state, root = src.tree.root[0], src.tree.root_player
    count = [0]
    value = _expectimax(m, m.from_state(state), depth, root, m.heuristic_code(heuristic), count)
    assert value == ref.value and count[0] == ref.stats.nodes


@pytest.mark.parametrize(
    "name,position,depth,heuristic",
    [
        ("pig", None, 4, "score_share"),
        ("pig(winscore=10)", "0,3", 5, "score_difference"),
        ("pig(winscore=20,diceoutcomes=4)", "0", 3, "score_share"),  # a chance root
        ("einstein_wurfelt_nicht", "5,0,2", 2, "einstein_progress"),
        ("einstein_wurfelt_nicht", "5,0", 2, "zero"),  # a chance root
    ],
)
def test_compiled_expectimax_over_a_model_equals_the_python_engine(
    name, position, depth, heuristic
):
    """The compiled search over a model: value, best move, tied moves, root values and every
    counter, per level too, equal the Python engine's search of the same position."""
    from starbench.compiled.models import expectimax

    src = game_source(name, depth, position, heuristic)
    ref = search(src.tree, "expectimax", engine="python", levels=True)
    m = model_of(pyspiel.load_game(name))
    got = expectimax(m, m.from_state(src.tree.root[0]), depth, heuristic, src.tree.bounds)
    assert (got.value, got.best_move, got.tied_moves) == (ref.value, ref.best_move, ref.tied_moves)
    assert got.root_values == ref.root_values
    assert got.stats.as_dict() == ref.stats.as_dict()
    assert got.by_level == ref.by_level


def test_the_engines_serve_game_expectimax_over_its_model_and_stop_at_a_budget_alike():
    """``engine=compiled`` searches a game with a model by its model: the same result as the
    Python engine, the engine named ``compiled``; other algorithms and games without a model
    are refused, and ``auto`` keeps games on the Python engine; a node budget stops both
    engines at the same counts."""
    from starbench.engines import Auto, choose, execute
    from starbench.errors import BudgetExceeded
    from starbench.search.registry import resolve

    src = game_source("pig(winscore=10)", 4, "0,3", "score_share")
    py = search(src.tree, "expectimax", engine="python")
    co = search(src.tree, "expectimax", engine="compiled")
    assert (co.value, co.best_move, co.stats, co.params) == (
        py.value,
        py.best_move,
        py.stats,
        py.params,
    )
    # compiled anew in every process (numba cannot cache it): asked for, not chosen by auto
    assert choose("compiled", "expectimax", tree=src.tree).engine == "compiled"
    assert choose("auto", "expectimax", tree=src.tree, auto=Auto(min_nodes=10)).engine == "python"
    assert choose("auto", "star2", tree=src.tree).engine == "python"
    with pytest.raises(InputError, match="engine: compiled cannot serve games without a model"):
        choose("compiled", "expectimax", tree=game_source("tic_tac_toe", 2).tree)
    spec = resolve("expectimax")
    for budget in (1, 17, py.stats.nodes - 1):
        a = execute(spec, src.tree, engine="python", node_budget=budget)
        b = execute(spec, src.tree, engine="compiled", node_budget=budget)
        assert (a.status, b.status, b.engine) == ("budget_exceeded", "budget_exceeded", "compiled")
        assert a.stats == b.stats, budget
        assert a.message == b.message
    with pytest.raises(BudgetExceeded):
        b.value()
