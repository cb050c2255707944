"""Typed settings of one run (one cell of a study), and their config schemas.

``RunConfig`` and friends are the structured-config schemas Hydra validates the YAML files and
overrides against (types, unknown keys).  ``RunSettings.from_config`` turns a composed config into
frozen, range-checked settings; everything after that is plain Python that tests call without
Hydra.  Range errors are ``ConfigError``s naming the key and what is allowed.

Choices documented here (one place):

* rows are keyed by ``(instance, algorithm, *registry.KEY_PARAMS)`` = ``(instance, algorithm,
  k, after_probe, probe_full_window, tt, tt_chance, tt_probe)`` with the parameters resolved
  (defaults filled in; the parameters added later, ``registry.LATE_PARAMS``, are stored only
  where they differ from their defaults), so a study is extended, never redone;
* a cell's default folder is ``results/<name>/<cell>``, where ``<cell>`` is built from the tree
  parameters, the seed, the arithmetic and the generator version (``cell_name``): not from the
  clock, not from ``trees`` or the algorithm list;
* ``budget_exceeded`` and ``error`` rows are results too: they are kept on resume (node budgets
  are deterministic; time budgets are not).
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, make_dataclass
from fractions import Fraction
from typing import Any

from starbench.engines import AUTO_RUN_NODES, ENGINES, choose
from starbench.errors import ConfigError, InputError, short
from starbench.games.spec import GAME_KEYS, GameSpec
from starbench.ground.limits import (
    COUNT_LIMIT,
    EXPECTIMAX_LIMIT,
    MAX_ALGORITHMS,
    ORACLE_MEMORY_LIMIT,
    SIZE_LIMIT,
    TABLE_MEMORY_LIMIT,
)
from starbench.oracles import positions
from starbench.record.identity import cell_digest, cell_identity
from starbench.search.calibration import check_request
from starbench.search.registry import (
    KEY_PARAMS,
    AlgorithmSpec,
    get_algorithm,
    parse_specs,
)
from starbench.trees.regular import RegularTreeSpec

_HINTS = typing.get_type_hints(RegularTreeSpec)

#: The ``tree`` config group's schema: the generator's parameters and defaults, and the keys of
#: a game tree (``tree=game``; null for random trees: ``starbench.games.spec``).
TreeConfig = make_dataclass(
    "TreeConfig",
    [
        *((f.name, _HINTS[f.name], field(default=f.default)) for f in fields(RegularTreeSpec)),
        # every game key is text, null unless tree=game sets it
        *((key, typing.Optional[str], field(default=None)) for key in GAME_KEYS),  # noqa: UP045
    ],
)


RESUME = ("auto", "force")
TIMINGS = ("repeat", "once")


def _k(default: Any, help: str, choices: Any = None) -> Any:
    """A run key: its default, a one-line description and its allowed values, read by
    ``starbench run --help``."""
    return field(default=default, metadata={"help": help, "choices": choices})


def algorithm_config() -> type:
    """The Hydra schema of one ``algorithms`` entry, derived from the registry: ``name`` and
    every parameter a registered algorithm declares (optional; its type from its default), so a
    new algorithm parameter needs no schema edit."""
    from starbench.search.registry import ALGORITHMS

    params: dict[str, Any] = {}
    for info in ALGORITHMS.values():
        for p in info.params:
            kind = type(p.default)
            params.setdefault(p.name, kind if kind in (int, float, str, bool) else Any)
    return make_dataclass(
        "AlgorithmConfig",
        [
            ("name", str, field(default="expectimax")),
            *((n, typing.Optional[t], field(default=None)) for n, t in params.items()),  # noqa: UP045
        ],
    )


AlgorithmConfig = algorithm_config()


UINT64_MAX = 2**64 - 1


def check_table_memory(where: str, params: Any, limit: int) -> None:
    """Refuse a transposition table whose memory (``2**tt`` x ``BYTES_PER_ENTRY``, the
    documented layout) is over ``limit`` bytes (one line, naming the key that raises it)."""
    from starbench.search.transposition import BYTES_PER_ENTRY

    bits = int(dict(params).get("tt") or 0)
    need = (1 << bits) * BYTES_PER_ENTRY if bits else 0
    if need > limit:
        raise ConfigError(
            f"{where}: a table of 2^{bits} entries takes about {need / 2**30:.3g} GiB "
            f"({BYTES_PER_ENTRY} bytes an entry), over table_memory_limit={limit} bytes; use a "
            f"smaller tt or raise table_memory_limit"
        )


def check_underflow(spec: RegularTreeSpec) -> None:
    """Refuse, in float mode, outcome probabilities that underflow (0 or a subnormal float),
    where every window division and weighted sum would be wrong; exact mode is the remedy."""
    import sys

    from starbench.trees.regular import shape_of

    probs = shape_of(spec).const_probs
    if probs and min(float(p) for p in probs) < sys.float_info.min:
        raise ConfigError(
            f"tree.skew: {short(Fraction(str(spec.skew)))} with {spec.chance_arity} outcomes makes "
            f"the least likely "
            f"outcome's probability underflow in floats (below {sys.float_info.min:.3g}); run "
            f"exact=true (fractions) or choose a larger tree.skew"
        )


def algorithm_spec(name: str, params: dict[str, Any], where: str = "algorithms") -> AlgorithmSpec:
    try:
        return AlgorithmSpec.of(name, params)
    except InputError as e:
        raise ConfigError(f"{where}: {e}") from None


def _check_int(key: str, v: Any, lo: int, hi: int | None = None, what: str = "") -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
        if hi is None:
            rng = f">= {lo}{what}"
        elif hi == COUNT_LIMIT or hi == 1024:  # the integer columns' bound (limits.py)
            rng = f">= {lo}{what} (at most {'2^62' if hi == COUNT_LIMIT else hi})"
        else:
            rng = f"in [{lo}, {hi}]{what}"
        got = short(v) if isinstance(v, int) and not isinstance(v, bool) else repr(v)
        raise ConfigError(f"{key}: must be an integer {rng}, got {got}")
    return v


def _number_or_null(key: str, v: Any, unit: str) -> None:
    if v is not None and (
        isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v < float("inf")
    ):
        raise ConfigError(f"{key}: must be a number > 0 ({unit}) or null, got {v!r}")


@dataclass(frozen=True)
class RunSettings:
    """Everything one cell needs, checked when made (the library path gets every check the
    command line gets).  The one place of every run default and its description: the Hydra
    schema ``RunConfig`` is derived from these fields, and ``starbench run --help`` reads them."""

    tree: RegularTreeSpec | GameSpec
    algorithms: tuple[AlgorithmSpec, ...]
    name: str = _k("default", "the study: cells land in results/<name>/<cell>")
    trees: int = _k(20, "instances per cell (the first batch when target_se is set)")
    target_se: float | None = _k(
        None, "grow each cell until every percent of expectimax's leaves has this standard error"
    )
    max_trees: int = _k(5000, "with target_se: the most instances a cell may grow to")
    seed: int = _k(0, "the run's seed; instance i of a cell is the same tree for everyone")
    exact: bool = _k(False, "search in exact fractions (Python engine)")
    engine: str = _k(
        "auto",
        f"auto (compiled wherever it applies, on cells of over {AUTO_RUN_NODES} nodes in all; "
        "one choice per algorithm for a whole sweep, and a grown cell keeps its rows' engine), "
        "compiled or python",
        ENGINES,
    )
    engine_nodes: int | None = _k(
        None,
        "with engine=auto: the nodes in all the choice weighs in place of the cell's own; a "
        "sweep sets its largest cell's, so each algorithm runs on one engine across the study "
        "(timings never mix engines); not part of the cell",
    )
    n_jobs: int = _k(1, "local processes over the instances of a cell")
    node_budget: int | None = _k(None, "nodes per search; more gives a budget_exceeded row")
    time_budget: float | None = _k(None, "seconds per search (not deterministic)")
    expectimax_limit: int = _k(EXPECTIMAX_LIMIT, "expectimax is skipped on larger trees")
    size_limit: int = _k(SIZE_LIMIT, "larger trees need node_budget or time_budget")
    csv: bool = _k(False, "also write table.csv")
    resume: str = _k("auto", "auto: continue a folder of this commit; force: any commit", RESUME)
    progress: bool = _k(True, "show progress")
    timing: str = _k(
        "repeat",
        "repeat: a search under 1 ms of CPU is repeated until its repeats take 1 ms, so every "
        "search is timed; once: each search once (a cell of many tiny trees in a fraction of "
        "the time; its sub-0.1 ms times are left out of the timing figure)",
        TIMINGS,
    )
    debug: bool = _k(False, "check every windowed result with a full-window search (slow)")
    levels_detail: bool = _k(
        False,
        "count nodes, leaves, cut-offs and probes per level in every row (the nodes_by_level "
        "columns; costs the compiled engine about a tenth of its speed on leaf-heavy trees); "
        "not part of the cell",
    )
    table_memory_limit: int = _k(
        TABLE_MEMORY_LIMIT, "bytes a transposition table may take (2**tt x 32 bytes estimated)"
    )
    oracle_memory_limit: int = _k(
        ORACLE_MEMORY_LIMIT, "bytes a game's exact oracle may take while it is computed"
    )
    shards: int = _k(
        1,
        "split each cell's instances into this many jobs (instance i goes to shard i mod "
        "shards); not part of the cell",
    )
    shard: Any = _k(None, "with shards: run only these shards, e.g. 'shard=[3,5]' (default: all)")
    #: the run's own config folder (``-cd DIR``), where ChanceProbCut's calibrations are looked
    #: for first: not a config key, and not part of the cell or the request
    config_dir: str | None = field(default=None, compare=False, metadata={"internal": True})

    def __post_init__(self) -> None:
        spec, specs = self.tree, self.algorithms
        if not specs:
            raise ConfigError("algorithms: must list at least one algorithm")
        if isinstance(spec, GameSpec):
            for i, a in enumerate(specs):
                if not get_algorithm(a.name).chance:
                    raise ConfigError(
                        f"algorithms[{i}]: {a.name} does not search chance nodes, and "
                        f"{spec.game} has them; use expectimax or a star algorithm"
                    )
        elif spec.pattern != "max,min" or spec.trailing_chance:
            for i, a in enumerate(specs):
                if not get_algorithm(a.name).chance:
                    raise ConfigError(
                        f"algorithms[{i}]: {a.name} does not search chance nodes, and these trees "
                        f"have chance levels (tree.pattern={spec.pattern}); use expectimax or a "
                        f"star algorithm, or tree.pattern='max,min'"
                    )
        seen = set()
        for i, s in enumerate(specs):
            if s.key in seen:
                raise ConfigError(
                    f"algorithms[{i}]: {s.label} is listed twice (rows are keyed by the "
                    f"algorithm and {', '.join(KEY_PARAMS)}: other parameters cannot vary in "
                    f"one cell)"
                )
            seen.add(s.key)
        loaded = {}
        for i, s in enumerate(specs):
            if s.name == "chanceprobcut":
                try:
                    cal = check_request(s.own, spec, self.seed, self.config_dir)
                except InputError as e:
                    raise ConfigError(f"algorithms[{i}]: {e}") from None
                if cal is not None:
                    loaded[s.key] = {"cal": cal}
        object.__setattr__(self, "_loaded", loaded)
        _check_int("trees", self.trees, 1, COUNT_LIMIT)
        _check_int("seed", self.seed, 0, UINT64_MAX)
        _check_int("n_jobs", self.n_jobs, 1, 1024)
        if self.engine_nodes is not None:
            _check_int("engine_nodes", self.engine_nodes, 1, COUNT_LIMIT, " or null")
        _check_int("expectimax_limit", self.expectimax_limit, 1, COUNT_LIMIT)
        _check_int("size_limit", self.size_limit, 1, COUNT_LIMIT)
        if self.node_budget is not None:
            _check_int("node_budget", self.node_budget, 1, COUNT_LIMIT, what=" or null")
        _check_int("table_memory_limit", self.table_memory_limit, 1)
        _check_int("oracle_memory_limit", self.oracle_memory_limit, 1)
        if len(specs) > MAX_ALGORITHMS:
            raise ConfigError(
                f"algorithms: at most {MAX_ALGORITHMS} algorithms in one cell, got {len(specs)}"
            )
        for i, a in enumerate(specs):
            check_table_memory(f"algorithms[{i}]: {a.label}", a.params, self.table_memory_limit)
        if not isinstance(spec, GameSpec) and not self.exact:
            check_underflow(spec)
        _number_or_null("time_budget", self.time_budget, "seconds")
        if self.resume not in RESUME:
            raise ConfigError(f"resume: must be one of {', '.join(RESUME)}, got {self.resume!r}")
        if self.timing not in TIMINGS:
            raise ConfigError(f"timing: must be one of {', '.join(TIMINGS)}, got {self.timing!r}")
        for i, a in enumerate(specs):  # the engine seam's rules, before anything runs
            try:
                choose(
                    self.engine,
                    a.name,
                    exact=self.exact,
                    debug=self.debug,
                    time_budget=self.time_budget,
                    tree=spec,
                )
            except InputError as e:
                where = f"(algorithms[{i}]: {a.name})"
                raise ConfigError(str(e).replace(f"({a.name})", where)) from None
        if isinstance(spec, GameSpec) and self.node_budget is None and self.time_budget is None:
            drawn = positions.drawn_position(spec, self.seed, 0)
            nodes, moves, outcomes = spec.size_estimate(self.seed, drawn)
            if nodes > self.size_limit:
                raise ConfigError(
                    f"tree: {spec.game} searched {spec.depth} plies deep may visit about "
                    f"{nodes:.3g} nodes (up to {moves} moves x {outcomes} outcomes on the first "
                    f"position's path), over size_limit={self.size_limit:.3g}: set "
                    f"node_budget (nodes) or time_budget (seconds) to bound every search, or "
                    f"raise size_limit"
                )
        if (
            spec.size is not None
            and spec.size > self.size_limit
            and self.node_budget is None
            and self.time_budget is None
        ):
            raise ConfigError(
                f"tree: these trees have {spec.size_float:.3g} nodes "
                f"(tree.branching={spec.branching}, tree.chance_arity={spec.chance_arity}, "
                f"tree.depth={spec.depth}), over "
                f"size_limit={self.size_limit:.3g}: set node_budget (nodes) or time_budget "
                f"(seconds) to bound every search, or raise size_limit"
            )
        _number_or_null("target_se", self.target_se, "percentage points")
        if self.target_se is not None:
            _check_int(
                "max_trees",
                self.max_trees,
                self.trees,
                COUNT_LIMIT,
                what=" (and >= trees when target_se is set)",
            )
        else:
            _check_int("max_trees", self.max_trees, 1, COUNT_LIMIT)
        name = self.name
        if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
            raise ConfigError(f"name: must be a folder name (no '/'), got {name!r}")
        self._check_shards()

    def _check_shards(self) -> None:
        _check_int("shards", self.shards, 1, COUNT_LIMIT)
        if self.shards > 1 and self.target_se is not None:
            raise ConfigError(
                f"shards: {self.shards} cannot be combined with target_se (a cell that grows "
                f"to a standard error decides its size from all its rows at once); drop one"
            )
        if self.shard is None:
            return
        given = self.shard if isinstance(self.shard, tuple) else (self.shard,)
        for v in given:
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < self.shards:
                raise ConfigError(
                    f"shard: each index must be an integer in 0..{self.shards - 1} "
                    f"(shards={self.shards}), got {v!r}"
                )
        if not given or len(set(given)) != len(given):
            raise ConfigError(f"shard: must list distinct shard indices, got {list(given)}")

    def loaded(self, spec: AlgorithmSpec) -> dict[str, Any]:
        """Parameter values this run loaded for ``spec``'s searches in place of the spec's own:
        a ChanceProbCut calibration read from the run's config folder (the spec keeps its
        digest; a search process has no other way to that folder)."""
        return self._loaded.get(spec.key, {})  # type: ignore[attr-defined]

    @property
    def selected_shards(self) -> Sequence[int]:
        """The shards this run computes (every one unless ``shard`` names some): a ``range``,
        never a list of every number, so that ``shards`` far above ``trees`` costs nothing."""
        if self.shard is None:
            return range(self.shards)
        return self.shard if isinstance(self.shard, tuple) else (self.shard,)

    def shards_below(self, n: int) -> Sequence[int]:
        """The selected shards that hold instances when the cell is cut into ``n`` shards (the
        requested count capped at the trees: ``shards.effective_shards``)."""
        if self.shard is None:
            return range(min(self.shards, n))
        return tuple(i for i in self.selected_shards if i < n)

    @classmethod
    def from_config(cls, cfg: Any, config_dir: str | None = None) -> RunSettings:
        """Settings from a composed config (a DictConfig or a plain mapping); every key it does
        not set takes ``RunSettings``' default, and the settings check themselves.
        ``config_dir``: the run's own config folder (``-cd DIR``), if any."""
        from omegaconf import DictConfig, OmegaConf

        if isinstance(cfg, DictConfig):
            cfg = {
                k: OmegaConf.to_container(cfg[k], resolve=True)
                if OmegaConf.is_config(cfg[k])
                else cfg[k]
                for k in cfg
                if k != "hydra"
            }
        cfg = dict(cfg)
        cfg.pop("hydra", None)
        known = {f.name for f in fields(RunConfig)}
        for key in cfg:
            if key not in known:
                raise ConfigError(f"{key}: unknown key{_nearest(key, known)}")
        spec = tree_spec(dict(cfg.get("tree") or {}))
        specs = []
        if cfg.get("algorithm_specs"):
            try:
                inline = parse_specs(str(cfg["algorithm_specs"]))
            except InputError as e:
                raise ConfigError(f"algorithms: {e}") from None
            for i, (name, params) in enumerate(inline):
                specs.append(algorithm_spec(name, params, f"algorithms[{i}]"))
        else:
            for i, a in enumerate(cfg.get("algorithms") or []):
                a = dict(a)
                name = a.pop("name", None)
                params = {k: v for k, v in a.items() if v is not None}
                specs.append(algorithm_spec(str(name), params, f"algorithms[{i}]"))
        own = {f.name: cfg.get(f.name, f.default) for f in _SCALARS}
        for key in ("exact", "csv", "progress", "debug"):
            own[key] = bool(own[key])
        if isinstance(own["shard"], list):
            own["shard"] = tuple(own["shard"])
        return cls(tree=spec, algorithms=tuple(specs), **own, config_dir=config_dir)

    def cell_identity(self) -> dict[str, Any]:
        return cell_identity(self.tree, self.seed, self.exact)

    @property
    def cell(self) -> str:
        return cell_digest(self.cell_identity())


