"""OpenSpiel games as a tree source: parity with OpenSpiel's own expectiminimax, every algorithm
agreeing with expectimax on game trees (floats and exact), and one-line errors."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction

import pytest

from starbench.commands import cli
from starbench.commands.solve import solve
from starbench.errors import InputError
from starbench.games.source import GAMES_INSTALL, game_source
from starbench.search import reference_search as search

pyspiel = pytest.importorskip("pyspiel", reason=f"OpenSpiel is not installed: {GAMES_INSTALL}")
from open_spiel.python.algorithms import minimax  # noqa: E402


def openspiel(monkeypatch, spec, depth, position=None):
    """OpenSpiel's expectiminimax on the same position, heuristic and root player: (value,
    best action, number of calls = nodes it visits)."""
    # pig in points, as OpenSpiel's own pig test (in integers: the values are exactly equal)
    src = game_source(spec, depth, position, "score_difference" if "pig" in spec else None)
    state, _ = src.tree.root
    calls = [0]
    original = minimax.expectiminimax

    def counting(*args):
        calls[0] += 1
        return original(*args)

    monkeypatch.setattr(minimax, "expectiminimax", counting)  # its recursion goes through it
    value, action = minimax.expectiminimax(
        state.clone(), depth, src.tree.heuristic, src.tree.root_player
    )
    monkeypatch.setattr(minimax, "expectiminimax", original)
    return src, value, action, calls[0]


PARITY = [
    *(("pig", None, d) for d in range(1, 7)),
    *(("pig(winscore=10)", None, d) for d in range(1, 8)),
    *(("pig(winscore=6,diceoutcomes=3)", None, d) for d in range(1, 8)),
    *(("pig(winscore=10)", "0,3,0,4,1", d) for d in range(1, 6)),
    *(("einstein_wurfelt_nicht", "0,0", d) for d in range(1, 4)),
    *(("einstein_wurfelt_nicht", "5,17,2", d) for d in range(1, 4)),
]


@pytest.mark.parametrize(("spec", "position", "depth"), PARITY)
def test_expectimax_is_openspiels_expectiminimax(monkeypatch, spec, position, depth):
    """Same value, same best action, and the same nodes: OpenSpiel's expectiminimax makes one
    call per node it visits (terminals and horizon nodes included), starbench counts one node
    per node entered, so expectimax's ``nodes`` equals the number of calls."""
    src, value, action, calls = openspiel(monkeypatch, spec, depth, position)
    r = search(src.tree, "expectimax")
    assert r.value == value
    assert src.action(r.best_move) == action
    assert r.stats.nodes == calls


def _fused_and_reference(tree, **options):
    """The expectimax the registry builds for a game tree (the fused one) and the reference."""
    from starbench.games.expectimax import GameExpectimax
    from starbench.search.expectimax import Expectimax
    from starbench.search.registry import get_algorithm

    fused = get_algorithm("expectimax").make(tree, {}, **options)
    assert type(fused) is GameExpectimax
    return fused, Expectimax(tree, **options)


FUSED = [
    *PARITY,
    *(("pig", p, d) for p in ("0,3,1", "0,5,0,2,0,0") for d in (1, 2, 5)),
    ("einstein_wurfelt_nicht", "7,1,4", 2),
]


@pytest.mark.parametrize(("spec", "position", "depth"), FUSED)
def test_the_fused_expectimax_is_the_reference_counter_for_counter(spec, position, depth):
    """Games' expectimax in floats runs ``starbench.games.expectimax``: the reference's value
    (to the last bit), best move, tied moves and every counter."""
    fused, reference = _fused_and_reference(game_source(spec, depth, position).tree)
    got = [
        (r.value, r.best_move, r.tied_moves, r.stats, r.by_level)
        for r in (fused.run(), reference.run())
    ]
    assert got[0] == got[1]
    got[0][4].check(got[0][3])  # per level, summing to the totals


