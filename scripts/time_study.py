#!/usr/bin/env python3
"""Time a study from scratch and record it in experiments/<study>/runtime.md.

Runs ``starbench run experiment=STUDY n_jobs=N`` into a fresh temporary folder (so every search
is computed; the committed results are not touched), and writes the wall time with the machine
and the command.  The numba cache is warmed first so compile time is not counted (the benchmark
reports it apart).

    python scripts/time_study.py ballard1983 [--n-jobs 2] [-- extra overrides]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("study")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("extra", nargs="*")
    args = ap.parse_args(argv)
    from starbench.compiled.engine import warm_up
    from starbench.experiment.metadata import cpu_model
    from starbench.experiment.storage import atomic_write_text

    warm_up()
    exe = str(Path(sys.executable).parent / "starbench")
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [
            exe,
            "run",
            f"experiment={args.study}",
            f"n_jobs={args.n_jobs}",
            *args.extra,
            f"hydra.sweep.dir={tmp}/sweep",
            f"hydra.run.dir={tmp}/run",
            "progress=false",
        ]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        return p.returncode
    shown = " ".join(
        ["starbench", "run", f"experiment={args.study}", f"n_jobs={args.n_jobs}", *args.extra]
    )
    text = (
        f"`{shown}` computed the whole study from scratch in **{seconds:.0f} s** of wall "
        f"time on {os.cpu_count()} cores ({cpu_model()}), compiled engine, numba cache "
        f"warm (measured with `python scripts/time_study.py {args.study}` on "
        f"{time.strftime('%Y-%m-%d')}).\n"
    )
    out = ROOT / "experiments" / args.study / "runtime.md"
    atomic_write_text(out, text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
