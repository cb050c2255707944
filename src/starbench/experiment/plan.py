"""Planning a run: every cell of a run or sweep composed and checked before anything runs.

``plan(argv)`` reads a ``starbench run`` command line as Hydra would (``-cd DIR``, ``-cn NAME``,
``-m``, overrides), composes every cell with Hydra's Compose API (an experiment may list several
sweeps under ``sweeps``: the study is their union) and checks it: types and unknown keys by the
config schemas, ranges by ``RunSettings``, the output folder by the resume rules.  The first
problem raises ``ConfigError`` (one line); else it returns one value, a ``Plan``, that the
Hydra entry (``starbench.commands.run``), ``collect``, ``calibrate`` and the sweeper
(``hydra_plugins.starbench_sweeper``) read.  Nothing here keeps state between calls: the
config folder given with ``-cd`` travels in the plan and in each cell's settings.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, NamedTuple

from omegaconf import OmegaConf

from starbench.errors import ConfigError, InputError, first_line
from starbench.experiment.cellfolder import check_folder, check_writable
from starbench.experiment.settings import RunConfig, RunSettings, cell_name, nearest
from starbench.experiment.shards import missing_shards
from starbench.ground.configs import CONF_DIR
from starbench.ground.overrides import key_of, launcher_overrides, without_shard
from starbench.record.coverage import Request
from starbench.record.integrity import read_document, write_document
from starbench.record.storage import CELL, MANIFEST, read_json, shard_journals

#: The sweeper that launches the union of an experiment's ``sweeps`` as one batch
#: (``hydra_plugins.starbench_sweeper``).
UNION_SWEEPER = "starbench"
#: Hydra's flags that print something and run nothing.
HYDRA_INFO_FLAGS = frozenset(
    {
        "--hydra-help",
        "--version",
        "--cfg",
        "-c",
        "--info",
        "--resolve",
        "--package",
        "-p",
        "--shell-completion",
        "-sc",
    }
)
#: Hydra's flags of which one command takes at most one (Hydra refuses the others with a
#: traceback; here they are one line, exit 2).
EXCLUSIVE_FLAGS = (
    ("run", "--run"),
    ("multirun", "-m/--multirun"),
    ("cfg", "--cfg"),
    ("info", "--info"),
    ("shell_completion", "-sc/--shell-completion"),
)


# --------------------------------------------------------------------------- the schema
def _cell_resolver(*, _root_: Any) -> str:
    tree = OmegaConf.to_container(_root_.tree, resolve=True)
    return cell_name(tree, _root_.seed, _root_.exact)  # type: ignore[arg-type]


def register_schema() -> None:
    """Give Hydra starbench's run schema and the ``${sb_cell:}`` resolver that names a cell's
    folder (``conf/hydra``); idempotent, and done when this module is imported, so any
    process that composes a run's config (the driver, a launcher's job) has them."""
    from hydra.core.config_store import ConfigStore

    if not OmegaConf.has_resolver("sb_cell"):
        OmegaConf.register_new_resolver("sb_cell", _cell_resolver)
    ConfigStore.instance().store(name="run_schema", node=RunConfig)


register_schema()


# --------------------------------------------------------------------------- plugins, settings
def import_plugin(module: str, key: str = "plugins") -> None:
    """Import a module that may register algorithms (``starbench.register_algorithm``)."""
    try:
        importlib.import_module(module)
    except ImportError as e:
        raise ConfigError(f"{key}: cannot import {module!r} ({e})") from None
    except Exception as e:  # noqa: BLE001 - a plugin's own error, named with its module
        raise ConfigError(
            f"{key}: importing plugin module {module!r} raised {type(e).__name__}: {first_line(e)}"
        ) from None


def load_plugins(cfg: Any) -> None:
    """Import the modules ``plugins`` names; installed entry points are loaded only when an
    algorithm that is not built in is asked for (``registry.get_algorithm``)."""
    for module in cfg.get("plugins") or []:
        import_plugin(module)


def settings_of(cfg: Any, config_dir: str | None = None) -> RunSettings:
    """A composed cell config's checked settings (its plugins imported first)."""
    load_plugins(cfg)
    return RunSettings.from_config(cfg, config_dir)