def tree_spec(tree_cfg: dict[str, Any]) -> RegularTreeSpec | GameSpec:
    """The checked spec of a ``tree`` config: a game (``tree.game`` set) or random trees."""
    regular = {f.name: f for f in fields(RegularTreeSpec)}
    unknown = set(tree_cfg) - set(regular) - set(GAME_KEYS)
    if unknown:
        raise ConfigError(f"tree.{sorted(unknown)[0]}: unknown tree parameter")
    if tree_cfg.get("game") is not None:
        for key, f in regular.items():
            if key != "depth" and key in tree_cfg and tree_cfg[key] != f.default:
                raise ConfigError(
                    f"tree.{key}: a game tree has no {key} (it takes depth, {', '.join(GAME_KEYS)})"
                )
        game = {k: tree_cfg[k] for k in GAME_KEYS if tree_cfg.get(k) is not None}
        if "depth" in tree_cfg:
            game["depth"] = tree_cfg["depth"]
        if not isinstance(game["game"], str):
            raise ConfigError(f"tree.game: must be a game name, got {game['game']!r}")
        return positions.check_sampler(GameSpec(**game).validate("tree."))
    for key in GAME_KEYS:
        if tree_cfg.get(key) is not None:
            raise ConfigError(
                f"tree.{key}: only game trees take {key}; set tree.game (tree=game) or drop it"
            )
    own = {k: v for k, v in tree_cfg.items() if k in regular}
    return RegularTreeSpec(**own).validate("tree.").normalised()


