"""Fault injection: every bad input or fault gives a result or one line with its exit status,
within seconds, and never silently wrong data (corrupt tables, overflow, underflow, a full disk,
unbounded searches, broken plugins, a busy folder)."""

from __future__ import annotations

import json
import random
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from environment import with_path
from starbench.commands import cli
from starbench.experiment.settings import cell_name
from starbench.record.columns import nondeterministic
from starbench.record.storage import CellLock

EXE = str(Path(sys.executable).parent / "starbench")
ROOT = Path(__file__).resolve().parents[1]
SMALL = ["trees=3", "progress=false", "engine=python"]
NOT_COMPARED = nondeterministic()  # what two runs of a search may differ in


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _one_line(code: int, err: str, want: int = 2) -> str:
    lines = err.strip().splitlines()
    assert code == want and len(lines) == 1 and "Traceback" not in err, (code, err)
    assert lines[0].startswith("starbench: error: ")
    return lines[0]


def _comparable(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=[c for c in NOT_COMPARED if c in df.columns]).reset_index(drop=True)


# --------------------------------------------------------------------------- 1: tables
@pytest.mark.slow
def test_a_flipped_byte_in_a_table_is_never_adopted_and_never_a_traceback(tmp_path, capsys):
    """The committed results' case (a table, its cell.json, no journal): 16 seeded one-byte
    flips; every run moves the damaged table aside in one line and computes the cell again, so
    the table afterwards is the original one; plot, collect and export refuse it in one line."""
    src = tmp_path / "src"
    assert _cli(capsys, "run", *SMALL, f"hydra.run.dir={src}")[0] == 0
    (src / "rows.jsonl").unlink()
    good = _comparable(pd.read_parquet(src / "table.parquet"))
    data = (src / "table.parquet").read_bytes()
    rng = random.Random(0)
    for t in range(16):
        cell = tmp_path / f"c{t}"
        shutil.copytree(src, cell)
        damaged = bytearray(data)
        i = rng.randrange(len(damaged))
        damaged[i] ^= 1 << rng.randrange(8)
        (cell / "table.parquet").write_bytes(bytes(damaged))
        # the readers refuse it in one line
        assert "checksum" in _one_line(
            *_cli(capsys, "export", str(cell), "-o", str(cell / "t.json"))[:3:2]
        )
        code, out, err = _cli(capsys, "plot", str(cell), "--out", str(tmp_path / "p"))
        assert code == 2 and "checksum" in err and "Traceback" not in err, err
        assert cli.main(["collect", str(cell)]) == 1
        assert "corrupt: " in capsys.readouterr().out
        # the run recovers: moved aside, computed again, the same rows
        code, out, err = _cli(capsys, "run", *SMALL, f"hydra.run.dir={cell}")
        assert code == 0 and "fails its checksum" in err and "Traceback" not in err, err
        assert (cell / "table.parquet.corrupt").exists()
        again = _comparable(pd.read_parquet(cell / "table.parquet"))
        pd.testing.assert_frame_equal(again, good)
        shutil.rmtree(cell)


def test_every_committed_table_has_its_checksum():
    from starbench.record.tablefile import expected_digest, verify

    tables = sorted((Path(__file__).resolve().parents[1] / "results").glob("*/*/table.parquet"))
    assert tables
    for t in tables:
        assert expected_digest(t), t
        verify(t)


# --------------------------------------------------------------------------- 2: overflow
@pytest.mark.parametrize(
    "override, key",
    [
        ("tree.resolution=6917529027641081856", "tree.resolution"),
        ("tree.resolution=100000000000000000000000000000", "tree.resolution"),
        ("tree.pool=18446744073709551616", "tree.pool"),
        ("tree.full_pass_limit=100000000000000000000000000000", "tree.full_pass_limit"),
        ("node_budget=18446744073709551616", "node_budget"),
    ],
)
def test_values_that_leave_the_exact_range_are_refused(tmp_path, capsys, override, key):
    line = _one_line(*_cli(capsys, "run", override, *SMALL, f"hydra.run.dir={tmp_path}")[::2])
    assert line.startswith(f"starbench: error: {key}:"), line
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


def test_the_largest_accepted_values_agree_on_both_engines(capsys, tmp_path):
    """resolution x levels just below 2^53 (the bound in limits.py): both engines give the same
    rows, the value exact."""
    from starbench import RegularTreeSpec

    levels = RegularTreeSpec(depth=4, trailing_chance=True).levels
    r = (2**53 - 1) // levels  # the largest resolution accepted at these levels
    args = [
        "tree.branching=1",
        "tree.chance_arity=1",
        "tree.depth=4",
        "tree.trailing_chance=true",
        f"tree.resolution={r}",
        "trees=2",
        "progress=false",
    ]
    line = _one_line(
        *_cli(
            capsys,
            "run",
            *args[:-3],
            f"tree.resolution={r + 1}",
            "trees=2",
            f"hydra.run.dir={tmp_path}/over",
        )[::2]
    )
    assert line.startswith("starbench: error: tree.resolution:")
    tables = []
    for engine in ("python", "compiled"):
        folder = tmp_path / engine
        code, _, err = _cli(capsys, "run", *args, f"engine={engine}", f"hydra.run.dir={folder}")
        assert code == 0, err
        tables.append(pd.read_parquet(folder / "table.parquet"))
    a, b = (_comparable(t).drop(columns=["engine"]) for t in tables)
    pd.testing.assert_frame_equal(a, b)
    assert (a["value"] < 2**53).all() and set(a["status"]) == {"ok"}


