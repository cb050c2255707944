"""``starbench conform``: an engine in any language, or a registered plugin, checked through a
protocol.

The protocol (``docs/reference/protocol.md``): one engine process, JSON lines over its standard
input and output.  starbench writes one request a line, ``{"tree": TREE, "algorithm": LABEL,
"params": {...}}``, some with ``"window": [ALPHA, BETA]``, and reads one answer a line,
``{"value": V, "best_move": M}`` (optionally ``nodes`` and ``leaves``, and the lists per level
``nodes_by_level`` .. ``probes_by_level``) or ``{"unsupported": "why"}``.

The trees (``cases``): the reference corpus's (``starbench.external.corpus``), then by default
the game shapes of ``starbench.external.conformtrees`` (``--trees N``: ``N`` of the corpus's
mixed trees instead; ``--trees-from PATH``: your own), every ``WINDOW_EVERY``-th also asked
with a root window.  Each
answer is judged against exact expectimax (``judge``): the value exactly when the engine gives
``"a/b"`` or an integer, else within the float tolerance ``1e-9 * max(1, |L|, |U|)``; the best
move at a decision root inside the tied set; a windowed answer inside the fail-soft range.

A run survives its engine: a crash, a hang, a garbled answer or a memory death on one tree is
that tree's failure (one line, the tree written to ``--out``, the engine restarted, the run
goes on; ``--fail-fast`` stops).  Every disagreement is shrunk with ``starbench shrink``'s
reducer (``--keep-shape``: only to trees of the same alternation of kinds), and disagreements
are grouped by cause, the same shrunk shape up to leaf values or the same error: one file per
cause in ``--out``, written when it is first shrunk.  Exit 0 when no tree disagrees or failed
and at least one agrees; 1 otherwise; 2 on bad input.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import select
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from starbench.errors import BudgetExceeded, InputError, deadline
from starbench.external import conformtrees, shrink
from starbench.external.corpus import expected as fail_soft_range
from starbench.search.stats import LEVEL_FIELDS

TIME_LIMIT = 10.0
MEMORY_LIMIT = 2 * 2**30
#: The most candidate trees one disagreement's shrinking asks the engine about.
SHRINK_EVALUATIONS = 2000
#: The bytes of the engine's standard error kept (its last ones), to show when it dies.
STDERR_TAIL = 64 * 1024
#: The most requests the default run sends (``conformtrees.DEFAULT`` with the corpus's trees and
#: the windowed requests stays within it; a test checks).
DEFAULT_REQUESTS = 10_000
#: Failures in a row, without one answer in between, after which a run stops (and after
#: ``FAILURES_FIRST`` when the engine has not answered once in the run: it cannot start).
FAILURES_IN_A_ROW = 100
FAILURES_FIRST = 3
#: The failure budget (``--failure-budget``): trees of one cause after which its trees are
#: counted without a line of their own, and a cause that costs the time limit each (a hang, an
#: engine that closed its output) stops the run.  Each cause of disagreements is shrunk once.
FAILURE_BUDGET = 3
#: After this many requests, an engine that disagreed or failed on more than half of them is
#: stopped (a broken engine, not a bug to find): the summary and the causes so far stand.
EARLY_AFTER = 30
#: The longest answer line read (bytes): a longer one is refused without being read whole.
MAX_ANSWER = 2**20
#: The most characters of an engine's output quoted in a line or a file.
QUOTED = 80
#: The most characters of an answer's value quoted (an exact fraction may be long).
PRINTED = 400
#: Seconds an engine that closed its standard output is given to exit before it is killed.
EXIT_GRACE = 1.0


#: Words of a runtime's last line that say it ran out of memory (a JVM that cannot reserve
#: its heap under the address-space limit says the first): ``--memory-limit``'s hint.
MEMORY_WORDS = (
    "Could not reserve enough space",
    "OutOfMemoryError",
    "MemoryError",
    "bad_alloc",
    "out of memory",
    "Out of memory",
    "Cannot allocate memory",
    "failed to allocate",
    "memory allocation failed",
)
#: Exit codes of a process the kernel or its allocator ended (SIGKILL, SIGSEGV, SIGABRT, and a
#: shell's 128 + SIGKILL): ``--memory-limit``'s hint too.
MEMORY_CODES = (-signal.SIGKILL, -signal.SIGSEGV, -signal.SIGABRT, 137)


class EngineFailed(Exception):
    """The engine died, hung or answered garbage (the message is the one line to show);
    ``slow``: a failure that took the whole time limit (a hang), which the failure budget
    stops (``Run.failed``)."""

    def __init__(self, message: str, slow: bool = False):
        super().__init__(message)
        self.slow = slow


@dataclass(frozen=True)
class Case:
    """One tree to ask about, with its name and, for a windowed request, the window's name
    (``conformtrees.WINDOWS``) or its numbers."""

    what: str
    tree: dict[str, Any]
    window: str | tuple[Fraction, Fraction] | None = None


# --------------------------------------------------------------------------- the engines
class Engine:
    """One engine process in its own process group, restarted after a failure."""

    def __init__(self, command: str, time_limit: float, memory_limit: int):
        try:
            self.argv = shlex.split(command)
        except ValueError as e:
            raise InputError(f"--engine: cannot split {command!r} ({e})") from None
        if not self.argv:
            raise InputError("--engine: empty command")
        self.command = command
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.answered = 0  # answers in the whole run, every process of it
        self.proc: Any = None
        self._start(first=True)

    def _start(self, first: bool = False) -> None:
        limit = self.memory_limit

        def child() -> None:  # before exec
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        try:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                preexec_fn=child,
                start_new_session=True,  # its own process group: killed as one
            )
        except OSError as e:
            if first:
                raise InputError(
                    f"--engine: cannot start {self.argv[0]!r} ({e.strerror})"
                ) from None
            raise EngineFailed(f"the engine could not be restarted ({e.strerror})") from None
        self._buffer = b""
        self._tail = bytearray()
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()

    def _read_stderr(self) -> None:
        """Keep the last ``STDERR_TAIL`` bytes of the engine's standard error."""
        stream = self.proc.stderr
        tail = self._tail
        with contextlib.suppress(OSError, ValueError):
            for chunk in iter(lambda: stream.read1(65536), b""):
                tail += chunk
                if len(tail) > STDERR_TAIL:
                    del tail[: len(tail) - STDERR_TAIL]

    def _last_words(self) -> str:
        self._reader.join(timeout=1)
        text = bytes(self._tail).decode(errors="replace").strip().splitlines()
        return text[-1][:160] if text else ""

    def _died(self, what: str, code: int | None) -> EngineFailed:
        self.kill()
        last = self._last_words()
        if not last:  # an engine that writes its error to its standard output
            printed = self._buffer.decode(errors="replace").strip().splitlines()
            last = printed[-1][:160] if printed else ""
        memory = ""
        if any(word in last for word in MEMORY_WORDS) or code in MEMORY_CODES:
            memory = (
                f" (the engine may need more address space than --memory-limit "
                f"{self.memory_limit}: a runtime that reserves memory at start, such as a JVM, "
                f"needs a larger --memory-limit)"
                if self.answered == 0
                else f" (over its memory limit of {self.memory_limit} bytes? --memory-limit)"
            )
        said = f": {last}" if last else ""
        before = " before its first answer" if self.answered == 0 else ""
        return EngineFailed(f"the engine exited with code {code}{before} on {what}{memory}{said}")

    def ask(self, request: dict[str, Any], what: str) -> tuple[dict[str, Any], str]:
        """The engine's answer to one request and the line it printed (``EngineFailed``
        naming ``what`` otherwise)."""
        line = (json.dumps(request, separators=(",", ":")) + "\n").encode()
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died(what, self.proc.poll()) from None
        deadline = time.monotonic() + self.time_limit
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise EngineFailed(
                    f"the engine did not answer within {self.time_limit:g} s on {what} "
                    f"(--time-limit)",
                    slow=True,
                )
            ready, _, _ = select.select([fd], [], [], min(left, 0.05))
            if not ready:
                code = self.proc.poll()
                if code is not None:  # it exited (a child of its may hold its output open)
                    raise self._died(what, code)
                continue
            chunk = os.read(fd, 65536)
            if not chunk:  # its output closed: it exits, or is stopped within the limit
                try:
                    code = self.proc.wait(timeout=max(0.0, min(EXIT_GRACE, left)))
                except subprocess.TimeoutExpired:
                    self.kill()
                    raise EngineFailed(
                        f"the engine closed its standard output without answering on {what} "
                        f"and did not exit: stopped",
                        slow=True,
                    ) from None
                raise self._died(what, code)
            self._buffer += chunk
            if len(self._buffer) > MAX_ANSWER and b"\n" not in self._buffer:
                self.kill()
                raise EngineFailed(
                    f"the engine's answer on {what} is longer than {MAX_ANSWER} bytes "
                    f"(refused unread; it begins {bytes(self._buffer[:QUOTED])!r})"
                )
        raw, _, self._buffer = self._buffer.partition(b"\n")
        if len(raw) > MAX_ANSWER:
            self.kill()
            raise EngineFailed(
                f"the engine's answer on {what} is longer than {MAX_ANSWER} bytes "
                f"(refused unread; it begins {bytes(raw[:QUOTED])!r})"
            )
        text = raw.decode(errors="replace")
        try:
            answer = json.loads(text)
        except ValueError:
            answer = None
        if not isinstance(answer, dict) or not (
            "unsupported" in answer or ("value" in answer and "best_move" in answer)
        ):
            self.kill()
            raise EngineFailed(
                f"the engine answered something that is not an answer on {what}: "
                f'{text[:QUOTED]!r} (expected {{"value": V, "best_move": M}} or '
                f'{{"unsupported": "why"}})'
            )
        self.answered += 1
        return answer, text

    def restart(self) -> None:
        self.kill()
        self._release()
        self._start()

    def _release(self) -> None:
        """Close the pipes of a process that has ended (its standard error read to the end)."""
        self._reader.join(timeout=2)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.close()

    def kill(self) -> None:
        """The engine's whole process group, at once, and every process below it that left
        the group (a child that called ``setsid()``: found through ``/proc`` first)."""
        if self.proc is None:
            return
        strays = descendants(self.proc.pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        for pid in strays:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=5)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=2)
        self.kill()
        self._release()


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (children, theirs, ..., whatever their session), read
    from ``/proc``; none where there is no ``/proc``."""
    parents: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1:
            parents.setdefault(int(fields[1]), []).append(int(name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


class InProcess:
    """A registered algorithm (a plugin, or starbench's own), asked in this process as an
    engine would be, in exact arithmetic; a search that raises answers ``{"error": ...}``."""

    answered = 0

    def __init__(self, label: str, time_limit: float | None = None):
        from starbench.search.registry import get_algorithm, is_plugin, parse_spec

        self.label = label
        self.name, self.params = parse_spec(label)
        self.time_limit = time_limit  # a search past it is stopped and answers an error
        # a plugin's search runs in a process of its own, killed past the limit (it may block
        # where the deadline cannot stop it); starbench's own stop at the deadline
        self.plugin = is_plugin(get_algorithm(self.name).cls)
        self.worker: Any = None  # the process a plugin's searches run in (``ground.isolate``)

    def ask(self, request: dict[str, Any], what: str) -> tuple[dict[str, Any], str]:
        from starbench.ground.isolate import KILL_GRACE_S, Killed, Worker

        try:  # a search past the time limit is stopped, as an engine's would be
            if self.time_limit is not None and self.plugin:  # in a process killed past it
                if self.worker is None:
                    self.worker = Worker(self._served)
                answer = self.worker.call(request, self.time_limit + KILL_GRACE_S)
            else:
                answer = self._served(request)
        except (BudgetExceeded, Killed):  # a failure, as an engine's hang is (the failure budget)
            raise EngineFailed(
                f"the search did not answer within {self.time_limit:g} s on {what} (--time-limit)",
                slow=True,
            ) from None
        except (Exception, SystemExit) as e:  # noqa: BLE001 - a plugin's error (its sys.exit too, its process's end) is a disagreement
            answer = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
        self.answered += 1
        return answer, json.dumps(answer)

    def _served(self, request: dict[str, Any]) -> dict[str, Any]:
        """The answer to one request within the time limit (the deadline stops it there)."""
        from starbench.trees.explicit import parse_tree

        tree = parse_tree(request["tree"])
        with deadline(self.time_limit, grace=0.0):
            return self._answer(tree, request)

    def _answer(self, tree: Any, request: dict[str, Any]) -> dict[str, Any]:
        """The answer to one request, as the protocol has it."""
        from starbench.search import reference_search, search_window

        if "window" in request:
            alpha, beta = (Fraction(str(w)) for w in request["window"])
            v, _stats = search_window(tree, self.name, alpha, beta, exact=True, **self.params)
            return {"value": _text(Fraction(v)), "best_move": None}
        r = reference_search(tree, self.name, exact=True, **self.params)
        return {
            "value": _text(Fraction(r.value)),
            "best_move": r.best_move,
            "nodes": r.stats.nodes,
            "leaves": r.stats.leaves,
            **({} if r.by_level is None else r.by_level.as_dict()),
        }

    def restart(self) -> None:  # a killed worker is forked again at the next request
        pass

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()


# --------------------------------------------------------------------------- the trees
def cases(
    count: int | None = None,
    seed: int = 0,
    trees_from: Path | None = None,
    defaults: bool = True,
) -> Iterator[Case]:
    """The cases of a run, lazily: ``trees_from``'s trees (each file's own ``window``, if it
    has one), then with ``defaults`` the corpus's and the generated ones (``count`` mixed
    trees, or by default ``conformtrees.DEFAULT``'s game shapes), every ``WINDOW_EVERY``-th
    asked a second time with a root window."""
    n = 0
    windows = list(conformtrees.WINDOWS)

    def with_windows(what: str, tree: dict[str, Any]) -> Iterator[Case]:
        nonlocal n
        yield Case(what, tree)
        n += 1
        if n % conformtrees.WINDOW_EVERY == 0:
            name = windows[(n // conformtrees.WINDOW_EVERY) % len(windows)]
            yield Case(f"{what}, window {name}", tree, name)

    if trees_from is not None:
        for what, tree in given_trees(trees_from):
            window = tree.pop("window", None)
            if window is not None:
                yield Case(what, tree, (Fraction(str(window[0])), Fraction(str(window[1]))))
            else:
                yield from with_windows(what, tree)
    if not defaults:
        return
    from starbench.external import corpus

    for family, i, tree in corpus.trees():
        yield from with_windows(f"corpus {family} #{i}", tree)
    counts = {"mixed": count} if count is not None else conformtrees.DEFAULT
    for what, tree in conformtrees.generated(counts, seed):
        yield from with_windows(what, tree)


def given_trees(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(name, tree) of a tree file (``solve``'s format), a JSON-lines file of trees, or a
    folder of tree files (``*.json``, in name order); a tree that cannot be read is refused
    naming its file and line."""
    from starbench.trees.explicit import loads_tree, tree_to_json

    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            raise InputError(f"--trees-from: {path} holds no tree file (*.json)")
    elif path.is_file():
        files = [path]
    else:
        raise InputError(f"--trees-from: {path}: no such file or folder")
    for f in files:
        try:
            text = f.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise InputError(
                f"--trees-from: {f}: not UTF-8 text (byte {e.start}); a tree file is JSON in UTF-8"
            ) from None
        except OSError as e:
            raise InputError(f"--trees-from: {f}: cannot be read ({e.strerror})") from None
        lines = [ln for ln in text.splitlines() if ln.strip()]
        jsonl = f.suffix == ".jsonl" or (
            len(lines) > 1
            and all(ln.lstrip().startswith("{") for ln in lines[:2])
            and _one_object(lines[0])
        )
        chunks = (
            [(f"{f.name}:{i + 1}", ln) for i, ln in enumerate(lines)] if jsonl else [(f.name, text)]
        )
        for what, chunk in chunks:
            try:
                obj = json.loads(chunk)
                window = obj.pop("window", None) if isinstance(obj, dict) else None
                tree = tree_to_json(loads_tree(json.dumps(obj), what))
            except InputError as e:
                raise InputError(f"--trees-from: {e}") from None
            except ValueError as e:
                raise InputError(f"--trees-from: {what}: not JSON ({e})") from None
            if window is not None:
                tree["window"] = [_text(w) for w in given_window(window, what)]
            yield what, tree


