"""``starbench shrink``: the smallest tree on which an algorithm disagrees with expectimax.

A *disagreement* of an algorithm on a tree, searched in exact (``Fraction``) arithmetic: its
value differs from the expectimax value, or its best move at a decision root lies outside the
tied set (the root's children whose expectimax value equals the root's), or it raises.  The
expectimax values are computed here by a plain recursion over the tree (``value``),
independently of every search in ``starbench.search``.

``shrink`` reduces a tree on which the algorithm disagrees, one step at a time, to a
*1-minimal* one: no single step of ``steps`` keeps the disagreement.  Each step makes the tree
strictly smaller in (nodes, then the sizes of its numbers), so the reduction ends; it is
deterministic (the steps are tried in a fixed order, the first that keeps the disagreement is
taken, and the search starts again from the root).  The steps, biggest first, at every node in
pre-order:

* replace a subtree by a leaf (its own expectimax value, a bound, 0, 1 or -1);
* replace a subtree by one of its children;
* drop one child of a decision node, or one outcome of a chance node (the others' probabilities
  scaled to sum to 1);
* make a chance node's probabilities equal;
* set a leaf to a smaller integer (0, 1, -1, 2, -2, a bound);
* narrow the bounds ``[L, U]`` to small integers that still hold every leaf.

Nodes are counted as everywhere in starbench: every node, leaves included.

Each search has a time limit (``time_limit``, ``shrink --time-limit``, 10 s by default): a
search still running then is stopped and counts as raising (``BudgetExceeded``).  Every tree
found failing is asked again, and taken only when it fails again: a candidate that does not is
passed over, and a given tree that does not fail twice is refused (``NotReproducible``), so a
nondeterministic algorithm never yields a "minimal" tree that does not reproduce.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from starbench.errors import StarbenchError, deadline

#: The most candidate trees one ``shrink`` evaluates (each is one search of the algorithm).
MAX_EVALUATIONS = 20_000
#: The seconds one search of a candidate may take (``shrink --time-limit``).
TIME_LIMIT_S = 10.0
#: The key of a shrunk tree's file that holds both answers (``solve`` ignores it).
ANSWERS = "disagreement"  # ``trees.explicit.NOTE``

Node = Any  # a Fraction (leaf), {"max": [...]}, {"min": [...]}, {"chance": [[p, node], ...]}


def exact_node(obj: Any) -> Node:
    """A tree's node with every number a Fraction (numbers from JSON: ints, floats, strings)."""
    if isinstance(obj, dict):
        ((kind, children),) = obj.items()
        if kind == "chance":
            return {kind: [[Fraction(str(p)), exact_node(c)] for p, c in children]}
        return {kind: [exact_node(c) for c in children]}
    if type(obj) is int:  # the common case, without parsing text
        return Fraction(obj)
    return Fraction(str(obj)) if not isinstance(obj, Fraction) else obj


def _json(n: Node) -> Any:
    """A node in the file format: integers as numbers, other fractions as ``"a/b"`` strings."""
    if isinstance(n, dict):
        ((kind, children),) = n.items()
        if kind == "chance":
            return {kind: [[_number(p), _json(c)] for p, c in children]}
        return {kind: [_json(c) for c in children]}
    return _number(n)


def _number(x: Fraction) -> int | str:
    return int(x) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def value(n: Node) -> Fraction:
    """The exact expectimax value of a node (a plain recursion)."""
    if not isinstance(n, dict):
        return n
    ((kind, children),) = n.items()
    if kind == "chance":
        total = sum(p for p, _c in children)
        return sum((p * value(c) for p, c in children), Fraction(0)) / total
    values = [value(c) for c in children]
    return max(values) if kind == "max" else min(values)


def nodes(n: Node) -> int:
    """Every node, leaves included."""
    if not isinstance(n, dict):
        return 1
    ((kind, children),) = n.items()
    return 1 + sum(nodes(c[1] if kind == "chance" else c) for c in children)


def _weight(n: Node) -> int:
    """The sizes of a node's numbers (a step that keeps the node count must lower it)."""
    if not isinstance(n, dict):
        return abs(n.numerator) + n.denominator
    ((kind, children),) = n.items()
    if kind == "chance":
        return sum(p.numerator + p.denominator + _weight(c) for p, c in children)
    return sum(_weight(c) for c in children)


