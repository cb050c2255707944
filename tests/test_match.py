"""``starbench match``: seeded, resumable games between two players, with intervals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from scipy.stats import binomtest

from starbench.games.source import GAMES_INSTALL

pyspiel = pytest.importorskip("pyspiel", reason=f"OpenSpiel is not installed: {GAMES_INSTALL}")

from starbench.analysis.data import PlotError  # noqa: E402
from starbench.analysis.matches import per_move, summary  # noqa: E402
from starbench.commands.match import COLUMNS, Match, parse_player, run_match  # noqa: E402
from starbench.oracles import oracle_for  # noqa: E402

EXE = str(Path(sys.executable).parent / "starbench")
GAME = "pig(winscore=20)"


def _match(a: str, b: str, games: int, seed: int = 0) -> Match:
    return Match(
        GAME, (parse_player(a, GAME, "--player"), parse_player(b, GAME, "--player")), games, seed
    )


def test_the_oracle_against_itself_wins_as_the_first_players_advantage_predicts(tmp_path):
    """Optimal against optimal, seats alternating: the first seat wins with the oracle's
    probability for the start (no test at p < 0.001 rejects it), each player about half."""
    df = run_match(_match("oracle", "oracle", 600), tmp_path, out=lambda _: None)
    o = oracle_for(GAME)
    p_first = o.win_probability(o.value(pyspiel.load_game(GAME).new_initial_state()))
    first_wins = int((df["winner"] == df["first_player"]).sum())
    assert binomtest(first_wins, len(df), p_first).pvalue > 0.001, (first_wins, p_first)
    assert binomtest(int((df["winner"] == 0).sum()), len(df), 0.5).pvalue > 0.001
    assert p_first > 0.5  # the first player's advantage is real
    assert df["winner"].notna().all()


def test_the_oracle_beats_a_random_player_nearly_always(tmp_path):
    df = run_match(_match("oracle", "random", 200), tmp_path, out=lambda _: None)
    assert (df["winner"] == 0).mean() >= 0.9
    text = summary(df)
    assert "win rate [95% CI]" in text and "oracle" in text and "random" in text


def test_the_table_and_its_seeds(tmp_path):
    df = run_match(
        _match("star2:depth=2,heuristic=score_share", "oracle", 12), tmp_path, out=lambda _: None
    )
    assert tuple(df.columns) == COLUMNS
    assert list(df["game_index"]) == list(range(12))
    assert list(df["first_player"]) == [g % 2 for g in range(12)]  # seats alternate
    # the search counts its nodes (0 in a game the oracle won before it moved), the oracle none
    assert (df["nodes0"] > 0).sum() >= 10 and (df["nodes1"] == 0).all()
    assert df["cpu_seconds0"].sum() > 0 and (df["cpu_seconds0"] >= 0).all()
    assert (df["moves"] > 0).all() and (df["moves"] == df["moves0"] + df["moves1"]).all()
    # a side's nodes per move is over its own decisions (pig's sides make unequal numbers)
    assert (df["moves0"] != df["moves1"]).any()
    assert per_move(df, 0) == df["nodes0"].sum() / df["moves0"].sum()
    assert per_move(df, 0, "depth") == 2.0 and (df["depth1"] == 0).all()  # the oracle: none
    assert df["seed"].nunique() == 12
    again = run_match(  # in two worker processes: the same rows
        _match("star2:depth=2,heuristic=score_share", "oracle", 12),
        tmp_path / "b",
        out=lambda _: None,
        n_jobs=2,
    )
    timing = ["cpu_seconds0", "cpu_seconds1"]
    pd.testing.assert_frame_equal(df.drop(columns=timing), again.drop(columns=timing))


def test_a_match_resumes_and_a_cut_line_is_played_again(tmp_path):
    lines: list[str] = []
    first = run_match(_match("oracle", "random", 6), tmp_path, out=lines.append)
    journal = tmp_path / "games.jsonl"
    text = journal.read_text().splitlines()
    journal.write_text("\n".join(text[:-1]) + "\n" + text[-1][:10])  # a kill cut the last line
    (tmp_path / "match.parquet").unlink()  # before the table was written (else it is kept)
    more = run_match(_match("oracle", "random", 10), tmp_path, out=lines.append)
    assert "5 games already played" in lines[-2] or any(
        "5 games already played" in x for x in lines
    )
    timing = ["cpu_seconds0", "cpu_seconds1"]
    pd.testing.assert_frame_equal(
        first.drop(columns=timing), more.head(6).drop(columns=timing), check_dtype=False
    )
    assert len(more) == 10


def test_forged_journal_lines_lose_to_the_verified_table(tmp_path):
    """A games.jsonl line edited with its checksum recomputed, a line whose checksum was
    deleted (to pass as a journal written before checksums) and a deleted line: the verified
    table's games are kept, the lines set aside, one line each; nothing is played again.  A
    journal none of whose lines has a checksum is still adopted (unchecked)."""
    from starbench.record.integrity import sign

    said: list[str] = []
    first = run_match(_match("oracle", "random", 8), tmp_path, out=said.append)
    journal = tmp_path / "games.jsonl"
    lines = journal.read_text().splitlines()
    rec = json.loads(lines[2].rpartition("\t")[0])
    rec["winner"] = 1 - rec["winner"]
    lines[2] = sign(json.dumps(rec))  # forged, re-signed
    lines[4] = lines[4].rpartition("\t")[0]  # its checksum deleted
    del lines[6]
    journal.write_text("\n".join(lines) + "\n")
    said.clear()
    again = run_match(_match("oracle", "random", 8), tmp_path, out=said.append)
    timing = ["cpu_seconds0", "cpu_seconds1"]
    pd.testing.assert_frame_equal(again.drop(columns=timing), first.drop(columns=timing))
    pd.testing.assert_frame_equal(again, first)  # the CPU times too: kept, not played again
    notes = [x for x in said if str(journal) in x]
    assert len(notes) == 2, said
    assert "lines 3, 5" in notes[0] and "disagrees with match.parquet" in notes[0]
    assert "has no checksum" in notes[0] and "games.jsonl.rejected" in notes[0]
    assert "lacks 1 game that match.parquet holds" in notes[1]
    assert (tmp_path / "games.jsonl.rejected").read_text().count("\n") == 2
    assert journal.read_text().count("\n") == 8
    # every line without a checksum: a journal written before them, adopted once
    journal.write_text(
        "".join(x.rpartition("\t")[0] + "\n" for x in journal.read_text().splitlines())
    )
    said.clear()
    run_match(_match("oracle", "random", 8), tmp_path, out=said.append)
    assert any("unchecked: 8 games adopted" in x for x in said), said


def test_bad_requests_are_one_line(tmp_path):
    def cli(*args):
        return subprocess.run([EXE, "match", *args], capture_output=True, text=True, cwd=tmp_path)

    ok = cli(GAME, "--player", "oracle", "--player", "random", "--games", "4", "--out", "m")
    assert ok.returncode == 0, ok.stderr
    assert "table: m/match.parquet (4 games)" in ok.stdout
    for args, why in (
        ((GAME, "--player", "oracle"), "--player: give exactly two players"),
        ((GAME, "--player", "star9", "--player", "oracle"), "--player: unknown algorithm 'star9'"),
        (
            (GAME, "--player", "star2:depth=0", "--player", "oracle"),
            "depth must be an integer >= 1",
        ),
        ((GAME, "--player", "star2:k=2", "--player", "oracle"), "--player:"),
        (("tic_tac_toe", "--player", "oracle", "--player", "random"), "no exact oracle"),
        ((GAME, "--player", "random", "--player", "random", "--out", "m"), "holds another match"),
        ((GAME, "--player", "random", "--player", "random", "--games", "0"), "--games"),
        ((GAME, "--player", "random", "--player", "random", "--n-jobs", "0"), "--n-jobs"),
    ):
        bad = cli(*args)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1, (args, bad.stderr)
        assert why in bad.stderr, (args, bad.stderr)


def test_a_second_match_into_a_folder_in_use_is_refused_and_loses_nothing(tmp_path):
    """While a match plays into a folder (its lock held), another match into it is refused in
    one line, exit 2, and the folder's files are as they were; once it ends, the same command
    goes on."""
    from starbench.record.storage import CellLock

    args = [GAME, "--player", "random", "--player", "random", "--games", "4", "--out", "m"]
    first = subprocess.run([EXE, "match", *args], capture_output=True, text=True, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    folder = tmp_path / "m"
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.name != ".lock"}
    with CellLock(folder):  # a match playing into it
        again = [*args[:-3], "8", "--out", "m"]
        busy = subprocess.run([EXE, "match", *again], capture_output=True, text=True, cwd=tmp_path)
    assert busy.returncode == 2 and busy.stderr.count("\n") == 1, busy.stderr
    assert "another match is playing into this folder" in busy.stderr
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.name != ".lock"} == before
    done = subprocess.run([EXE, "match", *again], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0 and "(8 games)" in done.stdout, done.stderr


def test_players_heuristics_are_recorded_and_a_former_default_is_kept(tmp_path):
    """A new match records each search player's heuristic as played (pig: score_share by
    default); a match.json without them (starbench 0.2.0 and earlier) continues with pig's
    former default, score_difference, and says so, so its games are those of one player."""
    import json

    lines: list[str] = []
    spec = "star2:depth=1"
    run_match(_match(spec, "random", 2), tmp_path / "new", out=lines.append)
    stored = json.loads((tmp_path / "new" / "match.json").read_text())
    assert stored["heuristics"] == ["score_share", None]
    assert not any("continues" in ln for ln in lines)
    old = tmp_path / "old"
    first = run_match(
        _match(f"{spec},heuristic=score_difference", "random", 2), old, out=lambda _: None
    )
    stored = json.loads((old / "match.json").read_text())
    stored.pop("heuristics"), stored.pop("sha256")
    stored.update(player0=spec)
    (old / "match.json").write_text(json.dumps(stored))  # as starbench 0.2.0 wrote it
    journal = old / "games.jsonl"
    old_lines = [ln.rpartition("\t")[0] for ln in journal.read_text().splitlines()]  # unchecked
    text = "\n".join(old_lines) + "\n"
    journal.write_text(text.replace(f"{spec},heuristic=score_difference", spec))
    more = run_match(_match(spec, "random", 4), old, out=lines.append)
    assert any("continues with heuristic score_difference" in ln for ln in lines), lines
    again = run_match(_match(f"{spec},heuristic=score_difference", "random", 4), tmp_path / "b")
    timing = ["cpu_seconds0", "cpu_seconds1", "player0"]
    pd.testing.assert_frame_equal(more.drop(columns=timing), again.drop(columns=timing))
    assert len(first) == 2


def test_a_folder_of_matches_is_tabulated_and_drawn(tmp_path):
    """``starbench.analysis.matches``: each side's wins, Wilson interval, nodes and depth per
    move over its own decisions, from the stored tables; a figure of the second players' win
    rates."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from starbench.analysis import matches
    from starbench.ground.statistics import binomial_interval

    run_match(_match("oracle", "random", 10), tmp_path / "a", out=lambda _: None)
    b = run_match(_match("random", "star2:depth=1", 8), tmp_path / "b", out=lambda _: None)
    s = matches.sides(tmp_path)
    assert list(s["match"]) == ["a", "a", "b", "b"] and list(s["who"]) == [0, 1, 0, 1]
    star = s.iloc[3]
    wins = int((b["winner"] == 1).sum())
    assert (star["wins"], star["games"]) == (wins, 8)
    assert (star["lo"], star["hi"]) == binomial_interval(wins, 8)
    assert star["nodes"] == b["nodes1"].sum() / b["moves1"].sum() and star["depth"] == 1.0
    text = matches.matches_table(tmp_path, name_column=True)
    assert text.count("\n") == 8 and "| b | pig(winscore=20) | `star2:depth=1` | 8 |" in text
    fig, table = matches.win_rate_figure(tmp_path, 3.3)
    plt.close(fig)
    assert table.splitlines()[3].startswith(f"| b | `star2:depth=1` | {wins / 8:.3f} |")
    with pytest.raises(PlotError, match="no match"):
        matches.sides(tmp_path / "a")
