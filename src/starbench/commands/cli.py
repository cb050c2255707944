"""The ``starbench`` command: a thin layer over plain functions.

Subcommands: ``solve`` (search one JSON tree), ``run`` (the Hydra experiment runner; every
argument after ``run`` goes to Hydra), ``collect`` (one table from a sweep), ``export`` (an
instance of a result row as a JSON tree).  Bad input prints one line ``starbench: error: ...`` on
stderr and exits with status 2; a value mismatch, or a search that raised (one line each), exits
with status 1.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from starbench.errors import InputError
from starbench.ground.limits import (
    EXPORT_MAX_NODES,
    JSON_MAX_BYTES,
    JSON_MAX_NODES,
    MAX_CONFORM_TREES,
    MAX_GAMES,
    MAX_POSITIONS,
)

EXIT_MISMATCH = 1
EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2, no usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"starbench: error: {message} (see '{self.prog} --help')\n")
        raise SystemExit(EXIT_BAD_INPUT)


def fail(message: str) -> int:
    sys.stderr.write(f"starbench: error: {message}\n")
    return EXIT_BAD_INPUT


def _parser_solve(sub: Any) -> None:
    """``starbench solve``'s arguments."""
    p = sub.add_parser(
        "solve", help="search one JSON tree or game position with several algorithms"
    )
    p.add_argument("tree", nargs="?", help="a JSON tree file")
    p.add_argument(
        "--game",
        metavar="SPEC",
        help="search a game instead: backgammon (GNU Backgammon's evaluator; the backgammon "
        "extra) or an OpenSpiel load_game string (pig, pig(winscore=10), openspiel:backgammon; "
        "the games extra)",
    )
    p.add_argument("--depth", type=int, help="with --game: decision plies (chance nodes are free)")
    p.add_argument(
        "--position",
        metavar="P",
        help="with --game: the start position (OpenSpiel: comma-separated action history; "
        "backgammon: a gnubg position ID, the player on roll to move)",
    )
    p.add_argument(
        "--dice",
        metavar="D1,D2",
        help="with --game backgammon: the root's roll (default: the root is the roll)",
    )
    p.add_argument(
        "--move-order",
        choices=("none", "equity", "equity_inner"),
        help="with --game backgammon: equity orders moves by gnubg's 0-ply equity, best first "
        "(counted in order_evals); equity_inner the same except just above the horizon; "
        "default none",
    )
    p.add_argument(
        "--heuristic",
        metavar="NAME",
        help="with --game: the horizon's evaluation (default: the game's own; see docs)",
    )
    p.add_argument(
        "-a",
        "--algorithm",
        action="append",
        metavar="NAME[:PARAM=VALUE,...]",
        help="algorithm to run (repeatable; default: every one that applies)",
    )
    p.add_argument("--exact", action="store_true", help="exact fraction arithmetic")
    p.add_argument(
        "--plugin",
        action="append",
        metavar="MODULE",
        help="import this module first (it may register algorithms; repeatable)",
    )
    p.add_argument(
        "--max-bytes",
        type=int,
        default=JSON_MAX_BYTES,
        help=f"refuse larger tree files (default {JSON_MAX_BYTES:_})",
    )
    p.add_argument(
        "--max-nodes",
        type=int,
        default=JSON_MAX_NODES,
        help=f"refuse trees with more nodes (default {JSON_MAX_NODES:_})",
    )
    p.add_argument("--json", action="store_true", help="print only a JSON array on stdout")
    p.add_argument(
        "--node-budget",
        type=_positive_int("--node-budget"),
        default=None,
        metavar="N",
        help="stop a search after N nodes (it then has no value; a line says so)",
    )
    p.add_argument("--list", action="store_true", help="list the algorithms and their parameters")
    p.add_argument(
        "--engine",
        choices=("auto", "compiled", "python"),
        default="auto",
        help="search engine (auto: compiled on random trees over 20000 nodes, games with a model)",
    )
    p.add_argument(
        "--debug",
        action="store_true",
        help="check every windowed result against a full-window search (slow)",
    )
    p.set_defaults(func=_cmd_solve)


