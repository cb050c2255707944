"""``ground.isolate``: a call in a process of its own, killed at a hard limit.

The bound the deadline (a signal) cannot give: a call that ignores ``SIGALRM`` or blocks past
it is killed at its limit, its own children with it; what it returns or raises comes back; a
process that ends without a result is said (``Died``), never taken for one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from starbench.ground.isolate import Died, Killed, Worker, killable


def _deaf_sleep() -> None:
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    time.sleep(3600)


def test_killable_returns_raises_and_is_killed_at_its_limit():
    assert killable(lambda: ("value", os.getpid()), 5)[0] == "value"
    assert killable(lambda: os.getpid(), 5) != os.getpid()  # another process
    with pytest.raises(ValueError, match="its own"):
        killable(lambda: (_ for _ in ()).throw(ValueError("its own")), 5)
    start = time.monotonic()
    with pytest.raises(Killed):
        killable(_deaf_sleep, 0.3)
    assert time.monotonic() - start < 3
    with pytest.raises(Died, match="exited with status 3"):
        killable(lambda: os._exit(3), 5)
    with pytest.raises(RuntimeError, match="lock"):  # a value that does not pickle is named
        killable(threading.Lock, 5)


def test_a_killed_call_takes_its_children_with_it(tmp_path):
    mark = f"starbench-isolate-{os.getpid()}"
    pids = tmp_path / "pids"

    def spawn_and_block() -> None:
        p = subprocess.Popen([sys.executable, "-c", f"import time; time.sleep(3600)  # {mark}"])
        pids.write_text(str(p.pid))
        time.sleep(3600)

    with pytest.raises(Killed):
        killable(spawn_and_block, 1.0)
    child = int(pids.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the call's child outlived it")


def test_a_worker_serves_many_calls_in_one_process_and_restarts_after_a_kill():
    def serve(request):
        if request == "block":
            _deaf_sleep()
        if request == "exit":
            os._exit(4)
        if request == "raise":
            raise KeyError("raised in the worker")
        return request * 2, os.getpid()

    w = Worker(serve)
    try:
        (a, pid), (b, same) = w.call(1, 5), w.call("x", 5)
        assert (a, b) == (2, "xx") and pid == same != os.getpid()
        with pytest.raises(KeyError, match="raised in the worker"):
            w.call("raise", 5)
        assert w.call(3, 5)[1] == pid  # an exception does not end the worker
        start = time.monotonic()
        with pytest.raises(Killed):
            w.call("block", 0.3)
        assert time.monotonic() - start < 3
        value, fresh = w.call(5, 5)
        assert value == 10 and fresh != pid
        with pytest.raises(Died, match="status 4"):
            w.call("exit", 5)
        assert w.call(6, 5)[0] == 12
    finally:
        w.close()
    assert w.pid is None
