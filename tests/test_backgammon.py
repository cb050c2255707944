"""Backgammon with GNU Backgammon's evaluator: the tree's rules (rolls, pass, results, leaf
equity), every algorithm agreeing with expectimax (floats and exact), move ordering counted apart,
seeded start positions, the command line and one-line errors."""

from __future__ import annotations

import functools
import itertools
import json
import subprocess
import sys
from fractions import Fraction

import pytest

from starbench.commands import cli
from starbench.commands.solve import solve
from starbench.errors import InputError
from starbench.games.backgammon import (
    BACKGAMMON_INSTALL,
    ROLLS,
    START_POSITION,
    Backgammon,
    BackgammonState,
    result_points,
    self_play_position,
)
from starbench.games.source import game_source
from starbench.search import reference_search as search

gnubg = pytest.importorskip("gnubg_nn", reason=f"gnubg-nn is not installed: {BACKGAMMON_INSTALL}")


def _equity(board):
    w, wg, wbg, lg, lbg = gnubg.probabilities([list(board[0]), list(board[1])], 0)
    return 2 * w - 1 + wg - lg + wbg - lbg


def test_the_roll_is_21_outcomes_summing_to_one_exactly():
    src = game_source("backgammon", 1, exact=True)
    root = src.tree.root
    assert src.tree.kind(root).name == "CHANCE"
    probs = src.tree.probabilities(root)
    assert len(probs) == 21 and sum(probs) == 1
    assert sorted(set(probs)) == [Fraction(1, 36), Fraction(1, 18)]
    assert sum(1 for d1, d2 in ROLLS if d1 == d2) == 6
    floats = game_source("backgammon", 1).tree
    assert abs(sum(floats.probabilities(floats.root)) - 1) < 1e-12


def test_moves_are_gnubgs_distinct_positions_and_the_best_is_named_in_its_notation(capsys):
    """6-5 at the start: 7 distinct resulting positions (gnubg's count); the 0-ply best is
    24/13 (gnubg's ``best_move``), written as its steps."""
    src = game_source("backgammon", 1, dice="6,5")
    assert len(src.tree.children(src.tree.root)) == 7
    r = search(src.tree, "expectimax")
    assert src.action(r.best_move) == "24/18 18/13"
    best = gnubg.best_move(gnubg.board_from_position_id(START_POSITION), 6, 5)
    assert best == ((24, 18), (18, 13))
    assert (
        cli.main(["solve", "--game", "backgammon", "--depth", "1", "--dice", "6,5", "--json"]) == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert {r["best_action"] for r in rows} == {"24/18 18/13"}


def test_a_leaf_is_gnubgs_money_equity_from_the_root_players_view():
    """Depth 1 with the dice fixed: the value is the best over the moves of minus the
    opponent's 0-ply equity after the move (the opponent is on roll there)."""
    src = game_source("backgammon", 1, dice="6,5")
    state, _ = src.tree.root
    expected = max(
        -_equity((after[1], after[0]))
        for after in (gnubg.board_from_position_key(k) for k in state.move_keys())
    )
    assert search(src.tree, "expectimax").value == pytest.approx(expected, abs=0)


def test_a_roll_with_no_legal_move_is_a_pass_one_ply_like_any_other():
    """On the bar against a closed board: one move, the pass; the opponent is then on roll
    with the position unchanged."""
    opponent = (2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 3, *([0] * 12))
    me = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 4, *([0] * 10), 2, 1)
    position = gnubg.position_id([list(opponent), list(me)])
    src = game_source("backgammon", 1, position, dice="6,5")
    state, _ = src.tree.root
    assert state.legal_actions() == [0] and src.action(0) == "pass"
    after = state.child(0)
    assert after.is_chance_node() and after.board == (me, opponent) and after.player == 1
    r = search(src.tree, "expectimax")
    assert (r.stats.nodes, r.stats.leaves) == (2, 1)
    assert r.value == pytest.approx(-_equity((me, opponent)), abs=0)


def test_results_score_single_gammon_and_backgammon():
    home = [0] * 25
    assert result_points([1, *home[1:]]) == 1  # some checkers borne off
    assert result_points([15, *home[1:]]) == 2  # none off: gammon
    assert result_points([14, *home[1:20], 1, 0, 0, 0, 0]) == 3  # one in the winner's home
    assert result_points([14, *home[1:24], 1]) == 3  # one on the bar
    game = Backgammon()
    # the mover (on roll) has one checker left on its ace point: any roll bears it off
    me = (1, *([0] * 24))
    opponent = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 15, *([0] * 12))
    state = BackgammonState(game, (opponent, me), 0, (2, 1))
    end = state.child(state.legal_actions()[0])
    assert end.is_terminal() and end.returns() == [2, -2]  # a gammon for player 0


