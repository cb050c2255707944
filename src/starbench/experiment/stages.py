"""A cell's stages, each a public step: load, pending, compute, write.

* ``load``: what the cell folder holds (``cellfolder.load``: its journals and table, checked),
  as rows by instance and key (``CellRows``);
* ``pending``: the instances that lack a settled row this command asks for (``Pending``, lazy);
* ``compute``: search them (``compute.compute_rows``), journal each instance as it completes
  (``storage``) and verify its rows against every stored row of their instance (its expectimax
  row, else agreement; ``rows.verify``);
* ``write``: the verified table (every row of the cell, the union of its journals, whatever
  subset of algorithms or instances one command asked for) and the cell's summary
  (``cell.json``).

``run_whole`` is the whole cell under its lock, those four steps in order (growing the cell to
a target standard error if asked); the plain runner (``runner.run_cell``) and the shards
(``shards``: each shard loads, asks what is pending and computes into its own journal; the last
one writes) are two callers of these steps.  Statuses are defined in ``starbench.record.rows``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starbench.experiment import cellfolder
from starbench.experiment.compute import FLAT, Held, Progress, compute_rows
from starbench.experiment.settings import AlgorithmSpec, RunSettings
from starbench.games.spec import GameSpec
from starbench.ground.files import alive, atomic_write, file_digest
from starbench.record.coverage import Request, grow, label_of_key, requested, worst_se
from starbench.record.integrity import write_document
from starbench.record.metadata import metadata
from starbench.record.rows import (
    FIELDS,
    STATUSES,
    Row,
    mismatch_line,
    present,
    summary,
    table_chunks,
    verify,
)
from starbench.record.storage import CELL, TABLE, TABLE_CSV, Journal, read_json
from starbench.record.tablefile import write_table
from starbench.search.registry import KEY_PARAMS, is_exact, key_values
from starbench.trees.regular import RegularTreeSpec

Instances = dict[int, dict[tuple[Any, ...], Row]]  # instance -> (algorithm, *KEY_PARAMS) -> row


class CellRows:
    """A cell's rows by instance and key (``Instances``: the key is the row's key without its
    instance, (algorithm, *KEY_PARAMS), one shared tuple per distinct value), and its journals'
    run headers by run number (``runs``)."""

    def __init__(self, runs: dict[int, dict[str, Any]], rows: list[Row] | None = None):
        self.runs = runs
        self.by_instance: Instances = {}
        self._keys: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self.loaded = 0  # rows held when the run started
        for r in rows or []:
            self.add(r)
        self.loaded = len(rows or [])

    def key(self, r: Row) -> tuple[Any, ...]:
        """The row's key without its instance (one shared tuple per distinct value)."""
        key = (r.algorithm, *key_values(r))  # type: ignore[attr-defined]
        return self._keys.setdefault(key, key)

    def add(self, r: Row) -> tuple[Any, ...]:
        """Hold ``r`` (replacing the row of its instance and key, if any); its key."""
        key = self.key(r)
        self.by_instance.setdefault(r.instance, {})[key] = r  # type: ignore[attr-defined]
        return key

    def held(self) -> dict[int, dict[tuple[Any, ...], tuple[bool, Any]]]:
        """What the cell holds (``coverage.Held``): per instance and key, finished and leaves."""
        return {
            i: {k: (r.run_status == "done", r.leaves) for k, r in inst.items()}  # type: ignore[attr-defined]
            for i, inst in self.by_instance.items()
        }


def load(
    settings: RunSettings,
    folder: Path,
    warn: Callable[[str], None],
    shard: bool = False,
    owned: str | None = None,
) -> CellRows:
    """The load step: every row and run header the cell folder holds, checked
    (``cellfolder.load``; ``shard``: a shard's view, every journal of the cell; ``owned``: the
    shard journal whose lock the caller holds)."""
    runs, rows = cellfolder.load(settings, folder, warn, shard=shard, owned=owned)
    return CellRows(runs, rows)


def pending(
    settings: RunSettings,
    cell: CellRows,
    n: int | None = None,
    shards: int = 1,
    selected: tuple[int, ...] = (0,),
) -> Pending:
    """The pending step: the instances ``0 .. n - 1`` (``n``: the settings' trees) that lack a
    settled row this command asks for (of the ``selected`` of ``shards`` shards)."""
    n = settings.trees if n is None else n

    def is_settled(r: Row | None) -> bool:
        return settled(r, settings, cell.runs)

    return Pending(cell.by_instance, requested(settings), n, is_settled, shards, selected)


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


