"""Replay a sample of a stored table's rows at the current code.

A committed study keeps its tables from the commit it was computed at (its rows' ``git_commit``);
the code moves on. ``replay`` recomputes the cheapest few instances of each cell (by the nodes
their rows recorded), every row of them or a sample within a CPU time, each on the engine its row
records and with its budget, and returns every difference in the value, the best move, the run
status or a counter. A change that alters committed results is then seen at once
(``tests/test_provenance.py`` replays every committed study), and a study is regenerated only when
its own code changed. Rows of a time budget are not deterministic and are not replayed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starbench.record import columns
from starbench.record.rows import plain
from starbench.record.storage import CELL, TABLE, read_json
from starbench.search.stats import LEVEL_FIELDS

#: What must be the same (besides the value, compared within the float tolerance of the row's
#: bounds, exactly in exact mode).  The counters per level are compared where the stored row
#: has them (a row stored before them is replayed without them).
#: What a replay compares exactly: what two runs of a search share (``columns.outcomes``) but
#: the value, compared within the tolerance (``agree``).
SAME = tuple(f for f in columns.outcomes() if f != "value")


@dataclass(frozen=True)
class Difference:
    folder: str
    instance: int
    label: str
    field: str
    stored: Any
    now: Any

    def __str__(self) -> str:
        return (
            f"{self.folder}: instance {self.instance} {self.label}: {self.field} stored "
            f"{self.stored!r}, now {self.now!r}"
        )


def _settings(cell: dict[str, Any], row: dict[str, Any]) -> Any:
    from starbench.experiment.settings import RunSettings, algorithm_spec
    from starbench.games.spec import GameSpec
    from starbench.search.registry import KEY_PARAMS, key_values, parse_spec
    from starbench.trees.regular import RegularTreeSpec

    ident = cell["identity"]
    if "game" in ident:
        tree: Any = GameSpec(**ident["game"])
    else:
        tree = RegularTreeSpec(**ident["tree"]).normalised()
    params = {p: v for p, v in zip(KEY_PARAMS, key_values(row), strict=True) if v is not None}
    spec = algorithm_spec(str(row["algorithm"]), params)
    # a parameter no column keys (ChanceProbCut's cal) is in the cell's own labels
    for text in cell.get("algorithms") or []:
        name, given = parse_spec(str(text))
        if name == spec.name and given.keys() - set(KEY_PARAMS):
            full = algorithm_spec(name, given)
            if full.key == spec.key:
                spec = full
                break
    budget = row.get("node_budget")
    return RunSettings(
        tree=tree,
        algorithms=(spec,),
        seed=int(ident["seed"]),
        exact=bool(ident["exact"]),
        engine=str(row.get("engine") or "python"),
        node_budget=None if budget is None or budget != budget else int(budget),
        expectimax_limit=2**62,
        size_limit=2**62,
        progress=False,
        # counted per level where the stored row was (and then compared)
        levels_detail=plain(row.get("nodes_by_level")) is not None,
    ), spec


def replay(
    folder: Path, instances: int = 1, cpu: float | None = None
) -> tuple[int, list[Difference]]:
    """Recompute the ``instances`` cheapest instances of the cell in ``folder``; returns (rows
    replayed, differences).

    ``cpu`` (seconds) samples the rows of each instance: the cheapest by their stored CPU time
    first (a row stored without one last), as long as the stored times replayed stay within
    ``cpu``, and always the cheapest one.  The comparison is per row, so a sample of rows
    checks what it replays exactly as all would."""
    import pandas as pd

    from starbench.experiment.compute import compute_instance
    from starbench.record import tablefile
    from starbench.record.rows import label
    from starbench.search.arith import agree

    folder = Path(folder)
    cell = read_json(folder / CELL)
    if cell is None:
        raise FileNotFoundError(f"{folder / CELL}: no cell summary")
    df = tablefile.read(folder / TABLE)
    if "time_budget" in df.columns:
        df = df[df["time_budget"].isna()]
    if not len(df):
        return 0, []
    cost = df.groupby("instance")["nodes"].sum().sort_values(kind="stable")
    out: list[Difference] = []
    done = 0
    for instance in cost.index[:instances]:
        rows = df[df["instance"] == instance]
        if cpu is not None:
            times = rows.get("cpu_seconds", pd.Series(math.nan, rows.index)).astype(float)
            cheapest = times.fillna(math.inf).sort_values(kind="stable")
            rows = rows.loc[cheapest.index[: max(1, int((cheapest.cumsum() <= cpu).sum()))]]
        for rec in rows.to_dict("records"):
            row = {k: plain(v) for k, v in rec.items()}
            settings, spec = _settings(cell, row)
            now = compute_instance(settings, int(instance), (spec,))[0]
            stored_status = {"budget_exceeded": "budget_exceeded", "error": "error"}.get(
                row["status"], "done"
            )
            stored = {**row, "run_status": stored_status}
            name = label(row)
            done += 1
            if (stored["value"] is None) != (now["value"] is None) or (
                now["value"] is not None
                and not agree(now["value"], stored["value"], row["L"], row["U"], False)
            ):
                out.append(
                    Difference(
                        str(folder), int(instance), name, "value", row["value"], now["value"]
                    )
                )
            for f in SAME:
                if f in LEVEL_FIELDS and plain(stored.get(f)) is None:
                    continue  # stored before the counters per level
                if f in stored and plain(stored.get(f)) != plain(now.get(f)):
                    out.append(
                        Difference(str(folder), int(instance), name, f, stored.get(f), now.get(f))
                    )
    return done, out
