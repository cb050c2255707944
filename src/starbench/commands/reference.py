"""The reference pages of the documentation, generated from the code: every run key (the config
schemas), every algorithm with its parameters and citation (the registry) and every column of
the tidy table (``record.columns``, each declared once with its dtype and meaning).

The docs build (``docs/hooks.py``) writes these pages at build time, so they cannot fall behind
the code.
"""

from __future__ import annotations

import inspect
import typing
from dataclasses import MISSING, fields
from typing import Any


def _md(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _type(hint: Any) -> str:
    text = getattr(hint, "__name__", None) or str(hint)
    return text.replace("typing.", "").replace("NoneType", "null")


def _default(f: Any) -> str:
    if f.default is not MISSING:
        return f"`{f.default!r}`"
    if f.default_factory is not MISSING:  # type: ignore[misc]
        return f"`{f.default_factory()!r}`"  # type: ignore[misc]
    return ""


def _key_table(cls: Any, prefix: str, skip: tuple[str, ...] = ()) -> list[str]:
    hints = typing.get_type_hints(cls)
    out = ["| key | type | default | allowed | meaning |", "|---|---|---|---|---|"]
    for f in fields(cls):
        if f.name in skip:
            continue
        meta = dict(f.metadata)
        choices = meta.get("choices")
        allowed = ", ".join(f"`{c}`" for c in choices) if choices else ""
        out.append(
            f"| `{prefix}{f.name}` | {_md(_type(hints[f.name]))} | {_default(f)} | {allowed} "
            f"| {_md(meta.get('help', ''))} |"
        )
    return out


def config_page() -> str:
    """Every key of ``starbench run``: the run keys, the random-tree keys and the game keys."""
    from starbench.experiment.settings import RunConfig
    from starbench.games.spec import GameSpec
    from starbench.trees.regular import RegularTreeSpec

    lines = [
        "# Configuration keys",
        "",
        "Generated from the config schemas (`RunConfig` in `starbench.experiment.settings`, "
        "`RegularTreeSpec` in `starbench.trees.regular`, `GameSpec` in `starbench.games.spec`); "
        "`starbench run --help` prints the same from the installed code.",
        "",
        "## Run keys",
        "",
        *_key_table(RunConfig, "", skip=("tree", "algorithm_specs")),
        "",
        "## Random-tree keys (`tree=regular`, the default)",
        "",
        *_key_table(RegularTreeSpec, "tree."),
        "",
        "## Game keys (`tree=game`)",
        "",
        *_key_table(GameSpec, "tree.", skip=("version",)),
        "",
    ]
    return "\n".join(lines)


def _first_paragraph(doc: str | None) -> str:
    return _md((inspect.cleandoc(doc or "").split("\n\n") or [""])[0])


def algorithms_page() -> str:
    """Every registered algorithm: what it is, whether it is exact, its reference, its
    parameters with defaults, its module and citation."""
    from starbench.search import registry

    lines = [
        "# Algorithms",
        "",
        "Generated from the registry (`starbench.search.registry`); `starbench solve --list` "
        "prints the same.  A request is written `NAME:PARAM=VALUE,...` (for example "
        "`star2.5-cyclic:k=3,after_probe=research`); integer ranges `k=0..6` expand in run "
        "lists.  An exact algorithm's rows must equal expectimax's value (else `mismatch`); an "
        "inexact one's rows are `approx`, measured by `value_error` and `decision_agrees`.",
        "",
        "| algorithm | exact | must equal | applies to | what it is | citation |",
        "|---|---|---|---|---|---|",
    ]
    infos = [registry.ALGORITHMS[n] for n in sorted(registry.ALGORITHMS)]
    for a in infos:
        scope = "any tree" if a.chance else "trees without chance nodes"
        lines.append(
            f"| `{a.name}` | {'yes' if a.exact else 'no'} | {a.reference or '(nothing)'} "
            f"| {scope} | {_md(a.doc)} | {_md(a.citation)} |"
        )
    for a in infos:
        module = a.cls.__module__
        lines += ["", f"## `{a.name}`", "", f"{_md(a.doc)}.  Module `{module}`.", ""]
        lines += [_first_paragraph(inspect.getmodule(a.cls).__doc__), ""]  # type: ignore[union-attr]
        if a.fixed:
            fixed = ", ".join(f"{k}={v}" for k, v in a.fixed.items())
            lines += [f"Fixed settings: {fixed}.", ""]
        if a.params:
            lines += ["| parameter | default | meaning |", "|---|---|---|"]
            lines += [f"| `{p.name}` | `{p.default!r}` | {_md(p.doc)} |" for p in a.params]
        else:
            lines.append("No parameters.")
        if a.citation:
            lines += ["", f"Citation: {_md(a.citation)}."]
    lines.append("")
    return "\n".join(lines)


def columns_page() -> str:
    """Every column of a cell's ``table.parquet``, in order, with its dtype and meaning: the
    declaration (``record.columns``)."""
    from starbench.record.columns import table_columns

    lines = [
        "# The table's columns",
        "",
        "One row per (instance, algorithm and its key parameters) in a cell's "
        "`table.parquet`, in this order, each with one fixed dtype (generated from "
        "`starbench.record.columns`, where every column is declared once).  Tree parameters "
        "and metadata are those the row was computed with, never the request's.  "
        "`starbench.load_results` adds one column, `label`: the display label of the row's "
        "request (the algorithm and its non-default key parameters, as the figures name it).",
        "",
        "| column | dtype | meaning |",
        "|---|---|---|",
    ]
    for c in table_columns():
        lines.append(f"| `{c.name}` | {c.dtype} | {_md(c.doc)} |")
    lines.append("")
    return "\n".join(lines)


PAGES = {
    "reference/config.md": config_page,
    "reference/algorithms.md": algorithms_page,
    "reference/columns.md": columns_page,
}
