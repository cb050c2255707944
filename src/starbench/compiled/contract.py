"""The game-model contract (``starbench.games.models``) as the compiled kernel calls it: one
generic function per contract function (``call_player(model, p, s)``, ...) that numba resolves,
when it compiles the kernel, to the model family's own function (``games.models.MODELS``).

A ``GameModel`` reaches numba as its family's value (``family_value``), of type
``ModelType(family)``: a type that carries only the family's name and holds no data.  So the
kernel is compiled once per family (pig for every rule setting, whose rules are in the
parameters array), its calls into the model are direct
calls numba can inline (measured: pig expectimax ran 4.5x faster than through function
pointers, 49 M against 11 M nodes/s), and, the type being a plain name, numba caches each
family's kernel on disk like the kernel of random trees (``ground.caches`` keys that cache by
these sources, so an edited model is compiled again, never loaded stale).

A new model needs nothing here: its family's functions in ``MODELS`` are found by name.
"""

from __future__ import annotations

import functools
from typing import Any

from numba import types
from numba.extending import NativeValue, overload, register_model, unbox
from numba.extending import models as datamodels

from starbench.games.models import CONTRACT, MODELS


class ModelType(types.Type):
    """The numba type of a ``GameModel``: its family's name, no data."""

    def __init__(self, family: str):
        self.family = family
        super().__init__(name=f"GameModel({family})")


class Family:
    """What a search hands the kernel for its model: the family's numba type as
    ``_numba_type_``, which numba's dispatcher reads in C (a ``GameModel`` itself would be
    typed by a call into Python, ``typeof``, on every search: a few microseconds of a warm
    search's fixed cost)."""

    __slots__ = ("_numba_type_",)

    def __init__(self, family: str):
        self._numba_type_ = ModelType(family)


@functools.cache
def family_value(family: str) -> Family:
    """The ``Family`` value of a model family (one per family)."""
    return Family(family)


register_model(ModelType)(datamodels.OpaqueModel)


@unbox(ModelType)
def _unbox_model(typ: ModelType, obj: Any, c: Any) -> NativeValue:
    return NativeValue(c.context.get_constant_null(typ))  # the type is all the kernel needs


def _family_function(model: Any, name: str) -> Any:
    """The contract function ``name`` of the family ``model`` types (or None: not a model)."""
    if not isinstance(model, ModelType):
        return None
    return MODELS[model.family].functions[CONTRACT.index(name)]


# One generic function per contract function (the model first, then the contract's arguments).
# Their Python bodies never run: numba replaces each call by the family's function.


def call_player(model, p, s):  # noqa: ANN001, ANN201, D103
    raise NotImplementedError


def call_n_moves(model, p, s):  # noqa: ANN001, ANN201, D103
    raise NotImplementedError


def call_move(model, p, s, i):  # noqa: ANN001, ANN201, D103
    raise NotImplementedError


def call_n_outcomes(model, p, s):  # noqa: ANN001, ANN201, D103
    raise NotImplementedError


def call_outcome(model, p, s, i):  # noqa: ANN001, ANN201, D103
    raise NotImplementedError


def call_probability(model, p, s, i):  # noqa: ANN001, ANN201, D103
    raise NotImplementedError


def call_apply(model, p, s, action, out):  # noqa: ANN001, ANN201, D103
    raise NotImplementedError


def call_returns(model, p, s, player):  # noqa: ANN001, ANN201, D103
    raise NotImplementedError


def call_heuristic(model, p, s, code, root):  # noqa: ANN001, ANN201, D103
    raise NotImplementedError


def call_key(model, p, s):  # noqa: ANN001, ANN201, D103
    raise NotImplementedError


def _two(name: str) -> Any:
    def typer(model, p, s):  # noqa: ANN001, ANN202
        fn = _family_function(model, name)
        if fn is not None:
            return lambda model, p, s: fn(p, s)
        return None

    return typer


def _three(name: str) -> Any:
    def typer(model, p, s, i):  # noqa: ANN001, ANN202
        fn = _family_function(model, name)
        if fn is not None:
            return lambda model, p, s, i: fn(p, s, i)
        return None

    return typer


def _four(name: str) -> Any:
    def typer(model, p, s, a, b):  # noqa: ANN001, ANN202
        fn = _family_function(model, name)
        if fn is not None:
            return lambda model, p, s, a, b: fn(p, s, a, b)
        return None

    return typer


overload(call_player)(_two("player"))
overload(call_n_moves)(_two("n_moves"))
overload(call_move)(_three("move"))
overload(call_n_outcomes)(_two("n_outcomes"))
overload(call_outcome)(_three("outcome"))
overload(call_probability)(_three("probability"))
overload(call_apply)(_four("apply"))
overload(call_returns)(_three("returns"))
overload(call_heuristic)(_four("heuristic"))
overload(call_key)(_two("key"))
