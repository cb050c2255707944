"""The front door and the manual: the README leads to a study of one's own in under 200 lines
and its example runs as written; the documentation site builds strictly (``docs`` marker); the
reference pages describe everything the code has; every study README follows one template; the
docs' game example runs."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from starbench.commands import reference

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS_INSTALL = 'pip install -c constraints.txt -e ".[docs]"'
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def _fences(path: Path, lang: str) -> list[str]:
    return [body for tag, body in FENCE.findall(path.read_text(encoding="utf-8")) if tag == lang]


def _mkdocs(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip(f"needs the docs extra: {DOCS_INSTALL}")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.mark.docs
def test_the_docs_build_strictly(tmp_path):
    p = _mkdocs(ROOT / "mkdocs.yml", tmp_path / "site")
    assert p.returncode == 0, p.stderr[-3000:]
    site = tmp_path / "site"
    for page in ("reference/config", "reference/algorithms", "reference/columns"):
        assert (site / page / "index.html").exists(), page
    studies = sorted(p.parent.name for p in (ROOT / "experiments").glob("*/README.md"))
    for study in studies:
        assert (site / "studies" / study / "index.html").exists(), study
    html = (site / "reference" / "algorithms" / "index.html").read_text(encoding="utf-8")
    assert "Ballard" in html and "star2.5-sequential" in html


@pytest.mark.docs
def test_a_broken_link_fails_the_strict_build(tmp_path):
    """The strict build is a check: a page with a link to nothing fails it."""
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    page = tmp_path / "docs" / "guide" / "results.md"
    page.write_text(page.read_text() + "\nSee [the missing page](missing.md).\n")
    p = _mkdocs(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert p.returncode != 0 and "missing.md" in p.stderr


def test_the_readme_is_a_front_door():
    """Under 200 lines, and the own-study example (an experiment file for -cd, and the commands
    to run, collect and plot it) comes in its first 200."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, len(lines)
    text = "\n".join(lines)
    for needed in ("-cd my_configs", "starbench collect", "starbench plot", "load_results"):
        assert needed in text, needed
    assert "# @package _global_" in _fences(README, "yaml")[0]


def test_every_column_and_key_is_in_the_reference():
    from dataclasses import fields

    from starbench.experiment.settings import RunConfig
    from starbench.record.rows import table_dtypes
    from starbench.search.registry import ALGORITHMS
    from starbench.trees.regular import RegularTreeSpec

    tree = {f.name for f in fields(RegularTreeSpec)}
    page = reference.columns_page()
    for c in table_dtypes():  # every column with its meaning (record.columns declares it)
        row = next(r for r in page.splitlines() if r.startswith(f"| `{c}` |"))
        assert row.rsplit("|", 2)[1].strip(), f"no meaning for column {c}"
    config = reference.config_page()
    for f in fields(RunConfig):
        if f.name not in ("tree", "algorithm_specs"):
            assert f"| `{f.name}` |" in config, f.name
    for name in tree:
        assert f"| `tree.{name}` |" in config, name
    algorithms = reference.algorithms_page()
    for name, info in ALGORITHMS.items():
        assert f"## `{name}`" in algorithms and info.citation, name
        for p in info.params:
            assert f"| `{p.name}` |" in algorithms, (name, p.name)


TEMPLATE = (
    "## Question",
    "## Setup",
    "## Method",
    "## Command",
    "## Result",
    "## What holds and what does not",
)


@pytest.mark.parametrize(
    "readme",
    sorted((ROOT / "experiments").glob("*/README.md")),
    ids=lambda p: p.parent.name,
)
def test_every_study_readme_follows_the_template(readme):
    """Question, setup, method (the tests, margins and corrections), command, result, what holds
    and what does not: in this order, each a section (more sections may come between, a
    heading may go on: "## Results: ...")."""
    heads = [h for h in readme.read_text(encoding="utf-8").splitlines() if h.startswith("## ")]
    at = []
    for part in TEMPLATE:
        found = [i for i, h in enumerate(heads) if h.startswith(part)]
        assert found, f"{readme.parent.name}: no section {part!r} (headings: {heads})"
        at.append(found[0])
    assert at == sorted(at), f"{readme.parent.name}: sections out of order: {heads}"


