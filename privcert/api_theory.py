"""The theory's answers as typed results: does A imply B, a witness table, what measured levels imply.

:mod:`privcert.api` re-exports these functions. The command line (``privcert theory ...``) and the
workbench's Explore page only render their results (text, JSON, HTML), so the two cannot answer one
question differently. Every function reads one implication graph, built once per process from the
claims' cached checked statuses (:func:`theory.status_cache.cached_statuses`), one call at a time
(:mod:`privcert.api_claims`); the map is :mod:`privcert.api_map`.

References
----------
Ekenstedt et al. 2022, Definitions 1-3, Figs. 1-2 (the implication map and its level maps).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from privcert.api_claims import (
    ClaimSource,
    QueryError,
    at_level,
    bound_text,
    checked_definition,
    name_of,
    serialized,
    shared_graph,
    sized_text,
    sstr,
    when_text,
)

if TYPE_CHECKING:
    import sympy

    from privcert.api_map import MapEdge
    from theory.answers.audit_levels import AuditLevels
    from theory.answers.explain import Explanation
    from theory.answers.graph import Step
    from theory.tables.probability_table import ProbabilityTable
    from verifier.audit import AuditResult

__all__ = ["PathStep", "Implication", "Witness", "implies", "witness", "explain"]


@dataclass(frozen=True)
class PathStep:
    """One step of a derivation (:class:`theory.answers.graph.Step`): a claim taking its premise to its conclusion
    with the level map ``f`` (the conclusion's level in the premise's level symbol), and its value once the levels
    are known."""

    step: Step

    @property
    def claim(self) -> ClaimSource:
        return ClaimSource(self.step.claim_id, self.step.source)

    @property
    def premise(self) -> str:
        return self.step.premise

    @property
    def conclusion(self) -> str:
        return self.step.conclusion

    @property
    def f(self) -> sympy.Expr:
        return self.step.f

    @property
    def sentence(self) -> str:
        """``k-anonymity at k implies prosecutor re-identification risk at R ≤ 1/k``: the step in words."""
        return f"{at_level(self.premise)} implies {name_of(self.conclusion)} at {bound_text(self.conclusion, self.f)}"

    def text(self) -> str:
        """``A(k=5) → B: f  [claim: source]``: the step as the command line prints it."""
        from verifier.display import formula

        return (f"{sized_text(self.premise, sstr(self.step.premise_size))} → "
                f"{sized_text(self.conclusion, sstr(self.step.conclusion_size))}: {formula(self.f)}  "
                f"[{self.claim.claim}: {self.claim.source}]")

    def to_json(self) -> dict[str, Any]:
        from verifier.display import formula

        return {"claim": self.claim.claim, "source": str(self.claim.source), "reference": self.claim.reference,
                "from": self.premise, "to": self.conclusion, "from_size": sstr(self.step.premise_size),
                "to_size": sstr(self.step.conclusion_size), "f": sstr(self.f), "formula": formula(self.f),
                "value": sstr(self.step.value), "sentence": self.sentence}


@dataclass(frozen=True)
class Witness:
    """A table satisfying ``premise`` whose ``conclusion`` level exceeds ``bound``, re-measured exactly
    (:func:`theory.tables.witnesses.witness`); levels in each definition's own units (t, or ε)."""

    premise: str
    conclusion: str
    bound: sympy.Expr
    premise_level: sympy.Expr
    conclusion_level: sympy.Expr
    exceeds: bool
    family: str
    table: Mapping[str, Any]
    detail: str

    @property
    def summary(self) -> str:
        """``A at t = 1; B at ε = ln(299), beyond ε = 5``."""
        from theory.answers.explain import level_text

        return (f"{self.premise} at {level_text(self.premise, self.premise_level)}; {self.conclusion} at "
                f"{level_text(self.conclusion, self.conclusion_level)}, beyond {level_text(self.conclusion, self.bound)}")

    def to_json(self) -> dict[str, Any]:
        from verifier.display import exact_text

        return {"premise": self.premise, "conclusion": self.conclusion, "bound": exact_text(self.bound),
                "premise_level": exact_text(self.premise_level), "conclusion_level": exact_text(self.conclusion_level),
                "exceeds": self.exceeds, "family": self.family, "table": dict(self.table), "detail": self.detail,
                "summary": self.summary}


