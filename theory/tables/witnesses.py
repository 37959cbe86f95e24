"""Witness families for the non-implications of Ekenstedt et al. 2022: Tables III-VII, generalised.

A non-implication A ⇏ B (Ekenstedt et al. 2022, Def. 2) says that no function f of A's level (and N, k)
bounds B's level. A *witness family* proves it: tables whose A level stays fixed while
B's level exceeds any requested bound. :func:`witness` returns the member of the family
for one bound, and checks it exactly (:func:`verify_witness`, with :mod:`theory.tables.levels`).

Public API (stable; ``privcert theory witness A B --bound X`` calls these)::

    witness(premise, conclusion, bound, *, params=None) -> WitnessResult
        (.table, .premise_level, .conclusion_level, .bound_ratio, .exceeds, .family, .detail)
    verify_witness(premise, conclusion, bound, table, params=None) -> WitnessResult
    NoWitnessError (a ValueError; subclasses ImplicationHolds, InadmissibleParameters), SUPPORTED_PAIRS

``bound`` is in the conclusion's own level (t for closeness, ε for the DP family, as in
:mod:`theory.definitions`); ``params`` gives ``N`` and the sizes (see :mod:`theory.tables.sizes`:
``k``, ``k_t``, ``k_DP``, ``k_premise``, ``k_conclusion``).

Families (R = the smallest integer ≥ the bound in ratio space, so every family reaches a
ratio ≥ R + 1 > bound; μ is fixed, only σ or α moves):

``carrier_classes`` (Tables III and V; Thm. 1, Lemma 2(3), Thm. 5)
    two classes of sizes k and N - k; in a class of size s ≥ 2 one "carrier" record has
    ``sμ - (s-1)σ`` and s - 1 records have σ (a class of size 1 has μ); μ = 1/N,
    σ = μ/(R+1). Every class averages μ, so multiplicative t = 1 for every σ, while
    ε-LDP ≥ μ/σ, (m, t)-closeness ≥ μ/σ for m ≤ N - 2 and (k_DP, ε)-DP ≥ μ/σ for
    k_DP ≥ 2 (remove both carriers). Table III's caption ("k-1 records with σ/(k-1), one
    with kμ - (k-1)σ", Ekenstedt et al. 2022, App. A) does not average μ for k > 2; the family uses σ each.
``zero_block`` (Table IV; Lemma 2(2), Lemma 3(2), Thm. 4(2))
    k - 1 records with probability 0 and N - k + 1 with μ = 1/2: (k, t)-closeness is finite
    (its exact t is ``k(N-k+1)/N`` in bucket a_1, not the ``N - k + 1`` printed), every
    smaller subset size sees an all-zero subset: level ∞.
``split_pair`` (Table VI; Thm. 3(2))
    records μ - σ, σ and N - 2 records μ = 1/2, N ≥ k + 2: the extreme k-subsets always
    pair μ - σ with σ, so (k, t)-closeness does not depend on σ, while ε-LDP = μ/σ. For
    N = k + 1 the σ record is alone in a removal and moves the level, so ``zero_block(N, 2)``
    (one zero record: ε-LDP infinite, (k, t)-closeness finite for k ≥ 2) is used instead.
``table_vii`` (Table VII; Lemma 3(4))
    k - 1 records μ = 1/2, one μ - α, one α, N - k - 1 zeros (N ≥ k + 2): ε-DP does not
    depend on α, (k, ε)-DP ≥ (N-k)kμ/(Nα).

References
----------
Ekenstedt et al. 2022, Appendix A-G, Tables III-VII.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

import sympy

from theory.tables.levels import SIZED_DEFINITIONS, Ratio, classwise_k_eps_dp_ratio, is_ratio_definition, level
from theory.tables.probability_table import ProbabilityTable
from theory.tables.sizes import size_for

__all__ = [
    "NoWitnessError",
    "WitnessSizeError",
    "MAX_N",
    "ImplicationHolds",
    "InadmissibleParameters",
    "WitnessResult",
    "witness",
    "verify_witness",
    "target_ratio",
    "SUPPORTED_PAIRS",
    "carrier_classes",
    "zero_block",
    "split_pair",
    "table_vii",
]


class NoWitnessError(ValueError):
    """No witness family for this pair and these parameters; the message says why."""


class WitnessSizeError(NoWitnessError):
    """``N`` outside the tables a witness can be: it is built and re-measured exactly, record by record."""


MAX_N = 10_000
"""The most records a witness table may have."""


class ImplicationHolds(NoWitnessError):
    """No witness can exist: under these parameters the premise implies the conclusion (cited)."""


class InadmissibleParameters(NoWitnessError):
    """The parameters admit no table of the definitions (e.g. two classes of >= k records need N >= 2k)."""


def _implied(reason: str) -> ImplicationHolds:
    return ImplicationHolds(f"no witness: {reason}")


@dataclass(frozen=True)
class WitnessResult:
    """A witness table and its exact re-measurement.

    Parameters
    ----------
    table
        The witness.
    premise_level, conclusion_level
        The optimal levels in ratio space (t, or e^ε; ``sympy.oo`` when infinite); the
        conclusion is measured inside each class when ``params["classwise"]`` is set.
    bound_ratio
        The requested bound in ratio space (t, or e^bound), exact sympy.
    exceeds
        The premise level is finite and ``conclusion_level > bound_ratio``.
    family
        Which family built it (e.g. ``"carrier_classes (Ekenstedt et al. 2022, Tables III/V generalised)"``).
    detail
        One line with the numbers.
    """

    table: ProbabilityTable
    premise_level: Ratio | int
    conclusion_level: Ratio | int
    bound_ratio: sympy.Expr
    exceeds: bool
    family: str
    detail: str


def target_ratio(conclusion: str, bound: sympy.Basic | Fraction | int | str) -> Fraction:
    """R: the smallest integer ≥ 1 at least the bound in ratio space (``e^bound`` for ε levels)."""
    value = sympy.sympify(bound)
    if is_ratio_definition(conclusion):
        value = sympy.exp(value)
    if not (value.is_real and value.is_finite):
        raise ValueError(f"bound {bound}: expected a finite real level of {conclusion!r}, found {value}")
    if value.is_Rational:
        return Fraction(max(1, int(sympy.ceiling(value))))
    # an irrational bound (e^ε): its ceiling from enough digits to hold its integer part and more
    digits = int(sympy.Float(sympy.log(sympy.Max(value, 1), 10).evalf(30))) + 30
    if digits > 4000:
        raise OverflowError(f"bound {bound}: the witness would need probabilities of {digits - 30:,} digits")
    return Fraction(max(1, int(sympy.ceiling(value.evalf(digits)))))


def _rows(column: list[Fraction]) -> list[list[Fraction]]:
    """Two buckets {a_1}, {a_2}: Pr(a_1) = x, Pr(a_2) = 1 - x (Ekenstedt et al. 2022, Appendix)."""
    return [[x, 1 - x] for x in column]


def carrier_classes(n: int, k: int, ratio: Fraction) -> ProbabilityTable:
    """Tables III/V generalised: classes of sizes k and n - k, each averaging μ = 1/n."""
    if n < 2 * k or n < 3:
        raise InadmissibleParameters(
            f"carrier_classes needs N >= max(2k, 3) (two classes of >= k records, one of size >= 2); found N={n}, k={k}"
        )
    mu = Fraction(1, n)
    sigma = mu / (ratio + 1)
    column: list[Fraction] = []
    for size in (k, n - k):
        column += [mu] if size == 1 else [size * mu - (size - 1) * sigma] + [sigma] * (size - 1)
    return ProbabilityTable.from_rows(_rows(column), [range(k), range(k, n)])


def zero_block(n: int, k: int) -> ProbabilityTable:
    """Table IV generalised: k - 1 zeros and n - k + 1 records with μ = 1/2."""
    if not 2 <= k <= n - 1:
        raise NoWitnessError(f"zero_block needs 2 <= k <= N - 1; found N={n}, k={k}")
    half = Fraction(1, 2)
    return ProbabilityTable.from_rows(_rows([Fraction(0)] * (k - 1) + [half] * (n - k + 1)))


def _require_k_two_below_n(family: str, n: int, k: int, implication_at_1: str) -> None:
    """The guard of the families that need 2 <= k <= N - 2 (k = 1 is ``implication_at_1``)."""
    if k < 2:
        raise _implied(implication_at_1)
    if n < k + 2:
        raise NoWitnessError(f"{family} needs N >= k + 2; found N={n}, k={k}")


def split_pair(n: int, k: int, ratio: Fraction) -> ProbabilityTable:
    """Table VI generalised: μ - σ, σ and n - 2 records μ = 1/2; σ = μ/(R+1)."""
    _require_k_two_below_n("split_pair", n, k, "(1,t)-closeness implies ε-LDP with e^ε = t^2 (Ekenstedt et al. 2022, Theorem 2)")
    mu = Fraction(1, 2)
    sigma = mu / (ratio + 1)
    return ProbabilityTable.from_rows(_rows([mu - sigma, sigma] + [mu] * (n - 2)))


def table_vii(n: int, k: int, ratio: Fraction) -> ProbabilityTable:
    """Table VII generalised: k-1 records μ = 1/2, μ - α, α, n - k - 1 zeros; (k,ε)-DP ≥ R + 1."""
    _require_k_two_below_n("table_vii", n, k, "(1,ε)-DP is ε-DP (Ekenstedt et al. 2022, Lemma 3(3))")
    mu = Fraction(1, 2)
    alpha = min(mu / 2, Fraction(n - k) * k * mu / (n * (ratio + 1)))
    return ProbabilityTable.from_rows(_rows([mu] * (k - 1) + [mu - alpha, alpha] + [Fraction(0)] * (n - k - 1)))


_FAMILY_NAMES = {
    carrier_classes: "carrier_classes (Ekenstedt et al. 2022, Tables III/V generalised)",
    zero_block: "zero_block (Ekenstedt et al. 2022, Table IV generalised)",
    split_pair: "split_pair (Ekenstedt et al. 2022, Table VI generalised)",
    table_vii: "table_vii (Ekenstedt et al. 2022, Table VII generalised)",
}


def _family(
    premise: str, conclusion: str, n: int, kp: int | None, kc: int | None, ratio: Fraction, classwise: bool
) -> tuple[Callable[..., ProbabilityTable], tuple[object, ...]]:
    """The family and its arguments for (premise, conclusion); NoWitnessError when none applies."""
    pair = (premise, conclusion)
    if premise in ("multiplicative_t_closeness", "stochastic_t_closeness") and conclusion in ("ldp", "kt_closeness", "k_eps_dp"):
        if kp is not None and not (kp == n or 2 * kp <= n):
            raise InadmissibleParameters(f"no partition of N={n} records has a smallest class of k={kp} (expected k = N or 2k <= N)")
        if conclusion == "kt_closeness" and _required(kc, conclusion) > n - 2:
            raise _implied(
                f"(N-1,t)-closeness is ε-DP (Thm. 4(1)); {premise} with smallest class k implies it "
                "with e^ε <= max(t(N-1)/k, N/(N-1))"
            )
        if conclusion == "k_eps_dp" and classwise and n - (kp or 1) <= _required(kc, conclusion):
            raise _implied(f"no class can hold more than N - k = {n - (kp or 1)} <= k_DP = {kc} records: (k,ε)-DP "
                           "inside classes is vacuous (level 1 for every table)")
        if conclusion == "k_eps_dp" and not classwise and _required(kc, conclusion) < 2:
            raise _implied(
                "globally, multiplicative t-closeness with smallest class k implies ε-DP with "
                "e^ε <= max(t(N-1)/k, N/(N-1)); Ekenstedt et al. 2022, Thm. 5 measures (k,ε)-DP inside each class "
                "(params classwise=1), where carrier_classes is a witness"
            )
        return carrier_classes, (n, kp or 1, ratio)
    if pair == ("kt_closeness", "ldp"):
        if kp is not None and kp >= 2 and n == kp + 1:
            return zero_block, (n, 2)  # one zero record; (N-1,t)-closeness stays finite
        return split_pair, (n, kp, ratio)
    if pair == ("dp", "k_eps_dp"):
        if kc is not None and kc >= 2 and n == kc + 1:
            return zero_block, (n, n - 1)  # (N-1,t)-closeness is ε-DP (Thm. 4(1)); N-k zeros remain
        return table_vii, (n, kc, ratio)
    if premise in SIZED_DEFINITIONS and conclusion in SIZED_DEFINITIONS:
        return _sized_family(pair, n, _required(kp, premise), _required(kc, conclusion))
    raise NoWitnessError(f"no witness family for {premise} ⇏ {conclusion}; supported pairs: {', '.join(SUPPORTED_PAIRS)}")


def _sized_family(
    pair: tuple[str, str], n: int, kp: int, kc: int
) -> tuple[Callable[..., ProbabilityTable], tuple[object, ...]]:
    """:func:`_family` for two subset-size definitions (Defs. 7-8), both sizes given."""
    if pair == ("kt_closeness", "kt_closeness"):
        if kc >= kp:
            raise _implied(f"({kp},t)-closeness implies ({kc},t)-closeness for k_1 >= k_0 (Ekenstedt et al. 2022, Lemma 2(1))")
        return zero_block, (n, kp)
    if pair == ("k_eps_dp", "k_eps_dp"):
        if kc <= kp:
            raise _implied(f"({kp},ε)-DP implies ({kc},ε)-DP for k_0 >= k_1 (Ekenstedt et al. 2022, Lemma 3(1))")
        return zero_block, (n, n - kp)
    if pair == ("kt_closeness", "k_eps_dp"):
        if kc <= n - kp:
            raise _implied(f"(k_t,t)-closeness implies (k_DP, ln t)-DP for k_DP <= N - k_t (Ekenstedt et al. 2022, Thm. 4(1), Lemma 2(1)); found N={n}, k_t={kp}, k_DP={kc}")
        return zero_block, (n, kp)
    if kc >= n - kp:
        raise _implied(f"(k_DP,ε)-DP implies (k_t, e^ε)-closeness for k_t >= N - k_DP (Ekenstedt et al. 2022, Thm. 4(1), Lemma 2(1)); found N={n}, k_DP={kp}, k_t={kc}")
    return zero_block, (n, n - kp)  # the remaining pair: ("k_eps_dp", "kt_closeness")


SUPPORTED_PAIRS = (
    "multiplicative_t_closeness/stochastic_t_closeness ⇏ ldp, kt_closeness (k <= N-2), k_eps_dp (k >= 2, or classwise)",
    "kt_closeness(k0) ⇏ kt_closeness(k1 < k0)",
    "kt_closeness(k >= 2) ⇏ ldp",
    "dp ⇏ k_eps_dp(k >= 2)",
    "k_eps_dp(k0) ⇏ k_eps_dp(k1 > k0)",
    "kt_closeness(k_t) ⇏ k_eps_dp(k_DP > N - k_t)",
    "k_eps_dp(k_DP) ⇏ kt_closeness(k_t < N - k_DP)",
)
"""The (premise ⇏ conclusion) pairs :func:`witness` has a family for."""


def _required(size: int | None, definition_id: str) -> int:
    """The size of a subset-size definition (Defs. 7-8), which :func:`_sizes_of` requires."""
    if size is None:
        raise ValueError(f"{definition_id}: expected a subset size k, found none")
    return size


def _sizes_of(premise: str, conclusion: str, params: Mapping[str, int]) -> tuple[int | None, int | None]:
    return (
        size_for(premise, "premise", params, required=premise in SIZED_DEFINITIONS),
        size_for(conclusion, "conclusion", params, required=conclusion in SIZED_DEFINITIONS),
    )


def verify_witness(
    premise: str,
    conclusion: str,
    bound: sympy.Basic | Fraction | int | str,
    table: ProbabilityTable,
    params: Mapping[str, int] | None = None,
    *,
    family: str = "given table",
) -> WitnessResult:
    """Re-measure ``table`` exactly: premise level finite and conclusion level beyond ``bound``."""
    params = dict(params or {})
    kp, kc = _sizes_of(premise, conclusion, params)
    premise_level = level(premise, table, kp if premise in SIZED_DEFINITIONS else None)
    if conclusion == "k_eps_dp" and params.get("classwise"):
        conclusion_level: Ratio | int = classwise_k_eps_dp_ratio(table, _required(kc, conclusion))
    else:
        conclusion_level = level(conclusion, table, kc if conclusion in SIZED_DEFINITIONS else None)
    value = sympy.sympify(bound)
    bound_ratio = sympy.exp(value) if is_ratio_definition(conclusion) else value
    exceeds = premise_level is not sympy.oo and bool(sympy.sympify(conclusion_level) > bound_ratio)
    detail = (
        f"{premise} level {premise_level}, {conclusion} level {conclusion_level} "
        f"{'>' if exceeds else 'not >'} bound {bound_ratio} (ratio space)"
    )
    return WitnessResult(table, premise_level, conclusion_level, bound_ratio, exceeds, family, detail)


def witness(
    premise: str,
    conclusion: str,
    bound: sympy.Basic | Fraction | int | str,
    *,
    params: Mapping[str, int] | None = None,
) -> WitnessResult:
    """A table satisfying ``premise`` at a level independent of ``bound`` whose ``conclusion``
    level exceeds ``bound`` (in the conclusion's own units: t, or ε), re-measured exactly.

    Parameters
    ----------
    params
        ``N`` (default: the smallest N the family accepts), the sizes (:mod:`theory.tables.sizes`;
        for multiplicative t-closeness ``k`` is the smallest class size, default 1), and
        ``classwise`` (truthy: measure (k,ε)-DP inside each class, the reading of Ekenstedt et al. 2022, Thm. 5).

    Raises
    ------
    NoWitnessError
        (a ValueError) when the pair is an implication under these parameters (the message
        cites it) or no family covers it (the message lists :data:`SUPPORTED_PAIRS`).

    Examples
    --------
    >>> found = witness("multiplicative_t_closeness", "ldp", 3, params={"N": 4, "k": 2})
    >>> found.premise_level, found.conclusion_level, found.exceeds
    (Fraction(1, 1), Fraction(43, 1), True)
    """
    params = dict(params or {})
    ratio = target_ratio(conclusion, bound)
    kp, kc = _sizes_of(premise, conclusion, params)
    n = int(params.get("N", max(4, max((v for v in (kp, kc) if v is not None), default=1) + 2, 2 * (kp or 1))))
    if not 1 <= n <= MAX_N:
        raise WitnessSizeError(f"N={n}: expected 1 ≤ N ≤ {MAX_N:,} (the witness is a table of N records, built and "
                               "re-measured exactly)")
    build, args = _family(premise, conclusion, n, kp, kc, ratio, bool(params.get("classwise")))
    table = build(*args)
    found = verify_witness(premise, conclusion, bound, table, params, family=_FAMILY_NAMES[build])
    if not found.exceeds:
        raise AssertionError(f"witness family {found.family} failed its exact check: {found.detail}")
    return found
