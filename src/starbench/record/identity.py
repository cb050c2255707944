"""A cell's identity and its digest: what determines a cell's trees and values, the 8-hex-digit
``cell`` column and the end of the cell's folder name (``experiment.settings.cell_name``)."""

from __future__ import annotations

import hashlib
import json
import typing
from dataclasses import fields
from typing import Any

from starbench.games.spec import GameSpec
from starbench.trees.regular import RegularTreeSpec

_HINTS = typing.get_type_hints(RegularTreeSpec)
_CASTS: dict[Any, Any] = {int: int, float: float, bool: bool, str: str}


#: Generator parameters added after cells were stored, with their defaults: a cell's identity
#: holds such a parameter only where it differs from its default.
LATE_TREE_PARAMS: dict[str, Any] = {"pool": 0}

#: The unit of ``tree.noise_sd`` (``trees.models.spread``), in the identity of a noisy cell.
NOISE_UNIT = "children's spread"


def cell_identity(
    spec: RegularTreeSpec | GameSpec,
    seed: int,
    exact: bool,
    generator_version: int | None = None,
    noise_unit: bool = True,
) -> dict[str, Any]:
    """What determines the trees and values of a cell (the folder name and every stored row
        carry its digest); each tree parameter in its declared type, so 0 and 0.0 are one cell.
        A game cell's identity has ``game`` (``GameSpec.identity``) in place of ``tree``.  The
        generator version (the spec's, unless ``generator_version`` names a stored one) is a key
        of its own beside ``tree``, as it was before it could be chosen, so version-1 cells keep
        their digests.  A cell of ``ordering=noisy`` holds ``noise_unit`` (``NOISE_UNIT``): its
    ``noise_sd`` is in units of the children's spread, where cells stored before it (without the
    key, ``noise_unit=False`` here) were in raw value units and so are other trees."""
    if isinstance(spec, GameSpec):
        return {"game": spec.identity(), "seed": int(seed), "exact": bool(exact)}
    tree = {}
    for f in fields(RegularTreeSpec):
        v = getattr(spec, f.name)
        if f.name == "generator_version":
            continue  # beside the tree (below)
        if f.name in LATE_TREE_PARAMS and v == LATE_TREE_PARAMS[f.name]:
            continue  # added later: absent at its default, so stored cells keep their digest
        cast = _CASTS.get(_HINTS[f.name])
        tree[f.name] = cast(v) if cast is not None and v is not None else v
    identity = {
        "tree": tree,
        "seed": int(seed),
        "exact": bool(exact),
        "generator_version": int(
            spec.generator_version if generator_version is None else generator_version
        ),
    }
    if spec.ordering == "noisy" and noise_unit:
        identity["noise_unit"] = NOISE_UNIT
    return identity


def cell_digest(identity: dict[str, Any]) -> str:
    """The 8-hex-digit digest of a cell identity (the ``cell`` column, the folder name's end)."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:8]


def normalised_identity(identity: dict[str, Any]) -> dict[str, Any]:
    """A stored identity with its tree parameters normalised (``RegularTreeSpec.normalised``),
    as identities recorded before normalisation existed are compared."""
    if "game" in identity:
        return identity
    spec = RegularTreeSpec(**identity["tree"]).normalised()
    return cell_identity(
        spec,
        identity["seed"],
        identity["exact"],
        identity.get("generator_version", 0),  # 0: stored before versions were recorded
        "noise_unit" in identity,
    )
