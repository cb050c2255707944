"""Where the committed results come from, and that the current code still gives them.

Each study under ``results/`` is computed at one clean commit, its own
(``scripts/regenerate_results.py --only STUDY``; each row records ``git_commit`` and
``git_dirty``).  Studies may come from different commits: a study is regenerated when its own
code changes, and the replay below is what tells: it recomputes the cheapest instance of every
committed cell at the current code, on the engine each row records, and requires the same values,
best moves and counters (``starbench.experiment.replay``)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))


def _tracked() -> set[str] | None:
    """The results folders git tracks (a folder a user's run wrote, such as the README's first
    command's ``results/default``, is no committed study); None outside a git checkout."""
    import subprocess

    try:
        out = subprocess.run(
            ["git", "ls-files", "--", "results"], cwd=ROOT, capture_output=True, text=True
        )
    except OSError:
        return None
    if out.returncode != 0:
        return None
    return {line.split("/")[1] for line in out.stdout.splitlines() if line.count("/") >= 2}


def _studies(cells_only: bool = False) -> list[Path]:
    """The committed studies: folders git tracks with cells, and (unless ``cells_only``)
    folders of matches only."""
    tracked = _tracked()
    return sorted(
        p
        for p in (ROOT / "results").iterdir()
        if p.is_dir()
        and (tracked is None or p.name in tracked)
        and (any(p.glob("*/table.parquet")) or (not cells_only and any(p.glob("*/match.parquet"))))
    )


def test_each_study_comes_from_one_clean_commit():
    """Every row and every match of a study comes from one commit, with a clean tree."""
    studies = _studies()
    assert len(studies) >= 10
    for study in studies:
        cols = ["git_commit", "git_dirty"]
        tables = [pd.read_parquet(f, columns=cols) for f in study.glob("*/table.parquet")]
        metas = [json.loads(p.read_text())["meta"] for p in study.glob("*/match.json")]
        tables.append(pd.DataFrame([{c: m[c] for c in cols} for m in metas], columns=cols))
        t = pd.concat(tables)
        assert t["git_commit"].nunique() == 1, (study.name, set(t["git_commit"]))
        assert not t["git_dirty"].astype(bool).any(), study.name


def test_every_committed_cell_keeps_its_folder_name():
    """Every committed cell's digest, recomputed from the identity its ``cell.json`` stores (no
    table is read), is the end of its folder's name and its recorded ``cell``: a change to how
    identities are hashed, or a cell moved to another folder, fails here."""
    from starbench.record.identity import cell_digest

    cells = sorted(c for study in _studies(cells_only=True) for c in study.glob("*/cell.json"))
    assert len(cells) >= 100
    wrong = []
    for path in cells:
        cell = json.loads(path.read_text())
        digest = cell_digest(cell["identity"])
        if not digest == cell["cell"] == path.parent.name.rsplit("_", 1)[-1]:
            wrong.append(f"{path.parent.relative_to(ROOT)}: {digest} from its identity")
    assert not wrong, "\n".join(wrong)


def test_the_regeneration_script_covers_every_committed_study():
    from regenerate_results import STUDIES

    assert {s.name for s in _studies()} == set(STUDIES)


def test_replay_finds_a_changed_counter_and_samples_rows_by_their_stored_cpu(tmp_path, monkeypatch):
    """A small cell replays without a difference, every row of its instances or, with ``cpu``,
    the cheapest rows by their stored CPU time (at least one); a counter that the current code
    gives differently is reported with the row it belongs to."""
    from starbench.experiment import compute
    from starbench.experiment import replay as replay_mod
    from starbench.experiment.runner import run_cell
    from starbench.experiment.settings import AlgorithmSpec, RunSettings
    from starbench.trees import RegularTreeSpec

    s = RunSettings(
        tree=RegularTreeSpec(branching=3, chance_arity=3, depth=2),
        algorithms=tuple(AlgorithmSpec(a) for a in ("expectimax", "star1", "star2")),
        trees=2,
        progress=False,
    )
    folder = run_cell(s, tmp_path / "cell", out=lambda _: None).folder
    per_tree = len(s.algorithms)
    assert replay_mod.replay(folder, instances=2) == (2 * per_tree, [])
    assert replay_mod.replay(folder, instances=2, cpu=0.0) == (2, [])
    stored = pd.read_parquet(folder / "table.parquet")
    first = stored[stored["instance"] == stored.groupby("instance")["nodes"].sum().idxmin()]
    times = first["cpu_seconds"].astype(float).sort_values(kind="stable")
    budget = float(times.iloc[:2].sum())
    assert replay_mod.replay(folder, cpu=budget)[0] == 2
    assert replay_mod.replay(folder, cpu=float("inf"))[0] == per_tree
    real = compute.compute_instance

    def one_more_node(*args):
        return [{**r, "nodes": r["nodes"] + 1} for r in real(*args)]

    monkeypatch.setattr(compute, "compute_instance", one_more_node)
    n, differences = replay_mod.replay(folder, cpu=0.0)
    assert n == 1 and [d.field for d in differences] == ["nodes"]
    assert differences[0].now == differences[0].stored + 1


#: The stored CPU seconds of one cell's rows a replay samples (at least one row a cell).
REPLAY_CPU = 0.3
#: The cells of a study a replay samples, evenly spread over its sorted cells (all of a study of
#: this many or fewer).
REPLAY_CELLS = 16


@pytest.mark.slow
@pytest.mark.parametrize("study", [s.name for s in _studies(cells_only=True)])
def test_the_current_code_replays_a_sample_of_every_committed_study(study):
    """Every committed study, up to ``REPLAY_CELLS`` of its cells evenly spread (every cell of
    most studies), each cell's cheapest instance: its rows cheapest first while their stored CPU
    time stays within ``REPLAY_CPU`` seconds, and at least one, so that the expensive cells (a
    budget of 50 million nodes, backgammon's deepening) replay a row each rather than all (the
    rows compared are then as strictly compared as ever)."""
    if study.startswith("hauk2004-backgammon") or study == "hauk2004-deepening":
        pytest.importorskip("gnubg_nn", reason='pip install -c constraints.txt -e ".[backgammon]"')
    if "pig" in study:
        pytest.importorskip("pyspiel", reason='pip install -c constraints.txt -e ".[games]"')
    from starbench.experiment.replay import replay

    cells = sorted(p.parent for p in (ROOT / "results" / study).glob("*/cell.json"))
    step = -(-len(cells) // REPLAY_CELLS)  # ceiling: at most REPLAY_CELLS cells
    cells = cells[::step]
    c0 = time.process_time()
    rows, differences = 0, []
    for cell in cells:
        n, d = replay(cell, instances=1, cpu=REPLAY_CPU)
        rows += n
        differences += d
    assert rows >= len(cells), study
    assert not differences, "\n".join(str(d) for d in differences[:10])
    cpu = time.process_time() - c0
    print(f"{study}: {rows} rows of {len(cells)} cells replayed in {cpu:.1f} s CPU")


def _matches() -> list[Path]:
    return sorted((ROOT / "results").glob("*/*/match.parquet"))


def test_each_committed_match_comes_from_a_clean_commit():
    import json

    for table in _matches():
        meta = json.loads((table.parent / "match.json").read_text())["meta"]
        assert meta["git_commit"] and meta["git_dirty"] is False, table


@pytest.mark.slow
@pytest.mark.parametrize(
    "table", _matches(), ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}"
)
def test_the_current_code_replays_the_first_games_of_every_committed_match(table):
    """Games 0 and 1 (one with each seating) of every committed match, played again at the
    current code: the same rows but for the CPU time."""
    import json

    pytest.importorskip("pyspiel", reason='pip install -c constraints.txt -e ".[games]"')
    from starbench.commands.match import Match, as_recorded, parse_player, play

    req = json.loads((table.parent / "match.json").read_text())
    players = tuple(parse_player(req[f"player{i}"], req["game"], "player") for i in (0, 1))
    stored = pd.read_parquet(table)
    paired = bool(req.get("paired"))  # games 0 and 1: one pair, the same dice
    match = Match(req["game"], players, len(stored), req["seed"], paired)  # type: ignore[arg-type]
    match = as_recorded(match, req)  # the heuristics it was played with
    for g in (0, 1):
        row = play(match, g)
        want = stored.iloc[g].to_dict()
        for c in ("cpu_seconds0", "cpu_seconds1"):
            row.pop(c), want.pop(c)
        want = {k: (None if pd.isna(v) else v) for k, v in want.items()}
        # a match stored before the columns moves0 and moves1 lacks them; its others replay
        assert {k: row[k] for k in want} == want, (table, g)


def test_every_results_folder_the_project_names_is_tracked_by_git():
    """A folder the tests or docs read must be in the clean clone CI makes, not only here:
    ``.gitignore`` ignores ``results/*`` except the folders it names (the corpus was once
    missed)."""
    import subprocess

    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    texts = [p.read_text() for p in (ROOT / "tests").glob("*.py")]
    texts += [p.read_text() for p in (ROOT / "docs").rglob("*.md")]
    texts += [(ROOT / "README.md").read_text()]
    from starbench.experiment.settings import RunSettings

    # the default run's own output (the README's first command writes it) is no folder the
    # project reads
    output = RunSettings.__dataclass_fields__["name"].default
    named = [
        p
        for p in sorted((ROOT / "results").iterdir())
        if p in _studies()
        or (p.is_dir() and p.name != output and any(f"results/{p.name}" in t for t in texts))
    ]
    assert {"corpus", "bench", "pig-decisions"} <= {p.name for p in named}
    untracked = []
    for folder in named:
        tracked = subprocess.run(
            ["git", "ls-files", "--", str(folder.relative_to(ROOT))],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        if not tracked:
            untracked.append(folder.name)
    assert not untracked, f"results folders named by the project but not in git: {untracked}"
