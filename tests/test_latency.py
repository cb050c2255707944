"""``starbench bench --latency``: its report and its bad input (the measurement itself takes a
minute of CPU and is a benchmark, not a unit test)."""

from __future__ import annotations

from starbench.commands import cli
from starbench.commands.latency import TARGETS, markdown


def _result(after: float, before: bool) -> dict:
    cpu = {c: {"after": [after, after + 0.1, after - 0.1]} for c in TARGETS}
    if before:
        for c in TARGETS:
            cpu[c]["before"] = [9.0, 9.5, 8.5]
    return {
        "machine": {"cpu_model": "x", "cores": 2, "python": "3.11"},
        "date": "2026-12-03",
        "source": "commit 0123 (clean tree)",
        "before": "/tmp/old" if before else None,
        "load": {"before": [0.1, 0.2, 0.3], "after": None},
        "repeats": 3,
        "format_flag": {"after": True, **({"before": False} if before else {})},
        "targets": TARGETS,
        "cpu": cpu,
    }


def test_the_report_gives_medians_side_by_side_and_says_which_targets_are_met():
    text = markdown(_result(0.2, before=True))
    rows = [line for line in text.splitlines() if line.startswith("| import starbench")]
    assert rows == ["| import starbench | 0.25 | 9.00 (8.50-9.50) | 0.20 (0.10-0.30) | yes |"]
    assert "| plot, every file | 5 | 9.00 (8.50-9.50) | 0.20 (0.10-0.30) | yes |" in text
    assert "9.00 (8.50-9.50) (a)" in text and "(a) code without `--format`" in text
    assert "0.10/0.20/0.30 before, ? after" in text
    slow = markdown(_result(3.0, before=False))
    assert "| collect | 0.8 | 3.00 (2.90-3.10) | **no** |" in slow
    assert "| run, the whole study again | - | 3.00 (2.90-3.10) | - |" in slow


def test_bad_latency_flags_are_one_line(tmp_path, capsys):
    assert cli.main(["bench", "--before", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == "starbench: error: --before: only with --latency"
    out = ["--out", str(tmp_path / "out")]
    assert cli.main(["bench", "--latency", "--before", str(tmp_path), *out]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--before {tmp_path}: no starbench source" in err
    assert not (tmp_path / "out").exists()
