"""Errors starbench reports to users.

``InputError`` and its subclasses are bad input (configs, tree files, parameters): the command
line prints ``str(error)`` as one line on stderr and exits with status 2, without a traceback.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from fractions import Fraction
from typing import Any


class StarbenchError(Exception):
    """Base class of every error starbench raises on purpose."""


class InputError(StarbenchError):
    """Bad input: a config key, a tree file, a parameter.  The message names the place."""


class TreeError(InputError):
    """A malformed tree: the message names the file and the JSON path of the node."""


class ConfigError(InputError):
    """A bad configuration value: the message names the key and what is allowed."""


class EvaluationError(InputError):
    """An evaluation outside [L, U] or NaN met during a search (names the node)."""


class WriteFailed(StarbenchError):
    """A file could not be written while a cell ran (a full disk, a lost mount, a permission):
    the message names the file; the rows journaled before it are kept (exit status 1)."""


class BudgetExceeded(StarbenchError):
    """A search stopped because it reached its node or time budget."""


#: How long past its time budget a search may run before ``deadline`` stops it: the searches
#: of the registry look at the clock every 1,024 nodes and stop at the budget themselves; the
#: deadline is for a search that never looks (a plugin's, a call that blocks).
DEADLINE_GRACE_S = 0.5


@contextlib.contextmanager
def deadline(seconds: float | None, grace: float = DEADLINE_GRACE_S) -> Iterator[None]:
    """Raise ``BudgetExceeded`` inside the block once ``seconds`` (a search's ``time_budget``)
    and ``grace`` have passed in wall time: an interval timer (``SIGALRM``) whose
    handler raises where the search is.  None, or a thread other than the main one (where
    signals cannot be handled), sets no timer.  The timer and handler are restored after."""
    import signal
    import threading

    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(_signum: int, _frame: Any) -> None:
        raise BudgetExceeded(f"time budget of {seconds:g} s exceeded (stopped by the deadline)")

    before = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, float(seconds) + grace)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


def first_line(e: BaseException, default: str = "") -> str:
    """The first line of an exception's message (``default`` when it has none)."""
    text = str(e).strip()
    return text.splitlines()[0] if text else default


def short(x: Any) -> str:
    """A number for a message: its text when short, else about 7 significant digits (never
    hundreds of digits)."""
    try:
        text = str(x)
    except ValueError:  # an int too long for str()
        text = ""
    if text and len(text) <= 24:
        return text
    try:
        f = Fraction(x)
    except (TypeError, ValueError, ZeroDivisionError):
        return text[:21] + "..."
    if f == 0:
        return "0"
    sign = "-" if f < 0 else ""
    bits = abs(f.numerator).bit_length() - f.denominator.bit_length()
    if abs(bits) > 1000:
        return f"{sign}~1e{round(bits * 0.30103)}"
    return f"~{float(f):.7g}"
