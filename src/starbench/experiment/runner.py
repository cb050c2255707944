"""The runner: every algorithm on the same trees, values verified, rows saved as they complete.

Instance ``i`` of a cell is ``RegularTree(settings.tree, settings.seed, i)`` for every algorithm
and every rerun.  Each finished instance's rows are appended to the cell's journal at once, so a
killed run continues where it stopped (``starbench.experiment.storage``).  Statuses are derived
from all rows of an instance when they are shown or tabled (``verify``), so rows added later
(a new algorithm, expectimax added to a study) are verified too:

* ``ok``: the value agrees with expectimax's on that tree (within ``1e-9 * max(1, |L|, |U|)``,
  exactly in exact mode); where expectimax has no row (not requested, or the tree is over
  ``expectimax_limit`` nodes) with the value two other algorithms agree on (``verified_by``
  names them);
* ``mismatch``: it does not agree; ``unverified``: there is nothing to compare with;
* ``budget_exceeded``: the search hit ``node_budget`` or ``time_budget`` (kept, never dropped);
* ``error``: the search raised (the ``error`` column says what).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from starbench.errors import BudgetExceeded, ConfigError, StarbenchError
from starbench.experiment.metadata import metadata
from starbench.experiment.settings import AlgorithmSpec, RunSettings
from starbench.experiment.storage import (
    CELL,
    TABLE,
    TABLE_CSV,
    Journal,
    atomic_write,
    atomic_write_text,
    read_json,
)
from starbench.search import STAT_FIELDS, get_algorithm
from starbench.search.arith import agree, format_value
from starbench.trees.regular import RegularTree

#: The table's leading columns, in order (names fixed by the runner's contract).
COLUMNS = (
    "algorithm",
    "k",
    "after_probe",
    "instance",
    "tree_seed",
    "value",
    "best_move",
    "nodes",
    "leaves",
    "probe_nodes",
    "probe_leaves",
    "chance_cutoffs",
    "probe_cutoffs",
    "decision_cutoffs",
    "resumed",
    "seconds",
    "cpu_seconds",
    "status",
    "expectimax_value",
    "L",
    "U",
    "levels",
)
STATUSES = ("ok", "mismatch", "unverified", "budget_exceeded", "error")


# --------------------------------------------------------------------------- computing rows
def engine_for(settings: RunSettings, name: str) -> str:
    """The engine that runs ``name`` under ``settings`` ("compiled" or "python")."""
    if settings.engine == "python":
        return "python"
    from starbench.compiled.engine import unsupported

    why = unsupported(
        name, exact=settings.exact, debug=settings.debug, time_budget=settings.time_budget
    )
    if why is None:
        return "compiled"
    if settings.engine == "compiled":
        raise ConfigError(
            f"engine: compiled cannot serve {why} ({name}); use engine=auto or engine=python"
        )
    return "python"


class _Instance:
    """Instance ``i`` of a cell, built for each engine only when first needed."""

    def __init__(self, settings: RunSettings, instance: int):
        self.settings = settings
        self.instance = instance
        self._python: RegularTree | None = None
        self._compiled: Any = None

    @property
    def python(self) -> RegularTree:
        if self._python is None:
            s = self.settings
            self._python = RegularTree(s.tree, s.seed, self.instance)
        return self._python

    @property
    def compiled(self) -> Any:
        if self._compiled is None:
            from starbench.compiled.engine import CompiledTree

            s = self.settings
            self._compiled = CompiledTree.from_regular(s.tree, s.seed, self.instance)
        return self._compiled

    def search(self, spec: AlgorithmSpec, engine: str) -> tuple[Any, dict[str, int], str | None]:
        """(result or None, statistics, run status or None) of one search."""
        s = self.settings
        if engine == "compiled":
            from starbench.compiled.engine import run

            try:
                return (
                    run(self.compiled, spec.name, dict(spec.params), node_budget=s.node_budget),
                    {},
                    None,
                )
            except BudgetExceeded as e:
                return None, e.stats.as_dict(), f"budget_exceeded: {e}"  # type: ignore[attr-defined]
        search = None
        try:
            search = get_algorithm(spec.name).make(
                self.python,
                dict(spec.params),
                exact=s.exact,
                debug=s.debug,
                node_budget=s.node_budget,
                time_budget=s.time_budget,
            )
            return search.run(), {}, None
        except BudgetExceeded as e:
            return None, search.stats().as_dict(), f"budget_exceeded: {e}"
        except (StarbenchError, ArithmeticError, RecursionError) as e:
            stats = search.stats().as_dict() if search is not None else {}
            return None, stats, f"error: {type(e).__name__}: {e}"

    def bounds_and_levels(self) -> tuple[Any, Any, int, int]:
        t = self._compiled if self._compiled is not None else self.python
        if t is self._compiled:
            return t.L, t.U, t.levels, t.tree_seed_int
        return t.L, t.U, t.levels, t.tree_seed


def compute_instance(
    settings: RunSettings, instance: int, todo: tuple[AlgorithmSpec, ...]
) -> list[dict[str, Any]]:
    """Search instance ``instance`` with the algorithms ``todo``; one raw row each."""
    inst = _Instance(settings, instance)
    meta = metadata()
    rows = []
    for spec in todo:
        engine = engine_for(settings, spec.name)
        result, stats, failure = inst.search(spec, engine)
        row: dict[str, Any] = {
            "algorithm": spec.name,
            "k": spec.k,
            "after_probe": spec.after_probe,
            "instance": instance,
        }
        if result is not None:
            row.update(
                value=float(result.value),
                best_move=result.best_move,
                value_exact=format_value(result.value, True) if settings.exact else None,
                seconds=result.seconds,
                cpu_seconds=result.cpu_seconds,
                run_status="done",
                error=None,
                **result.stats.as_dict(),
            )
        else:
            status, _, message = failure.partition(": ")
            row.update(
                value=None,
                best_move=None,
                value_exact=None,
                seconds=None,
                cpu_seconds=None,
                run_status=status,
                error=message,
                **stats,
            )
        row["engine"] = engine
        rows.append(row)
    L, U, levels, tseed = inst.bounds_and_levels()
    for row in rows:
        row.update(
            tree_seed=tseed,
            L=float(L),
            U=float(U),
            levels=levels,
            node_budget=settings.node_budget,
            time_budget=settings.time_budget,
            tree_size=settings.tree.size,
            seed=settings.seed,
            exact=settings.exact,
            **meta,
        )
    return rows


def row_key(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row["instance"], row["algorithm"], row["k"], row["after_probe"])


# --------------------------------------------------------------------------- verification
def _exact_value(row: dict[str, Any], exact: bool) -> Any:
    if exact and row.get("value_exact") is not None:
        return Fraction(row["value_exact"])
    return row["value"]


def _present(x: Any) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x)) and str(x) != "<NA>"


def _label(row: Any) -> str:
    params = [f"k={row['k']}"] if _present(row.get("k")) else []
    if _present(row.get("after_probe")):
        params.append(f"after_probe={row['after_probe']}")
    return f"{row['algorithm']}:{','.join(params)}" if params else row["algorithm"]


def verify(rows: list[dict[str, Any]], exact: bool) -> list[dict[str, Any]]:
    """Derive ``status``, ``expectimax_value`` and ``verified_by`` for the rows of one instance."""
    done = [r for r in rows if r["run_status"] == "done"]
    ref_row = next((r for r in done if r["algorithm"] == "expectimax"), None)
    ref, by = None, None
    if ref_row is not None:
        ref, by = _exact_value(ref_row, exact), "expectimax"
    else:
        for i, a in enumerate(done):
            for b in done[i + 1 :]:
                if agree(_exact_value(a, exact), _exact_value(b, exact), a["L"], a["U"], exact):
                    ref, by = _exact_value(a, exact), f"{_label(a)}+{_label(b)}"
                    break
            if ref is not None:
                break
    out = []
    for r in rows:
        r = dict(r)
        if r["run_status"] != "done":
            status = r["run_status"]
        elif ref is None:
            status = "unverified"
        elif agree(_exact_value(r, exact), ref, r["L"], r["U"], exact):
            status = "ok"
        else:
            status = "mismatch"
        r["status"] = status
        r["expectimax_value"] = None if ref_row is None else ref_row["value"]
        r["verified_by"] = by if ref is not None else None
        out.append(r)
    return out


# --------------------------------------------------------------------------- the cell
@dataclass(frozen=True)
class CellOutcome:
    folder: Path
    table: Path
    rows: int
    computed: int
    counts: dict[str, int]

    @property
    def exit_code(self) -> int:
        return 1 if self.counts.get("mismatch") or self.counts.get("error") else 0


DERIVED = ("status", "expectimax_value", "verified_by")


def rows_of_table(path: Path) -> list[dict[str, Any]]:
    """The raw rows of a stored table (its statuses are derived again from them).

    Lets a cell continue from a table whose journal is not there, e.g. the committed study
    results, whose journals are not kept in git."""
    import pandas as pd

    df = pd.read_parquet(path)
    rows = []
    for rec in df.to_dict("records"):
        row = {}
        for key, v in rec.items():
            if key in DERIVED:
                continue
            if v is pd.NA or (isinstance(v, float) and math.isnan(v)):
                v = None
            elif hasattr(v, "item"):
                v = v.item()
            row[key] = v
        status = rec["status"]
        row["run_status"] = status if status in ("budget_exceeded", "error") else "done"
        rows.append(row)
    return rows


def check_folder(settings: RunSettings, folder: Path) -> None:
    """Refuse a folder that holds another cell, or rows from another commit (unless forced)."""
    cell = read_json(folder / CELL)
    if cell is None:
        return
    if cell.get("identity") != _jsonable(settings.cell_identity()):
        raise ConfigError(
            f"{folder}: this folder holds another cell (tree, seed, arithmetic or generator "
            f"version differ); choose a fresh folder (hydra.run.dir=...)"
        )
    commit = metadata()["git_commit"]
    theirs = set(cell.get("git_commits") or [])
    if settings.resume != "force" and theirs and theirs != {commit}:
        raise ConfigError(
            f"{folder}: its rows were made at commit {', '.join(sorted(map(str, theirs)))}, "
            f"this is {commit}; pass resume=force to add to them or choose a fresh folder "
            f"(hydra.run.dir=...)"
        )


def _jsonable(x: Any) -> Any:
    import json

    return json.loads(json.dumps(x))


def run_cell(
    settings: RunSettings,
    folder: Path,
    *,
    overrides: list[str] | None = None,
    out: Callable[[str], None] = print,
) -> CellOutcome:
    """Run (or continue) one cell in ``folder``; write its table; return what happened."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    check_folder(settings, folder)
    journal = Journal(folder)
    if not journal.path.exists() and (folder / TABLE).exists():
        journal.append(rows_of_table(folder / TABLE))  # a table without its journal
    old = journal.read()
    commit = metadata()["git_commit"]
    commits = sorted({str(r.get("git_commit")) for r in old} | {str(commit)})
    _write_cell(folder, settings, "running", overrides, commits, {}, settings.trees)

    wanted = list(settings.algorithms)
    if settings.tree.size > settings.expectimax_limit and any(
        a.name == "expectimax" for a in wanted
    ):
        sys.stderr.write(
            f"starbench: expectimax skipped: the tree has {settings.tree.size} nodes, over "
            f"expectimax_limit={settings.expectimax_limit}; rows are verified by agreement\n"
        )
        wanted = [a for a in wanted if a.name != "expectimax"]
    by_instance: dict[int, dict[tuple[Any, ...], dict[str, Any]]] = {}
    for r in old:
        by_instance.setdefault(r["instance"], {})[row_key(r)] = r
    if settings.engine == "auto":
        from starbench.compiled.engine import unsupported

        for a in wanted:
            why = unsupported(
                a.name, exact=settings.exact, debug=settings.debug, time_budget=settings.time_budget
            )
            if why is not None:
                sys.stderr.write(
                    f"starbench: {a.label} runs on the Python engine "
                    f"(the compiled engine does not serve {why})\n"
                )
    keys = [a.key for a in wanted]
    n = settings.trees
    computed = 0
    while True:
        pending = []
        for i in range(n):
            have = by_instance.get(i, {})
            todo = tuple(a for a in wanted if not _settled(have.get((i, *a.key)), settings))
            if todo:
                pending.append((i, todo))
        if old and pending and computed == 0:
            out(f"resuming {folder}: {len(old)} saved rows kept, {len(pending)} instances to do")
        computed += _compute(settings, pending, journal, by_instance)
        if settings.target_se is None:
            break
        se = _worst_se(by_instance, n, keys)
        if se <= settings.target_se or n >= settings.max_trees:
            out(
                f"{n} trees: largest standard error of the percent of expectimax's leaves "
                f"{se:.2f} points (target {settings.target_se})"
            )
            break
        grow = math.ceil(n * (se / settings.target_se) ** 2 * 1.05)
        n = min(settings.max_trees, max(n + 10, grow))

    table_rows = []
    for i in range(n):
        inst = by_instance.get(i, {})
        rows = [inst[(i, *k)] for k in keys if (i, *k) in inst]
        table_rows.extend(verify(rows, settings.exact))
    df = make_table(table_rows, settings)
    table = folder / TABLE
    atomic_write(table, lambda p: df.to_parquet(p, index=False))
    if settings.csv:
        atomic_write(folder / TABLE_CSV, lambda p: df.to_csv(p, index=False))
    counts = {s: int((df["status"] == s).sum()) for s in STATUSES} if len(df) else {}
    status = "mismatch" if counts.get("mismatch") else "complete"
    _write_cell(folder, settings, status, overrides, commits, counts, n)
    out(f"table: {table} ({len(df)} rows, {computed} computed now)")
    out(summary(df))
    return CellOutcome(folder, table, len(df), computed, counts)


