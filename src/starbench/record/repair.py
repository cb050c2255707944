"""The commands starbench prints to repair a cell (one place): the full command that reruns it.

A cell's command comes from the best record that is intact, in this order: its sweep's
``sweep.json`` (the overrides the sweep gave this cell's folder), its ``cell.json``, the run
headers of its journal (``rows.jsonl`` version 3 records the overrides of each run), and, where
none of them holds, the cell's identity read from its table's rows (every tree key, the seed,
the arithmetic, the algorithms and the number of trees, written out as overrides).  Folder
overrides (``hydra.run.dir``, ``hydra.sweep.*``) are replaced by the cell's own folder.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from starbench.ground.overrides import LAUNCHER, launcher_overrides, outline_algorithms
from starbench.record.integrity import read_document
from starbench.record.rows import plain
from starbench.record.storage import CELL, JOURNAL, MANIFEST, TABLE, Journal


def rerun_command(overrides: list[str], folder: Path, command: dict[str, Any] | None = None) -> str:
    """The command that computes (or continues) the cell in ``folder``, as printed for the user
    to run from anywhere: ``starbench run [-cd DIR] [-cn NAME] OVERRIDES`` (algorithm lists in
    their short form) with what ``command`` records (``run.command_context``): a cell of a sweep
    runs alone (``sweeps=[]``, so an experiment's own sweeps are not launched again) into
    ``hydra.run.dir=FOLDER``; a cell that ran under a launcher runs under it again (``-m``, its
    ``hydra/launcher`` and ``hydra.launcher.*`` keys) into ``hydra.sweep.dir=`` its parent
    folder, where it lands under its own name."""
    command = command or {}
    flags = []
    if command.get("config_dir"):
        flags += ["-cd", str(command["config_dir"])]
    if command.get("config_name"):
        flags += ["-cn", str(command["config_name"])]
    launcher = launcher_overrides([*(command.get("launcher") or []), *overrides])
    keep = [
        outline_algorithms(o)
        for o in overrides
        if not o.lstrip("+~").startswith(("hydra.run.dir=", "hydra.sweep.", *LAUNCHER))
        and not o.lstrip("+~").startswith("sweeps=")
    ]
    if launcher:
        where = [*launcher, f"hydra.sweep.dir={Path(folder).parent}"]
        return shlex.join(["starbench", "run", "-m", *flags, *keep, "sweeps=[]", *where])
    alone = ["sweeps=[]"] if command.get("sweep") else []
    return shlex.join(["starbench", "run", *flags, *keep, *alone, f"hydra.run.dir={folder}"])


def sweep_entry(folder: Path) -> dict[str, Any] | None:
    """The entry of ``folder`` in its parent's ``sweep.json`` (matched by the folder's name, so
    a copied study still finds its cells), or None."""
    manifest = read_document(Path(folder).parent / MANIFEST).data or {}
    for entry in manifest.get("cells") or []:
        if Path(str(entry.get("folder"))).name == Path(folder).name:
            return dict(entry)
    return None


def command_of(entry: dict[str, Any] | None, cell: dict[str, Any] | None) -> dict[str, Any]:
    """The command context of a cell: its sweep entry's (a sweep's cell, also one recorded
    before contexts were), else its ``cell.json``'s."""
    if entry is not None:
        return dict(entry.get("command") or {"sweep": True})
    return dict((cell or {}).get("command") or {})


def cell_overrides(folder: Path) -> tuple[list[str], dict[str, Any]] | None:
    """(overrides, command context) that rerun the cell in ``folder``, from its most reliable
    record (module docstring), or None where nothing records them."""
    folder = Path(folder)
    entry = sweep_entry(folder)
    if entry is not None and entry.get("overrides"):
        return list(entry["overrides"]), command_of(entry, None)
    cell = read_document(folder / CELL).data
    if cell and cell.get("overrides"):
        return list(cell["overrides"]), command_of(None, cell)
    journal = Journal(folder)
    if journal.path.exists():
        runs = journal.read().runs
        for n in sorted(runs, reverse=True):
            if runs[n].get("overrides") is not None:
                return list(runs[n]["overrides"]), dict(runs[n].get("command") or {})
    found = identity_overrides(folder / TABLE)
    return None if found is None else (found, {})


