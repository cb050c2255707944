"""What a cell was asked for, and whether its table holds it (one place for both).

A cell's *request* (``Request``) is what a command asks of it: the algorithms (by their one label,
``registry.label``; expectimax left out by rule when the trees have more than
``expectimax_limit`` nodes), the number of trees, and the ``target_se`` rule with ``max_trees``.
The runner computes what its request lacks; ``cell.json`` records the last command's request, and
a sweep's ``sweep.json`` records, per cell, what the sweep asked.  ``starbench collect`` checks
every cell's table against its sweep's request (else its own last one):

* without ``target_se``: every requested algorithm has a row for instances ``0 .. trees - 1``;
* with ``target_se``: the same for the first ``n`` instances, where ``n`` follows the runner's
  growth rule (``grow``) from ``trees`` until every algorithm's mean percent of expectimax's
  leaves has a standard error of at most ``target_se`` (``worst_se``) or ``n`` reaches
  ``max_trees``.

A table that holds more than that (an algorithm added to one cell, more trees) is complete and
the extra is listed; a table short of it is incomplete.  A cell's table always holds every row of
the cell (the union of its journal), whatever one command asked for.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from starbench.search.registry import KEY_PARAMS, key_values, label

Key = tuple[Any, ...]  # (algorithm, *KEY_PARAMS values): a row's key without its instance
#: The reference of the percentages: expectimax without a table.
REFERENCE: Key = ("expectimax", *(None,) * len(KEY_PARAMS))


@dataclass(frozen=True)
class Request:
    """What a command asks of one cell."""

    algorithms: tuple[str, ...]  # labels, in the order asked
    trees: int
    target_se: float | None = None
    max_trees: int | None = None
    skipped: str | None = None  # why an asked algorithm is left out by rule, if one is

    @classmethod
    def of(cls, settings: Any) -> Request:
        """The request of ``settings`` (a ``RunSettings``), expectimax left out over
        ``expectimax_limit`` nodes."""
        return cls(
            tuple(a.label for a in requested(settings)),
            settings.trees,
            settings.target_se,
            settings.max_trees if settings.target_se is not None else None,
            skipped_reason(settings),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "algorithms": list(self.algorithms),
            "trees": self.trees,
            "target_se": self.target_se,
            "max_trees": self.max_trees,
            "skipped": self.skipped,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Request:
        return cls(
            tuple(canonical(a) for a in data.get("algorithms") or ()),
            int(data.get("trees") or 0),
            data.get("target_se"),
            data.get("max_trees"),
            data.get("skipped"),
        )

    def keys(self) -> list[Key]:
        return [key_of_label(a) for a in self.algorithms]


def requested(settings: Any) -> list[Any]:
    """The algorithms a cell computes under ``settings`` (``AlgorithmSpec``s, in order)."""
    wanted = list(settings.algorithms)
    if skipped_reason(settings):
        wanted = [a for a in wanted if a.name != "expectimax"]
    return wanted


def skipped_reason(settings: Any) -> str | None:
    size = getattr(settings.tree, "size", None)
    if (
        size is not None
        and size > settings.expectimax_limit
        and any(a.name == "expectimax" for a in settings.algorithms)
    ):
        return (
            f"expectimax skipped: the tree has {size} nodes, over "
            f"expectimax_limit={settings.expectimax_limit}; rows are verified by agreement"
        )
    return None


def key_of_label(text: str) -> Key:
    """The key of a label (or any spec string of one algorithm)."""
    from starbench.search.registry import get_algorithm, parse_spec

    name, params = parse_spec(text)
    return (name, *key_values(get_algorithm(name).resolve(params)))


def canonical(text: str) -> str:
    """A label as ``registry.label`` writes it (labels stored before it, such as
    ``probe_full_window=False``, are read back and rewritten)."""
    key = key_of_label(text)
    return label(key[0], dict(zip(KEY_PARAMS, key[1:], strict=True)))


def label_of_key(key: Key) -> str:
    return label(key[0], dict(zip(KEY_PARAMS, key[1:], strict=True)))


def grow(n: int, se: float, target_se: float, max_trees: int) -> int:
    """The runner's next cell size after ``n`` trees whose worst standard error is ``se``."""
    want = math.ceil(n * (se / target_se) ** 2 * 1.05)
    return min(max_trees, max(n + 10, want))