@dataclass(frozen=True)
class Tree:
    bounds: tuple[Fraction, Fraction]
    root: Node

    @classmethod
    def of(cls, obj: dict[str, Any]) -> Tree:
        lo, hi = obj["bounds"]
        return cls((Fraction(str(lo)), Fraction(str(hi))), exact_node(obj["root"]))

    @functools.cached_property
    def valued(self) -> tuple[Fraction, tuple[int, ...]]:
        """``value_and_tied`` of the root, computed once per tree (a tree is judged against
        it, and its window drawn from it)."""
        return value_and_tied(self.root)

    def size(self) -> tuple[int, int]:
        lo, hi = self.bounds
        return (nodes(self.root), _weight(self.root) + _weight(lo) + _weight(hi))

    def json(self) -> dict[str, Any]:
        return {"bounds": [_number(b) for b in self.bounds], "root": _json(self.root)}

    def leaves(self) -> Iterator[Fraction]:
        stack = [self.root]
        while stack:
            n = stack.pop()
            if isinstance(n, dict):
                ((kind, children),) = n.items()
                stack.extend(c[1] if kind == "chance" else c for c in children)
            else:
                yield n


@dataclass(frozen=True)
class Disagreement:
    """What the algorithm answered on a tree, and what expectimax says."""

    algorithm: str
    expected: Fraction
    value: Any  # the algorithm's value (None when it raised)
    best_move: Any
    tied: tuple[int, ...]  # the root's tied best moves (empty at a chance or leaf root)
    error: str | None = None

    def describe(self) -> str:
        if self.error is not None:
            return f"{self.algorithm} raises {self.error}"
        if self.value != self.expected:
            got, want = _number(Fraction(self.value)), _number(self.expected)
            return f"{self.algorithm} = {got}, expectimax = {want}"
        return (
            f"{self.algorithm} plays move {self.best_move}, outside expectimax's tied best "
            f"moves {list(self.tied)}"
        )

    def json(self, tree: Tree, evaluations: int) -> dict[str, Any]:
        return {
            "algorithm": self.algorithm,
            "expectimax": {"value": _number(self.expected), "tied_best_moves": list(self.tied)},
            "algorithm_answer": {
                "value": None if self.value is None else _number(Fraction(self.value)),
                "best_move": self.best_move,
                "error": self.error,
            },
            "nodes": nodes(tree.root),
            "evaluations": evaluations,
        }


def value_and_tied(root: Node) -> tuple[Fraction, tuple[int, ...]]:
    """``value(root)`` and ``tied_moves`` of it, each child valued once."""
    if not isinstance(root, dict) or "chance" in root:
        return value(root), ()
    ((kind, children),) = root.items()
    values = [value(c) for c in children]
    best = max(values) if kind == "max" else min(values)
    return best, tuple(i for i, v in enumerate(values) if v == best)


def tied_moves(root: Node, expected: Fraction) -> tuple[int, ...]:
    """A decision root's children whose expectimax value is the root's ``expected`` (empty at
    a chance root or a leaf)."""
    if not isinstance(root, dict) or "chance" in root:
        return ()
    ((_kind, children),) = root.items()
    return tuple(i for i, c in enumerate(children) if value(c) == expected)


class NotReproducible(StarbenchError):
    """The algorithm failed on a tree once and agreed with expectimax when asked again."""


def disagreement(
    tree: Tree, spec: str, time_limit: float | None = TIME_LIMIT_S, worker: Any = None
) -> Disagreement | None:
    """How ``spec`` (``NAME[:PARAM=VALUE,...]``) disagrees with expectimax on ``tree`` in
    exact arithmetic, or None when it agrees; a search past ``time_limit`` seconds is stopped
    and disagrees (it raised ``BudgetExceeded``, or its ``worker`` process was killed:
    ``worker_for``)."""
    from starbench.ground.isolate import KILL_GRACE_S
    from starbench.search.registry import parse_spec

    name, params = parse_spec(spec)
    expected = value(tree.root)
    tied = tied_moves(tree.root, expected)
    request = (tree.json(), name, params, time_limit)
    try:
        if worker is not None and time_limit is not None:
            got, best = worker.call(request, time_limit + KILL_GRACE_S)
        else:
            got, best = searched(request)
    except Exception as e:  # noqa: BLE001 - a search that raises disagrees
        return Disagreement(spec, expected, None, None, tied, f"{type(e).__name__}: {e}")
    if got != expected:
        return Disagreement(spec, expected, got, best, tied)
    if tied and best is not None and best not in tied:
        return Disagreement(spec, expected, got, best, tied)
    return None


def searched(request: tuple[str, str, dict[str, Any], float | None]) -> tuple[Any, Any]:
    """(value, best move) of one exact search: (tree JSON, algorithm, parameters, time
    limit), stopped by the deadline at the limit."""
    from starbench.search import reference_search
    from starbench.trees.explicit import parse_tree

    text, name, params, time_limit = request
    with deadline(time_limit, grace=0.0):
        r = reference_search(parse_tree(text), name, exact=True, **params)
    return r.value, r.best_move


def worker_for(spec: str, time_limit: float | None) -> Any:
    """The process a plugin's searches run in (``ground.isolate.Worker``, killed a second past
    ``time_limit``: a plugin may block where the deadline cannot stop it; one process for every
    search, so a plugin's state lasts from search to search as in one process), or None for
    starbench's own algorithms, which stop at the deadline.  The caller closes it."""
    from starbench.ground.isolate import Worker
    from starbench.search.registry import get_algorithm, is_plugin, parse_spec

    name, _params = parse_spec(spec)
    if time_limit is None or not is_plugin(get_algorithm(name).cls):
        return None
    return Worker(searched)