def given_window(window: Any, what: str) -> tuple[Fraction, Fraction]:
    """A tree file's ``window``: two numbers (integers, finite decimals or ``"a/b"`` text),
    alpha below beta; ``InputError`` naming the tree and what is allowed otherwise."""
    bad = InputError(
        f"--trees-from: {what}: window must be [ALPHA, BETA], two finite numbers (an integer, "
        f'a decimal or "a/b") with ALPHA < BETA, got {json.dumps(window)[:QUOTED]}'
    )
    if not isinstance(window, list) or len(window) != 2:
        raise bad
    out = []
    for w in window:
        if isinstance(w, bool) or not isinstance(w, int | float | str):
            raise bad
        try:
            out.append(Fraction(str(w)) if not isinstance(w, float) else Fraction(w))
        except (ValueError, ZeroDivisionError, OverflowError):
            raise bad from None
    if not out[0] < out[1]:
        raise bad
    return out[0], out[1]


def _one_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def _text(x: Fraction) -> int | str:
    return int(x) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _decimal(x: Fraction) -> str:
    """A fraction in decimals, ``8.0952...`` where it does not end."""
    if x.denominator == 1:
        return str(x.numerator)
    text = f"{float(x):.6g}"
    return text if Fraction(text) == x else f"{float(x):.5g}..."


