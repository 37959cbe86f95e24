"""Plan a randomized-response release of one attribute from its targets: Ekenstedt et al. 2022, Sec. V.C-D on data.

:func:`theory.mechanism_selection.planner.plan` compares the three mechanisms of Sec. V.C on a
frequency vector. :func:`plan_release` applies it to the counts of an attribute in an original
table and turns the chosen mechanism into the exact matrix a release is sampled from
(:class:`verifier.randomized.mechanism.Mechanism`, written as the CSV that ``anonymize rr --mechanism`` and
a policy's ``[mechanism]`` read).

The targets are a multiplicative t-closeness level ``t0`` for every subset of at least ``k``
records ((k, t)-closeness, Ekenstedt et al. 2022, Def. 7, which implies Def. 4 for every
partition whose smallest class has ``k`` records or more) and an ε-LDP level ``ε0`` (Def. 6).

Two things are decided here beyond the planner:

* **A rational e^ε.** A mechanism file holds rationals, and ``p_LDP = (e^ε - 1)/(e^ε - 1 + n)``
  is rational only when ``e^ε`` is. When ``e^ε0`` is irrational (ε0 a rational ≠ 0), the
  mechanisms are built for the largest multiple of ``10^-6`` below it, decided by sympy's
  certified evaluation; the release then meets ``ε0`` with a margin below ``10^-6 e^-ε0``.
* **Refusal.** Every (t0, ε0) is met by a mechanism that releases noise independent of the
  data (keep-probability 0), which is no release at all. When that is the only mechanism that
  meets the targets, :func:`plan_release` raises :class:`InfeasibleTargets` naming the bound
  that forces it: ``t0 = 1`` (Thm. 3 corrected gives ``e^ε_t = 1`` and eq. (2) corrected
  ``p_t = 0``) or ``ε0 = 0`` (eq. (1) corrected gives ``p_LDP = 0``).

References
----------
Ekenstedt et al. 2022, Sec. V.C-D, Defs. 4, 6, 7, Thm. 3 (corrected), eqs. (1), (2), (4).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from theory.mechanism_selection.matrices import Exact, exact
from theory.mechanism_selection.planner import Choice, Plan, plan
from verifier.display import exact_text, readable
from verifier.errors import PolicyError
from verifier.policy import Requirement
from verifier.randomized.mechanism import Mechanism

__all__ = ["Targets", "ReleasePlan", "InfeasibleTargets", "plan_release", "rational_ratio_below", "targets_of",
           "RATIO_GRID", "MAX_VALUES"]

RATIO_GRID = 10**6
"""An irrational ``e^ε0`` is replaced by the largest multiple of ``1/RATIO_GRID`` below it."""
MAX_VALUES = 100
"""The most values a plan is made for: each mechanism is an exact n×n sympy matrix (40 values take about 10 s)."""


class InfeasibleTargets(PolicyError):
    """No mechanism of Ekenstedt et al. 2022, Sec. V.C meets the targets with a release that depends on the data."""


@dataclass(frozen=True)
class Targets:
    """What a release must guarantee.

    Attributes
    ----------
    t0
        Multiplicative t-closeness for every subset of at least ``k`` records (Def. 7), ``>= 1``.
    eps0
        ε-LDP (Def. 6), ``>= 0``: a ``Rational``, ``log(Rational)`` or ``oo`` (no requirement).
    k
        The smallest subset (or class) size ``t0`` is required for, ``1 <= k < N``.
    """

    t0: sympy.Expr
    eps0: sympy.Expr
    k: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"t0": exact_text(self.t0), "eps0": exact_text(self.eps0), "k": self.k}


@dataclass(frozen=True)
class ReleasePlan:
    """The three mechanisms for one attribute of an original table, and the chosen one.

    Attributes
    ----------
    attribute
        The attribute's name (the column to randomize).
    values, counts
        The attribute's values present in the original (sorted as text) and their counts.
    targets
        What the release must guarantee.
    exp_epsilon_bound
        The ``e^ε`` the mechanisms are built not to exceed: ``e^ε0`` when it is rational, the
        largest multiple of ``10^-6`` below it otherwise, ``oo`` with no ε requirement.
    plan
        The planner's outcome on the frequencies ``counts / N`` (every choice with its exact
        parameters, achieved ``e^ε`` and ``t`` bound and utility, eq. (4)).
    """

    attribute: str
    values: tuple[Hashable, ...]
    counts: tuple[int, ...]
    targets: Targets
    exp_epsilon_bound: sympy.Expr
    plan: Plan

    @property
    def records(self) -> int:
        """``N``: the number of records."""
        return sum(self.counts)

    @property
    def rounded(self) -> bool:
        """Whether ``e^ε0`` is irrational and the mechanisms are built for a rational below it."""
        return self.exp_epsilon_bound != sympy.oo and self.exp_epsilon_bound != sympy.exp(self.targets.eps0)

    @property
    def chosen(self) -> Choice:
        """The most useful choice that meets both targets (:func:`plan_release` guarantees one)."""
        assert self.plan.best is not None
        return self.plan.best

    def mechanism(self, choice: Choice | None = None) -> Mechanism:
        """The exact matrix of ``choice`` (default: the chosen one) over the attribute's values."""
        picked = self.chosen if choice is None else choice
        rows = tuple(tuple(_fraction(entry) for entry in picked.matrix.row(i)) for i in range(picked.matrix.rows))
        parameters = ", ".join(f"{name}={exact_text(value)}" for name, value in (("p_t", picked.p_t), ("p_LDP", picked.p_ldp))
                               if value is not None)
        return Mechanism(self.values, self.values, rows, f"planned {picked.name} randomized response ({parameters})")

    def to_json(self) -> dict[str, Any]:
        """The plan as JSON: exact values as text (``exact_text``) beside their decimals."""
        chosen = self.chosen
        return {
            "attribute": self.attribute,
            "N": self.records,
            "values": [{"value": str(v), "count": c} for v, c in zip(self.values, self.counts)],
            "targets": self.targets.to_json(),
            "exp_epsilon_bound": _number(self.exp_epsilon_bound),
            "exp_epsilon_t": _number(self.plan.exp_epsilon_t),
            "epsilon_t": _number(self.plan.epsilon_t),
            "mechanisms": [
                {
                    "name": c.name,
                    "p_t": _number(c.p_t),
                    "p_ldp": _number(c.p_ldp),
                    "exp_epsilon": _number(c.exp_epsilon),
                    "epsilon": _number(c.epsilon),
                    "t": _number(c.t),
                    "meets_t": c.meets_t,
                    "meets_epsilon": c.meets_epsilon,
                    "meets": c.meets,
                    "utility": _number(c.utility),
                }
                for c in self.plan.choices
            ],
            "chosen": chosen.name,
        }


