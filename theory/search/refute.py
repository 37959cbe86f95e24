"""A claim searched with Z3 over every small case, and refuted or confirmed.

:func:`search_claim` runs :func:`theory.search.solver.search` for every N up to ``max_n``
and every admissible assignment of the claim's sizes; :func:`refute_claim` turns the
searches of the printed and the corrected form (or, for a non-implication, the witness
families of :mod:`theory.tables.witnesses`) into a :class:`theory.claims.claim.CheckResult`.
``privcert theory refute`` and :func:`theory.checks.deep_search` call these::

    refute_claim(claim, *, max_n=4, timeout_s=10.0) -> CheckResult
    search_claim(claim, statement, *, max_n=4, timeout_s=10.0) -> ClaimSearch

``unsat`` proves a bound for those N and sizes only, never for general N.

References
----------
Ekenstedt et al. 2022, Definitions 2-8 (implication: for every table, A(a) ⇒ B(f(a))).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from itertools import product

import sympy

from theory.claims.catalog import sizes
from theory.claims.claim import CheckResult, Claim
from theory.definitions import definition
from theory.search.encoding import CLASS_DEFINITIONS
from theory.search.solver import (
    EncodingError,
    SearchResult,
    SearchStatus,
    admissible,
    definition_size,
    search,
    timeout_ms,
)
from theory.tables.levels import SIZED_DEFINITIONS
from theory.tables.sizes import Role, size_keys
from theory.tables.witnesses import ImplicationHolds, InadmissibleParameters, NoWitnessError, witness

__all__ = ["ClaimSearch", "search_claim", "refute_claim"]


@dataclass(frozen=True)
class ClaimSearch:
    """Z3 searches for one statement of a claim over every small case.

    Parameters
    ----------
    status
        ``"sat"`` if some case has a confirmed counterexample (``counterexample``),
        ``"unknown"`` if none has but some case timed out or no case was searched (no N up
        to ``max_n`` meets the claim's conditions), else ``"unsat"`` (proven for every case
        searched: 2 <= N <= ``max_n`` and every admissible size).
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

    The premise and conclusion sizes come from :func:`theory.claims.catalog.sizes` (``k_premise``,
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
    """The catalog's sizes (:func:`theory.claims.catalog.sizes`); for an unregistered claim, by name:
    ``k_0``/``k_1`` for premise/conclusion, else ``k_t``/``k_DP`` (Thm. 4), else ``k``."""
    try:
        return sizes(claim.id)
    except LookupError:
        pass
    names = {s.name: s for e in (claim.printed, *claim.conditions) for s in e.free_symbols}
    found: list[sympy.Expr | None] = []
    roles: tuple[tuple[str | None, Role, str], ...] = (
        (claim.premise, "premise", "k_0"),
        (claim.conclusion, "conclusion", "k_1"),
    )
    for definition_id, role, own in roles:
        if definition_id is None or definition_id not in SIZED_DEFINITIONS | CLASS_DEFINITIONS:
            found.append(None)
            continue
        name = next((n for n in (own, *size_keys(definition_id, role)[1:]) if n in names), "k")
        found.append(names.get(name, sympy.Symbol(name, positive=True, integer=True)))
    return found[0], found[1]


def _at(expr: sympy.Basic, values: Mapping[str, int]) -> sympy.Basic:
    return expr.subs({s: values[s.name] for s in expr.free_symbols if s.name in values})


def search_claim(claim: Claim, statement: sympy.Basic, *, max_n: int = 4, timeout_s: float = 10.0) -> ClaimSearch:
    """Search every case 2 <= N <= max_n (and sizes satisfying the conditions) for ``statement``.

    ``statement`` is ``claim.printed`` or ``claim.corrected``: ``Eq(conclusion level,
    f(premise level, N, sizes))``. Equivalences are searched in both directions (the
    reverse with f inverted). Once a counterexample is found where f is below 1 (violated by
    every table), the remaining cases look for one where f >= 1, which is reported instead.
    """
    if claim.premise is None or claim.conclusion is None:
        raise EncodingError(f"claim {claim.id}: expected premise and conclusion definitions for a search")
    timeout_ms(timeout_s)
    forward = _bound_of(statement, claim.conclusion)
    directions = [("forward", claim.premise, claim.conclusion, forward)]
    if claim.kind == "equivalence":
        directions.append(("reverse", claim.conclusion, claim.premise, _inverse(forward, claim.premise, claim.conclusion)))
    cases: list[str] = []
    unknown: list[str] = []
    trivial: SearchResult | None = None  # a counterexample whose bound is below 1
    for n in range(2, max_n + 1):
        for assignment, leftover in _assignments(claim, statement, n):
            for name, premise, conclusion, bound in directions:
                params = _swap_roles(assignment) if name == "reverse" else dict(assignment)
                sizes_ok = admissible(premise, definition_size(premise, "premise", params), n) and admissible(
                    conclusion, definition_size(conclusion, "conclusion", params), n
                )
                if not sizes_ok:
                    continue
                label = " ".join(f"{key}={value}" for key, value in assignment.items()) + f" {name}"
                cases.append(label)
                conditions = leftover if name == "forward" else ()
                run = partial(search, premise, conclusion, bound, n=n, params=params, timeout_s=timeout_s,
                              premise_conditions=conditions)
                result = run(nontrivial=trivial is not None)
                if result.status == "sat" and trivial is None and result.bound_value is not None and result.bound_value < 1:
                    trivial, result = result, run(nontrivial=True)
                if result.status == "sat":
                    return ClaimSearch("sat", result, tuple(cases), max_n, f"counterexample at {label}: {result.detail}")
                if result.status == "unknown" and trivial is None:
                    unknown.append(f"{label}: {result.detail}")
    if trivial is not None:
        return ClaimSearch("sat", trivial, tuple(cases), max_n, f"counterexample (bound below 1): {trivial.detail}")
    if not cases:
        return ClaimSearch("unknown", None, (), max_n, f"no case searched: no N with 2 <= N <= {max_n} (and sizes) "
                                                     "satisfies the claim's conditions; raise --max-n")
    if unknown:
        return ClaimSearch("unknown", None, tuple(cases), max_n, f"{len(unknown)} case(s) unknown: " + "; ".join(unknown))
    return ClaimSearch("unsat", None, tuple(cases), max_n, f"z3 unsat in all {len(cases)} case(s) with N <= {max_n}")


def _swap_roles(params: Mapping[str, int]) -> dict[str, int]:
    swapped = {key: v for key, v in params.items() if key not in ("k_premise", "k_conclusion")}
    for old, new in (("k_premise", "k_conclusion"), ("k_conclusion", "k_premise")):
        if old in params:
            swapped[new] = params[old]
    return swapped


def refute_claim(claim: Claim, *, max_n: int = 4, timeout_s: float = 10.0,
                 fallback: Callable[[], CheckResult] | None = None) -> CheckResult:
    """Check a claim by search (implications, equivalences, bounds) or witnesses (non-implications).

    Statuses: ``refuted`` (a confirmed counterexample to the printed form, and no corrected
    form or the corrected form refuted too; for a non-implication: a case where the pair is
    an implication, cited), ``corrected`` (printed refuted, corrected unsat for every
    N <= max_n), ``proven`` only for a non-implication whose witness family (parameterised
    for every bound) was re-measured exactly in every case, and ``unknown`` otherwise,
    including "unsat for N <= max_n" (a proof for general N needs a symbolic argument;
    ``checked_by`` records the finite proof).

    ``fallback`` (the claim's own check, :func:`theory.checks.check`) answers instead where the search
    cannot: a claim relating no two definitions, a level Z3 does not encode (the levels of the released
    values: l-diversity, EMD, β, δ, the risk models), a non-implication with no witness family of
    probability tables; the reason why the search could not is kept first in ``checked_by``.
    """
    timeout_ms(timeout_s)
    if claim.premise is None or claim.conclusion is None:
        return _instead(f"{claim.id}: relates no two definitions; not a search over tables", fallback)
    if claim.kind == "non_implication":
        found = _check_non_implication(claim, max_n)
        return found if found.status != "unknown" or found.counterexample is not None else _instead(
            f"{claim.id}: no witness family of probability tables ({found.detail[:200]})", fallback, found)
    try:
        printed = search_claim(claim, claim.printed, max_n=max_n, timeout_s=timeout_s)
        corrected = None if claim.corrected is None else search_claim(claim, claim.corrected, max_n=max_n, timeout_s=timeout_s)
    except EncodingError as error:
        return _instead(f"{claim.id}: not encodable for Z3: {error}", fallback)
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
    if not printed.cases:
        return CheckResult("unknown", None, checked, summary)
    return CheckResult("unknown", None, checked, f"no counterexample found ({summary}); proven for N <= {max_n} only where unsat")


def _instead(reason: str, fallback: Callable[[], CheckResult] | None,
             searched: CheckResult | None = None) -> CheckResult:
    """The claim's own check where the search cannot decide it, with the reason first."""
    if fallback is None:
        return searched if searched is not None else CheckResult("unknown", None, (), reason)
    outcome = fallback()
    return CheckResult(outcome.status, outcome.counterexample, (f"search: {reason}", *outcome.checked_by),
                       f"checked by its own check instead of the search: {outcome.detail}")


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

    A condition ``Assumption(dp_within_classes)`` (Ekenstedt et al. 2022, Thm. 5) selects the classwise reading.
    """
    covered: list[str] = []
    implied: list[str] = []
    uncovered: list[str] = []
    no_table: list[str] = []
    last = None
    premise, conclusion = claim.definitions
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
                found = [witness(premise, conclusion, b, params=params) for b in _WITNESS_BOUNDS]
            except ImplicationHolds as error:
                implied.append(f"{label}: {error}")
                continue
            except InadmissibleParameters as error:
                no_table.append(f"{label}: {error}")
                continue
            except NoWitnessError as error:
                uncovered.append(f"{label}: {error}")
                continue
            if found[0].premise_level != found[1].premise_level:
                uncovered.append(f"{label}: premise level moved with the bound")
                continue
            covered.append(label)
            last = found[1].table
    skipped = (f"; {len(no_table)} case(s) admit no table of these sizes (the claim says nothing there), e.g. {no_table[0]}"
               if no_table else "")
    checked = (f"witness families (theory.tables.witnesses) re-measured exactly in {len(covered)} case(s) at bounds "
               f"{_WITNESS_BOUNDS}; {len(no_table)} case(s) without a table",)
    if implied:
        return CheckResult("refuted", {"implication_holds": implied}, checked, f"the pair is an implication at: {implied[0]}")
    if covered and not uncovered:
        return CheckResult("proven", last, checked,
                           f"premise level fixed, conclusion beyond every bound, in all {len(covered)} case(s) searched{skipped}")
    if not covered and not uncovered:
        return CheckResult("unknown", None, checked, f"no case searched: none of 3 <= N <= {max(max_n, 6)} admits a table{skipped}")
    return CheckResult("unknown", last, checked, f"{len(covered)} case(s) witnessed; not covered: {'; '.join(uncovered[:3])}{skipped}")
