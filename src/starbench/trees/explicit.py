"""Explicit trees: read from and written to JSON, stored in flat arrays.

File format::

    {"bounds": [L, U], "root": NODE}     (and optionally "disagreement": {...}, which
                                          ``starbench shrink`` writes and no search reads)
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

Node handles are integer indices (the root is 0, nodes numbered breadth first, so a node's
children are consecutive).  ``exact=True`` (the default of ``load_tree``) keeps exact numbers;
``exact=False`` (what ``starbench solve`` uses without ``--exact``) keeps the nearest float to
each exact number (probabilities normalised exactly first), about 40 bytes a node: the fast path
for large files.  In float mode a leaf is checked against [L, U] exactly wherever rounding could
decide it.  Size limits: ``starbench.ground.limits``.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import math
import sys
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate, chain
from pathlib import Path
from typing import Any

from starbench.errors import TreeError, short
from starbench.ground.limits import JSON_MAX_BYTES, JSON_MAX_NODES
from starbench.trees.protocol import Kind, Number

# module constants: looking up an Enum member costs ~150 ns, comparing ~30
MAX, MIN, CHANCE, LEAF = Kind.MAX, Kind.MIN, Kind.CHANCE, Kind.LEAF

PROBABILITY_TOLERANCE = Fraction(1, 10**9)
#: The one other top-level key a tree file may hold, read by no search: what ``starbench
#: shrink`` found (both answers on the tree).
NOTE = "disagreement"
_KEYS = {"max": MAX, "min": MIN, "chance": CHANCE}
_NAMES = {v: k for k, v in _KEYS.items()}
_KINDS = tuple(Kind)  # code -> Kind
_LEAF = int(LEAF)
_CHANCE = int(CHANCE)
_MEMO_SIZE = 100_000  # distinct chance-node probability lists remembered while reading


class _Num(str):
    """The text of a JSON number (``json.loads(parse_float=_Num)``): always well formed."""

    __slots__ = ()


class _Node(tuple):
    """A one-key JSON object ``(key, value)``: a third of a dict's memory."""

    __slots__ = ()


def _object(pairs: list[tuple[str, Any]]) -> Any:
    return _Node(pairs[0]) if len(pairs) == 1 else dict(pairs)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name} is not allowed")


def _at(where: str | Callable[[], str]) -> str:
    return where if isinstance(where, str) else where()


def _number(x: Any, where: str | Callable[[], str], what: str) -> Fraction | int:
    """An exact number from a parsed JSON value (an int, the text of a JSON number, a string).
    ``where`` names the place for errors (or makes the name, only when needed)."""
    t = type(x)
    if t is int:
        return x
    if t is _Num:
        return Fraction(x)
    if isinstance(x, bool) or not isinstance(x, (int, str, Fraction, float)):
        raise TreeError(f"{_at(where)}: {what} must be a number, got {json.dumps(x)}")
    if isinstance(x, Fraction | int):
        return x
    if isinstance(x, float):
        if not math.isfinite(x):
            raise TreeError(f"{_at(where)}: {what} must be a finite number, got {x}")
        return Fraction(str(x))
    try:
        return Fraction(x.strip())
    except (ValueError, ZeroDivisionError):
        raise TreeError(
            f"{_at(where)}: {what} {short(repr(x))} is not a finite number "
            f'(use e.g. 3, "3/4" or "0.25")'
        ) from None


def _float(x: Any, where: str | Callable[[], str], what: str) -> float:
    """The nearest float to a parsed JSON number (correctly rounded from its exact value)."""
    t = type(x)
    try:
        if t is _Num or t is int:
            v = float(x)
        elif t is str:
            num, slash, den = x.partition("/")
            if slash and num.lstrip("-").isdigit() and den.isdigit() and int(den):
                v = int(num) / int(den)  # int / int is correctly rounded
            else:
                v = float(_number(x, where, what))
        else:
            v = float(_number(x, where, what))
    except OverflowError:
        v = math.inf
    if not math.isfinite(v):
        raise TreeError(
            f"{_at(where)}: {what} {short(x)} is too large for float arithmetic "
            f"(|x| < 1.8e308); search it with --exact"
        )
    return v


