"""Checks of the relations derived here (:mod:`theory.papers.derived.claims`) against the verifier.

Each implication's bound is evaluated at the measured premise level and compared exactly
with the measured conclusion level on a seeded sample of random releases (classes of up to
five records over four values), for the equal, ordered and hierarchical ground
distances; the table that attains it is measured too. Closed forms are derived with sympy.

References
----------
Machanavajjhala et al. 2007 (l-diversity), Wong et al. 2006 ((α,k)-anonymity),
Brickell & Shmatikov 2008 (δ-disclosure), Cao & Karras 2012 (β-likeness),
Li et al. 2007 (EMD), Domingo-Ferrer & Soria-Comas 2015, Def. 4 and Ekenstedt et al. 2022, Defs. 4-6.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from functools import cache, partial
from itertools import combinations_with_replacement, product
from typing import TYPE_CHECKING

import sympy

from theory.claims.catalog import claim
from theory.claims.claim import CheckResult, Claim
from theory.definitions import N, beta, c, definition, t
from theory.papers.check_steps import result, tested
from theory.papers.derived.claims import (
    CLAIMS,
    FINITE_WITH_A_SINGLE,
    FINITE_WITH_TWO_PER_CLASS,
    FORCING,
    IDENTICAL_RECORDS,
    ONE_CLASS,
    ONE_RECORD,
    ONE_VALUE_WEAKEST,
    SINGLETONS_WEAKEST,
    n_min,
)
from theory.tables import levels
from theory.tables.probability_table import ProbabilityTable

if TYPE_CHECKING:
    from verifier.tables.hierarchy import Hierarchy

__all__ = ["CHECKS", "VALUES", "RELEASES", "Counts", "release_levels", "release_parameters", "sample_releases", "spread_family", "singleton_value_family",
           "released", "bound_of"]

VALUES = ("a", "b", "c", "d")
"""The sensitive values of the sample releases (ordered as listed; hierarchy {a,b}, {c,d})."""
Counts = Sequence[Mapping[str, int]]
"""A release by its classes: ``counts[i][value]`` records of ``value`` in class i."""
RELEASES = "seeded releases (1-4 classes of 1-5 records over the values a, b, c, d)"
"""The space :func:`sample_releases` draws from, as a ``tested`` status names it."""
_HIERARCHY = (("a", "ab", "*"), ("b", "ab", "*"), ("c", "cd", "*"), ("d", "cd", "*"))


@cache
def _hierarchy() -> Hierarchy:
    from verifier.tables.hierarchy import Hierarchy

    return Hierarchy.from_rows(_HIERARCHY)


def release_levels(counts: Counts, l: int = 2) -> dict[str, sympy.Expr]:
    """Every model's optimal level on the release ``counts`` (see :func:`_measure`; memoised)."""
    return {key: level for key, level, _ in _measure(_key(counts), l)}


def release_parameters(counts: Counts, l: int = 2) -> dict[str, dict[str, object]]:
    """The parameters each level of :func:`release_levels` was measured at (p-sensitive k-anonymity at the
    release's own k), by the same keys."""
    return {key: dict(parameters) for key, _, parameters in _measure(_key(counts), l)}


def _key(counts: Counts) -> tuple[tuple[tuple[str, int], ...], ...]:
    return tuple(tuple(sorted(row.items())) for row in counts)


@cache
def _measure(counts: tuple[tuple[tuple[str, int], ...], ...], l: int
             ) -> tuple[tuple[str, sympy.Expr, tuple[tuple[str, object], ...]], ...]:
    """Every registered model with a definition on the map and no input besides the count tables,
    measured by its own declared measure (:attr:`verifier.registry.Model.measure`) on the release ``counts``.

    The release's quasi-identifier is the class number and its sensitive attribute ``s`` is
    counted twice: as a categorical attribute with the hierarchy {a, b}, {c, d} and as an
    ordinal one (in the order of :data:`VALUES`). Keys are the model ids; a model measured
    under a ground distance appears once per distance, as ``<id>_<distance>``
    (``t_closeness_equal``, ``t_closeness_ordered``, ``t_closeness_hierarchical``), and a
    measurement at another parameter of a model already measured is left out. Recursive
    (c,l)-diversity is measured at ``l``. Infinite levels are ``sympy.oo``.
    """
    import pandas as pd

    from verifier.registry import MeasureOptions, Subject, models
    from verifier.tables.counting import count_tables
    from verifier.tables.counts import AttributeSpec

    rows = [(i, value) for i, row in enumerate(counts) for value, n in row for _ in range(n)]
    frame = pd.DataFrame(rows, columns=["q", "s"])
    classes, tables = count_tables(frame, ["q"], [AttributeSpec(("s",)), AttributeSpec(("s",), kind="ordinal")])
    options = MeasureOptions(hierarchies={"s": _hierarchy()}, l=(l,))
    found: dict[str, tuple[sympy.Expr, tuple[tuple[str, object], ...]]] = {}
    for item in models():
        if item.definition is None or item.needs:
            continue
        subjects = [Subject(classes, None, options)] if item.scope == "release" else \
            [Subject(classes, table, options) for table in tables]
        for subject in subjects:
            for measured in item.measure(subject):
                key = item.id if measured.distance is None else f"{item.id}_{measured.distance}"
                found.setdefault(key, (measured.level.value, tuple(sorted(measured.parameters.items()))))
    return tuple((key, level, parameters) for key, (level, parameters) in found.items())


def sample_releases(count: int = 25, seed: int = 20260) -> Iterator[list[dict[str, int]]]:
    """``count`` seeded random releases: 1-4 classes of 1-5 records over :data:`VALUES`."""
    rng = random.Random(seed)
    for _ in range(count):
        classes = []
        for _ in range(rng.randint(1, 4)):
            drawn = [rng.choice(VALUES[: rng.randint(1, 4)]) for _ in range(rng.randint(1, 5))]
            classes.append({v: drawn.count(v) for v in VALUES if v in drawn})
        yield classes