@pytest.mark.parametrize("budget", [1, 2, 3, 7, 64, 1000, 2261])
def test_the_fused_expectimax_stops_at_the_references_node(budget):
    """A node budget stops both at the same node with the same counts (pig, depth 4: 2,261
    nodes, so the last budget is not exceeded)."""
    from starbench.errors import BudgetExceeded

    tree = game_source("pig", 4).tree
    outcomes = []
    for s in _fused_and_reference(tree, node_budget=budget):
        try:
            outcomes.append(s.run().stats)
        except BudgetExceeded as e:
            outcomes.append((str(e), s.stats()))
    assert outcomes[0] == outcomes[1]
    assert isinstance(outcomes[0], tuple) == (budget < 2261)


def test_the_fused_expectimax_checks_the_time_budget_every_1024_nodes():
    from starbench.errors import BudgetExceeded

    for s in _fused_and_reference(game_source("pig", 5).tree, time_budget=0.0):
        with pytest.raises(BudgetExceeded, match="time budget of 0.0 s exceeded"):
            s.run()
        assert s.stats().nodes == 1024


def test_the_reference_runs_where_the_fused_expectimax_does_not_apply():
    from starbench.search.expectimax import Expectimax
    from starbench.search.registry import get_algorithm

    make = get_algorithm("expectimax").make
    assert type(make(game_source("pig", 2, exact=True).tree, {}, exact=True)) is Expectimax
    tree = game_source("pig", 2).tree
    assert type(make(tree, {}, debug=True)) is Expectimax
    assert type(make(tree, {"tt": 8})) is Expectimax