def _value(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    text = str(v)
    return text if text.replace("_", "").replace("-", "").isalnum() else f'"{text}"'


def identity_overrides(table: Path) -> list[str] | None:
    """Overrides that reproduce a table's cell from its rows (every tree key, seed, exact,
    algorithms, trees), or None when the table cannot be read at all."""
    import pandas as pd

    try:  # unverified (its checksum is what cannot be trusted): read, never adopted
        df = pd.read_parquet(table)
    except Exception:  # noqa: BLE001 - nothing to read the identity from
        return None
    if not len(df):
        return None
    first = df.iloc[0]
    out: list[str] = []
    if "game" in df.columns and isinstance(first.get("game"), str):
        out += _game_overrides(df, first)
    else:
        from dataclasses import fields

        from starbench.trees.regular import RegularTreeSpec

        for f in fields(RegularTreeSpec):
            if f.name not in df.columns:
                continue
            v = plain(first[f.name])
            if f.name == "skew" and "skew_text" in df.columns:  # its exact text, not a float
                v = plain(first["skew_text"]) or v
            out.append(f"tree.{f.name}={_value(v)}")
    out += [f"seed={int(first['seed'])}", f"exact={_value(bool(first['exact']))}"]
    from starbench.record.coverage import held_of_table, label_of_key

    held = held_of_table(df)
    keys = list(dict.fromkeys(k for inst in held.values() for k in inst))
    out.append(f"algorithms=[{','.join(label_of_key(k) for k in keys)}]")
    out.append(f"trees={max(held) + 1}")
    return out


def _game_overrides(df: Any, first: Any) -> list[str]:
    """A game cell's tree keys from its rows.  A row's ``position`` is the cell's only where
    every instance starts there (a sampled cell's rows each hold their own start; a one-tree
    cell is taken as sampled)."""
    from dataclasses import fields

    from starbench.games.spec import GameSpec

    keys = {
        f.name: plain(first[f.name])
        for f in fields(GameSpec)
        if f.name in df.columns and f.name != "version"
    }
    if "position" in keys and (df["instance"].nunique() < 2 or df["position"].nunique() != 1):
        keys["position"] = None
    return ["tree=game", *(f"tree.{k}={_value(v)}" for k, v in keys.items())]


def repair_hint(folder: Path) -> str:
    """How to repair a cell whose ``cell.json`` is damaged or missing: the run rebuilds it from
    the journal where one exists; otherwise restore it, or recompute the cell."""
    folder = Path(folder)
    recorded = cell_overrides(folder)
    command = rerun_command(*recorded[:1], folder, recorded[1]) if recorded is not None else None
    journal = folder / JOURNAL
    if journal.exists() and journal.stat().st_size:
        how = command or "the command that made it"
        return f"the same run rebuilds it from the journal ({JOURNAL}): {how}"
    aside = folder.with_name(folder.name + ".unverified")
    again = (
        f"mv {shlex.quote(str(folder))} {shlex.quote(str(aside))} && {command}"
        if command
        else "the command that made it, in a fresh folder"
    )
    restore = f"git checkout -- {shlex.quote(str(folder / CELL))}"
    return f"restore it with {restore}, or recompute with {again}"


def unverifiable_line(folder: Path, doc: Any) -> str:
    """One line: a table whose ``cell.json`` is damaged or missing cannot be verified, and the
    repair (``repair_hint``)."""
    return (
        f"{doc.path}: {doc.why()}, so {Path(folder) / TABLE} cannot be verified against its "
        f"checksum and is not used; {repair_hint(folder)}"
    )