def _settled(row: dict[str, Any] | None, settings: RunSettings) -> bool:
    """Is a saved row final under these settings?  A search stopped by a smaller budget than
    the one asked for now is run again (with the larger budget); every other row is kept."""
    if row is None:
        return False
    if row["run_status"] != "budget_exceeded":
        return True
    for key in ("node_budget", "time_budget"):
        then, now = row.get(key), getattr(settings, key)
        if then is not None and (now is None or now > then):
            return False
    return True


def _compute(
    settings: RunSettings,
    pending: list[tuple[int, tuple[AlgorithmSpec, ...]]],
    journal: Journal,
    by_instance: dict[int, dict[tuple[Any, ...], dict[str, Any]]],
) -> int:
    """Compute the pending instances, journaling each as it completes; returns rows computed."""
    computed = 0
    progress = _Progress(len(pending), settings.progress)
    try:
        for rows in _execute(settings, pending):
            journal.append(rows)
            computed += len(rows)
            i = rows[0]["instance"]
            inst = by_instance.setdefault(i, {})
            for r in rows:
                inst[row_key(r)] = r
            new = {row_key(x) for x in rows}
            for r in verify(list(inst.values()), settings.exact):
                if r["status"] == "mismatch" and row_key(r) in new:
                    sys.stderr.write(
                        f"starbench: MISMATCH instance {i} (tree_seed {r['tree_seed']}): "
                        f"{_label(r)} = {r['value']!r}, reference ({r['verified_by']}) = "
                        f"{r['expectimax_value']!r}\n"
                    )
            progress.update(sum(r.get("nodes") or 0 for r in rows))
    finally:
        progress.close()
    return computed