def spread_family(m: int) -> list[dict[str, int]]:
    """``E_1 = {a×m}``, ``E_j = {a×(m-1), c}`` for j = 2..m: a rare value spread over all classes but one."""
    return [{"a": m}, *({"a": m - 1, "c": 1} for _ in range(m - 1))]


def bound_of(claim_id: str, premise_level: sympy.Expr, parameters: Mapping[str, object] | None = None) -> sympy.Expr:
    """The conclusion level an implication claim guarantees at ``premise_level`` (``oo`` stays ``oo``), with the
    premise model's declared parameters (:attr:`verifier.registry.Parameter.symbol`) at ``parameters``, the
    values the premise was measured at."""
    from verifier.registry import model

    item = claim(claim_id)
    if premise_level == sympy.oo:
        return sympy.oo
    f = item.effective.rhs
    declared = {p.symbol: sympy.sympify(parameters[p.name]) for p in model(item.definitions[0]).parameters
                if parameters is not None and p.name in parameters and not isinstance(parameters[p.name], str)}
    value = f.subs(definition(item.definitions[0]).level, premise_level).subs(declared)
    return sympy.simplify(value)


def _no_weaker(conclusion: str, measured: sympy.Expr, bound: sympy.Expr) -> bool:
    """The measured conclusion level is at least as strong as ``bound`` (decided exactly)."""
    if bound == sympy.oo:
        return definition(conclusion).direction == "smaller_is_stronger" or measured == sympy.oo
    if measured == sympy.oo:
        return definition(conclusion).direction == "larger_is_stronger"
    relation = definition(conclusion).stronger(measured, bound)
    if relation not in (sympy.true, sympy.false):
        raise ArithmeticError(f"cannot decide {relation} exactly")
    return bool(relation)


def _conclusion_keys(conclusion: str) -> tuple[str, ...]:
    if conclusion == "t_closeness":
        return ("t_closeness_equal", "t_closeness_ordered", "t_closeness_hierarchical")
    return (conclusion,)


def check_bound(claim_id: str, argument: str, tight_counts: Counts | None, l: int = 2, *,
                derived: bool = False) -> CheckResult:
    """An implication's bound against the verifier: never beaten on the sample, attained on ``tight_counts``
    (``None``: the sample only); ``proven`` when the caller derived the bound with sympy (``derived``), else
    ``tested`` on the sample."""
    item = claim(claim_id)
    premise, conclusion = item.definitions
    tables = list(sample_releases())
    for counts in tables:
        found = release_levels(counts, l)
        bound = bound_of(claim_id, found[premise], release_parameters(counts, l)[premise])
        for key in _conclusion_keys(conclusion):
            if not _no_weaker(conclusion, found[key], bound):
                return result("refuted", [argument, "verifier: exact levels on seeded releases"],
                              f"{key} = {found[key]} beyond the bound {bound} at {premise} = {found[premise]}",
                              {"classes": list(counts)})
    if tight_counts is None:
        steps = [argument, f"verifier: exact levels on {len(tables)} seeded releases (l = {l})"]
        line = f"{conclusion} level is bounded by the claim at the measured {premise} level"
        return result("proven", steps, line) if derived else tested(steps, line, len(tables), RELEASES)
    found = release_levels(tight_counts, l)
    bound = bound_of(claim_id, found[premise], release_parameters(tight_counts, l)[premise])
    attained = [key for key in _conclusion_keys(conclusion) if sympy.simplify(found[key] - bound) == 0]
    if len(attained) != len(_conclusion_keys(conclusion)):
        return result("unknown", [argument], f"the tight table gives {[found[x] for x in _conclusion_keys(conclusion)]}, "
                      f"bound {bound}")
    steps = [argument, f"verifier: exact levels on {len(tables)} seeded releases (l = {l})",
             f"verifier: attained on {list(tight_counts)}: {premise} = {found[premise]}, {conclusion} = {bound}"]
    line = f"{conclusion} level is bounded by the claim at the measured {premise} level, and attained"
    return result("proven", steps, line) if derived else tested(steps, line, len(tables), RELEASES)


def _mult_to_emd() -> CheckResult:
    a = sympy.Symbol("a", positive=True)
    tight = sympy.solve(sympy.Eq((t - 1) * a, (1 - a) * (1 - 1 / t)), a)
    best = sympy.simplify(((t - 1) * a).subs(a, tight[0]))
    if tight != [1 / (t + 1)] or sympy.simplify(best - (t - 1) / (t + 1)) != 0:
        return result("unknown", ["sympy"], f"the two bounds meet at a = {tight}, value {best}")
    loose = sympy.factor((1 - 1 / t) - best)
    argument = (f"sympy: min((t-1)a, (1-a)(1-1/t)) is largest at a = {tight[0]}, value {best}; "
                f"1 - 1/t exceeds it by {loose} (valid, not tight)")
    return check_bound("privcert:mult_to_emd", argument, _TIGHT_T2, derived=True)


def _recursive_to_alpha() -> CheckResult:
    r1, size = sympy.symbols("r_1 E", positive=True)
    (largest,) = sympy.solve(sympy.Eq(r1, c * (size - r1)), r1)
    if sympy.simplify(largest / size - c / (1 + c)) != 0:
        return result("unknown", ["sympy"], f"r_1/|E| at r_1 = c(|E| - r_1) is {largest / size}")
    argument = ("sympy: r_1 = c (|E| - r_1) gives r_1/|E| = c/(1 + c); the tail r_l + ... + r_m is at most "
                "|E| - r_1 for l >= 2 (equal for l = 2)")
    deeper = check_bound("privcert:recursive_to_alpha", argument, None, 3, derived=True)
    if deeper.status != "proven":
        return deeper
    outcome = check_bound("privcert:recursive_to_alpha", argument, [{"a": 2, "b": 1}, {"a": 1, "b": 1, "c": 1}], 2,
                          derived=True)
    return replace(outcome, checked_by=(*outcome.checked_by, "verifier: the bound also holds at l = 3 (not attained)"))


