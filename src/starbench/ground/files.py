"""Files, written whole or not at all: atomic writes, their stale temporaries, file digests.

The ground floor of every folder starbench writes (cell folders, sweeps, matches, calibrations,
the corpus, the oracles' caches): a file is written to a temporary beside it
(``.<name>.<pid>.<random>.tmp``), fsync'ed and renamed into place, so a reader sees the old file
or the new one, never half of one; temporaries left by a process that no longer runs are removed
by the next write of the same file.
"""

from __future__ import annotations

import glob
import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def alive(pid: int, host: str | None = None) -> bool:
    """Does process ``pid`` live?  A process of another machine (``host``, a cluster job) is
    taken to: not this machine's to tell."""
    if host is not None:
        import socket

        if host != socket.gethostname():
            return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale_temporaries(path: Path) -> list[Path]:
    """Remove the temporaries of ``path`` left by processes that no longer run."""
    removed = []
    for tmp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        middle = tmp.name[len(path.name) + 2 : -len(".tmp")]
        pid = middle.split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and alive(int(pid)):
            continue
        if pid.isdigit() and int(pid) == os.getpid():
            continue
        try:
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            pass
    return removed


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent
    )
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        write(tmp_path)
        with open(tmp_path, "rb") as f:
            os.fsync(f.fileno())
        os.chmod(tmp_path, 0o666 & ~_umask())
        os.replace(tmp_path, path)
    except OSError as e:  # name the file being written (a full disk names none)
        raise OSError(e.errno, e.strerror or str(e), str(path)) from None
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes (the checksum ``cell.json`` records for its tables)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
