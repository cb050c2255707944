"""Exact with a transposition table: every exact algorithm with every exact table option gives
expectimax's value on DAGs (trees with transpositions) and on games, in floats and fractions.

The bug this guards against (issue 72): in floats a chance node's fail-soft bound lands within
rounding of its window's edge, on either side, and the table's store read such a result as the
wrong kind of bound (an upper bound stored as a lower one, or as exact); a transposition then
answered from it a value far from the truth.  ``starbench/external/kept/table-repro.json`` is the
held reproduction shrunk to 50 nodes; the property test finds the class on random DAGs, its
debug checks naming the node whose entry is unsound (``Search.check_entry``).
"""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starbench import RegularTree, RegularTreeSpec
from starbench.engines import search
from starbench.external import corpus
from starbench.external.shrink import Tree as ShrinkTree
from starbench.external.shrink import value as exact_value
from starbench.search.arith import tolerance
from starbench.search.debug_value import full_value
from starbench.search.registry import AlgorithmSpec
from starbench.trees.explicit import loads_tree, parse_tree
from strategies import dag_objects

#: The held reproduction of issue 72 (a generated DAG of 964 nodes).
REPRO = (
    RegularTreeSpec(
        branching=3,
        chance_arity=5,
        depth=3,
        pattern="max,chance",
        distribution="random",
        weight_max=16,
        trailing_chance=False,
        value_model="uniform",
        resolution=3,
        bounds="tree",
        ordering="reversed",
        outcome_order="supporting",
        generator_version=2,
        pool=10,
    ),
    75939,
    635814,
)

STARS = (
    ("star1", {}),
    ("star2", {}),
    ("star2", {"after_probe": "research"}),
    ("star2.5-cyclic", {"k": 3}),
    ("star2.5-sequential", {"k": 3}),
)
#: Every exact table option of an algorithm (``tt`` set apart): the table at every node or at
#: decision nodes only, its bounds at chance nodes, and in the probe phase.
OPTIONS = (
    {},
    {"tt_chance": True},
    {"tt_chance": True, "tt_probe": True},
    {"tt_nodes": "decision"},
    {"tt_nodes": "decision", "tt_chance": True, "tt_probe": True},
)


def every_request(tt: int) -> list[tuple[str, dict[str, Any]]]:
    out = [("expectimax", {"tt": tt}), ("expectimax", {"tt": tt, "tt_nodes": "decision"})]
    for name, params in STARS:
        for opt in OPTIONS:
            if name == "star1" and opt.get("tt_probe"):
                continue  # tt_probe needs a probe phase
            out.append((name, {**params, **opt, "tt": tt}))
    return out


def wrong(tree: Any, want: Any, engine: str, requests: Any) -> list[str]:
    """The requests whose float value on ``engine`` is not ``want`` within the tolerance."""
    tol = tolerance(*tree.bounds)
    out = []
    for name, params in requests:
        got = search(tree, name, engine=engine, **params).value
        if abs(got - float(want)) > tol:
            out.append(f"{name} {params} on {engine}: {got}, expectimax {float(want)}")
    return out


# --------------------------------------------------------------------------- the reproduction
def test_the_held_reproduction_gives_expectimaxs_value_on_both_engines():
    """The reproduction of issue 72: Star1, Star2 and Star2.5 with a table returned 3.0 where
    expectimax gives 2.850544662309368, on both engines; every exact table option now agrees."""
    spec, seed, instance = REPRO
    tree = RegularTree(spec, seed, instance)
    want = search(tree, "expectimax", engine="python", exact=True).value
    assert float(want) == pytest.approx(2.850544662309368, abs=1e-12)
    requests = every_request(10) + every_request(2)
    assert wrong(tree, want, "compiled", requests) == []
    assert wrong(tree, want, "python", every_request(10)) == []