def _number(value: sympy.Expr | None) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"exact": exact_text(value), "decimal": None if value == sympy.oo else float(value.evalf(17))}


def _fraction(entry: sympy.Expr) -> Fraction:
    if not entry.is_Rational:
        raise ArithmeticError(f"a planned mechanism entry is not rational: {entry}")
    return Fraction(int(entry.p), int(entry.q))


def rational_ratio_below(eps0: sympy.Expr) -> sympy.Expr:
    """The ``e^ε`` a mechanism file can hold for a target ε0: ``e^ε0`` itself when rational.

    Otherwise ``floor(e^ε0 · 10^6) / 10^6`` (sympy's ``floor`` evaluates with certified
    precision; ``e^ε0`` is irrational there, so never a multiple of ``10^-6``).

    >>> rational_ratio_below(sympy.log(5)), rational_ratio_below(sympy.Rational(1, 2))
    (5, 1648721/1000000)
    """
    if eps0 == sympy.oo:
        return sympy.oo
    ratio = sympy.simplify(sympy.exp(eps0))
    if ratio.is_Rational:
        return ratio
    below = sympy.Rational(sympy.floor(ratio * RATIO_GRID), RATIO_GRID)
    if not bool(below < ratio):
        raise ArithmeticError(f"cannot place e^{exact_text(eps0)} above {below}")
    return below