@dataclass(frozen=True)
class Implication:
    """The answer to "does A imply B?" (:func:`implies`).

    Attributes
    ----------
    holds
        ``"yes"`` (a path of proven or corrected claims), ``"no"`` (a non-implication claim, in ``evidence``)
        or ``"unknown"``.
    headline
        The answer before its details: ``yes``, ``only if N = 2``, ``no``, ``unknown: no claim connects them``.
    f
        The composed level map (B's level in A's level symbol), when it holds.
    level, value
        A's level when given, and B's level it guarantees.
    conditions
        The conditions the path needs that the parameters did not decide.
    path, evidence
        The derivation's steps; the claims a "no" rests on (the map's arrows, numbered as on it).
    witness, witness_error
        When a bound was given and the answer is not "yes": a table beyond it, or why there is none.
    level_witness
        For a "no" at a forcing level of the premise (t = 1, ε = 0, ...): a table at that level whose conclusion
        level the premise does not bound (:attr:`theory.answers.graph.Answer.witness`).
    """

    premise: str
    conclusion: str
    holds: Literal["yes", "no", "unknown"]
    f: sympy.Expr | None
    level: sympy.Expr | None
    value: sympy.Expr | None
    conditions: tuple[sympy.Basic, ...]
    path: tuple[PathStep, ...]
    evidence: tuple[MapEdge, ...]
    detail: str
    witness: Witness | None = None
    witness_error: str | None = None
    level_witness: ProbabilityTable | None = None

    @property
    def when(self) -> str:
        """The conditions in words (``N = 2``), ``always`` when there are none."""
        return when_text(self.conditions)

    @property
    def headline(self) -> str:
        if self.holds == "yes":
            return "yes" if self.when == "always" else f"only if {self.when}"
        if self.holds == "no":
            return "no"
        return "unknown: no claim connects them" if not self.path and not self.evidence else "unknown"

    @property
    def bound(self) -> str | None:
        """B's level against the composed map (``ε ≤ ln(t)``), when it holds."""
        return None if self.f is None else bound_text(self.conclusion, self.f)

    @property
    def guaranteed(self) -> str | None:
        """``ε = 2 (e^ε = e^2 ≈ 7.389) for dp at ε = 1 (...)``: B's level for A's given level."""
        from theory.answers.explain import level_text

        if self.value is None:
            return None
        return (f"{level_text(self.conclusion, self.value)} for {self.premise} at "
                f"{level_text(self.premise, self.level)}")

    @property
    def sentence(self) -> str:
        """The answer in one sentence, with the definitions' names."""
        premise, conclusion = name_of(self.premise), name_of(self.conclusion)
        if self.holds == "yes":
            opening = "Yes" if self.when == "always" else f"Only if {self.when}"
            if self.bound is None:
                return f"{opening}: {premise} implies {conclusion}."
            return f"{opening}: {at_level(self.premise)} implies {conclusion} at {self.bound}."
        if self.holds == "no":
            return f"No: {premise} does not imply {conclusion}."
        if not self.path and not self.evidence:
            return f"Unknown: no claim connects {premise} and {conclusion}."
        return f"Unknown: the claims found do not decide whether {premise} implies {conclusion}."

    def lines(self) -> list[str]:
        """The answer as the command line prints it."""
        lines = [f"{self.premise} ⇒ {self.conclusion}: {self.headline}"]
        if self.bound is not None:
            lines.append(f"bound: {self.bound}")
        if self.guaranteed is not None:
            lines.append(f"guaranteed: {self.guaranteed}")
        lines.extend(f"  {step.text()}" for step in self.path)
        if self.holds != "yes":
            lines.append(self.detail)
        if self.witness is not None:
            lines.append(f"witness ({self.witness.family}): {self.witness.summary}")
        if self.witness_error is not None:
            lines.append(f"witness: {self.witness_error}")
        return lines

    def to_json(self) -> dict[str, Any]:
        import sympy

        return {"premise": self.premise, "conclusion": self.conclusion, "holds": self.holds,
                "headline": self.headline, "sentence": self.sentence, "f": sstr(self.f), "bound": self.bound,
                "level": sstr(self.level), "value": sstr(self.value),
                "value_number": None if self.value is None else float(self.value.evalf(17)),
                "guaranteed": self.guaranteed, "conditions": [sympy.sstr(c) for c in self.conditions],
                "when": self.when, "path": [step.to_json() for step in self.path],
                "evidence": [item.claim.claim for item in self.evidence],
                "evidence_sources": [item.to_json() for item in self.evidence], "detail": self.detail,
                "witness": None if self.witness is None else self.witness.to_json(),
                "witness_error": self.witness_error,
                "level_witness": None if self.level_witness is None else self.level_witness.to_json()}