def _cmd_solve(args: argparse.Namespace) -> int:
    from starbench.commands.solve import row, solve, table
    from starbench.search import ALGORITHMS
    from starbench.search.registry import load_entry_points
    from starbench.trees.explicit import load_tree

    for module in args.plugin or []:
        from starbench.experiment.plan import import_plugin

        import_plugin(module, "--plugin")
    if args.list:
        load_entry_points()
        for info in ALGORITHMS.values():
            print(info.describe())
        return 0
    source = None
    if args.game is not None:
        from starbench.games.source import game_source

        if args.tree is not None:
            return fail("solve takes a TREE.json argument or --game, not both")
        if args.depth is None:
            return fail("--game needs --depth D (decision plies)")
        source = game_source(
            args.game,
            args.depth,
            args.position,
            args.heuristic,
            exact=args.exact,
            dice=args.dice,
            move_order=args.move_order or "none",
        )
        tree = source.tree
        from starbench.games.source import long_search_line, size_estimate

        estimate = size_estimate(tree, args.depth)
        line = long_search_line(
            args.game, args.depth, estimate, "--node-budget {}", args.node_budget
        )
        if line is not None:
            sys.stderr.write(f"starbench: {line}\n")
    elif args.tree is None:
        return fail("solve needs a TREE.json argument, --game SPEC --depth D, or --list")
    elif any(
        x is not None
        for x in (args.depth, args.position, args.heuristic, args.dice, args.move_order)
    ):
        return fail("--depth, --position, --heuristic, --dice and --move-order go with --game")
    else:
        tree = load_tree(
            args.tree, exact=args.exact, max_bytes=args.max_bytes, max_nodes=args.max_nodes
        )
    solved = solve(
        tree,
        args.algorithm,
        exact=args.exact,
        debug=args.debug,
        engine=args.engine,
        log=lambda line: sys.stderr.write(line + "\n"),
        before=None if source is None else source.reset_counts,
        after=None if source is None else source.order_evals,
        node_budget=args.node_budget,
    )
    for line in (*solved.stopped, *solved.failed):
        sys.stderr.write(line + "\n")
    from starbench.games.source import flat_note

    if source is not None and (note := flat_note(source)) is not None:
        sys.stderr.write(note + "\n")
    action = None if source is None else source.action
    evals = solved.extras
    if args.json:
        rows = [row(r, action, e) for r, e in zip(solved.results, evals, strict=True)]
        print(json.dumps(rows, indent=1))
    else:
        if source is not None:
            dice = f", dice {source.dice}" if source.dice else ""
            order = f", move order {source.move_order}" if source.move_order != "none" else ""
            print(
                f"game {source.game}, position {source.position or '(start)'}{dice}, depth "
                f"{args.depth}, heuristic {source.heuristic}{order}"
            )
        print(table(solved.results, action, evals))
    if solved.mismatch:
        sys.stderr.write(f"starbench: MISMATCH: {solved.mismatch}\n")
        return EXIT_MISMATCH
    return 1 if solved.failed else 0


def _parser_collect(sub: Any) -> None:
    """``starbench collect``'s arguments."""
    p = sub.add_parser(
        "collect",
        help="concatenate the cells of a sweep into one table",
        epilog="Writes DIR/collected.parquet from every readable cell and prints each cell's "
        "coverage against what was asked of it.  Exit status: 0 when every cell is complete; "
        "1 when any is missing, incomplete, interrupted, failed, mismatched or corrupt (each "
        "listed with the command that reruns it: run it, then collect again; the readable "
        "cells are collected all the same); 2 for bad input (no such folder).",
    )
    p.add_argument("dir", help="a sweep (or any) folder holding result cells")
    p.add_argument("--csv", action="store_true", help="also write collected.csv")
    p.set_defaults(func=_cmd_collect)


def _cmd_collect(args: argparse.Namespace) -> int:
    from starbench.experiment.collect import collect

    root = Path(args.dir)
    if not root.is_dir():
        return fail(f"{root}: no such folder")
    result = collect(root, csv=args.csv)
    if result.cells == 0 and not result.problems:
        return fail(f"{root}: no result cells below this folder (no cell.json found)")
    for folder, cov in result.coverage:
        state = "complete" if cov.complete else "INCOMPLETE"
        print(f"{state}: {folder}: {cov.describe()}")
    if result.table is not None:
        found = f" of the {result.cells} found" if result.used != result.cells else ""
        print(f"table: {result.table} ({result.rows} rows from {result.used} cells{found})")
    for folder, cov in result.beyond:
        print(f"holds more than asked: {folder}: {', '.join(cov.extra)}")
    for kind, folder, command in result.problems:
        print(f"{kind}: {folder}" + (f"\n  rerun: {command}" if command else ""))
    return 1 if result.problems else 0


def _parser_corpus(sub: Any) -> None:
    """``starbench corpus``'s arguments."""
    p = sub.add_parser("corpus", help="the reference corpus of small trees with their answers")
    corpus_sub = p.add_subparsers(dest="corpus_command", required=True, parser_class=_Parser)
    c = corpus_sub.add_parser("export", help="write trees.json and manifest.json into DIR")
    c.add_argument("dir", metavar="DIR", help="the output folder (created if needed)")
    c.set_defaults(func=_cmd_corpus)


def _cmd_corpus(args: argparse.Namespace) -> int:
    from starbench.experiment.cellfolder import check_writable
    from starbench.external import corpus

    check_writable(Path(args.dir), "DIR")
    trees, manifest = corpus.export(Path(args.dir))
    print(f"wrote {trees} and {manifest}")
    return 0


def _out_and_size(p: argparse.ArgumentParser, out: str, limit: str) -> None:
    """``-o FILE`` and ``--max-nodes N`` of the commands that write a tree."""
    p.add_argument("-o", "--out", default=out, help=f"output file (default {out})")
    p.add_argument(
        "--max-nodes",
        type=int,
        default=EXPORT_MAX_NODES,
        help=f"{limit} (default {EXPORT_MAX_NODES:_} nodes)",
    )


def _parser_shrink(sub: Any) -> None:
    """``starbench shrink``'s arguments."""
    p = sub.add_parser(
        "shrink",
        help="reduce a tree on which an algorithm disagrees with expectimax to a 1-minimal one",
    )
    p.add_argument("source", metavar="TREE_OR_CELL", help="a JSON tree file, or a cell folder")
    p.add_argument(
        "--algorithm", required=True, metavar="NAME[:PARAM=VALUE,...]", help="the algorithm"
    )
    p.add_argument("--instance", type=int, help="with a cell folder: the instance (default 0)")
    p.add_argument(
        "--plugin", action="append", metavar="MODULE", help="import a module first (repeatable)"
    )
    p.add_argument(
        "--engine",
        metavar="'COMMAND ARGS'",
        help="shrink against an engine outside starbench (the conform protocol) instead",
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=10.0,
        help="seconds one search of a candidate tree may take (default 10); past it, it fails",
    )
    p.add_argument(
        "--memory-limit", type=int, default=2 * 2**30, help="with --engine: bytes (2 GB)"
    )
    p.add_argument(
        "--keep-shape", action="store_true", help="with --engine: keep the kinds' alternation"
    )
    _out_and_size(p, "shrunk.json", "size limit of the tree given")
    p.set_defaults(func=_cmd_shrink)