# --------------------------------------------------------------------------- judging
@dataclass(frozen=True)
class Verdict:
    """What an answer is: ``agree``, ``disagree`` or ``unsupported``; for a disagreement, why
    (one line) and the value as the engine printed it."""

    kind: str
    why: str = ""
    printed: str | None = None
    answer: dict[str, Any] = field(default_factory=dict)
    window: tuple[Fraction, Fraction] | None = None
    expected: Fraction | None = None
    range: tuple[Fraction, Fraction] | None = None
    tied: tuple[int, ...] = ()
    error: str | None = None


def _printed_value(raw: str, answer: dict[str, Any]) -> str:
    """The answer's value as the engine printed it (its JSON text)."""
    m = re.search(r'"value"\s*:\s*("(?:[^"\\]|\\.)*"|[^,}\s]+)', raw)
    text = m.group(1).strip('"') if m else str(answer.get("value"))
    return text if len(text) <= PRINTED else f"{text[:PRINTED]}... ({len(text)} characters)"


def judge(
    engine: Any,
    label: str,
    params: dict[str, Any],
    tree: shrink.Tree,
    what: str,
    window: tuple[Fraction, Fraction] | None = None,
) -> Verdict:
    """The engine's answer on a ``shrink.Tree`` (with the root window ``window``), judged."""
    from starbench.search.arith import tolerance

    request: dict[str, Any] = {"tree": tree.json(), "algorithm": label, "params": params}
    if window is not None:
        request["window"] = [_text(w) for w in window]
    answer, raw = engine.ask(request, what)
    if "unsupported" in answer:
        return Verdict("unsupported", str(answer["unsupported"]), answer=answer)
    exact, tied_at_root = tree.valued
    L, U = tree.bounds
    if "error" in answer:  # an in-process search that raised
        return Verdict(
            "disagree", f"{label} raises {answer['error']}", None, answer, window, exact,
            error=str(answer["error"]),
        )  # fmt: skip
    printed = _printed_value(raw, answer)
    value = answer["value"]
    try:
        if isinstance(value, bool):
            raise ValueError(value)
        got: Fraction | float = Fraction(value) if isinstance(value, str | int) else float(value)
    except (ValueError, ZeroDivisionError, TypeError):
        raise EngineFailed(
            f"the engine answered a value that is not a number on {what}: {value!r}"
        ) from None
    is_exact = isinstance(got, Fraction)
    tol = tolerance(L, U)
    if window is None:
        lo = hi = exact
        tied = tied_at_root
    else:
        _kind, lo, hi = fail_soft_range(exact, *window)
        tied = ()
    inside = (lo <= got <= hi) if is_exact else (float(lo) - tol <= got <= float(hi) + tol)
    if not inside:
        if window is None:
            want = f"{_text(exact)}" + ("" if exact.denominator == 1 else f" = {_decimal(exact)}")
            why = f"{printed} differs from {want}"
            if not is_exact:
                why += f" by {abs(got - float(exact)):.2g}; tolerance {tol:.2g}"
        else:
            rng = f"[{_text(lo)}, {_text(hi)}]" if lo != hi else f"{_text(lo)}"
            why = (
                f"{printed} with window [{_text(window[0])}, {_text(window[1])}] is outside "
                f"{rng}, what a fail-soft search may answer (the value is {_text(exact)})"
            )
        return Verdict("disagree", why, printed, answer, window, exact, (lo, hi), tied)
    move = answer.get("best_move")
    if (
        window is None
        and tied
        and not (isinstance(move, int) and not isinstance(move, bool) and move in tied)
    ):
        why = f"best move {move!r} is outside expectimax's tied best moves {list(tied)}"
        return Verdict("disagree", why, printed, answer, window, exact, (lo, hi), tied)
    return Verdict("agree", "", printed, answer, window, exact, (lo, hi), tied)


