"""Override strings (``KEY=VALUE`` as Hydra reads them): the syntax starbench reads and writes.

The one place that knows how a command's overrides are spelled: the inline algorithm list
``algorithms=[expectimax,star2.5-cyclic:k=0..6]`` and the key Hydra's grammar takes it as
(``algorithm_specs``), Hydra's own keys, a shard job's ``shard=[i]``, the launcher's keys.
Every floor that prints or reads a command uses these, so they agree.
"""

from __future__ import annotations

from typing import Any

#: The run key an inline ``algorithms=[...]`` list becomes (Hydra's grammar accepts it quoted).
INLINE_KEY = "algorithm_specs"
#: The overrides that choose or set the launcher.
LAUNCHER = ("hydra/launcher=", "hydra.launcher.")


def key_of(override: str) -> str:
    """The key of ``KEY=VALUE`` (without Hydra's ``+``/``++``/``~`` prefixes)."""
    return override.split("=", 1)[0].lstrip("+~")


def inline_algorithms(argv: list[str]) -> list[str]:
    """Rewrite ``algorithms=[expectimax,star2.5-cyclic:k=0..6]`` (one argument, the syntax of
    ``starbench solve --algorithm``) into ``algorithm_specs='...'``, which Hydra's grammar
    accepts; ``algorithms=<file>`` (a file of ``conf/algorithms``) is left alone."""
    out = []
    for a in argv:
        key, eq, value = a.partition("=")
        value = value.strip()
        if (
            eq
            and key.lstrip("+~") == "algorithms"
            and value.startswith("[")
            and value.endswith("]")
        ):
            a = f"{INLINE_KEY}='{value[1:-1]}'"
        out.append(a)
    return out


def outline_algorithms(override: str) -> str:
    """The inverse of ``inline_algorithms`` for one override (for the commands we print)."""
    key, eq, value = override.partition("=")
    if eq and key == INLINE_KEY:
        return f"algorithms=[{value.strip(chr(39))}]"
    return override


def task_overrides(overrides: list[str]) -> list[str]:
    """The overrides Hydra calls the task's (``hydra.overrides.task``): all but Hydra's own."""
    return [o for o in overrides if not o.lstrip("+~").startswith(("hydra.", "hydra/"))]


def without_shard(overrides: Any) -> list[str]:
    """A job's overrides without its ``shard=[...]``: those of its cell."""
    return [o for o in overrides or [] if not o.lstrip("+~").startswith("shard=")]


def launcher_overrides(overrides: Any) -> list[str]:
    """The overrides that choose or set the launcher, each once, in order."""
    return list(dict.fromkeys(o for o in overrides if o.lstrip("+~").startswith(LAUNCHER)))
