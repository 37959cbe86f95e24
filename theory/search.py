"""Z3 counterexample search: is there a table satisfying A at level a whose B level exceeds f(a)?

Public API (stable; ``privcert theory refute`` and :mod:`theory.checks` call these)::

    search(premise, conclusion, bound, *, n, p=2, params=None, timeout_s=10.0,
           premise_level=None, positive=False, premise_conditions=()) -> SearchResult
    refute_claim(claim, *, max_n=4, timeout_s=10.0) -> theory.claims.CheckResult
    search_claim(claim, statement, *, max_n=4, timeout_s=10.0) -> ClaimSearch

The encoding (docs/theory_search.md): N × p Real probabilities (rows sum to 1, entries
≥ 0 or > 0), the premise's level ≤ a for a Real a ≥ 1 in *ratio space* (a = t, or
a = T = e^ε, so exp and log disappear), and the disjunction "some ratio of the
conclusion exceeds bound(a)". ``sat`` is returned only after the table, made rational (the
premise level fixed to a rational, which leaves linear arithmetic), has been re-measured
exactly with :mod:`theory.levels`. ``unsat`` proves the bound for that N, those sizes and,
by merging buckets, every number of buckets ≥ 2; never for general N. A solver timeout is
``unknown``.

References
----------
003_bf2f0ebd12ad210e.txt, Definitions 2-8 (implication: for every table, A(a) ⇒ B(f(a))).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import product
from fractions import Fraction
from typing import Literal

import sympy
import z3

from theory._sizes import Role, size_for
from theory._z3_encoding import (
    CLASS_DEFINITIONS,
    EncodingError,
    fraction_of,
    partitions,
    ratio_pairs,
    relation_to_z3,
    to_z3,
)
from theory.claims import CheckResult, Claim, sizes
from theory.definitions import definition
from theory.levels import SIZED_DEFINITIONS, Ratio, is_ratio_definition, k_anonymity, level
from theory.tables import ProbabilityTable
from theory.witnesses import ImplicationHolds, InadmissibleParameters, NoWitnessError, witness

__all__ = [
    "SearchStatus",
    "SearchResult",
    "EncodingError",
    "search",
    "ratio_bound",
    "ClaimSearch",
    "search_claim",
    "refute_claim",
    "RATIO_LEVEL",
]

SearchStatus = Literal["sat", "unsat", "unknown"]

RATIO_LEVEL = sympy.Symbol("A", positive=True)
"""The premise level in ratio space inside translated bounds: t, or T = e^ε."""

_SIMPLER_DENOMINATORS = (1, 2, 4, 10, 100, 10_000, 10**8)

_STRATEGIES: tuple[Callable[[], z3.Solver], ...] = (
    lambda: z3.Then("simplify", "solve-eqs", "smt").solver(),
    z3.Solver,
)
"""Z3 strategies tried in turn until one answers (the first decides most cases in well under
a second; the default nonlinear solver is the fallback)."""


@dataclass(frozen=True)
class SearchResult:
    """The outcome of one search.

    Parameters
    ----------
    status
        ``"sat"``: ``table`` satisfies the premise at level ``premise_level`` and its exact
        conclusion level ``conclusion_level`` exceeds ``bound_value`` (all in ratio space).
        ``"unsat"``: no such table exists for this N and these sizes (any number of buckets).
        ``"unknown"``: the solver timed out or gave up, or no rational table was confirmed.
    table, premise_level, conclusion_level, bound_value
        Set for ``"sat"`` only; exact.
    detail
        One line: what was searched and what happened.
    """

    status: SearchStatus
    table: ProbabilityTable | None
    detail: str
    premise_level: Fraction | None = None
    conclusion_level: Ratio | None = None
    bound_value: Fraction | None = None


def ratio_bound(premise: str, conclusion: str, bound: sympy.Basic, values: Mapping[str, int]) -> sympy.Expr:
    """``bound`` in ratio space: the conclusion's t or e^ε as a function of :data:`RATIO_LEVEL`.

    Symbols are matched by name: ``values`` gives N and the sizes; the premise's level
    symbol (t or ε, :mod:`theory.definitions`) becomes ``A`` or ``ln A``; a conclusion ε
    becomes ``e^bound``. What remains must be a rational function of ``A``.

    >>> from theory.definitions import eps, k, N
    >>> ratio_bound("ldp", "kt_closeness", (k + (N - k) * sympy.exp(eps)) / N, {"N": 4, "k": 2})
    A/2 + 1/2
    """
    expr = sympy.sympify(bound)
    premise_name = definition(premise).level.name
    substitutions: dict[sympy.Basic, sympy.Basic] = {}
    for symbol in expr.free_symbols:
        if symbol.name == premise_name:
            substitutions[symbol] = sympy.log(RATIO_LEVEL) if is_ratio_definition(premise) else RATIO_LEVEL
        elif symbol.name in values:
            substitutions[symbol] = sympy.Integer(values[symbol.name])
    expr = expr.subs(substitutions)
    if is_ratio_definition(conclusion):
        expr = sympy.exp(expr)
    expr = sympy.powsimp(sympy.expand_log(expr, force=True))
    unknown = {s.name for s in expr.free_symbols} - {RATIO_LEVEL.name}
    if unknown:
        raise EncodingError(
            f"bound {bound} has symbols {sorted(unknown)} with no value: expected the premise level "
            f"{premise_name!r} and parameters among {sorted(values)}"
        )
    return sympy.simplify(expr) if expr.has(sympy.exp, sympy.log) else expr


def _premise_relation(premise: str, relation: sympy.Basic) -> sympy.Basic:
    """A condition on the premise level rewritten in ratio space (exp is monotone)."""
    symbol = next((s for s in relation.free_symbols if s.name == definition(premise).level.name), None)
    if symbol is None or len(relation.free_symbols) != 1:
        raise EncodingError(
            f"condition {relation}: expected a relation in the premise level {definition(premise).level} only"
        )
    if not is_ratio_definition(premise):
        return relation.subs(symbol, RATIO_LEVEL)
    lhs, rhs = (sympy.exp(side.subs(symbol, sympy.log(RATIO_LEVEL))) for side in (relation.lhs, relation.rhs))
    return relation.func(lhs, rhs)


@dataclass(frozen=True)
class _Problem:
    premise: str
    conclusion: str
    premise_size: int | None
    conclusion_size: int | None
    n: int
    p: int
    bound: sympy.Expr
    conditions: tuple[sympy.Basic, ...]
    positive: bool
    timeout_ms: int

    def solver(
        self, classes: Sequence[Sequence[int]], fixed: Fraction | None, strategy: Callable[[], z3.Solver]
    ) -> tuple[z3.Solver, list[list[z3.ArithRef]], z3.ArithRef]:
        probs = [[z3.Real(f"p_{i}_{l}") for l in range(self.p)] for i in range(self.n)]
        a = z3.Real("a")
        solver = strategy()
        solver.set("timeout", self.timeout_ms)
        for row in probs:
            solver.add(*[(v > 0 if self.positive else v >= 0) for v in row], z3.Sum(row) == 1)
        for group in classes:  # records in a class are exchangeable: break the symmetry
            solver.add(*[probs[i][0] <= probs[j][0] for i, j in zip(group, group[1:])])
        solver.add(a >= 1)
        if fixed is not None:
            solver.add(a == z3.RealVal(f"{fixed.numerator}/{fixed.denominator}"))
        env = {RATIO_LEVEL: a}
        solver.add(*[relation_to_z3(c, env) for c in self.conditions])
        monotone = len(classes) == 1 and self.p == 2  # rows sorted by bucket 0, bucket 1 reversed
        pairs = ratio_pairs(self.premise, self.premise_size, probs, classes, monotone=monotone)
        solver.add(*[x <= a * y for x, y in pairs])
        limit = to_z3(self.bound, env)
        violations = ratio_pairs(self.conclusion, self.conclusion_size, probs, classes, monotone=monotone)
        solver.add(z3.Or([x > limit * y for x, y in violations]))
        return solver, probs, a

    def confirm(self, classes: Sequence[Sequence[int]], model: z3.ModelRef, probs: list[list[z3.ArithRef]], a_value: Fraction) -> SearchResult | None:
        """Re-measure the model's table exactly; a SearchResult only if it really violates."""
        rows = [[fraction_of(model.eval(v, model_completion=True)) for v in row] for row in probs]
        table = ProbabilityTable.from_rows(rows, classes)
        premise_level = level(self.premise, table, self.premise_size if self.premise not in CLASS_DEFINITIONS else None)
        if premise_level is sympy.oo or premise_level > a_value:
            return None
        if self.premise_size is not None and self.premise in CLASS_DEFINITIONS and k_anonymity(table) != self.premise_size:
            return None
        value = self.bound.subs(RATIO_LEVEL, sympy.Rational(a_value.numerator, a_value.denominator))
        if not isinstance(value, sympy.Rational):
            raise EncodingError(f"bound {self.bound} at A = {a_value} is not rational: {value}")
        bound_value = Fraction(int(value.p), int(value.q))
        conclusion_level = level(
            self.conclusion, table, self.conclusion_size if self.conclusion not in CLASS_DEFINITIONS else None
        )
        if conclusion_level is not sympy.oo and not conclusion_level > bound_value:
            return None
        return SearchResult(
            "sat",
            table,
            f"{self.premise} holds at level {a_value} (optimal {premise_level}) while "
            f"{self.conclusion}'s exact level {conclusion_level} exceeds bound {bound_value} (ratio space)",
            a_value,
            conclusion_level,
            bound_value,
        )

    def solve(self, classes: Sequence[Sequence[int]], fixed: Fraction | None) -> SearchResult:
        """Solve for one class structure; with ``a`` free, re-solve at rational ``a`` values."""
        where = f"N={self.n}, p={self.p}, classes={[len(c) for c in classes]}"
        reasons = []
        for strategy in _STRATEGIES:
            solver, probs, a = self.solver(classes, fixed, strategy)
            answer = solver.check()
            if answer != z3.unknown:
                break
            reasons.append(solver.reason_unknown())
        else:
            return SearchResult("unknown", None, f"z3 unknown ({', '.join(reasons)}) for {where}")
        if answer == z3.unsat:
            return SearchResult("unsat", None, f"z3 unsat for {where}")
        model = solver.model()
        a_value = model.eval(a, model_completion=True)
        values = [model.eval(v, model_completion=True) for row in probs for v in row]
        if all(z3.is_rational_value(v) for v in [a_value, *values]):
            found = self.confirm(classes, model, probs, fraction_of(a_value))
            if found is not None:
                return found
        if fixed is None:  # a fixed rational a leaves linear arithmetic: rational models
            for candidate in _rational_candidates(a_value):
                found = self.solve(classes, candidate)
                if found.status == "sat":
                    return found
        return SearchResult("unknown", None, f"z3 sat for {where} but no rational table was confirmed exactly")


