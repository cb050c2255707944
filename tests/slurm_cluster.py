"""A one-node SLURM cluster for the tests marked ``cluster``: Debian's packages, all in one folder.

``start(folder)`` brings up munged, slurmctld and slurmd with every file they write under
``folder`` (configuration, state, spool, logs, pid files, munge's socket, key and seed), on two
free ports of their own, with the node at ``NodeAddr=127.0.0.1`` under this machine's short host
name (which must resolve: ``/etc/hosts`` is never edited).  No accounting daemon: ``sacct``
answers "accounting storage is disabled", so the path without accounting is the one run for
real.  ``KillWait`` is left at SLURM's default (30 s), so a test of how fast a cancelled job
stops measures starbench, not the cluster.  ``stop(cluster)`` cancels what still runs and stops
the daemons by the pids they wrote, never by name.

Clients find the cluster through ``SLURM_CONF`` (``Cluster.env``).  ``unavailable()`` says why
this machine cannot run one (packages, root, host name), for the tests' skip reason.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

#: The Debian packages, as the README and docs/guide/cluster.md give them.
INSTALL = "apt-get install -y --no-install-recommends slurmctld slurmd slurm-client munge"
DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "scancel", "sinfo", "scontrol", "munge")
#: Bring-up's limit (the issue's budget is 90 s with the packages installed).
UP_WITHIN_S = 90.0


@dataclass(frozen=True)
class Cluster:
    folder: str
    conf: str
    node: str
    pids: dict[str, int]

    @property
    def env(self) -> dict[str, str]:
        """The environment of a client of this cluster (sbatch, squeue, starbench run)."""
        return {**os.environ, "SLURM_CONF": self.conf}

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self)))

    @classmethod
    def load(cls, path: Path) -> Cluster:
        return cls(**json.loads(path.read_text()))


def unavailable() -> str | None:
    """Why this machine cannot run the test cluster, in one line, or None."""
    missing = [c for c in (*DAEMONS, *CLIENTS) if shutil.which(c) is None]
    if missing:
        return f"needs SLURM and munge ({', '.join(missing)} not found): as root, {INSTALL}"
    if os.geteuid() != 0:
        return f"needs root (slurmd starts each job as its user); as root: {INSTALL}"
    host = socket.gethostname().split(".")[0]
    try:
        socket.gethostbyname(host)
    except OSError:
        return f"the host name {host!r} does not resolve (the tests never edit /etc/hosts)"
    return None


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _node_line(node: str) -> str:
    """This machine as ``slurmd -C`` sees it, with ``RealMemory`` at 90 % (slurmd drains a
    node that has less than it is said to have) and the node at 127.0.0.1."""
    p = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True)
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("NodeName="))
    memory = int(re.search(r"RealMemory=(\d+)", line).group(1))
    line = re.sub(r"RealMemory=\d+", f"RealMemory={int(memory * 0.9)}", line)
    line = re.sub(r"NodeName=\S+", f"NodeName={node} NodeAddr=127.0.0.1", line)
    return f"{line} State=UNKNOWN"


def slurm_conf(root: Path, node: str, ports: list[int]) -> str:
    """slurm.conf of the one-node cluster in ``root``: no cgroups (proctrack/linuxproc,
    task/none), no accounting, memory as a consumable (with a default per CPU, so that jobs
    without ``--mem`` do not take the whole node)."""
    return "\n".join(
        [
            "ClusterName=starbench-tests",
            f"SlurmctldHost={node}(127.0.0.1)",
            f"SlurmctldPort={ports[0]}",
            f"SlurmdPort={ports[1]}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={root}/run/munge.socket",
            f"StateSaveLocation={root}/state",
            f"SlurmdSpoolDir={root}/spool",
            f"SlurmctldPidFile={root}/run/slurmctld.pid",
            f"SlurmdPidFile={root}/run/slurmd.pid",
            f"SlurmctldLogFile={root}/log/slurmctld.log",
            f"SlurmdLogFile={root}/log/slurmd.log",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "MpiDefault=none",
            "SwitchType=switch/none",
            "SchedulerType=sched/backfill",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core_Memory",
            "DefMemPerCPU=1000",
            "ReturnToService=2",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            _node_line(node),
            f"PartitionName=debug Nodes={node} Default=YES MaxTime=INFINITE State=UP",
            "",
        ]
    )


def _pid(path: Path, within: float = 20.0) -> int:
    """The pid a daemon wrote to ``path`` (it forks, then writes it)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        text = path.read_text().strip() if path.exists() else ""
        if text.isdigit():
            return int(text)
        time.sleep(0.05)
    raise RuntimeError(f"{path} was not written within {within:g} s")