def _worst_se(
    by_instance: dict[int, dict[tuple[Any, ...], dict[str, Any]]],
    n: int,
    keys: list[tuple[Any, ...]],
) -> float:
    """The largest standard error (percentage points) of the mean percent of expectimax's
    leaves over the first ``n`` instances, among the non-expectimax algorithms."""
    worst = 0.0
    for key in keys:
        if key[0] == "expectimax":
            continue
        pct = []
        for i in range(n):
            inst = by_instance.get(i, {})
            r, ex = inst.get((i, *key)), inst.get((i, "expectimax", None, None))
            if r and ex and r["run_status"] == ex["run_status"] == "done" and ex.get("leaves"):
                pct.append(100.0 * r["leaves"] / ex["leaves"])
        if len(pct) < 2:
            continue  # no percentages (budgets exceeded): nothing to estimate
        mean = sum(pct) / len(pct)
        var = sum((x - mean) ** 2 for x in pct) / (len(pct) - 1)
        worst = max(worst, math.sqrt(var / len(pct)))
    return worst


def _write_cell(
    folder: Path,
    settings: RunSettings,
    status: str,
    overrides: list[str] | None,
    commits: list[str],
    counts: dict[str, int],
    trees: int,
) -> None:
    import json

    cell = {
        "identity": _jsonable(settings.cell_identity()),
        "name": settings.name,
        "status": status,
        "overrides": overrides or [],
        "git_commits": commits,
        "trees": trees,
        "algorithms": [a.label for a in settings.algorithms],
        "counts": counts,
    }
    atomic_write_text(folder / CELL, json.dumps(cell, indent=1, sort_keys=True))