def symptom(verdict: Verdict, what: str) -> str:
    """A disagreement's cause before it is shrunk: what is wrong (the value, the best move, a
    windowed value, an error's type) on which family of trees (the case's name without its
    number and seed), so that each cause is shrunk once, not each tree."""
    family = re.sub(r" #\d+.*?(?=, window|$)", "", what)
    family = re.sub(r", window \S+", ", window", family)
    if verdict.error:
        wrong = "error " + verdict.error.split(":")[0]
    elif verdict.window is not None:
        wrong = "windowed value"
    elif verdict.why.startswith("best move"):
        wrong = "best move"
    else:
        wrong = "value"
    return f"{wrong} on {family}"


def _window_of(case: Case, tree: shrink.Tree) -> tuple[Fraction, Fraction] | None:
    if case.window is None or isinstance(case.window, tuple):
        return case.window
    return conformtrees.window(case.window, tree.valued[0], tree.bounds)


# --------------------------------------------------------------------------- shapes
def _kinds_by_depth(n: shrink.Node, depth: int = 0, out: dict | None = None) -> dict[int, set]:
    out = {} if out is None else out
    if isinstance(n, dict):
        ((kind, children),) = n.items()
        out.setdefault(depth, set()).add(kind)
        for c in children:
            _kinds_by_depth(c[1] if kind == "chance" else c, depth + 1, out)
    return out