def _positions(n, seed=3):
    return [self_play_position(seed, i, drawn_dice=False)[0] for i in range(n)]


@pytest.mark.parametrize(
    ("exact", "move_order", "count"),
    [
        pytest.param(False, "none", 6, marks=pytest.mark.slow),
        pytest.param(False, "equity", 6, marks=pytest.mark.slow),
        (True, "none", 2),
    ],
)
def test_every_algorithm_agrees_with_expectimax_on_backgammon(exact, move_order, count):
    """Self-play positions of every kind, depth 1 from the roll and depth 2 with the dice
    fixed, every algorithm (probing factors included) in floats and in exact fractions."""
    algorithms = [
        "expectimax",
        "star1",
        "star2",
        "star2:after_probe=research",
        "star2.5-cyclic:k=0",
        "star2.5-cyclic:k=3",
        "star2.5-sequential:k=1",
        "star2.5-sequential:k=4",
    ]
    for i, position in enumerate(_positions(count)):
        for depth, dice in ((1, None), (2, ROLLS[i % 21])):
            text = None if dice is None else f"{dice[0]},{dice[1]}"
            src = game_source(
                "backgammon", depth, position, exact=exact, dice=text, move_order=move_order
            )
            solved = solve(src.tree, algorithms, exact=exact, engine="python")
            assert solved.mismatch is None, (position, depth, solved.mismatch)


@pytest.mark.parametrize("move_order", ["none", "equity"])
def test_the_fused_expectimax_is_the_reference_on_backgammon(move_order):
    """Expectimax in floats runs the games' fused path (``starbench.games.expectimax``): the
    reference's value, best move, tied moves, counters and ordering evaluations."""
    from starbench.games.expectimax import GameExpectimax
    from starbench.search.expectimax import Expectimax
    from starbench.search.registry import get_algorithm

    for i, position in enumerate(_positions(3, seed=7)):
        for depth, dice in ((1, None), (2, "{},{}".format(*ROLLS[(5 * i) % 21]))):
            src = game_source("backgammon", depth, position, dice=dice, move_order=move_order)
            out = []
            for s in (get_algorithm("expectimax").make(src.tree), Expectimax(src.tree)):
                src.reset_counts()
                r = s.run()
                got = (r.value, r.best_move, r.tied_moves, r.stats, src.order_evals())
                out.append((type(s), *got))
            assert out[0][0] is GameExpectimax
            assert out[0][1:] == out[1][1:], (position, depth, dice)


def test_move_ordering_evaluations_are_counted_apart_from_the_leaves():
    """Ordering by 0-ply equity changes the order, not the tree: expectimax visits the same
    nodes and leaves; the ordering's evaluations are ``order_evals``, one per non-terminal
    child of every decision node searched, and the best move is the same position."""
    plain = game_source("backgammon", 2, dice="3,1")
    ordered = game_source("backgammon", 2, dice="3,1", move_order="equity")
    a = solve(plain.tree, ["expectimax"], before=plain.reset_counts, after=plain.order_evals)
    b = solve(ordered.tree, ["expectimax"], before=ordered.reset_counts, after=ordered.order_evals)
    ra, rb = a.results[0], b.results[0]
    assert (ra.stats.nodes, ra.stats.leaves) == (rb.stats.nodes, rb.stats.leaves)
    assert ra.value == rb.value and plain.action(ra.best_move) == ordered.action(rb.best_move)
    assert a.extras == (0,)
    # every node whose parent is a decision node: all but the root (MAX) and the MIN nodes
    # (children of chance nodes); no terminal is reached here
    assert b.extras[0] == rb.stats.nodes - 1 - rb.stats.min_nodes
    s2 = solve(ordered.tree, ["star2"], before=ordered.reset_counts, after=ordered.order_evals)
    assert 0 < s2.extras[0] < b.extras[0]  # star2 prunes, so it orders fewer nodes


