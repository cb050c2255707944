"""Test configuration: hypothesis profiles, and the session's SLURM cluster (``slurm``).

``HYPOTHESIS_PROFILE=ci`` (the default, and what the README's test command runs) bounds examples
and drops the per-example deadline (first examples may compile kernels or run large Fraction
searches); ``thorough`` runs many more; ``quick`` (30 examples) is what ``pytest -m "not slow"``,
the quick loop, runs unless ``HYPOTHESIS_PROFILE`` names another.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

# exact oracles computed by the tests are cached in a folder of this session (the controller makes
# it; its xdist workers inherit the variable and share it), never in the user's ~/.cache
if "STARBENCH_ORACLE_CACHE" not in os.environ:
    import tempfile

    os.environ["STARBENCH_ORACLE_CACHE"] = tempfile.mkdtemp(prefix="starbench-oracles-")

# numba's cache is starbench's folder (starbench.ground.caches) even where a test module imports
# numba before starbench: numba reads NUMBA_CACHE_DIR once, when it is first imported, and without
# it writes its cache beside the sources (src/starbench/**/__pycache__)
import starbench  # noqa: E402, F401

#: Every profile: no per-example deadline, and slow or large examples are fine.
_SLOW_OK = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
settings.register_profile("ci", max_examples=120, derandomize=True, **_SLOW_OK)
settings.register_profile("thorough", max_examples=3000, **_SLOW_OK)
settings.register_profile("quick", max_examples=30, derandomize=True, **_SLOW_OK)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config):
    """The quick loop (``-m "not slow"``) runs the property tests at the ``quick`` profile; the
    README's test command (every test) at ``ci``.  The controller names the folder of the
    session's SLURM cluster (its xdist workers inherit the name)."""
    if "HYPOTHESIS_PROFILE" not in os.environ and "not slow" in (config.option.markexpr or ""):
        settings.load_profile("quick")
    if not hasattr(config, "workerinput"):
        import tempfile

        os.environ[CLUSTER_DIR] = tempfile.mkdtemp(prefix="starbench-slurm-")
        os.chmod(os.environ[CLUSTER_DIR], 0o755)  # munged wants its socket's folders open


#: The environment variable naming the folder of the session's cluster: its lock, its state
#: file (``cluster.json``) and the cluster itself (``slurm_cluster.start``).
CLUSTER_DIR = "STARBENCH_TEST_CLUSTER"


@pytest.fixture(scope="session")
def slurm():
    """The session's one-node SLURM cluster (``slurm_cluster``), one for all xdist workers: the
    first worker that needs it starts it under a file lock and leaves its pids in a state file
    the others read; the controller stops it when the session ends (``pytest_unconfigure``).
    Skips, naming the install command, where the packages or root are absent."""
    import fcntl

    import slurm_cluster

    reason = slurm_cluster.unavailable()
    if reason:
        pytest.skip(reason)
    base = Path(os.environ[CLUSTER_DIR])
    with open(base / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state, failed = base / "cluster.json", base / "failed"
        if failed.exists():
            pytest.fail(f"the test cluster did not start: {failed.read_text()}")
        if not state.exists():
            try:
                slurm_cluster.start(base / "cluster").save(state)
            except Exception as e:
                failed.write_text(str(e))
                raise
        return slurm_cluster.Cluster.load(state)


def pytest_unconfigure(config):
    """The controller stops the session's cluster, if a test started one, by its pids."""
    if hasattr(config, "workerinput") or CLUSTER_DIR not in os.environ:
        return
    import shutil

    import slurm_cluster

    base = Path(os.environ.pop(CLUSTER_DIR))
    if (base / "cluster.json").exists():
        slurm_cluster.stop(slurm_cluster.Cluster.load(base / "cluster.json"))
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(autouse=True)
def _registry_restored():
    """Each test sees the built-in algorithm registry: an algorithm a plugin test registers in
    this process is removed after it, so tests do not depend on their order."""
    from starbench.search import registry

    before = dict(registry.ALGORITHMS)
    yield
    registry.ALGORITHMS.clear()
    registry.ALGORITHMS.update(before)


def pytest_sessionstart(session):
    """Under pytest-xdist, the controller compiles the kernel's two specializations for trees
    (without a table, with one) and those of the two game model families (one each, serving
    searches with and without a table) once, two processes at a time, into numba's cache before
    the workers start, so that no worker compiles them again (each compile is 13-26 s CPU)."""
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return  # a worker, or one process: the first compiled test compiles what it needs
    import subprocess

    code = "import sys; from starbench.compiled import engine; engine.warm_up({sys.argv[1] == 't'})"
    procs = [subprocess.Popen([sys.executable, "-c", code, f]) for f in ("f", "t")]
    for p in procs:
        p.wait()
    # then the game model families' kernels the game tests use: pig's and Einstein's
    code = (
        "import sys; from starbench.compiled import engine; from starbench.games import models; "
        "m = models.pig_model_of(100, 6, 1000) if sys.argv[1] == 'pig' "
        "else models.einstein_model('einstein_wurfelt_nicht'); "
        "engine.warm_up({(True, m.family)}, m)"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, f]) for f in ("pig", "einstein")]
    for p in procs:
        p.wait()