def _rational_candidates(value: z3.ExprRef) -> list[Fraction]:
    """Rational premise levels near the model's ``a``, simplest first (nicer tables)."""
    approx = value.approx(30) if z3.is_algebraic_value(value) else value
    exact = fraction_of(approx)
    candidates: list[Fraction] = []
    for c in [exact.limit_denominator(d) for d in _SIMPLER_DENOMINATORS] + [exact]:
        if c >= 1 and c not in candidates:
            candidates.append(c)
    return candidates


def search(
    premise: str,
    conclusion: str,
    bound: sympy.Basic,
    *,
    n: int,
    p: int = 2,
    params: Mapping[str, int] | None = None,
    timeout_s: float = 10.0,
    premise_level: Fraction | None = None,
    positive: bool = False,
    premise_conditions: Sequence[sympy.Basic] = (),
) -> SearchResult:
    """Search a table of ``n`` records and ``p`` buckets satisfying ``premise`` at some level a
    whose ``conclusion`` level is strictly worse than ``bound(a)``.

    Parameters
    ----------
    premise, conclusion
        Definition ids (:mod:`theory.definitions`) with a ratio level: ``ldp``, ``dp``,
        ``k_eps_dp``, ``kt_closeness``, ``multiplicative_t_closeness``, ``stochastic_t_closeness``.
    bound
        The conclusion's level (t, or ε) as a sympy expression in the premise's level
        symbol (t or ε) and parameters ``N``, ``k``, ``k_t``, ``k_DP``, ... (by name).
    n, p
        Records and buckets. p = 2 loses nothing: merging the other buckets of a
        counterexample into one keeps every premise inequality (they are linear and
        homogeneous in a bucket's column) and the violated one.
    params
        Sizes by name (see :mod:`theory._sizes`: ``k_premise``/``k_conclusion``, ``k_t``,
        ``k_DP``, ``k``) and any other symbol of ``bound``. For multiplicative/stochastic
        t-closeness the size is the smallest class size; every class partition with that
        smallest size (and at least two classes for Def. 4) is tried.
    timeout_s
        Per Z3 call (each class structure tries up to two strategies); a timeout gives
        ``"unknown"``.
    premise_level
        Fix a (ratio space) instead of leaving it free.
    positive
        Require every probability > 0.
    premise_conditions
        Relations on the premise level (``t >= 2``, ``epsilon <= 1``) to add.

    Raises
    ------
    EncodingError
        An unsupported definition, a bound that is not a rational function in ratio space,
        or a missing parameter.
    """
    params = dict(params or {})
    values = {"N": n, **params}
    problem = _Problem(
        premise,
        conclusion,
        _size(premise, "premise", params),
        _size(conclusion, "conclusion", params),
        n,
        p,
        ratio_bound(premise, conclusion, bound, values),
        tuple(_premise_relation(premise, c) for c in premise_conditions),
        positive,
        max(1, int(timeout_s * 1000)),
    )
    results = [problem.solve(classes, premise_level) for classes in _class_structures(problem)]
    if not results:
        return SearchResult("unsat", None, f"no class partition of N={n} with the requested smallest class size")
    for result in results:
        if result.status == "sat":
            return result
    unknown = [r for r in results if r.status == "unknown"]
    if unknown:
        return SearchResult("unknown", None, "; ".join(r.detail for r in unknown))
    return SearchResult(
        "unsat",
        None,
        f"z3 unsat for N={n} (every p >= 2 by bucket merging) over {len(results)} class structure(s): "
        f"{premise} at level a implies {conclusion} within bound {problem.bound} (ratio space, A = a)",
    )


