"""Shared steps of the claim checks: parameter conditions, LDP group bounds, spot checks.

References
----------
Ekenstedt et al. 2022, Def. 2 (implication) and Def. 3 (combined implications).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from functools import cache
from typing import Unpack

import sympy

from theory.claims.catalog import sizes
from theory.claims.claim import CheckResult, Claim, Status
from theory.definitions import N, eps, k
from theory.papers.derivations import Derivation, extremal_ldp_table, ldp_to_closeness
from theory.papers.sample_tables import SampleOptions, sample_tables
from theory.tables import levels
from theory.tables.probability_table import ProbabilityTable
from theory.tables.witnesses import witness

__all__ = [
    "result",
    "holds",
    "ldp_group_derivation",
    "check_ldp_group_bound",
    "spot_check",
    "tested",
    "confirmed",
    "identity",
    "le",
    "exceeds",
    "ratio_value",
    "check_witness",
]

_T = sympy.exp(eps)


def result(
    status: Status, checked_by: Iterable[str], detail: str, counterexample: object | None = None
) -> CheckResult:
    """A :class:`CheckResult` (tuple-ises ``checked_by``)."""
    return CheckResult(status, counterexample, tuple(checked_by), detail)


def holds(conditions: Iterable[sympy.Basic], values: Mapping[sympy.Symbol, object]) -> bool:
    """True when every condition evaluates to true at ``values`` (undecided counts as false)."""
    return all(sympy.sympify(c).subs(values) is sympy.true for c in conditions)


@cache
def ldp_group_derivation() -> Derivation:
    """:func:`theory.papers.derivations.ldp_to_closeness`, derived once per process."""
    return ldp_to_closeness()


def ratio_value(level: object) -> sympy.Expr:
    """An exact level from :mod:`theory.tables.levels` as a sympy number (a Fraction becomes the same Rational; ``oo`` stays ``oo``)."""
    return sympy.sympify(level)


def le(a: object, b: object) -> bool:
    """``a <= b`` for exact levels (``oo`` allowed on either side)."""
    return bool(sympy.Le(ratio_value(a), ratio_value(b)))


def exceeds(measured: object, bound: sympy.Expr) -> bool:
    """``measured > bound`` decided exactly (``oo`` exceeds every finite bound)."""
    relation = sympy.Gt(ratio_value(measured), bound)
    if relation not in (sympy.true, sympy.false):
        raise ArithmeticError(f"cannot decide {relation} exactly")
    return bool(relation)


def _group_table(records: int, size: int, ratio: Fraction, class_based: bool) -> ProbabilityTable:
    groups = [range(size), range(size, records)] if class_based else None
    return extremal_ldp_table(records, size, ratio, groups)


def _measure(conclusion: str, table: ProbabilityTable, size: int) -> object:
    return levels.level(conclusion, table, size if conclusion in levels.SIZED_DEFINITIONS else None)


def check_ldp_group_bound(claim: Claim) -> CheckResult:
    """Check an ``ε-LDP ⇒ t`` bound for a group (a k-subset or the smallest class).

    The derived tight form (:func:`theory.papers.derivations.ldp_to_closeness`) is compared with
    the printed one by ``sympy.cancel``; the extremal family is measured exactly at N = 6
    and T = 2 to confirm it attains the derived form; when the printed form differs, the
    smallest admissible (N, k) where it is exceeded gives the counterexample table.
    """
    derivation = ldp_group_derivation()
    conclusion = claim.definitions[1]
    size = sizes(claim.id)[1]
    if size is None:
        raise ValueError(f"{claim.id}: expected a registered size of {conclusion}, found none")
    derived = derivation.result.subs(k, size)
    class_based = conclusion != "kt_closeness"
    ratio = Fraction(2)
    steps = ["sympy: " + "; ".join(derivation.steps)]
    size_at_6 = int(size) if size.is_number else 2
    attained = _measure(conclusion, _group_table(6, size_at_6, ratio, class_based), size_at_6)
    expected = derived.subs({N: 6, k: size_at_6, eps: sympy.log(2)})
    if sympy.simplify(ratio_value(attained) - expected) != 0:
        raise ArithmeticError(f"{claim.id}: extremal table measures {attained}, derivation gives {expected}")
    steps.append(f"exact levels: the extremal table (N=6, k={size_at_6}, T=2) attains {expected}")
    printed = claim.printed.rhs
    if printed.atoms(sympy.core.function.AppliedUndef):
        return result("proven", steps, f"exists: f = {derived} (tight)")
    if sympy.cancel(printed - derived) == 0:
        return result("proven", steps, f"printed f = {derived} is the tight bound")
    for records in range(2, 9):
        for group in range(1, records):
            values = {N: records, k: group}
            if size.is_number and group != size or not holds(claim.conditions, values):
                continue
            bound = printed.subs(values).subs(eps, sympy.log(2))
            if not exceeds(bound, sympy.Integer(1)):
                continue  # below every level: a degenerate counterexample; look for one with t > 1
            table = _group_table(records, int(size.subs(k, group)), ratio, class_based)
            measured = _measure(conclusion, table, int(size.subs(k, group)))
            if levels.ldp_ratio(table) == ratio and exceeds(measured, bound):
                steps.append(f"exact levels: counterexample N={records}, k={group}, e^ε=2: level {measured} > printed {bound}")
                if claim.corrected is not None and sympy.cancel(claim.corrected.rhs - derived) == 0:
                    return result("corrected", steps, f"printed f is exceeded; corrected to the tight {derived}", table)
                return result("refuted", steps, f"printed f is exceeded; the tight bound is {derived}", table)
    return result("unknown", steps, f"printed f differs from the tight {derived} but no counterexample for N <= 8")


def spot_check(
    predicate: Callable[[ProbabilityTable], bool], description: str, **sample: Unpack[SampleOptions]
) -> tuple[str, ProbabilityTable | None]:
    """Evaluate ``predicate`` exactly on the seeded sample; the first table where it fails."""
    tables = list(sample_tables(**sample))
    for table in tables:
        if not predicate(table):
            return f"exact levels: {description} FAILS on a sample table", table
    return f"exact levels: {description} on {len(tables)} seeded tables", None


def tested(checked_by: Iterable[str], detail: str, count: int, space: str) -> CheckResult:
    """``tested``: an argument confirmed on ``count`` seeded releases or tables drawn from ``space``, none
    beating it; the detail says so first (``tested on 25 releases (...): ...``)."""
    return result("tested", checked_by, f"tested on {count} {space}: {detail}")


def _space(sample: SampleOptions) -> str:
    """The space :func:`theory.papers.sample_tables.sample_tables` draws from, in words."""
    low, high, buckets = max(sample.get("min_n", 2), 2), sample.get("max_n", 6), sample.get("max_p", 3)
    classes = "one class" if sample.get("classes", True) is False else "two classes or more"
    return (f"seeded probability tables ({low}-{high} records, 2-{buckets} buckets, {classes}"
            f"{', zeros' if sample.get('zeros', True) else ''}{', constant classes' if sample.get('constant_classes') else ''})")


def confirmed(
    line: str, argument: str, predicate: Callable[[ProbabilityTable], bool], *, derived: bool = False,
    **sample: Unpack[SampleOptions]
) -> CheckResult:
    """``argument`` confirmed when ``predicate`` holds on the seeded sample, else ``refuted``: ``proven`` when the
    caller checked the argument's derivation with sympy (``derived``), else ``tested`` (:func:`tested`)."""
    spot, failure = spot_check(predicate, line, **sample)
    if failure is not None:
        return result("refuted", ["sympy/definition argument", spot], f"{line}: a sample table violates it", failure)
    if derived:
        return result("proven", [argument, spot], line)
    return tested([argument, spot], line, len(list(sample_tables(**sample))), _space(sample))