def _cmd_shrink(args: argparse.Namespace) -> int:
    import resource
    import tempfile

    from starbench.external import shrink
    from starbench.search.registry import parse_spec, resolve

    for module in args.plugin or []:
        from starbench.experiment.plan import import_plugin

        import_plugin(module, "--plugin")
    name, params = parse_spec(args.algorithm)
    if args.engine is None:
        resolve(name, params)  # an unknown algorithm or parameter: one line, before any work
    source = Path(args.source)
    if source.is_dir():
        from starbench.external.export import export

        with tempfile.TemporaryDirectory() as tmp:
            path, _row = export(
                source, Path(tmp) / "tree.json", args.instance or 0, None, args.max_nodes, None
            )
            text = Path(path).read_text(encoding="utf-8")
    elif args.instance is not None:
        return fail(f"--instance goes with a cell folder; {source} is a tree file")
    elif not source.is_file():
        return fail(f"{source}: no such tree file or cell folder")
    else:
        text = source.read_text(encoding="utf-8")
    from starbench.trees.explicit import loads_tree, tree_to_json

    # read as solve reads it (the file's errors in one line), then in exact numbers
    tree = shrink.Tree.of(tree_to_json(loads_tree(text, str(source), max_nodes=args.max_nodes)))
    if args.engine is not None:
        return _shrink_with_engine(args, tree, source)
    if not args.time_limit > 0:
        return fail(f"--time-limit: must be a number of seconds > 0, got {args.time_limit}")
    before = resource.getrusage(resource.RUSAGE_SELF)
    worker = shrink.worker_for(args.algorithm, args.time_limit)
    check = functools.partial(shrink.disagreement, time_limit=args.time_limit, worker=worker)
    try:
        done = shrink.shrink(tree, args.algorithm, check=check)
    except shrink.NotReproducible as e:
        print(f"starbench: {e}", file=sys.stderr)
        return 1
    finally:
        if worker is not None:
            worker.close()
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done is None:
        print(f"{args.algorithm} agrees with expectimax on {source}: nothing to shrink")
        return 1
    out = Path(args.out)
    shrink.write(done, out)
    plugins = "".join(f" --plugin {m}" for m in args.plugin or [])
    print(
        f"shrunk {done.start_nodes} -> {shrink.nodes(done.tree.root)} nodes in "
        f"{done.evaluations} evaluations ({cpu:.2f} s CPU): {done.disagreement.describe()}"
    )
    print(
        f"wrote {out}; see it: starbench solve {out} --exact --algorithm expectimax "
        f"--algorithm {args.algorithm}{plugins}"
    )
    return 0


def _shrink_with_engine(args: argparse.Namespace, tree: Any, source: Path) -> int:
    """``starbench shrink --engine COMMAND``: the disagreement of an engine outside
    starbench, shrunk with the engine answering every candidate (``conform``'s rules)."""
    from starbench.external import conform, shrink
    from starbench.ground.files import atomic_write_text

    engine = conform.Engine(args.engine, args.time_limit, args.memory_limit)
    run = conform.Run(engine, args.algorithm, Path(args.out).parent, keep_shape=args.keep_shape)
    try:
        found = run.ask(tree, str(source), None)
        if found is None or found.kind != "disagree":
            said = "failed on" if found is None else f"{found.kind}s with expectimax on"
            print(f"the engine's {args.algorithm} {said} {source}: nothing to shrink")
            return 1
        reduced = run.reduce(tree, str(source), None, found)
    finally:
        engine.close()
    if reduced is None:
        print(
            f"asked again, the engine agreed on {source}: its answers are not a function "
            f"of the tree"
        )
        return 1
    _key, doc, size = reduced
    out = Path(args.out)
    atomic_write_text(out, json.dumps(doc, indent=1) + "\n")
    print(f"{size}: {doc[shrink.ANSWERS]['why']}")
    print(f"wrote {out}; see it: starbench solve {out} --exact --algorithm expectimax")
    return 0


def _parser_calibrate(sub: Any) -> None:
    """``starbench calibrate``'s arguments."""
    p = sub.add_parser(
        "calibrate",
        help="fit ChanceProbCut's models on positions of a tree model (a file cal=DIGEST names)",
    )
    p.add_argument("--r", type=int, default=1, help="the decision plies saved (default 1)")
    p.add_argument("--positions", type=int, default=100, help="positions drawn (default 100)")
    p.add_argument("--seed", type=int, help="their seed (default: the run's seed + 1000000)")
    p.add_argument(
        "-cd",
        "--config-dir",
        metavar="DIR",
        help="your config folder, as for run (the file then goes to DIR/calibrations)",
    )
    p.add_argument(
        "--out", metavar="DIR", help="folder (default: calibrations/ in -cd DIR, or here)"
    )
    p.add_argument(
        "overrides",
        nargs="*",
        metavar="KEY=VALUE",
        help="the run's overrides (tree.*, experiment=...)",
    )
    p.set_defaults(func=_cmd_calibrate)