def _size(definition_id: str, role: Role, params: Mapping[str, int]) -> int | None:
    """The subset size (Defs. 7-8, required) or smallest class size (Def. 4, optional)."""
    if definition_id in SIZED_DEFINITIONS:
        return size_for(definition_id, role, params, required=True)
    if definition_id in CLASS_DEFINITIONS:
        return size_for(definition_id, role, params, required=False)
    return None


def _class_structures(problem: _Problem) -> list[tuple[tuple[int, ...], ...]]:
    """The class partitions to try: all for class-based definitions, else one class."""
    if problem.premise not in CLASS_DEFINITIONS and problem.conclusion not in CLASS_DEFINITIONS:
        return [(tuple(range(problem.n)),)]
    smallest = next(
        (size for d, size in ((problem.premise, problem.premise_size), (problem.conclusion, problem.conclusion_size)) if d in CLASS_DEFINITIONS and size is not None),
        None,
    )
    two = "multiplicative_t_closeness" in (problem.premise, problem.conclusion)
    return partitions(problem.n, smallest, at_least_two=two)


@dataclass(frozen=True)
class ClaimSearch:
    """Z3 searches for one statement of a claim over every small case.

    Parameters
    ----------
    status
        ``"sat"`` if some case has a confirmed counterexample (``counterexample``),
        ``"unknown"`` if none has but some case timed out, else ``"unsat"`` (proven for
        every case searched: 2 <= N <= ``max_n`` and every admissible size).
    cases
        The cases searched, e.g. ``("N=3 k=2 forward", ...)``.
    """

    status: SearchStatus
    counterexample: SearchResult | None
    cases: tuple[str, ...]
    max_n: int
    detail: str


