"""One Z3 counterexample search at one N: is there a table satisfying A at level a whose B level exceeds f(a)?

::

    search(premise, conclusion, bound, *, n, p=2, params=None, timeout_s=10.0,
           premise_level=None, positive=False, premise_conditions=()) -> SearchResult

The encoding (docs/theory_search.md; the translation in :mod:`theory.search.encoding`):
N × p Real probabilities (rows sum to 1, entries ≥ 0 or > 0), the premise's level ≤ a
for a Real a ≥ 1 in *ratio space* (a = t, or a = T = e^ε, so exp and log disappear), and
the disjunction "some ratio of the conclusion exceeds bound(a)". ``sat`` is returned only
after the table, made rational (the premise level fixed to a rational, which leaves
linear arithmetic), has been re-measured exactly with :mod:`theory.tables.levels`.
``unsat`` proves the bound for that N, those sizes and, by merging buckets, every number
of buckets ≥ 2; never for general N. A solver timeout is ``unknown``. Every small case of
a claim is searched by :mod:`theory.search.refute`.

References
----------
Ekenstedt et al. 2022, Definitions 2-8; docs/theory_search.md (the encoding).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import sympy
import z3

from theory.definitions import definition
from theory.search.encoding import (
    CLASS_DEFINITIONS,
    EncodingError,
    fraction_of,
    partitions,
    ratio_pairs,
    relation_to_z3,
    to_z3,
)
from theory.tables.levels import SIZED_DEFINITIONS, Ratio, is_ratio_definition, k_anonymity, level
from theory.tables.probability_table import ProbabilityTable
from theory.tables.sizes import Role, size_for

__all__ = [
    "timeout_ms",
    "SearchStatus",
    "SearchResult",
    "EncodingError",
    "search",
    "ratio_bound",
    "RATIO_LEVEL",
    "definition_size",
    "admissible",
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
    nontrivial: bool

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
        if self.nontrivial:
            solver.add(limit >= 1)
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
            answer = interruptible_check(solver)
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


def interruptible_check(solver: z3.Solver) -> z3.CheckSatResult:
    """``solver.check()`` that Ctrl-C stops promptly.

    Left alone, Z3 catches SIGINT itself and only cancels the current check, so a search
    of many cases never stops. Here Z3's own handler is off (``ctrl_c=False``), the check
    runs in a worker thread (ctypes releases the GIL) while the main thread waits in short
    joins, and a ``KeyboardInterrupt`` there interrupts the solver's context and propagates.
    """
    solver.set(ctrl_c=False)
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["answer"] = solver.check()
        except z3.Z3Exception as error:
            outcome["error"] = error

    worker = threading.Thread(target=run, name="z3-check", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.05)
    except KeyboardInterrupt:
        solver.ctx.interrupt()
        worker.join(5)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["answer"]


def _rational_candidates(value: z3.ExprRef) -> list[Fraction]:
    """Rational premise levels near the model's ``a``, simplest first (nicer tables)."""
    approx = value.approx(30) if z3.is_algebraic_value(value) else value
    exact = fraction_of(approx)
    candidates: list[Fraction] = []
    for c in [exact.limit_denominator(d) for d in _SIMPLER_DENOMINATORS] + [exact]:
        if c >= 1 and c not in candidates:
            candidates.append(c)
    return candidates


def timeout_ms(timeout_s: float) -> int:
    """A time limit per Z3 call in whole milliseconds (at least 1), from seconds.

    Raises
    ------
    ValueError
        Unless ``timeout_s`` is a positive, finite number (``nan`` and ``inf`` are not).
    """
    if not (isinstance(timeout_s, int | float) and math.isfinite(timeout_s) and timeout_s > 0):
        raise ValueError(f"timeout {timeout_s!r}: expected a positive, finite number of seconds")
    return max(1, int(timeout_s * 1000))


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
    nontrivial: bool = False,
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
        Sizes by name (see :mod:`theory.tables.sizes`: ``k_premise``/``k_conclusion``, ``k_t``,
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
    nontrivial
        Require bound(a) >= 1: a violation of a bound that is a possible level (every
        ratio level is >= 1, so a bound below 1 is violated by every table).

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
        definition_size(premise, "premise", params),
        definition_size(conclusion, "conclusion", params),
        n,
        p,
        ratio_bound(premise, conclusion, bound, values),
        tuple(_premise_relation(premise, c) for c in premise_conditions),
        positive,
        timeout_ms(timeout_s),
        nontrivial,
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


def definition_size(definition_id: str, role: Role, params: Mapping[str, int]) -> int | None:
    """The subset size (Defs. 7-8, required) or smallest class size (Def. 4, optional)."""
    if definition_id in SIZED_DEFINITIONS:
        return size_for(definition_id, role, params, required=True)
    if definition_id in CLASS_DEFINITIONS:
        return size_for(definition_id, role, params, required=False)
    return None


def admissible(definition_id: str, size: int | None, n: int) -> bool:
    """Whether the definition exists at N = n with this size: a subset size in [1, N-1]
    (Defs. 7-8), or a class partition with that smallest class (Def. 4: two classes)."""
    if definition_id in SIZED_DEFINITIONS:
        return size is not None and 1 <= size <= n - 1
    if definition_id in CLASS_DEFINITIONS and size is not None:
        return bool(partitions(n, size, at_least_two=definition_id == "multiplicative_t_closeness"))
    return True


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