# --------------------------------------------------------------------------- the plan
class Cell(NamedTuple):
    """One planned cell: its overrides, its settings, its folder."""

    overrides: list[str]
    settings: RunSettings
    folder: Path


@dataclass(frozen=True)
class Plan:
    """What a ``starbench run`` command asks, checked: the one value planning returns.

    ``launch`` is Hydra's command line for the launch (with starbench's sweeper for a
    multirun, unless the command names its own); ``jobs`` the launcher's jobs (one per cell,
    or per selected shard); ``notes`` what to say before anything runs; ``swept`` the keys a
    sweep varies; ``config_dir`` and ``config_name`` the command's ``-cd`` (absolute) and
    ``-cn`` (when not the default); ``output_elsewhere`` whether the launcher sends its jobs'
    output to files (submitit, SLURM), so that the driver shows the cells' summaries."""

    multirun: bool
    cells: tuple[Cell, ...]
    sweep_dir: Path | None
    launch: tuple[str, ...]
    jobs: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...]
    swept: tuple[str, ...]
    config_dir: str | None
    config_name: str | None
    output_elsewhere: bool

    @property
    def own_sweeper(self) -> bool:
        """Does starbench's sweeper launch this plan's jobs (so complete cells are left out)?"""
        return f"hydra/sweeper={UNION_SWEEPER}" in self.launch

    def context(self, overrides: list[str], sweep: bool) -> dict[str, Any]:
        """What a planned cell's command had beside its overrides (``launch.command_context``
        without Hydra's runtime), so that the command printed to rerun it works as printed."""
        return {
            "config_dir": self.config_dir,
            "config_name": self.config_name,
            "launcher": launcher_overrides(overrides),
            "sweep": sweep,
        }

    def jobs_without(self, complete: list[Cell]) -> list[list[str]]:
        """The launcher's jobs without those of the ``complete`` cells (a sharded cell's
        too)."""
        done = {tuple(without_shard(c.overrides)) for c in complete}
        return [list(j) for j in self.jobs if tuple(without_shard(j)) not in done]


def skipped_line(cells: int) -> str:
    """The line that says how many complete cells a sweep does not launch."""
    return f"starbench: {cells} complete cells skipped"


def is_complete(folder: Path) -> bool:
    """Does ``folder`` hold a cell that says it is complete?  When every planned cell does, a
    run has nothing to compute (``run_cell`` still verifies each table and journal, and
    continues a cell they show short), so the entry runs the cells itself without Hydra's
    launch (about half of the CPU of a rerun, and no job on a cluster)."""
    cell = read_json(folder / CELL)
    return bool(cell) and cell.get("status") == "complete"