_SIZE_NAMES = frozenset({"k", "k_t", "k_DP", "k_0", "k_1"})


def _bound_of(statement: sympy.Basic, conclusion: str) -> sympy.Basic:
    """The right-hand side f of ``Eq(level, f)`` (or ``Eq(exp(ε), f)``) as a conclusion level."""
    name = definition(conclusion).level.name
    if not isinstance(statement, sympy.Equality):
        raise EncodingError(f"statement {statement}: expected Eq(conclusion level, f(premise level))")
    lhs, rhs = statement.lhs, statement.rhs
    if isinstance(lhs, sympy.Symbol):
        return rhs  # the conclusion's level (its symbol may be renamed, e.g. t_1 or epsilon_1)
    if isinstance(lhs, sympy.exp) and isinstance(lhs.args[0], sympy.Symbol):
        return sympy.log(rhs)
    raise EncodingError(f"statement {statement}: expected the left side to be {name} (or exp({name}))")


def _inverse(bound: sympy.Basic, premise: str, conclusion: str) -> sympy.Basic:
    """g with f(g(b)) = b: the bound of the reverse direction of an equivalence."""
    y = sympy.Dummy("y", positive=True)
    symbol = next((s for s in bound.free_symbols if s.name == definition(premise).level.name), None)
    if symbol is None:
        raise EncodingError(f"bound {bound} does not depend on the premise level {definition(premise).level}")
    solutions = sympy.solve(sympy.Eq(y, bound), symbol)
    if len(solutions) != 1:
        raise EncodingError(f"cannot invert {bound} for {symbol}: solutions {solutions}")
    return solutions[0].subs(y, definition(conclusion).level)