def test_a_huge_tree_under_a_budget_writes_every_column(tmp_path, capsys):
    code, _, err = _cli(
        capsys,
        "run",
        "tree.depth=30",
        "node_budget=200000",
        "trees=2",
        "progress=false",
        "algorithms=[expectimax,star2]",
        f"hydra.run.dir={tmp_path}",
    )
    assert code == 0, err
    df = pd.read_parquet(tmp_path / "table.parquet")
    assert set(df["status"]) == {"budget_exceeded"} and df["tree_size"].iloc[0] > 2**63
    assert json.loads((tmp_path / "cell.json").read_text())["status"] == "complete"


# --------------------------------------------------------------------------- 3: writes
def _limit_file_size():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (60_000, 60_000))


@pytest.mark.slow  # processes under a file-size limit
def test_a_full_disk_is_one_line_and_the_rerun_continues(tmp_path):
    cell = tmp_path / "cell"
    argv = [EXE, "run", "trees=400", "progress=false", "engine=python", f"hydra.run.dir={cell}"]
    p = subprocess.run(
        argv, capture_output=True, text=True, preexec_fn=_limit_file_size, timeout=300
    )
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 1 and len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert f"{cell / 'rows.jsonl'}: cannot write (File too large)" in lines[0]
    assert json.loads((cell / "cell.json").read_text())["status"] == "interrupted"
    p = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "saved rows kept" in p.stdout, p.stderr
    assert len(pd.read_parquet(cell / "table.parquet")) == 400 * 7


def test_a_cell_whose_process_died_is_interrupted_not_running(tmp_path, capsys):
    from starbench.experiment.stages import cell_status

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    import socket

    assert cell_status({"status": "running", "pid": dead.pid, "host": socket.gethostname()}) == (
        "interrupted"
    )
    assert cell_status({"status": "running", "pid": dead.pid, "host": "elsewhere"}) == "running"