def plan(argv: list[str]) -> Plan:
    """Compose and check every cell of the command line ``argv`` before anything runs (see the
    module's docstring); ``ConfigError`` (one line) at the first problem."""
    from hydra import compose
    from hydra.core.override_parser.overrides_parser import OverridesParser

    args = hydra_args(argv)
    config_dir = str(Path(args.config_dir).resolve()) if args.config_dir else None
    config_name = args.config_name if args.config_name not in (None, "config") else None
    notes: list[str] = []
    multirun = bool(args.multirun)
    overrides = list(args.overrides)
    name = args.config_name or "config"
    parser = OverridesParser.create()
    parsed = parser.parse_overrides(overrides)
    fixed = [o.input_line for o in parsed if not o.is_sweep_override()]
    with hydra_search_path(args.config_dir):
        base = compose(name, overrides=fixed, return_hydra_config=True)
        sub_sweeps = [
            [f"{k}={v}" for k, v in dict(sweep).items()] for sweep in (base.get("sweeps") or [])
        ]
        multirun = (
            multirun
            or bool(sub_sweeps)
            or str(base.hydra.mode) == "RunMode.MULTIRUN"
            or base.hydra.mode == "MULTIRUN"
        )
        if multirun:
            check_launcher(base.hydra.launcher)
        for o in parsed:
            _check_commas(o, multirun)
        sweep_keys = {o.get_key_element().lstrip("+~") for o in parsed if o.is_sweep_override()}
        sweep_keys |= {str(k) for k in (base.hydra.sweeper.params or {})}
        for sub in sub_sweeps:
            sweep_keys |= {key_of(p) for p in sub}
        launch = _launch_line(argv, overrides, parsed, multirun)
        if multirun:  # the sweeper's own expansion (Hydra's private sweeper API, used there)
            sweeps = [dict(sweep) for sweep in (base.get("sweeps") or [])]
            grid = union_cells(sweeps, base.hydra.sweeper.params, overrides, parser)
        else:
            grid = [overrides]
        cells: list[Cell] = []
        first: dict[Path, tuple[list[str], Any]] = {}  # folder -> its first cell and settings
        folders: list[Path] = []
        needs: dict[str, str] = {}  # tree key -> what it needs to have an effect
        for overrides_of_cell in grid:
            # a single run's cell is the base config itself: composed once
            cfg = (
                base
                if not multirun
                else compose(name, overrides=list(overrides_of_cell), return_hydra_config=True)
            )
            shown = [c for c in overrides_of_cell if key_of(c) in sweep_keys]
            where = f"in sweep cell {' '.join(shown)}: " if multirun else ""
            try:
                settings = settings_of(cfg, config_dir)
                _check_order(cfg)
                if multirun:
                    folder = Path(str(cfg.hydra.sweep.dir)) / str(cfg.hydra.sweep.subdir)
                    key = "hydra.sweep.dir"
                else:
                    folder = Path(str(cfg.hydra.run.dir))
                    key = "hydra.run.dir"
                check_folder(settings, folder, key)
            except InputError as e:
                raise ConfigError(f"{where}{e}") from None
            from starbench.experiment.settings import no_effect_notes

            tree = OmegaConf.to_container(cfg.tree, resolve=True)
            for tkey, need, line in no_effect_notes(dict(tree)):  # type: ignore[arg-type]
                needs.setdefault(tkey, need)
                if not multirun:
                    notes.append(f"starbench: {line}")
            notes.extend(f"starbench: {where}{line}" for line in long_game_notes(settings))
            same = noise_no_op(settings)
            if same is not None:
                raise ConfigError(f"{where}{same}")
            folders.append(folder)
            if folder in first:
                _same_request(first[folder], (shown, settings), where)
                continue
            first[folder] = (shown, settings)
            cells.append(Cell(list(overrides_of_cell), settings, folder))
        if multirun:
            notes.extend(_collapses(grid, folders, sorted(sweep_keys), needs))
            notes.append(plan_line(cells))
            cells = study_engine_nodes(cells)
        jobs = jobs_of(cells) if multirun else []
        sweep_dir = Path(str(base.hydra.sweep.dir)) if multirun else None
    if sweep_dir is not None:
        check_writable(sweep_dir, "hydra.sweep.dir")
        _check_same_sweep(sweep_dir, sorted(sweep_keys), bool(base.get("extend")))
    target = str(base.hydra.launcher.get("_target_", ""))
    return Plan(
        multirun=multirun,
        cells=tuple(cells),
        sweep_dir=sweep_dir,
        launch=tuple(launch),
        jobs=tuple(tuple(j) for j in jobs),
        notes=tuple(notes),
        swept=tuple(sorted(sweep_keys)) if multirun else (),
        config_dir=config_dir,
        config_name=config_name,
        output_elsewhere=any(w in target for w in ("submitit", "starbench_slurm")),
    )


#: Keys whose one value may hold commas (a pattern, an action history, a game string): given
#: unquoted, Hydra reads the commas as a sweep.
COMMA_KEYS = ("tree.pattern", "tree.position", "tree.game", "tree.dice")


def quoted(key: str, value: str) -> str:
    """The override that gives ``key`` the one value ``value``, commas and all, as a shell
    takes it: ``'tree.pattern="max,chance"'``."""
    return f"'{key}=\"{value}\"'"


