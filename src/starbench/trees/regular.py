"""Random regular *-minimax trees, lazy and deterministic.

Shape.  ``depth`` decision plies (>= 1) with a chance level between consecutive plies, plus one
more chance level below the last ply when ``trailing_chance`` is set.  ``pattern`` says which
decision kinds alternate: ``max,chance,min,chance`` (default: MAX, chance, MIN, chance, ...),
``max,chance`` (single agent: every ply MAX) or ``max,min`` (no chance levels: for alpha-beta).
Decision nodes have ``branching`` children, chance nodes ``chance_arity`` outcomes.  ``levels`` is
the number of internal levels (Ballard's depth: 2 plies = 3 levels).

Determinism.  A node is the tuple ``(level, id, path_sum)``.  The root id is
``splitmix64(tree_seed)``; the ids of the children and every random quantity come from the hash
of the spec's ``generator_version`` (``starbench.trees.generators``): under version 1, child
``j`` of node ``id`` has id ``mix(id, j)`` and every random quantity is ``draw(tree_seed, id,
purpose)``; under version 2 the child is ``splitmix64(id + j * golden)`` and its quantities come
from its id by multiply-shift (``starbench.trees.hashing``).  Nothing is
stored: memory grows with depth, not with tree size, so a 10^12-node tree is created instantly.
Orderings only permute children, so instance i is the same underlying tree under every ordering
and bounds option (paired comparisons).

Transpositions (``pool > 0``).  Every level below the root holds at most ``pool`` distinct
nodes: the edge to child ``j`` of node ``id`` draws a slot ``draw(tree_seed, mix(id, j), POOL) %
pool`` and leads to the node (level, slot), whose id is ``mix(level, slot)`` (``pool_child``).
Every random quantity of a node is drawn from its id, so a node's whole subtree, values
included, is a function of (level, slot) alone: two paths to one slot meet one subtree.  Under
the incremental model a pooled node's offset is the sum of ``level`` increments drawn from its
own id (``pool_offset``: the path sum's distribution, bounds unchanged), not the sum along its
path (two paths to one node would give it two values); parent and child offsets are then
independent.  Searches still see a tree (a node reached twice is entered twice): expectimax
without a transposition table visits ``size`` nodes whatever the pool; a table is what
exploits the sharing.  ``pool = 0`` (the default) gives exactly the trees of before.

Full pass.  Orderings by exact value (``perfect``, ``worst``, ``noisy``, outcome orders
``refuting``/``supporting``) and ``bounds=tree`` (L, U = smallest and largest leaf) need every
internal node's exact expectimax value.  They are computed once, when the tree is built, in one
pass over the whole tree (floats, children in generated order, sums in one explicit loop order)
and stored per internal node; trees over ``full_pass_limit`` nodes (default 10^7) are refused.
That pass is not part of any search: it is never counted in nodes and never timed.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from fractions import Fraction
from typing import Any

from starbench.errors import ConfigError, short
from starbench.ground.limits import COUNT_LIMIT, FULL_PASS_LIMIT, MAX_ARITY, MAX_DEPTH, VALUE_LIMIT
from starbench.trees.generators import DEFAULT_VERSION, GENERATORS
from starbench.trees.hashing import root_id, tree_seed
from starbench.trees.models import (
    BOUNDS,
    CONSTANT_DISTRIBUTIONS,
    DISTRIBUTIONS,
    ORDERINGS,
    OUTCOME_ORDERS,
    PATTERNS,
    STATIC_ORDERINGS,
    VALUE_MODELS,
    spread,
    static_at,
)
from starbench.trees.protocol import Kind

# module constants: looking up an Enum member costs ~150 ns, comparing ~30
MAX, MIN, CHANCE, LEAF = Kind.MAX, Kind.MIN, Kind.CHANCE, Kind.LEAF

#: The default generator version (``tree.generator_version``, ``starbench.trees.generators``):
#: a released version never changes; one that would alter a tree is a new version.  Every
#: row records the version its trees came from.
GENERATOR_VERSION = DEFAULT_VERSION

Node = tuple[int, int, int]  # (level, id, path_sum)


def _p(default: Any, help: str, choices: Any = None, **column: Any) -> Any:
    """A generator parameter: its default, a one-line description and its allowed values (a
    registry), read by ``starbench run --help``; ``column``: how the table declares it
    (``record.columns``): ``condition``, its rank among the figures' conditions (none: no
    condition, and ``plot`` refuses a table that holds two values of it), ``column_dtype``
    where the table stores it otherwise than its type says."""
    return field(default=default, metadata={"help": help, "choices": choices, **column})


#: Specs already found valid by ``validate``.
_VALID: set[tuple[Any, ...]] = set()


def _canonical_skew(skew: Any) -> Any:
    """``skew`` as its rational's lowest terms (``2/4`` and ``0.5`` -> ``1/2``); left as it is
    when it is not a rational (``validate`` refuses it)."""
    try:
        return str(Fraction(str(skew)))
    except (ValueError, ZeroDivisionError):
        return skew


def _has_chance(p: dict[str, Any]) -> bool:
    """Does the pattern have chance levels (between consecutive plies, or trailing)?  (At depth
    1 without a trailing level there are none either; normalising that would move the digests
    of committed cells, hauk2004's depth-1 dice cells, so it is not a rule yet.)"""
    return p["pattern"] != "max,min" or p["trailing_chance"]


def _has_outcomes(p: dict[str, Any]) -> bool:
    """Do chance nodes choose between outcomes (chance nodes of more than one outcome)?"""
    return _has_chance(p) and p["chance_arity"] > 1


_NEEDS_CHANCE = "chance levels (tree.pattern other than max,min, or tree.trailing_chance)"
_NEEDS_OUTCOMES = f"{_NEEDS_CHANCE} of more than one outcome (tree.chance_arity above 1)"

#: Parameters that have an effect only under others: (parameter, does it apply given every
#: parameter's value, what it needs in words).  ``RegularTreeSpec.normalised`` sets them to their
#: defaults where they do not apply (so they never make distinct cells), and ``starbench run``
#: says so in one line (a sweep whose every value collapses is refused).  The rules apply in
#: order, each seeing the earlier ones' resets.  ``tests/test_no_effect.py`` proves them on a grid
#: of generated trees: a rule's "no effect" means identical trees, and identical trees with no
#: rule firing are in its short allowlist, each with its reason.
NO_EFFECT: tuple[tuple[str, Any, str], ...] = (
    (
        "pattern",
        lambda p: p["depth"] >= 2,
        "tree.depth of 2 or more (one ply is the root's alone; its levels below do not alternate)",
    ),
    ("chance_arity", _has_chance, _NEEDS_CHANCE),
    ("distribution", _has_outcomes, _NEEDS_OUTCOMES),
    ("outcome_order", _has_outcomes, _NEEDS_OUTCOMES),
    (
        "outcome_order",
        lambda p: p["outcome_order"] != "probable" or p["distribution"] in ("random", "dice"),
        "tree.distribution=random or dice (outcome_order=probable puts the most probable "
        "outcome first, as uniform and geometric outcomes are generated)",
    ),
    ("skew", lambda p: p["distribution"] == "geometric", "tree.distribution=geometric"),
    ("weight_max", lambda p: p["distribution"] == "random", "tree.distribution=random"),
    ("ordering", lambda p: p["branching"] > 1, "more than one move (tree.branching above 1)"),
    ("noise_sd", lambda p: p["ordering"] == "noisy", "tree.ordering=noisy"),
)


@dataclass(frozen=True)
class RegularTreeSpec:
    """Every parameter of the generator (the ``tree`` config group)."""

    branching: int = _p(4, "moves at every decision node (Ballard's N)", condition=5)
    chance_arity: int = _p(
        4, "outcomes at every chance node (21 with distribution=dice)", condition=6
    )
    depth: int = _p(2, "decision plies; a chance level between consecutive plies", condition=3)
    trailing_chance: bool = _p(False, "one more chance level below the last ply", condition=4)
    pattern: str = _p(
        "max,chance,min,chance", "which decision kinds alternate", PATTERNS, condition=7
    )
    distribution: str = _p("uniform", "outcome probabilities", DISTRIBUTIONS, condition=8)
    skew: str = _p(
        "1/2",
        "geometric distribution: each outcome this times the one before",
        condition=9,
        column_dtype="float64",  # its exact text in skew_text
    )
    weight_max: int = _p(
        16, "random distribution: integer weights drawn from 1..weight_max", condition=10
    )
    value_model: str = _p("incremental", "how leaf values are drawn", VALUE_MODELS, condition=12)
    resolution: int = _p(1_000_000, "values are integers in 0..resolution per level", condition=14)
    bounds: str = _p(
        "declared",
        "L and U: the model's bounds, or the tree's extreme leaves",
        BOUNDS,
        condition=15,
    )
    ordering: str = _p(
        "generated", "order of a decision node's moves", ORDERINGS, condition=11
    )  # with outcome_order: the figures' condition ``order``
    noise_sd: float = _p(
        0.0,
        "ordering=noisy: the noise's standard deviation, in units of the spread (population "
        "standard deviation) of the exact values of the children being ordered: 0 orders "
        "perfectly, 1 adds noise as wide as the children's spread, 10 and more is near random",
        condition=13,
    )
    outcome_order: str = _p("generated", "order of a chance node's outcomes", OUTCOME_ORDERS)
    full_pass_limit: int = _p(
        FULL_PASS_LIMIT, "largest tree for orderings that need a full pass", condition=16
    )
    pool: int = _p(
        0, "ids per level: > 0 draws every level's nodes from this many (a DAG)", condition=17
    )
    generator_version: int = _p(
        GENERATOR_VERSION,
        "the hash the tree is drawn with: 1 (the committed studies) or 2 (one round per child)",
        GENERATORS,
    )

    def normalised(self) -> RegularTreeSpec:
        """The same trees with every parameter that does not apply at its default
        (``ineffective``), so that parameters without effect never make distinct cells, and
        ``skew`` in one spelling (``1/2``, ``2/4``, ``0.5`` are the rational 1/2: one cell)."""
        reset = self.ineffective()
        canonical = _canonical_skew(self.skew)
        if not reset and canonical == self.skew:
            return self
        d = {f.name: f.default for f in fields(self)}
        return RegularTreeSpec(
            **{**asdict(self), "skew": canonical, **{name: d[name] for name, _ in reset}}
        )

    def inapplicable(self) -> list[str]:
        """The parameters that cannot have an effect under the others, whatever their value
        (``NO_EFFECT``; ``skew`` under uniform outcomes, say): the tables show them as ``-``."""
        return list(self.inapplicable_needs())

    def inapplicable_needs(self) -> dict[str, str]:
        """``inapplicable``'s parameters, each with what it needs to apply (its first rule of
        ``NO_EFFECT`` that does not hold): ``{"weight_max": "tree.distribution=random"}``."""
        now = dict(asdict(self))
        out: dict[str, str] = {}
        for name, applies, needs in NO_EFFECT:
            if name not in out and not applies(now):
                out[name] = needs
        return out

    def ineffective(self) -> list[tuple[str, str]]:
        """The parameters set away from their defaults that have no effect under the others,
        with why (``NO_EFFECT``: the one place of these rules), in the rules' order."""
        d = {f.name: f.default for f in fields(self)}
        now = dict(asdict(self))
        out = []
        for name, applies, needs in NO_EFFECT:
            if now[name] != d[name] and not applies(now):
                out.append((name, needs))
                now[name] = d[name]  # later rules see it at its default
        return out

    # ------------------------------------------------------------------ validation
    def validate(self, prefix: str = "tree.") -> RegularTreeSpec:
        """Raise ConfigError naming the first bad key; return self when all is well (a spec
        found valid once is not checked again: specs are frozen)."""
        if self.__dict__.get("_valid"):  # this very object was found valid before
            return self
        try:  # keyed by every field's type and value (5.0 == 5, but only 5 is an integer)
            key = tuple((type(v), v) for v in self.__dict__.values())
            if key in _VALID:
                object.__setattr__(self, "_valid", True)
                return self
        except TypeError:  # an unhashable value: checked below, and refused
            key = None

        def bad(key: str, allowed: str, got: Any) -> ConfigError:
            shown = short(got) if isinstance(got, int) and not isinstance(got, bool) else repr(got)
            return ConfigError(f"{prefix}{key}: {allowed}, got {shown}")

        for f in fields(self):
            v = getattr(self, f.name)
            if f.type in ("int",) and (not isinstance(v, int) or isinstance(v, bool)):
                raise bad(f.name, "must be an integer", v)
            if f.type == "bool" and not isinstance(v, bool):
                raise bad(f.name, "must be true or false", v)
            if f.type == "str" and f.name != "skew" and not isinstance(v, str):
                raise bad(f.name, "must be a string", v)
        if not 1 <= self.depth <= MAX_DEPTH:
            raise bad(
                "depth",
                f"must be an integer >= 1 (decision plies, at most {MAX_DEPTH})",
                self.depth,
            )
        for name in ("branching", "chance_arity"):
            if not 1 <= getattr(self, name) <= MAX_ARITY:
                raise bad(
                    name, f"must be an integer >= 1 (at most {MAX_ARITY})", getattr(self, name)
                )
        if self.pattern not in PATTERNS:
            raise bad("pattern", f"must be one of {', '.join(PATTERNS)}", self.pattern)
        if self.pattern == "max,min" and self.trailing_chance:
            raise bad("trailing_chance", "must be false with pattern max,min (no chance)", True)
        if self.distribution not in DISTRIBUTIONS:
            raise bad(
                "distribution", f"must be one of {', '.join(DISTRIBUTIONS)}", self.distribution
            )
        if self.distribution == "dice" and self.chance_arity != 21:
            raise bad(
                "chance_arity",
                "must be 21 with distribution=dice (the 21 rolls)",
                self.chance_arity,
            )
        try:
            skew = Fraction(str(self.skew))
        except (ValueError, ZeroDivisionError):
            raise bad(
                "skew", "must be a rational number in (0, 1] such as 1/2", self.skew
            ) from None
        if not (0 < skew <= 1):
            raise bad("skew", "must be a rational number in (0, 1] such as 1/2", self.skew)
        if self.weight_max < 1:
            raise bad("weight_max", "must be an integer >= 1", self.weight_max)
        if self.distribution == "random" and self.chance_arity * self.weight_max >= VALUE_LIMIT:
            raise bad(
                "weight_max",
                f"must keep chance_arity x weight_max below 2^53 (exact in floats), here "
                f"chance_arity={self.chance_arity}",
                self.weight_max,
            )
        if self.value_model not in VALUE_MODELS:
            raise bad("value_model", f"must be one of {', '.join(VALUE_MODELS)}", self.value_model)
        if self.resolution < 1:
            raise bad("resolution", "must be an integer >= 1", self.resolution)
        top = self.resolution * (
            len(self.level_kinds) if VALUE_MODELS[self.value_model].incremental else 1
        )
        if top >= VALUE_LIMIT:
            raise bad(
                "resolution",
                f"must keep every value below 2^53 (exact in floats, in both engines): "
                f"resolution x levels < 2^53 with value_model={self.value_model}, here "
                f"{len(self.level_kinds)} levels",
                self.resolution,
            )
        if self.bounds not in BOUNDS:
            raise bad("bounds", f"must be one of {', '.join(BOUNDS)}", self.bounds)
        if self.ordering not in ORDERINGS:
            raise bad("ordering", f"must be one of {', '.join(ORDERINGS)}", self.ordering)
        if self.ordering in STATIC_ORDERINGS and not VALUE_MODELS[self.value_model].incremental:
            raise bad(
                "ordering",
                f"{self.ordering} ordering needs value_model=incremental (the path sum is the "
                f"static value)",
                self.ordering,
            )
        if (
            not isinstance(self.noise_sd, (int, float))
            or isinstance(self.noise_sd, bool)
            or not (0 <= self.noise_sd < float("inf"))
        ):
            raise bad("noise_sd", "must be a finite number >= 0", self.noise_sd)
        if self.outcome_order not in OUTCOME_ORDERS:
            raise bad(
                "outcome_order", f"must be one of {', '.join(OUTCOME_ORDERS)}", self.outcome_order
            )
        if not 0 <= self.pool <= COUNT_LIMIT:
            raise bad(
                "pool",
                "must be an integer >= 0 (at most 2^62; 0: a tree, no transpositions)",
                self.pool,
            )
        if self.generator_version not in GENERATORS:
            raise bad(
                "generator_version",
                f"must be one of {', '.join(map(str, GENERATORS))}",
                self.generator_version,
            )
        if not 1 <= self.full_pass_limit <= COUNT_LIMIT:
            raise bad(
                "full_pass_limit", "must be an integer >= 1 (at most 2^62)", self.full_pass_limit
            )
        if self.needs_full_pass and self.size > self.full_pass_limit:
            what = self.full_pass_reason
            raise ConfigError(
                f"{prefix}{what}: needs a full pass over the tree, allowed up to "
                f"{prefix}full_pass_limit={self.full_pass_limit} nodes; this tree has "
                f"{short(self.size)} nodes"
            )
        if key is not None:
            _VALID.add(key)
            object.__setattr__(self, "_valid", True)
        return self

    # ------------------------------------------------------------------ shape
    @property
    def level_kinds(self) -> tuple[Kind, ...]:
        first, second = PATTERNS[self.pattern]
        chance = self.pattern != "max,min"
        kinds: list[Kind] = []
        for ply in range(self.depth):
            name = first if ply % 2 == 0 else second
            kinds.append(MAX if name == "max" else MIN)
            if chance and (ply < self.depth - 1 or self.trailing_chance):
                kinds.append(CHANCE)
        return tuple(kinds)

    @property
    def levels(self) -> int:
        """Internal levels (Ballard's depth)."""
        return len(self.level_kinds)

    @property
    def arities(self) -> tuple[int, ...]:
        return tuple(self.chance_arity if k == CHANCE else self.branching for k in self.level_kinds)

    @property
    def size(self) -> int:
        """Number of nodes of the whole tree (root and leaves included)."""
        total, width = 1, 1
        for a in self.arities:
            width *= a
            total += width
        return total

    @property
    def size_float(self) -> float:
        """``size`` as a float (the ``tree_size`` column): exact below 2^53, the nearest float
        above, ``inf`` past the float range."""
        try:
            return float(self.size)
        except OverflowError:
            return float("inf")

    @property
    def leaf_count(self) -> int:
        width = 1
        for a in self.arities:
            width *= a
        return width

    @property
    def full_pass_reason(self) -> str | None:
        if ORDERINGS[self.ordering]:
            return "ordering"
        if OUTCOME_ORDERS[self.outcome_order]:
            return "outcome_order"
        if self.bounds == "tree":
            return "bounds"
        return None

    @property
    def needs_full_pass(self) -> bool:
        return self.full_pass_reason is not None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SpecShape:
    """What every instance of a (valid) spec shares: computed once per spec (``shape_of``)."""

    level_kinds: tuple[Kind, ...]
    arities: tuple[int, ...]
    skew: Fraction
    const_probs: tuple[Fraction, ...] | None  # the outcomes' probabilities, if the same everywhere
    declared_bounds: tuple[int, int]


@functools.lru_cache(maxsize=256)
def shape_of(spec: RegularTreeSpec) -> SpecShape:
    """The checked spec's shared parts (``spec.validate()`` first: a bad spec raises each time)."""
    spec.validate()
    kinds = spec.level_kinds
    skew = Fraction(str(spec.skew))
    const = None
    if spec.distribution in CONSTANT_DISTRIBUTIONS:
        dist = DISTRIBUTIONS[spec.distribution]
        const = tuple(dist(spec.chance_arity, 0, [], skew, spec.weight_max))
    bounds = VALUE_MODELS[spec.value_model].declared_bounds(spec.resolution, len(kinds))
    return SpecShape(kinds, spec.arities, skew, const, bounds)


class RegularTree:
    """A lazily generated regular tree: instance ``instance`` of ``spec`` under ``seed``.

    Implements the tree protocol of ``starbench.trees.protocol``.
    """

    def __init__(self, spec: RegularTreeSpec, seed: int = 0, instance: int = 0):
        spec.validate()  # by field types too (5.0 == 5, so shape_of's cache cannot tell them apart)
        shape = shape_of(spec)
        self.spec = spec
        self.seed = seed
        self.instance = instance
        self.tree_seed = tree_seed(seed, instance)
        self.level_kinds = shape.level_kinds
        self.levels = len(self.level_kinds)
        self.arities = shape.arities
        self._incremental = VALUE_MODELS[spec.value_model].incremental
        self._R1 = spec.resolution + 1
        self._skew = shape.skew
        self._dist = DISTRIBUTIONS[spec.distribution]
        self.pool = spec.pool
        self.generator = g = GENERATORS[spec.generator_version]
        self._child, self._increment, self._leaf_value = g.child, g.increment, g.leaf_value
        self._offsets: dict[int, int] = {}  # pooled offsets by id (pool > 0, incremental)
        self._const_probs: tuple[Fraction, ...] | None = shape.const_probs
        self.root: Node = (0, root_id(self.tree_seed), 0)
        self._exact: dict[tuple[int, int], float] = {}
        # the full pass (orderings by value, bounds=tree) runs when the bounds or an exact value
        # are first asked for: a search asks for the bounds when it is made, before its clock
        # starts; the compiled engine, which makes its own arrays, never runs it
        self._bounds: tuple[int, int] | None = None
        if not spec.needs_full_pass:
            self._bounds = shape.declared_bounds

    def _pass(self) -> tuple[int, int]:
        """The bounds, after the full pass where the spec needs one."""
        if self._bounds is None:
            L, U = shape_of(self.spec).declared_bounds
            lo, hi = self._full_pass()
            if self.spec.bounds == "tree":
                L, U = lo, hi
                if L == U:  # a degenerate tree (every leaf equal): widen to keep L < U
                    U = L + 1
            self._bounds = (L, U)
        return self._bounds

    # ------------------------------------------------------------------ protocol
    @property
    def bounds(self) -> tuple[int, int]:
        return self._pass()

    @property
    def L(self) -> int:  # noqa: N802 - the bounds' names throughout
        return self._pass()[0]

    @property
    def U(self) -> int:  # noqa: N802
        return self._pass()[1]

    def kind(self, node: Node) -> Kind:
        level = node[0]
        return LEAF if level == self.levels else self.level_kinds[level]

    def evaluate(self, node: Node) -> int:
        if self._incremental:
            return node[2]
        return self._leaf_value(self.tree_seed, node[1], self._R1)

    def describe(self, node: Node) -> str:
        return f"generated node level={node[0]} id={node[1]:#018x} (tree_seed={self.tree_seed})"

    # ------------------------------------------------------------------ shallow views
    @property
    def static_values(self) -> bool:
        """Do interior nodes have a value of their own (the incremental model's path sum)?"""
        return self._incremental

    def plies_below(self, node: Node) -> int:
        """Decision plies on every path below ``node`` (``starbench.trees.horizon``)."""
        return sum(1 for k in self.level_kinds[node[0] + 1 :] if k != CHANCE)

    def shallow(self, node: Node, plies: int) -> Any:
        """``node``'s subtree cut after ``plies`` decision plies, the cut nodes valued by their
        path sum (``starbench.trees.horizon``; incremental model only)."""
        from starbench.trees.horizon import Horizon

        if not self._incremental:
            raise ValueError("a shallow view needs value_model=incremental")
        cut, seen = self.levels, 0
        for level in range(node[0], self.levels):
            if self.level_kinds[level] != CHANCE:
                if seen == plies:
                    cut = level
                    break
                seen += 1
        lo, hi = shape_of(self.spec).declared_bounds  # every path sum lies in these
        L, U = self.bounds
        return Horizon(self, node, cut, (min(L, lo), max(U, hi)))

    def first_chance(self) -> Node | None:
        node = self.root
        while self.kind(node) not in (CHANCE, LEAF):
            node = self.children(node)[0]
        return node if self.kind(node) == CHANCE else None

    def _pooled(self, node: Node, g: int) -> Node:
        """Child ``g`` (generated order) of ``node`` when ``pool > 0``."""
        level = node[0] + 1
        cid = self.generator.pooled(self.tree_seed, node[1], g, level, self.pool)
        if not self._incremental:
            return (level, cid, 0)
        off = self._offsets.get(cid)
        if off is None:
            off = self._offsets[cid] = self.generator.offset(self.tree_seed, cid, level, self._R1)
        return (level, cid, off)

    def transposition(self, node: Node) -> tuple[int, int]:
        """(key, depth) of a node for a transposition table: its id (equal ids are one subtree:
        the ids of a pool > 0 tree repeat, a tree's never do) and the levels below it."""
        return node[1], self.levels - node[0]

    def _generated(self, node: Node) -> list[Node]:
        level, nid, ps = node
        n = self.arities[level]
        ts = self.tree_seed
        if self.pool:
            return [self._pooled(node, j) for j in range(n)]
        child = self._child
        if self._incremental:
            out = []
            inc, r1 = self._increment, self._R1
            for j in range(n):
                cid = child(nid, j)
                out.append((level + 1, cid, ps + inc(ts, cid, r1)))
            return out
        return [(level + 1, child(nid, j), 0) for j in range(n)]

    def _generated_probs(self, node: Node, kids: list[Node]) -> tuple[Fraction, ...]:
        if self._const_probs is not None:
            return self._const_probs
        return self._dist(
            len(kids),
            self.tree_seed,
            [k[1] for k in kids],
            self._skew,
            self.spec.weight_max,
            self.generator,
        )

    def _value(self, node: Node) -> float:
        """Exact (full-pass) value of a node, as a float."""
        if node[0] == self.levels:
            return float(self.evaluate(node))
        try:
            return self._exact[(node[0], node[1])]
        except KeyError:  # the full pass has not run yet
            self._pass()
            return self._exact[(node[0], node[1])]

    def _noise(self, node: Node) -> float:
        """A node's standard normal ordering noise (twelve seeded uniforms, less 6)."""
        total = 0.0
        for j in range(12):
            total += self.generator.noise(self.tree_seed, node[1], j)
        return total - 6.0

    def _noisy_keys(self, kids: Sequence[Node]) -> list[float]:
        """``ordering=noisy``: each child's exact value plus its noise times ``noise_sd`` times
        the spread of the children's exact values (``models.spread``)."""
        values = [self._value(k) for k in kids]
        scale = self.spec.noise_sd * spread(values)
        return [v + scale * self._noise(k) for v, k in zip(values, kids, strict=True)]

    def _permutation(
        self, node: Node, kids: list[Node], probs: Sequence[Fraction] | None
    ) -> list[int] | None:
        """The order of the generated children, or None for the generated order."""
        level = node[0]
        kind = self.level_kinds[level]
        n = len(kids)
        spec = self.spec
        if kind == CHANCE:
            order = spec.outcome_order
            if order == "generated":
                return None
            if order == "probable":
                assert probs is not None
                return sorted(range(n), key=lambda j: (-probs[j], j))
            parent_max = level == 0 or self.level_kinds[level - 1] != MIN
            ascending = parent_max == (order == "refuting")
            keys = [self._value(k) for k in kids]
        else:
            order = spec.ordering
            if order == "generated":
                return None
            if order == "reversed":
                return list(range(n - 1, -1, -1))
            if order in STATIC_ORDERINGS:
                if not static_at(order, level, self.levels):
                    return None  # this level keeps the generated order
                keys = [float(k[2]) for k in kids]
            elif order == "noisy":
                keys = self._noisy_keys(kids)
            else:
                keys = [self._value(k) for k in kids]
            best_first = order != "worst"
            ascending = (kind == MIN) == best_first
        if ascending:
            return sorted(range(n), key=lambda j: (keys[j], j))
        return sorted(range(n), key=lambda j: (-keys[j], j))

    def children(self, node: Node) -> Sequence[Node]:
        level = node[0]
        kind = self.level_kinds[level]
        spec = self.spec
        if (
            kind == CHANCE and self._const_probs is not None and spec.outcome_order == "generated"
        ) or (kind != CHANCE and spec.ordering in ("generated", "reversed")):
            return _LazyChildren(self, node, kind != CHANCE and spec.ordering == "reversed")
        kids = self._generated(node)
        probs = None
        if self.level_kinds[node[0]] == CHANCE and self.spec.outcome_order == "probable":
            probs = self._generated_probs(node, kids)
        perm = self._permutation(node, kids, probs)
        return kids if perm is None else [kids[j] for j in perm]

    def probabilities(self, node: Node) -> tuple[Fraction, ...]:
        if self._const_probs is not None and self.spec.outcome_order == "generated":
            return self._const_probs
        kids = self._generated(node)
        probs = self._generated_probs(node, kids)
        perm = self._permutation(node, kids, probs)
        return probs if perm is None else tuple(probs[j] for j in perm)

    # ------------------------------------------------------------------ full pass
    def _full_pass(self) -> tuple[int, int]:
        """Exact values of all internal nodes (floats), and the smallest and largest leaf."""
        lo: int | None = None
        hi: int | None = None
        exact = self._exact
        levels = self.levels
        # Iterative post-order: (node, children, next index, accumulator).
        stack: list[list[Any]] = []

        def push(node: Node) -> None:
            kids = self._generated(node)
            kind = self.level_kinds[node[0]]
            probs = None
            if kind == CHANCE:
                probs = [float(p) for p in self._generated_probs(node, kids)]
            acc = 0.0 if kind == CHANCE else None
            stack.append([node, kids, 0, acc, probs, kind])

        push(self.root)
        while stack:
            frame = stack[-1]
            node, kids, i, acc, probs, kind = frame
            if i == len(kids):
                exact[(node[0], node[1])] = acc
                stack.pop()
                if stack:
                    _accumulate(stack[-1], acc)
                continue
            child = kids[i]
            if child[0] == levels:
                v = self.evaluate(child)
                lo = v if lo is None or v < lo else lo
                hi = v if hi is None or v > hi else hi
                _accumulate(frame, float(v))
            else:
                push(child)
        assert lo is not None and hi is not None
        return lo, hi


class _LazyChildren(Sequence):
    """The children of a node in generated or reversed order, each computed (and kept) when it
    is first asked for: a pruning search never pays for the hashes of the moves it skips."""

    __slots__ = ("_tree", "_node", "_reversed", "_n", "_cache")

    def __init__(self, tree: RegularTree, node: Node, reverse: bool):
        self._tree = tree
        self._node = node
        self._reversed = reverse
        self._n = tree.arities[node[0]]
        self._cache: list[Node | None] = [None] * self._n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, j: Any) -> Any:
        if isinstance(j, slice):
            return [self[i] for i in range(*j.indices(self._n))]
        child = self._cache[j]
        if child is None:
            if j < 0:
                j += self._n
            if not 0 <= j < self._n:
                raise IndexError(j)
            level, nid, ps = self._node
            g = self._n - 1 - j if self._reversed else j
            t = self._tree
            if t.pool:
                child = self._cache[j] = t._pooled(self._node, g)
                return child
            cid = t._child(nid, g)
            inc = t._increment(t.tree_seed, cid, t._R1) if t._incremental else 0
            child = self._cache[j] = (level + 1, cid, ps + inc)
        return child

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other)  # type: ignore[call-overload]


def _accumulate(frame: list[Any], v: float) -> None:
    """Fold one child's value into a full-pass frame (generated order, explicit loop)."""
    i = frame[2]
    kind = frame[5]
    if kind == CHANCE:
        frame[3] = frame[3] + frame[4][i] * v
    elif kind == MAX:
        frame[3] = v if frame[3] is None or v > frame[3] else frame[3]
    else:
        frame[3] = v if frame[3] is None or v < frame[3] else frame[3]
    frame[2] = i + 1