def test_the_shrunk_reproduction_is_a_dag_and_every_table_option_agrees():
    """The reproduction shrunk to 50 nodes (a chance root over a MAX node and, again, the chance
    node the MAX node searched second: a transposition): wrong before the fix for every Star
    algorithm, both engines; right now for every exact table option, in floats and fractions,
    the debug checks passing (they name an unsound entry where it is stored)."""
    text = corpus.kept_path("table-repro").read_text()
    floats, exact = loads_tree(text, exact=False), loads_tree(text)
    assert floats.size == 50
    keys = floats.transposition_keys
    assert len(set(keys)) < len(keys)  # identical subtrees: transpositions
    want = exact_value(ShrinkTree.of(json.loads(text)).root)
    assert want == Fraction(253, 90)
    requests = every_request(10) + every_request(2) + every_request(1)
    assert wrong(floats, want, "compiled", requests) == []
    assert wrong(floats, want, "python", requests) == []
    for name, params in every_request(10):
        assert search(floats, name, engine="python", debug=True, **params).value == pytest.approx(
            float(want), abs=1e-12
        )
        assert search(exact, name, engine="python", exact=True, debug=True, **params).value == want


def test_the_shrunk_reproduction_is_a_corpus_case():
    """The shrunk reproduction is served to outside engines: the corpus's family
    ``transpositions`` holds it, with its exact value."""
    tree = json.loads(corpus.kept_path("table-repro").read_text())
    cases = [t for family, _i, t in corpus.trees() if family == "transpositions"]
    assert tree in cases


# --------------------------------------------------------------------------- the reference
def _row(algorithm: str, value: float, tt: int = 0) -> dict[str, Any]:
    return {
        "instance": 0,
        "algorithm": algorithm,
        "run_status": "done",
        "value": value,
        "best_move": 0,
        "L": 0.0,
        "U": 3.0,
        "leaves": 5,
        "tt": tt,
    }


def test_a_row_with_a_table_is_never_the_reference():
    """Rows that agree on a table's mistake do not verify each other: the reference is a search
    without a table (expectimax's, else the one exact search without one, else two agreeing),
    and rows with nothing of the kind to compare with are unverified."""
    from starbench.record.rows import verify

    def statuses(rows: list[dict[str, Any]]) -> dict[str, tuple[str, Any]]:
        got = verify(rows, False)
        return {f"{r['algorithm']}:{r['tt']}": (st, by) for r, st, _ev, by, *_ in got}

    wrong = [_row("star2", 3.0, 10), _row("star1", 3.0, 10), _row("expectimax", 3.0, 10)]
    got = statuses([*wrong, _row("star1", 2.85)])  # the one search without a table
    assert got["star2:10"] == ("mismatch", "star1") and got["expectimax:10"][0] == "mismatch"
    assert got["star1:0"] == ("unverified", None)  # nothing else agrees with it
    got = statuses(wrong)
    assert {st for st, _by in got.values()} == {"unverified"}  # before: ok, star2+star1
    got = statuses([_row("star2", 2.85, 10), _row("star1", 2.85), _row("star2", 2.85)])
    assert got["star2:10"] == ("ok", "star1+star2") and got["star1:0"][0] == "ok"
    got = statuses([_row("star2", 2.85, 10), _row("star1", 2.85)])
    assert got["star1:0"] == ("ok", "star1+star2:tt=10")  # checked by the row with a table


