"""The implication map as a graph, and the queries on it.

Nodes are definitions (:mod:`theory.definitions`) taken at a size (a subset size for
(k,t)-closeness and (k,ε)-DP, a smallest class size for multiplicative and stochastic
t-closeness). Edges come from implication and equivalence claims whose *checked* status
is ``proven``, ``tested`` or ``corrected`` (:data:`theory.claims.claim.USABLE`) (the effective, corrected form is used; refuted printed
forms never are); an equivalence gives both directions, the reverse map found by solving
its printed relation. Non-implication claims are kept as evidence for "no" answers.

A query composes the level maps f along every path (Ekenstedt et al. 2022, Def. 3) of at most
:data:`MAX_STEPS` steps, substitutes the parameters, collects the conditions that cannot
be decided, and returns the strongest result.

References
----------
Ekenstedt et al. 2022, Definitions 1-3, Figs. 1-2.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cache, cached_property
from itertools import chain, product
from typing import TYPE_CHECKING, Literal, SupportsIndex, SupportsInt, TypedDict

import sympy

from theory.claims.catalog import map_claims, sizes
from theory.claims.claim import USABLE, Assumption, CheckResult, Claim
from theory.definitions import N, class_size_levels, class_sized, definition, k, k0, k1, k_dp, k_t, subset_sized
from theory.papers.derived.claims import CLAIMS as DERIVED_CLAIMS
from theory.papers.derived.claims import (
    DETERMINISTIC_WITNESSES,
    FINITE_WITH_A_SINGLE,
    FINITE_WITH_TWO_PER_CLASS,
    FORCING,
    GROWING_N,
    IDENTICAL_RECORDS,
    ONE_CLASS,
    ONE_RECORD,
    ONE_VALUE_WEAKEST,
    SINGLETON_CLASSWISE,
    SINGLETONS_WEAKEST,
    UNDEFINED_AT_ONE_RECORD,
    Forced,
)
from theory.tables.sizes import Role, size_for
from verifier.references import Source

if TYPE_CHECKING:
    from theory.tables.probability_table import ProbabilityTable

__all__ = ["Edge", "Step", "Answer", "Graph", "build_graph", "MAX_STEPS", "WITNESS_BOUND", "CLASS_BASED", "SIZED", "PARAMETER_LEVELS",
           "SIZE_PARAMETERS", "GLOBAL_DP", "DETERMINISTIC_ONLY", "CORNER_CLAIMS", "deterministic_reading"]

MAX_STEPS = 4
"""Longest path considered (the map of Ekenstedt et al. 2022, Fig. 2 has diameter 3)."""
SIZED = subset_sized()
"""Definitions with a subset size k in [1, N-1] (Defs. 7-8)."""
CLASS_BASED = class_sized()
"""Definitions whose size is the smallest equivalence class."""
PARAMETER_LEVELS = class_size_levels()
"""Definitions whose level is the release's smallest class (k-anonymity's k, a parameter of the premise: the
smallest class of the partition a class-based definition is taken over; :func:`theory.definitions.class_size_levels`):
reached only in one step from the query's premise, never through an intermediate size chosen by the search."""
_EDGE_SIZES = (k, k0, k1, k_t, k_dp)
SIZE_PARAMETERS = ("k", "k_premise", "k_conclusion", "k_t", "k_DP")
"""The size parameters of a query (:mod:`theory.tables.sizes`)."""
_SIZES_AND_N = frozenset({"N", *SIZE_PARAMETERS})
GLOBAL_DP = frozenset({"k_eps_dp", "dp"})
"""Definitions whose level is measured over the whole table, unless the query asserts ``dp_within_classes``
(Ekenstedt et al. 2022, Sec. IV.C: (k,ε)-DP inside each class); then only claims stated in that reading relate them."""
DETERMINISTIC_ONLY = frozenset({
    "alpha_k_anonymity", "distinct_l_diversity", "entropy_l_diversity", "recursive_cl_diversity", "t_closeness",
    "basic_beta_likeness", "enhanced_beta_likeness", "delta_disclosure", "delta_disclosure_present"})
"""Definitions measured on the released values (one value per record): a query naming one is about
deterministic releases, and a "no" needs a deterministic witness (:data:`DETERMINISTIC_WITNESSES`)."""
CORNER_CLAIMS = ("privcert:one_record", "privcert:one_class", "privcert:singleton_classwise_dp",
                 "privcert:given_smallest_class", "privcert:forcing_levels")
"""The claims that fix a conclusion's level from the query's own N and k, or from the premise's level (the
corners)."""
_FORCING_CLAIM = "privcert:forcing_levels"
_SUBSETS_CLAIM = "privcert:deterministic_subsets"
_INFINITE_ON_VALUES = {"ldp": "privcert:deterministic_not_ldp", "dp": "privcert:deterministic_dp",
                       "k_eps_dp": _SUBSETS_CLAIM, "kt_closeness": _SUBSETS_CLAIM}
"""The randomized definitions a release of values can leave infinite, and the claim that says when."""
WITNESS_BOUND = 100
"""The conclusion level (own units) the witness of a "no" at a forcing level exceeds (:attr:`Answer.witness`)."""


@dataclass(frozen=True)
class Edge:
    """One usable or recorded arrow of the map.

    ``f`` is the conclusion's level in the premise's level symbol (None for a
    non-implication); ``reverse`` marks the inverse direction of an equivalence.
    """

    claim_id: str
    source: Source
    premise: str
    conclusion: str
    f: sympy.Expr | None
    conditions: tuple[sympy.Basic, ...]
    premise_size: sympy.Expr | None
    conclusion_size: sympy.Expr | None
    status: str
    corrected: bool
    reverse: bool = False

    @property
    def usable(self) -> bool:
        return self.f is not None and self.status in USABLE


@dataclass(frozen=True)
class Step:
    """One step of a derivation path, with its level once numbers are known."""

    claim_id: str
    source: Source
    premise: str
    conclusion: str
    premise_size: sympy.Expr | None
    conclusion_size: sympy.Expr | None
    f: sympy.Expr
    value: sympy.Expr | None