def _check_commas(o: Any, multirun: bool) -> None:
    """A value with commas given unquoted where the key takes one value is refused with the
    quoted form that works; a sweep without ``-m``, with both ways out."""
    if not o.is_sweep_override():
        return
    key = o.get_key_element().lstrip("+~")
    try:
        values = [str(v) for v in o.sweep_string_iterator()]
    except Exception:  # noqa: BLE001 - a range or glob sweep: not a value with commas
        values = []
    joined = ",".join(values)
    if key == "tree.pattern" and values:
        from starbench.trees.regular import PATTERNS

        if all(v not in PATTERNS for v in values):  # one pattern, not a sweep of them
            raise ConfigError(
                f"{key}: {o.input_line.split('=', 1)[1]} is one value with commas, which must "
                f"be quoted: {quoted(key, joined)} (to sweep patterns, with -m: "
                f'\'{key}="max,chance","max,min"\')'
            )
    if not multirun:
        hint = (
            f"; a value with commas is quoted: {quoted(key, joined)}" if key in COMMA_KEYS else ""
        )
        raise ConfigError(f"{key}: a sweep ({o.input_line}) needs -m (--multirun){hint}")


#: The most nodes ``noise_no_op`` materialises, noisy and noiseless, before it concludes.
NOISE_CHECK_NODES = 2_000_000


def noise_no_op(settings: RunSettings) -> str | None:
    """One line refusing ``tree.noise_sd`` where it is a no-op: a cell of ``ordering=noisy``
    and ``noise_sd > 0`` whose trees are all searched in the very order ``noise_sd=0``
    (``perfect``) gives them (trees compared whole, node by node, up to ``NOISE_CHECK_NODES``
    nodes); None where the noise reorders a tree, or does not apply."""
    from starbench.trees.regular import RegularTreeSpec

    spec = settings.tree
    if not isinstance(spec, RegularTreeSpec) or spec.ordering != "noisy" or spec.noise_sd == 0:
        return None
    import numpy as np

    from starbench.compiled.engine import CompiledTree  # numba: imported only where needed

    zero = replace(spec, noise_sd=0.0)
    trees = settings.max_trees if settings.target_se is not None else settings.trees
    nodes = 0
    checked = 0
    while checked < trees and nodes < NOISE_CHECK_NODES:
        noisy, plain = (
            CompiledTree.from_regular(s, settings.seed, checked, materialise=True).arrays.key
            for s in (spec, zero)
        )
        if not np.array_equal(noisy, plain):
            return None
        checked += 1
        nodes += len(noisy)
    which = "every tree of the cell" if checked == trees else f"the first {checked} trees"
    return (
        f"tree.noise_sd: {spec.noise_sd:g} orders {which} ({nodes} nodes) exactly as "
        f"noise_sd=0 does (tree.ordering=perfect): it has no effect here; its unit is the "
        f"spread of the exact values of the children being ordered (1: noise as wide as that "
        f"spread), so raise it, or use tree.ordering=perfect"
    )


def study_engine_nodes(cells: list[Cell]) -> list[Cell]:
    """A sweep's cells with ``engine_nodes`` set to its largest cell's nodes (where every cell
    runs ``engine=auto`` and none sets it): ``engine=auto`` then makes one choice per algorithm
    for the whole study, so a timing never compares two engines (``compute.cell_nodes``)."""
    from starbench.experiment.compute import cell_nodes

    if not cells or any(
        c.settings.engine != "auto" or c.settings.engine_nodes is not None for c in cells
    ):
        return cells
    sizes = [cell_nodes(c.settings) for c in cells]
    if any(n is None for n in sizes):  # a game's size is not known: each cell its own
        return cells
    most = max(n for n in sizes if n is not None)
    return [
        Cell(
            [*c.overrides, f"engine_nodes={most}"], replace(c.settings, engine_nodes=most), c.folder
        )
        for c in cells
    ]


def plan_line(cells: list[Cell]) -> str:
    """What a sweep will do, said before it starts: its cells, trees and algorithms, and the
    searches in all (a cell that grows to a target standard error: its first batch)."""
    searches = sum(c.settings.trees * len(c.settings.algorithms) for c in cells)
    trees = {c.settings.trees for c in cells}
    algos = {len(c.settings.algorithms) for c in cells}
    grows = " at least" if any(c.settings.target_se is not None for c in cells) else ""
    if len(trees) == 1 and len(algos) == 1:
        shape = f"{len(cells)} cells x {trees.pop()} trees x {algos.pop()} algorithms"
    else:
        shape = f"{len(cells)} cells (trees and algorithms vary by cell)"
    return f"starbench: plan: {shape} = {searches:,}{grows} searches"