@dataclass(frozen=True)
class ExplicitTree:
    """A tree held in flat arrays, nodes numbered breadth first (the root is 0).

    ``codes[i]`` is the ``Kind`` code of node ``i``; its children are the consecutive nodes
    ``first[i] .. first[i] + nchild[i] - 1``; ``probs[c]`` is the probability of reaching child
    ``c`` of a chance node; ``values[i]`` the value of leaf ``i``; ``parent[i]`` its parent (-1
    at the root).  ``exact`` trees hold ``int``/``Fraction`` numbers; float trees (read with
    ``exact=False``: 8 bytes a number, the fast path for large files) hold floats, each the
    nearest float to the exact number of the file, and refuse exact searches.
    """

    codes: bytes
    first: Sequence[int]
    nchild: Sequence[int]
    parent: Sequence[int]
    probs: Any  # list (exact) or float64 memoryview; 1 where the parent is not a chance node
    values: Any  # list (exact) or float64 memoryview; 0 at internal nodes
    L: Fraction | int
    U: Fraction | int
    exact: bool = True
    source: str = "<tree>"
    max_depth: int = 0

    root = 0

    @property
    def bounds(self) -> tuple[Number, Number]:
        return (self.L, self.U)

    def kind(self, node: int) -> Kind:
        return _KINDS[self.codes[node]]

    def children(self, node: int) -> Sequence[int]:
        f = self.first[node]
        return range(f, f + self.nchild[node])

    def probabilities(self, node: int) -> Sequence[Number]:
        f = self.first[node]
        return tuple(self.probs[f : f + self.nchild[node]])

    def evaluate(self, node: int) -> Number:
        return self.values[node]

    def path(self, node: int) -> str:
        """The JSON path of a node, e.g. ``root.max[2].chance[0]``."""
        parts = []
        while node > 0:
            up = self.parent[node]
            parts.append(f".{_NAMES[_KINDS[self.codes[up]]]}[{node - self.first[up]}]")
            node = up
        return "root" + "".join(reversed(parts))

    def transposition(self, node: int) -> tuple[int, int]:
        """(key, depth) for a transposition table: identical subtrees are one transposition
        (``transposition_keys``; depth 0, since equal subtrees have equal depths), so a tree
        file holds a DAG by repeating a subtree, as a game's positions repeat."""
        return self.transposition_keys[node], 0

    @functools.cached_property
    def transposition_keys(self) -> list[int]:
        """Each node's transposition key: equal for two nodes exactly when their subtrees are
        identical (the same kind, the same children's keys in order, the same probabilities,
        the same leaf value), numbered from the leaves up; made on the first use of a table."""
        codes, first, nchild, probs, values = (
            self.codes,
            self.first,
            self.nchild,
            self.probs,
            self.values,
        )
        keys = [0] * len(codes)
        seen: dict[Any, int] = {}
        for i in range(len(codes) - 1, -1, -1):  # breadth first: children after their parent
            c = codes[i]
            if c == _LEAF:
                sig: Any = (c, values[i])
            else:
                f = first[i]
                kids = tuple(keys[f : f + nchild[i]])
                sig = (c, kids, tuple(probs[f : f + nchild[i]])) if c == _CHANCE else (c, kids)
            keys[i] = seen.setdefault(sig, len(seen))
        return keys

    def describe(self, node: int) -> str:
        return f"{self.source}: {self.path(node)}"

    def first_chance(self) -> int | None:
        i = self.codes.find(_CHANCE)
        return None if i < 0 else i

    @property
    def size(self) -> int:
        return len(self.codes)

    def to_json_obj(self) -> dict[str, Any]:
        return tree_to_json(self)


def _json_number(x: Any) -> int | str:
    f = Fraction(x)
    return int(f) if f.denominator == 1 else str(f)


def tree_to_json(tree: Any) -> dict[str, Any]:
    """Any tree of the protocol as a JSON-ready object in the file format (exact numbers)."""

    def node(n: Any) -> Any:
        kind = tree.kind(n)
        if kind == LEAF:
            return _json_number(tree.evaluate(n))
        kids = tree.children(n)
        if kind == CHANCE:
            ps = tree.probabilities(n)
            return {"chance": [[_json_number(p), node(c)] for p, c in zip(ps, kids, strict=True)]}
        return {_NAMES[kind]: [node(c) for c in kids]}

    L, U = tree.bounds
    return {"bounds": [_json_number(L), _json_number(U)], "root": node(tree.root)}