# --------------------------------------------------------------------------- 4: bounded
@pytest.mark.parametrize(
    "override",
    [
        "tree.depth=1000000000",
        "tree.depth=100000000000000000000000000000",
        "tree.depth=18446744073709551616",
    ],
)
def test_absurd_depths_are_refused_at_once(tmp_path, override):
    p = subprocess.run(
        [EXE, "run", override, f"hydra.run.dir={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (
        p.returncode == 2
        and "tree.depth: must be an integer >= 1 (decision plies, at most 10000)" in p.stderr
    )
    assert len(p.stderr.strip().splitlines()) == 1


def test_ranges_tables_and_games_are_bounded(tmp_path, capsys):
    line = _one_line(
        *_cli(
            capsys,
            "run",
            "algorithms=[star2.5-cyclic:k=0..100000000]",
            *SMALL,
            f"hydra.run.dir={tmp_path}",
        )[::2]
    )
    assert "over the 1000 algorithms a list may hold" in line
    line = _one_line(
        *_cli(capsys, "run", "algorithms=[star2:tt=30]", *SMALL, f"hydra.run.dir={tmp_path}")[::2]
    )
    assert "table_memory_limit" in line and "32 GiB" in line
    # the limit is the user's: lowered, a small table is refused; raised again, it runs
    line = _one_line(
        *_cli(
            capsys,
            "run",
            "algorithms=[star2:tt=16]",
            "table_memory_limit=1000000",
            *SMALL,
            f"hydra.run.dir={tmp_path}/low",
        )[::2]
    )
    assert "over table_memory_limit=1000000 bytes" in line
    code, _, err = _cli(
        capsys,
        "run",
        "algorithms=[star2:tt=16]",
        "table_memory_limit=3000000",
        *SMALL,
        f"hydra.run.dir={tmp_path}/raised",
    )
    assert code == 0, err


def test_an_unbounded_game_search_is_refused(tmp_path, capsys):
    pytest.importorskip("pyspiel", reason='pip install -c constraints.txt -e ".[games]"')
    line = _one_line(
        *_cli(
            capsys,
            "run",
            "tree=game",
            "tree.game=pig",
            "tree.depth=30",
            f"hydra.run.dir={tmp_path}",
        )[::2]
    )
    assert "node_budget" in line and "size_limit" in line and "2 moves x 6 outcomes" in line


# --------------------------------------------------------------------------- 5: underflow
def test_probabilities_that_underflow_in_floats_are_refused(tmp_path, capsys):
    line = _one_line(
        *_cli(
            capsys,
            "run",
            "tree.distribution=geometric",
            "tree.skew=1e-300",
            "tree.chance_arity=5",
            *SMALL,
            f"hydra.run.dir={tmp_path}",
        )[::2]
    )
    assert line.startswith("starbench: error: tree.skew:") and "exact=true" in line
    code, _, err = _cli(
        capsys,
        "run",
        "tree.distribution=geometric",
        "tree.skew=1e-300",
        "tree.chance_arity=5",
        "exact=true",
        "trees=2",
        "progress=false",
        f"hydra.run.dir={tmp_path}/exact",
    )
    assert code == 0, err
    tree = tmp_path / "p.json"
    tree.write_text('{"bounds": [0, 10], "root": {"chance": [["1e-400", 1], ["1", 2]]}}')
    line = _one_line(*_cli(capsys, "solve", str(tree))[::2])
    assert "underflows in floats" in line and "--exact" in line
    assert _cli(capsys, "solve", str(tree), "--exact")[0] == 0


# --------------------------------------------------------------------------- 6: plugins
def test_a_broken_entry_point_is_named_once_and_blocks_nothing(monkeypatch, capsys, tmp_path):
    import importlib.metadata as md

    from starbench.search import registry

    class Dist:
        name = "broken-pkg"

    class EP:
        name, value, group, dist = "bad", "no_such_module:register", "starbench.algorithms", Dist

        def load(self):
            raise ImportError("No module named 'no_such_module'")

    monkeypatch.setattr(md, "entry_points", lambda group=None: [EP()] if group else [])
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    monkeypatch.setattr(registry, "FAILED_PLUGINS", [])
    # built-in algorithms never load the entry points
    assert _cli(capsys, "run", *SMALL, f"hydra.run.dir={tmp_path}/a")[0] == 0
    assert not registry._entry_points_loaded
    # an unknown name loads them: one line naming the package, then the usual refusal
    code, _, err = _cli(
        capsys, "run", "algorithms=[nothing]", *SMALL, f"hydra.run.dir={tmp_path}/b"
    )
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 2, err
    assert "plugin bad of package broken-pkg cannot be loaded (ImportError" in lines[0]
    assert "unknown algorithm 'nothing'" in lines[1] and "1 plugin(s) failed" in lines[1]
    assert _cli(capsys, "solve", "--list")[2].count("broken-pkg") == 0  # reported once only


# --------------------------------------------------------------------------- 7: the smaller ones
def test_the_smaller_ones(tmp_path, capsys):
    link = tmp_path / "dangling"
    link.symlink_to(tmp_path / "nowhere" / "x")
    line = _one_line(*_cli(capsys, "run", *SMALL, f"hydra.run.dir={link}")[::2])
    assert "is a symbolic link to" in line and "which does not exist" in line
    # one canonical spelling of a rational: one cell
    names = {
        cell_name({"distribution": "geometric", "skew": s}, 0, False)
        for s in ("1/2", "2/4", "0.5", "5e-1")
    }
    assert len(names) == 1
    # a second run into a folder another run is computing: refused in one line
    folder = tmp_path / "busy"
    folder.mkdir()
    with CellLock(folder):
        line = _one_line(*_cli(capsys, "run", *SMALL, f"hydra.run.dir={folder}")[::2])
    assert "is being computed by another starbench run" in line
    assert not (folder / "cell.json").exists()
    # a chain deeper than the Python engine's recursion: the compiled engine is named
    deep = tmp_path / "deep.json"
    deep.write_text('{"bounds": [0, 10], "root": ' + '{"max": [' * 480 + "1" + "]}" * 480 + "}")
    solve = [EXE, "solve", str(deep), "-a", "star2", "--engine"]  # a fresh process's stack
    p = subprocess.run([*solve, "python"], capture_output=True, text=True, timeout=120)
    assert "--engine compiled" in _one_line(p.returncode, p.stderr)
    p = subprocess.run([*solve, "compiled"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr


def test_a_game_whose_start_is_terminal_names_the_game(capsys):
    pytest.importorskip("pyspiel", reason='pip install -c constraints.txt -e ".[games]"')
    line = _one_line(*_cli(capsys, "solve", "--game", "pig(winscore=0)", "--depth", "2")[::2])
    assert line == (
        "starbench: error: --game: pig(winscore=0): the game's start position is terminal: "
        "nothing to search"
    )


# --------------------------------------------------------------------------- journals (#36)
JOURNAL_CELL = ["trees=8", "progress=false", "engine=python", "tree.depth=2"]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """One finished cell (its folder and its table's non-timing columns), copied by each case."""
    folder = tmp_path_factory.mktemp("journal") / "pristine"
    assert cli.main(["run", *JOURNAL_CELL, f"hydra.run.dir={folder}"]) == 0
    return folder, _comparable(pd.read_parquet(folder / "table.parquet"))


def _copy(pristine, tmp_path) -> Path:
    cell = tmp_path / "cell"
    shutil.copytree(pristine[0], cell)
    return cell


def _rerun(capsys, cell: Path) -> tuple[int, str, str]:
    return _cli(capsys, "run", *JOURNAL_CELL, f"hydra.run.dir={cell}")


def _notes(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("starbench: ")]


def _row_line(cell: Path, algorithm: str) -> int:
    """The number (from 1) of the first journal line holding a row of ``algorithm``."""
    lines = (cell / "rows.jsonl").read_text().splitlines()
    return next(n for n, ln in enumerate(lines, 1) if ln.startswith("[") and f'"{algorithm}"' in ln)


def _edit(cell: Path, number: int, field: str) -> None:
    """Change the first digit of ``field``'s value in journal line ``number`` (its checksum
    left as it was: a hand edit or damage)."""
    journal = cell / "rows.jsonl"
    lines = journal.read_text().splitlines(True)
    head = json.loads(lines[0].rpartition("\t")[0])
    body, _, crc = lines[number - 1].rpartition("\t")
    values = json.loads(body)
    j = 2 + head["fields"].index(field)
    text = json.dumps(values[j])
    new = str((int(text[0]) + 1) % 10) + text[1:] if text[0].isdigit() else "1" + text
    values[j] = json.loads(new)
    lines[number - 1] = json.dumps(values, separators=(",", ":")) + "\t" + crc
    journal.write_text("".join(lines))


@pytest.mark.parametrize(
    ("field", "algorithm"),
    [("nodes", "star1"), ("leaves", "expectimax"), ("best_move", "star2"), ("value", "star1")],
)
def test_an_edited_journal_line_is_never_adopted(pristine, tmp_path, capsys, field, algorithm):
    """A digit changed in one row line (``leaves`` of expectimax would corrupt every other
    algorithm's pct_leaves; a changed ``value`` was kept as a mismatch): one line names the file
    and the line, the row is computed again, the table is the pristine one."""
    cell = _copy(pristine, tmp_path)
    n = _row_line(cell, algorithm)
    _edit(cell, n, field)
    code, out, err = _rerun(capsys, cell)
    notes = _notes(err)
    assert code == 0 and len(notes) == 1 and "Traceback" not in err, err
    assert f"{cell / 'rows.jsonl'}: line {n} fails its checksum" in notes[0]
    assert ", 1 computed now)" in out and "mismatch" not in err.lower()
    pd.testing.assert_frame_equal(_comparable(pd.read_parquet(cell / "table.parquet")), pristine[1])
    assert (cell / "rows.jsonl.rejected").exists()
    # the cell stays resumable and extendable, silently
    code, out, err = _rerun(capsys, cell)
    assert code == 0 and not _notes(err) and ", 0 computed now)" in out, err
    code, out, err = _cli(capsys, "run", *JOURNAL_CELL, "trees=9", f"hydra.run.dir={cell}")
    assert code == 0 and not _notes(err) and "computed now" in out, err
    # collect and load_results accept the repaired cell
    assert cli.main(["collect", str(cell)]) == 0
    capsys.readouterr()


def test_a_non_utf8_byte_a_damaged_header_and_a_torn_last_line(pristine, tmp_path, capsys):
    """A non-UTF-8 byte inside a line is one line (never a traceback) and its row is computed
    again; a damaged run header drops its run's rows, named, and they are computed again; an
    incomplete last line (a crash while it was written) is ignored silently."""
    cell = _copy(pristine, tmp_path)
    journal = cell / "rows.jsonl"
    data = bytearray(journal.read_bytes())
    starts = [0, *(i + 1 for i, b in enumerate(data) if b == 10)][:-1]
    data[starts[4] + 5] = 0xFF  # inside line 5
    journal.write_bytes(bytes(data))
    code, out, err = _rerun(capsys, cell)
    notes = _notes(err)
    assert code == 0 and len(notes) == 1 and "Traceback" not in err, err
    assert f"{journal}: line 5 fails its checksum" in notes[0]
    pd.testing.assert_frame_equal(_comparable(pd.read_parquet(cell / "table.parquet")), pristine[1])
    # the run header: every row of its run is computed again
    data = bytearray(journal.read_bytes())
    data[20] ^= 0x04
    journal.write_bytes(bytes(data))
    code, out, err = _rerun(capsys, cell)
    notes = _notes(err)
    assert code == 0 and len(notes) == 1, err
    assert "line 1 fails its checksum" in notes[0] and "rows of their runs" in notes[0]
    assert f", {len(pristine[1]) - 1} computed now)" in out  # all but the one of run 1
    pd.testing.assert_frame_equal(_comparable(pd.read_parquet(cell / "table.parquet")), pristine[1])
    # a torn last line: silent; its row is the table's (verified), else computed again
    text = journal.read_bytes()
    journal.write_bytes(text[: text.rstrip(b"\n").rfind(b"\n") + 1] + text.splitlines()[-1][:30])
    code, out, err = _rerun(capsys, cell)
    assert code == 0 and not _notes(err) and ", 0 computed now)" in out, err
    pd.testing.assert_frame_equal(_comparable(pd.read_parquet(cell / "table.parquet")), pristine[1])
    text = journal.read_bytes()
    journal.write_bytes(text[: text.rstrip(b"\n").rfind(b"\n") + 1] + text.splitlines()[-1][:30])
    (cell / "table.parquet").unlink()
    code, out, err = _rerun(capsys, cell)
    assert code == 0 and not _notes(err) and ", 1 computed now)" in out, err
    pd.testing.assert_frame_equal(_comparable(pd.read_parquet(cell / "table.parquet")), pristine[1])


def test_a_version_2_journal_is_adopted_once_and_continued_as_version_3(pristine, tmp_path, capsys):
    cell = _copy(pristine, tmp_path)
    journal = cell / "rows.jsonl"
    v2 = []
    for line in journal.read_text().splitlines():
        rec = json.loads(line.rpartition("\t")[0])
        if isinstance(rec, dict):
            rec = {**{k: v for k, v in rec.items() if k != "overrides"}, "journal": 2}
        v2.append(json.dumps(rec, separators=(",", ":")))
    journal.write_text("\n".join(v2) + "\n")
    code, out, err = _rerun(capsys, cell)
    notes = _notes(err)
    assert code == 0 and len(notes) == 1, err
    assert notes[0] == (
        f"starbench: {journal}: journal v2, unchecked: {len(pristine[1])} rows adopted "
        f"(continued as version 3)"
    )
    assert ", 0 computed now)" in out
    first = json.loads(journal.read_text().splitlines()[0].rpartition("\t")[0])
    assert first["journal"] == 3
    code, out, err = _rerun(capsys, cell)
    assert code == 0 and not _notes(err), err
    pd.testing.assert_frame_equal(_comparable(pd.read_parquet(cell / "table.parquet")), pristine[1])


def test_a_damaged_cell_json(pristine, tmp_path, capsys):
    """Truncated, or one byte of git_commits flipped: with a journal, the run rebuilds it (one
    line); without, run, collect and load_results say so in one line with the repair, and
    never call the cell incomplete; the table's checksum is never skipped."""
    from starbench import load_results

    cell = _copy(pristine, tmp_path)
    summary = cell / "cell.json"
    text = summary.read_text()
    summary.write_text(text.replace('"git_commits": [\n  "', '"git_commits": [\n  "f', 1))
    code, out, err = _rerun(capsys, cell)
    notes = _notes(err)
    assert code == 0 and len(notes) == 1 and "fails its sha256" in notes[0], err
    assert "rebuilt from the journal" in notes[0] and ", 0 computed now)" in out
    assert json.loads(summary.read_text())["git_commits"] == json.loads(text)["git_commits"]
    # without the journal: nothing of the table is used
    (cell / "rows.jsonl").unlink()
    summary.write_text(text[: len(text) // 2])
    code, out, _ = _cli(capsys, "collect", str(cell))
    assert code == 1 and "incomplete" not in out.lower() and "damaged: " in out, out
    assert "git checkout -- " in out and "trees=8" in out and "hydra.run.dir=" in out
    with pytest.raises(Exception, match="cannot be read as a JSON document") as e:
        load_results(cell)
    assert "git checkout" in str(e.value) and "\n" not in str(e.value)
    line = _one_line(*_rerun(capsys, cell)[:3:2])
    assert "cannot be verified" in line and "git checkout" in line
    # the printed repair works as printed: restore, or recompute from a fresh folder
    summary.write_text(text)
    assert _rerun(capsys, cell)[0] == 0


def test_a_committed_cell_is_quiet_and_a_short_journal_keeps_the_table(pristine, tmp_path, capsys):
    cell = _copy(pristine, tmp_path)
    (cell / "rows.jsonl").unlink()
    code, out, err = _rerun(capsys, cell)
    assert code == 0 and not _notes(err) and ", 0 computed now)" in out, err
    # a journal that lacks rows its verified table holds: one line, the table's rows kept
    journal = cell / "rows.jsonl"
    lines = journal.read_text().splitlines(True)
    journal.write_text("".join(lines[:-5]))
    code, out, err = _rerun(capsys, cell)
    notes = _notes(err)
    assert code == 0 and len(notes) == 1 and "lacks 5 rows that table.parquet holds" in notes[0]
    assert ", 0 computed now)" in out
    pd.testing.assert_frame_equal(_comparable(pd.read_parquet(cell / "table.parquet")), pristine[1])


def test_match_files_are_checked(tmp_path, capsys):
    pytest.importorskip(
        "pyspiel", reason="OpenSpiel is not installed: pip install starbench[games]"
    )
    folder = tmp_path / "m"
    argv = ["match", "pig(winscore=10)", "--player", "oracle", "--player", "random",
            "--games", "6", "--out", str(folder)]  # fmt: skip
    assert cli.main(argv) == 0
    capsys.readouterr()
    good = pd.read_parquet(folder / "match.parquet").drop(columns=["cpu_seconds0", "cpu_seconds1"])
    journal = folder / "games.jsonl"
    lines = journal.read_text().splitlines(True)
    row = lines[2]
    winner = json.loads(row.rpartition("\t")[0])["winner"]
    lines[2] = row.replace(f'"winner": {winner}', f'"winner": {1 - winner}')
    assert lines[2] != row
    journal.write_text("".join(lines))
    code, out, err = _cli(capsys, *argv)
    notes = [ln for ln in _notes(err) if "line" in ln]
    assert code == 0 and len(notes) == 1 and f"{journal}: line 3 fails its checksum" in notes[0]
    again = pd.read_parquet(folder / "match.parquet").drop(columns=["cpu_seconds0", "cpu_seconds1"])
    pd.testing.assert_frame_equal(again, good)
    # journals written before checksums: adopted once, unchecked
    journal.write_text(
        "".join(ln.rpartition("\t")[0] + "\n" for ln in journal.read_text().splitlines())
    )
    code, out, err = _cli(capsys, *argv)
    assert code == 0 and "unchecked: 6 games adopted" in err, err
    code, out, err = _cli(capsys, *argv)
    assert code == 0 and "unchecked" not in err and "line" not in err, err
    # non-UTF-8 inside the journal
    data = bytearray(journal.read_bytes())
    data[3] = 0xFE
    journal.write_bytes(bytes(data))
    code, out, err = _cli(capsys, *argv)
    assert code == 0 and "line 1 fails its checksum" in err and "Traceback" not in err, err
    # a truncated match.json: one line
    request = folder / "match.json"
    request.write_text(request.read_text()[:20])
    line = _one_line(*_cli(capsys, *argv)[:3:2])
    assert f"{request}: cannot be read as a JSON document" in line and "git checkout" in line


# --------------------------------------------------------------------------- one line (#37)
def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _interruptible(argv: list[str]) -> subprocess.Popen:
    """``argv`` started as from a terminal, where Ctrl-C is SIGINT's default: a test worker may
    have inherited SIGINT ignored or blocked (then Python installs no KeyboardInterrupt and the
    child would run on)."""
    return subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint
    )


def _interrupt(p: subprocess.Popen, journal: Path) -> str:
    """Ctrl-C to ``p`` once ``journal`` holds three lines; its stderr once it has ended (killed
    after 60 s, and the test fails)."""
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
        journal.exists() and journal.read_bytes().count(b"\n") >= 3
    ):
        time.sleep(0.02)
    p.send_signal(signal.SIGINT)
    try:
        return p.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise


def test_ctrl_c_in_run_is_one_line_and_the_same_command_continues(tmp_path):
    """SIGINT after the journal's third line: exit 130, one line saying what is kept; the same
    command then continues the cell."""
    cell = tmp_path / "cell"
    argv = [EXE, "run", "trees=100000", "tree.depth=3", "engine=python", "progress=false",
            "algorithms=[expectimax]", f"hydra.run.dir={cell}"]  # fmt: skip
    p = _interruptible(argv)
    journal = cell / "rows.jsonl"
    err = _interrupt(p, journal)
    assert p.returncode == 130 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == (
        "starbench: interrupted (Ctrl-C): the rows journaled so far are kept (rows.jsonl); the "
        "same command continues"
    )
    assert json.loads((cell / "cell.json").read_text())["status"] == "interrupted"
    kept = journal.read_bytes().count(b"\n") - 1
    done = subprocess.run(argv[:2] + ["trees=5", *argv[3:]], capture_output=True, text=True)
    assert done.returncode == 0 and f"{min(kept, 5)} saved rows kept" in done.stdout, done.stdout


def test_ctrl_c_in_match_is_one_line_and_the_same_command_continues(tmp_path):
    """SIGINT after the match journal's third game: exit 130, one line saying what is kept; the
    same command (asking for two more games than were kept, so that the test stays short; the
    interrupted one asks for more than it could ever finish) then plays only the games still
    missing."""
    pytest.importorskip(
        "pyspiel", reason="OpenSpiel is not installed: pip install starbench[games]"
    )
    folder = tmp_path / "m"
    argv = [EXE, "match", "pig(winscore=20)", "--player", "expectimax:depth=3", "--player",
            "random", "--games", "100000", "--out", str(folder)]  # fmt: skip
    p = _interruptible(argv)
    journal = folder / "games.jsonl"
    err = _interrupt(p, journal)
    assert p.returncode == 130 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == (
        "starbench: interrupted (Ctrl-C): the games played so far are kept (games.jsonl); the "
        "same command continues"
    )
    kept = journal.read_bytes().count(b"\n")  # one line a game
    assert kept >= 3
    argv[argv.index("100000")] = str(kept + 2)
    done = subprocess.run(argv, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert len(pd.read_parquet(folder / "match.parquet")) == kept + 2
    assert f"{kept} games already played in {folder}; 2 to play" in done.stderr, done.stderr


def _interrupted_on_call(n: int, real):
    """``real`` that raises KeyboardInterrupt (as Ctrl-C does) in the middle of its n-th call,
    after the file it writes has been started."""
    calls = []

    def wrapped(path, write):
        calls.append(path)
        if len(calls) < n:
            return real(path, write)

        def torn(tmp):
            tmp.write_bytes(b"half a file")
            raise KeyboardInterrupt

        return real(path, torn)

    return wrapped


def test_ctrl_c_in_collect_and_plot_is_one_line_and_leaves_no_half_file(
    tmp_path, capsys, monkeypatch
):
    """Ctrl-C while ``collect`` writes its table, or while ``plot`` writes its second file: exit
    130, one line, nothing half-written (the files written before it are whole); the same
    command then does all of it."""
    from starbench.analysis import plotting as plot_module
    from starbench.experiment import collect as collect_module

    study = tmp_path / "hauk2004-deepening"
    shutil.copytree(ROOT / "results" / "hauk2004-deepening", study)
    said = (
        "starbench: interrupted (Ctrl-C): every file is written whole or not at all; the same "
        "command starts again"
    )
    real = collect_module.atomic_write
    monkeypatch.setattr(collect_module, "atomic_write", _interrupted_on_call(1, real))
    code, out, err = _cli(capsys, "collect", str(study))
    assert code == 130 and err.strip().splitlines()[-1] == said, err
    assert not (study / "collected.parquet").exists()
    assert not [f for f in study.iterdir() if f.name.endswith(".tmp")]
    monkeypatch.setattr(collect_module, "atomic_write", real)
    assert _cli(capsys, "collect", str(study))[0] == 0

    figures = tmp_path / "figures"
    real = plot_module.atomic_write
    monkeypatch.setattr(plot_module, "atomic_write", _interrupted_on_call(2, real))
    code, out, err = _cli(capsys, "plot", str(study), "--out", str(figures))
    assert code == 130 and err.strip().splitlines()[-1] == said, err
    kept = {f: f.read_bytes() for f in figures.rglob("*") if f.is_file()}
    assert kept and not [f for f in kept if f.name.endswith(".tmp")], kept
    monkeypatch.setattr(plot_module, "atomic_write", real)
    assert _cli(capsys, "plot", str(study), "--out", str(figures))[0] == 0
    assert all(f.read_bytes() == data for f, data in kept.items())  # each was whole
    assert len([f for f in figures.rglob("*") if f.is_file()]) > len(kept)


def test_rows_in_error_are_said_with_the_first_error(tmp_path, capsys):
    code, out, err = _cli(
        capsys, "run", "tree.branching=1", "tree.chance_arity=1", "tree.depth=10000", "trees=2",
        "engine=python", "progress=false", "algorithms=[expectimax]", f"hydra.run.dir={tmp_path}",
    )  # fmt: skip
    notes = _notes(err)
    assert code == 1 and len(notes) == 1, err
    assert notes[0].startswith("starbench: 2 of 2 rows are errors (status error); the first: ")
    assert "expectimax on instance 0: RecursionError" in notes[0]


def test_a_start_that_the_horizon_never_reaches_is_one_line(tmp_path, capsys):
    pytest.importorskip(
        "pyspiel", reason="OpenSpiel is not installed: pip install starbench[games]"
    )
    code, _, err = _cli(
        capsys, "run", "tree=game", "tree.game='pig(winscore=30,diceoutcomes=3,horizon=12)'",
        "tree.depth=2", "trees=6", "seed=1", "algorithms=[expectimax]", "progress=false",
        f"hydra.run.dir={tmp_path}",
    )  # fmt: skip
    line = err.strip().splitlines()[-1]
    assert code == 2 and "Traceback" not in err and "no playout of" in line, err
    assert "tree.position" in line


# --------------------------------------------------------------------------- bounded (#37)
def test_a_huge_tree_count_is_iterated_lazily(tmp_path):
    """trees=10**12 on a small tree: rows come at once and memory stays small (the pending
    instances are never listed), stopped after 50 rows."""
    import time

    cell = tmp_path / "cell"
    p = subprocess.Popen(
        [EXE, "run", f"trees={10**12}", "tree.depth=1", "algorithms=[expectimax]",
         "progress=false", f"hydra.run.dir={cell}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    journal = cell / "rows.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (
        journal.exists() and journal.read_bytes().count(b"\n") > 50
    ):
        time.sleep(0.05)
    status = Path(f"/proc/{p.pid}/status").read_text()  # the run's own peak memory and CPU
    stat = Path(f"/proc/{p.pid}/stat").read_text().rsplit(")", 1)[1].split()
    p.kill()
    p.wait()
    assert journal.read_bytes().count(b"\n") > 50
    peak_kb = int(next(ln for ln in status.splitlines() if ln.startswith("VmHWM:")).split()[1])
    import os

    cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
    assert cpu < 10 and peak_kb < 400 * 1024, (cpu, peak_kb)


def test_n_jobs_is_capped_at_the_usable_cpus(tmp_path, capsys):
    import os

    code, _, err = _cli(capsys, "run", "n_jobs=1000", *SMALL, f"hydra.run.dir={tmp_path}")
    notes = _notes(err)
    assert code == 0, err
    cpus = len(os.sched_getaffinity(0))
    assert notes == [
        f"starbench: n_jobs=1000 capped at {cpus} processes, the CPUs this process may use (more "
        f"would only share them)"
    ]


def test_a_plugin_that_raises_is_named_in_one_line(tmp_path):
    """A plugin class whose constructor raises, and a plugin module that raises while it is
    imported: one line naming the plugin (and the algorithm), exit 2."""

    plugins = Path(__file__).parent / "plugins"
    env = with_path(plugins)
    common = ["trees=2", "progress=false", "engine=python"]
    p = subprocess.run(
        [EXE, "run", "plugins=[raising_plugins]", "algorithms=[expectimax,fragile]", *common,
         f"hydra.run.dir={tmp_path}/a"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    line = _one_line(p.returncode, p.stderr)
    assert "algorithm fragile (plugin class raising_plugins.Fragile)" in line
    assert "its constructor raised RuntimeError: no tables today" in line
    p = subprocess.run(
        [EXE, "run", "plugins=[boom_at_import]", *common, f"hydra.run.dir={tmp_path}/b"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    line = _one_line(p.returncode, p.stderr)
    assert "importing plugin module 'boom_at_import' raised RuntimeError: boom at import" in line


# --------------------------------------------------------------------------- printed commands (#37)
@pytest.mark.parametrize(
    "launcher",
    [
        pytest.param([], marks=pytest.mark.slow),
        pytest.param(["hydra/launcher=joblib", "hydra.launcher.n_jobs=2"], marks=pytest.mark.slow),
    ],
)
def test_a_printed_rerun_command_completes_the_cell_as_printed(tmp_path, launcher):
    """An own study in a config folder outside the checkout, with several sweeps (and under a
    launcher): copied elsewhere, one cell cut short as an interruption leaves it; collect's
    rerun line, run verbatim from another folder, completes exactly that cell, in the copy,
    with the table of the uninterrupted cell."""
    import os

    from starbench.record.integrity import write_document

    cfg = tmp_path / "my_configs" / "experiment"
    cfg.mkdir(parents=True)
    (cfg / "held.yaml").write_text(
        "# @package _global_\nname: held\ntrees: 3\nprogress: false\n"
        "sweeps:\n  - {tree.depth: '1,2'}\n  - {tree.branching: '3'}\n"
    )
    study = tmp_path / "study"
    p = subprocess.run(
        [EXE, "run", "-cd", "my_configs", "experiment=held", *launcher,
         f"hydra.sweep.dir={study}"],
        cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    copy = tmp_path / "elsewhere" / "copy"
    shutil.copytree(study, copy)
    cell = sorted(copy.glob("d1_*"))[0]
    journal = cell / "rows.jsonl"
    journal.write_text("".join(journal.read_text().splitlines(True)[:6]))
    (cell / "table.parquet").unlink()
    summary = json.loads((cell / "cell.json").read_text())
    summary["status"] = "interrupted"
    write_document(cell / "cell.json", summary)
    p = subprocess.run([EXE, "collect", str(copy)], capture_output=True, text=True, cwd="/")
    assert p.returncode == 1 and "rows from 2 cells of the 3 found" in p.stdout, p.stdout
    (line,) = [ln for ln in p.stdout.splitlines() if ln.startswith("  rerun: ")]
    # the environment of the first run (a PYTHONPATH, as scripts/time_tests.py sets for its
    # clone, stays: without it the rerun would be another checkout's starbench, at another commit)
    env = {**os.environ, "PATH": f"{Path(EXE).parent}:{os.environ['PATH']}"}
    again = subprocess.run(
        line.removeprefix("  rerun: "), shell=True, cwd="/", capture_output=True, text=True,
        env=env,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr[-2000:]
    assert sorted(p.name for p in copy.iterdir() if p.is_dir()) == sorted(
        p.name for p in study.iterdir() if p.is_dir()
    )
    got = _comparable(pd.read_parquet(cell / "table.parquet"))
    want = _comparable(pd.read_parquet(study / cell.name / "table.parquet"))
    pd.testing.assert_frame_equal(got, want)
    p = subprocess.run([EXE, "collect", str(copy)], capture_output=True, text=True, cwd="/")
    assert p.returncode == 0 and "rows from 3 cells)" in p.stdout, p.stdout


# --------------------------------------------------------------------------- the cluster (#39)
def test_a_slurm_launch_that_cannot_work_is_one_line_before_anything_is_written(
    tmp_path, capsys, monkeypatch
):
    """Without sbatch on the PATH (not a submit host): one line, exit 2, not submitit's
    traceback.  A time limit that leaves a cell no time (``timeout_min * 60 <=
    signal_delay_s + 60``: every job is told to stop within its first minute): one line naming
    both keys, exit 2.  Nothing is written either way."""
    sweep = tmp_path / "sweep"
    argv = ["run", "-m", "hydra/launcher=slurm", "tree.branching=2,3", f"hydra.sweep.dir={sweep}"]
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    line = _one_line(*_cli(capsys, *argv)[:3:2])
    assert "hydra/launcher: SLURM's launcher needs sbatch and srun on the PATH" in line
    stand_in = tmp_path / "bin"
    stand_in.mkdir()
    (stand_in / "sbatch").write_text("#!/bin/sh\nexit 1\n")
    (stand_in / "sbatch").chmod(0o755)
    monkeypatch.setenv("PATH", str(stand_in))
    for minutes in (2, 3):
        line = _one_line(*_cli(capsys, *argv, f"hydra.launcher.timeout_min={minutes}")[:3:2])
        assert f"hydra.launcher.timeout_min: {minutes} minutes leaves a cell no time" in line
        assert "hydra.launcher.signal_delay_s = 120 s" in line
        assert "hydra.launcher.timeout_min=4 or more" in line
    assert not sweep.exists()