def test_self_play_positions_are_seeded_and_cover_contact_and_race():
    first = [self_play_position(0, i, drawn_dice=True) for i in range(30)]
    assert first == [self_play_position(0, i, drawn_dice=True) for i in range(30)]
    assert first != [self_play_position(1, i, drawn_dice=True) for i in range(30)]
    kinds = {gnubg.classify(gnubg.board_from_position_id(p)) for p, _ in first}
    assert gnubg.c_contact in kinds and (gnubg.c_race in kinds or gnubg.c_bearoff in kinds)
    assert all(d is not None and len(d.split(",")) == 2 for _, d in first)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--position", "nonsense"], "--position: 'nonsense' is not a gnubg position ID"),
        (["--dice", "7,1"], "--dice: must be two dice D1,D2 from 1 to 6"),
        (["--dice", "6"], "--dice: must be two dice"),
        (["--heuristic", "score_difference"], "applies to pig, not to backgammon"),
    ],
)
def test_bad_backgammon_input_is_one_line_and_exit_2(argv, message):
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "starbench.commands.cli",
            "solve",
            "--game",
            "backgammon",
            "--depth",
            "1",
        ]
        + argv,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2, p.stderr
    assert message in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_without_gnubg_the_error_names_the_install_command(monkeypatch):
    from starbench.games import backgammon

    monkeypatch.setattr(backgammon._Engine, "_instance", None)
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)
    with pytest.raises(InputError, match=r"backgammon\]"):
        game_source("backgammon", 1)


def test_run_tree_game_backgammon_with_drawn_dice_and_ordering(tmp_path):
    """``starbench run tree=game tree.game=backgammon``: positions and root rolls from seeded
    self-play, rows verified, the roll in ``dice``, moves in gnubg's notation, ordering
    evaluations in ``order_evals``, gnubg-nn's version in ``game_version``."""
    import pandas as pd

    from starbench.games.backgammon import version

    code = cli.main(
        [
            "run",
            "tree=game",
            "tree.game=backgammon",
            "tree.depth=2",
            "tree.dice=drawn",
            "tree.move_order=equity",
            "trees=3",
            "algorithms=[expectimax,star2]",
            "progress=false",
            f"hydra.run.dir={tmp_path}/out",
        ]
    )
    assert code == 0
    df = pd.read_parquet(tmp_path / "out" / "table.parquet")
    assert set(df["status"]) == {"ok"} and set(df["game_version"]) == {version()}
    assert set(df["heuristic"]) == {"equity"} and set(df["move_order"]) == {"equity"}
    for i, g in df.groupby("instance"):
        position, dice = self_play_position(0, i, drawn_dice=True)
        assert set(g["position"]) == {position} and set(g["dice"]) == {dice}
        assert all("/" in a or a == "pass" for a in g["best_action"])
    star2 = df[df["algorithm"] == "star2"]
    assert (star2["order_evals"] > 0).all()
    assert (
        star2["leaves"].to_numpy() <= df[df["algorithm"] == "expectimax"]["leaves"].to_numpy()
    ).all()


def test_the_full_tree_count_is_what_expectimax_visits():
    """``full_tree_counts`` (no evaluation) equals expectimax's nodes and leaves, so a deeper
    search's percent of expectimax's leaves needs no expectimax run."""
    from starbench.games.adapter import full_tree_counts

    for i, position in enumerate(_positions(4, seed=5)):
        for depth, dice in ((1, None), (2, "6,2"), (2, None if i % 2 else "1,1")):
            src = game_source("backgammon", depth, position, dice=dice)
            r = search(src.tree, "expectimax")
            assert full_tree_counts(src.tree) == (r.stats.nodes, r.stats.leaves)


def test_equity_inner_orders_every_decision_node_but_those_above_the_horizon():
    inner = game_source("backgammon", 2, dice="4,2", move_order="equity_inner")
    full = game_source("backgammon", 2, dice="4,2", move_order="equity")
    a = solve(inner.tree, ["expectimax"], before=inner.reset_counts, after=inner.order_evals)
    b = solve(full.tree, ["expectimax"], before=full.reset_counts, after=full.order_evals)
    assert a.results[0].value == b.results[0].value
    assert a.extras[0] == len(inner.tree.children(inner.tree.root))  # the root's moves only
    assert b.extras[0] > 10 * a.extras[0]


