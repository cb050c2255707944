"""Errors starbench reports to users.

``InputError`` and its subclasses are bad input (configs, tree files, parameters): the command
line prints ``str(error)`` as one line on stderr and exits with status 2, without a traceback.
"""

from __future__ import annotations


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


class BudgetExceeded(StarbenchError):
    """A search stopped because it reached its node or time budget."""