def _emd_le_tv() -> CheckResult:
    tables = list(sample_releases())
    for counts in tables:
        found = release_levels(counts)
        for key in ("t_closeness_ordered", "t_closeness_hierarchical"):
            if not bool(sympy.Le(found[key], found["t_closeness_equal"])):
                return result("refuted", ["verifier: exact levels"], f"{key} = {found[key]} > TV = "
                              f"{found['t_closeness_equal']}", {"classes": list(counts)})
    two = release_levels(_SAME_CLASSES)
    if not two["t_closeness_equal"] == two["t_closeness_ordered"] == two["t_closeness_hierarchical"] == Fraction(1, 6):
        return result("unknown", ["verifier"], f"two-value table: {two}")
    return tested([
        "argument: each cumulative (ordered) or per-node (hierarchical, one height) difference is a set's "
        "difference |Q(S) - P(S)| <= TV, and the verifier normalizes by m - 1 terms and 2H = 2 x H heights",
        f"verifier: exact levels on {len(tables)} seeded releases",
        "verifier: {a,a,c}, {a,c,c} gives 1/6 under all three distances (attained: two values, apart in the hierarchy)"],
        "ordered and hierarchical EMD <= equal-distance EMD (total variation)", len(tables), RELEASES)


def _non_implication(claim_id: str, premise_key: str, conclusion_key: str) -> CheckResult:
    seen = []
    for m in (2, 4, 8):
        found = release_levels(spread_family(m))
        if found[premise_key] == sympy.oo or found[conclusion_key] != sympy.oo:
            return result("unknown", ["verifier"], f"m = {m}: {premise_key} = {found[premise_key]}, "
                          f"{conclusion_key} = {found[conclusion_key]}")
        seen.append(f"m = {m}: {premise_key} = {found[premise_key]}")
    return result("proven", ["witness family E_1 = {a×m}, E_j = {a×(m-1), c} measured by the verifier"],
                  "; ".join(seen) + f", while {conclusion_key} is infinite")


def singleton_value_family(m: int) -> list[dict[str, int]]:
    """``E_1 = {a×m}``, ``E_2 = {a×(m-1), c}``: m-anonymous, EMD ``1/(2m)``, the value c held once."""
    return [{"a": m}, {"a": m - 1, "c": 1}]


def released(counts: Counts) -> ProbabilityTable:
    """The release as a probability table of its records (one 0/1 row per record, Ekenstedt et al. 2022, Sec. III)."""
    values = sorted({value for row in counts for value in row})
    rows = [[1 if v == value else 0 for v in values] for row in counts for value, n in row.items() for _ in range(n)]
    return ProbabilityTable.from_rows(rows)


def _deterministic_family(premise_key: str, target: str) -> CheckResult:
    measure = levels.dp_ratio if target == "dp" else levels.ldp_ratio
    seen = []
    for m in (2, 4, 8):
        counts = singleton_value_family(m)
        found = release_levels(counts)
        if found[premise_key] == sympy.oo or measure(released(counts)) != sympy.oo:
            return result("unknown", ["verifier, exact levels"], f"m = {m}: {premise_key} = {found[premise_key]}, "
                          f"{target} ratio {measure(released(counts))}")
        seen.append(f"m = {m}: {premise_key} = {found[premise_key]}")
    return result("proven", ["witness family E_1 = {a×m}, E_2 = {a×(m-1), c} released as it is: the verifier's "
                             f"{premise_key}, the exact {target} level of its 0/1 table"],
                  "; ".join(seen) + f", while {target} is infinite (c is held once)")


def _deterministic_tables(size: int, values: int = 2) -> Iterator[tuple[int, ...]]:
    """Every multiset of values of ``size`` records over up to three values (as counts, ``values`` values or
    more)."""
    for drawn in combinations_with_replacement(range(3), size):
        counts = tuple(drawn.count(v) for v in range(3) if drawn.count(v))
        if len(counts) >= values:
            yield counts


def _zero_one(counts: Sequence[int]) -> ProbabilityTable:
    rows = [[1 if j == v else 0 for j in range(len(counts))] for v, n in enumerate(counts) for _ in range(n)]
    return ProbabilityTable.from_rows(rows)


def _deterministic_ldp() -> CheckResult:
    cases = 0
    for size in range(2, 8):
        for counts in _deterministic_tables(size):
            if levels.ldp_ratio(_zero_one(counts)) != sympy.oo:
                return result("refuted", ["exact levels"], f"deterministic release {counts} has a finite LDP level")
            cases += 1
    return result("proven", ["argument: two records with different values give a bucket with probabilities 1 and 0",
                             f"exact levels: every deterministic release of 2..7 records over <= 3 values ({cases})"],
                  "ε-LDP is infinite on every deterministic release with two different values")


def _deterministic_dp() -> CheckResult:
    corrected_form = claim("privcert:deterministic_dp").corrected
    assert corrected_form is not None
    corrected = corrected_form.rhs
    counterexample = _zero_one((2, 2))
    if levels.dp_ratio(counterexample) != Fraction(3, 2):
        return result("unknown", ["exact levels"], f"a, a, b, b: e^ε = {levels.dp_ratio(counterexample)}")
    cases = 0
    for size in range(2, 8):
        for counts in _deterministic_tables(size, values=1):
            smallest = min(counts)
            expected = sympy.oo if smallest == 1 else corrected.subs({N: size, n_min: smallest})
            if sympy.sympify(levels.dp_ratio(_zero_one(counts))) != expected:
                return result("refuted", ["exact levels"], f"{counts}: e^ε = {levels.dp_ratio(_zero_one(counts))}, "
                              f"formula {expected}")
            cases += 1
    return result("corrected", [
        "exact levels: values a, a, b, b are ε-DP (Ekenstedt et al. 2022, Def. 5) at e^ε = 3/2",
        f"exact levels: the corrected e^ε on every deterministic release of 2..7 records over <= 3 values, one value "
        f"included ({cases})"],
        "a deterministic release has a finite ε in the reading of Def. 5 unless a value is held once; "
        "corrected to e^ε = max(N/(N-1), (N-1) n_min/(N (n_min - 1))) with two values or more, 1 with one value",
        counterexample)


