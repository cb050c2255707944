"""``starbench run --help``: every key with its type, default, allowed values and meaning, read
from the config schemas (``RunConfig``, ``RegularTreeSpec``) and the config folders."""

from __future__ import annotations

import typing
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from starbench.experiment.settings import RunConfig
from starbench.games.spec import GameSpec
from starbench.trees.regular import RegularTreeSpec

HEAD = """\
starbench run [FLAGS] [KEY=VALUE ...]: every listed algorithm on the same random trees, each
value checked against expectimax, one tidy table per cell (results/<name>/<cell>/table.parquet).

Flags (Hydra's): -m/--multirun (sweeps: KEY=a,b,c), -cd/--config-dir DIR (your own config
folder, searched first), -cn/--config-name NAME (your own primary config), --cfg job|hydra|all
(print the composed config), --info, --resolve, --hydra-help, --verbose (Hydra's full errors),
-sc/--shell-completion install=bash (tab completion: eval "$(starbench run -sc install=bash)");
at most one of --run, -m, --cfg, --info and -sc per command.
Examples:
  starbench run -m tree.skew=1/2,1/3 "algorithms=[expectimax,star2.5-cyclic:k=0..6]"
  starbench run -cd my_configs experiment=my_study
"""


def _type(hint: Any) -> str:
    text = getattr(hint, "__name__", None) or str(hint)
    return text.replace("typing.", "").replace("NoneType", "null")


def _choices(meta: dict[str, Any]) -> str:
    choices = meta.get("choices")
    return f" [{'|'.join(map(str, choices))}]" if choices else ""


def _default(f: Any) -> str:
    if f.default is not MISSING:
        return repr(f.default)
    return "[]" if f.name in ("algorithms", "plugins", "sweeps") else "..."


def _rows(cls: Any, prefix: str, skip: tuple[str, ...] = ()) -> list[str]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in fields(cls):
        if f.name in skip:
            continue
        meta = dict(f.metadata)
        head = f"  {prefix}{f.name} ({_type(hints[f.name])}, default {_default(f)})"
        out.append(f"{head}{_choices(meta)}")
        out.append(f"      {meta.get('help', '')}")
    return out


def groups(conf: Path, extra: Path | None = None) -> dict[str, list[str]]:
    """Config group -> its options, from the config folders."""
    found: dict[str, set[str]] = {}
    for root in (conf, extra):
        if root is None or not root.is_dir():
            continue
        for path in root.rglob("*.yaml"):
            group = path.parent.relative_to(root).as_posix()
            if group != ".":
                found.setdefault(group, set()).add(path.stem)
    found.setdefault("hydra/launcher", set()).update({"basic", "joblib", "submitit_local"})
    return {g: sorted(v) for g, v in sorted(found.items())}


def run_help(conf: Path, extra: Path | None = None) -> str:
    lines = [HEAD, "Config groups (GROUP=OPTION):"]
    for group, options in groups(conf, extra).items():
        lines.append(f"  {group}: {', '.join(options)}")
    lines += ["", "Run keys:"]
    lines += _rows(RunConfig, "", skip=("tree", "algorithm_specs"))
    lines += ["", "Tree keys:"]
    lines += _rows(RegularTreeSpec, "tree.")
    lines += ["", "Game tree keys (tree=game; see docs/guide/games.md):"]
    lines += _rows(GameSpec, "tree.", skip=("version",))
    return "\n".join(lines) + "\n"