def _execute(settings: RunSettings, pending: list[tuple[int, tuple[AlgorithmSpec, ...]]]):
    """Yield the rows of each pending instance as it completes (in any order)."""
    if settings.n_jobs == 1 or len(pending) <= 1:
        for i, todo in pending:
            yield compute_instance(settings, i, todo)
        return
    with ProcessPoolExecutor(max_workers=settings.n_jobs) as pool:
        futures = [pool.submit(compute_instance, settings, i, todo) for i, todo in pending]
        try:
            for f in as_completed(futures):
                yield f.result()
        finally:
            for f in futures:
                f.cancel()


class _Progress:
    """A tqdm bar on a terminal; plain log lines (about every 10%) otherwise."""

    def __init__(self, total: int, enabled: bool):
        self.total = total
        self.done = 0
        self.nodes = 0
        self.t0 = time.perf_counter()
        self.bar = None
        self.enabled = enabled and total > 0
        self.step = max(1, total // 10)
        if self.enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="tree", file=sys.stderr, dynamic_ncols=True)

    def update(self, nodes: int) -> None:
        self.done += 1
        self.nodes += nodes
        rate = self.nodes / max(time.perf_counter() - self.t0, 1e-9)
        if self.bar is not None:
            self.bar.set_postfix_str(f"{rate / 1e6:.2f} M nodes/s", refresh=False)
            self.bar.update(1)
        elif self.enabled and (self.done % self.step == 0 or self.done == self.total):
            elapsed = time.perf_counter() - self.t0
            eta = elapsed / self.done * (self.total - self.done)
            sys.stderr.write(
                f"starbench: {self.done}/{self.total} instances, "
                f"{rate / 1e6:.2f} M nodes/s, ETA {eta:.0f} s\n"
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# --------------------------------------------------------------------------- the table
def make_table(rows: list[dict[str, Any]], settings: RunSettings):
    """The tidy table: the contract's columns first, then tree parameters and metadata."""
    import pandas as pd

    tree_params = settings.tree.as_dict()
    records = []
    for r in rows:
        rec = {c: r.get(c) for c in COLUMNS}
        rec.update(tree_params)
        rec.update({k: v for k, v in r.items() if k not in rec and k != "run_status"})
        records.append(rec)
    df = pd.DataFrame.from_records(records)
    if len(df):
        df["tree_seed"] = df["tree_seed"].astype("uint64")
        for c in ("k", "best_move"):
            df[c] = df[c].astype("Int64")
        for c in STAT_FIELDS:
            if c in df:
                df[c] = df[c].astype("Int64")
    return df


def summary(df) -> str:
    """Per algorithm: median nodes and leaves, percent of expectimax's leaves (mean over the
    instances where both searches finished, with its standard error), median seconds, rows
    verified."""
    import pandas as pd

    if not len(df):
        return "(no rows)"
    finished = df["status"].isin(["ok", "unverified", "mismatch"])
    ex = df[finished & (df["algorithm"] == "expectimax")].set_index("instance")["leaves"]
    lines = []
    head = (
        "algorithm",
        "rows",
        "ok",
        "median nodes",
        "median leaves",
        "% expectimax leaves",
        "median s",
    )
    lines.append(head)
    for label, g in df.groupby(df.apply(_label, axis=1), sort=False):
        pct = "-"
        if len(ex):
            done = g[finished.loc[g.index]]
            joined = done.set_index("instance")["leaves"].astype(float) / ex.astype(float) * 100
            joined = joined.dropna()
            if len(joined):
                se = joined.std(ddof=1) / math.sqrt(len(joined)) if len(joined) > 1 else 0.0
                pct = f"{joined.mean():.1f} +- {se:.1f}"
        lines.append(
            (
                label,
                str(len(g)),
                str(int((g["status"] == "ok").sum())),
                f"{pd.to_numeric(g['nodes']).median():.0f}",
                f"{pd.to_numeric(g['leaves']).median():.0f}",
                pct,
                f"{pd.to_numeric(g['seconds']).median():.3g}"
                if g["seconds"].notna().any()
                else "-",
            )
        )
    from starbench.textable import text_table

    return text_table(lines)