def _cmd_calibrate(args: argparse.Namespace) -> int:
    """``starbench calibrate``: ChanceProbCut's fits for the tree model the overrides compose
    (``starbench.experiment.calibrate``)."""
    import time

    from starbench.experiment import calibrate
    from starbench.experiment.cellfolder import check_writable
    from starbench.experiment.plan import composition_error, plan
    from starbench.search import calibration
    from starbench.trees.regular import RegularTreeSpec

    if not 2 <= args.positions <= MAX_POSITIONS:
        return fail(
            f"--positions: must be an integer in 2..{MAX_POSITIONS:,} (limits.MAX_POSITIONS), "
            f"got {args.positions}"
        )
    if args.seed is not None and not 0 <= args.seed < 2**64:
        return fail(f"--seed: must be an integer in 0..2^64-1, as run's seed, got {args.seed}")
    overrides = [o for o in args.overrides if o not in ("-m", "--multirun")]
    if any(
        "," in o.partition("=")[2] and not o.partition("=")[2].startswith("[") for o in overrides
    ):
        return fail("calibrate: one tree model at a time: no sweeps (KEY=A,B) in the overrides")
    cd = ["-cd", args.config_dir] if args.config_dir else []
    try:  # the run's checks, one line each (as starbench run says them)
        settings = plan([*cd, *overrides]).cells[0].settings
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001 - Hydra's composition errors, one line
        return fail(composition_error(e))
    spec = settings.tree
    if not isinstance(spec, RegularTreeSpec) and spec.iterative:
        return fail("calibrate: tree.iterative: calibrate the game at its depth, without it")
    seed = settings.seed + calibration.SEED_OFFSET if args.seed is None else args.seed
    if seed == settings.seed:
        return fail(f"--seed: {seed} is the run's own seed; calibrate on other positions")
    t = time.process_time()
    cal = calibrate.calibrate(spec, seed, args.positions, args.r)
    cpu = time.process_time() - t
    out = Path(
        args.out
        or (Path(args.config_dir) / calibration.FOLDER if args.config_dir else calibration.FOLDER)
    )
    check_writable(out, "--out")
    path = calibrate.save(cal, out)
    print(f"depth pairs (D -> D-{cal.r}) on {cal.positions} positions, seed {cal.seed}:")
    print(f"{'D':>3} {'n':>6} {'a':>12} {'b':>14} {'s':>14} {'R^2':>8}")
    for d, f in sorted(cal.fits.items()):
        print(f"{d:>3} {f.n:>6} {f.a:>12.6g} {f.b:>14.6g} {f.s:>14.6g} {f.r2:>8.4f}")
        if f.s == 0:
            print(f"    s = 0 at D={d}: every point on the line; any finite t cuts on the estimate")
    print(f"wrote {path} ({cpu:.1f} s CPU)")
    print(f"use it: algorithms=[star2,chanceprobcut] with chanceprobcut's cal={cal.digest}")
    return 0


def _parser_conform(sub: Any) -> None:
    """``starbench conform``'s arguments."""
    p = sub.add_parser(
        "conform",
        help="check an engine in any language (or a plugin) against exact expectimax",
        epilog="Exit status: 0 when no tree disagrees or failed and at least one agrees; 1 "
        "otherwise; 2 for bad input.  The protocol: docs/reference/protocol.md.",
    )
    p.add_argument(
        "--engine",
        metavar="'COMMAND ARGS'",
        help="the engine's command (without it: --algorithm in this process, a registered "
        "plugin's or starbench's own)",
    )
    p.add_argument(
        "--algorithm", required=True, metavar="LABEL", help="e.g. star2:after_probe=resume"
    )
    p.add_argument("--plugin", action="append", metavar="MODULE", help="import a module first")
    p.add_argument(
        "--trees",
        type=int,
        default=None,
        help="N of the corpus's mixed trees after the corpus (default: the game-shaped "
        "families, about 8,400 requests)",
    )
    p.add_argument("--seed", type=int, default=0, help="the generated trees' seed (default 0)")
    p.add_argument(
        "--trees-from",
        metavar="PATH",
        help="your own trees: a tree file, a JSON-lines file of trees, or a folder of tree files "
        "(alone; with --defaults, before the default trees)",
    )
    p.add_argument(
        "--defaults", action="store_true", help="with --trees-from: the default trees too"
    )
    p.add_argument(
        "--keep-shape",
        action="store_true",
        help="shrink only to trees with the same alternation of kinds on every path",
    )
    p.add_argument("--fail-fast", action="store_true", help="stop at the first failed tree")
    p.add_argument(
        "--failure-budget",
        type=int,
        default=3,
        metavar="N",
        help="trees of one cause after which they are only counted, and a hang (a failure "
        "that costs --time-limit each) stops the run (default 3); each cause is shrunk once",
    )
    p.add_argument("--time-limit", type=float, default=10.0, help="seconds per tree (default 10)")
    p.add_argument(
        "--memory-limit",
        type=int,
        default=2 * 2**30,
        help="bytes of address space (2 GB; a JVM needs more)",
    )
    p.add_argument("--out", metavar="DIR", default="conform", help="one file per cause (conform/)")
    p.set_defaults(func=_cmd_conform)


#: The largest ``--memory-limit`` (an address-space limit is a signed 64-bit number).
MAX_MEMORY_LIMIT = 2**63 - 1