def _launch_line(argv: list[str], overrides: list[str], parsed: Any, multirun: bool) -> list[str]:
    """Hydra's command line for the launch: with starbench's sweeper, which launches the
    planned cells (each cell once; the union of an experiment's sweeps) in one launch (one job
    array on a cluster), unless the command names its own sweeper."""
    plain = [a for a in argv if a not in ("-m", "--multirun")]  # -cd, -cn, ... go to Hydra
    own_sweeper = any(o.get_key_element().lstrip("+~") == "hydra/sweeper" for o in parsed)
    if multirun and not own_sweeper:
        flags = [a for a in plain if a not in set(overrides)]  # Hydra: flags, then overrides
        return ["-m", *flags, *overrides, f"hydra/sweeper={UNION_SWEEPER}"]
    if multirun:
        return ["-m", *plain]
    return plain


def union_cells(sweeps: list, params: dict | None, arguments: list, parser: Any) -> list:
    """Every cell of every sweep (in order, each sweep's grid as Hydra's basic sweeper expands
    it, combined with ``hydra.sweeper.params`` and the command line's overrides).  hydra-core
    1.3's ``BasicSweeper.split_arguments``, used here and by the sweeper."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper

    base = [f"{k}={v}" for k, v in (params or {}).items()]
    cells: list = []
    for sweep in sweeps or [{}]:
        own = [f"{k}={v}" for k, v in sweep.items()]
        parsed = parser.parse_overrides([*own, *base, *arguments])
        cells.extend(BasicSweeper.split_arguments(parsed, None)[0])
    return cells


def jobs_of(cells: list[Cell]) -> list[list[str]]:
    """The launcher's jobs for ``cells``: one per cell, or one per selected shard of a cell run
    with ``shards`` (its overrides plus ``shard=[i]``; ``experiment.shards``), on a rerun only
    those that lack rows."""
    jobs = []
    for overrides, settings, folder in cells:
        own = without_shard(overrides)
        if settings.shards == 1:
            jobs.append(list(overrides))
            continue
        n = min(settings.shards, settings.trees)
        chosen = list(settings.shards_below(n))
        if shard_journals(folder):  # a rerun: only the shards that lack rows (one, to write
            # the table, when none does)
            missing = set(missing_shards(settings, folder, n))
            chosen = [i for i in chosen if i in missing] or chosen[:1]
        jobs += [[*own, f"shard=[{i}]"] for i in chosen]
    return jobs


def write_manifest(plan: Plan) -> None:
    """Record in the sweep folder's ``sweep.json`` what this sweep asks of each of its cells
    (``starbench collect`` checks each table against it) and the keys it sweeps."""
    assert plan.sweep_dir is not None
    doc = read_document(plan.sweep_dir / MANIFEST)
    if doc.damaged:  # rewriting it would forget the cells it lists
        raise ConfigError(
            f"{doc.path}: {doc.why()}; restore it with git checkout -- {doc.path}, or move it "
            f"away (this sweep then writes a new one, listing only its own cells)"
        )
    manifest = doc.data or {"cells": []}
    if "swept" not in manifest or set(plan.swept) - set(manifest["swept"]):
        manifest["swept"] = sorted(set(manifest.get("swept") or []) | set(plan.swept))
    known = {c["folder"]: c for c in manifest["cells"]}
    for overrides, settings, folder in plan.cells:
        entry = known.get(str(folder))
        if entry is None:
            entry = {"folder": str(folder)}
            manifest["cells"].append(entry)
        entry.update(overrides=overrides, request=Request.of(settings).as_json())
        entry["command"] = plan.context(overrides, sweep=True)
    write_document(plan.sweep_dir / MANIFEST, manifest)


# --------------------------------------------------------------------------- checks
def check_launcher(launcher: Any) -> None:
    """Refuse, in one line before anything is written, a launch that cannot work: SLURM's
    launcher where this machine has no ``sbatch`` (not a submit host; submitit's own error is a
    traceback), a partition the cluster does not have (``sinfo``; sbatch's own refusal comes
    after the sweep's files are written), or a job time limit that leaves a cell no time:
    submitit's SLURM jobs are told to stop ``signal_delay_s`` seconds before ``timeout_min``
    (and never requeue), so with ``timeout_min * 60 <= signal_delay_s + 60`` every job would
    stop within its first minute."""
    import shutil

    target = str(launcher.get("_target_", ""))
    if "SlurmLauncher" in target and not shutil.which("sbatch"):
        raise ConfigError(
            "hydra/launcher: SLURM's launcher needs sbatch and srun on the PATH, and this "
            "machine has none (not a SLURM submit host); run it where you submit jobs, or use "
            "hydra/launcher=joblib here"
        )
    partition = launcher.get("partition") if "SlurmLauncher" in target else None
    if partition:
        from starbench.experiment.slurm import known_partitions

        known = known_partitions()
        missing = [p for p in str(partition).split(",") if known is not None and p not in known]
        if missing:
            raise ConfigError(
                f"hydra.launcher.partition: this cluster has no partition {missing[0]!r}; give "
                f"one of {', '.join(known) or '(none: sinfo lists no partition)'}, or leave it "
                f"out for the cluster's default"
            )
    limit, delay = launcher.get("timeout_min"), launcher.get("signal_delay_s")
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (limit, delay)):
        return
    if limit * 60 <= delay + 60:
        least = int((delay + 60) // 60) + 1
        raise ConfigError(
            f"hydra.launcher.timeout_min: {limit:g} minutes leaves a cell no time: every job is "
            f"told to stop hydra.launcher.signal_delay_s = {delay:g} s before its limit; use "
            f"hydra.launcher.timeout_min={least} or more, or a smaller "
            f"hydra.launcher.signal_delay_s"
        )


def long_game_notes(settings: Any) -> list[str]:
    """A game cell whose searches may be long: one line with the estimated size, and what
    bounds it (``games.source.long_search_line``)."""
    from starbench.games.source import long_search_line
    from starbench.games.spec import GameSpec
    from starbench.oracles.positions import drawn_position

    spec = settings.tree
    if not isinstance(spec, GameSpec):
        return []
    line = long_search_line(
        spec.game,
        spec.depth,
        spec.size_estimate(settings.seed, drawn_position(spec, settings.seed, 0)),
        "progress is printed per instance; node_budget={}",
        settings.node_budget,
    )
    return [] if line is None else [line]


def _same_request(before: tuple[list[str], Any], now: tuple[list[str], Any], where: str) -> None:
    """Two jobs of a sweep that land in one cell run once, if they ask it the same; else the
    sweep is refused (one cell cannot be asked two things at once)."""
    if before[1] == now[1]:
        return
    differ = [
        f.name
        for f in fields(now[1])
        if f.compare and getattr(before[1], f.name) != getattr(now[1], f.name)
    ]
    raise ConfigError(
        f"{where}lands in the same cell as sweep cell {' '.join(before[0])} but asks it "
        f"another {', '.join(differ)}: a cell is one tree model, seed and arithmetic, and "
        f"{', '.join(differ)} make no cells; sweep only keys that do (tree parameters, seed, "
        f"exact), and list algorithms in one algorithms=[...]"
    )


def _collapses(
    cells: list[list[str]], folders: list[Path], swept: list[str], needs: dict[str, str]
) -> list[str]:
    """The lines to say about swept keys whose values land in one cell (each such cell runs
    once); a swept key none of whose values changes the cell is refused (one line naming it and
    what it needs)."""
    values = [{key_of(c): c.split("=", 1)[1] for c in cell if "=" in c} for cell in cells]
    lines = []
    for key in swept:
        seen = {v[key] for v in values if key in v}
        if len(seen) < 2:
            continue
        groups: dict[tuple[Any, ...], tuple[set[Any], set[Path]]] = {}
        for v, folder in zip(values, folders, strict=True):
            rest = tuple((k, v.get(k)) for k in swept if k != key)
            vals, where = groups.setdefault(rest, (set(), set()))
            vals.add(v.get(key))
            where.add(folder)
        why = (
            f"{key} applies only with {needs[key]}"
            if key in needs
            else f"{key} does not change the cell (its values are one tree model, or it is not "
            f"part of a cell's identity)"
        )
        varied = [(vals, where) for vals, where in groups.values() if len(vals) > 1]
        collapsed = [(vals, where) for vals, where in varied if len(vals) > len(where)]
        if varied and all(len(where) == 1 for _vals, where in varied):
            shown = ",".join(str(x) for x in sorted(seen, key=str))
            remedy = f"set {needs[key]}" if key in needs else "drop this sweep"
            raise ConfigError(
                f"{key}: every value of this sweep ({shown}) lands in the same cell: {why}; "
                f"{remedy}, or sweep another key"
            )
        if collapsed:
            jobs = sum(len(vals) for vals, _ in collapsed)
            into = sum(len(where) for _, where in collapsed)
            lines.append(
                f"starbench: {key}: {jobs} jobs land in {into} cell{'s' if into > 1 else ''} "
                f"({why}); each cell runs once"
            )
    return lines


def _check_same_sweep(sweep_dir: Path, swept: list[str], extend: bool) -> None:
    """A results folder holds one study: a sweep over other keys than the one it holds is
    refused (``collect`` would mix them), unless ``extend=true`` asks for it."""
    manifest = read_json(sweep_dir / MANIFEST) or {}
    before = manifest.get("swept")
    if before is None or set(swept) <= set(before) or extend:
        return
    raise ConfigError(
        f"hydra.sweep.dir: {sweep_dir} holds a sweep over {', '.join(before) or 'nothing'}; "
        f"this one sweeps {', '.join(swept) or 'nothing'}: choose another name= (or "
        f"hydra.sweep.dir=), or pass extend=true to add these cells to it"
    )


def _check_order(cfg: Any) -> None:
    """``order=NAME`` sets tree keys; the same keys given otherwise (command line, sweep,
    experiment) must agree with it, or the cell is refused naming both."""
    choice = cfg.hydra.runtime.choices.get("order")
    if not choice:
        return
    path = CONF_DIR / "order" / f"{choice}.yaml"
    if not path.is_file():
        return
    sets = OmegaConf.to_container(OmegaConf.load(path), resolve=True) or {}
    if "@package _global_" not in path.read_text(encoding="utf-8"):
        sets = {"tree": sets}  # the group's files are in package tree
    for key, value in (sets.get("tree") or {}).items():  # type: ignore[union-attr]
        got = cfg.tree.get(key)
        if got != value:
            raise ConfigError(
                f"tree.{key}: order={choice} sets tree.{key}={value}, but tree.{key}={got} is "
                f"also given; drop one of the two"
            )


def exclusive_flags(args: Any) -> str | None:
    """The one-line refusal of a command that gives more than one of ``EXCLUSIVE_FLAGS``, or
    None.  (``--cfg`` with a sweep: drop ``-m`` to print one cell's composed config.)"""
    given = [
        flag for name, flag in EXCLUSIVE_FLAGS if getattr(args, name, None) not in (None, False)
    ]
    if len(given) < 2:
        return None
    hint = " (drop -m to print one cell's config)" if "-m/--multirun" in given else ""
    allowed = ", ".join(f for _, f in EXCLUSIVE_FLAGS)
    return f"{' and '.join(given)} cannot be combined: give one of {allowed}{hint}"


def yaml_error(e: BaseException) -> str | None:
    """A YAML mistake in a config file as one line, ``FILE:LINE:COLUMN: problem (context)``
    (the file relative to the working folder where it is inside it), or None when ``e`` has
    none in its chain."""
    import yaml

    seen: BaseException | None = e
    while seen is not None:
        if isinstance(seen, yaml.MarkedYAMLError):
            mark = seen.problem_mark or seen.context_mark
            where = ""
            if mark is not None:
                name = Path(str(mark.name))
                if name.resolve().is_relative_to(Path.cwd()):
                    name = name.resolve().relative_to(Path.cwd())
                where = f"{name}:{mark.line + 1}:{mark.column + 1}: "
            problem = seen.problem or seen.context or "not valid YAML"
            context = ""
            if seen.context and seen.problem and seen.context_mark is not None:
                c = seen.context_mark
                context = f" ({seen.context}, from line {c.line + 1}, column {c.column + 1})"
            return f"{where}{problem}{context}"
        seen = seen.__cause__ or seen.__context__
    return None


def composition_error(e: BaseException) -> str:
    """A short message from a Hydra/OmegaConf composition error, naming the key (a YAML
    mistake: its file, line and column, ``yaml_error``)."""
    from omegaconf.errors import OmegaConfBaseException

    said = yaml_error(e)
    if said is not None:
        return said
    from hydra.errors import OverrideParseException

    if isinstance(e, OverrideParseException) and e.override is not None:
        key, _, value = str(e.override).partition("=")
        if value and any(c in value for c in "(),[] "):  # a game string, say: quote it
            return (
                f"{key}: Hydra cannot read {value} unquoted (parentheses, commas and spaces "
                f"are its grammar); quote the value: {quoted(key.lstrip('+~'), value)}"
            )
    seen: BaseException | None = e
    while seen is not None:
        if isinstance(seen, OmegaConfBaseException) and getattr(seen, "full_key", None):
            msg = str(getattr(seen, "msg", "") or seen).splitlines()[0]
            return f"{seen.full_key}: {msg}{_suggest(seen)}"
        seen = seen.__cause__ or seen.__context__
    text = str(e).strip().splitlines()
    first = text[0] if text else type(e).__name__
    options: list[str] = []
    for i, line in enumerate(text):
        if line.startswith("Available options"):
            for opt in text[i + 1 :]:
                if not opt.startswith("\t"):
                    break
                options.append(opt.strip())
    if first.startswith("In '") and options:  # a group option that does not exist
        return f"{first} (available: {', '.join(options)})"
    return first


def _suggest(e: Any) -> str:
    """``(did you mean trees?)`` for a key that is not in the schema."""
    from omegaconf.errors import ConfigAttributeError, ConfigKeyError

    from starbench.trees.regular import RegularTreeSpec

    if not isinstance(e, ConfigAttributeError | ConfigKeyError):
        return ""
    key = str(getattr(e, "full_key", ""))
    parent, _, leaf = key.rpartition(".")
    schema = RegularTreeSpec if parent == "tree" else RunConfig if not parent else None
    if schema is None:
        return ""
    close = nearest(leaf, [f.name for f in fields(schema)])
    return f" (did you mean {parent + '.' if parent else ''}{close}?)" if close else ""


# --------------------------------------------------------------------------- Hydra 1.3 internals
def hydra_args(argv: list[str]) -> Any:
    """``argv`` read by Hydra's own command-line parser (flags such as ``-cd DIR``, ``-cn NAME``,
    ``-m``, ``--cfg job``, and the overrides).  hydra-core 1.3 private API, used only here."""
    from hydra._internal.utils import get_args_parser

    parser = get_args_parser()

    def error(message: str) -> None:
        raise ConfigError(f"{message} (see 'starbench run --help')")

    parser.error = error  # type: ignore[method-assign]
    return parser.parse_intermixed_args(argv)


@contextmanager
def hydra_search_path(config_dir: str | None) -> Iterator[None]:
    """Compose as ``starbench run`` does: ``conf/`` is the primary config folder, and a
    ``--config-dir`` is searched first, exactly where Hydra's own ``@hydra.main`` puts it
    (before the schemas).  hydra-core 1.3 private API, used only here."""
    from hydra import version
    from hydra._internal.hydra import Hydra
    from hydra._internal.utils import create_config_search_path
    from hydra.core.config_search_path import SearchPathQuery
    from hydra.core.global_hydra import GlobalHydra
    from hydra.initialize import get_gh_backup, restore_gh_from_backup

    csp = create_config_search_path(search_path_dir=str(CONF_DIR))
    if config_dir is not None:
        folder = Path(config_dir).resolve()
        if not folder.is_dir():
            raise ConfigError(f"--config-dir: {config_dir}: no such folder")
        csp.prepend(
            provider="command-line",
            path=f"file://{folder}",
            anchor=SearchPathQuery(provider="schema"),
        )
    backup = get_gh_backup()  # as initialize_config_dir does: leave Hydra as it was
    version.setbase("1.3")
    GlobalHydra.instance().clear()
    Hydra.create_main_hydra2(task_name="starbench", config_search_path=csp)
    try:
        yield
    finally:
        restore_gh_from_backup(backup)