def keeps_shape(original: shrink.Tree) -> Callable[[shrink.Tree], bool]:
    """A test of a candidate: every inner node at a depth of a kind the original has there
    (the alternation of kinds along every path kept: the game's shape)."""
    allowed = _kinds_by_depth(original.root)

    def ok(candidate: shrink.Tree) -> bool:
        found = _kinds_by_depth(candidate.root)
        return all(kinds <= allowed.get(d, set()) for d, kinds in found.items())

    return ok


def signature(tree: shrink.Tree) -> str:
    """A tree's shape up to its leaf values (and bounds): the cause of a disagreement."""

    def shape(n: shrink.Node) -> Any:
        if not isinstance(n, dict):
            return "leaf"
        ((kind, children),) = n.items()
        if kind == "chance":
            return {kind: [[str(p), shape(c)] for p, c in children]}
        return {kind: [shape(c) for c in children]}

    return json.dumps(shape(tree.root), sort_keys=True)


# --------------------------------------------------------------------------- the run
@dataclass
class Cause:
    """One cause of disagreements (or of failures): its file and how many trees showed it."""

    path: Path
    document: dict[str, Any]
    trees: int = 1


@dataclass
class Report:
    trees: int = 0  # the requests judged
    agree: int = 0
    disagree: int = 0
    failed: int = 0
    unsupported: int = 0
    counted: int = 0  # answers with counts
    counts_equal: int = 0
    levels_counted: int = 0  # answers with lists per level (``nodes_by_level`` ..)
    levels_equal: int = 0
    causes: dict[str, Cause] = field(default_factory=dict)
    first_unsupported: str | None = None
    stopped: str | None = None
    not_shrunk: int = 0  # disagreements counted under a cause already shrunk


