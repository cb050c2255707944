"""Native game models (``games.models``): the contract checked against OpenSpiel itself, state
by state along seeded playouts (the player to move, the legal moves, the chance outcomes and
their probabilities, the returns, the heuristics, the state read from a position), and a
search written over the contract alone giving the project's expectimax values and node counts.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

pyspiel = pytest.importorskip(
    "pyspiel", reason='OpenSpiel games: pip install -c constraints.txt -e ".[games]"'
)

from starbench.engines import search  # noqa: E402
from starbench.errors import InputError  # noqa: E402
from starbench.games.heuristics import HEURISTICS  # noqa: E402
from starbench.games.models import CHANCE, TERMINAL, model_of  # noqa: E402
from starbench.games.source import game_source, random_history  # noqa: E402

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


#: The native games the property test draws from: (game string, heuristics, deepest search,
#: actions played at random before the position; Einstein past its set-up draws).
NATIVE = (
    ("pig", ("score_share", "score_difference", "zero"), 5, 0),
    ("pig(winscore=10)", ("score_difference", "score_share"), 5, 0),
    ("pig(winscore=20,diceoutcomes=4,horizon=12)", ("score_share",), 5, 0),
    ("einstein_wurfelt_nicht", ("einstein_progress", "zero"), 3, 3),
)
#: Every kernel algorithm that searches chance nodes, with its probing settings, and every
#: table option (small tables too: entries then collide and replace each other).
_TABLES = (
    {"tt": 10},
    {"tt": 3},
    {"tt": 10, "tt_nodes": "decision"},
    {"tt": 10, "tt_depth": "deeper"},
    {"tt": 10, "tt_chance": True},
)
_PROBED = (
    {"tt": 10, "tt_chance": True, "tt_probe": True},
    {"tt": 3, "tt_chance": True, "tt_probe": True},
)
KERNEL_REQUESTS = (
    ("expectimax", {}),
    ("star1", {}),
    ("star2", {}),
    ("star2", {"after_probe": "research"}),
    ("star2.5-cyclic", {}),
    ("star2.5-cyclic", {"k": 3}),
    ("star2.5-sequential", {}),
    *(("expectimax", t) for t in _TABLES[:4]),
    *(("star1", t) for t in _TABLES),
    *(("star2", t) for t in _TABLES + _PROBED),
    *(("star2", {**t, "after_probe": "research"}) for t in _PROBED),
    *(("star2.5-cyclic", t) for t in _TABLES[:2] + _PROBED),
    *(("star2.5-sequential", t) for t in _TABLES[3:] + _PROBED),
)


def _position(game, rng, least):
    """A random reachable position: ``least`` or more random actions from the start (up to
    30), never a terminal; its action history as ``--position`` takes it."""
    return random_history(game, rng, least, 31)


def _same(got, ref, said):  # noqa: ANN001, ANN202
    """The compiled result ``got`` is the Python engine's ``ref``: value, best move, tied moves,
    root values, every counter, per level too."""
    assert (got.value, got.best_move, got.tied_moves) == (
        ref.value,
        ref.best_move,
        ref.tied_moves,
    ), said
    assert got.root_values == ref.root_values, said
    assert got.stats.as_dict() == ref.stats.as_dict(), said
    assert got.by_level == ref.by_level, said


@settings(max_examples=max(settings.default.max_examples // 2, 10))
@given(
    game=st.sampled_from(range(len(NATIVE))),
    seed=st.integers(0, 2**32 - 1),
    depth=st.integers(1, 5),
    pick=st.integers(0, 2),
    requests=st.lists(st.sampled_from(KERNEL_REQUESTS), min_size=4, max_size=4),
)
def test_the_native_engine_equals_the_python_engine_on_random_positions(
    game, seed, depth, pick, requests
):
    """Every kernel algorithm and table option over a game's model gives the Python engine's
    value, best move, tied moves, root values and every counter, per level too, on random
    positions of every native game (and tells the tree the same leaves: ``flat_value``): both
    engines key a table by the model's key (``games.models.model_key``)."""
    name, heuristics, deepest, least = NATIVE[game]
    rng = np.random.default_rng(seed)
    position = _position(pyspiel.load_game(name), rng, least)
    depth, heuristic = min(depth, deepest), heuristics[pick % len(heuristics)]
    for algorithm, params in [("star2", {}), *requests]:
        a, b = (
            game_source(name, depth, position, heuristic),
            game_source(name, depth, position, heuristic),
        )
        ref = search(a.tree, algorithm, engine="python", levels=True, **params)
        got = search(b.tree, algorithm, engine="compiled", levels=True, **params)
        said = (name, position, depth, heuristic, algorithm, params)
        _same(got, ref, said)
        flat = a.tree.flat_value()  # the Python engine's leaves keep the heuristic's Fraction
        assert b.tree.flat_value() == (None if flat is None else float(flat)), said


