"""Computing rows: one instance searched by several algorithms, locally or in a process pool.

Instance ``i`` of a cell is ``RegularTree(settings.tree, settings.seed, i)`` for every algorithm
and every rerun; each engine builds it only when first needed.  In a game cell it is the game
from instance ``i``'s start position (``GameSpec.source``), searched over its native model on
the compiled engine where the game has one (``compiled.models``), else on the Python engine.  A
search's row holds only what that search produced (``rows.FIELDS``); what the run shares is
stored once per run.  Pool workers die with their parent (Linux: ``PR_SET_PDEATHSIG``;
elsewhere a watchdog thread).
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
import time
from collections.abc import Collection, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any

from starbench.engines import Auto, Choice, choose, compiled_tree, execute, kernel_iterations
from starbench.errors import ConfigError, InputError, deadline
from starbench.experiment.settings import RunSettings
from starbench.games.spec import GameSpec
from starbench.oracles import decisions, positions
from starbench.record.rows import level_columns
from starbench.search.arith import format_value
from starbench.search.registry import KEY_PARAMS, AlgorithmSpec, key_values
from starbench.trees.regular import RegularTree

#: A search's CPU time is measured over repeats of it until they take at least this long in all
#: (as ``timeit``'s autorange does): a search faster than the clock can time is repeated, and its
#: row records the time of one search (``cpu_seconds``, ``seconds``) and the repeats
#: (``timing_repeats``).  Every repeat gives the same result; only the first is kept.
TIMING_FLOOR_S = 1e-3
#: The most repeats of one search (a search of under 0.1 us would otherwise repeat forever).
TIMING_MAX_REPEATS = 10_000


#: The engine each request of a cell ran on, by its key (``AlgorithmSpec.key``): what
#: ``engine=auto`` keeps when the cell grows (``stages.held_engines``).
Held = dict[tuple[Any, ...], str]


def engine_choice(
    settings: RunSettings, algorithm: AlgorithmSpec, held: Held | None = None
) -> Choice:
    """The engine that runs ``algorithm`` under ``settings``, and why (``starbench.engines``):
    with ``engine=auto``, the one its stored rows in the cell ran on (``held``) wherever it
    serves the request, else the choice for the study's size (``cell_nodes``)."""
    try:
        return choose(
            settings.engine,
            algorithm.name,
            exact=settings.exact,
            debug=settings.debug,
            time_budget=settings.time_budget,
            tree=settings.tree,
            key="engine",
            auto=Auto(
                cell_nodes=cell_nodes(settings),
                kept=None if held is None else held.get(algorithm.key),
            ),
        )
    except InputError as e:
        raise ConfigError(str(e)) from None


def cell_nodes(settings: RunSettings) -> int | None:
    """The nodes ``engine=auto`` weighs: ``engine_nodes`` where set (a sweep sets its largest
    cell's, ``plan.study_engine_nodes``), else the most nodes the cell's trees hold in all
    (None when a tree's size is not known)."""
    if settings.engine_nodes is not None:
        return settings.engine_nodes
    size = getattr(settings.tree, "size", None)
    if size is None:
        return None
    return int(size) * (settings.max_trees if settings.target_se is not None else settings.trees)


def engine_for(settings: RunSettings, algorithm: AlgorithmSpec, held: Held | None = None) -> str:
    """The engine that runs ``algorithm`` under ``settings`` ("compiled" or "python")."""
    return engine_choice(settings, algorithm, held).engine


def late_by(spec: AlgorithmSpec, time_budget: float | None, seconds: float) -> str | None:
    """Why an iterative-deepening search of a plugin that ended ``seconds`` after it began is
    over its ``time_budget`` (it runs in this process: the deadline stops a plugin's search that
    looks at Python's signals, not one that blocks past them, so a late end is caught here and
    never stored as ``ok``), or None."""
    from starbench.errors import DEADLINE_GRACE_S
    from starbench.ground.isolate import KILL_GRACE_S
    from starbench.search.registry import get_algorithm, is_plugin

    if time_budget is None or not is_plugin(get_algorithm(spec.name).cls):
        return None
    limit = time_budget + DEADLINE_GRACE_S + KILL_GRACE_S
    if seconds <= limit:
        return None
    return (
        f"time budget of {time_budget:g} s exceeded (the search did not stop at it and ended "
        f"after {seconds:.3g} s)"
    )


