"""Float and exact arithmetic for the searches.

Every algorithm runs either in floats or in exact fractions (``exact=True``).  The root is
searched with the window (-inf, +inf); in exact mode those infinities are ``Infinity`` objects,
not floats, so no float ever enters an exact search.  Infinite *bounds* L, U are never allowed
(they turn the window arithmetic into NaN, a bug seen in public code): trees declare finite
bounds.

Values agree when they are equal (exact mode) or within ``1e-9 * max(1, |L|, |U|)`` (floats).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any


class Infinity:
    """Signed infinity that mixes with ints and Fractions without becoming a float."""

    __slots__ = ("sign",)

    def __init__(self, sign: int):
        self.sign = 1 if sign > 0 else -1

    def __repr__(self) -> str:
        return "+inf" if self.sign > 0 else "-inf"

    def __neg__(self) -> Infinity:
        return POS_INF if self.sign < 0 else NEG_INF

    def __add__(self, other: Any) -> Infinity:
        if isinstance(other, Infinity) and other.sign != self.sign:
            raise ArithmeticError("inf - inf is undefined")
        return self

    __radd__ = __add__

    def __sub__(self, other: Any) -> Infinity:
        return self + (-other)

    def __rsub__(self, other: Any) -> Infinity:
        return -self + other

    def __mul__(self, other: Any) -> Infinity:
        if other == 0:
            raise ArithmeticError("inf * 0 is undefined")
        return self if other > 0 else -self

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Infinity:
        if isinstance(other, Infinity) or other == 0:
            raise ArithmeticError("undefined division of an infinity")
        return self if other > 0 else -self

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Infinity) and other.sign == self.sign

    def __hash__(self) -> int:
        return hash(("Infinity", self.sign))

    def __lt__(self, other: Any) -> bool:
        if isinstance(other, Infinity):
            return self.sign < other.sign
        return self.sign < 0

    def __le__(self, other: Any) -> bool:
        return self == other or self < other

    def __gt__(self, other: Any) -> bool:
        if isinstance(other, Infinity):
            return self.sign > other.sign
        return self.sign > 0

    def __ge__(self, other: Any) -> bool:
        return self == other or self > other


POS_INF = Infinity(1)
NEG_INF = Infinity(-1)


@dataclass(frozen=True)
class Arithmetic:
    """How numbers are represented in one search."""

    exact: bool
    num: Callable[[Any], Any]  # converts an exact tree number (int or Fraction)
    neg_inf: Any
    pos_inf: Any


def _as_exact(x: Any) -> Any:
    return x if isinstance(x, int | Fraction) else Fraction(x)


FLOAT = Arithmetic(False, float, float("-inf"), float("inf"))
EXACT = Arithmetic(True, _as_exact, NEG_INF, POS_INF)


def arithmetic(exact: bool) -> Arithmetic:
    return EXACT if exact else FLOAT


def tolerance(L: Any, U: Any) -> float:
    """The float-mode tolerance ``1e-9 * max(1, |L|, |U|)``."""
    return 1e-9 * max(1.0, abs(float(L)), abs(float(U)))


def agree(a: Any, b: Any, L: Any, U: Any, exact: bool) -> bool:
    """Do two values agree (exactly, or within the float tolerance)?"""
    if exact:
        return a == b
    return abs(float(a) - float(b)) <= tolerance(L, U)


def format_value(v: Any, exact: bool) -> Any:
    """A value for JSON output: a number, or the string "a/b" in exact mode."""
    if exact:
        f = Fraction(v)
        return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"
    return float(v)