Held = Mapping[int, Mapping[Key, tuple[bool, Any]]]  # instance -> key -> (finished, leaves)


def worst_se(held: Held, n: int, keys: Iterable[Key]) -> float:
    """The largest standard error (percentage points) of the mean percent of expectimax's
    leaves over the first ``n`` instances, among every key but the reference (expectimax
    without a table), counting only instances where both searches finished."""
    worst = 0.0
    for key in keys:
        if key == REFERENCE:
            continue
        pct = []
        for i in sorted(i for i in held if i < n):  # what is held: never range(n)
            inst = held[i]
            r, ex = inst.get(key), inst.get(REFERENCE)
            if r and ex and r[0] and ex[0] and ex[1]:
                pct.append(100.0 * r[1] / ex[1])
        if len(pct) < 2:
            continue  # no percentages (budgets exceeded): nothing to estimate
        mean = sum(pct) / len(pct)
        var = sum((x - mean) ** 2 for x in pct) / (len(pct) - 1)
        worst = max(worst, math.sqrt(var / len(pct)))
    return worst


@dataclass(frozen=True)
class Coverage:
    """A cell's table against a request: per requested label the instances asked and held."""

    request: Request
    asked: int  # instances asked of every requested algorithm
    short: tuple[tuple[str, int], ...]  # (label, instances held of those asked), where short
    extra: tuple[str, ...]  # what the table holds beyond the request
    se: float | None = None  # with target_se: the worst standard error at ``asked`` trees

    @property
    def complete(self) -> bool:
        return not self.short

    def describe(self) -> str:
        n = len(self.request.algorithms)
        rule = ""
        if self.request.target_se is not None and self.se is not None:
            rule = f", worst SE {self.se:.2f} (target_se {self.request.target_se})"
        text = f"{n} algorithms x {self.asked} trees asked{rule}"
        if self.short:
            text += "; short: " + ", ".join(f"{a} has {h} of {self.asked}" for a, h in self.short)
        return text


def check(held: Held, request: Request) -> Coverage:
    """``held`` (what a table holds) against ``request``."""
    keys = request.keys()
    have = {i: set(inst) for i, inst in held.items()}

    def count(key: Key, n: int) -> int:  # over what is held: never range(n)
        return sum(1 for i, keys_held in have.items() if i < n and key in keys_held)

    n = request.trees
    se = None
    if request.target_se is not None:
        max_trees = request.max_trees or n
        while True:
            if any(count(k, n) < n for k in keys):
                break
            se = worst_se(held, n, keys)
            if se <= request.target_se or n >= max_trees:
                break
            n = grow(n, se, request.target_se, max_trees)
    short = tuple((label_of_key(k), count(k, n)) for k in keys if count(k, n) < n)
    asked = set(keys)
    others = {k for inst in held.values() for k in inst} - asked
    extra = [label_of_key(k) for k in sorted(others, key=_sortable)]
    beyond = max((i + 1 for i in held), default=0)
    if beyond > n and not short:
        extra.append(f"instances {n}..{beyond - 1}")
    return Coverage(request, n, short, tuple(extra), se)


def _sortable(key: Key) -> tuple[str, ...]:
    return tuple("" if v is None else str(v) for v in key)


def held_of_table(df: Any) -> dict[int, dict[Key, tuple[bool, Any]]]:
    """What a stored table (a DataFrame) holds, by instance and key."""
    cols = [c for c in ("algorithm", *KEY_PARAMS) if c in df.columns]
    out: dict[int, dict[Key, tuple[bool, Any]]] = {}
    finished = df["status"].isin(["ok", "mismatch", "unverified"]).to_numpy()
    leaves = df["leaves"].to_numpy() if "leaves" in df.columns else [None] * len(df)
    instances = df["instance"].to_numpy()
    groups = df.groupby(cols, dropna=False, sort=False).indices
    for values, idx in groups.items():
        values = values if isinstance(values, tuple) else (values,)
        row = dict(zip(cols, values, strict=True))
        key = (str(row["algorithm"]), *key_values(row))
        for j in idx:
            out.setdefault(int(instances[j]), {})[key] = (bool(finished[j]), _num(leaves[j]))
    return out


def _num(x: Any) -> Any:
    try:
        return None if x is None or x != x else float(x)
    except TypeError:
        return None