@dataclass(frozen=True)
class CellRun:
    """What one command's run of a cell shares across its stages (load, compute, write): the
    settings and the cell's folder, the command's overrides and context (``command``), where it
    speaks (``out``, ``warn``), the commits the cell's rows were computed at and its request."""

    settings: RunSettings
    folder: Path
    overrides: list[str] | None
    command: dict[str, Any] | None
    out: Callable[[str], None]
    warn: Callable[[str], None]
    commits: list[str]
    request: Request


def _stderr(line: str) -> None:
    sys.stderr.write(line + "\n")


def mark(folder: Path, status: str, message: str) -> None:
    """Set ``cell.json``'s status (best effort: the disk may be full; readers also take a
    ``running`` cell whose process is gone as interrupted, ``cell_status``)."""
    try:
        cell = read_json(folder / CELL) or {}
        if cell.get("status") == "running":
            cell.update(status=status, error=message)
            write_document(folder / CELL, cell)
    except OSError:
        pass


def cell_status(cell: dict[str, Any]) -> str | None:
    """A ``cell.json``'s status as it is now: ``running`` only while its process lives."""
    status = cell.get("status")
    pid = cell.get("pid")
    if status == "running" and isinstance(pid, int) and not alive(pid, cell.get("host")):
        return "interrupted"
    return status


def run_whole(
    settings: RunSettings,
    folder: Path,
    overrides: list[str] | None,
    out: Callable[[str], None],
    warn: Callable[[str], None],
    command: dict[str, Any] | None = None,
    earlier: dict[tuple[Any, ...], int] | None = None,
) -> CellOutcome:
    """The whole cell in ``folder``, under its lock (the caller holds it): load, then compute
    what is pending (growing the cell to ``target_se`` if asked), then write its table and
    ``cell.json``.  ``earlier``: rows this command computed before, by key (the shards that
    ran it), counted as computed now in what it says."""
    log = RunLog(folder / RUN_LOG)
    out, warn = log.tee(out), log.tee(warn)
    cellfolder.check_folder(settings, folder, locked=True)
    cell = load(settings, folder, warn)
    runs = cell.runs
    meta = metadata()
    commits = sorted({str(h["meta"].get("git_commit")) for h in runs.values()})
    commits = sorted(set(commits) | {str(meta["git_commit"])})
    request = Request.of(settings)
    this = CellRun(settings, folder, overrides, command, out, warn, commits, request)
    write_cell_json(this, "running", {}, settings.trees)

    wanted = requested(settings)
    if request.skipped:
        warn(f"starbench: {request.skipped}")
    held = held_engines(cell.by_instance)  # the engines of the rows stored before this run
    note_engines(settings, wanted, warn, held)
    if (line := unchecked_line(wanted, cell.by_instance)) is not None:
        warn(line)
    keys = [a.key for a in wanted]
    # every key the cell holds, in the order they were stored, then the request's new ones
    order = key_order(cell.by_instance, keys)
    run = max(runs, default=-1) + 1
    header = run_header(settings, run, meta, overrides, command)
    journal = Journal(folder)
    n = settings.trees
    fresh: dict[tuple[Any, ...], int] = dict(earlier or {})  # rows computed now, by key
    computed = sum(fresh.values())
    printed: set[tuple[Any, ...]] = set()  # the mismatches shown as they were computed
    try:
        while True:
            todo = pending(settings, cell, n)
            if cell.loaded and todo and not fresh:
                again = levels_again(settings, cell, n)
                kept = f"{cell.loaded - again} saved rows kept" + (
                    f", {again} searched again to record their counters per level "
                    f"(levels_detail=true; same trees and counters, times measured anew)"
                    if again
                    else ""
                )
                out(f"resuming {folder}: {kept}, {len(todo)} instances to do")
            if todo and run not in runs:
                journal.append_header(header)
                runs[run] = header
            if todo and not fresh:
                announce(settings, wanted, len(todo), warn, held)
            computed += compute(settings, todo, journal, run, cell, printed, warn, fresh)
            if settings.target_se is None:
                break
            se = worst_se(cell.held(), n, keys)
            if se <= settings.target_se or n >= settings.max_trees:
                out(
                    f"{n} trees: largest standard error of the percent of expectimax's leaves "
                    f"{se:.2f} points (target {settings.target_se})"
                )
                break
            n = grow(n, se, settings.target_se, settings.max_trees)
    finally:
        journal.close()
    return write(this, cell, order, n, computed, fresh, printed)


