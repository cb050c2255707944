"""A call run in a process of its own, killed at a hard limit (``killable``).

A search's time budget is enforced two ways.  The searches starbench ships look at the clock
every 1,024 nodes and stop at it; the deadline (``errors.deadline``, a ``SIGALRM`` timer) stops a
Python search that never looks.  Neither stops a search that blocks in C code without returning
to the interpreter, catches the deadline's exception and carries on, or ignores ``SIGALRM``: a
plugin's, say.  ``killable`` bounds those: the call runs in a forked child process, which sends
back what it returns (or raises) through a pipe; the parent waits at most ``limit`` seconds of
wall time, then kills the child's whole process group (``SIGKILL``: nothing it does can ignore
it) and raises ``Killed``.  The child ignores ``SIGINT`` and has a process group of its own, so
Ctrl-C reaches the parent alone, which kills the child on its way out.

``Worker`` is the same bound for many calls of one function (``conform``'s requests to a
plugin): one forked child serves them one at a time over pipes, and is killed past a call's
limit (``Killed``) and forked again at the next call; a fork per call would cost about 6 ms of
system time each.

A fork copies the parent: the child sees the parent's state as it was, and nothing the child
changes (a search object's counters, a cache) comes back except the call's return value, which
must pickle (an exception that does not is sent back as a ``RuntimeError`` naming it).  Where
``os.fork`` does not exist, the call runs in this process, unbounded as before.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

#: Seconds past its time limit (and the deadline's grace) a call may run before its process is
#: killed: the deadline, where it works, stops a search first and keeps its counters.
KILL_GRACE_S = 1.0


class Killed(Exception):
    """The call did not return within its limit: its process was killed."""


class Died(Exception):
    """The call's process ended without sending back a result (``os._exit``, a signal, a
    crash in C code); the message says how it ended."""


def killable(call: Callable[[], T], limit: float) -> T:
    """``call()`` in a forked child process, killed after ``limit`` seconds of wall time
    (``Killed``); its return value, or its exception raised again here (``Died`` when the child
    ends without either).  A ``Worker`` for one call."""
    worker = Worker(lambda _request: call())
    try:
        return worker.call(None, limit)  # type: ignore[no-any-return]
    finally:
        worker.close()


def _pickled(outcome: tuple[str, Any]) -> bytes:
    """An outcome's bytes; one that does not pickle is sent as a ``RuntimeError`` naming it."""
    try:
        return pickle.dumps(outcome)
    except Exception:  # noqa: BLE001 - an unpicklable value or exception, named instead
        what = outcome[1]
        text = f"{type(what).__name__}: {what}" if outcome[0] == "raised" else repr(what)[:200]
        return pickle.dumps(("raised", RuntimeError(text)))


def _kill(pid: int) -> int:
    """Kill the child's process group (its own children too) and reap it; its wait status."""
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except (ProcessLookupError, PermissionError):
            continue
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return 0


def _ended(status: int) -> str:
    """How a child process ended, from its wait status."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"its process was killed by {name} without a result"
    return f"its process exited with status {os.WEXITSTATUS(status)} without a result"


class Worker:
    """``serve(request)`` in a forked child process that answers requests one at a time
    (``call``): each answer within its limit, else the child is killed (``Killed``) and the next
    call forks a new one.  Requests and answers must pickle."""

    def __init__(self, serve: Callable[[Any], Any]):
        self.serve = serve
        self.pid: int | None = None
        self.to_child = self.from_child = -1

    def call(self, request: Any, limit: float) -> Any:
        """The child's answer to ``request`` (its exception raised again here), or ``Killed``
        past ``limit`` seconds of wall time, or ``Died`` when the child ends without one."""
        if not hasattr(os, "fork"):
            return self.serve(request)
        if self.pid is None:
            self._start()
        assert self.pid is not None
        try:
            _send(self.to_child, pickle.dumps(request))
            data = _receive(self.from_child, time.monotonic() + limit)
        except BrokenPipeError:  # the child ended before it read the request
            data = b""
        except BaseException:
            self.close()
            raise
        if data is None:
            self.close()
            raise Killed(f"the call did not return within {limit:g} s: its process was killed")
        if not data:
            status = self.close()
            raise Died(_ended(status))
        kind, value = pickle.loads(data)
        if kind == "raised":
            raise value
        return value

    def _start(self) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        down_read, down_write = os.pipe()
        up_read, up_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: serves until its input closes, never returns
            os.close(down_write)
            os.close(up_read)
            _serve(self.serve, down_read, up_write)
        os.close(down_read)
        os.close(up_write)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)
        self.pid, self.to_child, self.from_child = pid, down_write, up_read

    def close(self) -> int:
        """Kill the child (if any) and close its pipes; its wait status (0 if none)."""
        status = 0
        for fd in (self.to_child, self.from_child):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.to_child = self.from_child = -1
        if self.pid is not None:
            status = _kill(self.pid)
            self.pid = None
        return status


def _send(fd: int, data: bytes) -> None:
    """One message: its length (8 bytes), then its bytes."""
    view = memoryview(len(data).to_bytes(8, "little") + data)
    while view:
        view = view[os.write(fd, view) :]


def _receive(fd: int, until: float) -> bytes | None:
    """One message (``_send``); b"" when the pipe closes first, None at ``until``."""
    head = _exactly(fd, 8, until)
    if not head:
        return head
    return _exactly(fd, int.from_bytes(head, "little"), until)


def _exactly(fd: int, n: int, until: float) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        left = None if until == float("inf") else until - time.monotonic()
        if left is not None and (left <= 0 or not select.select([fd], [], [], left)[0]):
            return None
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            return b""
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _serve(serve: Callable[[Any], Any], down: int, up: int) -> None:
    """The worker child's loop: read a request, write its outcome, until the input closes."""
    code = 0
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        while True:
            data = _receive(down, float("inf"))
            if not data:
                break
            try:
                outcome: tuple[str, Any] = ("returned", serve(pickle.loads(data)))
            except BaseException as e:  # noqa: BLE001 - every outcome goes back to the parent
                outcome = ("raised", e)
            _send(up, _pickled(outcome))
    except BaseException:  # noqa: BLE001 - the parent reads no answer and says so
        code = 70
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
