"""The registry of algorithms: public name -> class, parameters and what the name fixes.

Names are exactly ``minimax``, ``alphabeta``, ``expectimax``, ``star1``, ``star2``,
``star2.5-cyclic`` and ``star2.5-sequential`` (exact), and ``expectimax-ss``, ``star1-ss`` and
``star2-ss`` (sparse sampling, inexact: ``starbench.search.sampling``).  A spec string names
an algorithm and optionally its parameters: ``star2.5-cyclic:k=3,after_probe=research``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starbench.errors import InputError, StarbenchError, first_line
from starbench.ground.limits import MAX_ALGORITHMS
from starbench.search.alphabeta import AlphaBeta
from starbench.search.base import Search
from starbench.search.chanceprobcut import ChanceProbCut
from starbench.search.expectimax import Expectimax
from starbench.search.mcts import MCTS
from starbench.search.minimax import Minimax
from starbench.search.sampling import ExpectimaxSS, Star1SS, Star2SS
from starbench.search.star1 import Star1
from starbench.search.star2 import AFTER_PROBE, Star2
from starbench.search.star2_first_chance import Star2FirstChance
from starbench.search.star2_probe_level import Star2ProbeLevel
from starbench.search.star2_recursive import Star2RecursiveProbe
from starbench.search.transposition import BYTES_PER_ENTRY, MAX_BITS


def _int_at_least_0(name: str, v: Any) -> int:
    if isinstance(v, bool):
        raise InputError(f"{name} must be an integer >= 0, got {v!r}")
    if isinstance(v, str):
        try:
            v = int(v.strip())
        except ValueError:
            raise InputError(f"{name} must be an integer >= 0, got {v!r}") from None
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if not isinstance(v, int) or v < 0:
        raise InputError(f"{name} must be an integer >= 0, got {v!r}")
    return v


def _int_at_least_1(name: str, v: Any) -> int:
    try:
        n = _int_at_least_0(name, v)
    except InputError:
        n = 0
    if n < 1:
        raise InputError(f"{name} must be an integer >= 1, got {v!r}")
    return n


def _tt_bits(name: str, v: Any) -> int:
    bits = _int_at_least_0(name, v)
    if bits > MAX_BITS:
        raise InputError(f"{name} must be an integer in 0..{MAX_BITS} (log2 of entries), got {v!r}")
    return bits


def _choice(allowed: tuple[str, ...]) -> Callable[[str, Any], str]:
    def check(name: str, v: Any) -> str:
        if v not in allowed:
            raise InputError(f"{name} must be one of {', '.join(allowed)}, got {v!r}")
        return str(v)

    return check


def _bool(name: str, v: Any) -> bool:
    if isinstance(v, bool):
        return v
    text = str(v).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise InputError(f"{name} must be true or false, got {v!r}")


@dataclass(frozen=True)
class Param:
    name: str
    default: Any
    check: Callable[[str, Any], Any]
    doc: str


@dataclass(frozen=True)
class AlgorithmInfo:
    name: str
    cls: type[Search]
    params: tuple[Param, ...] = ()
    fixed: dict[str, Any] = field(default_factory=dict)
    chance: bool = True  # applies to trees with chance nodes
    doc: str = ""
    #: the value is the full tree's expectimax value (an inexact algorithm's rows are
    #: ``approx``, measured by their ``value_error``, never a mismatch against expectimax)
    exact: bool = True
    #: the algorithm whose value a row must equal on the same tree (with the same key
    #: parameters besides ``k``, ``after_probe`` and ``probe_full_window``): expectimax for the
    #: exact family, ``expectimax-ss`` with the same ``samples`` for sparse sampling; None: an
    #: inexact algorithm no other row must equal (MCTS)
    reference: str | None = "expectimax"
    #: where the procedure is published (the docs' algorithm reference shows it)
    citation: str = ""
    #: a reading of a publication tested by a study (``star2-recursive-probe``,
    #: ``star2-probe-level``), not a procedure for general use: run only when named
    reading: bool = False
    #: how the compiled kernel runs it (``exhaustive``, ``windowed``,
    #: ``probing``: ``starbench.compiled.support``), or None: the Python engine only (a plugin
    #: registered by ``register_algorithm`` may change the procedure, so it runs there)
    kernel: str | None = None

    def resolve(self, given: dict[str, Any]) -> dict[str, Any]:
        """Checked parameters with defaults filled in (only this algorithm's own)."""
        known = {p.name: p for p in self.params}
        for key in given:
            if key not in known:
                allowed = ", ".join(known) or "none"
                raise InputError(
                    f"unknown parameter {key!r} for algorithm {self.name} (allowed: {allowed})"
                )
        resolved = {
            p.name: p.check(f"{self.name}: {p.name}", given.get(p.name, p.default))
            for p in self.params
        }
        for name, alone, other, ok, what in NEEDS:
            if resolved.get(name) == alone and name in resolved:
                v = resolved.get(other, self.fixed.get(other))
                if not ok(v):
                    raise InputError(
                        f"{self.name}: {name}={_text(alone)} needs {what} (it has no effect "
                        f"without it), got {other}={_text(v)}"
                    )
        return resolved

    def make(
        self,
        tree: Any,
        params: dict[str, Any] | None = None,
        loaded: dict[str, Any] | None = None,
        **options: Any,
    ) -> Search:
        """The search of ``tree`` with ``params`` resolved (``loaded``: values put in place of
        resolved parameters after the check, as ``AlgorithmSpec.make`` says)."""
        settings = {**self.fixed, **self.resolve(params or {}), **(loaded or {}), **options}
        cls = self.cls
        own = getattr(tree, "search_class", None)  # a tree's own implementation of cls, if any
        if own is not None:
            cls = own(cls, settings)
        if not is_plugin(cls):
            search = cls(tree, **settings)
        else:  # a plugin's constructor: its failure is one line naming it, never a traceback
            try:
                search = cls(tree, **settings)
            except StarbenchError:
                raise
            except Exception as e:  # noqa: BLE001 - the plugin's own error
                raise InputError(
                    f"algorithm {self.name} (plugin class {cls.__module__}.{cls.__qualname__}): "
                    f"its constructor raised {type(e).__name__}: {first_line(e)}"
                ) from None
        search.name = self.name  # the registered name (star2.5-* share the Star2 class)
        return search

    def describe(self) -> str:
        ps = ", ".join(f"{p.name}={p.default} ({p.doc})" for p in self.params) or "no parameters"
        scope = "any tree" if self.chance else "trees without chance nodes"
        return f"{self.name:20s} {self.doc}; {scope}; {ps}"


K = Param("k", 2, _int_at_least_0, "probing factor, integer >= 0")
AFTER = Param("after_probe", "resume", _choice(AFTER_PROBE), "resume or research")
FULL = Param(
    "probe_full_window",
    True,
    _bool,
    "false: no probing phase where the window is the full [L, U] (convention C2's second half)",
)

TT = Param(
    "tt",
    0,
    _tt_bits,
    f"transposition table of 2**tt entries ({BYTES_PER_ENTRY} bytes each), 0 = none",
)
TT_CHANCE = Param(
    "tt_chance",
    False,
    _bool,
    "with tt: a chance node starts each outcome's bounds from the table (Veness and Blair)",
)
TT_NODES = Param(
    "tt_nodes",
    "all",
    _choice(("all", "decision")),
    "with tt: which nodes use the table, all (decision and chance nodes) or decision (MAX and "
    "MIN nodes only, the table of alpha-beta programs)",
)
SAMPLES = Param(
    "samples",
    8,
    _int_at_least_1,
    "outcomes drawn (with replacement, by their probabilities) at every chance node, weight "
    "1/samples each (Lanctot et al. 2013)",
)
TT_DEPTH = Param(
    "tt_depth",
    "equal",
    _choice(("equal", "deeper")),
    "with tt: which entries answer a node, equal (searched to the same depth: exact) or deeper "
    "(searched at least as deep, as game programs do: inexact at a fixed depth, rows approx)",
)


def _nonnegative_number(name: str, v: Any) -> float:
    try:
        x = float(v) if not isinstance(v, bool) else -1.0
    except (TypeError, ValueError):
        x = -1.0
    if not (0 <= x < float("inf")):
        raise InputError(f"{name} must be a finite number >= 0, got {v!r}")
    return x


ITERATIONS = Param(
    "mcts_iterations", 1000, _int_at_least_1, "MCTS iterations (walks from the root)"
)
EXPLORATION = Param("exploration", 1.4, _nonnegative_number, "UCB1's exploration constant c")
SEED = Param("mcts_seed", 0, _int_at_least_0, "the seed of MCTS's draws (with the tree's)")


def _threshold(name: str, v: Any) -> float:
    try:
        x = float(v) if not isinstance(v, bool) else -1.0
    except (TypeError, ValueError):
        x = -1.0
    if not x >= 0:  # NaN too
        raise InputError(f"{name} must be a number >= 0 or inf, got {v!r}")
    return x


def _digest(name: str, v: Any) -> str:
    text = "" if v is None else str(v).strip()
    if text and (len(text) != 12 or any(c not in "0123456789abcdef" for c in text)):
        raise InputError(f"{name} must be a calibration's 12-hex-digit digest, got {v!r}")
    return text


CPC_R = Param(
    "r",
    1,
    _int_at_least_1,
    "ChanceProbCut: decision plies the shallow searches save (a chance node with at most r "
    "plies below is searched exactly)",
)
CPC_T = Param(
    "t",
    1.5,
    _threshold,
    "ChanceProbCut: the cut margin in residual standard deviations (inf: never cut, Star2)",
)
CPC_CAL = Param(
    "cal",
    "",
    _digest,
    "ChanceProbCut: the calibration's digest (starbench calibrate; not needed with t=inf)",
)
TT_PROBE = Param(
    "tt_probe",
    False,
    _bool,
    "with tt_chance: the probe phase uses the table's bounds (tested before any probe; an "
    "outcome the table knows exactly is not probed or searched; probes start from the bounds)",
)

#: Parameters added after results were stored, with their defaults: a result row stores such a
#: parameter (and a label shows it) only where it differs from its default, so rows stored
#: before it existed keep their keys.
LATE_PARAMS: dict[str, Any] = {
    p.name: p.default for p in (FULL, TT, TT_CHANCE, TT_PROBE, TT_NODES, TT_DEPTH)
}
#: The parameters that key a row besides (instance, algorithm), in the key's order: every
#: parameter that changes a search's counters (a new one joins here and in ``LATE_PARAMS``).
KEY_PARAMS: tuple[str, ...] = (
    "k",
    "after_probe",
    FULL.name,
    TT.name,
    TT_CHANCE.name,
    TT_PROBE.name,
    TT_NODES.name,
    SAMPLES.name,
    TT_DEPTH.name,
    ITERATIONS.name,
    EXPLORATION.name,
    SEED.name,
    CPC_R.name,
    CPC_T.name,
)

#: Parameters that have an effect only together with another: (parameter, its value without
#: effect alone, the parameter it needs, the test of that one's value, what it needs in words).
#: Such a request is refused with one line (``AlgorithmInfo.resolve``), never silently run as
#: if the parameter were not there.
NEEDS: tuple[tuple[str, Any, str, Callable[[Any], bool], str], ...] = (
    (TT_CHANCE.name, True, TT.name, lambda v: bool(v), "a table (tt > 0)"),
    (TT_NODES.name, "decision", TT.name, lambda v: bool(v), "a table (tt > 0)"),
    (TT_DEPTH.name, "deeper", TT.name, lambda v: bool(v), "a table (tt > 0)"),
    (TT_PROBE.name, True, TT_CHANCE.name, lambda v: bool(v), "tt_chance=true"),
    (TT_PROBE.name, True, "k", lambda v: v is None or v > 0, "a probe phase (k > 0)"),
)


def is_exact(name: str, params: Any) -> bool:
    """Is a request (an algorithm's name with its parameters, or a row) exact: its algorithm
    is (``AlgorithmInfo.exact``; an unknown plugin's: yes), without ``tt_depth=deeper``?  The
    one rule of which rows are ``approx``."""
    info = ALGORITHMS.get(name)
    return (info is None or info.exact) and params.get("tt_depth") != "deeper"


def key_values(params: Any) -> tuple[Any, ...]:
    """The values of ``KEY_PARAMS`` in a row's key, from resolved parameters or a row (any
    mapping with ``get``): a late parameter at its default (or absent) is None."""
    out = []
    for name in KEY_PARAMS:
        v = params.get(name)
        if v is not None and ((isinstance(v, float) and v != v) or str(v) == "<NA>"):
            v = None  # a NaN or a missing value from a table
        if hasattr(v, "item"):  # a numpy scalar from a table
            v = v.item()
        if name in LATE_PARAMS and v is not None and v == LATE_PARAMS[name]:
            v = None
        out.append(v)
    return tuple(out)


def shown_params(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` without the late parameters at their defaults (what labels and keys show)."""
    return {k: v for k, v in params.items() if not (k in LATE_PARAMS and v == LATE_PARAMS[k])}


def _text(v: Any) -> str:
    """A parameter value as a spec string writes it (``true``, ``false``, ``3``, ``resume``)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def label(name: str, params: Any, others: dict[str, Any] | None = None) -> str:
    """The one label of a request or a row: ``name`` or ``name:P=V,...`` with the key
    parameters in ``KEY_PARAMS`` order, the late ones only where they differ from their
    defaults (``star2:after_probe=research,probe_full_window=false``); ``params``: resolved
    parameters or a row (any mapping with ``get``).  ``others``: a plugin algorithm's own
    parameters, which are not in a row's key (shown after the key's).  ``parse_spec`` reads it
    back."""
    shown = [
        f"{p}={_text(v)}"
        for p, v in zip(KEY_PARAMS, key_values(params), strict=True)
        if v is not None
    ]
    shown += [
        f"{p}={_text(v)}"
        for p, v in (others or {}).items()
        if p not in KEY_PARAMS and v not in (None, "")
    ]
    return f"{name}:{','.join(shown)}" if shown else name


VON_NEUMANN = 'J. von Neumann, "Zur Theorie der Gesellschaftsspiele", Math. Annalen 100, 1928'
KNUTH_MOORE = (
    'D. E. Knuth, R. W. Moore, "An analysis of alpha-beta pruning", Artificial Intelligence 6(4), '
    "1975"
)
MICHIE = (
    'D. Michie, "Game-playing and game-learning automata", in Advances in Programming and '
    "Non-numerical Computation, 1966"
)
BALLARD = (
    'B. W. Ballard, "The *-minimax search procedure for trees containing chance nodes", '
    "Artificial Intelligence 21(3), 1983"
)
KOCSIS = 'L. Kocsis, C. Szepesvari, "Bandit based Monte-Carlo planning", ECML 2006'
LANCTOT = (
    'M. Lanctot, A. Saffidine, J. Veness, C. Archibald, M. H. M. Winands, "Monte Carlo '
    '*-Minimax Search", IJCAI 2013'
)

SCHADD = (
    'M. P. D. Schadd, M. H. M. Winands, J. W. H. M. Uiterwijk, "ChanceProbCut: Forward Pruning '
    'in Chance Nodes", IEEE CIG 2009'
)

ALGORITHMS: dict[str, AlgorithmInfo] = {
    a.name: a
    for a in (
        AlgorithmInfo(
            "minimax",
            Minimax,
            (TT, TT_DEPTH),
            chance=False,
            doc="exhaustive minimax",
            citation=VON_NEUMANN,
            kernel="exhaustive",
        ),
        AlgorithmInfo(
            "alphabeta",
            AlphaBeta,
            (TT, TT_DEPTH),
            chance=False,
            doc="fail-soft alpha-beta",
            citation=KNUTH_MOORE,
            kernel="windowed",
        ),
        AlgorithmInfo(
            "expectimax",
            Expectimax,
            (TT, TT_NODES, TT_DEPTH),
            doc="exhaustive expectimax (Michie 1966)",
            citation=MICHIE,
            kernel="exhaustive",
        ),
        AlgorithmInfo(
            "star1",
            Star1,
            (TT, TT_NODES, TT_CHANCE, TT_DEPTH),
            doc="Ballard's Star1",
            citation=BALLARD,
            kernel="windowed",
        ),
        AlgorithmInfo(
            "star2",
            Star2,
            (AFTER, FULL, TT, TT_NODES, TT_CHANCE, TT_PROBE, TT_DEPTH),
            {"k": 1, "probing": "cyclic"},
            doc="Ballard's Star2 (one probe per successor)",
            citation=BALLARD,
            kernel="probing",
        ),
        AlgorithmInfo(
            "star2.5-cyclic",
            Star2,
            (K, AFTER, FULL, TT, TT_NODES, TT_CHANCE, TT_PROBE, TT_DEPTH),
            {"probing": "cyclic"},
            doc="Star2.5, cyclic probing",
            citation=BALLARD,
            kernel="probing",
        ),
        AlgorithmInfo(
            "star2.5-sequential",
            Star2,
            (K, AFTER, FULL, TT, TT_NODES, TT_CHANCE, TT_PROBE, TT_DEPTH),
            {"probing": "sequential"},
            doc="Star2.5, sequential probing",
            citation=BALLARD,
            kernel="probing",
        ),
        AlgorithmInfo(
            "star2-recursive-probe",
            Star2RecursiveProbe,
            (),
            {"k": 1, "probing": "cyclic", "after_probe": "resume"},
            doc="Star2 whose probes are probes all the way down (a reading of Ballard's "
            "deeper trees); inexact from 5 levels",
            citation=BALLARD,
            exact=False,
            reference=None,  # measured by its value_error against expectimax
            reading=True,
        ),
        AlgorithmInfo(
            "star2-first-chance",
            Star2FirstChance,
            (),
            {"k": 1, "probing": "cyclic", "after_probe": "resume"},
            doc="Star2 probing at the first chance level only, Star1 below (a reading of "
            "Ballard's deeper trees); exact",
            citation=BALLARD,
            reading=True,
        ),
        AlgorithmInfo(
            "star2-probe-level",
            Star2ProbeLevel,
            (),
            {"k": 1, "probing": "cyclic", "after_probe": "resume"},
            doc="Star2, each probe counted as one evaluation at its level (a reading of "
            "Ballard's counts); exact",
            citation=BALLARD,
            reading=True,
        ),
        AlgorithmInfo(
            "chanceprobcut",
            ChanceProbCut,
            (CPC_R, CPC_T, CPC_CAL, AFTER),
            {"k": 1, "probing": "cyclic"},
            doc="Star2 with ChanceProbCut's forward pruning at chance nodes; inexact",
            citation=SCHADD,
            exact=False,
            reference=None,  # measured by its value_error; no row must equal it
        ),
        AlgorithmInfo(
            "mcts",
            MCTS,
            (ITERATIONS, EXPLORATION, SEED),
            doc="Monte Carlo tree search with chance nodes (UCT, outcomes sampled); inexact",
            citation=KOCSIS,
            exact=False,
            reference=None,
        ),
        AlgorithmInfo(
            "expectimax-ss",
            ExpectimaxSS,
            (SAMPLES,),
            doc="expectimax on the sparsely sampled tree (Lanctot et al. 2013); inexact",
            citation=LANCTOT,
            exact=False,
            reference="expectimax-ss",
        ),
        AlgorithmInfo(
            "star1-ss",
            Star1SS,
            (SAMPLES,),
            doc="Star1 on the sparsely sampled tree (Lanctot et al. 2013); inexact",
            citation=LANCTOT,
            exact=False,
            reference="expectimax-ss",
        ),
        AlgorithmInfo(
            "star2-ss",
            Star2SS,
            (AFTER, FULL, SAMPLES),
            {"k": 1, "probing": "cyclic"},
            doc="Star2 on the sparsely sampled tree (Lanctot et al. 2013); inexact",
            citation=LANCTOT,
            exact=False,
            reference="expectimax-ss",
        ),
    )
}


BUILTIN = frozenset(ALGORITHMS)
#: Packages may declare algorithms under this entry-point group: each entry point is a
#: function that calls ``register_algorithm`` (or a module that does so when imported).
ENTRY_POINT_GROUP = "starbench.algorithms"
_entry_points_loaded = False


def register_algorithm(
    name: str,
    cls: type[Search],
    *,
    params: tuple[Param, ...] = (),
    fixed: dict[str, Any] | None = None,
    chance: bool = True,
    doc: str = "",
) -> AlgorithmInfo:
    """Make an algorithm (a subclass of ``starbench.search.base.Search``) available by ``name``
    to ``starbench run``, ``starbench solve`` and ``starbench.search``.  ``params`` are its own
    parameters (``Param(name, default, check, doc)``), ``fixed`` keyword arguments it always gets;
    ``chance=False`` for algorithms that do not search chance nodes.  Registered algorithms run
    on the Python engine (their rows say ``engine=python``); registering a name again with
    another class, or a built-in name, is refused."""
    if name in BUILTIN:
        raise InputError(f"register_algorithm: {name!r} is a built-in algorithm")
    if not (isinstance(cls, type) and issubclass(cls, Search)):
        raise InputError(f"register_algorithm: {name}: {cls!r} is not a Search subclass")
    old = ALGORITHMS.get(name)
    if old is not None and old.cls is not cls:
        raise InputError(f"register_algorithm: {name!r} is already registered ({old.cls})")
    info = AlgorithmInfo(name, cls, tuple(params), dict(fixed or {}), chance, doc)
    ALGORITHMS[name] = info
    return info


#: Entry points that failed to load: "name (package): error", each reported once.
FAILED_PLUGINS: list[str] = []


def load_entry_points(warn: Callable[[str], None] | None = None) -> list[str]:
    """Register the algorithms that installed packages declare (once per process, and only when
    something asks for an algorithm that is not built in, or for the list of them).  A plugin
    that fails to load is reported once, in one line naming its package (``warn``, default
    stderr), and blocks nothing else; returns those lines."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return FAILED_PLUGINS
    _entry_points_loaded = True
    import sys
    from importlib.metadata import entry_points

    say = warn or (lambda line: sys.stderr.write(line + "\n"))
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        package = getattr(getattr(ep, "dist", None), "name", None) or ep.value.split(":")[0]
        try:
            loaded = ep.load()
            if callable(loaded) and not isinstance(loaded, type):
                loaded()
        except Exception as e:  # noqa: BLE001 - a broken plugin is named, never fatal
            text = str(e).strip().splitlines()
            line = (
                f"starbench: plugin {ep.name} of package {package} cannot be loaded "
                f"({type(e).__name__}: {text[0] if text else ''}); its algorithms are not "
                f"available"
            )
            FAILED_PLUGINS.append(line)
            say(line)
    return FAILED_PLUGINS


@dataclass(frozen=True)
class ProbeSettings:
    """How a Star algorithm probes (``star2.Star2``): k moves per successor (0: Star1), cyclic or
    sequential, resume or re-search after the probe, and whether the full window is probed."""

    k: int = 0
    sequential: bool = False
    research: bool = False
    skip_full: bool = False  # probe_full_window=false


@dataclass(frozen=True)
class TableSettings:
    """The transposition table of a search (``search.transposition``): 2**bits entries (0:
    none), at every node or at decision nodes only, and its use at chance nodes."""

    bits: int = 0
    decision_only: bool = False  # tt_nodes=decision
    chance: bool = False  # tt_chance
    probe: bool = False  # tt_probe
    deeper: bool = False  # tt_depth=deeper


@dataclass(frozen=True)
class AlgorithmSpec:
    """One algorithm with its parameters resolved once (checked, defaults filled in): the one
    value a search is made from on either engine, and the only source of its label and of its
    rows' key.  ``AlgorithmSpec("star2")`` and ``AlgorithmSpec.of("star2", {...})`` resolve
    alike; ``params`` then holds every one of the algorithm's own parameters."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        info = get_algorithm(self.name)
        given = dict(self.params)
        if set(given) != {p.name for p in info.params}:  # not yet resolved: resolve it now
            object.__setattr__(self, "params", tuple(info.resolve(given).items()))
        object.__setattr__(self, "name", info.name)

    @classmethod
    def of(cls, name: str, given: dict[str, Any] | None = None) -> AlgorithmSpec:
        """Resolve ``given`` for the algorithm ``name`` (``InputError`` naming what is wrong)."""
        info = get_algorithm(name)
        return cls(info.name, tuple(info.resolve(dict(given or {})).items()))

    @property
    def info(self) -> AlgorithmInfo:
        return get_algorithm(self.name)

    @property
    def own(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def exact(self) -> bool:
        """Is the value the full tree's expectimax value (else: ``approx`` rows)?"""
        return is_exact(self.name, self.own)

    @property
    def settings(self) -> dict[str, Any]:
        """What the algorithm's class is made with: its fixed settings and its parameters."""
        return {**self.info.fixed, **self.own}

    @property
    def label(self) -> str:
        return label(self.name, self.own, self.own)

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.name, *key_values(self.own))

    @property
    def k(self) -> int | None:
        return self.own.get("k")

    @property
    def after_probe(self) -> str | None:
        return self.own.get("after_probe")

    @property
    def probe_full_window(self) -> bool | None:
        """False where set so (convention C2); None at the default (``LATE_PARAMS``)."""
        return shown_params(self.own).get("probe_full_window")

    @property
    def probing(self) -> ProbeSettings:
        s = self.settings
        if "probing" not in s:  # not a probing algorithm
            return ProbeSettings()
        return ProbeSettings(
            int(s["k"]),
            s["probing"] == "sequential",
            s["after_probe"] == "research",
            not s["probe_full_window"],
        )

    @property
    def table(self) -> TableSettings:
        s = self.own
        return TableSettings(
            int(s.get("tt") or 0),
            s.get("tt_nodes") == "decision",
            bool(s.get("tt_chance")),
            bool(s.get("tt_probe")),
            s.get("tt_depth") == "deeper",
        )

    def make(self, tree: Any, loaded: dict[str, Any] | None = None, **options: Any) -> Search:
        """The Python engine's search of ``tree`` (``options``: exact, debug, budgets, table;
        ``loaded``: values the caller loaded in place of some of the spec's own parameters, as
        a calibration read for its digest: ``RunSettings.loaded``)."""
        return self.info.make(tree, self.own, loaded, **options)


def resolve(name: str, params: dict[str, Any] | None = None) -> AlgorithmSpec:
    """``AlgorithmSpec.of``, remembered per (name, typed parameters): the public API and the
    benchmark resolve the same request many times."""
    try:
        key = (name, tuple(sorted((p, type(v), v) for p, v in (params or {}).items())))
        hash(key)
    except TypeError:  # an unhashable value: resolve refuses it
        return AlgorithmSpec.of(name, params)
    return _resolved(*key)


@functools.lru_cache(maxsize=512)
def _resolved(name: str, items: tuple[tuple[str, type, Any], ...]) -> AlgorithmSpec:
    return AlgorithmSpec.of(name, {p: v for p, _, v in items})


def is_plugin(cls: type) -> bool:
    """Is ``cls`` a plugin's search class (defined outside starbench)?  A plugin's constructor
    failing is one line naming it, and with a time budget its search runs in a process killed
    past it (``ground.isolate``): it may block where the deadline cannot stop it."""
    return not cls.__module__.startswith("starbench.")


def get_algorithm(name: str) -> AlgorithmInfo:
    if name not in ALGORITHMS:
        load_entry_points()
    try:
        return ALGORITHMS[name]
    except KeyError:
        failed = f"; {len(FAILED_PLUGINS)} plugin(s) failed to load" if FAILED_PLUGINS else ""
        raise InputError(
            f"unknown algorithm {name!r} (allowed: {', '.join(ALGORITHMS)}{failed})"
        ) from None


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"star2.5-cyclic:k=3,after_probe=research"`` -> (name, {"k": "3", ...}), checked."""
    name, _, rest = spec.partition(":")
    info = get_algorithm(name.strip())
    params: dict[str, str] = {}
    if rest.strip():
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise InputError(
                    f"bad algorithm parameter {item!r} in {spec!r} (write NAME:PARAM=VALUE,...)"
                )
            params[key.strip()] = value.strip()
    info.resolve(params)
    return info.name, params


def split_specs(text: str) -> list[str]:
    """``"expectimax,star2.5-cyclic:k=2,after_probe=research,star1"`` -> the three specs.

    A comma starts a new spec unless what follows is ``PARAM=VALUE`` without a colon (then it
    is another parameter of the spec before)."""
    specs: list[str] = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        if specs and "=" in token and ":" not in token:
            specs[-1] += f",{token}"
        else:
            specs.append(token)
    return specs


def expand_spec(spec: str) -> list[str]:
    """A spec whose integer parameters may be ranges ``A..B`` (inclusive), as one spec per
    combination: ``star2.5-cyclic:k=0..2`` -> ``star2.5-cyclic:k=0``, ``...:k=1``, ``...:k=2``."""
    name, colon, rest = spec.partition(":")
    if not colon:
        return [spec]
    combos: list[list[str]] = [[]]
    for item in rest.split(","):
        key, eq, value = item.partition("=")
        lo, dots, hi = value.partition("..")
        if eq and dots:
            try:
                a, b = int(lo), int(hi)
            except ValueError:
                raise InputError(
                    f"bad range {value!r} in {spec!r} (write e.g. k=0..6, integers, inclusive)"
                ) from None
            if b < a:
                raise InputError(f"empty range {value!r} in {spec!r} (the first is larger)")
            if b - a + 1 > MAX_ALGORITHMS:
                raise InputError(
                    f"range {value!r} in {spec!r} has {b - a + 1} values, over the "
                    f"{MAX_ALGORITHMS} algorithms a list may hold"
                )
            values = [str(v) for v in range(a, b + 1)]
        else:
            values = [value]
        combos = [[*c, f"{key}={v}"] if eq else [*c, item] for c in combos for v in values]
        if len(combos) > MAX_ALGORITHMS:
            raise InputError(
                f"{spec!r} expands to {len(combos)} algorithms, over the {MAX_ALGORITHMS} a list "
                f"may hold"
            )
    return [f"{name}:{','.join(c)}" for c in combos]


def parse_specs(text: str) -> list[tuple[str, dict[str, str]]]:
    """A list of specs in the syntax of ``starbench solve --algorithm``, ranges expanded, every
    one checked: ``"expectimax,star2.5-cyclic:k=0..6"``."""
    specs = [s for spec in split_specs(text) for s in expand_spec(spec)]
    if len(specs) > MAX_ALGORITHMS:
        raise InputError(
            f"the list expands to {len(specs)} algorithms, over the {MAX_ALGORITHMS} a list may "
            f"hold"
        )
    return [parse_spec(s) for s in specs]