@dataclass(frozen=True)
class Answer:
    """The answer to "does A imply B (under these parameters)?".

    ``holds`` is ``"yes"`` (with the best ``path``, its ``composed`` level map and the
    ``value`` of B's level when A's level was given), ``"no"`` (with the non-implication
    claims in ``evidence``; at a forcing level of A, with a witness at that level) or ``"unknown"`` (no path and no
    non-implication found, or none witnessed at A's level).
    """

    premise: str
    conclusion: str
    holds: Literal["yes", "no", "unknown"]
    path: tuple[Step, ...] = ()
    composed: sympy.Expr | None = None
    conditions: tuple[sympy.Basic, ...] = ()
    value: sympy.Expr | None = None
    evidence: tuple[str, ...] = ()
    alternatives: int = 0
    detail: str = ""
    witness: ProbabilityTable | None = None
    """For a "no" at a forcing level of the premise, the table of a witness family at that level whose conclusion
    level exceeds :data:`WITNESS_BOUND` (a :class:`theory.tables.probability_table.ProbabilityTable`), when the
    witness is a table of the family rather than a release of one value."""

    @cached_property
    def f(self) -> sympy.Expr | None:
        """The composed level map, simplified (on first use: a caller after the value alone skips it)."""
        return None if self.composed is None else sympy.simplify(self.composed)


class _Provenance(TypedDict):
    """The fields every edge of one claim shares."""

    claim_id: str
    source: Source
    status: str
    corrected: bool


@cache
def _solutions(equation: sympy.Eq, symbol: sympy.Symbol) -> tuple[sympy.Expr, ...]:
    """The solutions of ``equation`` for ``symbol``, once per equation of the map (queries ask the same ones).

    ``sympy.solveset`` first, kept when it gives finitely many solutions and each, put back
    into ``equation``, makes it identically true (the map's relations are linear or a
    logarithm); otherwise ``sympy.solve``. ``solve`` checks its solutions numerically, and the
    check imports ``sympy.physics``, which costs a command answering from the map more than
    the solves do.
    """
    found = sympy.solveset(equation, symbol)
    if isinstance(found, sympy.FiniteSet) and all(equation.subs(symbol, solution) is sympy.true for solution in found):
        return tuple(found)
    return tuple(sympy.solve(equation, symbol, simplify=False))


def _simplified(expr: sympy.Expr) -> sympy.Expr:
    """``sympy.simplify(expr)``, skipped for a number already in simplest form.

    A rational, ±∞ and the logarithm of a positive rational are returned unchanged by
    ``sympy.simplify`` (a property test holds it to that); the levels of auditor mode are
    such numbers, and skipping the call skips importing the parts of sympy it loads.
    """
    if expr.is_Rational or expr in (sympy.oo, -sympy.oo) or (
            isinstance(expr, sympy.log) and expr.args[0].is_Rational and expr.args[0].is_positive):
        return expr
    return sympy.simplify(expr)


def _level_symbol(definition_id: str) -> sympy.Symbol:
    return definition(definition_id).level


def _records(value: object) -> sympy.Integer:
    """The parameter ``N`` as a sympy integer (anything :class:`int` converts)."""
    if not isinstance(value, str | bytes | bytearray | SupportsInt | SupportsIndex):
        raise TypeError(f"parameter 'N': expected an integer, found {type(value).__name__} {value!r}")
    return sympy.Integer(int(value))


def _edges_of(item: Claim, outcome: CheckResult) -> Iterator[Edge]:
    premise, conclusion = item.definitions
    premise_size, conclusion_size = sizes(item.id)
    statement = item.effective
    common = _Provenance(claim_id=item.id, source=item.source, status=outcome.status, corrected=item.corrected is not None)
    if item.kind == "non_implication":
        extra = tuple(a for a in getattr(statement, "args", ())[2:] if isinstance(a, sympy.Rel))
        yield Edge(premise=premise, conclusion=conclusion, f=None,
                   conditions=item.conditions + extra, premise_size=premise_size,
                   conclusion_size=conclusion_size, **common)
        return
    if statement.rhs.atoms(sympy.core.function.AppliedUndef):
        return
    yield Edge(premise=premise, conclusion=conclusion, f=statement.rhs,
               conditions=item.conditions, premise_size=premise_size, conclusion_size=conclusion_size, **common)
    if item.kind == "equivalence":
        inverse = _solutions(sympy.Eq(statement.lhs, statement.rhs), _level_symbol(premise))
        f = inverse[0].subs(statement.lhs, _level_symbol(conclusion))
        yield Edge(premise=conclusion, conclusion=premise, f=f,
                   conditions=item.conditions, premise_size=conclusion_size, conclusion_size=premise_size,
                   reverse=True, **common)


def _domain(definition_id: str, size: sympy.Expr | None, records: sympy.Expr) -> Iterator[sympy.Basic]:
    """The range of a definition's size among N records, one relation at a time."""
    if size is None:
        return
    yield sympy.Ge(size, 1)
    if definition_id in SIZED:
        yield sympy.Le(size, records - 1)
    elif definition_id == "multiplicative_t_closeness":
        yield sympy.Le(2 * size, records)
    else:
        yield sympy.Le(size, records)


@dataclass(frozen=True)
class _Path:
    """A path being searched: where it stands, its steps and their pending conditions.

    The composed level map is built only for paths that arrive (:attr:`f`): most paths
    the search extends never reach the conclusion.
    """

    state: tuple[str, sympy.Expr | None]
    start: sympy.Symbol
    steps: tuple[Step, ...]
    conditions: tuple[sympy.Basic, ...]

    @cached_property
    def f(self) -> sympy.Expr:
        """The level maps of the steps composed (Ekenstedt et al. 2022, Def. 3), in the start's level symbol."""
        composed: sympy.Expr = self.start
        for step in self.steps:
            composed = step.f.subs(_level_symbol(step.premise), composed)
        return composed


