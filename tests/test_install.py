"""The built wheel runs an experiment from any folder (``install``: not a unit test)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.install, pytest.mark.slow]  # a wheel, a venv and a cold compile


def _run(argv: list, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )


def test_the_wheel_runs_the_default_experiment_from_an_empty_folder(tmp_path):
    """Build the wheel, install it into a fresh venv outside the checkout (reusing the test
    environment's dependencies through a path entry, which runs none of their ``.pth`` hooks,
    so the editable install of this checkout stays invisible), and run ``starbench run`` from
    an empty folder: the configs come from inside the wheel and the results land there."""
    dist = tmp_path / "dist"
    p = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            dist,
            ROOT,
        ],
        tmp_path,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    (wheel,) = dist.glob("starbench-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "starbench/conf/config.yaml" in names and "starbench/py.typed" in names
    assert any(n.endswith("LICENSE") for n in names)
    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", venv], tmp_path).returncode == 0
    py = venv / "bin" / "python"
    site = _run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path)
    site = Path(site.stdout.strip())
    (site / "test-env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    p = _run([py, "-m", "pip", "install", "--no-deps", "--no-index", wheel], tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}:{env.get('PATH', '')}"
    where = _run(
        [
            py,
            "-c",
            "import starbench, starbench.commands.run as r; print(starbench.__file__, r.CONF_DIR)",
        ],
        tmp_path,
        env,
    )
    assert where.returncode == 0, where.stderr
    module, conf = where.stdout.split()
    assert module.startswith(str(site)) and conf.startswith(str(site)), where.stdout
    assert not module.startswith(str(ROOT))
    version = _run([py, "-m", "starbench", "--version"], tmp_path, env)
    assert version.returncode == 0 and version.stdout.startswith("starbench "), version.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    # a compiled search: numba's cache lands in the per-user folder, never in site-packages
    env.pop("NUMBA_CACHE_DIR", None)
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    before = sorted(str(p) for p in site.rglob("*"))
    run = _run([venv / "bin" / "starbench", "run", "trees=3", "engine=compiled"], empty, env)
    assert run.returncode == 0, run.stderr[-3000:]
    assert sorted(str(p) for p in site.rglob("*")) == before
    assert list((tmp_path / "xdg" / "starbench" / "numba").rglob("*.nbi"))
    tables = list((empty / "results").rglob("table.parquet"))
    assert len(tables) == 1
    df = pd.read_parquet(tables[0])
    assert len(df) == 3 * 7 and set(df["status"]) == {"ok"} and set(df["engine"]) == {"compiled"}