class Instance:
    """Instance ``i`` of a cell, built for each engine only when first needed."""

    def __init__(self, settings: RunSettings, instance: int):
        self.settings = settings
        self.instance = instance
        self._python: Any = None
        self._compiled: Any = None
        self.game: Any = None  # a game cell's GameSource
        self.deepened: list[Any] = []  # the GameSources iterative deepening searched

    @property
    def python(self) -> Any:
        if self._python is None:
            s = self.settings
            if isinstance(s.tree, GameSpec):
                self.game = positions.source(s.tree, s.seed, self.instance, s.exact)
                self._python = self.game.tree
            else:
                self._python = RegularTree(s.tree, s.seed, self.instance)
        return self._python

    @property
    def compiled(self) -> Any:
        if self._compiled is None:
            s = self.settings
            if isinstance(s.tree, GameSpec):  # its model's form (compiled.models.ModelTree)
                self._compiled = compiled_tree(self.python)
            else:
                from starbench.compiled.engine import CompiledTree

                self._compiled = CompiledTree.from_regular(s.tree, s.seed, self.instance)
        return self._compiled

    def deepen(
        self, spec: AlgorithmSpec, engine: str = "python"
    ) -> tuple[Any, dict[str, Any], str | None]:
        """Iterative deepening of a game cell (``tree.iterative``): like ``search``, with the
        totals over every iteration as statistics and ``depth_completed``, ``iterations``
        (``starbench.search.deepening``) and the summed ``order_evals`` as extra fields; on the
        compiled engine, each iteration over the game's model with one kernel table."""
        import json

        from starbench.search.deepening import deepen

        s = self.settings
        game = s.tree
        assert isinstance(game, GameSpec)
        at = positions.sources(game, s.seed, self.instance, s.exact)
        used: list[Any] = []

        def tree_at(depth: int) -> Any:
            used.append(at(depth))
            self.deepened.append(used[-1])
            return used[-1].tree

        def make(tree: Any, **options: Any) -> Any:
            return spec.make(tree, s.loaded(spec), exact=s.exact, debug=s.debug, **options)

        if engine == "compiled":
            make = kernel_iterations(spec)

        try:
            with deadline(s.time_budget):  # a search that never looks at the clock, stopped
                d = deepen(
                    tree_at,
                    make,
                    game.depth,
                    tt=spec.table.bits,
                    node_budget=s.node_budget,
                    time_budget=s.time_budget,
                )
        except InputError:
            raise
        except (Exception, SystemExit) as e:  # noqa: BLE001 - any search's failure (a plugin's sys.exit too): a row
            return None, {}, f"error: {type(e).__name__}: {e}"
        self.game = used[-1]
        self._python = self.game.tree
        evals = [u.order_evals() for u in used]
        extra = {
            "depth_completed": d.depth_completed,
            "iterations": json.dumps([it.as_dict() for it in d.iterations]),
            "order_evals": sum(evals) if all(e is not None for e in evals) else None,
            **level_columns(d.by_level if s.levels_detail else None),
            "seconds": d.seconds,  # the whole search, unfinished iteration included
            "cpu_seconds": d.cpu_seconds,
            **d.stats.as_dict(),
        }
        late = late_by(spec, s.time_budget, d.seconds)
        if late is not None:  # a plugin's search the deadline did not stop: never a row "ok"
            return None, extra, f"budget_exceeded: {late}"
        if d.depth_completed < game.depth:
            budget = "node" if s.node_budget is not None else "time"
            return (
                None,
                extra,
                f"budget_exceeded: {budget} budget exceeded at depth {d.depth_completed + 1} "
                f"(depth_completed={d.depth_completed})",
            )
        assert d.result is not None
        return d.result, extra, None

    def search(self, spec: AlgorithmSpec, engine: str) -> tuple[Any, dict[str, int], str | None]:
        """(result or None, statistics, run status or None) of one search (``engines.execute``)."""
        s = self.settings
        if isinstance(s.tree, GameSpec) and s.tree.iterative:
            return self.deepen(spec, engine)
        outcome = self._execute(spec, engine)
        if outcome.status == "done":
            return outcome.result, {}, None
        stats = outcome.stats.as_dict() if outcome.stats is not None else {}
        return None, stats, f"{outcome.status}: {outcome.message}"

    def timed(self, spec: AlgorithmSpec, engine: str, first: Any) -> tuple[float, float, int]:
        """(CPU seconds, wall seconds, repeats) of one search of ``spec`` whose first run gave
        ``first``: its own times when they reach ``TIMING_FLOOR_S``, else the mean over repeats
        whose CPU time adds up to at least that (the first run counted); every repeat must give
        the first's value and counters."""
        cpu, wall, n = float(first.cpu_seconds), float(first.seconds), 1
        while cpu < TIMING_FLOOR_S and n < TIMING_MAX_REPEATS:
            again = self._execute(spec, engine)
            if again.status != "done" or again.result.stats != first.stats:
                raise AssertionError(f"{spec.label}: a repeat of a search gave another result")
            cpu += float(again.result.cpu_seconds)
            wall += float(again.result.seconds)
            n += 1
        return cpu / n, wall / n, n

    def _execute(self, spec: AlgorithmSpec, engine: str) -> Any:
        s = self.settings
        tree = None if engine == "compiled" else self.python
        if self.game is not None:
            self.game.reset_counts()
        return execute(
            spec,
            tree,
            engine=engine,
            exact=s.exact,
            debug=s.debug,
            node_budget=s.node_budget,
            time_budget=s.time_budget,
            compiled=self.compiled if engine == "compiled" else None,
            loaded=s.loaded(spec),
            levels=s.levels_detail,
        )

    def bounds_and_levels(self) -> tuple[Any, Any, int | None, int | None]:
        if self.game is not None or isinstance(self.settings.tree, GameSpec):
            t = self.python
            return t.L, t.U, None, None
        t = self._compiled if self._compiled is not None else self.python
        if t is self._compiled:
            return t.L, t.U, t.levels, t.tree_seed_int
        return t.L, t.U, t.levels, t.tree_seed

    def flat_value(self) -> Any:
        """The one value every leaf of this game instance's searches had, or None (a random
        tree, or leaves that differed; ``GameTree.flat_value``)."""
        trees = [g.tree for g in (self.game, *self.deepened) if g is not None]
        if not trees:
            return None
        values = [t.flat_value() for t in trees]
        if any(v is None for v in values) or len(set(values)) != 1:
            return None
        return values[0]

    def game_fields(self, best_move: Any) -> dict[str, Any]:
        """A game row's position, dice and best action, and its decision columns where the
        game has an oracle (``oracles.decisions``); nothing in a random-tree cell."""
        g = self.game
        if g is None:
            return {}
        s = self.settings
        assert isinstance(s.tree, GameSpec)
        oracle = decisions.game_oracle(s.tree.game)
        return {
            "position": g.position,
            "dice": g.dice or None,
            "best_action": None if best_move is None else str(g.action(best_move)),
            "order_evals": g.order_evals() if g.move_order != "none" else None,
            **({} if oracle is None else decisions.game_row(oracle, g, best_move)),
        }