def _idle(cluster: Cluster, within: float) -> None:
    end = time.monotonic() + within
    last = ""
    while time.monotonic() < end:
        p = subprocess.run(
            ["sinfo", "--noheader", "--format=%T"], capture_output=True, text=True, env=cluster.env
        )
        last = (p.stdout + p.stderr).strip()
        if p.returncode == 0 and last == "idle":
            return
        time.sleep(0.2)
    logs = Path(cluster.folder, "log")
    tail = {f.name: f.read_text()[-600:] for f in logs.glob("*.log")}
    raise RuntimeError(f"the test cluster's node is not idle after {within:g} s ({last}): {tail}")


def start(folder: Path) -> Cluster:
    """Bring up the cluster in ``folder`` (created, mode 0755: munged checks its socket's
    folder) and wait until its node is idle."""
    root = Path(folder)
    for sub in ("etc", "run", "log", "state", "spool"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)
    (root / "run").chmod(0o755)
    (root / "etc").chmod(0o700)
    key = root / "etc" / "munge.key"
    key.write_bytes(secrets.token_bytes(128))
    key.chmod(0o600)
    node = socket.gethostname().split(".")[0]
    conf = root / "etc" / "slurm.conf"
    conf.write_text(slurm_conf(root, node, _free_ports(2)))
    cluster = Cluster(str(root), str(conf), node, {})
    munge = [
        "munged",
        f"--socket={root}/run/munge.socket",
        f"--key-file={key}",
        f"--pid-file={root}/run/munged.pid",
        f"--log-file={root}/log/munged.log",
        f"--seed-file={root}/state/munged.seed",
    ]
    pids: dict[str, int] = {}
    try:
        for name, argv in (("munged", munge), ("slurmctld", ["slurmctld"]), ("slurmd", ["slurmd"])):
            p = subprocess.run(argv, env=cluster.env, capture_output=True, text=True)
            if p.returncode != 0:
                raise RuntimeError(f"{name} exited {p.returncode}: {p.stderr.strip()[-600:]}")
            pids[name] = _pid(root / "run" / f"{name}.pid")
        cluster = Cluster(str(root), str(conf), node, pids)
        _idle(cluster, UP_WITHIN_S)
    except BaseException:
        stop(Cluster(str(root), str(conf), node, pids))
        raise
    return cluster


def _alive(pid: int) -> bool:
    """Does ``pid`` run?  (A daemon that forked away is reaped by pid 1, which in a container
    may not reap: a zombie counts as stopped.)"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def stop(cluster: Cluster) -> None:
    """Cancel every job of the cluster, then stop its daemons by their pids (slurmd first)."""
    subprocess.run(["scancel", "--user=root"], env=cluster.env, capture_output=True)
    end = time.monotonic() + 15
    while time.monotonic() < end:
        p = subprocess.run(
            ["squeue", "--noheader"], env=cluster.env, capture_output=True, text=True
        )
        if p.returncode != 0 or not p.stdout.strip():
            break
        time.sleep(0.3)
    for name in ("slurmd", "slurmctld", "munged"):
        pid = cluster.pids.get(name)
        if pid is None or not _alive(pid):
            continue
        os.kill(pid, signal.SIGTERM)
        end = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < end:
            time.sleep(0.05)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
    for name in DAEMONS:
        Path(cluster.folder, "run", f"{name}.pid").unlink(missing_ok=True)
