"""Typed, immutable results of a measurement.

A :class:`Measurement` carries the *optimal level* of one privacy model on one
attribute (Definition 1 of Ekenstedt et al., Ekenstedt et al. 2022: the strongest level the release
satisfies), its exact form, and the :class:`Witness` that attains it. Levels are
exact: a :class:`Level` holds a sympy number (a ``Rational`` for EMD, ratios and
frequencies; a closed form such as ``log(9/4)`` for δ-disclosure), ``oo`` when the
level is infinite, or nothing when it is undefined, always with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal

import numpy as np
import pandas as pd
import sympy

from verifier.display import exact_text
from verifier.registry import Comparison

__all__ = ["Level", "Witness", "Estimate", "Measurement", "Comparison", "jsonable"]



def _sympify(value: int | Fraction | sympy.Expr) -> sympy.Expr:
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, (int, np.integer)):
        return sympy.Integer(int(value))
    if isinstance(value, sympy.Expr):
        return value
    raise TypeError(f"a level must be exact (int, Fraction or sympy expression), got {value!r}")


@dataclass(frozen=True)
class Level:
    """An exact privacy level.

    Parameters
    ----------
    value
        The exact level: a sympy expression (``Rational``, ``Integer``, a closed form
        such as ``log(9/4)``), ``sympy.oo`` when infinite, or ``None`` when undefined.
    reason
        Why the level is infinite or undefined (``None`` otherwise).
    """

    value: sympy.Expr | None
    reason: str | None = None

    @classmethod
    def of(cls, value: int | Fraction | sympy.Expr) -> Level:
        """Wrap an exact finite value (``int``, ``Fraction`` or sympy expression)."""
        return cls(_sympify(value))

    @classmethod
    def infinite(cls, reason: str) -> Level:
        """An infinite level (for example a class that lacks a bucket)."""
        return cls(sympy.oo, reason)

    @classmethod
    def undefined(cls, reason: str) -> Level:
        """A level that does not exist (for example an empty table)."""
        return cls(None, reason)

    @property
    def is_finite(self) -> bool:
        return self.value is not None and self.value != sympy.oo

    @property
    def exact(self) -> str:
        """The exact form as text: ``"3"``, ``"3/8"``, ``"inf"``, ``"undefined"``, ``"ln(9/4)"``."""
        return exact_text(self.value)

    @property
    def status(self) -> Literal["finite", "infinite", "undefined"]:
        """``finite``, ``infinite`` or ``undefined``: never conflated (the JSON's ``status``)."""
        if self.value is None:
            return "undefined"
        return "infinite" if self.value == sympy.oo else "finite"

    @property
    def json_value(self) -> int | float | str:
        """The level in JSON: an integer when it is one, a float otherwise, ``"inf"``/``"undefined"`` as strings."""
        if self.value is None:
            return "undefined"
        if self.value == sympy.oo:
            return "inf"
        if self.value.is_Integer:
            return int(self.value)
        return float(self.value.evalf(17))

    @property
    def number(self) -> float | None:
        """The level as a float for display and JSON, ``None`` when infinite or undefined."""
        if not self.is_finite:
            return None
        assert self.value is not None
        return float(self.value.evalf(17))

    def satisfies(self, threshold: int | Fraction | sympy.Expr, comparison: Comparison) -> bool:
        """Decide ``level (comparison) threshold`` exactly.

        Rationals compare as rationals; closed forms (logarithms, roots) are decided by
        sympy's certified numerical evaluation, which refuses (raises) rather than
        guess when the two sides cannot be told apart. An undefined level never passes.
        """
        if self.value is None:
            return False
        bound = _sympify(threshold)
        if comparison == "at_least":
            relation = sympy.Ge(self.value, bound)
        elif comparison == "at_most":
            relation = sympy.Le(self.value, bound)
        elif comparison == "below":
            relation = sympy.Lt(self.value, bound)
        else:
            raise ValueError(f"comparison must be at_least, at_most or below, got {comparison!r}")
        if relation in (sympy.true, sympy.false):
            return bool(relation)
        raise ArithmeticError(f"cannot decide {relation} exactly")


@dataclass(frozen=True)
class Witness:
    """What attains a level: the class, the value or bucket, and the numbers.

    Parameters
    ----------
    qi
        The quasi-identifier values of the equivalence class (``None`` for missing).
    size
        The class size ``|E|``.
    value
        The offending sensitive value, bucket or combination (``None`` when the level
        does not single one out).
    numbers
        The numbers behind the level, e.g. ``{"class_count": 2, "total_count": 9}``.
    """

    qi: Mapping[str, Any] | None = None
    size: int | None = None
    value: Any = None
    numbers: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "qi": jsonable(self.qi),
            "size": jsonable(self.size),
            "value": jsonable(self.value),
            "numbers": jsonable(self.numbers),
        }