def _engine_of(args: argparse.Namespace) -> Any:
    """The engine ``--engine`` names (a process), or, without it, ``--algorithm`` in this
    process; refused in one line when there is neither."""
    from starbench.external import conform

    if not args.time_limit > 0:
        raise InputError(f"--time-limit: must be a number of seconds > 0, got {args.time_limit}")
    if not 2**24 <= args.memory_limit <= MAX_MEMORY_LIMIT:
        raise InputError(
            f"--memory-limit: must be a number of bytes in 16777216 (16 MB) .. "
            f"{MAX_MEMORY_LIMIT} (2^63 - 1), got {args.memory_limit}"
        )
    if args.engine is None:
        return conform.InProcess(args.algorithm, args.time_limit)
    return conform.Engine(args.engine, args.time_limit, args.memory_limit)


def _cmd_conform(args: argparse.Namespace) -> int:
    """``starbench conform`` (``starbench.external.conform``)."""
    from starbench.experiment.cellfolder import check_writable
    from starbench.experiment.plan import import_plugin
    from starbench.external import conform
    from starbench.search.registry import parse_spec, resolve

    if args.trees is not None and not 0 <= args.trees <= MAX_CONFORM_TREES:
        return fail(
            f"--trees: must be an integer in 0..{MAX_CONFORM_TREES:,} "
            f"(limits.MAX_CONFORM_TREES), got {args.trees}"
        )
    if args.defaults and not args.trees_from:
        return fail("--defaults goes with --trees-from (the default trees are run anyway)")
    if args.failure_budget < 1:
        return fail(f"--failure-budget: must be an integer >= 1, got {args.failure_budget}")
    for module in args.plugin or []:
        import_plugin(module, "--plugin")
    name, params = parse_spec(args.algorithm)  # a malformed label is one line
    if args.engine is None:
        resolve(name, params)  # in this process: a registered algorithm
    check_writable(Path(args.out), "--out")
    trees_from = Path(args.trees_from) if args.trees_from else None
    if trees_from is not None:
        next(iter(conform.given_trees(trees_from)), None)  # a bad file: one line, at once
    source = conform.cases(
        args.trees, args.seed, trees_from, defaults=trees_from is None or args.defaults
    )
    engine = _engine_of(args)
    report = conform.conform(
        engine,
        args.algorithm,
        source,
        Path(args.out),
        keep_shape=args.keep_shape,
        fail_fast=args.fail_fast,
        budget=args.failure_budget,
    )
    print(conform.table(report))
    if report.first_unsupported:
        print(f"(first unsupported: {report.first_unsupported})")
    ok = report.disagree == 0 and report.failed == 0 and report.agree > 0
    return 0 if ok else 1


def _parser_export(sub: Any) -> None:
    """``starbench export``'s arguments."""
    p = sub.add_parser("export", help="write the tree of a result row as a JSON tree")
    p.add_argument("source", metavar="CELL_OR_TABLE", help="a cell folder or a .parquet table")
    p.add_argument("--instance", type=int, help="the instance to export (default 0)")
    p.add_argument("--row", type=int, help="or the row number in the table")
    p.add_argument("--cell", help="the cell (its 'cell' id) when a table holds several")
    _out_and_size(p, "tree.json", "size limit")
    p.set_defaults(func=_cmd_export)


def _cmd_export(args: argparse.Namespace) -> int:
    from starbench.experiment.cellfolder import check_writable
    from starbench.external.export import export

    check_writable(Path(args.out).parent, "-o")
    out, row = export(
        Path(args.source), Path(args.out), args.instance, args.row, args.max_nodes, args.cell
    )
    spec = row["algorithm"]
    params = [
        f"{k}={row[k]}"
        for k in ("k", "after_probe")
        if row.get(k) is not None and str(row[k]) not in ("<NA>", "nan", "None")
    ]
    if params:
        spec += ":" + ",".join(params)
    exact = " --exact" if bool(row.get("exact")) else ""
    from starbench.external.export import is_game

    where = f"position {row.get('position')}" if is_game(row) else f"tree_seed {row['tree_seed']}"
    print(f"wrote {out} (instance {row['instance']}, {where})")
    print(f"reproduce: starbench solve {out} -a {spec}{exact}")
    return 0


def _parser_bench(sub: Any) -> None:
    """``starbench bench``'s arguments."""
    p = sub.add_parser("bench", help="nodes per second per algorithm and engine")
    p.add_argument("--out", default="results/bench", help="folder for bench.md and bench.json")
    p.add_argument("--instances", type=int, default=5, help="trees per shape")
    p.add_argument(
        "--repeats",
        type=int,
        help="repeats (the median is reported; default 9, and 5 with --latency)",
    )
    p.add_argument(
        "--no-compile",
        action="store_true",
        help="skip the compile-time and memory probes (fresh processes)",
    )
    p.add_argument(
        "--generator-version",
        type=int,
        action="append",
        dest="versions",
        help="measure trees of this generator version (repeatable; default: every version)",
    )
    p.add_argument(
        "--latency",
        action="store_true",
        help="only the latency section: the researcher's loop (import, run of a complete cell, "
        "collect, load_results, the summary, plot) in CPU seconds of fresh processes, into "
        "latency.md and latency.json (--repeats: default 5 here)",
    )
    p.add_argument(
        "--before",
        metavar="DIR",
        help="with --latency: also time the code of this checkout (git worktree add DIR COMMIT), "
        "interleaved, side by side",
    )
    p.set_defaults(func=_cmd_bench)