def test_the_engines_serve_a_game_over_its_model_and_stop_at_a_budget_alike():
    """``engine=compiled`` and ``auto`` search a game with a model by its model, for every
    kernel algorithm, with or without a table; games without a model are refused in one line
    (``auto``: the Python engine, as for time budgets); a node budget stops both engines at
    the same counts."""
    from starbench.engines import Auto, choose, execute
    from starbench.errors import BudgetExceeded
    from starbench.search.registry import resolve

    src = game_source("pig(winscore=10)", 4, "0,3", "score_share")
    py = search(src.tree, "star2", engine="python")
    co = search(src.tree, "star2")  # auto: the model, at any size
    assert (co.value, co.best_move, co.stats, co.params) == (
        py.value,
        py.best_move,
        py.stats,
        py.params,
    )
    for name in ("expectimax", "star1", "star2.5-sequential"):
        assert choose("auto", name, tree=src.tree, auto=Auto(min_nodes=10**9)).engine == "compiled"
    with pytest.raises(InputError, match="engine: compiled cannot serve games without a model"):
        choose("compiled", "expectimax", tree=game_source("tic_tac_toe", 2).tree)
    # a game that has a model, refused for what the tree asks: the reason named, not "no model"
    exact = game_source("pig(winscore=10)", 2, exact=True).tree
    with pytest.raises(InputError, match=r"compiled cannot serve exact mode \(a game tree made"):
        choose("compiled", "star2", tree=exact)
    assert "exact mode" in choose("auto", "star2", tree=exact).reason
    from starbench.games.adapter import GameTree

    made = game_source("pig(winscore=10)", 2).tree  # a tree a user makes, their own heuristic
    unnamed = GameTree(made.root[0], (-1, 1), 2, heuristic=made.heuristic, exact=False)
    assert choose("auto", "star2", tree=unnamed).reason == (
        "the compiled engine does not serve a heuristic with no name on pig(winscore=10)'s "
        "model (it computes zero, score_difference, score_share)"
    )
    assert choose("auto", "star2", tree=src.tree, time_budget=1.0).engine == "python"
    for name in ("expectimax", "star2"):
        spec = resolve(name)
        for budget in (1, 17, py.stats.nodes - 1):
            a = execute(spec, src.tree, engine="python", node_budget=budget)
            b = execute(spec, src.tree, engine="compiled", node_budget=budget)
            assert (a.status, b.status, b.engine) == (
                "budget_exceeded",
                "budget_exceeded",
                "compiled",
            )
            assert a.stats == b.stats, (name, budget)
            assert a.message == b.message
    with pytest.raises(BudgetExceeded):
        b.value()