def _assignments(claim: Claim, statement: sympy.Basic, n: int) -> list[tuple[dict[str, int], tuple[sympy.Basic, ...]]]:
    """Parameter values for N = n satisfying the claim's conditions, with the leftover conditions.

    The premise and conclusion sizes come from :func:`theory.claims.sizes` (``k_premise``,
    ``k_conclusion``); their free size symbols range over [1, n - 1].
    """
    premise_size, conclusion_size = _claim_sizes(claim)
    exprs = [e for e in (premise_size, conclusion_size, statement, *claim.conditions) if e is not None]
    names = sorted({s.name for e in exprs for s in e.free_symbols} & _SIZE_NAMES)
    result = []
    for values in product(range(1, n), repeat=len(names)):
        assignment = {"N": n, **dict(zip(names, values))}
        leftover, ok = [], True
        for condition in claim.conditions:
            value = _at(condition, assignment)
            ok = ok and value is not sympy.false
            if value not in (sympy.true, sympy.false):
                leftover.append(value)
        for role, size in (("premise", premise_size), ("conclusion", conclusion_size)):
            if size is not None:
                assignment[f"k_{role}"] = int(_at(size, assignment))
        if ok:
            result.append((assignment, tuple(leftover)))
    return result


def _claim_sizes(claim: Claim) -> tuple[sympy.Expr | None, sympy.Expr | None]:
    """The registry's sizes (:func:`theory.claims.sizes`); for an unregistered claim, by name:
    ``k_0``/``k_1`` for premise/conclusion, else ``k_t``/``k_DP`` (Thm. 4), else ``k``."""
    try:
        return sizes(claim.id)
    except LookupError:
        pass
    names = {s.name: s for e in (claim.printed, *claim.conditions) for s in e.free_symbols}
    specific = {"kt_closeness": "k_t", "k_eps_dp": "k_DP"}
    found: list[sympy.Expr | None] = []
    for definition_id, own in ((claim.premise, "k_0"), (claim.conclusion, "k_1")):
        if definition_id not in SIZED_DEFINITIONS | CLASS_DEFINITIONS:
            found.append(None)
            continue
        name = next((n for n in (own, specific.get(definition_id, ""), "k") if n in names), "k")
        found.append(names.get(name, sympy.Symbol(name, positive=True, integer=True)))
    return found[0], found[1]


def _at(expr: sympy.Basic, values: Mapping[str, int]) -> sympy.Basic:
    return expr.subs({s: values[s.name] for s in expr.free_symbols if s.name in values})