#: The key of a raw row that says every leaf of its instance's searches had this one value (the
#: heuristic does not tell the game's positions apart); the runner says so once, ``Row`` drops it.
FLAT = "_flat_leaves"


def compute_instance(
    settings: RunSettings,
    instance: int,
    todo: tuple[AlgorithmSpec, ...],
    held: Held | None = None,
) -> list[dict[str, Any]]:
    """Search instance ``instance`` with the algorithms ``todo``; one row (``FIELDS``) each
    (``held``: the engines the cell's stored rows ran on, ``engine_choice``)."""
    inst = Instance(settings, instance)
    rows = []
    for spec in todo:
        engine = engine_for(settings, spec, held)
        result, stats, failure = inst.search(spec, engine)  # stats: with an error, or extra
        row: dict[str, Any] = {
            "instance": instance,
            "algorithm": spec.name,
            **dict(zip(KEY_PARAMS, key_values(dict(spec.params)), strict=True)),
            "engine": engine,
        }
        if result is not None:
            once = "depth_completed" in stats or settings.timing == "once"  # deepening: its
            # time is every iteration's, once
            cpu, wall, repeats = (
                (result.cpu_seconds, result.seconds, 1)
                if once
                else inst.timed(spec, engine, result)
            )
            row.update(
                {
                    "run_status": "done",
                    "error": None,
                    "value": float(result.value),
                    "value_exact": format_value(result.value, True) if settings.exact else None,
                    "best_move": result.best_move,
                    "root_values": decisions.root_values(result),
                    "seconds": wall,
                    "cpu_seconds": cpu,
                    "timing_repeats": repeats,
                    **result.stats.as_dict(),
                    **level_columns(result.by_level),
                    # iterative deepening: totals over the iterations, the whole time,
                    # depth_completed and the iterations
                    **stats,
                }
            )
        else:
            status, _, message = failure.partition(": ")
            row.update(
                {
                    "run_status": status,
                    "error": message,
                    "value": None,
                    "value_exact": None,
                    "best_move": None,
                    "seconds": None,
                    "cpu_seconds": None,
                    **stats,  # iterative deepening: the time spent too
                }
            )
        fields = inst.game_fields(row["best_move"])
        if "order_evals" in stats:  # iterative deepening: summed over the iterations
            fields["order_evals"] = stats["order_evals"]
        row.update(fields)
        rows.append(row)
    L, U, levels, tseed = inst.bounds_and_levels()
    for row in rows:
        row.update(tree_seed=tseed, L=float(L), U=float(U), levels=levels)
    flat = inst.flat_value()
    if rows and flat is not None:  # read by the runner (one line per cell), never stored
        rows[0][FLAT] = flat
    return rows