def test_probes_count_probe_phases_and_bound_the_successes():
    src = game_source("backgammon", 2, dice="6,4", move_order="equity")
    solved = solve(src.tree, ["expectimax", "star1", "star2", "star2.5-cyclic:k=3"])
    ex, s1, s2, s25 = (r.stats for r in solved.results)
    assert ex.probes == s1.probes == 0
    assert s2.probes > 0 and 0 <= s2.probe_cutoffs <= s2.probes
    assert s25.probes > 0 and s25.probe_cutoffs <= s25.probes


_ROLLS = [(a, b, (1 if a == b else 2) / 36) for a in range(1, 7) for b in range(a, 7)]


@functools.cache
def _win(me: tuple[int, ...], opp: tuple[int, ...]) -> float:
    """The exact win probability of the player on roll (checkers ``me`` on points 1-6) against
    ``opp``, before the roll, both maximising it (gnubg's own move generation)."""
    board = [list(opp) + [0] * 19, list(me) + [0] * 19]
    total = 0.0
    for a, b, p in _ROLLS:
        best = 0.0
        for key in gnubg.moves(board, a, b):
            o, m = gnubg.board_from_position_key(key)
            mine = tuple(m[:6])
            best = max(best, 1.0 if not any(mine) else 1.0 - _win(tuple(o[:6]), mine))
        total += p * best
    return total


def _sides(n: int) -> list[tuple[int, ...]]:
    out = set()
    for c in itertools.combinations_with_replacement(range(6), n):
        t = [0] * 6
        for i in c:
            t[i] += 1
        out.add(tuple(t))
    return sorted(out)


SMALL = _sides(1) + _sides(2)


def test_gnubgs_bearoff_evaluation_is_exact_to_its_storage_on_small_bearoffs():
    """What the docs say of backgammon's oracle: ``probabilities(board, p_bearoff)`` (gnubg's
    two-sided bear-off database) gives the win probability of an exact two-sided solution
    (optimal play by win probability, gnubg's own move generation) to within its 16-bit
    storage, on every position of at most two checkers a side on the home points."""
    worst = 0.0
    for me in SMALL:
        for opp in SMALL:
            board = [list(opp) + [0] * 19, list(me) + [0] * 19]
            worst = max(worst, abs(gnubg.probabilities(board, gnubg.p_bearoff)[0] - _win(me, opp)))
    assert worst < 5e-5, worst


def test_the_bearoff_oracle_scores_moves_exactly():
    """The oracle's value of every move, against the exact solution, on small bear-offs and
    every roll; positions outside the database are not covered."""
    from starbench.oracles import oracle_for

    o = oracle_for("backgammon")
    game = Backgammon()
    worst = 0.0
    for me in SMALL[::3]:
        for opp in SMALL[::3]:
            board = (tuple(list(opp) + [0] * 19), tuple(list(me) + [0] * 19))
            for a, b, _p in _ROLLS[::4]:
                s = BackgammonState(game, board, 0, (a, b))
                assert o.covers(s)
                for action, v in o.action_values(s).items():
                    after = s.child(action).board  # (the mover, the opponent now on roll)
                    mine, theirs = tuple(after[0][:6]), tuple(after[1][:6])
                    exact = 1.0 if not any(mine) else -(2 * _win(theirs, mine) - 1)
                    worst = max(worst, abs(v - exact))
    assert worst < 1e-4, worst
    start = game.state(None, (3, 1))
    assert not o.covers(start)
    with pytest.raises(InputError, match="not a bear-off position"):
        o.action_values(start)


def test_backgammon_rows_of_a_bearoff_are_scored(tmp_path):
    from test_runner import cli_run

    board = [[0] * 25, [0] * 25]
    board[0][:3] = [1, 1, 1]
    board[1][:6] = [0, 1, 0, 1, 1, 0]
    position = gnubg.position_id(board)
    out = tmp_path / "cell"
    p = cli_run(
        "tree=game",
        "tree.game=backgammon",
        f"tree.position={position}",
        "tree.dice=2-1",
        "tree.depth=1",
        "trees=1",
        f"hydra.run.dir={out}",
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    import pandas as pd

    df = pd.read_parquet(out / "table.parquet")
    assert set(df["oracle"]) == {"backgammon-bearoff"} and df["decision_optimal"].notna().all()
    assert (df["regret"] >= 0).all()


def test_oracle_command_for_backgammon():
    p = subprocess.run(
        [sys.executable, "-m", "starbench", "oracle", "backgammon", "--json"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout)
    assert info["oracle"] == "backgammon-bearoff" and "at most 6 checkers" in info["covers"]
