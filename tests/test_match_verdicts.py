"""``starbench match --paired/--margin/--sequential``: the same dice for both seatings, the
non-inferiority verdict, sequential stopping, and the study's multiplicity-adjusted p-values."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from starbench.analysis.matches import (
    holm,
    non_inferiority,
    non_inferiority_line,
    pair_interval,
    pair_scores,
    score_interval,
    sequential_level,
    sequential_looks,
    summary,
)
from starbench.errors import InputError
from starbench.games.source import GAMES_INSTALL
from starbench.ground.statistics import mcnemar

EXE = str(Path(sys.executable).parent / "starbench")
GAME = "pig(winscore=20)"
QUIET = {"out": lambda _line: None}


def _games(winners: list[int | None], paired: bool) -> pd.DataFrame:
    """A match table of the given winners, seats alternating (only the columns read)."""
    n = len(winners)
    return pd.DataFrame(
        {
            "game_index": range(n),
            "first_player": [g % 2 for g in range(n)],
            "winner": pd.array(winners, dtype="Int64"),
            "pair": pd.array([g // 2 if paired else None for g in range(n)], dtype="Int64"),
            "player0": "a",
            "player1": "b",
            **{f"{c}{who}": 1 for c in ("moves", "nodes", "depth") for who in (0, 1)},
        }
    )


# --------------------------------------------------------------------------- statistics
def test_holm_adjusts_step_down_and_keeps_the_order():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])  # capped at 1
    assert holm([0.002]) == [0.002]


def test_mcnemar_reads_only_the_discordant_positions():
    assert mcnemar(1, 9) == pytest.approx(0.021484375)  # 2 * P(X <= 1), X ~ Bin(10, 1/2)
    assert mcnemar(5, 5) == 1.0 and mcnemar(0, 0) == 1.0


def test_the_margin_verdict_has_three_words_and_one_line_whatever_it_says():
    assert non_inferiority(0.46, 0.60, 0.05) == "player 1 is not worse by more than 0.05"
    assert non_inferiority(0.30, 0.44, 0.05) == "player 1 is worse"
    assert non_inferiority(0.40, 0.60, 0.05) == "undecided"
    for winners in ([1] * 40, [0] * 40, [0, 1] * 3):
        line = non_inferiority_line(_games(winners, paired=False), 0.05)
        assert line.startswith("non-inferiority (margin 0.05, 95 %): "), line
        assert "\n" not in line
    text = summary(_games([0, 1] * 3, paired=True), {"margin": 0.05})
    assert "non-inferiority (margin 0.05, 95 %): undecided" in text


def test_a_paired_match_scores_pairs_and_says_the_unpaired_width():
    # pairs: (1 won both) (split) (0 won both) (split) ...
    df = _games([1, 1, 0, 1, 0, 0, 1, 0] * 5, paired=True)
    assert list(pair_scores(df, 1)[:4]) == [1.0, 0.5, 0.0, 0.5]
    score, low, high, n = score_interval(df, 1)
    assert n == 20 and score == pytest.approx(0.5) and low < 0.5 < high
    text = summary(df)
    assert "per pair over 20 pairs" in text and "an unpaired analysis of the same games" in text
    assert "sign test of the pairs" in text


def test_the_paired_interval_covers_at_its_level_and_never_collapses():
    """Coverage of ``pair_interval`` (with its added pairs) in simulations of 5 to 200 pairs,
    win, split and loss probabilities from even to lopsided: at least 94 % of 1,500 intervals
    hold the true score (95 % nominal; the added pairs make small matches conservative)."""
    rng = np.random.default_rng(7)
    for n in (5, 20, 200):
        for win, loss in ((0.45, 0.45), (0.1, 0.1), (0.6, 0.1), (0.05, 0.0)):
            truth = win + (1 - win - loss) / 2
            s = rng.choice([1.0, 0.5, 0.0], size=(1500, n), p=[win, 1 - win - loss, loss])
            held = [lo <= truth <= hi for lo, hi in (pair_interval(row) for row in s)]
            assert np.mean(held) >= 0.94, (n, win, loss, np.mean(held))
    low, high = pair_interval([0.5] * 10)  # every pair split: still an interval, not a point
    assert high - low > 0.2


def test_the_sequential_design_errs_at_most_at_its_stated_rate():
    """Ten looks, each at 1 - 0.05/10: when player 1 is exactly at the margin (true score 0.45),
    "not worse" is said in at most 5 % of 2,000 simulated matches; when the players are equal,
    "worse" likewise."""
    rng = np.random.default_rng(11)
    looks = sequential_looks(200, 10, 2)
    assert looks == list(range(20, 201, 20))
    level = sequential_level(len(looks))
    not_worse, worse = "player 1 is not worse by more than 0.05", "player 1 is worse"
    for (win, loss), wrong in (((0.3, 0.4), not_worse), ((0.35, 0.35), worse)):
        s = rng.choice([1.0, 0.5, 0.0], size=(2000, 100), p=[win, 1 - win - loss, loss])
        said_wrong = 0
        for row in s:
            for n in looks:
                verdict = non_inferiority(*pair_interval(row[: n // 2], level), 0.05)
                if verdict != "undecided":
                    said_wrong += verdict == wrong
                    break
        assert said_wrong / len(s) <= 0.05, (win, loss, said_wrong)


# --------------------------------------------------------------------------- games
pyspiel = pytest.importorskip("pyspiel", reason=f"OpenSpiel is not installed: {GAMES_INSTALL}")

from starbench.commands.match import Analysis, Match, parse_player, play, run_match  # noqa: E402


def _match(a: str, b: str, games: int, paired: bool = True, seed: int = 0) -> Match:
    players = (parse_player(a, GAME, "--player"), parse_player(b, GAME, "--player"))
    return Match(GAME, players, games, seed, paired)


def test_identical_deterministic_players_split_every_pair(tmp_path):
    df = run_match(_match("star2:depth=1", "star2:depth=1", 20), tmp_path, **QUIET)
    assert list(df["pair"]) == [g // 2 for g in range(20)]
    assert int((df["winner"] == 0).sum()) == int((df["winner"] == 1).sum()) == 10
    assert (pair_scores(df, 1) == 0.5).all()
    # unpaired, the same players win unequally often on the same seeds (11 and 9 in 20 at seed 0)
    loose = run_match(_match("star2:depth=1", "star2:depth=1", 20, False), tmp_path / "u", **QUIET)
    assert loose["pair"].isna().all()
    assert int((loose["winner"] == 0).sum()) != 10


def test_both_seatings_roll_the_same_dice_whatever_the_players_draw(monkeypatch):
    from starbench.games import spec

    drawn: list[int] = []
    real = spec.draw_outcome
    monkeypatch.setattr(
        spec, "draw_outcome", lambda s, rng: drawn.append(real(s, rng)) or drawn[-1]
    )

    def dice(match: Match, index: int) -> list[int]:
        drawn.clear()
        play(match, index)
        return list(drawn)

    paired = _match("random", "random", 2)
    a, b = dice(paired, 0), dice(paired, 1)
    common = min(len(a), len(b))
    assert common > 5 and a[:common] == b[:common]
    loose = _match("random", "random", 2, paired=False)
    a, b = dice(loose, 0), dice(loose, 1)
    assert a[: min(len(a), len(b))] != b[: min(len(a), len(b))]


def test_a_sequential_match_stops_early_and_resumes_the_same_test(tmp_path):
    match = _match("star2:depth=2", "random", 400)
    analysis = Analysis(margin=0.05, sequential=True)
    df = run_match(match, tmp_path, analysis=analysis, **QUIET)
    stored = json.loads((tmp_path / "match.json").read_text())["analysis"]
    assert len(df) == stored["stopped_at"] < 400 and stored["stopped_at"] in stored["looks_at"]
    text = summary(df, stored)
    assert "non-inferiority (margin 0.05, 95 %): player 1 is worse" in text
    assert "the chance of a wrong verdict is at most 5 %" in text
    again = run_match(match, tmp_path, analysis=analysis, **QUIET)
    assert len(again) == len(df)  # decided: no game more
    assert (tmp_path / "games.jsonl").read_text().count("\n") == len(df)
    with pytest.raises(InputError, match="is another test"):
        run_match(match, tmp_path, analysis=Analysis(margin=0.1, sequential=True), **QUIET)


def test_a_sequential_rerun_on_more_games_stops_at_the_fresh_runs_look(tmp_path):
    """A folder already holding games past the deciding look (a longer match played without
    the test): the sequential run stops at the look a fresh run stops at, its table holds the
    same games, and one line says the games past it stay in the journal (before, it read the
    look at the last game held and stopped there)."""
    analysis = Analysis(margin=0.05, sequential=True)
    fresh = run_match(
        _match("star2:depth=2", "random", 100), tmp_path / "fresh", analysis=analysis, **QUIET
    )
    stopped = json.loads((tmp_path / "fresh" / "match.json").read_text())["analysis"]["stopped_at"]
    assert stopped < 50
    run_match(_match("star2:depth=2", "random", 50), tmp_path / "more", **QUIET)
    said: list[str] = []
    again = run_match(
        _match("star2:depth=2", "random", 100),
        tmp_path / "more",
        analysis=analysis,
        out=said.append,
    )
    stored = json.loads((tmp_path / "more" / "match.json").read_text())["analysis"]
    assert stored["stopped_at"] == stopped
    cpu = [c for c in fresh.columns if c.startswith("cpu_seconds")]
    pd.testing.assert_frame_equal(again.drop(columns=cpu), fresh.drop(columns=cpu))
    assert f"the {50 - stopped} games past it stay in games.jsonl, outside the table" in said[0]


def test_a_paired_match_is_a_request_of_its_own(tmp_path):
    run_match(_match("random", "random", 4, paired=False), tmp_path, **QUIET)
    r = subprocess.run(
        [EXE, "match", GAME, "--player", "random", "--player", "random", "--games", "4",
         "--paired", "--out", str(tmp_path)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "--paired:" in r.stderr and "another --out folder" in r.stderr
    r = subprocess.run(
        [EXE, "match", GAME, "--player", "random", "--player", "random", "--games", "3",
         "--paired", "--margin", "0.05", "--out", str(tmp_path / "p")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert r.returncode == 2 and "--games" in r.stderr and "even" in r.stderr
    assert not (tmp_path / "p").exists()


def test_the_study_table_adjusts_its_matches_p_values_by_holm(tmp_path):
    from starbench.analysis.matches import matches_table, p_value, stored

    for name, player in (("a", "star2:depth=2"), ("b", "random"), ("c", "star2:depth=1")):
        run_match(_match(player, "random", 12, paired=name == "c"), tmp_path / name, **QUIET)
    text = matches_table(tmp_path)
    raw = [p_value(df) for _n, _g, df in stored(tmp_path)]
    rows = [line.split("|") for line in text.splitlines() if line.startswith("| pig")]
    assert "| p | p (Holm) |" in text.splitlines()[0]
    shown = [(float(r[-3]), float(r[-2])) for r in rows[::2]]
    want = list(zip(raw, holm(raw), strict=True))
    assert shown == [(float(f"{p:.2g}"), float(f"{h:.2g}")) for p, h in want]
    assert "adjusted over the 3 matches" in text
    per_pair = [r[-6].strip() for r in rows]  # the paired match's score per pair, else "-"
    assert per_pair[:4] == ["-"] * 4 and all(x.endswith("]") for x in per_pair[4:]), per_pair
