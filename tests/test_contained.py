"""Nothing unbounded, plugins contained: every count a user gives is bounded (one line, exit 2),
process counts are capped at the CPUs, and a plugin that raises or never returns in its search
gives error and budget rows (``run``), one line (``solve``), or a shrunk failure (``shrink``,
with its time limit, asking every failing tree twice) instead of a traceback or a hang."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from environment import with_path

EXE = str(Path(sys.executable).parent / "starbench")
PLUGINS = Path(__file__).parent / "plugins"
ENV = with_path(PLUGINS, STARBENCH_PROGRESS="0")
TREE = '{"bounds": [0, 4], "root": {"max": [1, {"chance": [[0.5, 2], [0.5, 4]]}, 0]}}'


def _starbench(
    *args: str, cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [EXE, *args], capture_output=True, text=True, env=ENV, cwd=cwd, timeout=timeout
    )


def _one_line(p: subprocess.CompletedProcess, code: int = 2) -> str:
    assert p.returncode == code, (p.returncode, p.stderr)
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    return lines[0]


LIMITED = {
    "calibrate-positions": (
        ["calibrate", "--positions", "1000000000000"],
        "--positions: must be an integer in 2..100,000",
    ),
    "calibrate-seed": (["calibrate", "--seed", "-1"], "--seed: must be an integer in 0..2^64-1"),
    "calibrate-bad-value": (["calibrate", "tree.depth=abc"], "tree.depth: Value 'abc'"),
    "calibrate-typo": (["calibrate", "tree.brnaching=3"], "did you mean tree.branching?"),
    "calibrate-no-value": (["calibrate", "nokey"], "Error parsing override 'nokey'"),
    "conform-trees": (
        ["conform", "--algorithm", "star2", "--trees", "1000000000000"],
        "--trees: must be an integer in 0..1,000,000",
    ),
    "match-games": (
        ["match", "pig(winscore=20)", "--player", "random", "--player", "random", "--games",
         "1000000000000"],
        "--games: at most 1,000,000",
    ),
}  # fmt: skip


@pytest.mark.parametrize("args, says", LIMITED.values(), ids=LIMITED.keys())
def test_a_count_beyond_its_limit_is_one_line(tmp_path, args, says):
    if args[0] == "match":
        pytest.importorskip("pyspiel")
    line = _one_line(_starbench(*args, "--out", str(tmp_path / "out"), timeout=60))
    assert says in line, line
    assert "limits." in line or not args[-1].isdigit(), line  # a count names its limit
    assert not (tmp_path / "out").exists()


def test_shards_far_above_the_trees_are_never_listed(tmp_path):
    """``shards=10^9`` on 4 trees: capped at 4 (one line), the cell computed at once."""
    p = _starbench(
        "run", "trees=4", "shards=1000000000", "engine=python", "progress=false",
        f"hydra.run.dir={tmp_path}/c", timeout=60,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "capped at 4 shards" in p.stderr
    assert "has no instances" not in p.stderr
    assert pd.read_parquet(tmp_path / "c" / "table.parquet")["instance"].nunique() == 4


def test_a_plugin_that_raises_or_never_returns_gives_rows_and_the_run_ends(tmp_path):
    p = _starbench(
        "run", "plugins=[misbehaving_plugins]", "algorithms=[expectimax,raiser,sleeper]",
        "trees=1", "engine=python", "time_budget=1", "progress=false",
        f"hydra.run.dir={tmp_path}/r", timeout=60,
    )  # fmt: skip
    assert "Traceback" not in p.stderr and p.returncode == 1, p.stderr
    t = pd.read_parquet(tmp_path / "r" / "table.parquet").set_index("algorithm")
    assert t.loc["expectimax", "status"] == "ok"
    assert t.loc["raiser", "status"] == "error"
    assert t.loc["raiser", "error"] == "ValueError: the plugin's own bug"
    assert t.loc["sleeper", "status"] == "budget_exceeded"
    assert "stopped by the deadline" in t.loc["sleeper", "error"]


def test_a_plugin_past_the_deadlines_reach_is_killed_at_its_budget(tmp_path):
    """Plugin searches the deadline (a signal) cannot stop: one ignores ``SIGALRM``, one
    catches what it raises, both block for an hour; one ends its process with ``os._exit``.
    Each runs in a process killed 1.5 s past the budget: ``budget_exceeded`` rows (before,
    the run blocked for the hour), an ``error`` row for the one that ended its process (before,
    the whole run ended with exit 3 and no word)."""
    start = time.monotonic()
    p = _starbench(
        "run", "plugins=[misbehaving_plugins]", "algorithms=[expectimax,deaf,stubborn,vanisher]",
        "trees=1", "engine=python", "time_budget=0.3", "progress=false",
        f"hydra.run.dir={tmp_path}/r", timeout=60,
    )  # fmt: skip
    assert time.monotonic() - start < 30
    assert "Traceback" not in p.stderr and p.returncode == 1, p.stderr
    t = pd.read_parquet(tmp_path / "r" / "table.parquet").set_index("algorithm")
    assert t.loc["expectimax", "status"] == "ok"
    for name in ("deaf", "stubborn"):
        assert t.loc[name, "status"] == "budget_exceeded"
        assert "its process was killed at 1.8 s" in t.loc[name, "error"]
    assert t.loc["vanisher", "status"] == "error"
    assert "exited with status 3 without a result" in t.loc["vanisher", "error"]


def test_solve_says_a_raising_search_in_one_line(tmp_path):
    (tmp_path / "t.json").write_text(TREE)
    p = _starbench(
        "solve", str(tmp_path / "t.json"), "--algorithm", "expectimax", "--algorithm", "raiser",
        "--plugin", "misbehaving_plugins",
    )  # fmt: skip
    assert _one_line(p, 1) == "starbench: raiser failed: ValueError: the plugin's own bug: no value"
    assert "expectimax" in p.stdout


def test_shrink_stops_a_search_at_its_time_limit_and_asks_twice(tmp_path):
    (tmp_path / "t.json").write_text(TREE)
    out = tmp_path / "s.json"
    p = _starbench(
        "shrink", str(tmp_path / "t.json"), "--algorithm", "sleeper", "--plugin",
        "misbehaving_plugins", "--time-limit", "0.1", "--out", str(out),
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "sleeper raises BudgetExceeded" in p.stdout and out.exists()
    # wrong on every other search: the given tree does not fail again, so nothing is minimal
    p = _starbench(
        "shrink", str(tmp_path / "t.json"), "--algorithm", "alternating", "--plugin",
        "misbehaving_plugins", "--out", str(tmp_path / "a.json"),
    )  # fmt: skip
    assert "agreed when asked again" in _one_line(p, 1)
    assert not (tmp_path / "a.json").exists()


def test_the_deadline_raises_in_the_search_and_restores_the_timer():
    import signal
    import time

    from starbench.errors import BudgetExceeded, deadline

    before = signal.getsignal(signal.SIGALRM)
    t0 = time.perf_counter()
    with pytest.raises(BudgetExceeded, match="stopped by the deadline"), deadline(0.05, grace=0.0):
        time.sleep(5)
    assert time.perf_counter() - t0 < 1
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    with deadline(None):  # no budget: no timer
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def _limit_file_size():
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))


def test_a_full_disk_during_a_match_names_the_file_and_exits_1(tmp_path):
    pytest.importorskip("pyspiel")
    out = tmp_path / "m"
    argv = [EXE, "match", "pig(winscore=20)", "--player", "random", "--player", "random",
            "--games", "400", "--out", str(out)]  # fmt: skip
    p = subprocess.run(
        argv, capture_output=True, text=True, env=ENV, preexec_fn=_limit_file_size, timeout=120
    )
    lines = [x for x in p.stderr.splitlines() if not x.startswith("starbench: ") or "cannot" in x]
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert [x for x in p.stderr.splitlines() if "cannot write" in x] == [
        f"starbench: {out / 'games.jsonl'}: cannot write (File too large); the games journaled "
        f"so far are kept, and the same command continues the match"
    ], lines
    p = subprocess.run(argv, capture_output=True, text=True, env=ENV, timeout=120)
    assert p.returncode == 0 and "(400 games)" in p.stdout, p.stderr


def _resign_line(path: Path, number: int, field: str, change) -> None:
    """Edit one journal row's ``field`` and recompute the line's checksum (a deliberate
    edit, not damage)."""
    import json

    from starbench.record.integrity import sign

    lines = path.read_text().splitlines()
    fields = json.loads(lines[0].split("\t")[0])["fields"]
    rec = json.loads(lines[number - 1].split("\t")[0])
    at = fields.index(field) + 2  # after the cell and the run
    rec[at] = change(rec[at])
    lines[number - 1] = sign(json.dumps(rec, separators=(",", ":")))
    path.write_text("\n".join(lines) + "\n")


def test_a_forged_journal_line_never_replaces_a_verified_table_row(tmp_path):
    cell = tmp_path / "c"
    argv = ["run", "trees=2", "engine=python", "progress=false", f"hydra.run.dir={cell}"]
    assert _starbench(*argv).returncode == 0
    before = pd.read_parquet(cell / "table.parquet")
    _resign_line(cell / "rows.jsonl", 3, "nodes", lambda n: n + 1000)
    p = _starbench(*argv)
    said = [x for x in p.stderr.splitlines() if "disagree" in x]
    assert p.returncode == 0 and len(said) == 1, p.stderr
    assert "line 3 first) disagree with table.parquet, whose checksum verifies" in said[0]
    after = pd.read_parquet(cell / "table.parquet")
    key = ["instance", "algorithm", "k", "after_probe", "nodes"]
    assert sorted(map(str, after[key].values.tolist())) == sorted(
        map(str, before[key].values.tolist())
    )
    assert (cell / "rows.jsonl.rejected").read_text().count("\n") == 1


def test_a_forged_shard_journal_line_never_replaces_a_verified_table_row(tmp_path, capsys):
    """A shard journal's line re-signed after an edit: read by an unsharded run it is never
    adopted (the shard's journal is not its to rewrite), by its own shard it is set aside in
    ``<journal>.rejected``; the table keeps its rows either way (before, the edit won: shard
    rows are read after the table's)."""
    from starbench.commands import cli

    def run(*args: str) -> tuple[int, str]:
        code = cli.main(list(args))
        return code, capsys.readouterr().err

    cell = tmp_path / "c"
    base = ["run", "trees=4", "engine=python", "progress=false", f"hydra.run.dir={cell}"]
    assert run(*base, "shards=2")[0] == 0
    key = ["instance", "algorithm", "k", "after_probe", "nodes"]

    def rows() -> list[str]:
        return sorted(map(str, pd.read_parquet(cell / "table.parquet")[key].values.tolist()))

    before = rows()
    journal = cell / "rows.shard-0-of-2.jsonl"
    _resign_line(journal, 3, "nodes", lambda n: n + 1000)
    code, err = run(*base)
    said = [x for x in err.splitlines() if "disagree" in x]
    assert code == 0 and len(said) == 1, err
    assert f"{journal}: 1 line(s) (line 3 first) disagree with table.parquet" in said[0]
    assert "never adopted" in said[0] and rows() == before
    code, err = run(*base, "shards=2")
    said = [x for x in err.splitlines() if "disagree" in x]
    assert code == 0 and len(said) == 1 and "set aside in" in said[0], err
    assert rows() == before
    assert (cell / "rows.shard-0-of-2.jsonl.rejected").read_text().count("\n") == 1
    code, err = run(*base)
    assert code == 0 and "disagree" not in err, err


def test_a_damaged_shard_journal_line_is_said_set_aside_and_computed_again(tmp_path):
    cell = tmp_path / "c"
    argv = ["run", "trees=4", "shards=2", "shard=[0]", "engine=python", "progress=false",
            f"hydra.run.dir={cell}"]  # fmt: skip
    assert _starbench(*argv).returncode == 0
    journal = cell / "rows.shard-0-of-2.jsonl"
    rows = journal.read_text().count("\n")
    text = journal.read_text().splitlines(True)
    text[2] = text[2].replace(",1", ",7", 1)  # damaged: its checksum fails
    journal.write_text("".join(text))
    p = _starbench(*argv)
    said = [x for x in p.stderr.splitlines() if "fails its checksum" in x]
    assert len(said) == 1 and f"{journal}: line 3" in said[0], p.stderr
    assert (cell / "rows.shard-0-of-2.jsonl.rejected").exists()
    assert "1 rows computed now" in p.stdout + p.stderr
    assert journal.read_text().count("\n") == rows + 1  # the line dropped; a header and the row


def test_a_match_player_whose_search_raises_stops_the_match_in_one_line(monkeypatch):
    pytest.importorskip("pyspiel")
    from starbench.commands.match import Match, SearchFailed, parse_player, play
    from starbench.search.registry import ALGORITHMS

    monkeypatch.syspath_prepend(str(PLUGINS))
    before = dict(ALGORITHMS)
    import misbehaving_plugins  # noqa: F401 - registers raiser

    added = {k: v for k, v in ALGORITHMS.items() if k not in before}
    for name in added:  # the plugin's names leave the registry when the test ends
        del ALGORITHMS[name]
        monkeypatch.setitem(ALGORITHMS, name, added[name])

    game = "pig(winscore=20)"
    players = tuple(parse_player(p, game, "--player") for p in ("raiser:depth=1", "random"))
    with pytest.raises(SearchFailed, match="raiser:depth=1: the search failed: ValueError"):
        play(Match(game, players, 2, 0), 0)  # type: ignore[arg-type]
