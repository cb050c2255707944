"""``starbench export``: one instance (a generated tree or a game position) as a JSON tree that
``starbench solve`` reads.

Every row carries what regenerates its tree: the tree parameters, ``seed``, ``instance`` and
``generator_version``.  The export walks the tree in its searched order (orderings applied) with
exact probabilities and values, so ``starbench solve`` reproduces the row's value, best move and
node counts.  A game row's tree is its cell's game (``cell.json``, or the row's game columns in
a collected table) from the row's start position to the cell's depth: the same value and best
move; its node counts equal the row's only where the row searched without iterative deepening
or a transposition table.  A game tree is walked, never sized beforehand: one over the export
limit is refused once the walk passes it.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

from starbench.errors import InputError, short
from starbench.ground.limits import EXPORT_MAX_NODES
from starbench.record.rows import plain, present
from starbench.record.storage import TABLE
from starbench.trees.explicit import tree_to_json
from starbench.trees.generators import GENERATORS
from starbench.trees.regular import GENERATOR_VERSION, RegularTree, RegularTreeSpec

DEFAULT_EXPORT_LIMIT = EXPORT_MAX_NODES


def row_of(
    path: Path, instance: int | None, row: int | None, cell: str | None = None
) -> dict[str, Any]:

    path = Path(path)
    table = path / TABLE if path.is_dir() else path
    if not table.exists():
        raise InputError(f"{path}: no result table here (expected a cell folder or a .parquet)")
    from starbench.record import tablefile

    try:
        df = tablefile.read(table)
    except tablefile.CorruptTable as e:  # a damaged table is refused, never exported
        raise InputError(str(e)) from None
    if row is not None:
        if not 0 <= row < len(df):
            raise InputError(f"--row: must be in [0, {len(df) - 1}], got {row}")
        return _row(df, row)
    instance = 0 if instance is None else instance
    hits = df[df["instance"] == instance]
    if cell is not None:
        if "cell" not in df.columns:
            raise InputError(f"{table}: the table has no column 'cell' (made before it existed)")
        hits = hits[hits["cell"] == cell]
    if not len(hits):
        raise InputError(
            f"{table}: no row with instance {instance}" + (f" in cell {cell}" if cell else "")
        )
    names = [f.name for f in fields(RegularTreeSpec)]
    cells = (
        hits["cell"].unique()
        if "cell" in hits.columns
        else hits[[*names, "seed"]].drop_duplicates()
    )
    if len(cells) > 1:
        shown = (
            ", ".join(map(str, hits["cell"].unique()[:6]))
            if "cell" in hits.columns
            else f"{len(cells)} cells"
        )
        raise InputError(
            f"{table}: instance {instance} is in {len(cells)} cells ({shown}): name one with "
            f"--cell ID, or export from its cell folder"
        )
    return _row(df, int(hits.index[0]))


def _row(df: Any, i: int) -> dict[str, Any]:
    """Row ``i`` with each value in its column's own type (``iloc`` would cast a uint64 seed
    to float in a row of mixed types)."""
    return {c: df[c].iloc[i] for c in df.columns}


def tree_of_row(r: dict[str, Any]) -> RegularTree:
    version = int(r.get("generator_version", GENERATOR_VERSION))
    if version not in GENERATORS:
        raise InputError(
            f"the row was made with generator version {version}; this starbench "
            f"has versions {', '.join(map(str, GENERATORS))} and cannot regenerate it"
        )
    params = {"generator_version": version}
    for f in fields(RegularTreeSpec):
        if f.name in params:
            continue
        if f.name not in r:
            raise InputError(f"the row has no column {f.name!r}: cannot regenerate its tree")
        v = r["skew_text"] if f.name == "skew" and "skew_text" in r else r[f.name]
        params[f.name] = v.item() if hasattr(v, "item") else v
    spec = RegularTreeSpec(**params)
    return RegularTree(spec, int(r["seed"]), int(r["instance"]))


def is_game(r: dict[str, Any]) -> bool:
    return present(r.get("game")) and str(r["game"]) != ""


def game_tree_of_row(path: Path, r: dict[str, Any]) -> Any:
    """A game row's searched tree: its cell's game keys (``cell.json`` in a cell folder, else
    the row's own columns), from the row's start position to the cell's depth, exactly."""
    from starbench.games.spec import GameSpec
    from starbench.oracles import positions
    from starbench.record.storage import CELL, read_json

    cell = read_json(path / CELL) if path.is_dir() else None
    if cell is not None and "game" in cell.get("identity", {}):
        keys = dict(cell["identity"]["game"])
    else:
        keys = {
            "game": r["game"],
            "depth": int(r["depth"]),
            "heuristic": plain(r.get("heuristic")),
            "position": plain(r.get("position")),
            "dice": plain(r.get("dice")),
            "move_order": plain(r.get("move_order")) or "none",
            "version": plain(r.get("game_version")),
        }
    return positions.source(GameSpec(**keys), int(r["seed"]), int(r["instance"]), True).tree


def _size_upto(tree: Any, limit: int) -> int:
    """The tree's nodes, counted up to ``limit + 1`` (a game tree is walked, never sized)."""
    from starbench.trees.protocol import Kind

    count = 0
    stack = [tree.root]
    while stack and count <= limit:
        n = stack.pop()
        count += 1
        if tree.kind(n) != Kind.LEAF:
            stack.extend(tree.children(n))
    return count


def export(
    path: Path,
    out: Path,
    instance: int | None = None,
    row: int | None = None,
    limit: int = DEFAULT_EXPORT_LIMIT,
    cell: str | None = None,
) -> tuple[Path, dict[str, Any]]:
    r = row_of(path, instance, row, cell)
    if is_game(r):
        tree = game_tree_of_row(Path(path), r)
        size = _size_upto(tree, limit)
        if size > limit:
            raise InputError(
                f"the game tree of instance {r['instance']} has more than {limit} nodes, over "
                f"the export limit (--max-nodes)"
            )
    else:
        tree = tree_of_row(r)
        if tree.spec.size > limit:
            raise InputError(
                f"the tree has {short(tree.spec.size)} nodes, over the export limit of {limit} "
                f"(--max-nodes)"
            )
    from starbench.ground.files import atomic_write_text

    try:
        atomic_write_text(Path(out), json.dumps(tree_to_json(tree), separators=(",", ":")))
    except OSError as e:
        raise InputError(f"-o: cannot write {out} ({e.strerror})") from None
    return Path(out), r