def parse_tree(
    obj: Any,
    source: str = "<tree>",
    *,
    exact: bool = True,
    max_nodes: int | None = None,
    consume: bool = False,
) -> ExplicitTree:
    """Build an ExplicitTree from a parsed JSON object (numbers may be ints, Fractions, strings
    or the texts ``loads_tree`` keeps).  ``exact=False`` stores the nearest floats instead of
    exact numbers; ``max_nodes`` refuses larger trees; ``consume`` takes the root out of
    ``obj`` so that its JSON objects are freed as they are read."""
    if type(obj) is _Node:
        obj = dict([obj])
    if not isinstance(obj, dict) or set(obj) - {NOTE} != {"bounds", "root"}:
        keys = sorted(obj) if isinstance(obj, dict) else type(obj).__name__
        raise TreeError(
            f"{source}: the top level must be an object with exactly the keys "
            f"'bounds' and 'root' (and optionally '{NOTE}'), got {keys}"
        )
    b = obj["bounds"]
    if not isinstance(b, list) or len(b) != 2:
        raise TreeError(f"{source}: bounds must be a list [L, U] of two numbers")
    L = _number(b[0], f"{source}: bounds[0]", "L")
    U = _number(b[1], f"{source}: bounds[1]", "U")
    if L >= U:
        raise TreeError(f"{source}: bounds: L must be < U, got L={short(L)}, U={short(U)}")
    fL = fU = None
    if not exact:
        fL = _float(b[0], f"{source}: bounds[0]", "L")
        fU = _float(b[1], f"{source}: bounds[1]", "U")
    limit = math.inf if max_nodes is None else max_nodes

    import numpy as np

    # Breadth first: a node's children are appended to the queue, so their ids are
    # consecutive.  Only internal nodes are recorded here; the arrays are built at the end.
    queue: list[Any] = [obj.pop("root") if consume else obj["root"]]
    inner: list[int] = []  # internal node ids, in increasing order
    inner_kind: list[int] = []
    inner_n: list[int] = []
    chance_ps: list[tuple[Any, ...]] = []  # per chance node, in order
    memo: dict[tuple[Any, ...], tuple[Any, ...]] = {}

    def where(i: int) -> str:
        """The JSON path of node i (errors only): node i's parent is the internal node whose
        consecutive children include i."""
        starts = list(accumulate(inner_n, initial=1))
        parts = []
        while i > 0:
            k = bisect_right(starts, i) - 1
            parts.append(f".{_NAMES[_KINDS[inner_kind[k]]]}[{i - starts[k]}]")
            i = inner[k]
        return f"{source}: root" + "".join(reversed(parts))

    for i, spec in enumerate(queue):
        t = type(spec)
        if t is _Node:  # what loads_tree makes of a one-key JSON object
            key, items = spec
        elif t is dict:
            if len(spec) != 1:
                raise TreeError(
                    f"{where(i)}: a node object must have exactly one key "
                    f"(max, min or chance), got {sorted(spec)}"
                )
            ((key, items),) = spec.items()
        else:
            continue  # a leaf: its value is read below
        queue[i] = 0  # the node's JSON object is freed once its children are queued
        kind = _KEYS.get(key)
        if kind is None:
            raise TreeError(f"{where(i)}: unknown node kind {key!r} (allowed: max, min, chance)")
        if type(items) is not list or not items:
            raise TreeError(f"{where(i)}.{key}: a {key} node needs a non-empty list of children")
        n = len(items)
        if len(queue) + n > limit:
            raise TreeError(
                f"{source}: the tree has more than {max_nodes} nodes, over the limit (--max-nodes)"
            )
        inner.append(i)
        inner_kind.append(kind)
        inner_n.append(n)
        if kind == _CHANCE:
            try:
                raw, kids = zip(*items, strict=True)
            except (TypeError, ValueError):
                raw = kids = ()
            if len(raw) != n or any(type(item) is not list for item in items):
                j = next(j for j, x in enumerate(items) if type(x) is not list or len(x) != 2)
                raise TreeError(
                    f"{where(i)}.chance[{j}]: a chance outcome must be a pair [P, NODE]"
                )
            ps = memo.get(raw)
            if ps is None:
                ps = _normalised(raw, lambda j, i=i: f"{where(i)}.chance[{j}]", exact)
                if len(memo) >= _MEMO_SIZE:
                    memo.clear()
                memo[raw] = ps
            chance_ps.append(ps)
            queue.extend(kids)
        else:
            queue.extend(items)
    size = len(queue)
    ids = np.array(inner, np.int64)
    counts = np.array(inner_n, np.int64)
    kinds = np.array(inner_kind, np.uint8)
    c = np.full(size, _LEAF, np.uint8)
    c[ids] = kinds
    index = np.int32 if size < 2**31 - 1 else np.int64
    f = np.zeros(size, index)
    f[ids] = 1 + np.concatenate([[0], np.cumsum(counts)[:-1]])
    nc = np.zeros(size, index)
    nc[ids] = counts
    par = np.concatenate([[-1], np.repeat(ids, counts)]).astype(index)
    is_chance_child = np.concatenate([[False], np.repeat(kinds == _CHANCE, counts)])
    if exact:
        probs: Any = [1] * size
        for k, p in zip(np.flatnonzero(is_chance_child).tolist(), _chain(chance_ps), strict=True):
            probs[k] = p
    else:
        pr = np.ones(size)
        if chance_ps:
            pr[is_chance_child] = np.fromiter(_chain(chance_ps), np.float64)
        probs = _array("d", pr)
    del is_chance_child
    codes = bytearray(c.tobytes())
    del c
    first, nchild, parent = _array("q", f), _array("q", nc), _array("q", par)
    del f, nc, par
    values = _leaf_values(queue, codes, exact, L, U, fL, fU, where)
    depth, node = 0, size - 1  # the last node lies deepest
    while node > 0:
        node = parent[node]
        depth += 1
    return ExplicitTree(
        bytes(codes), first, nchild, parent, probs, values, L, U, exact, source, depth
    )


