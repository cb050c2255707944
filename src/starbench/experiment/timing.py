"""Timing on a shared, noisy machine: the harness ``starbench bench``, ``starbench latency`` and
the benchmark scripts (``scripts/``) share.

CPU time of this process (``time.process_time``), contenders interleaved in an order rotated
from repeat to repeat (a burst of load hits all of them), a contender's share of a reference
taken *within* each repeat and reported as the median of those ratios with their range
(``interleaved``), or the way a user checks a speed by hand, each contender right after the
reference for the same CPU time (``paired``); the load average before and after
(``load_average``, ``wait_for_quiet``), the machine (``machine``) and the code measured
(``source_state``); the process pinned to one core where the OS allows it (``pin_one_core``).
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from typing import Any

import numpy as np


def pin_one_core() -> str:
    """Pin this process to its lowest allowed CPU where the OS allows it; says which (or
    ``not pinned``)."""
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    except (AttributeError, OSError):
        return "not pinned"


MIN_REPEAT_SECONDS = 0.1


def cpu_passes(fn, calls: int, instances: int) -> tuple[int, float]:
    """(nodes, CPU seconds) of ``calls`` passes of ``fn(i)`` over the instances."""
    nodes = 0
    t0 = time.process_time()
    for _ in range(calls):
        for i in range(instances):
            nodes += fn(i)
    return nodes, time.process_time() - t0


def interleaved(
    contenders: dict[str, Any], instances: int, repeats: int, reference: str, *also: str
) -> dict[str, dict[str, Any]]:
    """Time every contender (``fn(i) -> nodes``) once per repeat, in an order rotated from repeat
    to repeat; per contender: the median nodes per CPU second, and the median, minimum and
    maximum over repeats of its rate divided by ``reference``'s rate in the same repeat.  A
    repeat runs each contender for about ``MIN_REPEAT_SECONDS`` of CPU (calibrated once)."""
    names = list(contenders)
    calls = {}
    for name in names:
        nodes, secs = cpu_passes(contenders[name], 1, instances)
        calls[name] = max(1, int(MIN_REPEAT_SECONDS / max(secs, 1e-9)) + 1)
    rates: dict[str, list[float]] = {n: [] for n in names}
    for r in range(repeats):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            nodes, secs = cpu_passes(contenders[name], calls[name], instances)
            rates[name].append(nodes / max(secs, 1e-12))

    def ratio(name: str, ref: str) -> dict[str, float]:
        ratios = [a / b for a, b in zip(rates[name], rates[ref], strict=True)]
        return {
            "ratio": statistics.median(ratios),
            "ratio_min": min(ratios),
            "ratio_max": max(ratios),
        }

    out: dict[str, dict[str, Any]] = {}
    for name in names:
        out[name] = {"nodes_per_s": statistics.median(rates[name]), **ratio(name, reference)}
        for ref in also:  # the same ratios to another reference: "vs_<ref>"
            out[name][f"vs_{ref}"] = ratio(name, ref)
    return out


#: Repeats of the paired measure (``paired``): at least 15, as the engine-speed targets ask.
PAIRED_REPEATS = 15


def rate(fn: Any, seconds: float) -> float:
    """Nodes per CPU second of ``fn(j) -> nodes`` called with j = 0, 1, ... until ``seconds``
    of CPU have passed."""
    nodes, j = 0, 0
    t0 = time.process_time()
    while True:
        nodes += fn(j)
        j += 1
        spent = time.process_time() - t0
        if spent >= seconds:
            return nodes / spent


def paired(
    anchor: Any, contenders: dict[str, Any], repeats: int = PAIRED_REPEATS
) -> dict[str, dict[str, float]]:
    """Each contender (``fn(j) -> nodes``) against ``anchor`` the way a user measures it by hand:
    in every repeat, for each contender in an order rotated from repeat to repeat, the anchor
    runs for ``MIN_REPEAT_SECONDS`` of CPU, then the contender for as long; the contender's
    share is its rate over the anchor's just before.  Per contender: the median, minimum and
    maximum of the shares over ``repeats``."""
    names = list(contenders)
    shares: dict[str, list[float]] = {n: [] for n in names}
    for r in range(repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            a = rate(anchor, MIN_REPEAT_SECONDS)
            shares[name].append(rate(contenders[name], MIN_REPEAT_SECONDS) / a)
    return {
        n: {"ratio": statistics.median(v), "ratio_min": min(v), "ratio_max": max(v)}
        for n, v in shares.items()
    }


def machine() -> dict[str, Any]:
    import numba

    from starbench.record.metadata import cpu_model

    return {
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "platform": platform.platform(),
    }


def load_average() -> list[float] | None:
    """The machine's 1, 5 and 15 minute load averages (None where the OS has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


#: A quiet machine for the benchmarks that ask for one: a 1-minute load average under this.
QUIET_LOAD = 0.5


def wait_for_quiet(most: float, limit: float = QUIET_LOAD, step: float = 5.0) -> dict[str, Any]:
    """Wait up to ``most`` seconds for the 1-minute load average to fall under ``limit``;
    ``{"load": [1, 5, 15 min], "waited_s": seconds, "quiet": bool}``.  Read after a run, it
    leaves the run's own process out: a busy core counts in the 1-minute average for about a
    minute after it stops (an exponential average), so a reading taken as the run ends says
    ~1 on a machine that is otherwise idle."""
    t0 = time.monotonic()
    while True:
        load = load_average()
        waited = round(time.monotonic() - t0, 1)
        if load is None or load[0] < limit or waited >= most:
            return {"load": load, "waited_s": waited, "quiet": load is not None and load[0] < limit}
        time.sleep(step)


def source_state() -> str:
    """The code a benchmark measured, for its report: ``commit 0123456789ab (clean tree)``, or
    ``(uncommitted changes)``, or ``not a git checkout``."""
    from starbench.record.metadata import git_state

    commit, dirty = git_state()
    if commit is None:
        return "not a git checkout"
    return f"commit {commit[:12]} ({'uncommitted changes' if dirty else 'clean tree'})"
