"""Recheck every committed row that used a transposition table, value by value, at the current
code: each row is searched again (its engine, budget and parameters, as ``replay`` does) and its
value compared with the instance's reference (expectimax without a table, else the one exact
search without one, ``record.rows.reference_value``) and with the stored value, and every
counter with the stored one.

    python scripts/audit_tables.py                      # every committed cell with a table
    python scripts/audit_tables.py results/transposition --n-jobs 2

Prints, per cell, the rows rechecked, the values that differ from the reference (must be 0) and
from the stored ones, and the rows whose counters moved (with the fields), then a total line.
Exit 1 when a value differs from the reference.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from starbench.experiment.compute import compute_instance
from starbench.experiment.replay import SAME, _plain, _settings
from starbench.record import tablefile
from starbench.record.rows import label, reference_value
from starbench.record.storage import CELL, TABLE, read_json
from starbench.search.arith import agree
from starbench.search.stats import LEVEL_FIELDS

ROOT = Path(__file__).resolve().parents[1]


def cells_with_a_table(paths: list[Path]) -> list[Path]:
    out = []
    for p in paths:
        for table in sorted(p.glob("**/" + TABLE)) if p.is_dir() else []:
            df = tablefile.read(table)
            if "tt" in df.columns and (df["tt"].fillna(0) > 0).any():
                out.append(table.parent)
    return out


def audit_instance(folder: str, instance: int) -> list[dict[str, Any]]:
    """Every row with a table of one instance, searched again: what moved."""
    cell = read_json(Path(folder) / CELL)
    df = tablefile.read(Path(folder) / TABLE)
    rows = [
        {k: _plain(v) for k, v in r.items()}
        for r in df[df["instance"] == instance].to_dict("records")
    ]
    plain = [
        {**r, "run_status": "done"}
        for r in rows
        if r["status"] in ("ok", "unverified", "mismatch") and not r.get("tt")
    ]
    ref, by, _alone = reference_value(plain, False)
    out = []
    for row in rows:
        if not row.get("tt") or row.get("time_budget") is not None:
            continue
        settings, spec = _settings(cell, row)
        now = compute_instance(settings, int(instance), (spec,))[0]
        moved = [
            f
            for f in SAME
            if f in row
            and not (f in LEVEL_FIELDS and row.get(f) is None)
            and _plain(row.get(f)) != _plain(now.get(f))
        ]
        value = now["value"]
        out.append(
            {
                "instance": instance,
                "label": label(row),
                "wrong": ref is not None
                and value is not None
                and not agree(value, ref, row["L"], row["U"], False),
                "reference": by,
                "value_moved": value is not None
                and row["value"] is not None
                and not agree(value, row["value"], row["L"], row["U"], False),
                "moved": {f: (row.get(f), now.get(f)) for f in moved},
                "value": value,
                "ref": ref,
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path, default=[ROOT / "results"])
    ap.add_argument("--n-jobs", type=int, default=1)
    a = ap.parse_args(argv)
    from joblib import Parallel, delayed

    total: Counter[str] = Counter()
    c0, t0 = time.process_time(), time.time()
    for folder in cells_with_a_table(a.paths):
        df = tablefile.read(folder / TABLE)
        instances = sorted(int(i) for i in df.loc[df["tt"].fillna(0) > 0, "instance"].unique())
        results = Parallel(n_jobs=a.n_jobs)(
            delayed(audit_instance)(str(folder), i) for i in instances
        )
        found = [r for part in results for r in part]
        wrong = [r for r in found if r["wrong"]]
        moved = [r for r in found if r["moved"]]
        fields = Counter(f for r in moved for f in r["moved"])
        print(
            f"{folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder}: "
            f"{len(found)} rows with a table rechecked, {len(wrong)} values differ from the "
            f"reference, {sum(r['value_moved'] for r in found)} from the stored value, "
            f"{len(moved)} rows' counters moved"
            + (f" ({', '.join(f'{f} {n}' for f, n in fields.most_common())})" if moved else "")
        )
        for r in wrong:
            print(
                f"  WRONG instance {r['instance']} {r['label']}: {r['value']}, "
                f"{r['reference']} {r['ref']}"
            )
        for r in moved:
            print(
                f"  moved instance {r['instance']} {r['label']}: "
                + ", ".join(
                    f"{f} {a} -> {b}"
                    for f, (a, b) in r["moved"].items()
                    if f in ("nodes", "leaves")
                )
            )
        total.update(rows=len(found), wrong=len(wrong), moved=len(moved), cells=1)
    print(
        f"{total['cells']} cells, {total['rows']} rows with a table, {total['wrong']} values "
        f"differ from the reference, {total['moved']} rows' counters moved; "
        f"{time.process_time() - c0:.0f} s CPU here, {time.time() - t0:.0f} s wall"
    )
    return 1 if total["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