class Graph:
    """The implication map built from checked claims.

    Parameters
    ----------
    edges
        Every edge, usable or not (refuted and unknown ones are drawn, never followed).
    """

    def __init__(self, edges: tuple[Edge, ...], corners: Mapping[str, Source] | None = None) -> None:
        self.edges = edges
        self.corners = dict(corners or {})
        """The corner claims (:data:`CORNER_CLAIMS`) whose checked status is usable, with their sources."""
        self._memo: dict[tuple[object, ...], list[tuple[sympy.Expr | None, Step, list[sympy.Basic]]]] = {}

    def usable(self) -> tuple[Edge, ...]:
        """Edges followed by queries."""
        return tuple(e for e in self.edges if e.usable)

    def non_implications(self) -> tuple[Edge, ...]:
        """Checked non-implications (a status of :data:`theory.claims.claim.USABLE`)."""
        return tuple(e for e in self.edges if e.f is None and e.status in USABLE)

    def reachable(self, premise: str) -> frozenset[str]:
        """Definitions reached from ``premise`` along usable edges, sizes and conditions ignored (a cheap
        over-approximation: a definition outside it is never reached by :meth:`implies`)."""
        seen, frontier = {premise}, [premise]
        while frontier:
            current = frontier.pop()
            for edge in self.usable():
                if edge.premise == current and edge.conclusion not in seen:
                    seen.add(edge.conclusion)
                    frontier.append(edge.conclusion)
        return frozenset(seen - {premise})

    def implies(
        self, premise: str, conclusion: str, params: Mapping[str, object] | None = None, level: object | None = None,
        *, derive: bool = True, forcing_levels: bool = True,
    ) -> Answer:
        """Does ``premise`` imply ``conclusion``; with which composed f, along which path?

        Parameters
        ----------
        params
            ``N``, sizes (``k``, ``k_premise``, ``k_conclusion``, ``k_t``, ``k_DP``; see
            :mod:`theory.tables.sizes`) and assumptions (``singleton_classes``,
            ``dp_within_classes``, ``classwise_views``: true/false).
        level
            The premise's level (a number: t, or ε); the answer then holds B's level.
        derive
            Also search a "no" derived from a non-implication elsewhere on the map (slow);
            ``False`` cites direct non-implications only.
        forcing_levels
            Decide at a forcing level of the premise by ``privcert:forcing_levels`` (a bound, drawing no edge);
            ``False`` answers along the map's edges only, as an explanation a certificate carries must (and
            draws no "no" from a release of one value, :meth:`_one_value`).
        """
        definition(premise)
        definition(conclusion)
        params = self.checked(params)
        records = _records(params["N"]) if "N" in params else N
        start = (premise, self._size(premise, "premise", params))
        target = (conclusion, self._size(conclusion, "conclusion", params))
        for state in (start, target):
            _check_partition(state, records)
        _check_sized(start, "premise", records)
        _check_sized(target, "conclusion", records)
        _check_defined(premise, conclusion, records)
        value = None if level is None else sympy.nsimplify(sympy.sympify(level), rational=True)
        if _one_class(records, params) and _truthy(params.get("dp_within_classes")):
            params = {**params, "dp_within_classes": False}  # inside the one class is over the whole table
        forcing = None if value is None or not forcing_levels else self._forcing(premise, params, value)
        if forcing is not None:
            forced = self._at_forcing_level(premise, conclusion, start, target, forcing, value)
            if forced is not None:
                return forced
        x = _level_symbol(premise)
        found = list(self._paths(_Path(start, x, (), ()), target, records, params, self._leading_to(conclusion)))
        if not found:
            fixed = self._corner(premise, conclusion, start, target, records, params, value)
            one_value = (None if fixed or not forcing_levels
                         else self._one_value(premise, conclusion, params, value))
            if one_value is None and not fixed and forcing_levels and value is None:
                one_value = self._two_values(premise, conclusion, target, records, params)
            if one_value is not None:  # witnessed at every level of the premise
                return one_value
            refused = fixed or self._refusal(premise, conclusion, start, target, records, params, derive)
            return refused if forcing is None or refused.holds != "no" else _witnessed_at(refused, params, value)
        best = self._best(found, x, value, conclusion)
        steps = tuple(self._valued(best.steps, x, value))
        return Answer(
            premise, conclusion, "yes", steps, best.f, best.conditions,
            None if value is None else _simplified(best.f.subs(x, value)),
            alternatives=len(found) - 1,
            detail=" -> ".join(s.claim_id for s in steps),
        )

    def _forcing(self, premise: str, params: Mapping[str, object], value: sympy.Expr) -> Forced | None:
        """What the premise at ``value`` fixes (:data:`FORCING`: the classes' or the records' distributions), if
        ``value`` is its forcing level; ε-DP and (k,ε)-DP measured inside the classes fix nothing across them."""
        if premise not in FORCING or _FORCING_CLAIM not in self.corners or value != FORCING[premise][0]:
            return None
        if premise in GLOBAL_DP and _truthy(params.get("dp_within_classes")):
            return None
        return FORCING[premise][1]

    def _at_forcing_level(self, premise: str, conclusion: str, start: tuple[str, sympy.Expr | None],
                          target: tuple[str, sympy.Expr | None], forcing: Forced, value: sympy.Expr) -> Answer | None:
        """The answer at a forcing level of the premise (``privcert:forcing_levels``): "yes" at the level it fixes
        for the conclusion on every release (exact: no path gives a stronger one); ``None`` when it says nothing
        (a "no" for a diversity model is :meth:`_one_value`'s)."""
        fixed = IDENTICAL_RECORDS if forcing == "records" else ONE_CLASS
        if conclusion in fixed:
            level = fixed[conclusion]
            step = Step(_FORCING_CLAIM, self.corners[_FORCING_CLAIM], premise, conclusion, start[1], target[1], level,
                        level)
            return Answer(premise, conclusion, "yes", (step,), level, (), level, detail=_FORCING_CLAIM)
        return None

    def _two_values(self, premise: str, conclusion: str, target: tuple[str, sympy.Expr | None], records: sympy.Expr,
                    params: Mapping[str, object]) -> Answer | None:
        """"No" from a definition of the released values to ε-LDP, ε-DP, (k,ε)-DP or (k,t)-closeness, witnessed by a
        release of values a and b (``privcert:deterministic_subsets``): b held once, where the premise is finite
        in any partition (:data:`FINITE_WITH_A_SINGLE`), or once in each class where it needs both values in every
        class (:data:`FINITE_WITH_TWO_PER_CLASS`, a smallest class of 2 or more). The conclusion is infinite there:
        ε-LDP always (``privcert:deterministic_not_ldp``), ε-DP when b is held once (``privcert:deterministic_dp``),
        (k,ε)-DP when b is held at most k times, (k,t)-closeness when at most N - k. ε-DP and (k,ε)-DP measured
        inside the classes are not read so. The witness is at one level of the premise: asked without a level."""
        given = params.get("k")
        claims = (_SUBSETS_CLAIM, _INFINITE_ON_VALUES.get(conclusion, _SUBSETS_CLAIM))
        if (premise not in FINITE_WITH_A_SINGLE | FINITE_WITH_TWO_PER_CLASS or conclusion not in _INFINITE_ON_VALUES
                or any(claim_id not in self.corners for claim_id in claims) or not records.is_Integer
                or records < 2 or not isinstance(given, int) or isinstance(given, bool)
                or (conclusion in GLOBAL_DP and _truthy(params.get("dp_within_classes")))):
            return None
        per_class = premise not in FINITE_WITH_A_SINGLE
        if per_class and given < 2:
            return None
        held = (1 if given == records else 2) if per_class else 1
        size = target[1]
        if conclusion in ("k_eps_dp", "kt_closeness") and (size is None or not size.is_Integer):
            return None
        infinite = {"ldp": True, "dp": held == 1, "k_eps_dp": held <= (size or 0),
                    "kt_closeness": held <= records - (size or 0)}[conclusion]
        if not infinite:
            return None
        where = "once in each class" if per_class else "once"
        return Answer(premise, conclusion, "no", evidence=tuple(dict.fromkeys(claims)),
                      detail=f"{_SUBSETS_CLAIM}: a release of values a and b, b held {where} ({held} record(s)), is "
                      f"{premise} at a finite level and {conclusion} infinite")

    def _one_value(self, premise: str, conclusion: str, params: Mapping[str, object],
                   value: sympy.Expr | None) -> Answer | None:
        """"No" witnessed by a release whose records hold one value (``privcert:forcing_levels``), when no path
        arrives: it is at the premise's forcing level (:data:`FORCING`), hence at every level of the premise, and
        at the weakest level of the diversity models (:data:`ONE_VALUE_WEAKEST`) in every partition, and of the
        partition's definitions (:data:`SINGLETONS_WEAKEST`) in classes of one record, where the query's smallest
        class is 1 (the witness is that release, in classes of the query's smallest class, or of one record
        each; ``detail`` says which). In the reading of Ekenstedt et al. 2022, Def. 5 the release of one value is
        ε-DP and (k,ε)-DP at ε = 0 as well (``privcert:deterministic_dp``: e^ε = 1, no removal moves a share), so
        the rule holds for deterministic releases at every level too."""
        if premise not in FORCING or _FORCING_CLAIM not in self.corners:
            return None
        singletons = conclusion in SINGLETONS_WEAKEST and params.get("k") == 1
        if conclusion not in ONE_VALUE_WEAKEST and not singletons:
            return None
        where = "in classes of one record " if singletons else "in any partition "
        level = "every level" if value is None else f"{value}"
        return Answer(premise, conclusion, "no", evidence=(_FORCING_CLAIM,),
                      detail=f"{_FORCING_CLAIM}: a release whose records hold one value {where}is {premise} at "
                      f"{level} (its forcing level {FORCING[premise][0]}) and {conclusion} at its weakest level")

    def _corner(self, premise: str, conclusion: str, start: tuple[str, sympy.Expr | None],
                target: tuple[str, sympy.Expr | None], records: sympy.Expr, params: Mapping[str, object],
                value: sympy.Expr | None) -> Answer | None:
        """"Yes" at the level the query's own N and k fix for the conclusion on every release, if they fix one
        (asked when no path arrives).

        One record (``privcert:one_record``) and one class (k = N, ``privcert:one_class``) fix the
        class-distribution levels; a given smallest class k fixes k-anonymity and the prosecutor risk
        (``privcert:given_smallest_class``); classes of one record fix class-wise ε-DP and (k,ε)-DP at 0
        (``privcert:singleton_classwise_dp``). The level is exact: no path gives a stronger one.
        """
        given = params.get("k")
        fixed: tuple[str, sympy.Expr] | None = None
        if records == 1 and conclusion in ONE_RECORD:
            fixed = ("privcert:one_record", ONE_RECORD[conclusion])
        elif _one_class(records, params) and conclusion in ONE_CLASS:
            fixed = ("privcert:one_class", ONE_CLASS[conclusion])
        elif (_truthy(params.get("singleton_classes")) and _truthy(params.get("dp_within_classes"))
              and conclusion in SINGLETON_CLASSWISE):
            fixed = ("privcert:singleton_classwise_dp", SINGLETON_CLASSWISE[conclusion])
        elif isinstance(given, int) and not isinstance(given, bool) and conclusion in ("k_anonymity", "prosecutor_risk"):
            size = sympy.Integer(given)
            fixed = ("privcert:given_smallest_class", size if conclusion == "k_anonymity" else 1 / size)
        if fixed is None:
            return self._from_smallest_class(premise, conclusion, start, params, value)
        if fixed[0] not in self.corners or _weakest(conclusion, fixed[1]):
            return None
        claim_id, level = fixed
        step = Step(claim_id, self.corners[claim_id], premise, conclusion, start[1], target[1], level,
                    None if value is None else level)
        return Answer(premise, conclusion, "yes", (step,), level, (), None if value is None else level,
                      detail=claim_id)

    def _from_smallest_class(self, premise: str, conclusion: str, start: tuple[str, sympy.Expr | None],
                             params: Mapping[str, object], value: sympy.Expr | None) -> Answer | None:
        """"Yes" at the level k-anonymity at the query's k gives the conclusion (``privcert:given_smallest_class``
        then a path from k-anonymity): what every release of that smallest class meets, whatever the premise."""
        given = params.get("k")
        claim_id = "privcert:given_smallest_class"
        if (not isinstance(given, int) or isinstance(given, bool) or premise == "k_anonymity"
                or claim_id not in self.corners):
            return None
        size = sympy.Integer(given)
        via = self.implies("k_anonymity", conclusion, params, size, derive=False)
        if via.holds != "yes" or via.value is None or via.value.free_symbols or via.conditions:
            return None
        if _weakest(conclusion, via.value):
            return None
        first = Step(claim_id, self.corners[claim_id], premise, "k_anonymity", start[1], None, size, size)
        steps = (first, *(replace(step, value=step.value if value is not None else None) for step in via.path))
        return Answer(premise, conclusion, "yes", steps, via.value, (), None if value is None else via.value,
                      detail=" -> ".join(step.claim_id for step in steps))

    def assumptions(self) -> frozenset[str]:
        """The assumption names the claims are stated under (``Assumption(name)`` in their conditions)."""
        return frozenset(a.args[0].name for e in self.edges for c in e.conditions for a in c.atoms(Assumption))

    def checked(self, params: Mapping[str, object] | None) -> dict[str, object]:
        """``params`` checked: known names, N >= 1, sizes 1 <= k <= N, assumptions true/false and consistent.

        With N = 2 and a smallest class k = 1 both classes hold one record: ``singleton_classes`` is added.

        Raises
        ------
        ValueError
            Naming the parameter: an unknown name, a value out of range, or contradictory assumptions
            (``singleton_classes`` with a smallest class k >= 2).
        """
        params = dict(params or {})
        assumptions = self.assumptions()
        known = ("N", *SIZE_PARAMETERS, *sorted(assumptions))
        for name, value in params.items():
            if name not in known:
                raise ValueError(f"parameter {name!r}: unknown; expected one of {', '.join(known)}")
            if name in assumptions:
                if not (isinstance(value, bool) or value in (0, 1) or str(value).lower() in ("true", "false")):
                    raise ValueError(f"parameter {name!r}: expected true or false, found {value!r}")
            elif isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"parameter {name!r}: expected an integer, found {value!r}")
        records = params.get("N")
        if isinstance(records, int) and records < 1:
            raise ValueError(f"parameter 'N': the number of records is at least 1, found {records}")
        for name in SIZE_PARAMETERS:
            value = params.get(name)
            if isinstance(value, int) and (value < 1 or (isinstance(records, int) and value > records)):
                bound = f"1 <= {name} <= N = {records}" if isinstance(records, int) else f"{name} >= 1"
                raise ValueError(f"parameter {name!r}: a size is {bound}, found {value}")
        if _truthy(params.get("singleton_classes")) and params.get("k", 1) != 1:
            raise ValueError(f"parameters 'singleton_classes' and 'k': singleton classes have a smallest class "
                             f"of k = 1, found k = {params['k']}")
        if records == 2 and params.get("k") == 1 and "singleton_classes" in assumptions:
            params["singleton_classes"] = True
        return params

    def strongest_level(
        self, premise: str, level: object, conclusion: str, params: Mapping[str, object] | None = None,
        *, derive: bool = True, forcing_levels: bool = True,
    ) -> Answer:
        """The strongest level of ``conclusion`` that ``premise`` at ``level`` guarantees (``forcing_levels`` as
        :meth:`implies`)."""
        return self.implies(premise, conclusion, params, level, derive=derive, forcing_levels=forcing_levels)

    def relation(self, a: str, b: str, params: Mapping[str, object] | None = None) -> str:
        """Ekenstedt et al. 2022, Def. 3 between a and b: ``equivalent``, ``reciprocal``, ``generalisation``
        (a ⇒ b and b ⇏ a), ``implies``, ``implied_by``, ``unrelated`` or ``unknown``."""
        forward = self.implies(a, b, self._swap(params, False))
        backward = self.implies(b, a, self._swap(params, True))
        if forward.f is not None and backward.f is not None:
            x, y = _level_symbol(a), _level_symbol(b)
            there = sympy.simplify(backward.f.subs(y, forward.f) - x) == 0
            back = sympy.simplify(forward.f.subs(x, backward.f) - y) == 0
            return "equivalent" if there and back else "reciprocal"
        if forward.holds == "yes":
            return "generalisation" if backward.holds == "no" else "implies"
        if backward.holds == "yes":
            return "implied_by"
        return "unrelated" if forward.holds == backward.holds == "no" else "unknown"

    @staticmethod
    def _swap(params: Mapping[str, object] | None, swap: bool) -> dict[str, object]:
        params = dict(params or {})
        if swap:
            first, second = params.pop("k_premise", None), params.pop("k_conclusion", None)
            params.update({k_: v for k_, v in (("k_premise", second), ("k_conclusion", first)) if v is not None})
        return params

    @staticmethod
    def _size(definition_id: str, role: Role, params: Mapping[str, object]) -> sympy.Expr | None:
        if definition_id not in SIZED | CLASS_BASED:
            return None
        found = size_for(definition_id, role, {p: v for p, v in params.items() if p.startswith("k")}, required=False)
        return k if found is None else sympy.Integer(found)

    def _leading_to(self, conclusion: str) -> frozenset[str]:
        """Definitions from which ``conclusion`` is reached along usable edges, sizes and conditions ignored
        (with ``conclusion`` itself): a path that leaves them never arrives, so it is not extended."""
        seen, frontier = {conclusion}, [conclusion]
        while frontier:
            current = frontier.pop()
            for edge in self.usable():
                if edge.conclusion == current and edge.premise not in seen:
                    seen.add(edge.premise)
                    frontier.append(edge.premise)
        return frozenset(seen)

    def _paths(self, path: _Path, target: tuple[str, sympy.Expr | None], records: sympy.Expr,
               params: Mapping[str, object], leads: frozenset[str]) -> Iterator[_Path]:
        if path.state == target and path.steps:
            yield path
            return
        if len(path.steps) == MAX_STEPS:
            return
        visited = {path.state} | {(s.premise, s.premise_size) for s in path.steps}
        for edge in self.usable():
            if (edge.premise != path.state[0] or edge.conclusion not in leads
                    or (edge.conclusion in PARAMETER_LEVELS and path.steps) or not _in_reading(edge, params)):
                continue
            for extended in self._extend(path, edge, target, records, params):
                if extended.state not in visited:
                    yield from self._paths(extended, target, records, params, leads)

    def _extend(self, path: _Path, edge: Edge, target: tuple[str, sympy.Expr | None], records: sympy.Expr,
                params: Mapping[str, object]) -> Iterator[_Path]:
        for new_size, step, pending in self._steps_at(edge, path.state[1], target, records, params):
            yield _Path((edge.conclusion, new_size), path.start, (*path.steps, step),
                        tuple(dict.fromkeys((*path.conditions, *pending))))

    def _steps_at(self, edge: Edge, size: sympy.Expr | None, target: tuple[str, sympy.Expr | None],
                  records: sympy.Expr, params: Mapping[str, object]
                  ) -> list[tuple[sympy.Expr | None, Step, list[sympy.Basic]]]:
        """The ways ``edge`` can be taken from a state of this ``size``: the conclusion's size, the step
        (with the level map f at these sizes), the conditions left pending. They depend on the edge and the
        numbers only, not on the path that led here, so each is computed once per query's parameters."""
        chosen = {s for s in (edge.conclusion_size.free_symbols if edge.conclusion_size is not None else ())
                  if s in _EDGE_SIZES and s != edge.premise_size}
        by_target = bool(chosen) and edge.conclusion not in CLASS_BASED  # see _candidates
        # what an edge step reads of the query: the smallest class k and the assumptions (the other sizes
        # only place the start and the target, and N is ``records``), so queries that differ elsewhere share it
        read = sorted((name, repr(value)) for name, value in params.items() if name == "k" or name not in _SIZES_AND_N)
        key = (id(edge), size, target if by_target else None, records, tuple(read))
        if key not in self._memo:
            self._memo[key] = list(self._edge_steps(edge, size, target, records, params))
        return self._memo[key]

    def _edge_steps(self, edge: Edge, size: sympy.Expr | None, target: tuple[str, sympy.Expr | None],
                    records: sympy.Expr, params: Mapping[str, object]
                    ) -> Iterator[tuple[sympy.Expr | None, Step, list[sympy.Basic]]]:
        binding: dict[sympy.Basic, sympy.Expr] = {N: records}
        conditions: list[sympy.Basic] = []
        if isinstance(edge.premise_size, sympy.Symbol):
            binding[edge.premise_size] = size if size is not None else edge.premise_size
        elif edge.premise_size is not None and size is not None:
            conditions.append(sympy.Eq(size, edge.premise_size))
        free = sorted(
            (s for s in (edge.conclusion_size.free_symbols if edge.conclusion_size is not None else ())
             if s in _EDGE_SIZES and s not in binding), key=str)
        choices: list[dict[sympy.Basic, sympy.Expr]] = [{}]
        if free and edge.conclusion in CLASS_BASED:
            # the smallest class is a fact, not a choice: the query's k, else unknown (the symbol k)
            choices = [{free[0]: sympy.Integer(str(params["k"])) if "k" in params else k}]
        elif free:
            choices = [{free[0]: c} for c in self._candidates(edge, free[0], binding, target, records)]
        for choice in choices:
            full = {**binding, **choice}
            new_size = None if edge.conclusion_size is None else sympy.sympify(edge.conclusion_size).subs(full)
            pending = self._decide(chain(
                conditions, (c.subs(full) for c in edge.conditions), _domain(edge.conclusion, new_size, records)),
                params)
            if pending is None:
                continue
            try:
                f = sympy.sympify(edge.f).subs(full)
            except ValueError:  # f is undefined at these sizes (a Max over 1/(N - k) with k = N)
                continue
            if f.has(sympy.zoo, sympy.nan):
                continue
            yield new_size, Step(edge.claim_id, edge.source, edge.premise, edge.conclusion, size, new_size, f,
                                    None), pending

    @staticmethod
    def _candidates(edge: Edge, free: sympy.Symbol, binding: Mapping[sympy.Basic, sympy.Expr],
                    target: tuple[str, sympy.Expr | None], records: sympy.Expr) -> list[sympy.Expr]:
        for c in edge.conditions:
            if isinstance(c, sympy.Eq) and free in c.free_symbols:
                return [s.subs(binding) for s in _solutions(c, free)]
        values = [] if target[1] is None else [target[1], records - target[1]]
        values += [sympy.Integer(1), records - 1, *(v for v in binding.values() if v != records)]
        values += [records - v for v in binding.values() if v != records]
        return list(dict.fromkeys(values))

    @staticmethod
    def _decide(conditions: Iterable[sympy.Basic], params: Mapping[str, object]) -> list[sympy.Basic] | None:
        """The conditions left undecided, or None at the first one that is false (the rest are not evaluated)."""
        pending = []
        for c in conditions:
            value = c.replace(lambda e: isinstance(e, Assumption),
                              lambda e: sympy.true if _truthy(params.get(e.args[0].name)) else e)
            if value is sympy.false:
                return None
            if value is not sympy.true:
                if isinstance(value, Assumption):
                    return None
                pending.append(value)
        return pending

    @staticmethod
    def _best(found: list[_Path], x: sympy.Symbol, value: sympy.Expr | None, conclusion: str) -> _Path:
        stronger = definition(conclusion).stronger
        probes = [value] if value is not None else [sympy.Rational(11, 10), sympy.Integer(2), sympy.Integer(5)]

        def score(path: _Path) -> tuple[int, int, int]:
            wins = 0
            for probe in probes:
                mine = path.f.subs(x, probe)
                if all(stronger(mine, other.f.subs(x, probe)) in (sympy.true, True)
                       for other in found if other.f.free_symbols <= {x} | mine.free_symbols):
                    wins += 1
            return (-wins, len(path.steps), len(path.conditions))

        return min(found, key=score)

    @staticmethod
    def _valued(steps: tuple[Step, ...], x: sympy.Symbol, value: sympy.Expr | None) -> Iterator[Step]:
        current = value
        for step in steps:
            current = None if current is None else _simplified(step.f.subs(_level_symbol(step.premise), current))
            yield Step(step.claim_id, step.source, step.premise, step.conclusion,
                       step.premise_size, step.conclusion_size, step.f, current)

    def _covers(self, edge: Edge, size_a: sympy.Expr | None, size_b: sympy.Expr | None, records: sympy.Expr,
                params: Mapping[str, object]) -> bool:
        """Does the non-implication ``edge`` apply to its definitions at these sizes?"""
        if edge.claim_id in GROWING_N and records.is_number:
            return False
        if _one_class(records, params) and edge.conclusion in ONE_CLASS:
            return False
        if (_truthy(params.get("singleton_classes")) and _truthy(params.get("dp_within_classes"))
                and edge.conclusion in SINGLETON_CLASSWISE):
            return False
        binding: dict[sympy.Basic, sympy.Expr] = {N: records}
        conditions = list(edge.conditions)
        for declared, actual in ((edge.premise_size, size_a), (edge.conclusion_size, size_b)):
            if isinstance(declared, sympy.Symbol) and actual is not None:
                binding[declared] = actual
            elif declared is not None and actual is not None:
                conditions.append(sympy.Eq(actual, declared))
        return self._decide([c.subs(binding) for c in conditions], params) == []

    def _reaches(self, source: tuple[str, sympy.Expr | None], target: tuple[str, sympy.Expr | None],
                 records: sympy.Expr, params: Mapping[str, object]) -> tuple[str, ...] | None:
        """Claim ids of an implication path from ``source`` to ``target`` (empty when equal)."""
        if source == target:
            return ()
        start = _Path(source, _level_symbol(source[0]), (), ())
        path = next(self._paths(start, target, records, params, self._leading_to(target[0])), None)
        return None if path is None else tuple(s.claim_id for s in path.steps)

    def _refusal(self, premise: str, conclusion: str, start: tuple[str, sympy.Expr | None],
                 target: tuple[str, sympy.Expr | None], records: sympy.Expr, params: Mapping[str, object],
                 derive: bool = True) -> Answer:
        """A "no" from a non-implication A ⇏ B, directly or derived: if A ⇒ X and Y ⇒ B then
        X ⇏ Y (else A ⇒ X ⇒ Y ⇒ B); derived only when N is a number and ``derive``."""
        evidence = self._direct_evidence(premise, conclusion, start, target, records, params)
        if evidence:
            return Answer(premise, conclusion, "no", evidence=tuple(evidence), detail="non-implication: " + ", ".join(evidence))
        derived = self._derived_refusal(start, target, records, params) if records.is_number and derive else None
        if derived is None:
            return Answer(premise, conclusion, "unknown", detail="no path and no non-implication claim")
        edge, chain = derived
        return Answer(premise, conclusion, "no", evidence=chain,
                      detail=f"derived from {edge.claim_id} ({edge.premise} ⇏ {edge.conclusion}) via {' -> '.join(chain)}")

    def _direct_evidence(self, premise: str, conclusion: str, start: tuple[str, sympy.Expr | None],
                         target: tuple[str, sympy.Expr | None], records: sympy.Expr,
                         params: Mapping[str, object]) -> list[str]:
        deterministic = deterministic_reading(premise, conclusion)
        return [e.claim_id for e in self.non_implications()
                if (e.premise, e.conclusion) == (premise, conclusion) and _in_reading(e, params)
                and _witnessed_in(e, deterministic) and self._covers(e, start[1], target[1], records, params)]

    def refusal(self, premise: str, conclusion: str, params: Mapping[str, object] | None = None) -> tuple[str, ...]:
        """The checked non-implications ``premise ⇏ conclusion`` that apply under ``params`` (no path search)."""
        params = dict(params or {})
        records = _records(params["N"]) if "N" in params else N
        start = (premise, self._size(premise, "premise", params))
        target = (conclusion, self._size(conclusion, "conclusion", params))
        return tuple(self._direct_evidence(premise, conclusion, start, target, records, params))

    def _derived_refusal(self, start: tuple[str, sympy.Expr | None], target: tuple[str, sympy.Expr | None],
                         records: sympy.Expr, params: Mapping[str, object]) -> tuple[Edge, tuple[str, ...]] | None:
        """The first non-implication X ⇏ Y with paths start ⇒ X and Y ⇒ target, and the chain of
        claim ids; sizes tried: the given ones, N minus them, 1 and N-1 (``records`` a number)."""
        sizes = [v for v in (start[1], target[1]) if v is not None and v.is_number]
        values = list(dict.fromkeys([*sizes, *(records - v for v in sizes), sympy.Integer(1), records - 1]))
        given = params.get("k")
        smallest = [sympy.Integer(given)] if isinstance(given, int) and not isinstance(given, bool) else values
        deterministic = deterministic_reading(start[0], target[0])

        def choices(definition_id: str) -> list[sympy.Expr | None]:
            # the smallest class is a fact of the release: a class-based step is at the query's k
            return list(smallest) if definition_id in CLASS_BASED else list(values) if definition_id in SIZED else [None]

        for edge in self.non_implications():
            if not _in_reading(edge, params) or not _witnessed_in(edge, deterministic):
                continue
            for size_a, size_b in product(choices(edge.premise), choices(edge.conclusion)):
                if not self._covers(edge, size_a, size_b, records, params):
                    continue
                if self._reaches((edge.premise, size_a), (edge.conclusion, size_b), records, params) is not None:
                    continue  # an implication under these parameters: the non-implication has no witness here
                before = self._reaches((edge.premise, size_a), start, records, params)
                after = None if before is None else self._reaches(target, (edge.conclusion, size_b), records, params)
                if before is not None and after is not None:
                    return edge, (*before, edge.claim_id, *after)
        return None