def _targets(t0: Exact, eps0: Exact, k: int, records: int) -> Targets:
    target_t = exact(t0, "t0")
    target_eps = sympy.oo if eps0 is sympy.oo or eps0 == sympy.oo else exact(eps0, "eps0")
    if not target_t.is_finite or bool(target_t < 1):
        raise PolicyError(f"t0 must be a finite number >= 1 (multiplicative t-closeness), found {exact_text(target_t)}")
    if bool(target_eps < 0):
        raise PolicyError(f"eps0 must be >= 0 (ε-LDP), found {exact_text(target_eps)}")
    if not 1 <= k < records:
        raise PolicyError(f"k must satisfy 1 <= k < N = {records} records (Ekenstedt et al. 2022, Def. 7), found k = {k}")
    return Targets(target_t, target_eps, k)


def _refusal(result: Plan, targets: Targets, ratio: sympy.Expr) -> str | None:
    """Why the targets admit only a release independent of the data, or ``None``."""
    if len(result.frequencies) < 2:
        return None
    best = result.best
    if best is not None and any(best.matrix.row(i) != best.matrix.row(0) for i in range(1, best.matrix.rows)):
        return None
    reasons = []
    if targets.t0 == 1:
        reasons.append(f"t0 = 1: ε-LDP implies it only at e^ε ≤ (t0·N − k)/(N − k) = {exact_text(result.exp_epsilon_t)} "
                       "(Ekenstedt et al. 2022, Thm. 3 corrected), and the t-closeness mechanism (Fig. 5) keeps "
                       "a value with p_t ≤ 1 − 1/t0 = 0 (eq. (2) corrected)")
    if ratio == 1:
        reasons.append(f"eps0 = {exact_text(targets.eps0)}: the ε-LDP mechanism (Fig. 4) keeps a value with "
                       "p_LDP = (e^ε − 1)/(e^ε − 1 + n) = 0 (eq. (1) corrected), and so does every mechanism it ends")
    if not reasons:
        reasons.append("no mechanism of Ekenstedt et al. 2022, Sec. V.C meets both targets: "
                       + "; ".join(f"{c.name}: t ≤ {readable(c.t)}, e^ε = {readable(c.exp_epsilon)}" for c in result.choices))
    return ("no release that depends on the data meets these targets; the only mechanisms that do release "
            "noise independent of the true values (utility max p_y, a guess of the commonest value): "
            + "; ".join(reasons))