def test_run_and_solve_say_when_nothing_checks_a_tables_values(capsys):
    """A cell whose every exact search uses a table says so in one line (its rows are
    unverified); ``solve`` says so and compares nothing; with expectimax, neither."""
    from starbench.commands import cli
    from starbench.examples import example_path
    from starbench.experiment.stages import unchecked_line

    def specs(*texts: str) -> list[AlgorithmSpec]:
        return [AlgorithmSpec.of(*_parse(t)) for t in texts]

    line = unchecked_line(specs("star2:tt=10", "expectimax:tt=10"), {})
    assert line is not None and "expectimax:tt=10" in line and "{name: expectimax}" in line
    assert unchecked_line(specs("star2:tt=10", "star1"), {}) is None
    assert unchecked_line(specs("star2:tt=10", "mcts"), {}) is not None  # mcts checks nothing
    tree = str(example_path("dice-small"))
    assert cli.main(["solve", tree, "-a", "star2:tt=8", "-a", "star1:tt=8"]) == 0
    err = capsys.readouterr().err
    assert "every exact search here uses a transposition table" in err
    assert cli.main(["solve", tree, "-a", "expectimax", "-a", "star2:tt=8"]) == 0
    assert "transposition table" not in capsys.readouterr().err


def _parse(text: str) -> tuple[str, dict[str, Any]]:
    from starbench.search.registry import parse_spec

    return parse_spec(text)


# --------------------------------------------------------------------------- the store rule
def test_a_chance_nodes_bound_never_lands_past_its_windows_edge():
    """The chance node the reproduction searched with (U - 2^-51, U) (B, its first outcomes at
    U, worth 118/45): its fail-low bound, a float sum, landed on beta = 3.0, read as a lower
    bound and stored as the value 3.  Now a fail low returns at most alpha and a fail high at
    least beta, in every Star algorithm (exactly, this changes nothing)."""
    from starbench.search import search_window

    repro = json.loads(corpus.kept_path("table-repro").read_text())
    b = {"bounds": repro["bounds"], "root": repro["root"]["chance"][1][1]}
    floats, exact = parse_tree(b, exact=False), parse_tree(b)
    assert exact_value(ShrinkTree.of(b).root) == Fraction(118, 45)
    alpha = math.nextafter(3.0, 0.0)
    for name, params in STARS:
        v, _stats = search_window(floats, name, alpha, 3.0, **params)
        assert v <= alpha, (name, v)  # an upper bound (the value is 2.62)
        v, _stats = search_window(floats, name, 0.0, math.nextafter(0.0, 1.0), **params)
        assert v >= math.nextafter(0.0, 1.0), (name, v)  # a lower bound
        v, _stats = search_window(exact, name, Fraction(2), Fraction(3), exact=True, **params)
        assert Fraction(2) < v < 3 and v == Fraction(118, 45), (name, v)


def test_the_store_reads_a_result_by_its_place_in_the_window():
    """The store: at or below alpha an upper bound, at or above beta a lower bound, inside the
    window exact; a zero-width window stores nothing; a bound is kept inside [L, U]."""
    tree = loads_tree('{"bounds": [0, 3], "root": {"max": [{"max": [1, 2]}, 3]}}', exact=False)
    s = AlgorithmSpec.of("alphabeta", {"tt": 2}).make(tree)
    for (alpha, beta, v), want in (
        ((1.0, 2.0, 1.0), (0, 1.0)),  # at alpha: an upper bound
        ((1.0, 2.0, 2.5), (2.5, 3)),  # past beta: a lower bound
        ((1.0, 2.0, 1.5), (1.5, 1.5)),  # inside: exact
        ((1.0, 1.0, 1.0), None),  # alpha = beta: nothing (either reading is possible)
        ((0.0, 2.0, -1e-16), (0, 0)),  # a float sum a rounding below L: kept inside [L, U]
    ):
        s.table = type(s.table)(2)
        s._store(1, 0, alpha, beta, v, None)
        e = s.table.probe(1, 0)
        assert (None if e is None else (e[2], e[3])) == want, (alpha, beta, v)