# --------------------------------------------------------------------------- processes
def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask; a cluster job's allocation)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this platform
        return max(1, os.cpu_count() or 1)


def workers_line(n_jobs: int, asked: str | None = None) -> str | None:
    """One line when ``n_jobs`` asks for more processes than CPUs this process may use
    (``asked``: how the request is named, ``n_jobs=N`` by default)."""
    cpus = usable_cpus()
    if n_jobs <= cpus:
        return None
    return (
        f"starbench: {asked or f'n_jobs={n_jobs}'} capped at {cpus} processes, the CPUs this "
        f"process may use (more would only share them)"
    )


def _die_with_parent(parent: int) -> None:
    """Pool worker initializer: end this worker within a second of its parent's death; Ctrl-C
    is the parent's to handle (the worker ignores SIGINT, so it prints no traceback of its
    own and the parent says what is kept)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:  # where prctl is missing; also covers a reparenting race
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def compute_rows(
    settings: RunSettings,
    pending: Collection[tuple[int, tuple[AlgorithmSpec, ...]]],
    held: Held | None = None,
) -> Iterator[list[dict[str, Any]]]:
    """Yield the rows of each pending instance as it completes (in any order); ``pending`` is
    iterated lazily (``stages.Pending``), at most two instances a worker submitted at once
    (``held``: ``compute_instance``)."""
    if isinstance(settings.tree, GameSpec):
        # computed (and cached) once, before any worker, within the run's memory limit
        decisions.game_oracle(settings.tree.game, settings.oracle_memory_limit)
    workers = min(settings.n_jobs, usable_cpus(), len(pending))
    if workers <= 1:
        for i, todo in pending:
            yield compute_instance(settings, i, todo, held)
        return
    with ProcessPoolExecutor(
        max_workers=workers, initializer=_die_with_parent, initargs=(os.getpid(),)
    ) as pool:
        todo = iter(pending)
        running: set[Any] = set()
        try:
            while True:  # at most two instances a worker in flight: pending is lazy
                for i, algs in itertools.islice(todo, 2 * workers - len(running)):
                    running.add(pool.submit(compute_instance, settings, i, algs, held))
                if not running:
                    return
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for f in finished:
                    yield f.result()
        finally:
            for f in running:
                f.cancel()


def rate_text(rate: float) -> str:
    """Nodes per second in a readable unit."""
    if rate >= 1e6:
        return f"{rate / 1e6:.1f} M nodes/s"
    if rate >= 1e3:
        return f"{rate / 1e3:.1f} k nodes/s"
    return f"{rate:.0f} nodes/s"


class Progress:
    """A tqdm bar on a terminal; plain log lines (about every 10%) otherwise."""

    def __init__(self, total: int, enabled: bool, write: Any = None):
        self.write = write or (lambda line: sys.stderr.write(line + "\n"))
        self.total = total
        self.done = 0
        self.nodes = 0
        self.t0 = time.perf_counter()
        self.bar = None
        self.enabled = enabled and total > 0
        self.step = max(1, total // 10)
        if self.enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="tree", file=sys.stderr, dynamic_ncols=True)

    def update(self, nodes: int) -> None:
        self.done += 1
        self.nodes += nodes
        rate = self.nodes / max(time.perf_counter() - self.t0, 1e-9)
        if self.bar is not None:
            self.bar.set_postfix_str(rate_text(rate), refresh=False)
            self.bar.update(1)
        elif self.enabled and (self.done % self.step == 0 or self.done == self.total):
            elapsed = time.perf_counter() - self.t0
            eta = elapsed / self.done * (self.total - self.done)
            self.write(
                f"starbench: {self.done}/{self.total} instances, {rate_text(rate)}, ETA {eta:.0f} s"
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