def search_claim(claim: Claim, statement: sympy.Basic, *, max_n: int = 4, timeout_s: float = 10.0) -> ClaimSearch:
    """Search every case 2 <= N <= max_n (and sizes satisfying the conditions) for ``statement``.

    ``statement`` is ``claim.printed`` or ``claim.corrected``: ``Eq(conclusion level,
    f(premise level, N, sizes))``. Equivalences are searched in both directions (the
    reverse with f inverted). Sizes ``k_0``/``k_1`` belong to the premise/conclusion.
    """
    if claim.premise is None or claim.conclusion is None:
        raise EncodingError(f"claim {claim.id}: expected premise and conclusion definitions for a search")
    forward = _bound_of(statement, claim.conclusion)
    directions = [("forward", claim.premise, claim.conclusion, forward)]
    if claim.kind == "equivalence":
        directions.append(("reverse", claim.conclusion, claim.premise, _inverse(forward, claim.premise, claim.conclusion)))
    cases: list[str] = []
    unknown: list[str] = []
    for n in range(2, max_n + 1):
        for assignment, leftover in _assignments(claim, statement, n):
            for name, premise, conclusion, bound in directions:
                params = dict(assignment)
                if name == "reverse":
                    params = _swap_roles(params)
                label = " ".join(f"{key}={value}" for key, value in assignment.items()) + f" {name}"
                try:
                    result = search(premise, conclusion, bound, n=n, params=params, timeout_s=timeout_s,
                                    premise_conditions=leftover if name == "forward" else ())
                except EncodingError as error:
                    if "expected a subset size" in str(error):
                        continue  # a size outside [1, N-1] for this N: no such definition
                    raise
                if result.detail.startswith("no class partition"):
                    continue
                cases.append(label)
                if result.status == "sat":
                    return ClaimSearch("sat", result, tuple(cases), max_n, f"counterexample at {label}: {result.detail}")
                if result.status == "unknown":
                    unknown.append(f"{label}: {result.detail}")
    if unknown:
        return ClaimSearch("unknown", None, tuple(cases), max_n, f"{len(unknown)} case(s) unknown: " + "; ".join(unknown))
    return ClaimSearch("unsat", None, tuple(cases), max_n, f"z3 unsat in all {len(cases)} case(s) with N <= {max_n}")


def _swap_roles(params: Mapping[str, int]) -> dict[str, int]:
    swapped = {key: v for key, v in params.items() if key not in ("k_premise", "k_conclusion")}
    for old, new in (("k_premise", "k_conclusion"), ("k_conclusion", "k_premise")):
        if old in params:
            swapped[new] = params[old]
    return swapped


def refute_claim(claim: Claim, *, max_n: int = 4, timeout_s: float = 10.0) -> CheckResult:
    """Check a claim by search (implications, equivalences, bounds) or witnesses (non-implications).

    Statuses: ``refuted`` (a confirmed counterexample to the printed form, and no corrected
    form or the corrected form refuted too; for a non-implication: a case where the pair is
    an implication, cited), ``corrected`` (printed refuted, corrected unsat for every
    N <= max_n), ``proven`` only for a non-implication whose witness family (parameterised
    for every bound) was re-measured exactly in every case, and ``unknown`` otherwise,
    including "unsat for N <= max_n" (a proof for general N needs a symbolic argument;
    ``checked_by`` records the finite proof).
    """
    if claim.premise is None or claim.conclusion is None:
        return CheckResult("unknown", None, (), f"{claim.id}: relates no two definitions; not a search over tables")
    if claim.kind == "non_implication":
        return _check_non_implication(claim, max_n)
    try:
        printed = search_claim(claim, claim.printed, max_n=max_n, timeout_s=timeout_s)
        corrected = None if claim.corrected is None else search_claim(claim, claim.corrected, max_n=max_n, timeout_s=timeout_s)
    except EncodingError as error:
        return CheckResult("unknown", None, (), f"{claim.id}: not encodable for Z3: {error}")
    checked = tuple(
        f"z3 ({form}): {s.status} over {len(s.cases)} case(s), N <= {max_n}"
        for form, s in (("printed", printed), ("corrected", corrected))
        if s is not None
    )
    if printed.status == "sat":
        table = printed.counterexample.table if printed.counterexample else None
        if corrected is not None and corrected.status == "unsat":
            return CheckResult("corrected", table, checked, f"printed: {printed.detail}; corrected: {corrected.detail}")
        what = "corrected form: " + corrected.detail if corrected is not None else "no corrected form"
        return CheckResult("refuted", table, checked, f"printed: {printed.detail}; {what}")
    summary = "; ".join(s.detail for s in (printed, corrected) if s is not None)
    return CheckResult("unknown", None, checked, f"no counterexample found ({summary}); proven for N <= {max_n} only where unsat")