def write(
    this: CellRun,
    cell: CellRows,
    order: list[tuple[Any, ...]],
    n: int,
    computed: int,
    fresh: dict[tuple[Any, ...], int],
    printed: set[tuple[Any, ...]],
) -> CellOutcome:
    """The write step: the cell's table from every row it holds (the whole cell, whatever this
    command asked for; its rows handed over instance by instance), ``cell.json`` with the
    table's checksum, the mismatches not shown yet and the summary."""
    settings, folder, out, warn = this.settings, this.folder, this.out, this.warn
    by_instance, runs = cell.by_instance, cell.runs
    table = folder / TABLE
    order = list(dict.fromkeys([*order, *(k for inst in by_instance.values() for k in inst)]))
    held = {label_of_key(k): sum(1 for inst in by_instance.values() if k in inst) for k in order}
    chunks = table_chunks(_instances(by_instance, order), runs, settings.exact, settings.cell)
    written: list[Any] = []
    if settings.csv:
        atomic_write(
            table,
            lambda p: atomic_write(
                folder / TABLE_CSV, lambda c: written.append(write_table(chunks, p, c))
            ),
        )
    else:
        atomic_write(table, lambda p: written.append(write_table(chunks, p)))
    kept = written[0]
    digests = {TABLE: file_digest(table)}
    if settings.csv:
        digests[TABLE_CSV] = file_digest(folder / TABLE_CSV)
    statuses = kept["status"]
    rows_written = len(statuses)
    for i in (i for i, st in enumerate(statuses) if st == "mismatch"):
        r = {c: v[i] for c, v in kept.items()}
        key = (r["instance"], r["algorithm"], *key_values({c: _none(v) for c, v in r.items()}))
        if key not in printed:
            warn(mismatch_line(r, r["expectimax_value"], r["verified_by"], saved=True))
    counts = {s: statuses.count(s) for s in STATUSES} if rows_written else {}
    if counts.get("error"):  # the run exits 1: say why, once
        j = statuses.index("error")
        warn(
            f"starbench: {counts['error']} of {rows_written} rows are errors (status error); the "
            f"first: {kept['algorithm'][j]} on instance {kept['instance'][j]}: {kept['error'][j]}"
        )
    status = "mismatch" if counts.get("mismatch") else "complete"
    write_cell_json(this, status, counts, n, held, digests)
    out(f"table: {table} ({rows_written} rows, {computed} computed now)")
    out(summary(kept, {label_of_key(k): c for k, c in fresh.items()}))
    return CellOutcome(folder, table, rows_written, computed, counts)


def shrink_line(folder: Path, row: Row) -> str:
    """Under an algorithm's first mismatch in a cell: the command that reduces the instance's
    tree to a 1-minimal one on which it still disagrees (``starbench shrink``)."""
    import shlex

    from starbench.record.rows import label
    from starbench.search.registry import ALGORITHMS, BUILTIN

    name = row.algorithm  # type: ignore[attr-defined]
    info = ALGORITHMS.get(name)
    plugin = [] if name in BUILTIN or info is None else ["--plugin", info.cls.__module__]
    argv = ["starbench", "shrink", str(folder), "--instance", str(row.instance)]  # type: ignore[attr-defined]
    return "  shrink it: " + shlex.join([*argv, "--algorithm", label(row), *plugin])


def run_header(
    settings: RunSettings,
    run: int,
    meta: dict[str, Any],
    overrides: list[str] | None,
    command: dict[str, Any] | None,
) -> dict[str, Any]:
    """A run's header in a journal: the cell, the run's number, fields, budgets and metadata."""
    return {
        "cell": settings.cell,
        "run": run,
        "fields": list(FIELDS),
        "identity": settings.cell_identity(),
        "budgets": {"node_budget": settings.node_budget, "time_budget": settings.time_budget},
        "levels_detail": settings.levels_detail,  # its rows hold the counters per level
        "meta": meta,
        "overrides": list(overrides or []),  # so the cell's command outlives its cell.json
        "command": command,
    }


RUN_LOG = "run.log"


class RunLog:
    """A cell's ``run.log``: every line the runner shows, appended as it is shown."""

    def __init__(self, path: Path):
        self.path = path

    def tee(self, show: Callable[[str], None]) -> Callable[[str], None]:
        def both(text: str) -> None:
            show(text)
            try:
                with open(self.path, "a", encoding="utf-8") as f:
                    f.write(text.rstrip("\n") + "\n")
            except OSError:
                pass  # the log is a convenience; the table and journal are the record

        return both