def test_a_game_cell_says_its_model_s_compile_and_warms_its_family(tmp_path, monkeypatch):
    """A game cell on the compiled engine warms the kernel of its model's family before the
    work starts, and says so where numba's cache lacks it (the compile itself skipped here)."""
    from starbench.compiled import engine as compiled_engine
    from starbench.experiment.runner import run_cell
    from starbench.experiment.settings import AlgorithmSpec, RunSettings
    from starbench.games.spec import GameSpec

    warmed: list = []
    monkeypatch.setattr(
        compiled_engine, "cached_on_disk", lambda family=None, table=None: family is None
    )
    monkeypatch.setattr(compiled_engine, "is_warm", lambda forms=None: False)
    monkeypatch.setattr(
        compiled_engine, "warm_up", lambda forms=None, model=None: warmed.append(forms) or 0.0
    )
    said: list[str] = []
    s = RunSettings(
        tree=GameSpec(game="pig(winscore=10)", depth=2),
        algorithms=(AlgorithmSpec("star1"),),
        trees=2,
        progress=False,
    )
    run_cell(s, tmp_path / "cell", out=lambda _: None, warn=said.append)
    assert warmed[0] == {(True, "pig")}  # before the work (then each search asks again)
    assert [line for line in said if "compiling the search kernel" in line] == [
        f"starbench: compiling the search kernel (once per machine, about "
        f"{compiled_engine.GAME_COMPILE_SECONDS} s)"
    ]


def test_a_grown_game_cell_keeps_the_engine_its_rows_ran_on(tmp_path):
    """``engine=auto`` runs a game with a model compiled at any size, but a cell grown under
    it keeps the engine its stored rows of a request ran on (as a random tree's cell does):
    its timings never mix two engines.  Here rows on the Python engine, then the cell grown
    with ``auto``: every row on the Python engine."""
    import pandas as pd

    from starbench.experiment.runner import run_cell
    from starbench.experiment.settings import AlgorithmSpec, RunSettings
    from starbench.games.spec import GameSpec

    def cell(trees: int, engine: str) -> RunSettings:
        tree = GameSpec(game="pig(winscore=10)", depth=2)
        algorithms = (AlgorithmSpec("star1"), AlgorithmSpec("expectimax"))
        return RunSettings(tree=tree, algorithms=algorithms, trees=trees, engine=engine,
                           progress=False)  # fmt: skip

    said: list[str] = []
    run_cell(cell(2, "python"), tmp_path / "c", out=lambda _: None, warn=said.append)
    run_cell(cell(3, "auto"), tmp_path / "c", out=lambda _: None, warn=said.append)
    table = pd.read_parquet(tmp_path / "c" / "table.parquet")
    assert len(table) == 6 and set(table["engine"]) == {"python"}, table[["algorithm", "engine"]]
    run_cell(cell(2, "auto"), tmp_path / "d", out=lambda _: None, warn=said.append)
    assert set(pd.read_parquet(tmp_path / "d" / "table.parquet")["engine"]) == {"compiled"}


@pytest.mark.parametrize("budget", [None, 3000])
def test_iterative_deepening_over_a_model_gives_the_python_engine_s_rows(tmp_path, budget):
    """A deepening game cell (``tree.iterative``) on the compiled engine: one kernel table kept
    across the iterations, the root's best move from the last iteration first; its rows (every
    counter, the iterations, the depth completed under a node budget) equal the Python
    engine's, but for the engine and the times."""
    import pandas as pd

    from starbench.experiment.runner import run_cell
    from starbench.experiment.settings import RunSettings
    from starbench.games.spec import GameSpec
    from starbench.record.columns import nondeterministic
    from starbench.search.registry import resolve

    specs = (
        resolve("expectimax", {"tt": 12}),
        resolve("star2", {"tt": 12, "tt_chance": True, "tt_probe": True}),
        resolve("star2.5-cyclic", {"tt": 6, "tt_nodes": "decision"}),
        resolve("star1"),
    )
    tables = {}
    for engine in ("python", "compiled"):
        s = RunSettings(
            tree=GameSpec(game="pig", depth=5, heuristic="score_difference", iterative=True),
            algorithms=specs,
            trees=3,
            progress=False,
            engine=engine,
            node_budget=budget,
        )
        run_cell(s, tmp_path / engine, out=lambda _: None, warn=lambda _: None)
        tables[engine] = pd.read_parquet(tmp_path / engine / "table.parquet")
    a, b = tables["python"], tables["compiled"]
    assert set(a.engine) == {"python"} and set(b.engine) == {"compiled"}
    assert ("budget_exceeded" in set(a.status)) == (budget is not None)
    drop = [c for c in a.columns if c in nondeterministic() or c == "engine"]
    pd.testing.assert_frame_equal(a.drop(columns=drop), b.drop(columns=drop))