# --------------------------------------------------------------------------- the property
class Keyed:
    """A tree file's tree with transposition keys made here, independently of
    ``ExplicitTree.transposition_keys``: equal exactly for identical subtrees (their canonical
    JSON text).  Searched by the Python engine (any tree with ``transposition``); ``at(node)``
    is the same tree rooted at ``node`` (the same keys)."""

    def __init__(self, tree: Any, keys: list[int] | None = None, root: int = 0):
        self._tree = tree
        self.root = root
        if keys is None:
            text: dict[int, str] = {}
            for i in range(tree.size - 1, -1, -1):
                kind = tree.kind(i).name
                if kind == "LEAF":
                    text[i] = repr(tree.evaluate(i))
                else:
                    kids = [text[c] for c in tree.children(i)]
                    if kind == "CHANCE":
                        probs = tree.probabilities(i)
                        kids = [f"{p!r}:{k}" for p, k in zip(probs, kids, strict=True)]
                    text[i] = f"{kind}({','.join(kids)})"
            ids: dict[str, int] = {}
            keys = [ids.setdefault(text[i], len(ids)) for i in range(tree.size)]
        self.keys = keys

    def at(self, node: int) -> Keyed:
        return Keyed(self._tree, self.keys, node)

    def transposition(self, node: int) -> tuple[int, int]:
        return self.keys[node], 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tree, name)


def _request(draw: Any) -> tuple[str, dict[str, Any]]:
    name, params = draw(st.sampled_from(STARS + (("expectimax", {}),)))
    opt = dict(draw(st.sampled_from(OPTIONS)))
    if name == "expectimax":
        opt = {k: v for k, v in opt.items() if k == "tt_nodes"}
    elif name == "star1":
        opt.pop("tt_probe", None)
    p = {**params, **opt, "tt": draw(st.sampled_from([1, 2, 3, 10]))}
    if name.startswith("star2") and draw(st.booleans()):
        p["probe_full_window"] = False
    return name, p


request = st.composite(_request)()
requests = st.lists(request, min_size=3, max_size=3)
#: Aspiration windows of a node: ``ulps`` units in the last place wide at its upper bound U,
#: at its lower bound L, or at its own value V (from below or from above): windows narrower
#: than a float sum's rounding, where a result lands on either side of an edge.
EDGES = ("U", "L", "V-", "V+")


def _window(edge: str, ulps: int, L: float, U: float, v: float) -> tuple[float, float]:
    def step(x: float, n: int, to: float) -> float:
        for _ in range(n):
            x = math.nextafter(x, to)
        return x

    if edge == "U":
        return step(U, ulps, -math.inf), U
    if edge == "L":
        return L, step(L, ulps, math.inf)
    if edge == "V-":
        return step(v, ulps, -math.inf), v
    return v, step(v, ulps, math.inf)


#: The DAG property's examples: 10/3 of the profile's (ci 400, quick 100, thorough 10,000).
DAG_EXAMPLES = settings.default.max_examples * 10 // 3


@settings(max_examples=DAG_EXAMPLES)
@given(dag_objects(), requests, st.sampled_from(EDGES), st.integers(1, 3), st.booleans())
def test_every_exact_table_option_gives_expectimaxs_value_on_dags(
    obj, asked, edge, ulps, in_fractions
):
    """Property: on a random DAG, each of three drawn (algorithm, table option) requests gives
    expectimax's value (an independent exact recursion): at the root with the full window, on
    the Python engine in debug mode over keys made here and on the compiled engine over the
    tree file's own keys, and in fractions when drawn; and after aspiration searches with one
    table: every distinct chance node searched with windows narrower than a rounding (at U,
    and at the drawn edge) in debug mode (its checks name an entry stored unsound), every
    entry of the table then checked against its node's value, and the root searched with the
    full window over that table."""
    floats = parse_tree(obj, exact=False)
    keyed = Keyed(floats)
    want = exact_value(ShrinkTree.of(obj).root)
    L, U = (float(b) for b in floats.bounds)
    tol = tolerance(L, U)
    exact = Keyed(parse_tree(obj)) if in_fractions else None
    first: dict[int, int] = {}
    for i, k in enumerate(keyed.keys):
        first.setdefault(k, i)
    chance = [i for i in first.values() if floats.kind(i).name == "CHANCE"][:12]
    for name, params in asked:
        got = search(keyed, name, engine="python", debug=True, **params).value
        assert abs(got - float(want)) <= tol, (name, params, "python", got, want)
        got = search(floats, name, engine="compiled", **params).value
        assert abs(got - float(want)) <= tol, (name, params, "compiled", got, want)
        if exact is not None:
            got = search(exact, name, engine="python", exact=True, debug=True, **params).value
            assert got == want, (name, params, "fractions", got, want)
        spec = AlgorithmSpec.of(name, params)
        table = None
        for c in chance:
            node = keyed.at(c)
            v = float(full_value(node, c, float))
            for at in dict.fromkeys(("U", edge)):  # at the upper bound always (ties at U)
                s = spec.make(node, debug=True, table=table)
                table = s.table
                s.run_window(*_window(at, ulps, L, U, v))
        for e in [] if table is None else [e for e in table.slots if e is not None]:
            true = float(full_value(keyed, first[e[0]], float))  # every entry holds its value
            assert e[2] <= true + tol and true - tol <= e[3], (name, params, edge, ulps, e, true)
        got = spec.make(keyed, table=table).run().value
        assert abs(got - float(want)) <= tol, (name, params, "after windows", edge, got, want)


