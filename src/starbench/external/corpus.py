"""``starbench corpus export DIR``: a reference corpus of small trees, for any implementation.

Trees chosen to break implementations of chance-node search, each with its exact answer and
every built-in exact algorithm's counters, in a format readable without starbench
(``docs/reference/corpus.md``): ``DIR/trees.json`` and ``DIR/manifest.json``.

The trees come from seeded families (``FAMILIES``): every pattern of MAX, MIN and chance levels
(chance under chance, decision under decision, a chance root, leaves at any depth), arity 1 and
deep chains, ties everywhere (values from a two-value set), leaves at the bounds, wide nodes,
non-uniform and extreme probabilities (1/1000 beside 999/1000), trees without chance (where
minimax and alpha-beta apply), and starbench's own random regular trees.  The same version of
starbench writes the same bytes: a test exports the corpus and compares it with the committed
one (``results/corpus``), and reads it back with plain ``json``, checking every value by an
independent recursion.

Each tree's entry: ``id``, ``family``, ``tree`` (``{"bounds": [L, U], "root": NODE}``, the
format of ``starbench solve``, numbers as JSON integers or ``"a/b"`` strings), ``nodes`` (every
node, leaves included), ``value`` (``"a/b"``), ``best_moves`` (the root's tied best moves;
empty at a chance root) and ``algorithms``: for each exact algorithm that applies, its label,
value, best move and counters (``nodes``, ``leaves`` and the others of
``starbench.search.stats.SearchStats``, and since version 3 the lists per level
``nodes_by_level``, ``leaves_by_level``, ``cutoffs_by_level``, ``probes_by_level``), counted as
``docs/reference/conventions.md`` defines;
``windows``: the root searched again with each of ``WINDOWS`` (narrow, null and zero-width
windows around the exact value), each with what a correct fail-soft search may return
(``expected``) and each windowed algorithm's value, nodes and leaves.
Since version 4 a family of trees kept as they are (``KEPT``), not drawn: ``transpositions``,
DAGs written as trees whose identical subtrees repeat (a transposition table that keys a node
by its subtree sees them as one, as ``starbench`` does for a tree file), each one on which a
search with a table once returned a wrong value in floats (issue 72: a chance node's bound
landing within a rounding of its window's edge, stored as the wrong kind of bound).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

#: The corpus format's version (``manifest.json``), raised with any change of the format:
#: 3 added the counters per level to each algorithm's ``counters``, 4 the kept family
#: ``transpositions``.  ``read`` takes 2, 3 and 4.
VERSION = 4
#: The versions ``read`` takes (a version 2 file has no lists per level).
READS = (2, 3, 4)
#: The version whose seeds make the trees (kept when the format changes, so the trees stay).
TREES_VERSION = 2
TREES = "trees.json"
MANIFEST = "manifest.json"
#: Trees per family.
PER_FAMILY = 30
#: The algorithms' parameters in the corpus (every other parameter at its default).
ALGORITHMS = (
    "minimax",
    "alphabeta",
    "expectimax",
    "star1",
    "star2",
    "star2.5-cyclic:k=2",
    "star2.5-sequential:k=2",
)


#: The root windows each tree is also searched with, as (alpha, beta) offsets from its exact
#: value V in units of d = (U - L) / 64: narrow around V, null windows with V on an edge, wholly
#: above and below V, and zero-width (alpha == beta) at V and below it.
WINDOWS = {
    "narrow": (-1, 1),
    "null-below": (-1, 0),
    "null-above": (0, 1),
    "above": (1, 2),
    "below": (-2, -1),
    "zero-width": (0, 0),
    "zero-width-below": (-1, -1),
}


def expected(v: Fraction, alpha: Fraction, beta: Fraction) -> tuple[str, Fraction, Fraction]:
    """What a fail-soft search of a node of exact value ``v`` with the window (alpha, beta) may
    return: ``("fails low", v, alpha)`` when v <= alpha (any result in [v, alpha]),
    ``("fails high", beta, v)`` when v >= beta, else ``("exact", v, v)``."""
    if v <= alpha:
        return "fails low", v, alpha
    if v >= beta:
        return "fails high", beta, v
    return "exact", v, v


def _fraction_text(x: Fraction) -> int | str:
    return int(x) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _probabilities(rng: random.Random, n: int, style: str) -> list[Fraction]:
    if style == "equal" or n == 1:
        return [Fraction(1, n)] * n
    if style == "extreme":
        small = Fraction(1, 1000)
        rest = 1 - small * (n - 1)
        out = [small] * (n - 1) + [rest]
        rng.shuffle(out)
        return out
    weights = [rng.randint(1, 9) for _ in range(n)]
    total = sum(weights)
    return [Fraction(w, total) for w in weights]


def _random_tree(
    rng: random.Random,
    depth: int,
    kinds: tuple[str, ...],
    arity: tuple[int, int],
    values: tuple[int, ...],
    probs: str,
    leaf_early: float = 0.15,
) -> Any:
    if depth == 0 or rng.random() < leaf_early:
        return rng.choice(values)
    kind = rng.choice(kinds)
    n = rng.randint(*arity)
    children = [
        _random_tree(rng, depth - 1, kinds, arity, values, probs, leaf_early) for _ in range(n)
    ]
    if kind == "chance":
        return {
            "chance": [
                [_fraction_text(p), c]
                for p, c in zip(_probabilities(rng, n, probs), children, strict=True)
            ]
        }
    return {kind: children}


def _family(
    kinds: tuple[str, ...],
    depth: tuple[int, int],
    arity: tuple[int, int],
    values: tuple[int, ...],
    probs: str = "random",
    bounds: tuple[int, int] = (0, 10),
    leaf_early: float = 0.15,
) -> Callable[[random.Random], dict[str, Any]]:
    def make(rng: random.Random) -> dict[str, Any]:
        d = rng.randint(*depth)
        root = _random_tree(rng, d, kinds, arity, values, probs, leaf_early)
        while not isinstance(root, dict):  # a leaf root tests nothing
            root = _random_tree(rng, d, kinds, arity, values, probs, leaf_early)
        return {"bounds": list(bounds), "root": root}

    return make


def _regular(rng: random.Random) -> dict[str, Any]:
    from starbench.trees import RegularTreeSpec
    from starbench.trees.explicit import tree_to_json
    from starbench.trees.regular import RegularTree

    spec = RegularTreeSpec(
        branching=rng.randint(2, 3),
        chance_arity=rng.randint(2, 3),
        depth=rng.randint(1, 2),
        resolution=5,
        distribution=rng.choice(["uniform", "random"]),
    )
    return tree_to_json(RegularTree(spec, seed=rng.randrange(2**32)))


ALL = ("max", "min", "chance")
#: name -> a seeded maker of one tree.
FAMILIES: dict[str, Callable[[random.Random], dict[str, Any]]] = {
    "mixed": _family(ALL, (2, 4), (1, 3), tuple(range(0, 11))),
    "ties": _family(ALL, (2, 4), (2, 3), (4, 6)),
    "at-the-bounds": _family(ALL, (2, 3), (2, 3), (0, 0, 10, 10, 5)),
    "arity-one-chains": _family(ALL, (4, 8), (1, 1), tuple(range(0, 11)), leaf_early=0.0),
    "wide": _family(ALL, (1, 2), (4, 6), tuple(range(0, 11)), leaf_early=0.0),
    "extreme-probabilities": _family(ALL, (2, 3), (2, 3), tuple(range(0, 11)), probs="extreme"),
    "equal-probabilities": _family(ALL, (2, 3), (2, 3), tuple(range(0, 11)), probs="equal"),
    "chance-heavy": _family(("chance", "chance", "max", "min"), (2, 4), (2, 3), (0, 3, 7, 10)),
    "no-chance": _family(("max", "min"), (2, 4), (1, 3), tuple(range(0, 11))),
    "negative-bounds": _family(ALL, (2, 3), (2, 3), (-5, -1, 0, 2, 5), bounds=(-5, 5)),
    "regular": _regular,
}


#: Families of trees kept as they are (``kept/NAME.json`` beside this module), after the drawn
#: ones: family -> the trees' names.
KEPT: dict[str, tuple[str, ...]] = {
    # the reproduction of issue 72 shrunk to 50 nodes: Star1, Star2 and Star2.5 with a table
    # returned 3 where expectimax gives 253/90, on both engines
    "transpositions": ("table-repro",),
}


def kept_path(name: str) -> Path:
    """The file of a kept tree (``KEPT``)."""
    return Path(__file__).resolve().parent / "kept" / f"{name}.json"


def value(n: Any) -> Fraction:
    """The exact expectimax value of a node of the file format (``shrink.value``, a plain
    recursion)."""
    from starbench.external.shrink import exact_node
    from starbench.external.shrink import value as exact_value

    return exact_value(exact_node(n))


def nodes(n: Any) -> int:
    """Every node, leaves included."""
    from starbench.external.shrink import nodes as count

    return count(n)


def _has_chance(n: Any) -> bool:
    if not isinstance(n, dict):
        return False
    ((kind, children),) = n.items()
    return kind == "chance" or any(_has_chance(c) for c in children)


def entry(index: int, family: str, tree: dict[str, Any]) -> dict[str, Any]:
    """One tree's record: its exact answer and each applicable exact algorithm's."""
    from starbench.external.shrink import exact_node, tied_moves
    from starbench.search import reference_search as search
    from starbench.search import search_window
    from starbench.search.registry import get_algorithm, parse_spec
    from starbench.trees.explicit import parse_tree

    root = tree["root"]
    exact = value(root)
    best = list(tied_moves(exact_node(root), exact))
    parsed = parse_tree(tree)
    chance = _has_chance(root)
    applies = [
        (spec, *parse_spec(spec))
        for spec in ALGORITHMS
        if not chance or get_algorithm(parse_spec(spec)[0]).chance
    ]
    answers = []
    for spec, name, params in applies:
        r = search(parsed, name, exact=True, **params)
        answers.append(
            {
                "algorithm": spec,
                "value": _fraction_text(Fraction(r.value)),
                "best_move": r.best_move,
                "counters": {
                    **r.stats.as_dict(),
                    **({} if r.by_level is None else r.by_level.as_dict()),
                },
            }
        )
    L, U = (Fraction(b) for b in tree["bounds"])
    d = (U - L) / 64
    windows = []
    for wname, (lo, hi) in WINDOWS.items():
        alpha, beta = exact + lo * d, exact + hi * d
        what, low, high = expected(exact, alpha, beta)
        results = []
        for spec, name, params in applies:
            if name == "expectimax":  # it ignores windows
                continue
            v, stats = search_window(parsed, name, alpha, beta, exact=True, **params)
            if not low <= v <= high:  # never committed: the corpus would teach a wrong answer
                raise AssertionError(f"corpus tree {index}: {spec} window {wname} returned {v}")
            results.append(
                {
                    "algorithm": spec,
                    "value": _fraction_text(Fraction(v)),
                    "nodes": stats.nodes,
                    "leaves": stats.leaves,
                }
            )
        windows.append(
            {
                "window": wname,
                "alpha": _fraction_text(alpha),
                "beta": _fraction_text(beta),
                "expect": what,
                "range": [_fraction_text(low), _fraction_text(high)],
                "algorithms": results,
            }
        )
    return {
        "id": index,
        "family": family,
        "tree": tree,
        "nodes": nodes(root),
        "value": _fraction_text(exact),
        "best_moves": best,
        "algorithms": answers,
        "windows": windows,
    }


def trees() -> Iterator[tuple[str, int, dict[str, Any]]]:
    """(family, its i-th tree, the tree) of every family, seeded by the family's name (the same
    trees on every machine; ``starbench conform`` feeds them to engines)."""
    for family, make in FAMILIES.items():
        rng = random.Random(f"starbench-corpus-{TREES_VERSION}-{family}")
        for i in range(PER_FAMILY):
            yield family, i, make(rng)
    for family, names in KEPT.items():
        for i, name in enumerate(names):
            yield family, i, json.loads(kept_path(name).read_text())


def build() -> list[dict[str, Any]]:
    """Every family's trees with their answers."""
    return [entry(n, family, tree) for n, (family, _i, tree) in enumerate(trees())]