def announce(
    settings: RunSettings,
    wanted: list[AlgorithmSpec],
    todo: int,
    warn: Callable[[str], None],
    held: Held | None = None,
) -> None:
    """The first progress line, at once; and the kernel, loaded (or compiled) before timing."""
    from starbench.experiment.compute import engine_for, workers_line

    if todo > 1 and (line := workers_line(settings.n_jobs)) is not None:
        warn(line)
    chosen = {a: engine_for(settings, a, held) for a in wanted}
    engines = sorted(set(chosen.values()))
    if settings.progress:
        warn(f"starbench: {todo} instances to compute ({', '.join(engines)} engine)")
    if isinstance(settings.tree, GameSpec):
        # the game's oracle, if it has one, before any compile: a request over the oracle's
        # memory limit is refused in one line at once, not after a minute of compiling
        from starbench.oracles.decisions import game_oracle

        game_oracle(settings.tree.game, settings.oracle_memory_limit)
    if "compiled" in engines:
        # in this process, before any worker starts and before the progress line's clock: a
        # compile (the first on a machine) is said whatever the settings, and the workers then
        # load the kernel from numba's cache
        from starbench.compiled.support import compiling_line
        from starbench.engines import game_model, prepare

        def before(compiling: bool, seconds: float) -> None:
            if compiling:
                warn(compiling_line(seconds))
            elif settings.progress:
                warn("starbench: loading the compiled kernel (compiled once, then cached)")

        prepare(
            before,
            lambda seconds: (
                settings.progress
                and seconds > 2
                and warn(f"starbench: kernel ready in {seconds:.1f} s")
            ),
            [a for a, engine in chosen.items() if engine == "compiled"],
            model=None if isinstance(settings.tree, RegularTreeSpec) else game_model(settings.tree),
        )


