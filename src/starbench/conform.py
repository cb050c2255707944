"""``starbench conform``: an engine in any language checked through a protocol.

The protocol (``docs/reference/protocol.md``): one engine process for the whole run, JSON lines
over its standard input and output.  starbench writes one request a line,
``{"tree": TREE, "algorithm": LABEL, "params": {...}}`` (TREE in the format ``starbench solve``
reads, numbers as integers or ``"a/b"`` strings; LABEL starbench's label, e.g.
``star2:after_probe=resume``; ``params`` the label's parameters), and reads one answer a line:
``{"value": V, "best_move": M}`` with optional ``"nodes"`` and ``"leaves"`` (V a number or an
``"a/b"`` string, M the 0-based move or null), or ``{"unsupported": "why"}``.

The trees: the reference corpus's (``starbench.corpus``: the same seeded families, so the same
trees as ``results/corpus``) and ``--trees`` more drawn by the corpus's mixed-tree generator with
``--seed``.  Each answer is checked against exact expectimax (``starbench.shrink.value``): the
value exactly when the engine gives ``"a/b"`` (or an integer), else within starbench's float
tolerance; the best move at a decision root inside the tied set.  Where the engine reports
``nodes`` (and ``leaves``), they are compared with starbench's own algorithm of that label in
exact arithmetic, and the report says whether they equal it (a difference is not a
disagreement: counting conventions differ).  Every disagreement is shrunk with ``starbench
shrink``'s reducer, the engine answering every candidate, and the 1-minimal tree written to
``--out``.

An engine that dies, hangs (no answer within ``--time-limit`` seconds), answers garbage, or
exceeds ``--memory-limit`` bytes of address space (``RLIMIT_AS``, set before it starts) ends the
run with one line naming the tree it got stuck on, exit 1.  Exit 0 when no tree disagrees and at
least one agrees; 1 otherwise; 2 on bad input.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import resource
import select
import shlex
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from starbench.errors import InputError

TIME_LIMIT = 10.0
MEMORY_LIMIT = 2 * 2**30
DEFAULT_TREES = 200
#: The most candidate trees one disagreement's shrinking asks the engine about.
SHRINK_EVALUATIONS = 2000


class EngineFailed(Exception):
    """The engine died, hung or answered garbage (the message is the one line to show)."""


class Engine:
    """One engine process, asked one tree at a time."""

    def __init__(self, command: str, time_limit: float, memory_limit: int):
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise InputError(f"--engine: cannot split {command!r} ({e})") from None
        if not argv:
            raise InputError("--engine: empty command")
        self.command = command
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self._buffer = b""

        def limit() -> None:  # in the child, before exec
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

        # its standard error goes to a file (a pipe nobody reads would fill and block it);
        # its last line is shown when it dies
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                preexec_fn=limit,
            )
        except OSError as e:
            self._stderr.close()
            raise InputError(f"--engine: cannot start {argv[0]!r} ({e.strerror})") from None

    def _died(self, what: str) -> EngineFailed:
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # it closed its output but lives on
            self.kill()
            code = self.proc.returncode
        self._stderr.seek(0)
        err = self._stderr.read()
        last = (err.decode(errors="replace").strip().splitlines() or [""])[-1][:120]
        memory = ""
        if "MemoryError" in last or "bad_alloc" in last or code in (-signal.SIGKILL, -9):
            memory = f" (over its memory limit of {self.memory_limit} bytes? --memory-limit)"
        said = f": {last}" if last else ""
        return EngineFailed(f"the engine exited with code {code} on {what}{memory}{said}")

    def ask(self, request: dict[str, Any], what: str) -> dict[str, Any]:
        """The engine's answer to one request (EngineFailed naming ``what`` otherwise)."""
        line = (json.dumps(request, separators=(",", ":")) + "\n").encode()
        try:
            self.proc.stdin.write(line)  # type: ignore[union-attr]
            self.proc.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            raise self._died(what) from None
        deadline = time.monotonic() + self.time_limit
        fd = self.proc.stdout.fileno()  # type: ignore[union-attr]
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise EngineFailed(
                    f"the engine did not answer within {self.time_limit:g} s on {what} "
                    f"(--time-limit)"
                )
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise self._died(what)
            self._buffer += chunk
        text, _, self._buffer = self._buffer.partition(b"\n")
        try:
            answer = json.loads(text)
        except ValueError:
            answer = None
        if not isinstance(answer, dict) or not (
            "unsupported" in answer or ("value" in answer and "best_move" in answer)
        ):
            shown = text.decode(errors="replace")[:80]
            raise EngineFailed(
                f"the engine answered something that is not an answer on {what}: {shown!r} "
                f'(expected {{"value": V, "best_move": M}} or {{"unsupported": "why"}})'
            )
        return answer

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.stdin.close()  # type: ignore[union-attr]
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.kill()
        self.proc.stdout.close()  # type: ignore[union-attr]
        self._stderr.close()