# --------------------------------------------------------------------------- a toy native game
# The race of tests/test_game_kinds.py as a native model, in this module alone: two players
# move a counter towards 3, each turn one step or a gamble (0 or 2 steps, one half each).
# s = [player 0's count, player 1's, the player to move, 1 at a gamble]; no parameters.
RACE_GOAL = 3


@njit
def race_player(p, s):  # noqa: ANN001, ANN201
    if max(s[0], s[1]) >= RACE_GOAL:
        return TERMINAL
    return CHANCE if s[3] else s[2]


@njit
def race_n_moves(p, s):  # noqa: ANN001, ANN201
    return 0 if race_player(p, s) < 0 else 2


@njit
def race_move(p, s, i):  # noqa: ANN001, ANN201
    return i  # 0: a step, 1: a gamble


@njit
def race_n_outcomes(p, s):  # noqa: ANN001, ANN201
    return 2 if race_player(p, s) == CHANCE else 0


@njit
def race_outcome(p, s, i):  # noqa: ANN001, ANN201
    return 2 * i  # 0 or 2 steps


@njit
def race_probability(p, s, i):  # noqa: ANN001, ANN201
    return 0.5


@njit
def race_apply(p, s, action, out):  # noqa: ANN001, ANN201
    out[:] = s
    if s[3] or action == 0:  # steps taken (a gamble's outcome, or one step), the turn passes
        out[s[2]] += action if s[3] else 1
        out[2], out[3] = 1 - s[2], 0
    else:
        out[3] = 1


@njit
def race_returns(p, s, player):  # noqa: ANN001, ANN201
    if max(s[0], s[1]) < RACE_GOAL:
        return 0.0
    return 1.0 if s[player] >= RACE_GOAL else -1.0


@njit
def race_heuristic(p, s, code, root):  # noqa: ANN001, ANN201
    return (s[root] - s[1 - root]) / RACE_GOAL  # score_difference, in (-1, 1)


@njit
def race_key(p, s):  # noqa: ANN001, ANN201
    return ((s[0] * 8 + s[1]) * 2 + s[2]) * 2 + s[3]


def _race_model(game):  # noqa: ANN001, ANN202
    """The model of the toy race (``MODELS``' ``make``): the state read from a race state."""
    from starbench.games.models import MODELS, GameModel

    def from_state(state):  # noqa: ANN001, ANN202
        return np.array([*state.scores, state.to_move, int(state.gamble)], np.int64)

    return GameModel(
        game, game, np.zeros(1, np.int64), 4, *MODELS[game].functions, from_state,
        ("score_difference",), lambda s, depth: (2, 2 * depth + 1),
        lambda: np.zeros(4, np.int64),
    )  # fmt: skip