@dataclass(frozen=True)
class Estimate:
    """How a level that is a statistical estimate was computed (population uniqueness, DIS-SUDA).

    The estimate is computed in float64 (a closed form, or an iterative solver); the
    measurement then holds exact bounds ``value ± tolerance`` (its ``lower`` and ``level``),
    so a requirement on it passes only when the upper bound meets the threshold, fails
    only when the lower bound misses it, and is otherwise ``undecided``.

    Parameters
    ----------
    value
        The estimate as computed (float64).
    tolerance
        The absolute tolerance stated for it: the solver's stopping rule and the
        closed forms' rounding error lie well within it.
    method
        How it was computed (``newton``, ``closed form``, ...).
    converged
        Whether the solver met its stopping rule (always ``True`` for a closed form).
    iterations
        The solver's iterations (``None`` for a closed form).
    """

    value: float
    tolerance: Fraction
    method: str
    converged: bool = True
    iterations: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "tolerance": jsonable(self.tolerance), "method": self.method,
                "converged": self.converged, "iterations": self.iterations}


@dataclass(frozen=True)
class Measurement:
    """The optimal level of one model on one attribute, with its witness.

    Parameters
    ----------
    model
        The model id (``k_anonymity``, ``t_closeness``, ...), shared with ``theory``.
    attribute
        The sensitive attribute, a tuple for a joint attribute, ``None`` for
        quasi-identifier-only models.
    level
        The exact optimal level.
    witness
        What attains the level.
    comparison
        How a threshold on this model is decided (see :data:`Comparison`).
    distance
        The ground distance for ``t_closeness`` (``equal``, ``ordered``, ``hierarchical``).
    parameters
        Fixed parameters of the measurement (e.g. ``{"l": 2}``).
    notes
        Facts a reader needs (e.g. "natural logarithm"; rows excluded).
    lower
        ``None`` when ``level`` is the exact level. Otherwise the level is not known
        exactly (a mechanism with transcendental probabilities, or a level implied by the
        theory): the true level lies between ``lower`` and ``level``, both exact bounds.
    estimate
        Set when the level is a statistical estimate computed in floating point
        (:class:`Estimate`): ``lower`` and ``level`` are then the estimate less and plus
        its tolerance, and the JSON's ``status`` is ``estimate``.
    """

    model: str
    attribute: str | tuple[str, ...] | None
    level: Level
    witness: Witness | None
    comparison: Comparison
    distance: str | None = None
    parameters: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    lower: Level | None = None
    estimate: Estimate | None = None

    def to_json(self) -> dict[str, Any]:
        attribute: Any = list(self.attribute) if isinstance(self.attribute, tuple) else self.attribute
        out: dict[str, Any] = {
            "model": self.model,
            "attribute": attribute,
            "distance": self.distance,
            "parameters": jsonable(self.parameters),
            "level": self.level.json_value,
            "exact": self.level.exact,
            "status": "estimate" if self.estimate is not None and self.level.is_finite else self.level.status,
            "direction": {"stronger": "larger" if self.comparison == "at_least" else "smaller",
                          "strict": self.comparison == "below"},
            "witness": None if self.witness is None else self.witness.to_json(),
            "notes": list(self.notes),
        }
        if self.level.reason is not None:
            out["reason"] = self.level.reason
        if self.lower is not None:
            out["bounds"] = {"exact": False, "lower": self.lower.exact, "upper": self.level.exact}
        if self.estimate is not None:
            out["estimate"] = self.estimate.to_json()
        return out


def jsonable(value: Any) -> Any:
    """Convert numpy, pandas, Fraction and sympy values to plain JSON values.

    Missing values (``None``, NaN, ``pd.NA``, ``NaT``) become ``None``; exact
    rationals become ``"p/q"`` strings; tuples become lists.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, Fraction):
        return str(value) if value.denominator != 1 else value.numerator
    if isinstance(value, sympy.Basic):
        return int(value) if value.is_Integer else Level(value).exact
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else str(value)
    if isinstance(value, (float, np.floating)):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return None if math.isnan(value) else float(value)
    if value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    return str(value)