def dumps(obj: Any) -> str:
    """The corpus's JSON text: sorted keys, one tree a line, no spaces (the same bytes
    everywhere)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def read(folder: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(manifest, trees) of a corpus folder of any version in ``READS``: a version 2 corpus's
    counters have no lists per level (read them as missing); ``InputError`` names a version
    this starbench does not read, or a file whose checksum fails."""
    from starbench.errors import InputError

    folder = Path(folder)
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        raw = (folder / TREES).read_bytes()
    except (OSError, ValueError) as e:
        raise InputError(f"{folder}: not a corpus folder ({e})") from None
    if manifest.get("version") not in READS:
        raise InputError(
            f"{folder / MANIFEST}: corpus version {manifest.get('version')!r}; this starbench "
            f"reads versions {', '.join(map(str, READS))}"
        )
    if hashlib.sha256(raw).hexdigest() != manifest.get("sha256", {}).get(TREES):
        raise InputError(f"{folder / TREES}: its sha256 is not the manifest's")
    return manifest, json.loads(raw)


def export(folder: Path) -> tuple[Path, Path]:
    """Write ``trees.json`` and ``manifest.json`` into ``folder``."""
    from starbench.ground.files import atomic_write_text

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    trees = build()
    text = "[\n" + ",\n".join(dumps(t) for t in trees) + "\n]\n"
    atomic_write_text(folder / TREES, text)
    manifest = {
        "format": "starbench reference corpus",
        "version": VERSION,
        "trees": len(trees),
        "families": {
            **{f: PER_FAMILY for f in FAMILIES},
            **{f: len(names) for f, names in KEPT.items()},
        },
        "algorithms": list(ALGORITHMS),
        "windows": {w: [lo, hi] for w, (lo, hi) in WINDOWS.items()},
        "conventions": (
            "nodes: every call into a node, root and leaves included; leaves: leaf "
            "evaluations; the root searched with (-inf, +inf), fail-soft, non-strict cut-off "
            "tests, ties to the first move; values in exact arithmetic (docs/reference/"
            "conventions.md); windows: the root searched with (V + lo d, V + hi d), V its "
            "exact value, d = (U - L) / 64; a fail-soft answer lies in the window's range"
        ),
        "sha256": {TREES: hashlib.sha256(text.encode()).hexdigest()},
    }
    atomic_write_text(folder / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return folder / TREES, folder / MANIFEST
