"""Every committed study table was computed at one commit, from a clean tree.

``scripts/regenerate_results.py`` recomputes every study under ``results/`` at one commit and
refuses a dirty tree; each row records ``git_commit`` and ``git_dirty`` itself.  This keeps a
study from being rerun alone at another commit (or from uncommitted code) without the others."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))


def _tables() -> dict[str, pd.DataFrame]:
    out = {}
    for study in sorted(p for p in (ROOT / "results").iterdir() if p.is_dir()):
        tables = sorted(study.glob("*/table.parquet"))
        if tables:
            cols = ["git_commit", "git_dirty"]
            out[study.name] = pd.concat([pd.read_parquet(t, columns=cols) for t in tables])
    return out


def test_every_committed_table_comes_from_one_clean_commit():
    tables = _tables()
    assert len(tables) >= 10
    commits = {s: set(t["git_commit"]) for s, t in tables.items()}
    assert len(set.union(*commits.values())) == 1, commits  # one commit for every study
    dirty = {s: bool(t["git_dirty"].any()) for s, t in tables.items()}
    assert not any(dirty.values()), dirty


def test_the_regeneration_script_covers_every_committed_study():
    from regenerate_results import STUDIES

    assert set(_tables()) == set(STUDIES)