def trees(count: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """(name, tree): the reference corpus's trees, then ``count`` mixed trees drawn with
    ``seed``."""
    from starbench import corpus

    out = [(f"corpus {family} #{i}", tree) for family, i, tree in corpus.trees()]
    rng = random.Random(f"starbench-conform-{seed}")
    make = corpus.FAMILIES["mixed"]
    for i in range(count):
        out.append((f"generated #{i} (seed {seed})", make(rng)))
    return out


def _number(v: Any) -> Fraction | float:
    if isinstance(v, str):
        return Fraction(v)
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ValueError(v)
    return Fraction(v) if isinstance(v, int) else float(v)


@dataclass
class Report:
    trees: int = 0
    agree: int = 0
    disagree: int = 0
    unsupported: int = 0
    counted: int = 0  # answers with counts
    counts_equal: int = 0
    shrunk: list[str] = field(default_factory=list)
    first_unsupported: str | None = None


def judge(
    engine: Engine, label: str, params: dict[str, Any], tree: Any, what: str
) -> tuple[str, Any, Any]:
    """("agree" | "unsupported" | "disagree", the engine's answer, the ``shrink.Disagreement``
    or None) on a ``shrink.Tree``."""
    from starbench import shrink
    from starbench.search.arith import agree

    answer = engine.ask({"tree": tree.json(), "algorithm": label, "params": params}, what)
    if "unsupported" in answer:
        return "unsupported", answer, None
    expected = shrink.value(tree.root)
    try:
        got = _number(answer["value"])
    except (ValueError, ZeroDivisionError):
        raise EngineFailed(
            f"the engine answered a value that is not a number on {what}: {answer['value']!r}"
        ) from None
    L, U = tree.bounds
    # an "a/b" (or integer) answer exactly, a float within the tolerance
    same = agree(got, expected, L, U, isinstance(got, Fraction))
    tied = shrink.tied_moves(tree.root, expected)
    move = answer.get("best_move")
    if same and tied:
        same = isinstance(move, int) and not isinstance(move, bool) and move in tied
    if same:
        return "agree", answer, None
    who = f"the engine's {label}"
    return "disagree", answer, shrink.Disagreement(who, expected, got, move, tied)


def _own_counts(tree: Any, label: str) -> dict[str, int] | None:
    """starbench's own algorithm of ``label`` on the tree: its nodes and leaves (None when
    starbench has no such algorithm or it does not apply)."""
    from starbench.search import reference_search as search
    from starbench.search.registry import parse_spec
    from starbench.trees.explicit import parse_tree

    try:
        name, params = parse_spec(label)
        r = search(parse_tree(tree.json()), name, exact=True, **params)
    except Exception:  # noqa: BLE001 - not starbench's to count
        return None
    return {"nodes": r.stats.nodes, "leaves": r.stats.leaves}


def conform(
    command: str,
    label: str,
    count: int = DEFAULT_TREES,
    seed: int = 0,
    time_limit: float = TIME_LIMIT,
    memory_limit: int = MEMORY_LIMIT,
    out: Path = Path("conform"),
    show: Any = print,
) -> Report:
    """Run every tree through the engine (``EngineFailed`` ends it) and shrink each
    disagreement into ``out``."""
    from starbench import shrink
    from starbench.search.registry import parse_spec

    _name, params = parse_spec(label)
    report = Report()
    written: dict[str, Path] = {}
    engine = Engine(command, time_limit, memory_limit)
    try:
        for what, obj in trees(count, seed):
            tree = shrink.Tree.of(obj)
            verdict, answer, _found = judge(engine, label, params, tree, what)
            report.trees += 1
            if verdict == "unsupported":
                report.unsupported += 1
                report.first_unsupported = report.first_unsupported or (
                    f"{what}: {answer['unsupported']}"
                )
                continue
            if "nodes" in answer:
                own = _own_counts(tree, label)
                report.counted += 1
                theirs = {k: answer.get(k) for k in ("nodes", "leaves") if k in answer}
                if own is not None and all(own[k] == v for k, v in theirs.items()):
                    report.counts_equal += 1
            if verdict == "agree":
                report.agree += 1
                continue
            report.disagree += 1
            report.shrunk.append(_shrink(engine, label, params, tree, what, out, show, written))
    finally:
        engine.close()
    return report


def _shrink(
    engine: Engine,
    label: str,
    params: dict[str, Any],
    tree: Any,
    what: str,
    out: Path,
    show: Any,
    written: dict[str, Path],
) -> str:
    """Shrink one disagreement with the engine answering; write it unless an earlier one shrank
    to the same tree (``written``: canonical tree -> file); return its file."""
    from starbench import shrink

    def check(candidate: Any, _spec: str) -> shrink.Disagreement | None:
        return judge(engine, label, params, candidate, f"{what}, shrunk step")[2]

    done = shrink.shrink(tree, label, SHRINK_EVALUATIONS, check)
    if done is None:  # it agreed when asked again: an engine whose answers are not a function
        raise EngineFailed(f"the engine answered {what} differently when asked again")
    key = json.dumps(done.tree.json(), sort_keys=True)
    path = written.get(key)
    size = f"shrunk {done.start_nodes} -> {shrink.nodes(done.tree.root)} nodes"
    if path is None:
        out.mkdir(parents=True, exist_ok=True)
        path = written[key] = out / f"disagreement-{len(written) + 1}.json"
        shrink.write(done, path)
        show(f"DISAGREE on {what}: {done.disagreement.describe()}; {size}: {path}")
    else:
        show(f"DISAGREE on {what}: {size}, the same tree as {path}")
    return str(path)


def table(report: Report) -> str:
    counts = (
        f"{report.counts_equal} of {report.counted}" if report.counted else "no counts reported"
    )
    rows = [
        ("trees", report.trees),
        ("agree", report.agree),
        ("disagree", report.disagree),
        ("unsupported", report.unsupported),
        ("counts equal starbench's", counts),
    ]
    return "\n".join(f"{k:<26}{v}" for k, v in rows)