@settings(max_examples=30)
@given(dag_objects())
def test_identical_subtrees_share_a_transposition_key(obj):
    """A tree file's keys (``ExplicitTree.transposition_keys``) are equal exactly where the
    subtrees are identical: the same partition as ``Keyed``'s canonical texts."""
    tree = parse_tree(obj, exact=False)
    own, theirs = tree.transposition_keys, Keyed(tree).keys
    pairs = {(a, b) for a, b in zip(own, theirs, strict=True)}
    assert len(pairs) == len(set(own)) == len(set(theirs))


# --------------------------------------------------------------------------- games
@settings(max_examples=100)
@given(
    st.sampled_from([("pig", "score_difference", 3), ("einstein_wurfelt_nicht", None, 2)]),
    st.integers(0, 2**32 - 1),
    st.integers(0, 12),
    st.data(),
)
def test_every_exact_table_option_gives_expectimaxs_value_on_games(game, seed, plies, data):
    """Property: game trees with tables, where positions repeat (transpositions): pig with its
    tie-heavy ``score_difference`` heuristic and Einstein würfelt nicht, from a position
    ``plies`` random moves into the game; drawn requests in debug mode against expectimax
    without a table."""
    pytest.importorskip("pyspiel", reason="OpenSpiel is not installed: pip install -e '.[games]'")
    from starbench.games.source import game_source

    name, heuristic, depth = game
    position = _random_position(name, seed, plies)
    src = game_source(name, depth, position, heuristic)
    want = search(src.tree, "expectimax", engine="python").value
    tol = tolerance(*src.tree.bounds)
    for algo, params in data.draw(st.lists(request, min_size=3, max_size=3)):
        got = search(src.tree, algo, engine="python", debug=True, **params).value
        assert abs(got - want) <= tol, (name, position, algo, params, got, want)


def _random_position(game: str, seed: int, plies: int) -> str | None:
    """The comma-separated actions of a random playout of ``plies`` moves (fewer where the
    game ends; more through a set-up draw), or None for the start."""
    import pyspiel

    g = pyspiel.load_game(game)
    state = g.new_initial_state()
    rng = random.Random(seed)
    actions = []
    for i in range(1000):
        if state.is_terminal():
            break
        if i >= plies and not (state.is_chance_node() and len(state.chance_outcomes()) > 36):
            break  # (Einstein's set-up draws, hundreds of outcomes each, are played out)
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            a = rng.choices([o for o, _p in outcomes], [p for _o, p in outcomes])[0]
        else:
            a = rng.choice(state.legal_actions())
        actions.append(a)
        state.apply_action(a)
        if state.is_terminal():
            actions.pop()
            break
    return ",".join(map(str, actions)) or None
