"""``starbench run``: the Hydra entry point of the experiment runner (thin).

``main(argv)`` first composes every cell of the requested run or sweep with Hydra's Compose API
and checks it (types and unknown keys by the config schemas, ranges by ``RunSettings``, the
output folder by the resume rules); the first problem is one line on stderr and exit status 2,
before anything runs (``--verbose`` shows Hydra's own message).  Then Hydra runs the cells
(``_task`` -> ``run_cell``), and the exit status is 1 if any cell has a mismatch, an error or did
not finish.  Also ``python -m starbench.run``.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omegaconf import OmegaConf

from starbench.errors import ConfigError, InputError, WriteFailed, first_line
from starbench.experiment.storage import MANIFEST

if TYPE_CHECKING:
    from starbench.experiment.settings import RunSettings


def _conf_dir() -> Path:
    """The Hydra configs: the top-level ``conf/`` of the source checkout this module runs from
    (an editable install), else the copy the wheel carries inside the package
    (``starbench/conf``, copied from ``conf/`` at build time: ``conf/`` stays the one source)."""
    here = Path(__file__).resolve()
    source = here.parents[2] / "conf"
    if source.is_dir() and (here.parents[2] / "pyproject.toml").is_file():
        return source
    return here.parent / "conf"


CONF_DIR = _conf_dir()
#: The sweeper that launches the union of an experiment's ``sweeps`` as one batch
#: (``hydra_plugins.starbench_sweeper``).
UNION_SWEEPER = "starbench"
_HYDRA_INFO_FLAGS = {
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


def _cell_resolver(*, _root_: Any) -> str:
    from starbench.experiment.settings import cell_name

    tree = OmegaConf.to_container(_root_.tree, resolve=True)
    return cell_name(tree, _root_.seed, _root_.exact)


if not OmegaConf.has_resolver("sb_cell"):
    OmegaConf.register_new_resolver("sb_cell", _cell_resolver)


def _store_schemas() -> None:
    from hydra.core.config_store import ConfigStore

    from starbench.experiment.settings import RunConfig

    ConfigStore.instance().store(name="run_schema", node=RunConfig)


_store_schemas()


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


def settings_of(cfg: Any, config_dir: str | None = None):
    from starbench.experiment.settings import RunSettings

    load_plugins(cfg)
    return RunSettings.from_config(cfg, config_dir)


# --------------------------------------------------------------------------- Hydra task
#: Cells the last ``plan`` launches, in one Hydra launch (so each cell can say "cell i/N").
LAUNCHED: list[int] = [0]


#: Whether the last ``plan``'s launcher sends its jobs' output to files (submitit, SLURM), so
#: that the driver shows the cells' summaries when they are done.
OUTPUT_ELSEWHERE: list[bool] = []
#: The cell folders this process ran itself (their summaries were shown as they ran).
RAN_HERE: set[Path] = set()


def _task(cfg: Any) -> int:
    from hydra.core.hydra_config import HydraConfig

    hc = HydraConfig.get()
    folder = Path(hc.runtime.output_dir)
    total = os.environ.get("STARBENCH_CELLS")
    if total and int(total) > 1:
        num = int(hc.job.get("num", 0) or 0)
        sys.stderr.write(f"starbench: cell {num + 1}/{total}: {folder}\n")
    RAN_HERE.add(folder.resolve())
    context = command_context(hc)
    try:
        settings = settings_of(cfg, context["config_dir"])
    except InputError as e:
        sys.stderr.write(f"starbench: error: {e}\n")
        _mark_failed(folder, str(e))
        return 2
    return run_one(settings, folder, list(hc.overrides.task), context)


def run_one(
    settings: RunSettings, folder: Path, overrides: list[str], context: dict[str, Any]
) -> int:
    """Run one cell (Hydra's task, or ``main`` itself for a complete cell): its exit code, with
    a failure said in one line."""
    from starbench.experiment.runner import run_cell

    try:
        return run_cell(settings, folder, overrides=overrides, command=context).exit_code
    except WriteFailed as e:  # the disk, not the input: exit 1, the cell marked interrupted
        sys.stderr.write(f"starbench: error: {e}\n")
        return 1
    except InputError as e:
        from starbench.experiment.cellfolder import FolderBusy

        sys.stderr.write(f"starbench: error: {e}\n")
        if not isinstance(e, FolderBusy):  # a busy folder is the other run's to mark
            _mark_failed(folder, str(e))
        return 2


def command_context(hc: Any) -> dict[str, Any]:
    """What a cell's command had beside its overrides, so that the command starbench prints to
    rerun it works as printed (``experiment.repair.rerun_command``): the config folder (``-cd``,
    absolute), the config name (``-cn``, when not the default), the launcher overrides
    (``hydra/launcher=...``, ``hydra.launcher.*``) and whether it ran as a cell of a sweep."""
    config_dir = next(  # Hydra's record of -cd: provider command-line, schema file
        (
            str(s.path).removeprefix("file://")
            for s in hc.runtime.config_sources
            if s.provider == "command-line" and s.schema == "file"
        ),
        None,
    )
    name = hc.job.config_name
    from hydra.types import RunMode

    from starbench.experiment.repair import launcher_overrides

    return {
        "config_dir": str(Path(config_dir).resolve()) if config_dir else None,
        "config_name": name if name and name != "config" else None,
        "launcher": launcher_overrides(hc.overrides.hydra),
        "sweep": hc.mode == RunMode.MULTIRUN,
    }


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


def _complete(folder: Path) -> bool:
    """Does ``folder`` hold a cell that says it is complete?  When every planned cell does, a
    run has nothing to compute (``run_cell`` still verifies each table and journal, and
    continues a cell they show short), so ``main`` runs the cells itself without Hydra's launch
    (about half of the CPU of a rerun, and no job on a cluster; the folders' ``.hydra`` records
    stay the first run's)."""
    from starbench.experiment.storage import CELL, read_json

    cell = read_json(folder / CELL)
    return bool(cell) and cell.get("status") == "complete"


def task_overrides(overrides: list[str]) -> list[str]:
    """The overrides Hydra calls the task's (``hydra.overrides.task``): all but Hydra's own."""
    return [o for o in overrides if not o.lstrip("+~").startswith(("hydra.", "hydra/"))]


def planned_context(overrides: list[str], sweep: bool) -> dict[str, Any]:
    """``command_context`` of a planned cell, from its overrides and the last ``plan``'s -cd and
    -cn (no Hydra runtime)."""
    from starbench.experiment.repair import launcher_overrides

    return {**CONTEXT, "launcher": launcher_overrides(overrides), "sweep": sweep}


def _mark_failed(folder: Path, message: str) -> None:
    from starbench.experiment.integrity import write_document
    from starbench.experiment.storage import CELL, read_json

    cell = read_json(folder / CELL) or {}
    cell.update(status="failed", error=message)
    write_document(folder / CELL, cell)


def _hydra_main(argv: list[str], prog: str = "starbench run") -> None:
    import hydra

    app = hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")(_task)
    old = sys.argv
    sys.argv = [prog, *argv]
    try:
        app()
    finally:
        sys.argv = old


# --------------------------------------------------------------------------- validation
def _one_line(e: BaseException) -> str:
    """A short message from a Hydra/OmegaConf composition error, naming the key."""
    from omegaconf.errors import OmegaConfBaseException

    seen = e
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
    from dataclasses import fields

    from omegaconf.errors import ConfigAttributeError, ConfigKeyError

    from starbench.experiment.settings import RunConfig, nearest
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


Cell = tuple[list[str], Any, Path]


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
    from hydra.initialize import get_gh_backup, restore_gh_from_backup

    backup = get_gh_backup()  # as initialize_config_dir does: leave Hydra as it was
    version.setbase("1.3")
    GlobalHydra.instance().clear()
    Hydra.create_main_hydra2(task_name="starbench", config_search_path=csp)
    try:
        yield
    finally:
        restore_gh_from_backup(backup)


def plan(argv: list[str]) -> tuple[bool, list[Cell], Path | None, list[str]]:
    """Compose and check every cell before anything runs.

    Returns (multirun, [(overrides, settings, folder)], sweep dir, the Hydra command line to
    launch).  An experiment may list several sweeps under ``sweeps`` (each a mapping of key to
    comma-separated values, like ``hydra.sweeper.params``): the study is their union, launched
    as one multirun (``hydra_plugins.starbench_sweeper``).
    """
    from hydra import compose
    from hydra.core.override_parser.overrides_parser import OverridesParser

    from hydra_plugins.starbench_sweeper import union_cells

    NOTES.clear()
    args = hydra_args(argv)
    CONTEXT.clear()  # what a cell's printed command needs beside its overrides (sweep.json)
    CONTEXT.update(
        config_dir=str(Path(args.config_dir).resolve()) if args.config_dir else None,
        config_name=args.config_name if args.config_name not in (None, "config") else None,
    )
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
        if any(o.is_sweep_override() for o in parsed) and not multirun:
            bad = next(o for o in parsed if o.is_sweep_override())
            raise ConfigError(
                f"{bad.get_key_element()}: a sweep ({bad.input_line}) needs -m (--multirun)"
            )
        sweep_keys = {o.get_key_element().lstrip("+~") for o in parsed if o.is_sweep_override()}
        sweep_keys |= {str(k) for k in (base.hydra.sweeper.params or {})}
        for sub in sub_sweeps:
            sweep_keys |= {p.split("=", 1)[0].lstrip("+~") for p in sub}
        plain = [a for a in argv if a not in ("-m", "--multirun")]  # -cd, -cn, ... go to Hydra
        own_sweeper = any(o.get_key_element().lstrip("+~") == "hydra/sweeper" for o in parsed)
        if multirun and not own_sweeper:
            # starbench's sweeper launches the planned cells (each cell once; the union of an
            # experiment's sweeps) in one launch (one job array on a cluster)
            flags = [a for a in plain if a not in set(overrides)]  # Hydra: flags, then overrides
            launch = ["-m", *flags, *overrides, f"hydra/sweeper={UNION_SWEEPER}"]
        elif multirun:
            launch = ["-m", *plain]
        else:
            launch = plain
        if multirun:  # the sweeper's own expansion (Hydra's private sweeper API, used there)
            sweeps = [dict(sweep) for sweep in (base.get("sweeps") or [])]
            cells = union_cells(sweeps, base.hydra.sweeper.params, overrides, parser)
        else:
            cells = [overrides]
        out: list[Cell] = []
        first: dict[Path, tuple[list[str], Any]] = {}  # folder -> its first cell and settings
        folders: list[Path] = []
        needs: dict[str, str] = {}  # tree key -> what it needs to have an effect
        for cell in cells:
            # a single run's cell is the base config itself: composed once
            cfg = (
                base
                if not multirun
                else compose(name, overrides=list(cell), return_hydra_config=True)
            )
            shown = [c for c in cell if c.split("=", 1)[0].lstrip("+~") in sweep_keys]
            where = f"in sweep cell {' '.join(shown)}: " if multirun else ""
            try:
                settings = settings_of(cfg, CONTEXT["config_dir"])
                _check_order(cfg)
                if multirun:
                    folder = Path(str(cfg.hydra.sweep.dir)) / str(cfg.hydra.sweep.subdir)
                    key = "hydra.sweep.dir"
                else:
                    folder = Path(str(cfg.hydra.run.dir))
                    key = "hydra.run.dir"
                from starbench.experiment.cellfolder import check_folder

                check_folder(settings, folder, key)
            except InputError as e:
                raise ConfigError(f"{where}{e}") from None
            from starbench.experiment.settings import no_effect_notes

            tree = OmegaConf.to_container(cfg.tree, resolve=True)
            for tkey, need, line in no_effect_notes(dict(tree)):  # type: ignore[arg-type]
                needs.setdefault(tkey, need)
                if not multirun:
                    NOTES.append(f"starbench: {line}")
            NOTES.extend(f"starbench: {where}{line}" for line in long_game_notes(settings))
            folders.append(folder)
            if folder in first:
                _same_request(first[folder], (shown, settings), where)
                continue
            first[folder] = (shown, settings)
            out.append((list(cell), settings, folder))
        if multirun:
            NOTES.extend(_collapses(cells, folders, sorted(sweep_keys), needs))
        jobs = jobs_of(out) if multirun else []
        LAUNCHED[:] = [len(jobs) if multirun else len(out)]
        from hydra_plugins import starbench_sweeper

        starbench_sweeper.PLANNED[:] = jobs
        starbench_sweeper.COMPLETE.clear()
        sweep_dir = Path(str(base.hydra.sweep.dir)) if multirun else None
    if sweep_dir is not None:
        from starbench.experiment.cellfolder import check_writable

        check_writable(sweep_dir, "hydra.sweep.dir")
        _check_same_sweep(sweep_dir, sorted(sweep_keys), bool(base.get("extend")))
    SWEPT[:] = sorted(sweep_keys) if multirun else []
    target = str(base.hydra.launcher.get("_target_", ""))
    OUTPUT_ELSEWHERE[:] = [any(w in target for w in ("submitit", "starbench_slurm"))]
    return multirun, out, sweep_dir, launch


#: The last ``plan``'s -cd (absolute) and -cn (``command_context``'s keys, for sweep.json).
CONTEXT: dict[str, Any] = {}

#: The keys the last ``plan`` sweeps (recorded in the sweep folder's manifest).
SWEPT: list[str] = []
#: What the last ``plan`` says before anything runs: parameters without effect, collapsed cells.
NOTES: list[str] = []


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
    from dataclasses import fields

    if before[1] == now[1]:
        return
    differ = [
        f.name for f in fields(now[1]) if getattr(before[1], f.name) != getattr(now[1], f.name)
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
    values = [
        {c.split("=", 1)[0].lstrip("+~"): c.split("=", 1)[1] for c in cell if "=" in c}
        for cell in cells
    ]
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
    from starbench.experiment.storage import read_json

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
    for key, value in (sets.get("tree") or {}).items():
        got = cfg.tree.get(key)
        if got != value:
            raise ConfigError(
                f"tree.{key}: order={choice} sets tree.{key}={value}, but tree.{key}={got} is "
                f"also given; drop one of the two"
            )


def jobs_of(cells: list[Cell]) -> list[list[str]]:
    """The launcher's jobs for ``cells``: one per cell, or one per selected shard of a cell run
    with ``shards`` (its overrides plus ``shard=[i]``; ``experiment.shards``), on a rerun only
    those that lack rows."""
    from starbench.experiment.shards import missing_shards, without_shard
    from starbench.experiment.storage import shard_journals

    jobs = []
    for overrides, settings, folder in cells:
        own = without_shard(overrides)
        if settings.shards == 1:
            jobs.append(list(overrides))
            continue
        n = min(settings.shards, settings.trees)
        chosen = [i for i in settings.selected_shards if i < n]
        if shard_journals(folder):  # a rerun: only the shards that lack rows (one, to write
            # the table, when none does)
            missing = set(missing_shards(settings, folder, n))
            chosen = [i for i in chosen if i in missing] or chosen[:1]
        jobs += [[*own, f"shard=[{i}]"] for i in chosen]
    return jobs


def _write_manifest(sweep_dir: Path, cells: list[Cell]) -> None:
    from starbench.experiment.integrity import read_document, write_document

    doc = read_document(sweep_dir / MANIFEST)
    if doc.damaged:  # rewriting it would forget the cells it lists
        raise ConfigError(
            f"{doc.path}: {doc.why()}; restore it with git checkout -- {doc.path}, or move it "
            f"away (this sweep then writes a new one, listing only its own cells)"
        )
    manifest = doc.data or {"cells": []}
    if "swept" not in manifest or set(SWEPT) - set(manifest["swept"]):
        manifest["swept"] = sorted(set(manifest.get("swept") or []) | set(SWEPT))
    from starbench.experiment.coverage import Request

    known = {c["folder"]: c for c in manifest["cells"]}
    for overrides, settings, folder in cells:
        entry = known.get(str(folder))
        if entry is None:
            entry = {"folder": str(folder)}
            manifest["cells"].append(entry)
        # what this sweep asks of the cell (``starbench collect`` checks the table against it)
        entry.update(overrides=overrides, request=Request.of(settings).as_json())
        entry["command"] = planned_context(overrides, sweep=True)
    write_document(sweep_dir / MANIFEST, manifest)


def report_elsewhere(cells: list[Cell], show: Any = print) -> None:
    """Show the summary of every cell another process ran (joblib workers, submitit and SLURM
    jobs, whose own output went to their logs), read from the cell's ``run.log``."""
    from starbench.experiment.runner import RUN_LOG
    from starbench.experiment.storage import CELL, read_json

    for i, (_overrides, _settings, folder) in enumerate(cells, 1):
        if folder.resolve() in RAN_HERE:
            continue
        status = (read_json(folder / CELL) or {}).get("status", "not run")
        try:
            log = (folder / RUN_LOG).read_text(encoding="utf-8").splitlines()
        except OSError:
            log = []
        start = max((n for n, line in enumerate(log) if line.startswith("table: ")), default=None)
        show(f"cell {i}/{len(cells)}: {folder} ({status})")
        if start is not None:
            show("\n".join(log[start + 1 :]))


def _exit_status(cells: list[Cell]) -> int:
    from starbench.experiment.storage import CELL, read_json

    code = 0
    for _overrides, settings, folder in cells:
        cell = read_json(folder / CELL) or {}
        from starbench.experiment.runner import cell_status

        status = cell_status(cell)
        if not cell and settings.shards > 1 and settings.shard is not None:
            continue  # only some shards were asked for: the cell is complete when all are
        if status == "failed":
            return 2 if len(cells) == 1 else 1
        if status != "complete" or (cell.get("counts") or {}).get("error"):
            code = 1
    return code


INLINE_KEY = "algorithm_specs"


#: Hydra's flags of which one command takes at most one (Hydra refuses the others with a
#: traceback; here they are one line, exit 2).
EXCLUSIVE_FLAGS = (
    ("run", "--run"),
    ("multirun", "-m/--multirun"),
    ("cfg", "--cfg"),
    ("info", "--info"),
    ("shell_completion", "-sc/--shell-completion"),
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


def inline_algorithms(argv: list[str]) -> list[str]:
    """Rewrite ``algorithms=[expectimax,star2.5-cyclic:k=0..6]`` (one argument, the syntax of
    ``starbench solve --algorithm``) into ``algorithm_specs='...'``, which Hydra's grammar
    accepts; ``algorithms=<file>`` (a file of ``conf/algorithms``) is left alone."""
    out = []
    for a in argv:
        key, eq, value = a.partition("=")
        value = value.strip()
        if (
            eq
            and key.lstrip("+~") == "algorithms"
            and value.startswith("[")
            and value.endswith("]")
        ):
            a = f"{INLINE_KEY}='{value[1:-1]}'"
        out.append(a)
    return out


def outline_algorithms(override: str) -> str:
    """The inverse of ``inline_algorithms`` for one override (for the commands we print)."""
    key, eq, value = override.partition("=")
    if eq and key == INLINE_KEY:
        return f"algorithms=[{value.strip(chr(39))}]"
    return override


def main(argv: list[str] | None = None) -> int:
    argv = inline_algorithms(list(sys.argv[1:] if argv is None else argv))
    verbose = "--verbose" in argv
    argv = [a for a in argv if a != "--verbose"]
    if not CONF_DIR.is_dir():
        sys.stderr.write(
            f"starbench: error: no config folder at {CONF_DIR}: this installation of "
            f"starbench is incomplete; reinstall it (pip install starbench, or pip install -e . "
            f"in its source tree)\n"
        )
        return 2
    if any(a in ("--help", "-h") for a in argv):
        from starbench.experiment.help import run_help

        try:
            extra = hydra_args([a for a in argv if a not in ("--help", "-h")]).config_dir
        except InputError:
            extra = None
        sys.stdout.write(run_help(CONF_DIR, Path(extra) if extra else None))
        return 0
    try:
        args = hydra_args(argv)
        clash = exclusive_flags(args)
    except InputError as e:
        sys.stderr.write(f"starbench: error: {e}\n")
        return 2
    if clash:
        sys.stderr.write(f"starbench: error: {clash}\n")
        return 2
    if args.shell_completion:
        # Hydra's own completion: `eval "$(starbench run -sc install=bash)"` installs it for the
        # `starbench` command, whose `starbench -sc query=bash` (cli.main) answers the shell
        _hydra_main(argv, prog="starbench")
        return 0
    if any(a.split("=")[0] in _HYDRA_INFO_FLAGS for a in argv):
        try:  # composition errors are one line here too
            with hydra_search_path(args.config_dir):
                from hydra import compose
                from hydra.core.override_parser.overrides_parser import OverridesParser

                parsed = OverridesParser.create().parse_overrides(args.overrides)
                fixed = [o.input_line for o in parsed if not o.is_sweep_override()]
                compose(args.config_name or "config", overrides=fixed)
        except InputError as e:
            sys.stderr.write(f"starbench: error: {e}\n")
            return 2
        except Exception as e:
            if verbose:
                raise
            sys.stderr.write(f"starbench: error: {_one_line(e)} (--verbose for details)\n")
            return 2
        _hydra_main(argv)  # --cfg job, --info, ...: Hydra answers, nothing runs
        return 0
    try:
        multirun, cells, sweep_dir, launch = plan(argv)
    except InputError as e:
        sys.stderr.write(f"starbench: error: {e}\n")
        return 2
    except Exception as e:  # Hydra's composition errors: one line unless --verbose
        if verbose:
            raise
        sys.stderr.write(f"starbench: error: {_one_line(e)} (--verbose for details)\n")
        return 2
    for line in NOTES:
        sys.stderr.write(line + "\n")
    if sweep_dir is not None:
        _write_manifest(sweep_dir, cells)
    done = [c for c in cells if _complete(c[2])]
    ours = f"hydra/sweeper={UNION_SWEEPER}" in launch  # it launches only PLANNED cells
    code = 0
    if done and (len(done) == len(cells) or ours):
        # complete cells are not launched (no job, no queue slot on a cluster): each is still
        # verified and summarised here, as its job would have done
        from hydra_plugins import starbench_sweeper

        if multirun and len(done) == len(cells):  # nothing is launched: said here
            sys.stderr.write(starbench_sweeper.skipped_line(len(done)) + "\n")
        context = planned_context(list(args.overrides), sweep=multirun)
        for i, (overrides, settings, folder) in enumerate(done):
            if len(done) > 1:
                sys.stderr.write(f"starbench: complete cell {i + 1}/{len(done)}: {folder}\n")
            RAN_HERE.add(folder.resolve())
            code = max(code, run_one(settings, folder, task_overrides(overrides), context))
        if len(done) == len(cells):
            return code or _exit_status(cells)
        # the sweeper filters their jobs out of the planned ones before the launch, and says
        # how many cells
        starbench_sweeper.COMPLETE[:] = [list(overrides) for overrides, _s, _f in done]
        LAUNCHED[:] = [len(starbench_sweeper.launched(starbench_sweeper.PLANNED))]
    failed = False
    os.environ["STARBENCH_CELLS"] = str(LAUNCHED[0])
    from starbench.experiment import slurm

    slurm.DEAD.clear()
    try:
        _hydra_main(launch)
    except SystemExit as e:  # Hydra exits 1 when a job of a sweep failed
        if e.code == 2:  # the launcher refused the launch (a line said why)
            return 2
        failed = e.code not in (0, None)
    dead = [mark_dead(d, cells) for d in slurm.DEAD]
    if multirun and any(OUTPUT_ELSEWHERE):
        report_elsewhere(cells)
    for line in dead:
        sys.stderr.write(f"starbench: {line}\n")
    code = max(code, _exit_status(cells), 1 if dead else 0)
    return max(1, code) if failed else code


def mark_dead(dead: Any, cells: list[Cell]) -> str:
    """Mark the cell of a SLURM job that died (``experiment.slurm.DeadJob``) interrupted (its
    journaled rows are kept; a job killed outright could not say so itself) and return the one
    line that reports it, with the command that reruns the cell under the same launcher."""
    from starbench.experiment.repair import rerun_command
    from starbench.experiment.runner import mark
    from starbench.experiment.shards import without_shard

    own = without_shard(dead.overrides)  # a shard's job: its cell's overrides
    folder = next((f for o, _s, f in cells if without_shard(o) == own), None)
    if folder is None:  # not a planned cell (Hydra run without ``plan``): its overrides
        return f"a cell ({' '.join(dead.overrides)}): {dead.describe()}"
    mark(folder, "interrupted", dead.describe())
    context = planned_context(list(dead.overrides), True)
    again = rerun_command(list(dead.overrides), folder, context)
    shard = [o for o in dead.overrides if o not in own]
    what = f"{shard[0]} of cell" if shard else "cell"
    return f"{what} {folder}: {dead.describe()} (its journaled rows are kept); rerun: {again}"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