_WITNESS_BOUNDS = (4, 40)
"""Bounds each witness is built for (ε bounds become e^bound: kept small enough to print)."""


def _statement_conditions(statement: sympy.Basic) -> tuple[sympy.Basic, ...]:
    """Relations carried by a ``NotImplies(A, B, *conditions)`` statement (a corrected scope)."""
    return tuple(a for a in getattr(statement, "args", ()) if isinstance(a, sympy.core.relational.Relational))


def _check_non_implication(claim: Claim, max_n: int) -> CheckResult:
    """Witness the printed non-implication (and the corrected one, when narrower) in every case."""
    printed = _witness_cases(claim, (), max_n)
    if claim.corrected is None:
        return printed
    corrected = _witness_cases(claim, _statement_conditions(claim.corrected), max_n)
    checked = tuple(f"{form}: {r.checked_by[0]}" for form, r in (("printed", printed), ("corrected", corrected)))
    if printed.status == "refuted" and corrected.status == "proven":
        return CheckResult("corrected", printed.counterexample, checked, f"printed: {printed.detail}; corrected: {corrected.detail}")
    return CheckResult(printed.status, printed.counterexample, checked, f"printed: {printed.detail}; corrected: {corrected.detail}")


def _witness_cases(claim: Claim, extra: tuple[sympy.Basic, ...], max_n: int) -> CheckResult:
    """Build the witness family for every admissible case 3 <= N <= max(max_n, 6) at two bounds.

    A condition ``Assumption(dp_within_classes)`` (003 Thm. 5) selects the classwise reading.
    """
    covered: list[str] = []
    implied: list[str] = []
    uncovered: list[str] = []
    last = None
    scoped = replace(claim, conditions=(*claim.conditions, *extra))
    for n in range(3, max(max_n, 6) + 1):
        for assignment, leftover in _assignments(scoped, sympy.true, n):
            label = ", ".join(f"{key}={value}" for key, value in assignment.items())
            params: dict[str, int] = dict(assignment)
            if any(str(c) == "Assumption(dp_within_classes)" for c in leftover):
                params["classwise"] = 1
                leftover = tuple(c for c in leftover if str(c) != "Assumption(dp_within_classes)")
            if leftover:
                uncovered.append(f"{label}: conditions {list(map(str, leftover))} not decidable")
                continue
            try:
                found = [witness(claim.premise, claim.conclusion, b, params=params) for b in _WITNESS_BOUNDS]  # type: ignore[arg-type]
            except ImplicationHolds as error:
                implied.append(f"{label}: {error}")
                continue
            except InadmissibleParameters:
                continue
            except NoWitnessError as error:
                uncovered.append(f"{label}: {error}")
                continue
            if found[0].premise_level != found[1].premise_level:
                uncovered.append(f"{label}: premise level moved with the bound")
                continue
            covered.append(label)
            last = found[1].table
    checked = (f"witness families (theory.witnesses) re-measured exactly in {len(covered)} case(s) at bounds {_WITNESS_BOUNDS}",)
    if implied:
        return CheckResult("refuted", {"implication_holds": implied}, checked, f"the pair is an implication at: {implied[0]}")
    if covered and not uncovered:
        return CheckResult("proven", last, checked, f"premise level fixed, conclusion beyond every bound, in all {len(covered)} case(s)")
    return CheckResult("unknown", last, checked, f"{len(covered)} case(s) witnessed; not covered: {'; '.join(uncovered[:3])}")
