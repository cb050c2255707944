"""A cell's folder: what it may hold, and reading the rows it holds.

The rules (one place):

* a folder holds one cell.  Every run header and row of its journal names the cell's digest
  (``record.identity.cell_digest``), and a table kept without its journal carries the cell's tree
  parameters, seed, arithmetic and generator version in every row.  A folder holding rows of
  another cell is refused, before anything runs, with one line naming the folder (exit 2):
  ``cell.json`` is only a summary, so deleting or truncating it changes nothing;
* rows made at another git commit are refused unless ``resume=force``;
* a ``table.parquet`` that cannot be read or fails its checksum (``tablefile.read``: the SHA-256
  ``cell.json`` records, and every page's CRC), in a folder without a journal, is moved aside to
  ``table.parquet.corrupt`` (one line says so) and the cell is computed again: nothing else is
  lost, and nothing of the damaged table is used.  With a journal the table is simply written
  again from it;
* an output folder that cannot be created (a file in the way, no permission, a link to nothing)
  is refused before anything runs;
* one process computes a cell at a time: the runner holds the folder's lock (``storage.CellLock``)
  while it runs, and a second run into the same folder is refused with one line.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

from starbench.errors import ConfigError
from starbench.experiment.settings import RunSettings
from starbench.record import columns, tablefile
from starbench.record.identity import cell_digest, cell_identity, normalised_identity
from starbench.record.integrity import read_document
from starbench.record.metadata import metadata
from starbench.record.repair import unverifiable_line
from starbench.record.rows import META, Row, plain
from starbench.record.storage import (
    CELL,
    JOURNAL,
    JOURNAL_VERSION,
    LOCK,
    TABLE,
    CellBusy,
    CellLock,
    Journal,
    shard_journals,
    shard_lock,
)
from starbench.trees.regular import RegularTreeSpec

CORRUPT = ".corrupt"
FRESH = "choose a fresh folder (hydra.run.dir=... or hydra.sweep.dir=...)"


def check_writable(folder: Path, key: str = "hydra.run.dir") -> None:
    """Refuse an output folder that cannot be created or written, without creating it (a
    temporary folder is made and removed in its nearest existing ancestor)."""
    import tempfile

    folder = Path(folder)
    hint = FRESH if key.startswith("hydra.") else f"choose another path for {key}"
    probe = folder
    while not probe.exists() and probe.parent != probe:
        if probe.is_symlink():  # a link to nothing: mkdir would fail on it
            raise ConfigError(
                f"{key}: {folder}: {probe} is a symbolic link to {os.readlink(probe)}, which "
                f"does not exist; {hint}"
            )
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        where = "is" if probe == folder else f"lies below {probe}, which is"
        raise ConfigError(f"{key}: {folder} {where} a file, not a folder; {hint}")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".starbench-probe-", dir=probe))
    except OSError as e:
        raise ConfigError(
            f"{key}: {folder}: cannot write in {probe} ({e.strerror}); {hint}"
        ) from None


def check_unlocked(
    folder: Path, key: str = "hydra.run.dir", *, shards: bool = True, cell: bool = True
) -> None:
    """Refuse a cell folder another starbench run is writing: its cell lock (``cell``) or the
    lock of one of its shards (``shards``) is held."""
    names = [LOCK] if cell else []
    if shards:
        names += sorted(p.name for p in Path(folder).glob(shard_lock(0)[:-1] + "*"))
    for name in names:
        if not (Path(folder) / name).exists():
            continue
        try:
            CellLock(folder, name).acquire().release()
        except CellBusy as e:
            what = f"shard {name.rsplit('-', 1)[1]}: " if name != LOCK else ""
            raise busy(folder, key, what + str(e)) from None


class FolderBusy(ConfigError):
    """A cell folder another run is computing (never marked failed: it is that run's)."""


def busy(folder: Path, key: str, holder: str) -> ConfigError:
    return FolderBusy(
        f"{key}: {folder} is being computed by another starbench run ({holder}); wait for it "
        f"to finish, or {FRESH}"
    )


def _table_identity(path: Path, verified: bool = True) -> tuple[set[str], set[str]] | None:
    """(cell digests, git commits) of a stored table's rows, or None when it cannot be read or
    fails its checksum (``tablefile.read``; ``verified=False``: its pages' CRCs only, for a
    refusal, never to adopt its rows)."""
    names = [f.name for f in fields(RegularTreeSpec)]
    try:
        whole = tablefile.read(path, verified=verified)
        if "game" in whole.columns and whole["game"].notna().any():
            # a game cell: no generator parameters to recompute it from
            games = whole[whole["game"].notna()]
            return set(games["cell"].astype(str)), {
                str(c) for c in whole["git_commit"].dropna().unique()
            }
        text = ["skew_text"] if "skew_text" in whole.columns else []
        df = whole[[*names, *text, "seed", "exact"]].copy()  # names hold generator_version
        if text:  # skew is stored as a number, its exact text beside it
            df["skew"] = df.pop("skew_text")
        commits = whole["git_commit"]
    except Exception:  # noqa: BLE001 - any unreadable or corrupt table is handled by the caller
        return None
    cells = set()
    for rec in df.drop_duplicates().to_dict("records"):
        tree = {k: (v.item() if hasattr(v, "item") else v) for k, v in rec.items() if k in names}
        version = tree.pop("generator_version")
        ident = cell_identity(
            RegularTreeSpec(**tree).normalised(), rec["seed"], rec["exact"], version
        )
        cells.add(cell_digest(ident))
    return cells, {str(c) for c in commits.dropna().unique()}


def _refuse_other_cell(folder: Path, where: str) -> ConfigError:
    return ConfigError(
        f"{folder}: this folder holds another cell (its {where} was computed for other tree "
        f"parameters, seed, arithmetic or generator version); {FRESH}"
    )


def check_folder(
    settings: RunSettings, folder: Path, key: str = "hydra.run.dir", *, locked: bool = False
) -> None:
    """Refuse (before anything runs) a folder holding another cell, rows from another commit
    unless forced, one another run is computing (``locked``: this process holds its lock), or a
    table that cannot be verified (its ``cell.json`` damaged or missing, and no journal to
    rebuild it from).  A corrupt table is not refused here: the run recovers it."""
    folder = Path(folder)
    check_writable(folder, key)
    if not folder.is_dir():
        return
    if not locked:
        check_unlocked(folder, key)
    cell = settings.cell
    journal = Journal(folder)
    commits: set[str] = set()
    doc = read_document(folder / CELL)
    summary = doc.data
    if summary is not None and summary.get("identity") is not None:
        if cell_digest(normalised_identity(summary["identity"])) != cell:
            raise _refuse_other_cell(folder, CELL)
        commits = set(summary.get("git_commits") or [])
    if journal.path.exists() and journal.path.stat().st_size:
        head = journal.first_header()
        if head is not None and head.get("cell") != cell:
            raise _refuse_other_cell(folder, JOURNAL)
        if head is None or summary is None:
            contents = journal.read()
            if contents.legacy and not contents.runs:
                raise ConfigError(
                    f"{folder / JOURNAL}: rows in an older format, which do not record their "
                    f"cell; move it away to continue from {TABLE} (it keeps every finished "
                    f"row), or {FRESH}"
                )
            if contents.cells - {cell}:
                raise _refuse_other_cell(folder, JOURNAL)
            if summary is None:
                commits = {str(r["meta"].get("git_commit")) for r in contents.runs.values()}
    elif (folder / TABLE).exists():
        got = _table_identity(folder / TABLE, verified=False)
        if got is not None:
            cells, table_commits = got
            if cells - {cell}:
                raise _refuse_other_cell(folder, TABLE)
            commits = commits or table_commits
        if summary is None:
            raise ConfigError(unverifiable_line(folder, doc))
    _check_commits(settings, folder, commits)


def _check_commits(settings: RunSettings, folder: Path, commits: set[str]) -> None:
    commit = metadata()["git_commit"]
    if settings.resume != "force" and commits and commits != {str(commit)}:
        raise ConfigError(
            f"{folder}: its rows were made at commit {', '.join(sorted(commits))}, "
            f"this is {commit}; pass resume=force to add to them or {FRESH}"
        )


def load(
    settings: RunSettings,
    folder: Path,
    warn: Callable[[str], None],
    *,
    shard: bool = False,
    owned: str | None = None,
) -> tuple[dict[int, dict[str, Any]], list[Row]]:
    """The run headers and rows a folder holds for this cell: those of its journal (else of its
    verified table), then those of its shard journals (``shard_rows``).  ``shard``: the caller
    is a shard, which holds only its shard's lock, so the cell's own files are read and never
    repaired or rewritten (the next run holding the cell lock does that); ``owned``: the shard
    journal whose lock it holds."""
    runs, rows = _load_cell(settings, folder, warn, readonly=shard)
    first = max(runs, default=-1) + 1
    more_runs, more_rows = shard_rows(settings, folder, warn, first_run=first, owned=owned)
    runs.update(more_runs)
    return runs, [*rows, *more_rows]


def verified_table_rows(settings: RunSettings, folder: Path) -> dict[tuple[Any, ...], Row]:
    """The rows of the cell's table by key, when ``cell.json`` is intact and names it and the
    table's checksum verifies (else none: nothing to hold a journal against)."""
    doc = read_document(folder / CELL)
    table = folder / TABLE
    if not (doc.intact and (doc.data or {}).get("tables") and table.exists()):
        return {}
    try:
        tablefile.verify(table)
    except tablefile.CorruptTable:
        return {}
    return {r.key: r for r in rows_of_table(table, settings)[1]}


def shard_rows(
    settings: RunSettings,
    folder: Path,
    warn: Callable[[str], None],
    first_run: int = 0,
    owned: str | None = None,
) -> tuple[dict[int, dict[str, Any]], list[Row]]:
    """The runs and rows of every shard journal of ``folder`` (``rows.shard-I-of-N.jsonl``, of
    any N: rows are keyed by instance, so a cell split another way adopts them row by row).
    Each journal numbers its own runs; here they are numbered on from ``first_run``, journal by
    journal in name order.  A journal of another cell is refused; its bad lines are never
    adopted (one line says so; the shard that owns the journal computes their rows again).  A
    line that disagrees with the verified table is never adopted either; in the journal named
    ``owned`` (whose lock the caller holds) it is set aside in ``<journal>.rejected``."""
    runs: dict[int, dict[str, Any]] = {}
    rows: list[Row] = []
    journals = shard_journals(folder)
    table = verified_table_rows(settings, folder) if journals else {}
    for path in journals:
        contents = Journal(folder, path.name).read(Row.of)
        if contents.cells - {settings.cell} or (contents.legacy and not contents.runs):
            raise _refuse_other_cell(folder, path.name)
        if contents.bad or contents.orphans:
            warn(bad_journal_line(path, contents, owned=False))
        if (forged := disagreeing(contents.rows, table)) and path.name == owned:
            lines = set_aside(contents, forged, Journal(folder, path.name))
            warn(forged_line(path, lines[0].number, len(lines), aside=True))
        elif forged:  # another shard's journal: its shard sets the lines aside
            first = contents.row_lines[forged[0]].number
            warn(forged_line(path, first, len(forged), aside=False))
            drop = set(forged)
            contents.rows[:] = [r for i, r in enumerate(contents.rows) if i not in drop]
        renumber = {}
        for n in sorted(contents.runs):
            renumber[n] = first_run + len(runs)
            runs[renumber[n]] = {**contents.runs[n], "run": renumber[n]}
        for r in contents.rows:
            r.run = renumber[r.run]  # type: ignore[attr-defined]
            rows.append(r)
    return runs, rows


def _load_cell(
    settings: RunSettings, folder: Path, warn: Callable[[str], None], *, readonly: bool = False
) -> tuple[dict[int, dict[str, Any]], list[Row]]:
    """The run headers and rows of the cell's own journal, else of its verified table, which is
    then written into a new journal (not when ``readonly``).  Refuses another cell's rows.

    The journal's bad lines (failing their checksum, not decoding) and the rows of a run whose
    header is bad are never adopted: one line names them, they are computed again.  A version-2
    journal is adopted once, unchecked (one line), and rewritten as version 3.  A journal that
    lacks rows its verified table holds keeps the table's rows (one line; silent for the row of
    a torn last line)."""
    folder = Path(folder)
    journal = Journal(folder)
    cell = settings.cell
    doc = read_document(folder / CELL)
    if journal.path.exists() and journal.path.stat().st_size:
        contents = journal.read(Row.of)
        if (contents.legacy and not contents.runs) or (contents.cells and contents.cells != {cell}):
            check_folder(settings, folder, locked=True)  # raises with the right message
            raise _refuse_other_cell(folder, JOURNAL)
        if contents.version != JOURNAL_VERSION:
            warn(
                f"starbench: {journal.path}: journal v{contents.version}, unchecked: "
                f"{len(contents.rows)} rows adopted (continued as version {JOURNAL_VERSION})"
            )
        if contents.bad or contents.orphans:
            warn(bad_journal_line(journal.path, contents))
        if readonly:
            return contents.runs, contents.rows
        if contents.needs_rewrite:
            journal.rewrite(contents)
        if doc.damaged:
            warn(f"starbench: {doc.path}: {doc.why()}; rebuilt from the journal's run headers")
        elif doc.intact and not (contents.bad or contents.orphans):
            _keep_table_rows(settings, folder, doc.data or {}, contents, journal, warn)
        return contents.runs, contents.rows
    table = folder / TABLE
    if not table.exists():
        return {}, []
    got = _table_identity(table)
    if got is None and readonly:
        return {}, []  # the next run holding the cell lock moves it aside
    if got is None:
        aside = table.with_name(TABLE + CORRUPT)
        os.replace(table, aside)
        warn(
            f"starbench: {table}: the table cannot be read or fails its checksum, and there is "
            f"no journal to rebuild it from; moved it to {aside.name} and computing the cell "
            f"again"
        )
        return {}, []
    if got[0] - {cell}:
        raise _refuse_other_cell(folder, TABLE)
    runs, rows = rows_of_table(table, settings)
    if not readonly:
        _journal_rows(journal, cell, runs, rows)
    return runs, rows


def _journal_rows(
    journal: Journal, cell: str, runs: dict[int, dict[str, Any]], rows: list[Row]
) -> None:
    for n, head in runs.items():
        journal.append_header(head)
        journal.append(cell, n, (r.values() for r in rows if r.run == n))  # type: ignore[attr-defined]
    journal.close()


def bad_journal_line(path: Path, contents: Any, owned: bool = True) -> str:
    """One line naming a journal's bad lines and what becomes of them (``owned``: the caller
    holds the journal's lock and sets them aside; else another shard's journal, read as is)."""
    from starbench.record.integrity import bad_lines_note

    if not owned:
        then = (
            f"their rows come from the other journals or the table, else are computed again "
            f"(the shard owning {path.name} sets the lines aside when it runs)"
        )
        return bad_lines_note(path, contents.bad or contents.orphans, then)
    orphans = len(contents.orphans)
    then = "their rows are computed again" if len(contents.bad) > 1 else "its row is computed again"
    if orphans and contents.bad:
        then = f"they and the {orphans} rows of their runs are computed again"
    elif orphans:
        then = f"the {orphans} rows of runs whose header is lost are computed again"
    bad = contents.bad or contents.orphans
    return bad_lines_note(path, bad, f"{then} (the lines are kept in {path.name}.rejected)")


def _keep_table_rows(
    settings: RunSettings,
    folder: Path,
    summary: dict[str, Any],
    contents: Any,
    journal: Journal,
    warn: Callable[[str], None],
) -> None:
    """The journal against its cell's verified table.  A journal line whose row disagrees with
    the table's row for the same search (an edit with its checksum recomputed) loses: the
    verified table wins, the line is set aside in ``<journal>.rejected`` and one line says so.
    A journal holding fewer rows than the table (lines removed by hand, a journal copied from
    elsewhere): the table's other rows are kept, journaled again, and one line says so."""
    table = folder / TABLE
    if not table.exists() or not summary.get("tables"):
        return
    try:
        tablefile.verify(table)
    except tablefile.CorruptTable:
        return  # the table is damaged: the journal rewrites it
    first = max(contents.runs, default=-1) + 1
    runs, rows = rows_of_table(table, settings, first_run=first)
    replaced = _table_wins(contents, {r.key: r for r in rows}, journal, warn)
    keys = {r.key for r in contents.rows}
    missing = [r for r in rows if r.key not in keys]
    if not missing:
        return
    used = {r.run for r in missing}  # type: ignore[attr-defined]
    runs = {n: h for n, h in runs.items() if n in used}
    _journal_rows(journal, settings.cell, runs, missing)
    contents.runs.update(runs)
    contents.rows.extend(missing)
    lost = len(missing) - replaced  # the replaced rows' line was said already
    if not lost or (contents.torn and lost == 1):
        return  # the torn last line's row: a crash's expected loss, silent as the line is
    warn(
        f"starbench: {journal.path}: lacks {lost} rows that {TABLE} holds (verified by "
        f"its checksum); kept them from the table and journaled them again"
    )


#: The fields a journal row must share with the verified table's row for the same search: what
#: two runs of it share (``columns.outcomes``) and the table holds, but the counters per level,
#: which a later run with ``levels_detail=true`` adds to a row stored without them.
MEASURED: tuple[str, ...] = tuple(
    f
    for f in columns.outcomes()
    if columns.by_name()[f].table and columns.by_name()[f].group != "level"
)


def disagreeing(rows: list[Row], table_rows: dict[tuple[Any, ...], Row]) -> list[int]:
    """The indexes of the journal ``rows`` whose search the verified table holds with other
    ``MEASURED`` values (an edit with its checksum recomputed)."""
    return [
        i
        for i, r in enumerate(rows)
        if (t := table_rows.get(r.key)) is not None
        and any(getattr(r, f) != getattr(t, f) for f in MEASURED)
    ]


def set_aside(contents: Any, forged: list[int], journal: Journal) -> list[Any]:
    """Move the journal lines of the rows ``forged`` to ``<journal>.rejected`` (the journal
    rewritten without them; the caller holds its lock) and drop their rows from ``contents``;
    the lines moved."""
    from dataclasses import replace

    if not forged:
        return []
    lines = [
        replace(contents.row_lines[i], problem="disagrees with the verified table") for i in forged
    ]
    keep = set(range(len(contents.rows))) - set(forged)
    contents.bad.extend(lines)
    journal.rewrite(contents)
    contents.bad.clear()
    contents.rows[:] = [r for i, r in enumerate(contents.rows) if i in keep]
    contents.row_lines[:] = [ln for i, ln in enumerate(contents.row_lines) if i in keep]
    return lines


def _table_wins(
    contents: Any, table_rows: dict[tuple[Any, ...], Row], journal: Journal, warn: Any
) -> int:
    """Set aside the journal lines whose rows disagree with the verified table's (``MEASURED``)
    and drop their rows from ``contents`` (the table's rows are then journaled again as
    missing ones); how many."""
    forged = set_aside(contents, disagreeing(contents.rows, table_rows), journal)
    if not forged:
        return 0
    warn(forged_line(journal.path, forged[0].number, len(forged), aside=True))
    return len(forged)


def forged_line(path: Path, first: int, count: int, aside: bool) -> str:
    """One line: ``count`` lines of journal ``path`` (``first`` the first) disagree with the
    verified table and lose to it (``aside``: moved to ``<journal>.rejected``)."""
    then = f"set aside in {path.name}.rejected" if aside else "never adopted"
    return (
        f"starbench: {path}: {count} line(s) (line {first} first) disagree with {TABLE}, whose "
        f"checksum verifies: the table's rows are kept, the lines {then}"
    )


def rows_of_table(
    path: Path, settings: RunSettings, first_run: int = 0
) -> tuple[dict[int, dict[str, Any]], list[Row]]:
    """The rows of a stored table and its runs (one per distinct budgets and metadata, numbered
    from ``first_run``), so a cell continues from a table whose journal is not there (the
    committed study results).  Read in batches of the columns it needs."""
    import pyarrow.parquet as pq

    from starbench.record.rows import FIELDS

    pf = pq.ParquetFile(path, page_checksum_verification=True)
    have = set(pf.schema_arrow.names)
    shared = [c for c in (*META, "node_budget", "time_budget") if c in have]
    present = [c for c in FIELDS if c in have]
    ident = settings.cell_identity()
    runs: dict[int, dict[str, Any]] = {}
    run_of: dict[tuple[Any, ...], int] = {}
    rows = []
    for batch in pf.iter_batches(batch_size=8192, columns=[*present, "status", *shared]):
        cols = batch.to_pydict()
        for j in range(batch.num_rows):
            key = tuple(plain(cols[c][j]) for c in shared)
            n = run_of.get(key)
            if n is None:
                n = run_of[key] = first_run + len(run_of)
                at = dict(zip(shared, key, strict=True))
                runs[n] = {
                    "cell": settings.cell,
                    "run": n,
                    "fields": list(FIELDS),
                    "identity": ident,
                    "budgets": {b: at.get(b) for b in ("node_budget", "time_budget")},
                    "meta": {m: at.get(m) for m in META},
                }
            values = {c: plain(cols[c][j]) for c in present}
            status = cols["status"][j]
            values["run_status"] = status if status in ("budget_exceeded", "error") else "done"
            values["run"] = n
            rows.append(Row.of(values))
    return runs, rows