def _check_sized(state: tuple[str, sympy.Expr | None], role: Role, records: sympy.Expr) -> None:
    """A subset size k of (k,t)-closeness or (k,ε)-DP lies in [1, N - 1] (Ekenstedt et al. 2022, Defs. 7-8)."""
    definition_id, size = state
    if definition_id not in SIZED or size is None or not (size.is_number and records.is_number):
        return
    if not 1 <= size <= records - 1:
        raise ValueError(f"{definition_id} as {role}: a subset size k lies in [1, N - 1] = [1, {records - 1}], "
                         f"found k = {size} (parameter k_{role} or k)")


def _check_partition(state: tuple[str, sympy.Expr | None], records: sympy.Expr) -> None:
    """A smallest class of k records among N exists only for k = N (one class) or 2k <= N."""
    definition_id, size = state
    if definition_id not in CLASS_BASED or size is None or not (size.is_number and records.is_number):
        return
    if not (size == records or 2 * size <= records) or size < 1:
        raise ValueError(
            f"{definition_id}: no partition of N = {records} records has a smallest class of k = {size} "
            f"(expected k = N, one class, or 1 <= k <= N/2)")


def _weakest(definition_id: str, level: sympy.Expr) -> bool:
    """``level`` is the definition's weakest: every release meets it, it says nothing (k = 1, R = 1, ...)."""
    item = definition(definition_id)
    return bool(level == (item.domain.sup if item.direction == "smaller_is_stronger" else item.domain.inf))