def two_value_release(records: int, smallest: int, per_class: bool, singletons: bool = False) -> list[dict[str, int]]:
    """The witness release of ``privcert:deterministic_subsets``: values a and b over classes of ``smallest`` and
    ``records - smallest`` records (one class when they are equal; every record a class with ``singletons``);
    b held once (in the first class), or once in every class with ``per_class``."""
    sizes = [1] * records if singletons else [records] if smallest == records else [smallest, records - smallest]
    classes = [{"a": size - 1, "b": 1} if per_class or i == 0 else {"a": size} for i, size in enumerate(sizes)]
    return [{value: n for value, n in row.items() if n} for row in classes]


def _deterministic_subsets() -> CheckResult:
    """Every deterministic release of 2..7 records over <= 3 values: (k,t) and (k,ε) infinite exactly as stated, at
    every k; and the premises finite on the witness releases of every 2 <= N <= 6 and smallest class."""
    cases = 0
    for size in range(2, 8):
        for counts in _deterministic_tables(size):
            table, rarest = _zero_one(counts), min(counts)
            for j in range(1, size):
                t_infinite = levels.kt_closeness_t(table, j) == sympy.oo
                eps_infinite = levels.k_eps_dp_ratio(table, j) == sympy.oo
                if t_infinite != (rarest <= size - j) or eps_infinite != (rarest <= j):
                    return result("refuted", ["exact levels"], f"{counts}, k = {j}: (k,t) infinite {t_infinite}, "
                                  f"(k,ε) infinite {eps_infinite}, rarest value held {rarest} times", table)
                cases += 1
    witnesses = 0
    for size in range(2, 7):
        for smallest in (s for s in range(1, size + 1) if s == size or 2 * s <= size):
            for per_class, premises in ((False, FINITE_WITH_A_SINGLE), (True, FINITE_WITH_TWO_PER_CLASS)):
                if per_class and smallest < 2:
                    continue
                for singletons in (False, True) if smallest == 1 else (False,):
                    release = two_value_release(size, smallest, per_class, singletons)
                    found = release_levels(release)
                    for name in premises:
                        for key in _conclusion_keys(name):
                            if found[key] == sympy.oo or found[key] == _weakest_level(name):
                                return result("refuted", ["verifier"], f"{release}: {key} = {found[key]}",
                                              {"classes": release})
                    witnesses += 1
    return result("proven", ["argument: a subset of k records misses a value held n_min times exactly when "
                             "n_min <= N - k, a removal of k records takes all of it exactly when n_min <= k",
                             f"exact levels: every deterministic release of 2..7 records over <= 3 values, every "
                             f"k ({cases})",
                             f"verifier: the witness releases of 2..6 records, every smallest class ({witnesses})"],
                  "(k,t) and (k,ε) of a release of values are infinite exactly when its rarest value can be missed "
                  "or removed; the premises are finite on the witnesses")


def _basic_beta_to_emd() -> CheckResult:
    a = sympy.Symbol("a", positive=True)
    (meet,) = sympy.solve(sympy.Eq(1 - a, beta * a), a)
    if sympy.simplify(meet - 1 / (1 + beta)) != 0:
        return result("unknown", ["sympy"], f"the two bounds meet at P(A) = {meet}")
    argument = (f"sympy: min(1 - P(A), β P(A)) is largest at P(A) = {meet}, value β/(1 + β); TV = Q(A) - P(A) "
                "for A = {s : q > p}, with Q(A) <= 1 and Q(A) <= (1 + β) P(A)")
    return check_bound("privcert:basic_beta_to_emd", argument, [{"a": 2}, {"c": 2}], derived=True)


def _two_buckets(column: Sequence[Fraction], classes: Sequence[range]) -> ProbabilityTable:
    """Buckets {a_1}, {a_2} with Pr(a_1) from ``column`` (Ekenstedt et al. 2022, Appendix)."""
    return ProbabilityTable.from_rows([[x, 1 - x] for x in column], classes)