def _cmd_bench(args: argparse.Namespace) -> int:
    from starbench.commands.bench import bench
    from starbench.trees.generators import GENERATORS

    repeats = args.repeats if args.repeats is not None else 5 if args.latency else 9
    if args.instances < 1 or repeats < 1:
        return fail("--instances and --repeats must be >= 1")
    if args.before and not args.latency:
        return fail("--before: only with --latency")
    if args.latency:
        from starbench.commands.latency import markdown as latency_markdown
        from starbench.commands.latency import measure

        try:
            result = measure(Path(args.out), repeats, Path(args.before) if args.before else None)
        except ValueError as e:
            return fail(str(e))
        print(latency_markdown(result))
        print(f"wrote {Path(args.out) / 'latency.md'} and {Path(args.out) / 'latency.json'}")
        return 0
    versions = tuple(dict.fromkeys(args.versions or GENERATORS))
    bad = [v for v in versions if v not in GENERATORS]
    if bad:
        known = ", ".join(map(str, GENERATORS))
        return fail(f"--generator-version: must be one of {known}, got {bad[0]}")
    result = bench(
        Path(args.out),
        instances=args.instances,
        repeats=repeats,
        compile_and_memory=not args.no_compile,
        versions=versions,
    )
    from starbench.commands.bench import markdown

    print(markdown(result))
    print(f"wrote {Path(args.out) / 'bench.md'} and {Path(args.out) / 'bench.json'}")
    return 0


def _seaborn_without_scipy_stats() -> None:
    """Import seaborn as if scipy were absent: it imports ``scipy.stats`` and ``scipy.cluster``
    (about 1.2 s, more than half of a one-figure ``plot``) only for kernel density estimates
    and clustered heatmaps, which no starbench figure draws (without scipy it falls back on its
    own copy of the estimator).  Done in the ``plot`` command's own process only (a script that
    imports ``starbench.analysis`` gets seaborn as installed); both import normally afterwards
    (the decision figures' bootstrap intervals use ``scipy.stats``)."""
    hidden = ("scipy.stats", "scipy.cluster")
    if "seaborn" in sys.modules or any(name in sys.modules for name in hidden):
        return
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # an ImportError in seaborn
    try:
        import seaborn  # noqa: F401
    finally:
        for name in hidden:
            del sys.modules[name]