def _exact_level(value: sympy.Expr | Fraction | int | None) -> sympy.Expr | None:
    import sympy

    return None if value is None else sympy.sympify(value)


def _in_domain(definition_id: str, value: sympy.Expr | None, field: str) -> None:
    import sympy

    from theory.definitions import definition
    from verifier.display import formula

    if value is None:
        return
    item = definition(definition_id)
    if value != sympy.oo and not bool(item.domain.contains(value)):
        raise QueryError(f"{field}: the {formula(item.level)} of {definition_id} lies in {formula(item.domain)}, "
                         f"found {value}")


@serialized
def implies(premise: str, conclusion: str, params: Mapping[str, int] | None = None,
            level: sympy.Expr | Fraction | int | None = None, *,
            bound: sympy.Expr | Fraction | int | None = None) -> Implication:
    """Does ``premise`` imply ``conclusion`` under ``params`` (``N``, the sizes of
    :data:`theory.answers.graph.SIZE_PARAMETERS`, the assumptions, true)? The best path, its composed level map,
    and the conclusion's level guaranteed by the premise's ``level``; with ``bound`` and an answer other than
    "yes", a witness table whose conclusion level exceeds it (:func:`witness`).

    >>> answer = implies("dp", "ldp", level=1)
    >>> answer.headline, answer.guaranteed
    ('only if N = 2', 'ε = 2 (e^ε = e^2 ≈ 7.389) for dp at ε = 1 (e^ε = e ≈ 2.718)')

    Raises
    ------
    QueryError
        An unknown definition id (the message lists the valid ones), a level outside the premise's domain,
        parameters no table has, or a guaranteed level that depends on a parameter not given.
    """
    checked_definition(premise)
    checked_definition(conclusion)
    given = _exact_level(level)
    _in_domain(premise, given, "level")
    graph = shared_graph()
    try:
        answer = graph.implies(premise, conclusion, dict(params or {}), given)
    except ValueError as error:
        raise QueryError(str(error)) from None
    if answer.value is not None and answer.value.free_symbols:
        missing = ", ".join(sorted(str(symbol) for symbol in answer.value.free_symbols))
        raise QueryError(f"level: the guaranteed level of {conclusion} depends on {missing}; give each as a "
                         "parameter NAME=VALUE")
    path = tuple(PathStep(step) for step in answer.path)
    from privcert.api_map import map_edge

    arrows: dict[str, MapEdge] = {}
    for number, edge in enumerate(graph.edges, start=1):
        arrows.setdefault(edge.claim_id, map_edge(number, edge))
    evidence = tuple(arrows[claim] if claim in arrows else _off_map(claim, premise, conclusion)
                     for claim in answer.evidence)
    found, problem = None, None
    if bound is not None and answer.holds != "yes":
        try:
            found = _witness(premise, conclusion, bound, params)
        except QueryError as error:
            problem = str(error)
    return Implication(premise, conclusion, answer.holds, answer.f, given, answer.value, answer.conditions, path,
                       evidence, answer.detail, found, problem, answer.witness)


