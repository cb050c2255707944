"""Explicit trees: read from and written to JSON, stored in flat arrays.

File format::

    {"bounds": [L, U], "root": NODE}
    NODE := number                       a leaf
          | {"max": [NODE, ...]}         a MAX decision node
          | {"min": [NODE, ...]}         a MIN decision node
          | {"chance": [[P, NODE], ...]} a chance node, outcome probability P

Numbers and probabilities are JSON numbers or strings that ``fractions.Fraction`` accepts
("1", "3/4", "0.25"); both are read exactly from their text.  Any node kind may be the root,
MAX and MIN need not alternate, chance nodes may follow chance nodes, leaves may stand at any
depth and a node may have a single child.

Probabilities must be > 0.  A chance node whose probabilities sum to 1 within 1e-9 is accepted
and *normalised* (every probability divided by the exact sum) so that they sum to exactly 1, in
float and exact mode alike; a larger difference is an error.  Every leaf must lie in [L, U] and
``L < U``.  Errors name the file and the JSON path of the node, e.g. ``root.max[2].chance[0]``.

Node handles are integer indices (the root is 0, nodes numbered in depth-first preorder).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from starbench.errors import TreeError
from starbench.trees.protocol import Kind, Number

PROBABILITY_TOLERANCE = Fraction(1, 10**9)
_KEYS = {"max": Kind.MAX, "min": Kind.MIN, "chance": Kind.CHANCE}
_NAMES = {v: k for k, v in _KEYS.items()}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name} is not allowed")


def _number(x: Any, where: str, what: str) -> Fraction:
    """An exact number from a JSON value already parsed with Fraction hooks, or a string."""
    if isinstance(x, bool):
        raise TreeError(f"{where}: {what} must be a number, got {json.dumps(x)}")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, float):
        if x != x or x in (float("inf"), float("-inf")):
            raise TreeError(f"{where}: {what} must be a finite number, got {x}")
        return Fraction(str(x))
    if isinstance(x, str):
        try:
            return Fraction(x.strip())
        except (ValueError, ZeroDivisionError):
            raise TreeError(
                f'{where}: {what} {x!r} is not a finite number (use e.g. 3, "3/4" or "0.25")'
            ) from None
    raise TreeError(f"{where}: {what} must be a number, got {json.dumps(x)}")


@dataclass(frozen=True)
class ExplicitTree:
    """A tree held in arrays: ``kinds[i]``, ``child_lists[i]``, ``probs[i]``, ``values[i]``."""

    kinds: tuple[Kind, ...]
    child_lists: tuple[tuple[int, ...], ...]
    probs: tuple[tuple[Fraction, ...], ...]
    values: tuple[Fraction | None, ...]
    paths: tuple[str, ...]
    L: Fraction
    U: Fraction
    source: str = "<tree>"

    root = 0

    @property
    def bounds(self) -> tuple[Fraction, Fraction]:
        return (self.L, self.U)

    def kind(self, node: int) -> Kind:
        return self.kinds[node]

    def children(self, node: int) -> Sequence[int]:
        return self.child_lists[node]

    def probabilities(self, node: int) -> Sequence[Number]:
        return self.probs[node]

    def evaluate(self, node: int) -> Number:
        return self.values[node]  # type: ignore[return-value]

    def describe(self, node: int) -> str:
        return f"{self.source}: {self.paths[node]}"

    def first_chance(self) -> int | None:
        for i, k in enumerate(self.kinds):
            if k == Kind.CHANCE:
                return i
        return None

    @property
    def size(self) -> int:
        return len(self.kinds)

    def to_json_obj(self) -> dict[str, Any]:
        return tree_to_json(self)


def _json_number(x: Any) -> int | str:
    f = Fraction(x)
    return int(f) if f.denominator == 1 else str(f)


def tree_to_json(tree: Any) -> dict[str, Any]:
    """Any tree of the protocol as a JSON-ready object in the file format (exact numbers)."""

    def node(n: Any) -> Any:
        kind = tree.kind(n)
        if kind == Kind.LEAF:
            return _json_number(tree.evaluate(n))
        kids = tree.children(n)
        if kind == Kind.CHANCE:
            ps = tree.probabilities(n)
            return {"chance": [[_json_number(p), node(c)] for p, c in zip(ps, kids, strict=True)]}
        return {_NAMES[kind]: [node(c) for c in kids]}

    L, U = tree.bounds
    return {"bounds": [_json_number(L), _json_number(U)], "root": node(tree.root)}


def parse_tree(obj: Any, source: str = "<tree>") -> ExplicitTree:
    """Build an ExplicitTree from a parsed JSON object (numbers may be Fractions or strings)."""
    if not isinstance(obj, dict) or set(obj) != {"bounds", "root"}:
        keys = sorted(obj) if isinstance(obj, dict) else type(obj).__name__
        raise TreeError(
            f"{source}: the top level must be an object with exactly the keys "
            f"'bounds' and 'root', got {keys}"
        )
    b = obj["bounds"]
    if not isinstance(b, list) or len(b) != 2:
        raise TreeError(f"{source}: bounds must be a list [L, U] of two numbers")
    L = _number(b[0], f"{source}: bounds[0]", "L")
    U = _number(b[1], f"{source}: bounds[1]", "U")
    if L >= U:
        raise TreeError(f"{source}: bounds: L must be < U, got L={L}, U={U}")

    kinds: list[Kind] = []
    child_lists: list[tuple[int, ...]] = []
    probs: list[tuple[Fraction, ...]] = []
    values: list[Fraction | None] = []
    paths: list[str] = []

    # Iterative preorder so deep trees do not hit the recursion limit.
    def new(path: str) -> int:
        kinds.append(Kind.LEAF)
        child_lists.append(())
        probs.append(())
        values.append(None)
        paths.append(path)
        return len(kinds) - 1

    work: list[tuple[Any, int]] = [(obj["root"], new("root"))]
    pending: list[tuple[int, list[int]]] = []
    while work:
        spec, idx = work.pop()
        path = paths[idx]
        where = f"{source}: {path}"
        if isinstance(spec, dict):
            if len(spec) != 1:
                raise TreeError(
                    f"{where}: a node object must have exactly one key "
                    f"(max, min or chance), got {sorted(spec)}"
                )
            ((key, items),) = spec.items()
            if key not in _KEYS:
                raise TreeError(f"{where}: unknown node kind {key!r} (allowed: max, min, chance)")
            if not isinstance(items, list) or not items:
                raise TreeError(f"{where}.{key}: a {key} node needs a non-empty list of children")
            kind = _KEYS[key]
            kinds[idx] = kind
            kids: list[int] = []
            if kind == Kind.CHANCE:
                ps: list[Fraction] = []
                for j, item in enumerate(items):
                    cpath = f"{path}.chance[{j}]"
                    if not isinstance(item, list) or len(item) != 2:
                        raise TreeError(
                            f"{source}: {cpath}: a chance outcome must be a pair [P, NODE]"
                        )
                    p = _number(item[0], f"{source}: {cpath}", "probability")
                    if p <= 0:
                        raise TreeError(f"{source}: {cpath}: probability must be > 0, got {p}")
                    ps.append(p)
                    kids.append(new(cpath))
                    work.append((item[1], kids[-1]))
                total = sum(ps, Fraction(0))
                if abs(total - 1) > PROBABILITY_TOLERANCE:
                    raise TreeError(
                        f"{where}: probabilities sum to {total} "
                        f"(~{float(total):.12g}), not 1 (tolerance 1e-9)"
                    )
                probs[idx] = tuple(p / total for p in ps)
            else:
                for j, item in enumerate(items):
                    kids.append(new(f"{path}.{key}[{j}]"))
                    work.append((item, kids[-1]))
            pending.append((idx, kids))
        else:
            v = _number(spec, where, "leaf value")
            if not (L <= v <= U):
                raise TreeError(f"{where}: leaf value {v} lies outside the bounds [{L}, {U}]")
            values[idx] = v
    for idx, kids in pending:
        child_lists[idx] = tuple(kids)
    # Children were pushed in order but popped in reverse; indices still follow insertion order,
    # so renumber to depth-first preorder for readable handles.
    return _renumber(
        ExplicitTree(
            tuple(kinds),
            tuple(child_lists),
            tuple(probs),
            tuple(values),
            tuple(paths),
            L,
            U,
            source,
        )
    )


def _renumber(t: ExplicitTree) -> ExplicitTree:
    order: list[int] = []
    stack = [0]
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(reversed(t.child_lists[i]))
    new_of = {old: new for new, old in enumerate(order)}
    return ExplicitTree(
        tuple(t.kinds[i] for i in order),
        tuple(tuple(new_of[c] for c in t.child_lists[i]) for i in order),
        tuple(t.probs[i] for i in order),
        tuple(t.values[i] for i in order),
        tuple(t.paths[i] for i in order),
        t.L,
        t.U,
        t.source,
    )


def loads_tree(text: str, source: str = "<tree>") -> ExplicitTree:
    """Parse JSON text into an ExplicitTree, reading every number exactly from its text."""
    try:
        obj = json.loads(
            text,
            parse_float=Fraction,
            parse_int=Fraction,
            parse_constant=_reject_constant,
        )
    except json.JSONDecodeError as e:
        raise TreeError(
            f"{source}: malformed JSON: {e.msg} at line {e.lineno} column {e.colno}"
        ) from None
    except ValueError as e:
        raise TreeError(f"{source}: {e}") from None
    except RecursionError:
        raise TreeError(f"{source}: the JSON is nested too deeply to read") from None
    return parse_tree(obj, source)


def load_tree(path: str | Path) -> ExplicitTree:
    """Read a JSON tree file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise TreeError(f"{p}: cannot read the tree file: {e.strerror}") from None
    except UnicodeDecodeError:
        raise TreeError(f"{p}: the tree file is not UTF-8 text") from None
    return loads_tree(text, str(p))


def dumps_tree(tree: ExplicitTree) -> str:
    return json.dumps(tree.to_json_obj(), separators=(",", ":"))