def _chain(groups: list[tuple[Any, ...]]) -> Any:
    return chain.from_iterable(groups)


def _array(typecode: str, a: Any) -> memoryview:
    """A numpy array as a memoryview (indexing gives plain Python numbers); node indices in
    32 bits where they fit."""
    import numpy as np

    if typecode == "d":
        return memoryview(np.ascontiguousarray(a, np.float64))
    small = len(a) < 2**31 - 1
    return memoryview(np.ascontiguousarray(a, np.int32 if small else np.int64))


def _leaf_values(
    queue: list[Any], codes: bytearray, exact: bool, L: Any, U: Any, fL: Any, fU: Any, where: Any
) -> Any:
    """Every node's value (0 at internal nodes, whose queue entries are 0 by now): a list of
    exact numbers, or an array of floats converted in bulk where every leaf is a plain JSON
    number strictly inside the bounds (the rest one by one, exactly)."""
    import numpy as np

    n = len(queue)
    if exact:
        values: Any = [0] * n
        for i, code in enumerate(codes):
            if code == _LEAF:
                values[i] = _leaf(queue[i], True, L, U, fL, fU, lambda i=i: where(i))
        return values
    is_leaf = np.frombuffer(bytes(codes), np.uint8) == _LEAF
    full = None
    if set(map(type, queue)) <= {_Num, int}:
        with contextlib.suppress(OverflowError):  # a huge int: one by one below
            full = np.fromiter(map(float, queue), np.float64, n)
    if full is None:
        full = np.zeros(n)
        suspect = np.flatnonzero(is_leaf)
    else:
        suspect = np.flatnonzero(is_leaf & ~((full > fL) & (full < fU)))
    for i in suspect.tolist():  # non-plain numbers, and values at or beyond the bounds
        full[i] = _leaf(queue[i], False, L, U, fL, fU, lambda i=i: where(i))
    return _array("d", full)


def _leaf(
    spec: Any, exact: bool, L: Any, U: Any, fL: Any, fU: Any, where: Callable[[], str]
) -> Any:
    """A leaf's value (exact, or the nearest float), checked against [L, U] exactly wherever
    rounding could decide it."""
    if exact:
        v = _number(spec, where, "leaf value")
        inside = L <= v <= U
    else:
        v = _float(spec, where, "leaf value")
        inside = fL < v < fU or (fL <= v <= fU and L <= _number(spec, where, "leaf value") <= U)
    if not inside:
        raise TreeError(
            f"{where()}: leaf value {short(spec if isinstance(spec, int | str) else v)} lies "
            f"outside the bounds [{short(L)}, {short(U)}]"
        )
    return v


def _normalised(raw: tuple[Any, ...], where: Callable[[int], str], exact: bool) -> tuple[Any, ...]:
    """A chance node's probabilities, exact and normalised to sum to exactly 1 (floats: each
    the nearest float to its exact normalised value)."""
    if not exact:
        fast = _ratios(raw)
        if fast is not None:
            return fast
    ps = []
    for j, x in enumerate(raw):
        p = _number(x, lambda j=j: where(j), "probability")
        if p <= 0:
            raise TreeError(f"{where(j)}: probability must be > 0, got {short(p)}")
        ps.append(p)
    total = sum(ps, Fraction(0))
    if abs(total - 1) > PROBABILITY_TOLERANCE:
        node = where(0).rsplit(".chance[", 1)[0]
        raise TreeError(
            f"{node}: probabilities sum to {short(total)} "
            f"(~{float(total):.12g}), not 1 (tolerance 1e-9)"
        )
    if total != 1:
        ps = [p / total for p in ps]
    if exact:
        return tuple(ps)
    out = tuple(float(p) for p in ps)
    for j, f in enumerate(out):
        if f < sys.float_info.min:  # 0 or subnormal: every window division would be wrong
            raise TreeError(
                f"{where(j)}: probability {short(ps[j])} underflows in floats (below "
                f"{sys.float_info.min:.3g}); read the tree exactly (starbench solve --exact, "
                f"load_tree(..., exact=True))"
            )
    return out