def test_a_toy_native_game_is_one_module_plus_one_registry_line(monkeypatch):
    """A new native game: its contract's functions and its ``make`` in one module (here, this
    one), plus one line in ``games.models.MODELS``; the kernel, untouched, searches it with
    every kernel algorithm (without a table: a table is one more compile of half a minute, and
    the property test above covers tables on the two real games) and gives the Python engine's
    value, best move and every counter on the same game's tree (``test_game_kinds``' race, as
    OpenSpiel-style states).  Its family is named after this module's source, so an edit
    compiles it afresh."""
    import hashlib
    import inspect
    import sys

    from starbench.compiled.engine import execute
    from starbench.compiled.models import ModelTree
    from starbench.games.adapter import GameTree
    from starbench.games.models import CONTRACT, MODELS, ModelKind
    from starbench.search.registry import resolve

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from test_game_kinds import Race

    source = inspect.getsource(sys.modules[__name__]).encode()
    family = "race_" + hashlib.sha1(source).hexdigest()[:10]
    functions = tuple(globals()[f"race_{name}"] for name in CONTRACT)
    monkeypatch.setitem(MODELS, family, ModelKind(functions, _race_model))  # the one line
    model = _race_model(family)
    for depth in (1, 2, 4, 6):
        for state in (Race(), Race((1, 2), 1, False), Race((2, 0), 0, True)):
            r = 0 if state.gamble else state.to_move  # the root player, as for OpenSpiel's
            lead = lambda s, r=r: (s.scores[r] - s.scores[1 - r]) / RACE_GOAL  # noqa: E731
            key = lambda s: int(race_key(None, model.from_state(s)))  # noqa: E731 - shared
            tree = GameTree(
                state, (-1, 1), depth, heuristic=lead, root_player=r, exact=False, key=key
            )
            root = model.from_state(state)
            form = ModelTree.make(model, root, depth, "score_difference", (-1, 1))
            for algorithm, params in KERNEL_REQUESTS[:7]:  # (a table: pig's and Einstein's)
                ref = search(tree, algorithm, engine="python", levels=True, **params)
                got = execute(form, resolve(algorithm, params))
                _same(got, ref, (state, depth, algorithm, params))


def test_solve_says_a_first_compile_of_a_game_s_kernel(monkeypatch, capsys):
    """``solve --game pig`` on a machine whose numba cache lacks pig's kernel says, in one line
    before the search, that it compiles it (the compile itself skipped here)."""
    from starbench.commands import cli
    from starbench.compiled import engine as compiled_engine

    warmed: set = set()  # this test's record of what is loaded (the compile itself skipped)
    monkeypatch.setattr(compiled_engine, "_WARMED", warmed)
    monkeypatch.setattr(
        compiled_engine, "cached_on_disk", lambda family=None, table=None: family is None
    )
    monkeypatch.setattr(compiled_engine, "is_warm", lambda forms=None: False)
    monkeypatch.setattr(
        compiled_engine,
        "warm_up",
        lambda forms=None, model=None: warmed.update(compiled_engine._forms(forms)) or 0.0,
    )
    assert cli.main(["solve", "--game", "pig(winscore=10)", "--depth", "2"]) == 0
    err = capsys.readouterr().err
    line = (
        f"starbench: compiling the search kernel (once per machine, about "
        f"{compiled_engine.GAME_COMPILE_SECONDS} s)"
    )
    assert err.count(line) == 1, err


def test_a_first_search_says_its_compile_once(monkeypatch, capsys):
    """``starbench.search``'s first use of a kernel that numba's cache lacks says, in one line
    on stderr, that it compiles it (here the cache is said to lack it and the kernel is loaded);
    a second search says nothing."""
    from starbench.compiled import engine as compiled_engine

    monkeypatch.setattr(compiled_engine, "_WARMED", set())
    monkeypatch.setattr(compiled_engine, "cached_on_disk", lambda family=None, table=None: False)
    src = game_source("pig(winscore=10)", 2)
    first = search(src.tree, "star2", engine="compiled")
    err = capsys.readouterr().err
    line = (
        f"starbench: compiling the search kernel (once per machine, about "
        f"{compiled_engine.GAME_COMPILE_SECONDS} s)"
    )
    assert err.splitlines() == [line]
    again = search(game_source("pig(winscore=10)", 2).tree, "star2", engine="compiled")
    assert capsys.readouterr().err == "" and again.value == first.value