def _check_defined(premise: str, conclusion: str, records: sympy.Expr) -> None:
    """ε-DP, (k,ε)-DP and (k,t)-closeness are undefined on one record: the query is bad input."""
    if records != 1:
        return
    for definition_id in (premise, conclusion):
        if definition_id in UNDEFINED_AT_ONE_RECORD:
            raise ValueError(f"{definition_id} is undefined at N = 1: {UNDEFINED_AT_ONE_RECORD[definition_id]}")


def _one_class(records: sympy.Expr, params: Mapping[str, object]) -> bool:
    """The query's release has one class: N = 1, or a smallest class k = N."""
    given = params.get("k")
    return records == 1 or (records.is_number and isinstance(given, int) and not isinstance(given, bool)
                            and given == records)


def deterministic_reading(premise: str, conclusion: str) -> bool:
    """A query naming a definition of the released values (:data:`DETERMINISTIC_ONLY`) is about deterministic
    releases: its "no" needs a witness among them."""
    return bool({premise, conclusion} & DETERMINISTIC_ONLY)


def _witnessed_in(edge: Edge, deterministic: bool) -> bool:
    """A non-implication answers in the query's reading only when its witnesses are releases of that reading."""
    return not deterministic or edge.claim_id in DETERMINISTIC_WITNESSES