def _parser_plot(sub: Any) -> None:
    """``starbench plot``'s arguments."""
    from starbench.commands.catalog import help_text

    p = sub.add_parser(
        "plot",
        help="figures and tables from stored result tables",
        epilog=help_text()
        + "\n\nBeside them: each figure's table (.md, .tex, .csv) and differences.md, the "
        "paired differences between algorithms.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("results", help="a results folder (or one .parquet table)")
    p.add_argument("--out", help="output folder (default RESULTS/figures)")
    p.add_argument("--figure", action="append", help="only this figure (repeatable)")
    p.add_argument(
        "--pool",
        action="append",
        metavar="COLUMN",
        help="average over this condition instead of a panel per value (repeatable; named on "
        "the figure and in its table)",
    )
    p.add_argument(
        "--free-y",
        action="store_true",
        help="give each panel its own y range (by default panels of one measure share it)",
    )
    p.add_argument(
        "--format",
        action="append",
        choices=("png", "pdf"),
        help="only this image format (repeatable; default both; the .csv, .md and .tex tables "
        "are written whatever the format)",
    )
    p.add_argument(
        "--size",
        action="append",
        choices=("single", "double"),
        help="only this width: single (3.5 in) or double column (7.16 in) (repeatable; default "
        "both)",
    )
    p.set_defaults(func=_cmd_plot)


def _cmd_plot(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg")  # files only, no window (the library leaves the backend alone)
    _seaborn_without_scipy_stats()
    from starbench.analysis import plot
    from starbench.analysis.plotting import FORMATS, Images
    from starbench.analysis.style import WIDTHS
    from starbench.experiment.cellfolder import check_writable

    out = Path(args.out) if args.out else Path(args.results) / "figures"
    check_writable(out, "--out")
    written = plot(
        Path(args.results),
        out,
        names=args.figure,
        warn=lambda line: sys.stderr.write(line + "\n"),
        pooled=args.pool,
        share_y=not args.free_y,
        images=Images(tuple(args.format or FORMATS), tuple(args.size or WIDTHS)),
    )
    print(f"wrote {len(written)} files to {out}")
    return 0


def _parser_oracle(sub: Any) -> None:
    """``starbench oracle``'s arguments."""
    p = sub.add_parser("oracle", help="compute (or load) a game's exact oracle, print its value")
    p.add_argument("game", metavar="GAME", help="an OpenSpiel game string: pig, pig(winscore=10)")
    p.add_argument(
        "--cache", metavar="DIR", help="cache folder (default ~/.cache/starbench/oracles)"
    )
    p.add_argument("--recompute", action="store_true", help="compute it again, replacing the cache")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _memory_flag(p)
    p.set_defaults(func=_cmd_oracle)


def _cmd_oracle(args: argparse.Namespace) -> int:
    from starbench.games.source import kind_of, load_openspiel
    from starbench.oracles import base, oracle_for

    # (without OpenSpiel, loading the game says so in one line with the install command)
    folder = Path(args.cache) if args.cache else None
    oracle = oracle_for(
        args.game,
        folder=folder,
        recompute=args.recompute,
        key="GAME",
        memory_limit=args.oracle_memory_limit,
    )
    if not kind_of(args.game).start_valued:  # backgammon's oracle knows bear-offs only
        info = {"game": oracle.game, "oracle": oracle.name, "units": oracle.units}
        info.update(tolerance=oracle.tolerance, **oracle.describe())
        if args.json:
            print(json.dumps(info))
            return 0
        print(f"{oracle.game}: exact oracle {oracle.name!r} (the start is not a bear-off)")
        for k, v in oracle.describe().items():
            print(f"  {k}: {v}")
        return 0
    state = load_openspiel(args.game.removeprefix("openspiel:"), "GAME").new_initial_state()
    value = oracle.value(state)
    info = {
        "game": oracle.game,
        "oracle": oracle.name,
        "units": oracle.units,
        "tolerance": oracle.tolerance,
        "initial_value": value,
        "initial_win_probability": oracle.win_probability(value),
        "initial_optimal_actions": oracle.optimal_actions(state),
        "cache": str(base.cache_path(oracle.name, oracle.game, folder)),
        **oracle.describe(),
    }
    if args.json:
        print(json.dumps(info))
        return 0
    print(f"{oracle.game}: exact oracle {oracle.name!r} ({info['cache']})")
    print(
        f"  initial state: value {value:.6f} ({oracle.units}); the player to move wins with "
        f"probability {info['initial_win_probability']:.6f}"
    )
    best = info["initial_optimal_actions"]
    print(f"  optimal actions there: {best} (ties within {oracle.tolerance:g})")
    for k, v in oracle.describe().items():
        print(f"  {k}: {v}")
    return 0


def _parser_match(sub: Any) -> None:
    """``starbench match``'s arguments."""
    p = sub.add_parser("match", help="play N games between two players; one row per game")
    p.add_argument("game", metavar="GAME", help="a two-player OpenSpiel game: pig(winscore=50)")
    p.add_argument(
        "--player",
        action="append",
        metavar="SPEC",
        help="twice: random, oracle, or ALGORITHM[:depth=D,node_budget=N,heuristic=H,PARAM=V]",
    )
    p.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    p.add_argument("--seed", type=int, default=0, help="the match's seed (default 0)")
    p.add_argument("--out", metavar="DIR", help="folder (default results/match/<game>_<players>)")
    p.add_argument(
        "--n-jobs", type=int, default=1, help="games played at a time, in processes (default 1)"
    )
    p.add_argument(
        "--paired",
        action="store_true",
        help="games 2m and 2m+1 are dealt the same dice, the seats swapped (an even --games)",
    )
    p.add_argument(
        "--margin",
        type=float,
        metavar="M",
        help="non-inferiority margin: player 1's score below one half it may lose (e.g. 0.05)",
    )
    p.add_argument(
        "--sequential",
        action="store_true",
        help="with --margin: stop once the verdict is decided (10 looks; --games is the cap)",
    )
    _memory_flag(p)
    p.set_defaults(func=_cmd_match)


def capped_jobs(n_jobs: int, flag: str) -> int:
    """``n_jobs`` capped at the CPUs this process may use, one line when it is (as ``run``
    caps ``n_jobs``: ``compute.workers_line``)."""
    from starbench.experiment.compute import usable_cpus, workers_line

    if (line := workers_line(n_jobs, f"{flag} {n_jobs}")) is not None:
        print(line, file=sys.stderr)
    return min(n_jobs, usable_cpus())


def _cmd_match(args: argparse.Namespace) -> int:
    from starbench.analysis.matches import summary
    from starbench.commands.match import (
        Analysis,
        Match,
        SearchFailed,
        parse_player,
        run_match,
        slug,
    )
    from starbench.games.source import load_openspiel

    if not args.player or len(args.player) != 2:
        return fail("--player: give exactly two players (--player A --player B)")
    if args.games < 1:
        return fail(f"--games: must be an integer >= 1, got {args.games}")
    if args.games > MAX_GAMES:
        return fail(f"--games: at most {MAX_GAMES:,} (limits.MAX_GAMES), got {args.games}")
    if not 0 <= args.seed < 2**64:
        return fail(f"--seed: must be an integer in 0..2^64-1, got {args.seed}")
    if args.n_jobs < 1:
        return fail(f"--n-jobs: must be an integer >= 1, got {args.n_jobs}")
    n_jobs = capped_jobs(args.n_jobs, "--n-jobs")
    if args.paired and args.games % 2:
        return fail(
            f"--games: a paired match plays pairs of games: give an even number, got {args.games}"
        )
    if args.margin is not None and not 0 <= args.margin < 0.5:
        return fail(
            f"--margin: must be a number in [0, 0.5) (a win-rate difference), got {args.margin}"
        )
    if args.sequential and args.margin is None:
        return fail("--sequential: stops when the verdict at a margin is decided: give --margin M")
    game = load_openspiel(args.game.removeprefix("openspiel:"), "GAME")
    if game.num_players() != 2:
        return fail(f"GAME: {args.game}: a match needs a two-player game")
    if args.oracle_memory_limit < 1:
        return fail(
            f"--oracle-memory-limit: must be an integer >= 1, got {args.oracle_memory_limit}"
        )
    players = tuple(
        parse_player(p, args.game, "--player", args.oracle_memory_limit) for p in args.player
    )
    match = Match(args.game, players, args.games, args.seed, args.paired)  # type: ignore[arg-type]
    out = Path(args.out) if args.out else Path("results") / "match" / slug(match)
    analysis = Analysis(args.margin, args.sequential)
    try:
        df = run_match(
            match,
            out,
            out=lambda line: print(line, file=sys.stderr),
            n_jobs=n_jobs,
            analysis=analysis,
        )
    except SearchFailed as e:  # a player's search raised: one line, exit 1
        print(f"starbench: {e}; the games journaled so far are kept", file=sys.stderr)
        return 1
    except OSError as e:  # a full disk, a lost mount: one line naming the file, exit 1
        print(
            f"starbench: {e.filename or out}: cannot write ({e.strerror or e}); the games "
            f"journaled so far are kept, and the same command continues the match",
            file=sys.stderr,
        )
        return 1
    from starbench.record.storage import read_json

    print(summary(df, (read_json(out / "match.json") or {}).get("analysis")))
    print(f"table: {out / 'match.parquet'} ({len(df)} games)")
    return 0


def _memory_flag(p: argparse.ArgumentParser) -> None:
    from starbench.ground.limits import ORACLE_MEMORY_LIMIT

    p.add_argument(
        "--oracle-memory-limit",
        type=int,
        default=ORACLE_MEMORY_LIMIT,
        metavar="BYTES",
        help=f"bytes an exact oracle may take while it is computed (default {ORACLE_MEMORY_LIMIT})",
    )


def _parser_run(sub: Any) -> None:
    """``starbench run``'s arguments."""
    sub.add_parser("run", help="run an experiment (Hydra; arguments go to Hydra)", add_help=False)


#: The subcommands in the order ``starbench --help`` lists them: each one's parser is made by
#: the ``_parser_NAME`` beside its command (``_cmd_NAME``).
SUBCOMMANDS = (
    ("solve", _parser_solve),
    ("run", _parser_run),
    ("oracle", _parser_oracle),
    ("match", _parser_match),
    ("collect", _parser_collect),
    ("export", _parser_export),
    ("shrink", _parser_shrink),
    ("calibrate", _parser_calibrate),
    ("conform", _parser_conform),
    ("corpus", _parser_corpus),
    ("plot", _parser_plot),
    ("bench", _parser_bench),
)


def build_parser() -> argparse.ArgumentParser:
    from starbench.ground.version import version

    parser = _Parser(prog="starbench", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"starbench {version()}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    for _name, add in SUBCOMMANDS:
        add(sub)
    return parser


def _positive_int(flag: str):  # noqa: ANN202 - an argparse type
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
        return value

    parse.__name__ = flag
    return parse


def complete(argv: list[str]) -> int:
    """Shell completion (``eval "$(starbench run -sc install=bash)"`` installs it): the shell
    calls ``starbench -sc query=bash`` with the line in ``COMP_LINE``.  After ``starbench run``
    Hydra completes config groups and keys; otherwise the subcommands are offered."""
    import os

    line = os.environ.get("COMP_LINE", "")
    words = line.split()
    if len(words) >= 2 and words[1] == "run" and (len(words) > 2 or line.endswith(" ")):
        from starbench.commands.run import hydra_main

        os.environ["COMP_LINE"] = " ".join([words[0], *words[2:]]) + (
            " " if line.endswith(" ") else ""
        )
        hydra_main(argv, prog="starbench")
        return 0
    commands = list(_subcommands())
    word = "" if line.endswith(" ") or len(words) < 2 else words[1]
    if len(words) <= 1 or (len(words) == 2 and not line.endswith(" ")):
        print(" ".join(c for c in commands if c.startswith(word)))
    return 0


def _subcommands() -> list[str]:
    parser = build_parser()
    names = ["run"]
    for action in parser._subparsers._group_actions if parser._subparsers else []:  # noqa: SLF001
        names += list(getattr(action, "choices", {}) or {})
    return sorted(set(names))


#: What an interrupted command keeps, by command (Ctrl-C: exit 130, one line).
INTERRUPTED = {
    "run": "the rows journaled so far are kept (rows.jsonl); the same command continues",
    "match": "the games played so far are kept (games.jsonl); the same command continues",
}
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command ended by Ctrl-C


EXIT_TERMINATED = 143  # 128 + SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, a scheduler stopping the command), met as Ctrl-C is: what was
    written is kept, and one line says so."""


def _on_sigterm() -> Any:
    """Turn SIGTERM into ``Terminated`` while the command runs (in the main thread, where no
    one else handles it); returns the handler to restore."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    if signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None):
        return None

    def handler(signum: int, frame: Any) -> None:
        raise Terminated()

    return signal.signal(signal.SIGTERM, handler)


def main(argv: Sequence[str] | None = None) -> int:
    import signal

    argv = list(sys.argv[1:] if argv is None else argv)
    before = _on_sigterm()
    try:
        return _main(argv)
    except KeyboardInterrupt as e:
        command = argv[0] if argv else ""
        kept = INTERRUPTED.get(
            command, "every file is written whole or not at all; the same command starts again"
        )
        how = "SIGTERM" if isinstance(e, Terminated) else "Ctrl-C"
        sys.stderr.write(f"\nstarbench: interrupted ({how}): {kept}\n")
        return EXIT_TERMINATED if isinstance(e, Terminated) else EXIT_INTERRUPTED
    finally:
        if before is not None:
            signal.signal(signal.SIGTERM, before)


def _main(argv: list[str]) -> int:
    if argv[:1] in (["-sc"], ["--shell-completion"]):
        return complete(argv)
    if argv and argv[0] == "run":
        from starbench.commands.run import main as run_main

        return run_main(argv[1:])
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2, already reported on one line)
        return int(e.code or 0)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    try:
        return args.func(args)
    except InputError as e:
        return fail(str(e))
    except RecursionError:
        return fail(
            "the tree is too deep for the Python engine's recursion limit; the compiled engine "
            "has no depth limit: add --engine compiled (float mode)"
        )
    except OSError as e:  # an output that cannot be written (checked paths can still fail)
        where = f"{e.filename}: " if e.filename else ""
        return fail(f"{where}cannot write ({e.strerror or e})")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