SMALL = (Fraction(0), Fraction(1), Fraction(-1), Fraction(2), Fraction(-2))


def _replace(n: Node, path: tuple[int, ...], new: Node | None) -> Node:
    """``n`` with the node at ``path`` replaced by ``new`` (None: removed from its parent; a
    chance outcome removed leaves the others' probabilities to the recursion's total)."""
    if not path:
        return new
    ((kind, children),) = n.items()
    i, rest = path[0], path[1:]
    out = list(children)
    child = children[i][1] if kind == "chance" else children[i]
    sub = _replace(child, rest, new)
    if sub is None and not rest:
        del out[i]
        if kind == "chance":
            total = sum(p for p, _c in out)
            out = [[p / total, c] for p, c in out]
    else:
        out[i] = [children[i][0], sub] if kind == "chance" else sub
    return {kind: out}


def _paths(n: Node, at: tuple[int, ...] = ()) -> Iterator[tuple[tuple[int, ...], Node]]:
    yield at, n
    if isinstance(n, dict):
        ((kind, children),) = n.items()
        for i, c in enumerate(children):
            yield from _paths(c[1] if kind == "chance" else c, (*at, i))


def steps(tree: Tree) -> Iterator[Tree]:
    """Every single reduction of ``tree``, biggest first (see the module's docstring)."""
    lo, hi = tree.bounds
    inside = [x for x in (*SMALL, lo, hi) if lo <= x <= hi]
    for path, n in _paths(tree.root):
        if not isinstance(n, dict):
            continue
        ((kind, children),) = n.items()
        for leaf in dict.fromkeys([value(n), *inside]):
            yield Tree(tree.bounds, _replace(tree.root, path, leaf))
        for c in children:
            yield Tree(tree.bounds, _replace(tree.root, path, c[1] if kind == "chance" else c))
        if len(children) > 1:
            for i in range(len(children)):
                yield Tree(tree.bounds, _replace(tree.root, (*path, i), None))
        if kind == "chance" and len({p for p, _c in children}) > 1:
            even = Fraction(1, len(children))
            yield Tree(
                tree.bounds, _replace(tree.root, path, {kind: [[even, c] for _p, c in children]})
            )
    for path, n in _paths(tree.root):
        if not isinstance(n, dict):
            for x in inside:
                if abs(x.numerator) + x.denominator < abs(n.numerator) + n.denominator:
                    yield Tree(tree.bounds, _replace(tree.root, path, x))
    leaves = list(tree.leaves())
    low, high = min(leaves), max(leaves)
    for a, b in ((-1, 1), (0, 1), (-2, 2), (-10, 10), (-100, 100)):
        if a <= low and high <= b and a < b and (Fraction(a), Fraction(b)) != tree.bounds:
            yield Tree((Fraction(a), Fraction(b)), tree.root)


@dataclass(frozen=True)
class Shrunk:
    tree: Tree
    disagreement: Disagreement
    evaluations: int
    start_nodes: int


def shrink(
    tree: Tree,
    spec: str,
    max_evaluations: int = MAX_EVALUATIONS,
    check: Callable[[Tree, str], Disagreement | None] = disagreement,
) -> Shrunk | None:
    """The 1-minimal tree the reduction reaches from ``tree`` (None when ``spec`` agrees with
    expectimax on ``tree``).  Stops early, still a disagreement, after ``max_evaluations``."""
    found = check(tree, spec)
    if found is None:
        return None
    if check(tree, spec) is None:
        raise NotReproducible(
            f"{spec} disagreed with expectimax once and agreed when asked again: its answers "
            f"are not a function of the tree, so no tree is minimal for it"
        )
    evaluations, start = 2, nodes(tree.root)
    while evaluations < max_evaluations:
        size = tree.size()
        for candidate in steps(tree):
            if candidate.size() >= size:
                continue
            evaluations += 1
            got = check(candidate, spec)
            if got is not None:
                evaluations += 1
                if check(candidate, spec) is not None:  # fails again: taken
                    tree, found = candidate, got
                    break
            if evaluations >= max_evaluations:
                break
        else:
            break  # no step keeps the disagreement: 1-minimal
    return Shrunk(tree, found, evaluations, start)


def write(shrunk: Shrunk, path: Any) -> None:
    """The shrunk tree in the format ``solve`` reads, both answers under ``ANSWERS``."""
    from starbench.ground.files import atomic_write_text

    doc = {**shrunk.tree.json(), ANSWERS: shrunk.disagreement.json(shrunk.tree, shrunk.evaluations)}
    atomic_write_text(path, json.dumps(doc, indent=1) + "\n")