def no_effect_notes(tree_cfg: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(key, what it needs, one line) for every tree parameter of a random-tree config that has
    no effect under the others (``RegularTreeSpec.ineffective``); call it on a config
    ``tree_spec`` accepted."""
    if tree_cfg.get("game") is not None:
        return []
    regular = {f.name for f in fields(RegularTreeSpec)}
    raw = RegularTreeSpec(**{k: v for k, v in tree_cfg.items() if k in regular})
    return [
        (
            f"tree.{name}",
            needs,
            f"tree.{name}={getattr(raw, name)} has no effect: it applies only with {needs} "
            f"(the cell is the one without it)",
        )
        for name, needs in raw.ineffective()
    ]


#: The run keys with a plain value (every field but the tree and the algorithms).
_SCALARS = tuple(
    f
    for f in fields(RunSettings)
    if f.name not in ("tree", "algorithms") and not f.metadata.get("internal")
)
_RUN_HINTS = typing.get_type_hints(RunSettings)

#: The Hydra schema of ``starbench run``: derived from ``RunSettings`` (the same keys, types,
#: defaults and descriptions), with the config's own forms of the tree and the algorithms and
#: the keys that steer a run or sweep rather than a cell.
RunConfig = make_dataclass(
    "RunConfig",
    [
        (_SCALARS[0].name, str, field(default=_SCALARS[0].default, metadata=_SCALARS[0].metadata)),
        (
            "tree",
            Any,
            field(
                default_factory=TreeConfig, metadata={"help": "the tree generator (tree.KEY below)"}
            ),
        ),
        (
            "algorithms",
            list[AlgorithmConfig],
            field(
                default_factory=list,
                metadata={
                    "help": "a file of conf/algorithms (algorithms=ballard), or an inline list "
                    "algorithms=[expectimax,star2.5-cyclic:k=0..6] (NAME:PARAM=VALUE,..., "
                    "ranges A..B)"
                },
            ),
        ),
        ("algorithm_specs", str | None, _k(None, "what an inline algorithms=[...] list becomes")),
        *(
            (f.name, _RUN_HINTS[f.name], field(default=f.default, metadata=f.metadata))
            for f in _SCALARS[1:]
        ),
        (
            "extend",
            bool,
            _k(False, "let a sweep over other keys add its cells to a results folder"),
        ),
        (
            "plugins",
            list[str],
            field(
                default_factory=list,
                metadata={"help": "modules imported first (they may register algorithms)"},
            ),
        ),
        (
            "sweeps",
            list[Any],
            field(
                default_factory=list,
                metadata={"help": "an experiment's several sweeps: a list of {key: 'v1,v2', ...}"},
            ),
        ),
    ],
)


def nearest(key: str, known: Any) -> str | None:
    """The known name closest to a misspelt ``key``, if any is close."""
    import difflib

    close = difflib.get_close_matches(key, sorted(known), n=1)
    return close[0] if close else None


def _nearest(key: str, known: set[str]) -> str:
    close = nearest(key, known)
    return f" (did you mean {close}?)" if close else f" (known: {', '.join(sorted(known))})"


def cell_name(tree: dict[str, Any], seed: int, exact: bool) -> str:
    """A readable, deterministic folder name for a cell: every tree parameter that is not at its
    default appears in it (the digest at the end covers everything)."""
    if tree.get("game") is not None:
        game = tree_spec(tree)
        digest = cell_digest(cell_identity(game, seed, exact))
        return "_".join([*game.name_parts(), f"s{seed}", "exact" if exact else "float", digest])
    tree = {k: v for k, v in tree.items() if k not in GAME_KEYS}
    spec = RegularTreeSpec(**tree).normalised()
    ident = cell_identity(spec, seed, exact)
    digest = cell_digest(ident)
    pattern = {"max,chance,min,chance": "mcmc", "max,chance": "mc", "max,min": "mm"}.get(
        spec.pattern, "x"
    )
    default = RegularTreeSpec()
    skew = str(spec.skew) if len(str(spec.skew)) <= 24 else short(Fraction(str(spec.skew)))
    extra = {  # every other parameter, where it is not its default (after normalisation)
        "skew": f"skew{skew.replace('/', '-')}",
        "weight_max": f"w{spec.weight_max}",
        "resolution": f"r{spec.resolution}",
        "noise_sd": f"noise{spec.noise_sd:g}",
        "full_pass_limit": f"fp{spec.full_pass_limit}",
        "pool": f"pool{spec.pool}",
    }
    shown = [text for key, text in extra.items() if getattr(spec, key) != getattr(default, key)]
    parts = [
        f"d{spec.depth}{'t' if spec.trailing_chance else ''}",
        f"b{spec.branching}",
        f"c{spec.chance_arity}",
        pattern,
        spec.distribution,
        *shown,
        spec.value_model,
        f"{spec.ordering}-{spec.outcome_order}",
        f"bounds-{spec.bounds}",
        f"s{seed}",
        "exact" if exact else "float",
        f"g{spec.generator_version}",
        digest,
    ]
    return "_".join(parts)