def _off_map(claim_id: str, premise: str, conclusion: str) -> MapEdge:
    """A claim a "no" rests on that draws no arrow of the map (numbered 0): the forcing levels'
    (``privcert:forcing_levels``), whose witness is a release at the premise's level."""
    from privcert.api_map import MapEdge
    from theory.claims.catalog import claim
    from theory.status_cache import cached_statuses

    found = claim(claim_id)
    return MapEdge(0, ClaimSource(claim_id, found.source), premise, conclusion, None, (),
                   cached_statuses()[claim_id].status, False, claim_id)


def _own_units(definition_id: str, ratio_level: object) -> sympy.Expr:
    """A theory level (ratio space: t, or e^ε) in the definition's own units (t, or ε = ln of the ratio)."""
    import sympy

    from theory.tables.levels import is_ratio_definition

    value = sympy.sympify(ratio_level)
    if is_ratio_definition(definition_id):
        return sympy.oo if value == sympy.oo else sympy.log(value)
    return value


def _witness(premise: str, conclusion: str, bound: sympy.Expr | Fraction | int,
             params: Mapping[str, int] | None) -> Witness:
    import sympy

    from theory.tables.witnesses import NoWitnessError, WitnessSizeError
    from theory.tables.witnesses import witness as find
    from verifier.display import exact_text

    checked_definition(premise)
    checked_definition(conclusion)
    value = sympy.sympify(bound)
    try:
        found = find(premise, conclusion, value, params=dict(params or {}))
    except WitnessSizeError as error:
        raise QueryError(f"parameter {error}") from None
    except (NoWitnessError, ValueError) as error:  # a ValueError: parameters no witness family reads
        raise QueryError(str(error)) from None
    except (OverflowError, sympy.PrecisionExhausted) as error:
        raise QueryError(f"bound {exact_text(value)}: too large to build a witness table exactly "
                         f"({type(error).__name__})") from None
    return Witness(premise, conclusion, value, _own_units(premise, found.premise_level),
                   _own_units(conclusion, found.conclusion_level), found.exceeds, found.family, found.table.to_json(),
                   found.detail)


@serialized
def witness(premise: str, conclusion: str, bound: sympy.Expr | Fraction | int,
            params: Mapping[str, int] | None = None) -> Witness:
    """A table satisfying ``premise`` at a level independent of ``bound`` whose ``conclusion`` level exceeds
    ``bound`` (the conclusion's own units: t, or ε), re-measured exactly (:func:`theory.tables.witnesses.witness`).

    Raises
    ------
    QueryError
        An unknown definition, the pair implies under these parameters (the message cites the claim), no
        witness family covers it, or the table would be too large to build exactly.
    """
    return _witness(premise, conclusion, bound, params)


@serialized
def explain(levels: AuditLevels | AuditResult | str | Path) -> Explanation:
    """What measured levels imply about every other definition, each with its derivation
    (:func:`theory.answers.explain.explain`): ``levels`` are an audit's, or the JSON file of
    ``privcert audit --json`` or ``privcert measure --json``.

    Raises
    ------
    VerifierError
        The file is not a results document, or a level lies outside its definition's domain (the message
        names the measurement).
    """
    from theory.answers.audit_levels import AuditLevels, read_audit
    from theory.answers.explain import explain as run

    if isinstance(levels, (str, Path)):
        read = read_audit(levels)
    elif isinstance(levels, AuditLevels):
        read = levels
    else:
        read = AuditLevels.of(levels)
    return run(read, shared_graph())