def _own_counts(tree: shrink.Tree, label: str) -> dict[str, Any] | None:
    """starbench's own algorithm of ``label`` on the tree: its nodes and leaves and its lists
    per level (None when starbench has no such algorithm or it does not apply)."""
    from starbench.search import reference_search as search
    from starbench.search.registry import parse_spec
    from starbench.trees.explicit import parse_tree

    try:
        name, params = parse_spec(label)
        r = search(parse_tree(tree.json()), name, exact=True, **params)
    except Exception:  # noqa: BLE001 - not starbench's to count
        return None
    levels = {} if r.by_level is None else r.by_level.as_dict()
    return {"nodes": r.stats.nodes, "leaves": r.stats.leaves, **levels}


class Run:
    """One ``conform`` run: the engine, what it has found, where files go."""

    def __init__(
        self,
        engine: Any,
        label: str,
        out: Path,
        show: Callable[[str], None] = print,
        keep_shape: bool = False,
        fail_fast: bool = False,
        budget: int = FAILURE_BUDGET,
    ):
        from starbench.search.registry import parse_spec

        self.engine = engine
        self.label = label
        self.params = parse_spec(label)[1]
        self.out = Path(out)
        self.show = show
        self.keep_shape = keep_shape
        self.fail_fast = fail_fast
        self.budget = budget
        self.report = Report()
        self._in_a_row = 0
        #: symptom -> (its cause once shrunk, or None, and the disagreements it had)
        self._symptoms: dict[str, list[Any]] = {}

    # ---------------------------------------------------------------- files
    def _write(self, cause: Cause) -> None:
        from starbench.ground.files import atomic_write_text

        cause.document["trees"] = cause.trees
        self.out.mkdir(parents=True, exist_ok=True)
        atomic_write_text(cause.path, json.dumps(cause.document, indent=1) + "\n")

    def _cause(self, key: str, stem: str, document: dict[str, Any]) -> tuple[Cause, bool]:
        """The cause ``key`` (made and written if new; its count raised otherwise), and
        whether it is new."""
        causes = self.report.causes
        if key in causes:
            cause = causes[key]
            cause.trees += 1
            self._write(cause)
            return cause, False
        n = sum(1 for c in causes.values() if c.path.name.startswith(stem)) + 1
        cause = Cause(self.out / f"{stem}-{n}.json", document)
        causes[key] = cause
        self._write(cause)
        return cause, True

    def failed(self, tree: shrink.Tree, what: str, error: EngineFailed, window: Any) -> None:
        """A failure on ``tree``: one line, the tree written (one file per error, counted),
        the engine restarted."""
        self.report.failed += 1
        message = str(error)
        key = "failed: " + message.replace(what, "TREE").replace(" before its first answer", "")
        doc = {
            **tree.json(),
            shrink.ANSWERS: {
                "algorithm": self.label,
                "failed": message,
                "window": None if window is None else [_text(w) for w in window],
                "first": what,
            },
        }
        cause, new = self._cause(key, "failed", doc)
        if cause.trees <= self.budget:
            last = cause.trees == self.budget and not error.slow
            self.show(
                f"FAILED on {what}: {message}"
                + (f": {cause.path}" if new else "")
                + ("; further trees of this cause are counted, not shown" if last else "")
            )
        self._in_a_row += 1
        if self.fail_fast:
            self.report.stopped = "--fail-fast"
            return
        if cause.trees >= self.budget and error.slow:  # each costs --time-limit: no more
            self.report.stopped = (
                f"the engine failed on {cause.trees} trees with one cause that costs the time "
                f"limit each ({cause.path}): stopped at the failure budget "
                f"(--failure-budget {self.budget})"
            )
            return
        never = getattr(self.engine, "answered", 1) == 0
        if self._in_a_row >= (FAILURES_FIRST if never else FAILURES_IN_A_ROW):
            self.report.stopped = (
                f"the engine failed on {self._in_a_row} trees in a row"
                + (" without answering once" if never else "")
                + ": stopped"
            )
            return
        self.engine.restart()

    def ask(self, tree: shrink.Tree, what: str, window: Any) -> Verdict | None:
        """The verdict on one tree, or None when the engine failed on it (said, written)."""
        try:
            verdict = judge(self.engine, self.label, self.params, tree, what, window)
        except EngineFailed as e:
            self.failed(tree, what, e, window)
            return None
        self._in_a_row = 0
        return verdict

    # ---------------------------------------------------------------- a case
    def case(self, case: Case) -> None:
        tree = shrink.Tree.of(case.tree)
        window = _window_of(case, tree)
        verdict = self.ask(tree, case.what, window)
        r = self.report
        r.trees += 1
        if verdict is None:
            return
        if verdict.kind == "unsupported":
            r.unsupported += 1
            r.first_unsupported = r.first_unsupported or f"{case.what}: {verdict.why}"
            return
        lists = [k for k in LEVEL_FIELDS if k in verdict.answer]
        if ("nodes" in verdict.answer or lists) and window is None:
            own = _own_counts(tree, self.label)
            if "nodes" in verdict.answer:
                r.counted += 1
                theirs = {
                    k: verdict.answer.get(k) for k in ("nodes", "leaves") if k in verdict.answer
                }
                if own is not None and all(own[k] == v for k, v in theirs.items()):
                    r.counts_equal += 1
            if lists:  # the lists per level: each given one equal to starbench's
                r.levels_counted += 1
                if own is not None and all(own.get(k) == verdict.answer[k] for k in lists):
                    r.levels_equal += 1
        if verdict.kind == "agree":
            r.agree += 1
            return
        r.disagree += 1
        key = symptom(verdict, case.what)
        seen = self._symptoms.get(key)
        if seen is None:  # a new cause: shrunk, once
            self._symptoms[key] = [self.shrink(tree, case.what, window, verdict), 1]
        else:
            seen[1] += 1
            r.not_shrunk += 1
            cause = seen[0]
            if cause is not None:
                cause.trees += 1
                self._write(cause)
            if seen[1] <= self.budget:
                where = f"as {cause.path}" if cause is not None else "as before"
                self.show(
                    f"DISAGREE on {case.what}: {verdict.why}; the same cause {where} (not "
                    f"shrunk: one shrink per cause)"
                    + (
                        "; further trees of this cause are counted, not shown"
                        if seen[1] == self.budget
                        else ""
                    )
                )

    def early_stop(self) -> None:
        """Stop an engine that disagreed or failed on more than half of the first
        ``EARLY_AFTER`` requests or more (said in ``stopped``)."""
        r = self.report
        wrong = r.disagree + r.failed
        if r.trees >= EARLY_AFTER and 2 * wrong > r.trees and not r.stopped:
            r.stopped = (
                f"the engine disagreed or failed on {wrong} of the {r.trees} requests so far "
                f"(more than half): stopped early, a broken engine (the causes above)"
            )

    def shrink(self, tree: shrink.Tree, what: str, window: Any, found: Verdict) -> Cause | None:
        """Shrink one disagreement (the engine answering every candidate) and file it under its
        cause; the cause."""
        reduced = self.reduce(tree, what, window, found)
        if reduced is None:
            return None
        key, doc, size = reduced
        cause, new = self._cause(key, "disagreement", doc)
        why = doc[shrink.ANSWERS]["why"]
        if new:
            self.show(f"DISAGREE on {what}: {why}; {size}: {cause.path}")
        else:
            self.show(f"DISAGREE on {what}: {size}, the same cause as {cause.path}")
        return cause

    def reduce(
        self, tree: shrink.Tree, what: str, window: Any, found: Verdict
    ) -> tuple[str, dict[str, Any], str] | None:
        """The 1-minimal tree a disagreement shrinks to, the engine answering: (its cause's
        key, its file's document, what it shrank from and to); None when the engine agrees
        when asked again."""
        shape = keeps_shape(tree) if self.keep_shape else None

        def check(candidate: shrink.Tree, _label: str) -> Verdict | None:
            if shape is not None and not shape(candidate):
                return None
            got = self.ask(candidate, f"{what}, a shrunk candidate", window)
            return got if got is not None and got.kind == "disagree" else None

        try:  # asked again (shrink asks every failing tree twice)
            done = shrink.shrink(tree, self.label, SHRINK_EVALUATIONS, check)
        except shrink.NotReproducible:
            done = None
        if done is None:  # an engine whose answers are not a function of the request
            self.show(
                f"DISAGREE on {what}: {found.why}; asked again it agreed (or failed): the "
                f"engine's answers are not a function of the tree, not shrunk"
            )
            return None
        small, verdict = done.tree, done.disagreement
        key = (
            ("error: " + verdict.error)
            if verdict.error
            else (f"{'window' if window is not None else 'value'}: {signature(small)}")
        )
        doc = {
            **small.json(),
            shrink.ANSWERS: {
                "algorithm": self.label,
                "why": verdict.why,
                "answer": {
                    "value": verdict.printed,
                    "best_move": verdict.answer.get("best_move"),
                    **({"error": verdict.error} if verdict.error else {}),
                },
                "expectimax": {
                    "value": _text(verdict.expected) if verdict.expected is not None else None,
                    "decimal": _decimal(verdict.expected) if verdict.expected is not None else None,
                    "tied_best_moves": list(verdict.tied),
                },
                "window": None if window is None else [_text(w) for w in window],
                "fail_soft_range": None
                if window is None or verdict.range is None
                else [_text(x) for x in verdict.range],
                "nodes": shrink.nodes(small.root),
                "first": what,
                "evaluations": done.evaluations,
            },
        }
        return key, doc, f"shrunk {done.start_nodes} -> {shrink.nodes(small.root)} nodes"