def identity(difference: sympy.Expr, what: str) -> CheckResult | None:
    """``None`` when ``difference`` simplifies to 0, else an ``unknown`` result naming ``what``."""
    if sympy.simplify(difference) == 0:
        return None
    return result("unknown", ["sympy"], f"could not verify {what}: {difference} != 0")


def check_witness(claim: Claim, params: Mapping[str, int], bounds: Iterable[int] = (3, 40)) -> CheckResult:
    """Check a non-implication with the witness family of :mod:`theory.tables.witnesses`.

    For each bound value :func:`theory.tables.witnesses.witness` builds the family member and
    re-measures it exactly (it raises unless the premise level is finite and the conclusion
    level exceeds the bound, ε bounds compared as e^bound); here the premise level must
    moreover be the same for every bound (it does not depend on the bound).
    """
    premise_id, conclusion_id = claim.definitions
    premise_levels = set()
    seen = []
    for bound in bounds:
        found = witness(premise_id, conclusion_id, bound, params=dict(params))
        premise_levels.add(ratio_value(found.premise_level))
        seen.append(f"bound {bound}: conclusion level {ratio_value(found.conclusion_level)}")
    if len(premise_levels) != 1:
        return result("unknown", ["witness"], f"premise level depends on the bound: {sorted(premise_levels, key=str)}")
    return result(
        "proven",
        [f"witness family ({found.family}) re-measured with exact levels"],
        f"premise level fixed at {premise_levels.pop()} while " + "; ".join(seen),
    )