def test_pig_depth_two_is_ten_thirds_rolling(capsys):
    """The figure of OpenSpiel's pig test: value 10/3, best action 0 (roll)."""
    points = ["--heuristic", "score_difference"]  # OpenSpiel's test counts points
    assert cli.main(["solve", "--game", "pig", "--depth", "2", "--exact", "--json", *points]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {(r["value"], r["best_action"]) for r in rows} == {("10/3", 0)}
    assert cli.main(["solve", "--game", "openspiel:pig", "--depth", "2", "--json", *points]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["best_action"] for r in rows} == {0}
    assert all(abs(r["value"] - 10 / 3) < 1e-12 for r in rows)


def _positions(spec, count, seed=0, plies=12):
    """Start positions by seeded random playouts (action histories)."""
    game = pyspiel.load_game(spec)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state, hist = game.new_initial_state(), []
        for _ in range(rng.randrange(plies)):
            if state.is_terminal():
                break
            if state.is_chance_node():
                acts, probs = zip(*state.chance_outcomes(), strict=True)
                a = rng.choices(acts, probs)[0]
            else:
                a = rng.choice(state.legal_actions())
            state.apply_action(a)
            hist.append(a)
        if not state.is_terminal():
            out.append(",".join(map(str, hist)) or None)
    return out


@pytest.mark.parametrize(
    ("spec", "depths"),
    [("pig", (1, 2, 3, 4)), ("pig(winscore=10)", (2, 3, 4, 5)), ("einstein_wurfelt_nicht", (1, 2))],
)
@pytest.mark.parametrize("exact", [False, True])
def test_every_algorithm_agrees_with_expectimax_on_games(spec, depths, exact):
    positions = _positions(spec, 6) if spec.startswith("pig") else ["0,0", "3,9", "7,1,4"]
    for position in positions:
        for depth in depths:
            src = game_source(spec, depth, position, exact=exact)
            solved = solve(src.tree, exact=exact, engine="python")
            assert solved.mismatch is None, (position, depth, solved.mismatch)
            if exact:
                assert all(isinstance(r.value, Fraction | int) for r in solved.results)


def test_exact_mode_normalises_the_game_probabilities():
    """Pig's outcomes are six floats 0.16666666666666666: read exactly they sum to
    0.99999999999999996; exact mode divides by the sum, as for JSON trees (1/6 each)."""
    src = game_source("pig", 2, exact=True)
    state, left = src.tree.root
    chance = src.tree.children(src.tree.root)[0]  # roll
    probs = src.tree.probabilities(chance)
    assert probs == [Fraction(1, 6)] * 6 and sum(probs) == 1
    floats = game_source("pig", 2).tree
    assert floats.probabilities(floats.children(floats.root)[0]) == [1 / 6] * 6


def test_the_horizon_evaluates_chance_nodes_too():
    """As OpenSpiel: with no ply left a chance node is a leaf (depth 1 from the start of pig:
    the root, roll -> a chance node at the horizon, stop -> a decision node at the horizon)."""
    r = search(game_source("pig", 1).tree, "expectimax")
    assert (r.stats.nodes, r.stats.leaves, r.stats.chance_nodes) == (3, 2, 0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "no_such_game", "--depth", "2"], "--game: no_such_game"),
        (["--game", "kuhn_poker", "--depth", "2"], "not of perfect information"),
        (["--game", "negotiation", "--depth", "1"], "chance outcomes are sampled"),
        (["--game", "pig", "--depth", "0"], "--depth: must be an integer >= 1"),
        (["--game", "pig"], "--game needs --depth"),
        (["--game", "pig", "--depth", "2", "--position", "0,9"], "--position: item 2"),
        (["--game", "pig", "--depth", "2", "--position", "x"], "is not an action id"),
        (["--game", "pig", "--depth", "2", "--heuristic", "nope"], "unknown heuristic 'nope'"),
        (
            ["--game", "einstein_wurfelt_nicht", "--depth", "1", "--heuristic", "score_difference"],
            "applies to pig",
        ),
        (["--game", "pig", "--depth", "1", "--dice", "6,5"], "--dice: only backgammon"),
        (["--game", "pig", "--depth", "1", "--move-order", "equity"], "backgammon moves only"),
        (["--depth", "2"], "--depth, --position, --heuristic, --dice and --move-order go with"),
    ],
)
def test_bad_game_input_is_one_line_and_exit_2(argv, message, tmp_path):
    extra = [str(tmp_path / "t.json")] if argv[0] == "--depth" else []
    if extra:
        (tmp_path / "t.json").write_text('{"value": 1}')
    p = subprocess.run(
        [sys.executable, "-m", "starbench.commands.cli", "solve", *extra, *argv],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2, p.stderr
    assert message in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "Traceback" not in p.stderr


def test_without_openspiel_the_error_names_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel raises ImportError
    with pytest.raises(InputError, match=r"games extra: pip install .*\[games\]"):
        game_source("pig", 2)


def test_a_heuristic_value_outside_its_bounds_is_one_line(monkeypatch, capsys):
    from starbench.games import heuristics

    bad = heuristics.Heuristic("bad", lambda state, player: 10**6, lambda g: (-1, 1), (), "")
    monkeypatch.setitem(heuristics.HEURISTICS, "bad", bad)
    code = cli.main(["solve", "--game", "pig", "--depth", "1", "--heuristic", "bad"])
    lines = capsys.readouterr().err.strip().splitlines()
    errors = [line for line in lines if line.startswith("starbench: error:")]
    assert code == 2 and len(errors) == 1, lines
    assert "game state after actions [0]: evaluation 1000000" in errors[0]
    assert "outside the bounds [-1, 1]" in errors[0]
    # besides it only the notices of why the algorithms run on the Python engine
    assert all("on the Python engine" in line for line in lines if line not in errors), lines


def test_the_fused_expectimax_refuses_a_bad_heuristic_value_as_the_reference_does(monkeypatch):
    from starbench.errors import EvaluationError
    from starbench.games import heuristics

    bad = heuristics.Heuristic("bad", lambda state, player: 10**6, lambda g: (-1, 1), (), "")
    monkeypatch.setitem(heuristics.HEURISTICS, "bad", bad)
    messages = []
    for s in _fused_and_reference(game_source("pig", 3, heuristic="bad").tree):
        with pytest.raises(EvaluationError) as e:
            s.run()
        messages.append(str(e.value))
    assert messages[0] == messages[1]
    assert "evaluation 1000000 is NaN or outside the bounds [-1, 1]" in messages[0]


# --------------------------------------------------------------------------- starbench run
def _run(tmp_path, *overrides):
    return cli.main(
        ["run", "tree=game", "progress=false", f"hydra.run.dir={tmp_path}/out", *overrides]
    )


def test_run_tree_game_searches_seeded_playout_positions(tmp_path, capsys):
    """``starbench run tree=game``: instance i starts from the playout of (seed, i); every row is
    verified against expectimax; the table names the game, position, heuristic and the
    OpenSpiel version; a second run computes nothing."""
    import pandas as pd

    from starbench.games.source import openspiel_version
    from starbench.games.spec import GameSpec, playout_position

    args = [
        'tree.game="pig(winscore=10)"',
        "tree.depth=3",
        "trees=6",
        "algorithms=[expectimax,star1,star2,star2.5-cyclic:k=2]",
    ]
    assert _run(tmp_path, *args) == 0
    df = pd.read_parquet(tmp_path / "out" / "table.parquet")
    assert len(df) == 24 and set(df["status"]) == {"ok"}
    assert set(df["game"]) == {"pig(winscore=10)"} and set(df["heuristic"]) == {"score_share"}
    assert set(df["game_version"]) == {openspiel_version()} and set(df["depth"]) == {3}
    spec = GameSpec("pig(winscore=10)", depth=3)
    by_instance = df.groupby("instance")["position"].agg(set)
    for i, positions in by_instance.items():
        assert positions == {playout_position(spec, 0, i)[0]}
    assert len(set(df["position"])) > 1
    for _, r in df[df["algorithm"] == "expectimax"].iterrows():  # the solve of its position
        src = game_source("pig(winscore=10)", 3, r["position"] or None)
        assert search(src.tree, "expectimax").value == r["value"]
    capsys.readouterr()
    assert _run(tmp_path, *args) == 0
    assert "0 computed now" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["tree.game=no_such_game"], "tree.game: no_such_game: no OpenSpiel game"),
        (["tree.game=pig", "tree.branching=3"], "tree.branching: a game tree has no branching"),
        (["tree.game=pig", "tree.dice=6-5"], "tree.dice: only backgammon takes dice"),
        (["tree.game=pig", "tree.depth=0"], "tree.depth: must be an integer >= 1"),
        (["tree.game=pig", "tree.position=9"], "tree.position: item 1: action 9 is not legal"),
        (["tree.game=pig", "tree.heuristic=nope"], "tree.heuristic: unknown heuristic 'nope'"),
        (["tree.game=pig", "algorithms=[alphabeta]"], "alphabeta does not search chance nodes"),
        (
            ["tree.game=tic_tac_toe", "engine=compiled"],
            "engine: compiled cannot serve games without a model",
        ),
    ],
)
def test_bad_game_config_is_one_line_and_exit_2(tmp_path, capsys, overrides, message):
    assert _run(tmp_path, *overrides) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err, err
    assert not (tmp_path / "out").exists()