def _in_reading(edge: Edge, params: Mapping[str, object]) -> bool:
    """One reading per answer: with ``dp_within_classes`` asserted, (k,ε)-DP and ε-DP are measured inside
    each class, so a claim relating them is used only when it is stated in that reading."""
    if not _truthy(params.get("dp_within_classes")) or not {edge.premise, edge.conclusion} & GLOBAL_DP:
        return True
    return any(a.args[0].name == "dp_within_classes" for c in edge.conditions for a in c.atoms(Assumption))


def _witnessed_at(answer: Answer, params: Mapping[str, object], value: sympy.Expr) -> Answer:
    """A "no" at a forcing level of its premise, kept when a witness family of :mod:`theory.tables.witnesses`
    has a member at that level (its premise level is the forcing level, its conclusion beyond every bound), else
    "unknown": the non-implications' witnesses are releases at other levels."""
    from theory.tables.witnesses import NoWitnessError, witness

    sizes = {name: int(str(v)) for name, v in params.items() if name in ("N", *SIZE_PARAMETERS)}
    try:
        found = witness(answer.premise, answer.conclusion, WITNESS_BOUND, params={**sizes, "classwise": int(_truthy(
            params.get("dp_within_classes")))})
    except (NoWitnessError, ValueError):
        found = None
    if found is not None and found.premise_level == 1:
        return replace(answer, witness=found.table, detail=f"{answer.detail}; witnessed at {answer.premise} = {value} "
                       f"by the {found.family} family ({found.detail})")
    return Answer(answer.premise, answer.conclusion, "unknown",
                  detail=f"{answer.detail}, whose witnesses are not at {answer.premise} = {value}: no witness at that "
                  "level is known")


def _truthy(value: object) -> bool:
    return value is True or str(value).lower() in ("1", "true", "yes")


def build_graph(statuses: Mapping[str, CheckResult] | None = None) -> Graph:
    """The map from the registered claims; statuses are checked now unless given."""
    if statuses is None:
        from theory.checks import check_all

        statuses = check_all()
    edges: list[Edge] = []
    for item in map_claims():
        outcome = statuses[item.id]
        edges.extend(_edges_of(item, outcome))
    corners = {item.id: item.source for item in DERIVED_CLAIMS
               if item.id in (*CORNER_CLAIMS, *_INFINITE_ON_VALUES.values()) and item.id in statuses
               and statuses[item.id].status in USABLE}
    return Graph(tuple(edges), corners)
