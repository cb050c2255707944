"""Shards: one cell's instances split across jobs (``shards=N``, optionally ``shard=[i,...]``).

Instance i belongs to shard ``i mod N``, so every row of an instance (and its verification
against the instance's expectimax row) is computed by one shard.  ``shards`` is not part of the
cell: the folder, the digest and every row are those of the unsharded cell.

A shard holds only its own lock (``.lock.shard-<i>``; the cell lock ``.lock`` is held by an
unsharded run, and a shard refuses to start while it is) and appends only to its own journal,
``rows.shard-<i>-of-<N>.jsonl`` (journal version 3, every line checksummed, as ``rows.jsonl``);
it never writes ``table.parquet`` or ``cell.json``.  When a shard has computed its instances it
takes the cell lock (waiting for another shard that holds it) and, if every instance of the cell
then holds every row asked for, in any journal (the cell's own, or shard journals of any N:
rows are keyed by instance, so changing N never loses work), writes the table and ``cell.json``
from all of them, as an unsharded run would (``stages.run_whole``, the whole-cell rule).
Otherwise the last shard to finish does, or a later ``run`` (sharded or not) or ``collect``.

``shards`` above the number of trees is capped at it, with one line; ``shards`` with
``target_se`` is refused (``RunSettings``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from starbench.experiment import cellfolder, stages
from starbench.experiment.settings import RunSettings
from starbench.ground.overrides import without_shard
from starbench.record.coverage import Request
from starbench.record.rows import Row
from starbench.record.storage import (
    CELL,
    JOURNAL,
    TABLE,
    CellBusy,
    CellLock,
    Journal,
    read_json,
    shard_journal,
    shard_journals,
    shard_lock,
)

#: Seconds a finished shard waits for the cell lock (another shard writing the table holds it).
FINISH_WAIT_S = 600.0


def effective_shards(settings: RunSettings, warn: Callable[[str], None]) -> int:
    """``shards``, capped at the number of trees (one line says so)."""
    if settings.shards > settings.trees:
        warn(
            f"starbench: shards={settings.shards} is more than trees={settings.trees}: capped "
            f"at {settings.trees} shards (one instance each)"
        )
        return settings.trees
    return settings.shards


def run_shards(
    settings: RunSettings,
    folder: Path,
    overrides: list[str] | None,
    out: Callable[[str], None],
    warn: Callable[[str], None],
    command: dict[str, Any] | None,
) -> Any:
    """Compute the selected shards of the cell in ``folder`` one after another, then write the
    cell's table if every shard is done.  Returns the stages' ``CellOutcome``."""
    log = stages.RunLog(folder / stages.RUN_LOG)
    show, say = log.tee(out), log.tee(warn)
    n = effective_shards(settings, say)
    fresh: dict[tuple[Any, ...], int] = {}  # the rows computed now, by key, every shard
    beyond = [i for i in settings.selected_shards if i >= n] if settings.shard else []
    for shard in beyond:  # named by shard=[...] (a few); every shard: a range, capped below
        say(f"starbench: shard {shard} has no instances (shards capped at {n})")
    for shard in settings.shards_below(n):
        _run_shard(settings, folder, shard, n, overrides, show, say, command, fresh)
    return finish(settings, folder, n, fresh, overrides, out, warn, command)


def _run_shard(
    settings: RunSettings,
    folder: Path,
    shard: int,
    n: int,
    overrides: list[str] | None,
    out: Callable[[str], None],
    warn: Callable[[str], None],
    command: dict[str, Any] | None,
    fresh: dict[tuple[Any, ...], int],
) -> int:
    """Compute the instances of one shard the cell lacks, into the shard's own journal (the
    stages load, pending and compute); the rows computed (counted by key in ``fresh``)."""
    from starbench.record.coverage import requested
    from starbench.record.metadata import metadata

    lock = CellLock(folder, shard_lock(shard))
    try:
        lock.acquire()
    except CellBusy as e:
        raise cellfolder.busy(folder, "hydra.run.dir", f"shard {shard}: {e}") from None
    try:
        cellfolder.check_unlocked(folder, shards=False)  # an unsharded run computes the cell
        cellfolder.check_folder(settings, folder, locked=True)
        name = shard_journal(shard, n)
        own = Journal(folder, name)
        if own.path.exists():  # its bad lines set aside (the shard holds this journal's lock)
            contents = own.read(Row.of)
            if contents.bad or contents.orphans:
                warn(cellfolder.bad_journal_line(own.path, contents))
            if contents.bad or contents.orphans or contents.needs_rewrite:
                own.rewrite(contents)
        # its lines that disagree with the verified table are set aside there (``owned``)
        cell = stages.load(settings, folder, warn, shard=True, owned=name)
        wanted = requested(settings)
        pending = stages.pending(settings, cell, settings.trees, n, (shard,))
        if not pending:
            out(f"shard {shard} of {n}: nothing to compute")
            return 0
        journal = Journal(folder, name)
        run = max(journal.read().runs, default=-1) + 1  # the journal numbers its own runs
        journal.append_header(stages.run_header(settings, run, metadata(), overrides, command))
        stages.announce(settings, wanted, len(pending), warn, stages.held_engines(cell.by_instance))
        try:
            computed = stages.compute(settings, pending, journal, run, cell, set(), warn, fresh)
        finally:
            journal.close()
        out(
            f"shard {shard} of {n}: {computed} rows computed now (journal {name}; "
            f"{_process_cpu():.2f} s CPU in this process so far)"
        )
        return computed
    finally:
        lock.release()


def _process_cpu() -> float:
    """User + system CPU seconds of this process so far (the shards' overhead is measured by
    it: ``scripts/shard_overhead.py``)."""
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def missing_shards(settings: RunSettings, folder: Path, n: int) -> list[int]:
    """The shards (of ``n``) whose instances lack a row asked for, in every journal of the
    cell."""
    cell = stages.load(settings, folder, lambda _line: None, shard=True)
    missing: set[int] = set()
    for i, _todo in stages.pending(settings, cell):  # one pass, every shard
        missing.add(i % n)
        if len(missing) == n:
            break
    return sorted(missing)


def finish(
    settings: RunSettings,
    folder: Path,
    n: int,
    fresh: dict[tuple[Any, ...], int],
    overrides: list[str] | None,
    out: Callable[[str], None],
    warn: Callable[[str], None],
    command: dict[str, Any] | None,
) -> Any:
    """Under the cell lock: the cell's table and ``cell.json`` from every journal when every
    shard is done (``cell.json`` records the overrides without ``shard``, so its command
    reruns the whole cell, and its summary counts ``fresh``, the rows these shards computed);
    else one line naming the shards still to compute, with the command that computes them
    unless a launcher runs this shard among others (it is still running them)."""
    computed = sum(fresh.values())
    show = stages.RunLog(folder / stages.RUN_LOG).tee(out)
    lock = CellLock(folder)
    try:
        lock.acquire(wait=FINISH_WAIT_S)
    except CellBusy as e:
        show(f"shard(s) done; the cell lock is held ({e}): its holder writes the table")
        return stages.CellOutcome(folder, folder / TABLE, 0, computed, {})
    try:
        missing = missing_shards(settings, folder, n)
        if missing:
            if (command or {}).get("sweep"):  # the launcher runs the others: no command
                rest = "the last shard to finish writes it"
            else:
                rest = f"still to compute: {missing_command(overrides, folder, command, missing)}"
            show(
                f"{n - len(missing)} of {n} shards complete; the cell's table is written when "
                f"every shard is ({rest})"
            )
            return stages.CellOutcome(folder, folder / TABLE, 0, computed, {})
        whole = replace(settings, shards=1, shard=None)
        if written_since(whole, folder):
            show("every shard done: the table is already written from every journal")
            return stages.CellOutcome(folder, folder / TABLE, 0, computed, {})
        before = _process_cpu()
        done = stages.run_whole(
            whole, folder, without_shard(overrides), out, warn, command, earlier=fresh
        )
        show(
            f"every shard done: the table written from their journals in "
            f"{_process_cpu() - before:.2f} s CPU"
        )
        return replace(done, computed=computed)
    finally:
        lock.release()


def written_since(settings: RunSettings, folder: Path) -> bool:
    """Is the cell's table already written, for this request, from every row its journals
    hold?  (Shards finishing together: each finds nothing missing, the first to take the cell
    lock writes the table; the others must not write it again, which would journal the table
    and renumber its runs.)  ``cell.json`` says ``complete`` for the same request and number of
    trees, and the table is newer than every journal (a journal line appended after the table
    was written makes it older)."""
    summary = read_json(folder / CELL) or {}
    table = folder / TABLE
    if not (
        summary.get("status") == "complete"
        and summary.get("trees") == settings.trees
        and summary.get("request") == Request.of(settings).as_json()
        and table.exists()
    ):
        return False
    journals = [*shard_journals(folder), folder / JOURNAL]
    newest = max((p.stat().st_mtime_ns for p in journals if p.exists()), default=0)
    return table.stat().st_mtime_ns > newest


def missing_command(
    overrides: list[str] | None, folder: Path, command: dict[str, Any] | None, missing: list[int]
) -> str:
    """The command that computes exactly the ``missing`` shards of the cell in ``folder``."""
    from starbench.record.repair import rerun_command

    listed = f"shard=[{','.join(map(str, missing))}]"
    return rerun_command([*without_shard(overrides), listed], folder, command)


def shards_of(overrides: list[str], folder: Path) -> int:
    """The number of shards a cell was asked in (its ``shards=`` override, else the largest N
    of its shard journals)."""
    for o in reversed(overrides):
        key, _, value = o.lstrip("+~").partition("=")
        if key == "shards" and value.strip().isdigit():
            return int(value)
    return max((int(p.stem.rsplit("-", 1)[1]) for p in shard_journals(folder)), default=1)


def recorded_command(folder: Path) -> tuple[list[str], dict[str, Any] | None]:
    """The overrides and command context of the last run header of the cell's shard journals
    (a sharded cell has no ``cell.json`` until every shard is done)."""
    best: tuple[float, list[str], dict[str, Any] | None] = (-1.0, [], None)
    for path in shard_journals(folder):
        head = Journal(folder, path.name).read().runs
        if head and path.stat().st_mtime > best[0]:
            last = head[max(head)]
            best = (path.stat().st_mtime, list(last.get("overrides") or []), last.get("command"))
    return best[1], best[2]


def missing_of_request(folder: Path, request: Any, n: int) -> list[int]:
    """The shards (of ``n``) whose instances lack a finished row of a key ``request`` asks for,
    in every journal of the cell (``collect``'s view: no settings, only what was asked)."""
    from starbench.search.registry import key_values

    held: dict[int, set[tuple[Any, ...]]] = {}
    for name in [JOURNAL, *(p.name for p in shard_journals(folder))]:
        for row in Journal(folder, name).read().rows:
            if row.get("run_status") in ("done", "budget_exceeded"):
                key = (str(row["algorithm"]), *key_values(row))
                held.setdefault(int(row["instance"]), set()).add(key)
    keys = set(request.keys())
    lacking = {i % n for i in range(request.trees) if not keys <= held.get(i, set())}
    return sorted(lacking)