def test_random_trees_refuse_game_keys(tmp_path, capsys):
    code = cli.main(["run", "tree.heuristic=zero", f"hydra.run.dir={tmp_path}/out"])
    err = capsys.readouterr().err
    assert code == 2 and "tree.heuristic: only game trees take heuristic" in err, err


# --------------------------------------------------------------------------- the games benchmark
def _bench_games(monkeypatch):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "scripts" / "bench_games.py"
    spec = importlib.util.spec_from_file_location("bench_games", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "SEARCHES", (("pig", None, 2), ("pig(winscore=10)", "0,3", 2)))
    return module


@pytest.mark.slow  # a benchmark's smoke test
def test_bench_games_times_both_and_checks_they_agree(monkeypatch, tmp_path, capsys):
    import os

    bench = _bench_games(monkeypatch)
    cores = os.sched_getaffinity(0)
    assert bench.main(["--repeats", "2", "--out", str(tmp_path / "g.md")]) == 0
    assert os.sched_getaffinity(0) == cores  # pinned while timing, then given back
    lines = (tmp_path / "g.md").read_text().splitlines()
    rows = [r for r in lines if r.startswith("| pig") and "`" not in r]
    fast = [r for r in lines if r.startswith("| pig") and "`" in r]
    nodes = [
        search(game_source(spec, depth, position).tree, "expectimax").stats.nodes
        for spec, position, depth in bench.SEARCHES
    ]
    assert [r.split(" | ")[1:4] for r in rows] == [
        ["(start)", "2", str(nodes[0])],
        ["0,3", "2", str(nodes[1])],
    ]
    text = (tmp_path / "g.md").read_text()
    assert "median of 2 interleaved repeats" in text
    assert "| OpenSpiel s | bare s | starbench s | ratio | vs bare |" in text
    assert all(len(r.split(" | ")) == 9 for r in rows)
    # the exact alternatives: one row per search and algorithm, with its own node count
    assert len(fast) == len(bench.SEARCHES) * len(bench.FAST)
    for (spec, position, depth), r in zip(
        [s for s in bench.SEARCHES for _ in bench.FAST], fast, strict=True
    ):
        cells = r.split(" | ")
        algo, params = bench.FAST[fast.index(r) % len(bench.FAST)]
        want = search(game_source(spec, depth, position).tree, algo, **params).stats.nodes
        assert cells[4].strip("`") == bench._label(algo, params) and cells[5] == str(want)