def conform(
    engine: Any,
    label: str,
    source: Iterator[Case],
    out: Path = Path("conform"),
    show: Callable[[str], None] = print,
    keep_shape: bool = False,
    fail_fast: bool = False,
    budget: int = FAILURE_BUDGET,
) -> Report:
    """Judge every case of ``source`` (``cases``) with ``engine`` (an ``Engine`` or an
    ``InProcess``), shrinking the first disagreement of each cause into ``out`` (``symptom``),
    within the failure ``budget`` (``FAILURE_BUDGET``), stopping early where the engine is
    broken (``EARLY_AFTER``)."""
    run = Run(engine, label, out, show, keep_shape, fail_fast, budget)
    try:
        for case in source:
            run.case(case)
            run.early_stop()
            if run.report.stopped:
                show(f"starbench: {run.report.stopped}")
                break
    finally:
        engine.close()
    return run.report


def check_engine(
    command: str,
    label: str,
    out: Path = Path("conform"),
    time_limit: float = TIME_LIMIT,
    memory_limit: int = MEMORY_LIMIT,
    **options: Any,
) -> Report:
    """The default run of ``starbench conform --engine COMMAND --algorithm LABEL``, for an
    author's own tests (``options``: ``cases``' keywords)."""
    engine = Engine(command, time_limit, memory_limit)
    return conform(engine, label, cases(**options), out, show=lambda _line: None)


def table(report: Report) -> str:
    """The summary: one line per count, the count's name first."""
    counts = (
        f"{report.counts_equal} of {report.counted}" if report.counted else "no counts reported"
    )
    rows = [
        ("agree", report.agree),
        ("disagree", report.disagree),
        ("failed", report.failed),
        ("unsupported", report.unsupported),
        ("requests", report.trees),
        ("causes", len(report.causes)),
        ("counted, not shrunk", report.not_shrunk),
        ("counts equal starbench's", counts),
        (
            "per level equal",
            f"{report.levels_equal} of {report.levels_counted}"
            if report.levels_counted
            else "no lists per level reported",
        ),
    ]
    return "\n".join(f"{k:<26}{v}" for k, v in rows)