def plan_release(
    counts: Mapping[Hashable, int], t0: Exact, eps0: Exact, k: int = 1, *, attribute: str = "",
) -> ReleasePlan:
    """Choose the randomized-response mechanism for an attribute with these counts (Ekenstedt et al. 2022, Sec. V.C).

    Parameters
    ----------
    counts
        The number of records holding each value of the attribute in the original table
        (values with count 0 are dropped).
    t0
        Required (k, t)-closeness level, ``>= 1`` (Def. 7; it implies Def. 4 for classes of ``>= k``).
    eps0
        Required ε-LDP level (``Rational``, ``log(Rational)``, or ``sympy.oo`` for none).
    k
        The subset size ``t0`` is required for; 1 (every subset) by default.
    attribute
        The attribute's name, for messages and the JSON form.

    Returns
    -------
    ReleasePlan
        The three mechanisms with their exact parameters, achieved levels and utilities, and
        the chosen one (the most useful that meets both targets).

    Raises
    ------
    PolicyError
        Bad targets (``t0 < 1``, ``eps0 < 0``, ``k`` outside ``[1, N)``) or no records.
    InfeasibleTargets
        Only a release independent of the data meets the targets; the message names the bound.

    Examples
    --------
    Ekenstedt et al. 2022, Sec. V.D's setting: ``t0 = 2``, ``N = 100``, ``k = 5``, two values of
    50 records each, ``ε0 = ε_t = ln(39/19)`` (the paper rounds it to 0.7):

    >>> result = plan_release({"a1": 50, "a2": 50}, 2, sympy.log(sympy.Rational(39, 19)), 5)
    >>> result.chosen.name, result.chosen.p_ldp, result.chosen.utility
    ('ldp', 10/29, 39/58)
    """
    present = sorted(((value, int(count)) for value, count in counts.items() if count), key=lambda item: str(item[0]))
    if any(count < 0 for _, count in present):
        raise PolicyError(f"{attribute or 'the attribute'}: counts must be >= 0, found {dict(present)}")
    records = sum(count for _, count in present)
    if len(present) > MAX_VALUES:
        raise PolicyError(f"{attribute or 'the attribute'}: {len(present):,} distinct values; a plan compares exact "
                          f"{len(present)}×{len(present)} mechanisms and is made for at most {MAX_VALUES} values: "
                          "group the values into fewer categories first")
    if records < 2:
        raise PolicyError(f"{attribute or 'the attribute'}: a plan needs at least 2 records, found {records}")
    targets = _targets(t0, eps0, k, records)
    ratio = rational_ratio_below(targets.eps0)
    frequencies = [sympy.Rational(count, records) for _, count in present]
    result = plan(targets.t0, sympy.oo if ratio == sympy.oo else sympy.log(ratio), records, k, frequencies)
    refusal = _refusal(result, targets, ratio)
    if refusal is not None:
        raise InfeasibleTargets(f"{attribute or 'the attribute'}: {refusal}")
    return ReleasePlan(attribute, tuple(v for v, _ in present), tuple(c for _, c in present), targets, ratio, result)


def targets_of(requirements: Sequence[Requirement], attribute: str, smallest_class: Callable[[], int],
               source: str = "the policy") -> tuple[sympy.Expr, sympy.Expr, int]:
    """``(t0, eps0, k)`` read from a policy's requirements on ``attribute``.

    ``ldp`` gives ``eps0`` (none: ``oo``); ``kt_closeness`` gives ``t0`` and its ``k``, or
    ``stochastic_t_closeness`` (multiplicative distance) gives ``t0`` with ``k`` the smallest
    class, ``smallest_class()`` (randomized response leaves the quasi-identifiers, hence the
    classes, as they are). Exactly one t requirement and at most one ``ldp`` are accepted.

    Raises
    ------
    PolicyError
        No t requirement on ``attribute``, or several of one kind (the message names them).
    """
    mine = [item for item in requirements if item.attribute == attribute]
    epsilons = [item for item in mine if item.model == "ldp"]
    closeness = [item for item in mine if item.model == "kt_closeness"
                 or (item.model == "stochastic_t_closeness" and item.distance in (None, "multiplicative"))]
    if len(epsilons) > 1 or len(closeness) > 1:
        several = epsilons if len(epsilons) > 1 else closeness
        raise PolicyError(f"{source}: a plan takes one ldp and one t requirement on {attribute!r}, "
                          f"found {', '.join(item.key for item in several)}")
    if not closeness:
        raise PolicyError(f"{source}: expected a kt_closeness or stochastic_t_closeness requirement on {attribute!r} "
                          f"(the t0 to plan for), found {[item.key for item in mine] or 'none'}")
    (t_item,) = closeness
    k = t_item.k if t_item.model == "kt_closeness" and t_item.k is not None else smallest_class()
    eps0 = sympy.sympify(epsilons[0].threshold) if epsilons else sympy.oo
    return sympy.sympify(t_item.threshold), eps0, int(k)