def test_bench_games_bare_expectimax_is_starbench_value(monkeypatch):
    """The bare contender computes the same value as starbench (the bench checks it in every
    repeat too), at and within the horizon, on a chance root and a decision root."""
    bench = _bench_games(monkeypatch)
    for spec, position, depth in (
        ("pig", None, 3),
        ("pig", "0", 3),
        ("pig(winscore=10)", "0,3", 4),
    ):
        src = game_source(spec, depth, position)
        assert bench.bare_run(src, depth)[1] == search(src.tree, "expectimax").value


def test_bench_games_instruction_counts_subtract_the_set_up(monkeypatch, tmp_path):
    bench = _bench_games(monkeypatch)
    counts = {"none": 1_000_000, "openspiel": 5_000_000, "starbench": 4_000_000}
    monkeypatch.setattr(bench, "instructions", lambda spec, position, depth, who: counts[who])
    monkeypatch.setattr(bench.shutil, "which", lambda name: "/usr/bin/valgrind")
    assert bench.main(["--instructions", "--out", str(tmp_path / "i.md")]) == 0
    rows = [r for r in (tmp_path / "i.md").read_text().splitlines() if r.startswith("| pig")]
    assert rows[0] == "| pig() | (start) | 2 | 4.0 | 3.0 | 0.750 |"
    bench.one_search("pig", "", 2, "starbench")  # what a counted process runs


# --------------------------------------------------------------------------- transposition keys
#: late Einstein würfelt nicht positions (random play-outs) where a table keyed by the state's
#: text gave a wrong value at depth 3 (0.0 for 0.2037, 1.0 for 0.5556, 0.0 for -0.5)
EWN_LATE = (
    "2,712,3,272,5,121,4,222,2,24,0,282,5,196,0,224,5,204,3,238,0,5,1,297,3,76,1,225,1,100,1,152,"
    "2,111,3,165",
    "719,690,5,176,0,122,5,106,0,180,4,236,2,62,5,91,3,12,2,299,4,88,4,164,5,1,1,284,1,120,1,273,"
    "4,96,3,227,2,256,3,212",
    "561,623,5,174,3,17,4,234,4,4,1,297,0,122,2,287,4,12,4,176,3,27,3,107,0,184,4,95,4,62,3,273,0",
)


@pytest.mark.parametrize("position", EWN_LATE)
def test_the_text_key_gave_wrong_einstein_values_and_the_declared_key_does_not(position):
    src = game_source("einstein_wurfelt_nicht", 3, position)
    ref = search(src.tree, "expectimax")
    assert search(src.tree, "expectimax", tt=12).value == pytest.approx(ref.value)
    src.tree.key = None  # the old key, the state's text: it merges positions of other values
    assert search(src.tree, "expectimax", tt=12).value != pytest.approx(ref.value)


def test_einstein_states_that_differ_only_in_the_die_have_different_keys():
    """Einstein würfelt nicht's text is the board alone: keyed by its text, the decision states
    after two different die rolls were one table entry (a wrong value waiting to happen)."""
    src = game_source("einstein_wurfelt_nicht", 2, "0,0")
    tree = src.tree
    rolls = [tree.children(tree.root)[i] for i in range(len(tree.children(tree.root)))]
    assert len({str(node[0]) for node in rolls}) == 1  # the same text after every roll ...
    assert len({tree.transposition(node)[0] for node in rolls}) == len(rolls)  # ... not one key


