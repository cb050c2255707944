"""Hydra's habits in ``starbench run``: tab completion installs and completes (for the
``starbench`` command, through ``starbench -sc query=bash``), and every combination of Hydra's
mutually exclusive flags is one line, exit 2, no traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXE = str(Path(sys.executable).parent / "starbench")


def starbench(*args, env=None, cwd=None):
    return subprocess.run(
        [EXE, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=300,
    )


@pytest.mark.parametrize("flag", ["-sc", "--shell-completion"])
def test_completion_installs_for_the_starbench_command(flag):
    p = starbench("run", flag, "install=bash")
    assert p.returncode == 0, p.stderr
    assert "hydra_bash_completion" in p.stdout
    assert p.stdout.rstrip().endswith("-F hydra_bash_completion starbench")


def test_completion_answers_keys_groups_and_subcommands():
    def query(line):
        p = starbench("-sc", "query=bash", env={"COMP_LINE": line, "COMP_POINT": str(len(line))})
        assert p.returncode == 0, p.stderr
        return p.stdout.split()

    assert query("starbench run tree.dep") == ["tree.depth="]
    assert "order=" in query("starbench run ord")
    assert query("starbench so") == ["solve"]
    assert {"run", "solve", "plot", "collect"} <= set(query("starbench "))


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_completion_works_in_bash(tmp_path):
    script = (
        'eval "$(starbench run -sc install=bash)"; COMP_LINE="starbench run tree.bra"; '
        "COMP_POINT=${#COMP_LINE}; COMP_CWORD=2; hydra_bash_completion; "
        'echo "${COMPREPLY[@]}"'
    )
    env = {**os.environ, "PATH": f"{Path(EXE).parent}{os.pathsep}{os.environ['PATH']}"}
    p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["tree.branching="]


@pytest.mark.parametrize(
    "flags",
    [
        ["-m", "trees=1,2", "--cfg", "job"],
        ["--cfg", "job", "-m", "trees=1,2"],
        ["--cfg", "job", "--info"],
        ["-m", "--info"],
        ["-sc", "install=bash", "--cfg", "job"],
        ["-m", "-sc", "install=bash"],
    ],
    ids=lambda f: " ".join(f),
)
def test_exclusive_flags_are_one_line(tmp_path, flags):
    p = starbench("run", *flags, cwd=tmp_path)
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot be combined" in lines[0], p.stderr
    assert "Traceback" not in p.stderr and not (tmp_path / "results").exists()


def test_cfg_job_alone_prints_the_config(tmp_path):
    p = starbench("run", "--cfg", "job", "trees=3", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "trees: 3" in p.stdout