_RATIO_CACHE: dict[Any, tuple[int, int, float] | None] = {}


def _ratio(x: Any) -> tuple[int, int, float] | None:
    """(a, b, a / b) of a probability written as a positive ``a/b``, integer or plain
    decimal, else None (remembered: the same texts recur throughout a file)."""
    t = type(x)
    if t is str:
        a, slash, b = x.partition("/")
        if not (slash and a.isdigit() and b.isdigit()):
            return None
        num, den = int(a), int(b)
    elif t is _Num:
        whole, dot, frac = x.partition(".")
        if not (whole.isdigit() and (not dot or frac.isdigit())):
            return None  # exponents and signs take the general path
        num, den = int(whole + frac), 10 ** len(frac)
    elif t is int:
        num, den = x, 1
    else:
        return None
    if num <= 0 or den <= 0:
        return None
    return num, den, num / den  # int / int rounds correctly


def _ratios(raw: tuple[Any, ...]) -> tuple[float, ...] | None:
    """Floats of probabilities given as ``_ratio`` accepts whose exact sum is 1 (integer
    arithmetic only), else None."""
    cache = _RATIO_CACHE
    parts = []
    for x in raw:
        try:
            r = cache[x]
        except KeyError:
            if len(cache) >= _MEMO_SIZE:
                cache.clear()
            r = cache[x] = _ratio(x)
        except TypeError:
            return None
        if r is None:
            return None
        parts.append(r)
    common = math.lcm(*(r[1] for r in parts))
    if sum(r[0] * (common // r[1]) for r in parts) != common:
        return None
    if any(r[2] < sys.float_info.min for r in parts):
        return None  # underflows in floats: the general path says so
    return tuple(r[2] for r in parts)


def loads_tree(
    text: str, source: str = "<tree>", *, exact: bool = True, max_nodes: int | None = None
) -> ExplicitTree:
    """Parse JSON text into an ExplicitTree, reading every number exactly from its text
    (``exact=False``: the nearest float to it)."""
    return _loads([text], source, exact, max_nodes)


def _loads(text: list[str], source: str, exact: bool, max_nodes: int | None) -> ExplicitTree:
    """``loads_tree`` on a text handed over in a list: the text is freed once it is parsed.
    The cyclic garbage collector is paused meanwhile: the parsed JSON holds no cycles, and
    its millions of new containers would otherwise trigger many full collections."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _loads_now(text, source, exact, max_nodes)
    finally:
        if enabled:
            gc.enable()


def _loads_now(text: list[str], source: str, exact: bool, max_nodes: int | None) -> ExplicitTree:
    try:
        obj = json.loads(
            text.pop(),
            parse_float=_Num,
            parse_constant=_reject_constant,
            object_pairs_hook=_object,
        )
    except json.JSONDecodeError as e:
        raise TreeError(
            f"{source}: malformed JSON: {e.msg} at line {e.lineno} column {e.colno}"
        ) from None
    except ValueError as e:
        raise TreeError(f"{source}: {e}") from None
    except RecursionError:
        raise TreeError(
            f"{source}: the JSON is nested too deeply to read (about 300 tree levels at most)"
        ) from None
    return parse_tree(obj, source, exact=exact, max_nodes=max_nodes, consume=True)


def load_tree(
    path: str | Path,
    *,
    exact: bool = True,
    max_bytes: int | None = JSON_MAX_BYTES,
    max_nodes: int | None = JSON_MAX_NODES,
) -> ExplicitTree:
    """Read a JSON tree file (``exact=False``: floats, far less memory and time; see
    ``starbench.ground.limits`` for the size limits)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if max_bytes is not None and size > max_bytes:
            raise TreeError(
                f"{p}: the file has {size / 1e6:.0f} MB, over the limit of "
                f"{max_bytes / 1e6:.0f} MB (--max-bytes)"
            )
        text = [p.read_text(encoding="utf-8")]
    except OSError as e:
        raise TreeError(f"{p}: cannot read the tree file: {e.strerror}") from None
    except UnicodeDecodeError:
        raise TreeError(f"{p}: the tree file is not UTF-8 text") from None
    return _loads(text, str(p), exact, max_nodes)


def dumps_tree(tree: ExplicitTree) -> str:
    return json.dumps(tree.to_json_obj(), separators=(",", ":"))