def _dp_not_mult() -> CheckResult:
    """k records never in bucket 0 beside N - k records (1/2, 1/2): ε-DP finite, t infinite (N >= 3)."""
    half, seen = Fraction(1, 2), 0
    for size in range(3, 9):
        for smallest in range(1, size // 2 + 1):
            table = _two_buckets([Fraction(0)] * smallest + [half] * (size - smallest),
                                 [range(smallest), range(smallest, size)])
            if levels.dp_ratio(table) == sympy.oo or levels.multiplicative_t(table) != sympy.oo:
                return result("unknown", ["exact levels"], f"N = {size}, k = {smallest}: e^ε = "
                              f"{levels.dp_ratio(table)}, t = {levels.multiplicative_t(table)}")
            seen += 1
    grid = [Fraction(i, 4) for i in range(5)]
    for first, second in product(grid, repeat=2):
        pair = _two_buckets([first, second], [range(1), range(1, 2)])
        if levels.dp_ratio(pair) != sympy.oo and levels.multiplicative_t(pair) == sympy.oo:
            return result("unknown", ["exact levels"], f"N = 2 ({first}, {second}): finite ε-DP, infinite t")
    return result("proven", [
        "witness: a class of k records (0, 1) beside N - k >= 2 records (1/2, 1/2) (domingoferrer2015:prop1_dp's "
        "counterexample generalised)",
        f"exact levels: finite ε-DP, infinite t for every 3 <= N <= 8 and 1 <= k <= N/2 ({seen} tables)",
        "exact levels: at N = 2 every table on the grid {0, 1/4, ..., 1} with finite ε-DP has finite t"],
        "ε-DP (Def. 5) bounds no multiplicative t for N >= 3")


def _classwise_dp_not_mult() -> CheckResult:
    half, seen = Fraction(1, 2), 0
    for size in range(2, 9):
        for smallest in range(1, size // 2 + 1):
            table = _two_buckets([Fraction(0)] * smallest + [half] * (size - smallest),
                                 [range(smallest), range(smallest, size)])
            if levels.classwise_k_eps_dp_ratio(table, 1) != 1 or levels.multiplicative_t(table) != sympy.oo:
                return result("unknown", ["exact levels"], f"N = {size}, k = {smallest}: class-wise e^ε = "
                              f"{levels.classwise_k_eps_dp_ratio(table, 1)}, t = {levels.multiplicative_t(table)}")
            seen += 1
    return result("proven", ["witness: classes of equal records, one of k records (0, 1), one of N - k (1/2, 1/2)",
                             f"exact levels: class-wise ε = 0, t infinite for 2 <= N <= 8, 1 <= k <= N/2 ({seen})"],
                  "class-wise ε-DP bounds no multiplicative t")


def _kt_not_mult_below() -> CheckResult:
    half, seen = Fraction(1, 2), 0
    for size in range(3, 9):
        for premise in range(2, size):
            for smallest in range(1, min(premise - 1, size // 2) + 1):
                table = _two_buckets([Fraction(0)] * (premise - 1) + [half] * (size - premise + 1),
                                     [range(smallest), range(smallest, size)])
                if levels.kt_closeness_t(table, premise) == sympy.oo or levels.multiplicative_t(table) != sympy.oo:
                    return result("unknown", ["exact levels"], f"N = {size}, k_0 = {premise}, k = {smallest}: (k_0,t) "
                                  f"= {levels.kt_closeness_t(table, premise)}, t = {levels.multiplicative_t(table)}")
                seen += 1
    return result("proven", ["witness: Table IV of Ekenstedt et al. 2022 (k_0 - 1 zeros, the rest 1/2), a class of "
                             "k < k_0 zeros", f"exact levels: (k_0,t) finite, t infinite for 3 <= N <= 8 ({seen} cases)"],
                  "(k_0,t)-closeness bounds no multiplicative t with a smallest class k < k_0")


def _k_risk() -> CheckResult:
    tables = list(sample_releases())
    for counts in tables:
        found = release_levels(counts)
        if found["prosecutor_risk"] != 1 / sympy.Integer(found["k_anonymity"]):
            return result("refuted", ["verifier"], f"{counts}: R = {found['prosecutor_risk']}, k = {found['k_anonymity']}")
    return tested(["definition: R = 1/min|E| and k = min|E|", f"verifier: R = 1/k on {len(tables)} seeded releases"],
                  "R = 1/k exactly (tight)", len(tables), RELEASES)


def _equality(claim_id: str, argument: str, premise_key: str, conclusion_key: str,
              relation: Callable[[sympy.Expr], sympy.Expr]) -> CheckResult:
    """An implication whose bound is met with equality on every release (for distinct-value buckets)."""
    tables = list(sample_releases())
    for counts in tables:
        found = release_levels(counts)
        if sympy.simplify(relation(found[premise_key]) - found[conclusion_key]) != 0 if found[premise_key] != sympy.oo \
                else found[conclusion_key] != sympy.oo:
            return result("refuted", [argument], f"{counts}: {premise_key} = {found[premise_key]}, "
                          f"{conclusion_key} = {found[conclusion_key]}", {"classes": list(counts)})
    return tested([argument, f"verifier: equality on {len(tables)} seeded releases (infinite included)"],
                  f"{conclusion_key} = f({premise_key}) exactly (tight)", len(tables), RELEASES)


_SAME_CLASSES = [{"a": 2, "c": 1}, {"a": 1, "c": 2}]
_TIGHT_T2 = [{"a": 2, "c": 1}, {"a": 1, "c": 5}]
"""Table distribution (1/3, 2/3), a class (2/3, 1/3): t = 2, TV = 1/3 = (t - 1)/(t + 1), β = 1 = t - 1."""

def _homogeneity() -> CheckResult:
    """``k`` records of one value in one class: k-anonymous for every k, distinct l = 1."""
    seen = []
    for m in (2, 4, 8):
        found = release_levels([{"a": m}])
        if found["k_anonymity"] != m or found["distinct_l_diversity"] != 1:
            return result("unknown", ["verifier"], f"{{a×{m}}}: k = {found['k_anonymity']}, "
                          f"l = {found['distinct_l_diversity']}")
        seen.append(f"{{a×{m}}}: k = {m}")
    return result("proven", ["witness: one class of k records holding one value (Machanavajjhala et al. 2007, Sec. 3.1)",
                             "verifier: exact levels"], "; ".join(seen) + ", while distinct l = 1 (two rows: {a, a})")


def skewness_family(m: int) -> list[dict[str, int]]:
    """``{c, d}`` beside m classes ``{a×m, b}``: 2-diverse, the EMD of ``{c, d}`` tends to 1 (Li et al. 2007, Sec. 2)."""
    return [{"c": 1, "d": 1}, *({"a": m, "b": 1} for _ in range(m))]


def _skewness() -> CheckResult:
    seen, previous = [], Fraction(0)
    for m in (2, 4, 8, 16):
        found = release_levels(skewness_family(m))
        records = 2 + m * (m + 1)
        expected = 1 - Fraction(2, records)
        if found["distinct_l_diversity"] != 2 or found["t_closeness_equal"] != expected or not all(
                found[key] > previous for key in _conclusion_keys("t_closeness")):
            return result("unknown", ["verifier"], f"m = {m}: l = {found['distinct_l_diversity']}, "
                          f"EMD = {[found[key] for key in _conclusion_keys('t_closeness')]}")
        previous = min(found[key] for key in _conclusion_keys("t_closeness"))
        seen.append(f"m = {m}: EMD {found['t_closeness_equal']}")
    return result("proven", ["witness family {c, d} beside m classes {a×m, b} (Li et al. 2007, Sec. 2, skewness "
                             "attack): distinct l = 2, equal-distance EMD 1 - 2/N -> 1, the ordered and hierarchical "
                             "EMD growing with m", "verifier: exact levels"], "; ".join(seen))


def _skewness_mult() -> CheckResult:
    import warnings

    for counts in ([{"a": 1, "b": 1}, {"a": 1, "c": 1}], [{"a": 1}, {"b": 1}]):
        with warnings.catch_warnings():  # classes of one record are meant here, not a record identifier
            warnings.simplefilter("ignore")
            found = release_levels(counts)
        if found["multiplicative_t_closeness"] != sympy.oo or found["delta_disclosure"] != sympy.oo:
            return result("unknown", ["verifier"], f"{counts}: t = {found['multiplicative_t_closeness']}")
    return result("proven", ["witness: {a, b}, {a, c} (l = 2) and {a}, {b} (l = 1): a class lacks a value",
                             "verifier: exact levels"], "distinct l bounds no multiplicative t with two classes or more")


def _one_class() -> CheckResult:
    """Every seeded release merged into one class, and seeded probability tables as one class."""
    from random import Random

    releases = 0
    for counts in sample_releases():
        merged: dict[str, int] = {}
        for row in counts:
            for value, n in row.items():
                merged[value] = merged.get(value, 0) + n
        found = release_levels([merged])
        for name, value in ONE_CLASS.items():
            for key in _conclusion_keys(name) if name in found or name == "t_closeness" else ():
                if found[key] != value:
                    return result("refuted", ["verifier"], f"{merged}: {key} = {found[key]}, expected {value}")
        releases += 1
    rng = Random(31)
    for _ in range(25):
        size = rng.randint(2, 6)
        rows = [[Fraction(w, 10) for w in (x, 10 - x)] for x in (rng.randint(0, 10) for _ in range(size))]
        table = ProbabilityTable.from_rows(rows)
        if levels.multiplicative_t(table) != 1 or any(
                levels.classwise_k_eps_dp_ratio(table, j) != levels.k_eps_dp_ratio(table, j) for j in range(1, size)):
            return result("refuted", ["exact levels"], f"one class {table.to_json()}: t = {levels.multiplicative_t(table)}")
    return tested(["argument: one class has the table's distribution",
                   f"verifier: {releases} seeded releases as one class; exact levels of 25 seeded "
                   "probability tables (t = 1, class-wise (k,ε)-DP = (k,ε)-DP)"],
                  "one class fixes t = 1, EMD = 0, β = 0, δ = 0", releases + 25,
                  f"{RELEASES[:-1]}, merged into one class) and seeded probability tables (2-6 records, one class)")


def _one_record() -> CheckResult:
    found = release_levels([{"a": 1}])
    for name, value in ONE_RECORD.items():
        for key in _conclusion_keys(name) if name in found or name == "t_closeness" else ():
            if found[key] != value:
                return result("refuted", ["verifier"], f"one record: {key} = {found[key]}, expected {value}")
    for x in (Fraction(0), Fraction(1, 3), Fraction(1)):
        table = ProbabilityTable.from_rows([[x, 1 - x]])
        if levels.ldp_ratio(table) != 1 or levels.multiplicative_t(table) != 1:
            return result("refuted", ["exact levels"], f"one record ({x}, {1 - x}): e^ε = {levels.ldp_ratio(table)}")
    return result("proven", ["argument: one record is one class and is compared with itself",
                             "verifier: the release {a}; exact levels of one-record tables"],
                  "one record fixes ε-LDP = 0 besides the one-class levels")


def _singleton_classwise_dp() -> CheckResult:
    from random import Random

    rng = Random(32)
    for _ in range(25):
        size = rng.randint(2, 6)
        rows = [[Fraction(w, 10) for w in (x, 10 - x)] for x in (rng.randint(0, 10) for _ in range(size))]
        table = ProbabilityTable.from_rows(rows, [[i] for i in range(size)])
        if any(levels.classwise_k_eps_dp_ratio(table, j) != 1 for j in range(1, size)):
            return result("refuted", ["exact levels"], f"singleton classes {table.to_json()}")
    return tested(["definition: a class of one record admits no removal (Ekenstedt et al. 2022, Sec. IV.C)",
                   "exact levels: 25 seeded tables of singleton classes, every k"],
                  "class-wise (k,ε)-DP is ε = 0 with classes of one record", 25,
                  "seeded probability tables (2-6 records of singleton classes, 2 buckets)")


def _small_releases() -> Iterator[list[dict[str, int]]]:
    """Every release of one or two classes of 1-3 records over the values a, b, c (each up to order)."""
    kinds = [dict(sorted({v: drawn.count(v) for v in drawn}.items()))
             for size in (1, 2, 3) for drawn in combinations_with_replacement("abc", size)]
    for i, first in enumerate(kinds):
        yield [first]
        for second in kinds[i:]:
            yield [first, second]


def _weakest_level(definition_id: str) -> sympy.Expr:
    """The level every release meets: the domain's weak end (Ekenstedt et al. 2022, Def. 1)."""
    item = definition(definition_id)
    return sympy.sympify(item.domain.sup if item.direction == "smaller_is_stronger" else item.domain.inf)


def _forcing_levels() -> CheckResult:
    """The forcing levels (``privcert:forcing_levels``) on every release of :func:`_small_releases` and every
    probability table of 2-3 records with rows (1, 0), (0, 1), (1/2, 1/2) over every partition."""
    classes_premises = {name: level for name, (level, forced) in FORCING.items() if forced == "classes"}
    releases = 0
    for counts in _small_releases():
        found = release_levels(counts)
        total = {v: sum(row.get(v, 0) for row in counts) for v in VALUES}
        records = sum(total.values())
        as_table = all(Fraction(row.get(v, 0), sum(row.values())) == Fraction(total[v], records)
                       for row in counts for v in VALUES)
        for name, level in classes_premises.items():
            keys = [key for key in _conclusion_keys(name) if key in found]  # a randomized model is not measured here
            if keys and all(found[key] == level for key in keys) != as_table:
                return result("refuted", ["verifier"], f"{counts}: {name} = {[found[key] for key in keys]}, "
                              f"classes as the table: {as_table}", {"classes": counts})
        if as_table and any(found[key] != value for name, value in ONE_CLASS.items()
                            for key in _conclusion_keys(name) if key in found):
            return result("refuted", ["verifier"], f"{counts}: classes as the table, levels {found}", {"classes": counts})
        if len(total.keys() - {v for v in total if total[v] == 0}) == 1 and any(
                found[name] != (sympy.oo if name == "recursive_cl_diversity" else 1) for name in ONE_VALUE_WEAKEST):
            return result("refuted", ["verifier"], f"{counts}: one value, levels {found}", {"classes": counts})
        releases += 1
    for size in range(1, 5):  # classes of one record, one value: the partition's definitions at their weakest
        singletons = [{"a": 1}] * size
        found = release_levels(singletons)
        weakest = {name: _weakest_level(name) for name in SINGLETONS_WEAKEST}
        if any(found[name] != level for name, level in weakest.items()):
            return result("refuted", ["verifier"], f"{singletons}: classes of one record, levels {found}",
                          {"classes": singletons})
    tables = 0
    rows = ((Fraction(1), Fraction(0)), (Fraction(0), Fraction(1)), (Fraction(1, 2), Fraction(1, 2)))
    for size in (2, 3):
        for drawn in product(rows, repeat=size):
            for partition in _partitions(size):
                table = ProbabilityTable.from_rows([list(row) for row in drawn], partition)
                measured = {"ldp": [levels.ldp_ratio(table)], "dp": [levels.dp_ratio(table)],
                            "k_eps_dp": [levels.k_eps_dp_ratio(table, j) for j in range(1, size)],
                            "kt_closeness": [levels.kt_closeness_t(table, j) for j in range(1, size)],
                            "multiplicative_t_closeness": [levels.multiplicative_t(table)]}
                identical = len(set(drawn)) == 1
                for name in ("ldp", "dp", "k_eps_dp", "kt_closeness"):
                    for found_level in measured[name]:
                        if (found_level == 1) != identical:
                            return result("refuted", ["exact levels"], f"{table.to_json()}: {name} ratio {found_level}, "
                                          f"identical records: {identical}", table)
                if identical and any(value != 1 for values in measured.values() for value in values):
                    return result("refuted", ["exact levels"], f"{table.to_json()}: identical records, {measured}", table)
                tables += 1
    if set(IDENTICAL_RECORDS) - set(ONE_CLASS) != {"ldp", "dp", "k_eps_dp", "kt_closeness"}:
        return result("unknown", ["definition"], f"identical records fix {sorted(IDENTICAL_RECORDS)}")
    return result("proven", ["argument: each forcing level is attained exactly when q = p in every cell (classes), "
                             "or when every removal, pair or subset leaves the mean unchanged (records)",
                             f"verifier: {releases} releases of one or two classes of 1-3 records over 3 values "
                             "(every one: forcing level exactly when the classes have the table's distribution), "
                             "and 1-4 classes of one record holding one value (k-anonymity, the risks and "
                             "uniqueness at their weakest)",
                             f"exact levels: {tables} probability tables of 2-3 records, rows (1,0), (0,1), (1/2,1/2), "
                             "every partition (ε = 0 and (k,t) = 1 exactly when the records are identical)"],
                  "the forcing levels fix the one-class levels, and ε = 0 or (k,t) = 1 every record's row")


def _partitions(size: int) -> Iterator[list[list[int]]]:
    """Every set partition of range(size)."""
    if size == 0:
        yield []
        return
    for smaller in _partitions(size - 1):
        yield [*smaller, [size - 1]]
        for i in range(len(smaller)):
            yield [*smaller[:i], [*smaller[i], size - 1], *smaller[i + 1:]]


def _given_smallest_class() -> CheckResult:
    tables = list(sample_releases())
    for counts in tables:
        found = release_levels(counts)
        smallest = min(sum(row.values()) for row in counts)
        if found["k_anonymity"] != smallest or found["prosecutor_risk"] != sympy.Rational(1, smallest):
            return result("refuted", ["verifier"], f"{counts}: k = {found['k_anonymity']}")
    return tested(["definition: k = min|E|, R = 1/min|E|", f"verifier: {len(tables)} seeded releases"],
                  "k-anonymity is the smallest class", len(tables), RELEASES)


_EXPLICIT: dict[str, Callable[[], CheckResult]] = {
    "privcert:delta_to_mult": lambda: _equality(
        "privcert:delta_to_mult", "definition: δ* = ln max(q/p, p/q) and t* = max(q/p, p/q) over the same cells",
        "delta_disclosure", "multiplicative_t_closeness", sympy.exp),
    "privcert:mult_to_delta": lambda: _equality(
        "privcert:mult_to_delta", "definition: δ* = ln t* with one bucket per value",
        "multiplicative_t_closeness", "delta_disclosure", sympy.log),
    "privcert:delta_to_present": lambda: check_bound(
        "privcert:delta_to_present", "definition: the same maximum over the cells with q > 0", _SAME_CLASSES),
    "privcert:present_not_delta": lambda: _non_implication(
        "privcert:present_not_delta", "delta_disclosure_present", "delta_disclosure"),
    "privcert:mult_to_emd": _mult_to_emd,
    "privcert:emd_le_tv": _emd_le_tv,
    "privcert:emd_not_mult": lambda: _non_implication(
        "privcert:emd_not_mult", "t_closeness_equal", "multiplicative_t_closeness"),
    "privcert:mult_to_basic_beta": lambda: check_bound(
        "privcert:mult_to_basic_beta", "argument: (q - p)/p = q/p - 1 <= t - 1", _TIGHT_T2),
    "privcert:enhanced_to_basic_beta": lambda: check_bound(
        "privcert:enhanced_to_basic_beta", "definition: a finite enhanced β* is the basic β*", _SAME_CLASSES),
    "privcert:entropy_to_distinct": lambda: check_bound(
        "privcert:entropy_to_distinct", "Gibbs: H(E) <= ln |support(E)|; distinct l is an integer",
        [{"a": 1, "b": 1, "c": 1}, {"a": 2, "b": 2, "c": 2, "d": 1}]),
    "privcert:alpha_to_entropy": lambda: check_bound(
        "privcert:alpha_to_entropy", "H(E) >= -ln max q (the min-entropy is at most the entropy)",
        [{"a": 1, "b": 1}, {"a": 1, "b": 1, "c": 1}]),
    "privcert:recursive_to_alpha": _recursive_to_alpha,
    "privcert:k_risk": _k_risk,
    **{f"privcert:{short}_not_{target}": partial(_deterministic_family, key, target)
       for short, key in (("k", "k_anonymity"), ("emd", "t_closeness_equal")) for target in ("dp", "ldp")},
    "privcert:distinct_to_k": lambda: check_bound(
        "privcert:distinct_to_k", "argument: a class holding l distinct values holds at least l records",
        [{"a": 1, "b": 1}, {"a": 1, "b": 1, "c": 1}]),
    "privcert:delta_to_basic_beta": lambda: check_bound(
        "privcert:delta_to_basic_beta", "argument: (q - p)/p = q/p - 1 <= e^δ - 1 on the cells δ ranges over",
        _TIGHT_T2),
    "privcert:basic_beta_to_emd": _basic_beta_to_emd,
    "privcert:dp_not_mult": _dp_not_mult,
    "privcert:classwise_dp_not_mult": _classwise_dp_not_mult,
    "privcert:kt_not_mult_below": _kt_not_mult_below,
    "privcert:deterministic_not_ldp": _deterministic_ldp,
    "privcert:deterministic_dp": _deterministic_dp,
    "privcert:deterministic_subsets": _deterministic_subsets,
    "privcert:entropy_to_k": lambda: check_bound(
        "privcert:entropy_to_k", "Gibbs: a class of entropy H holds at least e^H values, so at least ⌈e^H⌉ records",
        [{"a": 1, "b": 1}, {"a": 1, "b": 1, "c": 1}]),
    "privcert:alpha_to_k": lambda: check_bound(
        "privcert:alpha_to_k", "argument: a class whose largest frequency is q <= α holds at least 1/q records",
        [{"a": 1, "b": 1}, {"a": 1, "b": 1, "c": 1}]),
    "machanavajjhala2007:homogeneity": _homogeneity,
    "li2007:skewness": _skewness,
    "li2007:skewness_mult": _skewness_mult,
    "privcert:one_class": _one_class,
    "privcert:one_record": _one_record,
    "privcert:singleton_classwise_dp": _singleton_classwise_dp,
    "privcert:given_smallest_class": _given_smallest_class,
    "privcert:forcing_levels": _forcing_levels,
}
"""The checks written for a claim: a derivation, a tight table, a witness family."""


def _attains(claim_id: str, counts: Counts) -> bool:
    """Whether the release ``counts`` attains the claim's bound (finite) under every key of its conclusion."""
    premise, conclusion = claim(claim_id).definitions
    found = release_levels(counts)
    bound = bound_of(claim_id, found[premise], release_parameters(counts)[premise])
    return bound.is_finite is True and all(sympy.simplify(found[key] - bound) == 0
                                           for key in _conclusion_keys(conclusion))


def _argued_check(item: Claim) -> CheckResult:
    argument = f"argument: {item.note}"
    if not item.tight:
        return check_bound(item.id, argument, None)
    tight = next((counts for counts in sample_releases() if _attains(item.id, counts)), None)
    if tight is None:
        return result("unknown", [argument], "stated tight, but no seeded release attains the bound")
    return check_bound(item.id, argument, tight)


def _argued(item: Claim) -> Callable[[], CheckResult]:
    """The check of an implication stated with its argument only (its note): the bound is never beaten on
    the seeded sample of releases, each model measured by its declaration (:func:`check_bound`), and, for a
    claim stated tight, attained on one of them (else ``unknown``). Another kind of claim needs a check written for
    it: without one, checking it raises (its status is then ``unchecked``, :func:`theory.checks.unchecked`)."""
    return partial(_argued_check if item.kind == "implication" else _unwritten_check, item)


def _unwritten_check(item: Claim) -> CheckResult:
    raise LookupError(f"{item.id}: a {item.kind} claim needs a check of its own in theory/papers/derived/checks.py, "
                      "found none")


if set(_EXPLICIT) - {item.id for item in CLAIMS}:
    raise ValueError(f"checks of no claim: {sorted(set(_EXPLICIT) - {item.id for item in CLAIMS})}")
CHECKS: dict[str, Callable[[], CheckResult]] = {item.id: _EXPLICIT.get(item.id) or _argued(item) for item in CLAIMS}
"""claim id -> check, in the order of the claims: the written check, else the argued bound's (:func:`_argued`)."""