@pytest.mark.slow
def test_the_readme_own_study_runs_as_written(tmp_path):
    """The README's experiment file and its four commands, as written (fewer trees, and the
    figures as single-column PNGs: every format and size of every figure is
    ``test_plot.test_every_figure_is_written``'s)."""
    (tmp_path / "my_configs" / "experiment").mkdir(parents=True)
    (tmp_path / "my_configs" / "experiment" / "skew.yaml").write_text(_fences(README, "yaml")[0])
    commands = [c for c in _fences(README, "bash")[-1].splitlines() if c.strip()]
    assert len(commands) == 4
    env = {**os.environ, "STARBENCH_PROGRESS": "0"}
    bindir = Path(sys.executable).parent
    for command in commands:
        if command.startswith("starbench run"):
            command += " trees=3 n_jobs=1 progress=false"
        if command.startswith("starbench plot"):
            command += " --format png --size single"
        if command.startswith("python "):
            command = f"{sys.executable} " + command.removeprefix("python ")
        else:
            command = f"{bindir / 'starbench'} " + command.removeprefix("starbench ")
        p = subprocess.run(
            command, shell=True, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600
        )
        assert p.returncode == 0, (command, p.stderr[-2000:])
    assert len(list((tmp_path / "results" / "skew").glob("*/table.parquet"))) == 4
    assert (tmp_path / "results" / "skew" / "collected.parquet").exists()
    assert (tmp_path / "figures" / "skew" / "ordering_effect-single.png").exists()
    assert "star2.5-cyclic k=3" in p.stdout  # the last command printed the labelled means


def test_the_docs_game_example_runs(capsys):
    pytest.importorskip(
        "pyspiel", reason='needs OpenSpiel: pip install -c constraints.txt -e ".[games]"'
    )
    (code,) = [
        c for c in _fences(ROOT / "docs" / "guide" / "games.md", "python") if "game_source" in c
    ]
    exec(compile(code, "docs/guide/games.md", "exec"), {})  # noqa: S102 - the project's own docs
    value, action, nodes = capsys.readouterr().out.split()
    assert action == "0" and int(nodes) > 0 and -1 <= float(value) <= 10


def test_the_latency_bench_times_the_readme_own_study():
    """``starbench bench --latency`` measures the README's own study: its experiment file is the
    README's, word for word."""
    from starbench.commands.latency import STUDY

    assert _fences(README, "yaml")[0] == STUDY


def test_every_allowed_values_list_in_the_running_guide_is_the_schema_s():
    """A key's list of values in ``docs/guide/running.md`` (`` `key` (`a`, `b` ...) ``) is
    exactly what the schema allows: a value added to the code and not to the guide fails."""
    import re

    from starbench.engines import ENGINES
    from starbench.trees.regular import (
        BOUNDS,
        DISTRIBUTIONS,
        ORDERINGS,
        OUTCOME_ORDERS,
        PATTERNS,
        VALUE_MODELS,
    )

    text = (ROOT / "docs" / "guide" / "running.md").read_text()
    schema = {
        "pattern": PATTERNS,
        "distribution": DISTRIBUTIONS,
        "value_model": VALUE_MODELS,
        "bounds": BOUNDS,
        "ordering": ORDERINGS,
        "outcome_order": OUTCOME_ORDERS,
        "engine": ENGINES,
    }
    for key, allowed in schema.items():
        m = re.search(rf"`{key}` \(((?:[^()]|\([^()]*\))*)\)", text, re.S)
        assert m, f"running.md lists no values for {key}"
        listed = {v for v in re.findall(r"`([^`]+)`", m.group(1)) if v not in ("noise_sd", "skew")}
        listed -= {"weight_max"}
        assert listed == set(allowed), (key, sorted(listed), sorted(allowed))