def test_pig_keys_are_exactly_the_states():
    """Pig's key is its model's (``games.models.model_key``, the compiled engine's too): equal
    keys exactly for equal states, a state being its text (both scores, the turn total, whose
    turn, rolling or not) and the moves made (which the horizon reads), over every node of a
    depth-4 tree."""
    from starbench.games.models import model_of

    tree = game_source("pig", 4).tree
    model = model_of(tree.root[0].get_game())
    by_key: dict[int, tuple[str, int]] = {}
    stack = [tree.root]
    seen = 0
    while stack:
        node = stack.pop()
        if tree.kind(node).name == "LEAF":
            continue
        seen += 1
        key, _ = tree.transposition(node)
        state = (str(node[0]), int(model.from_state(node[0])[5]))
        assert by_key.setdefault(key, state) == state
        stack.extend(tree.children(node))
    assert seen > 100 and len(set(by_key.values())) == len(by_key)


def test_an_undeclared_game_is_keyed_by_its_history():
    from starbench.games.keys import history_key, openspiel_key

    key, finds = openspiel_key("tic_tac_toe")
    assert key is history_key and not finds
    assert openspiel_key("pig")[1] and openspiel_key("einstein_wurfelt_nicht")[1]


@pytest.mark.parametrize(
    "game,position,depth",
    [
        ("pig", None, 4),
        ("pig", "0,3,0", 5),
        ("pig(winscore=10)", None, 6),
        ("einstein_wurfelt_nicht", "0,0", 3),
        ("einstein_wurfelt_nicht", "0,0,2", 3),
        ("einstein_wurfelt_nicht", "3,5,4", 2),
        ("einstein_wurfelt_nicht", EWN_LATE[0], 3),
        ("einstein_wurfelt_nicht", EWN_LATE[1], 3),
        ("einstein_wurfelt_nicht", EWN_LATE[2], 3),
    ],
)
def test_a_table_never_changes_a_game_value_or_best_move(game, position, depth):
    """Every algorithm with a table (at chance nodes too) gives the value and best move of
    expectimax without one, on the games whose keys are declared."""
    src = game_source(game, depth, position)
    ref = search(src.tree, "expectimax")
    for algo, params in (
        ("expectimax", {"tt": 12}),
        ("star1", {"tt": 12, "tt_chance": True}),
        ("star2", {"tt": 12, "tt_chance": True, "tt_probe": True}),
        ("star2.5-sequential", {"k": 2, "tt": 4}),  # a small table: many replacements
    ):
        got = search(src.tree, algo, **params)
        assert (got.value, got.best_move) == pytest.approx((ref.value, ref.best_move)), (
            algo,
            params,
        )


def test_openspiels_backgammon_is_searched_with_its_own_heuristics(capsys):
    """OpenSpiel's backgammon is not starbench's: gnubg's equity (the default of ``backgammon``)
    does not apply to its states (once an AttributeError traceback), so its default is ``zero``
    and ``equity`` is refused in one line."""
    from starbench.commands import cli

    assert cli.main(["solve", "--game", "openspiel:backgammon", "--depth", "1", "-a", "star2"]) == 0
    assert "heuristic zero" in capsys.readouterr().out
    code = cli.main(
        ["solve", "--game", "openspiel:backgammon", "--depth", "1", "--heuristic", "equity"]
    )
    assert code == 2 and "not to openspiel:backgammon" in capsys.readouterr().err


def test_einstein_progress_reads_the_race_and_the_cubes():
    """einstein_progress from OpenSpiel's board text: black (player 0) runs to the bottom right,
    white (player 1) to the top left; (d_w - d_b) / 8 + (n_b - n_w) / 12 for black."""
    from fractions import Fraction

    from starbench.games.heuristics import einstein_progress

    class Board:
        def __init__(self, *rows):
            self.text = "\n".join(rows) + "\n"

        def __str__(self):
            return self.text

    start = Board(
        "|b1||b2||b3||__||__|",
        "|b4||b5||__||__||__|",
        "|b6||__||__||__||w1|",
        "|__||__||__||w2||w3|",
        "|__||__||w4||w5||w6|",
    )
    assert einstein_progress(start, 0) == einstein_progress(start, 1) == 0
    race = Board(
        "|__||__||__||__||__|",
        "|__||__||__||__||__|",
        "|__||__||__||b1||__|",  # black 2 from its corner
        "|__||__||__||w2||__|",  # white 3 from its corner
        "|__||__||__||__||w6|",
    )
    assert einstein_progress(race, 0) == Fraction(1, 8) - Fraction(1, 12)
    assert einstein_progress(race, 1) == -einstein_progress(race, 0)