def key_order(by_instance: Instances, asked: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The keys a cell holds, then those ``asked`` adds: in the order most of its instances hold
    them (the most common sequence; a few instances whose rows were computed again, after a
    journal line was lost, do not move a key), merged with the order the request lists them (a
    stable topological order; a conflict goes to the stored order), then any other key stored,
    in the order first stored."""
    from collections import Counter

    sequences = Counter(tuple(inst) for inst in by_instance.values())
    base = max(sequences, key=sequences.__getitem__, default=())  # ties: the first seen
    first: dict[tuple[Any, ...], int] = {}
    after: dict[tuple[Any, ...], set[tuple[Any, ...]]] = {}
    for seq in (base, asked):
        prev = None
        for k in seq:
            first.setdefault(k, len(first))
            after.setdefault(k, set())
            if prev is not None and prev != k:
                after[prev].add(k)
            prev = k
    before = {k: 0 for k in first}
    for nxt in after.values():
        for n in nxt:
            before[n] += 1
    out: list[tuple[Any, ...]] = []
    left = dict(first)
    while left:
        ready = [k for k in left if before[k] == 0] or list(left)  # a conflict: stored first
        k = min(ready, key=left.__getitem__)
        del left[k]
        out.append(k)
        for n in after[k]:
            before[n] -= 1
    return list(dict.fromkeys([*out, *(k for inst in by_instance.values() for k in inst)]))


def _none(x: Any) -> Any:
    from starbench.record.rows import present

    return x if present(x) else None


class Pending:
    """The instances ``0 .. n - 1`` that lack a settled row of a wanted key, with what each
    lacks, iterated lazily (a cell of 10^12 trees holds no list of them): its length comes from
    the instances held, never from ``range(n)``.  With ``shards`` > 1 only the instances of the
    ``selected`` shards (instance i belongs to shard i mod shards)."""

    def __init__(
        self,
        by_instance: Instances,
        wanted: list[AlgorithmSpec],
        n: int,
        settled: Callable[[Row | None], bool],
        shards: int = 1,
        selected: tuple[int, ...] = (0,),
    ):
        self.by_instance, self.wanted, self.n, self.settled = by_instance, wanted, n, settled
        self.shards, self.selected = shards, tuple(sorted(set(selected))) if shards > 1 else (0,)
        mine = set(self.selected)
        done = sum(1 for i in by_instance if i < n and i % shards in mine and not self._todo(i))
        total = sum((n - s + shards - 1) // shards for s in self.selected if s < n)
        self.count = total - done

    def _todo(self, i: int) -> tuple[AlgorithmSpec, ...]:
        have = self.by_instance.get(i)
        if not have:
            return tuple(self.wanted)
        return tuple(a for a in self.wanted if not self.settled(have.get(a.key)))

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[tuple[int, tuple[AlgorithmSpec, ...]]]:
        import heapq

        ranges = [range(s, self.n, self.shards) for s in self.selected]
        for i in heapq.merge(*ranges) if len(ranges) > 1 else ranges[0]:
            todo = self._todo(i)
            if todo:
                yield i, todo


def _instances(by_instance: Instances, order: list[tuple[Any, ...]]) -> Iterator[list[Row]]:
    """Every row of the cell, instance by instance (keys in ``order``), each instance taken out
    of ``by_instance`` as it is handed over (so a large cell is not held twice while its table
    is written): the table is the whole cell, whatever this command asked for."""
    for i in sorted(by_instance):
        inst = by_instance.pop(i)
        yield [inst[k] for k in order if k in inst]


def note_engines(
    settings: RunSettings,
    wanted: list[AlgorithmSpec],
    warn: Callable[[str], None],
    held: Held | None = None,
) -> None:
    if settings.engine != "auto":
        return
    from starbench.engines import python_engine_notes
    from starbench.experiment.compute import engine_choice

    chosen = [(a.label, engine_choice(settings, a, held)) for a in wanted]
    for line in python_engine_notes(chosen):
        warn(line)


def held_engines(by_instance: Instances) -> Held:
    """The engine each request's stored rows in the cell ran on (the most rows' engine), by
    its key: ``engine=auto`` keeps it when the cell grows (``compute.engine_choice``)."""
    counts: dict[tuple[Any, ...], dict[str, int]] = {}
    for inst in by_instance.values():
        for key, row in inst.items():
            engine = getattr(row, "engine", None)
            if engine in ("compiled", "python"):
                by = counts.setdefault(key, {})
                by[engine] = by.get(engine, 0) + 1
    return {key: max(by, key=lambda e: (by[e], e)) for key, by in counts.items()}


def unchecked_line(wanted: list[AlgorithmSpec], by_instance: Instances) -> str | None:
    """One line where every exact search of the cell (asked for now or held) uses a
    transposition table: no row is the reference (``record.rows.reference_value``), so their
    values are checked against nothing; else None."""
    exact = [a for a in wanted if a.exact]
    if not exact or any(not a.own.get("tt") for a in exact):
        return None
    tt = KEY_PARAMS.index("tt") + 1  # a key is (algorithm, *key_values)
    for inst in by_instance.values():
        for key in inst:
            if not key[tt] and is_exact(key[0], dict(zip(KEY_PARAMS, key[1:], strict=True))):
                return None
    return (
        f"starbench: every exact search here uses a transposition table "
        f"({', '.join(a.label for a in exact)}): no search without one checks their values "
        f"(rows unverified); add {{name: expectimax}} to the algorithms to check them"
    )


def settled(row: Row | None, settings: RunSettings, runs: dict[int, dict[str, Any]]) -> bool:
    """Is a saved row final under these settings?  A search stopped by a smaller budget than
    the one asked for now is run again (with the larger budget), and so is a finished one
    without the counters per level that ``levels_detail=true`` asks for (``lacks_levels``);
    every other row is kept."""
    if row is None:
        return False
    if lacks_levels(row, settings, runs):
        return False
    if row.run_status != "budget_exceeded":  # type: ignore[attr-defined]
        return True
    then = runs.get(row.run, {}).get("budgets", {})  # type: ignore[attr-defined]
    for key in ("node_budget", "time_budget"):
        before, now = then.get(key), getattr(settings, key)
        if before is not None and (now is None or now > before):
            return False
    return True


def lacks_levels(row: Row, settings: RunSettings, runs: dict[int, dict[str, Any]]) -> bool:
    """``levels_detail=true`` asks for the counters per level, which are a run option, not part
    of the cell: a finished row stored without them by a run that did not ask for them is
    searched again (a run that asked and got none: the search does not count them)."""
    return (
        settings.levels_detail
        and row.run_status == "done"  # type: ignore[attr-defined]
        and not present(row.nodes_by_level)  # type: ignore[attr-defined]
        and not runs.get(row.run, {}).get("levels_detail")  # type: ignore[attr-defined]
    )


def levels_again(settings: RunSettings, cell: CellRows, n: int) -> int:
    """The stored rows of instances below ``n`` that ``levels_detail=true`` searches again
    (``lacks_levels``)."""
    if not settings.levels_detail:
        return 0
    return sum(
        1
        for i, inst in cell.by_instance.items()
        if i < n
        for r in inst.values()
        if lacks_levels(r, settings, cell.runs)
    )


def compute(
    settings: RunSettings,
    todo: Pending,
    journal: Journal,
    run: int,
    cell: CellRows,
    printed: set[tuple[Any, ...]],
    warn: Callable[[str], None],
    fresh: dict[tuple[Any, ...], int],
) -> int:
    """The compute step: the pending instances ``todo``, each journaled as it completes (run
    ``run`` of ``journal``) and held in ``cell``; its rows verified against every row of their
    instance, a mismatch said at once (``printed`` records which); returns the rows computed
    (and counts them by key in ``fresh``)."""
    computed = 0
    flat: list[Any] = []  # per instance: the one value of all its leaves, or None
    unscored = 0  # game rows an oracle of the game leaves unscored
    progress = Progress(len(todo), settings.progress, warn)
    try:
        for raw in compute_rows(settings, todo, held_engines(cell.by_instance)):
            flat.append(next((r[FLAT] for r in raw if FLAT in r), None))
            unscored += sum(1 for r in raw if r.get("oracle") is None)
            rows = [Row.of({**r, "run": run}) for r in raw]
            journal.append(settings.cell, run, (r.values() for r in rows))
            computed += len(rows)
            i = rows[0].instance  # type: ignore[attr-defined]
            for r in rows:
                key = cell.add(r)
                fresh[key] = fresh.get(key, 0) + 1
            inst = cell.by_instance[i]
            now = {r.key for r in rows}
            for r, status, ref, by, _pct, _decision in verify(list(inst.values()), settings.exact):
                if status == "mismatch" and r.key in now:
                    warn(mismatch_line(r, ref, by))
                    if not any(k[1:] == r.key[1:] for k in printed):  # once per algorithm
                        warn(shrink_line(journal.path.parent, r))
                    printed.add(r.key)
            progress.update(sum(r.nodes or 0 for r in rows))  # type: ignore[attr-defined]
    finally:
        progress.close()
    if unscored and (line := horizon_line(settings)) is not None:
        warn(f"starbench: {unscored} rows left unscored: {line}")
    if flat and all(v is not None for v in flat) and len(set(flat)) == 1:
        from starbench.games.source import flat_line

        game = settings.tree
        warn(flat_line(flat[0], getattr(game, "heuristic", None), game.game, "tree.heuristic"))
    return computed


def horizon_line(settings: RunSettings) -> str | None:
    """Why a game's oracle leaves rows unscored near the game's horizon, where it has one."""
    from starbench.games.spec import GameSpec

    if not isinstance(settings.tree, GameSpec):
        return None
    from starbench.oracles.decisions import game_oracle

    oracle = game_oracle(settings.tree.game)
    line = getattr(oracle, "horizon_line", None)
    return f"{settings.tree.game}: {line()}" if line is not None else None


def write_cell_json(
    this: CellRun,
    status: str,
    counts: dict[str, int],
    trees: int,
    held: dict[str, int] | None = None,
    tables: dict[str, str] | None = None,
) -> None:
    """``cell.json``: what the cell is, its status, the last command's request (``request``;
    ``trees``: the size it reached), what the table holds (rows per label) and the SHA-256 of
    each table file (``tables``; kept from the last write until a new table replaces it)."""
    folder, settings, request, command = this.folder, this.settings, this.request, this.command
    if tables is None:
        tables = (read_json(folder / CELL) or {}).get("tables") or {}
    cell = {
        "cell": settings.cell,
        "identity": settings.cell_identity(),
        "name": settings.name,
        "status": status,
        "overrides": this.overrides or [],
        "git_commits": this.commits,
        "trees": trees,
        "algorithms": list(request.algorithms),
        "request": request.as_json(),
        "holds": held or {},
        "counts": counts,
        "tables": tables,
    }
    if command is not None:  # what the command had beside its overrides (run.command_context)
        cell["command"] = command
    if status == "running":  # who runs it (``cell_status``: a dead process is interrupted)
        import os
        import socket

        cell.update(pid=os.getpid(), host=socket.gethostname())
    write_document(folder / CELL, cell)
