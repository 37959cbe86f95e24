"""What an audit's measured levels imply about every other definition on the map.

An audit's measured levels (:class:`~theory.answers.audit_levels.AuditLevels`, typed and checked once: from a
measure or audit result, or from the JSON of ``privcert audit --json`` / ``privcert measure --json``) are the
optimal level of each measured model on each attribute, the release's number of rows N and its classes. Each finite measured
level is a premise (:class:`Measured`) read as what it is: at its attribute's counted rows N and
their smallest class k, at the requirement's subset size for (k,t)-closeness and (k,ε)-DP, and
for stochastic t-closeness only with the multiplicative distance (an EMD level feeds no claim);
in a randomized audit only the quasi-identifier models and the randomized levels are premises.
For every definition of :mod:`theory.definitions`, :func:`explain` asks the implication map
(:mod:`theory.answers.graph`) for the strongest level each premise guarantees, and keeps the strongest per definition and attribute,
with the derivation path and, per step, the claim and its checked status. A definition
neither measured finite nor implied is said plainly to have nothing, with the reason (a
deterministic release, a level measured infinite, a non-implication claim, or no claim
connecting them).

Queries assume what the audit shows and nothing more: the smallest class (k-anonymity,
else ``1/prosecutor risk``), one bucket per value for δ-disclosure and for
multiplicative t-closeness measured over distinct values, ``l ≥ 2`` for recursive
(c,l)-diversity measured with ``l ≥ 2``, singleton classes when every class holds one row.

References
----------
Ekenstedt et al. 2022, Defs. 1-3 (levels, implication, composition); the claims cited per step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sympy

from theory.answers.audit_levels import AuditLevels, MeasuredLevel, read_audit
from theory.definitions import definition, definitions
from verifier.display import exact_text, readable
from verifier.errors import DataError
from verifier.registry import model

if TYPE_CHECKING:
    from theory.answers.graph import Graph

__all__ = ["DEF5_READING", "Measured", "Step", "Implied", "Nothing", "Explanation", "explain", "explain_file",
           "level_text", "AuditLevels", "MeasuredLevel"]

_SIZED_AT = {"kt_closeness": "N-1", "k_eps_dp": "1"}
"""Subset sizes asked for the sized definitions: (N-1, t)-closeness is the one multiplicative
t-closeness reaches (Ekenstedt et al. 2022, Lemma 2(3) corrected); (1, ε)-DP is ε-DP."""
DEF5_READING = ("as Ekenstedt et al. 2022, Def. 5 reads it (a record drawn from the release, records removed); "
                "the release itself, as a mechanism's output, is never ε-DP")
"""The one position on ε-DP and (k,ε)-DP of a deterministic release: a level holds in the reading of Ekenstedt
et al. 2022, Def. 5 (Def. 8 for k records), never for the release as a mechanism's output (claim
privcert:deterministic_dp). Stated with every such level explain implies and in the "nothing" line."""
_DP_READING = frozenset({"dp", "k_eps_dp"})
_DETERMINISTIC = {
    "ldp": "nothing: a deterministic release is never ε-LDP (two records released with different values "
           "differ with certainty; claim privcert:deterministic_not_ldp)",
    "dp": "nothing: no finite multiplicative t-closeness or δ-disclosure level to read ε-DP from (" + DEF5_READING
          + "; claim privcert:deterministic_dp)",
}


def level_text(definition_id: str, value: sympy.Expr | None) -> str:
    """A level of a definition with its symbol (:func:`verifier.display.symbol_level`).

    >>> level_text("dp", sympy.log(2))
    'ε = ln(2) ≈ 0.6931 (e^ε = 2)'
    """
    from verifier.display import formula, symbol_level

    return symbol_level(formula(definition(definition_id).level), value)


@dataclass(frozen=True)
class Measured:
    """One finite measured level of the audit, with what it was measured on: the premise of a query.

    Attributes
    ----------
    model, attribute
        The definition measured, on which attribute (``None`` for the quasi-identifier models).
    level
        The exact level.
    parameters
        The row's parameters (``bucketing``, ``l``, ``k``, ...).
    size
        The subset size of (k,t)-closeness and (k,ε)-DP: the requirement's ``k`` (``None`` otherwise).
    records
        N: the rows counted for the attribute (the release's rows less those ``missing = "exclude"`` left out).
    smallest
        The smallest class among the counted rows; ``None`` when the audit does not show it.
    """

    model: str
    attribute: str | None
    level: sympy.Expr
    parameters: Mapping[str, Any]
    size: int | None = None
    records: int = 0
    smallest: int | None = None

    def to_json(self) -> dict[str, Any]:
        found = {"model": self.model, "attribute": self.attribute, "level": exact_text(self.level)}
        return found if self.size is None else {**found, "k": self.size}

    @property
    def label(self) -> str:
        """``kt_closeness (k = 6) on s``: the model, its subset size, its attribute."""
        sized = "" if self.size is None else f" (k = {self.size})"
        return f"{self.model}{sized}{'' if self.attribute is None else ' on ' + self.attribute}"


@dataclass(frozen=True)
class Step:
    """One step of a derivation: the claim, its checked status, the definitions it relates."""

    claim: str
    status: str
    premise: str
    conclusion: str

    def to_json(self) -> dict[str, str]:
        return {"claim": self.claim, "status": self.status, "from": self.premise, "to": self.conclusion}


@dataclass(frozen=True)
class Implied:
    """The strongest level of ``definition`` the audit implies, from which measurement, along which path."""

    definition: str
    attribute: str | None
    level: sympy.Expr
    size: int | None
    source: Measured
    derivation: tuple[Step, ...]
    scope: tuple[str, ...] = ()
    """What the level holds over, when not plainly the release per value: the premise's buckets, the
    reading of ε-DP (:data:`DEF5_READING`)."""

    @property
    def readable(self) -> str:
        text = level_text(self.definition, self.level)
        text = text if self.size is None else f"{text} (subsets of k = {self.size} records)"
        return "; ".join((text, *self.scope))

    def to_json(self) -> dict[str, Any]:
        return {"definition": self.definition, "implied": True, "level": exact_text(self.level),
                "readable": self.readable, "from": self.source.to_json(),
                "derivation": [step.to_json() for step in self.derivation]}


@dataclass(frozen=True)
class Nothing:
    """A definition about which the audit implies nothing, and why, in one sentence."""

    definition: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"definition": self.definition, "implied": False, "nothing": self.reason}


@dataclass(frozen=True)
class Explanation:
    """Everything :func:`explain` found: implied levels, then the definitions about which nothing follows."""

    records: int
    smallest_class: int | None
    measured: tuple[Measured, ...]
    implied: tuple[Implied, ...]
    nothing: tuple[Nothing, ...]

    def to_json(self) -> list[dict[str, Any]]:
        """The list a certificate embeds: one dict per implied level, then one per definition with nothing."""
        return [item.to_json() for item in self.implied] + [item.to_json() for item in self.nothing]

    def text(self) -> str:
        """Plain text: a headline per definition, the measurement it follows from, the path."""
        k = "unknown" if self.smallest_class is None else str(self.smallest_class)
        lines = [f"release: N = {self.records} records, smallest class k = {k}; "
                 f"{len(self.measured)} finite measured level(s)"]
        for item in self.implied:
            where = "" if item.attribute is None else f" on {item.attribute}"
            source = item.source
            lines.append(f"{item.definition}{where}: implied, {item.readable}")
            lines.append(f"  from {source.label} = {readable(source.level)}")
            lines.extend(f"  {s.premise} → {s.conclusion}  [{s.claim}, {s.status}]" for s in item.derivation)
        lines.extend(f"{item.definition}: {item.reason}" for item in self.nothing)
        return "\n".join(lines)


def _in_domain(item: MeasuredLevel, level: sympy.Expr) -> None:
    """Raise when ``level`` lies outside its definition's domain (k a positive integer, t >= 1, ε >= 0, ...)."""
    from verifier.display import formula

    found = definition(item.model)
    if found.domain.contains(level) is not sympy.true:
        where = item.label if item.where is None else f"{item.where}.exact"
        raise DataError(f"{where}: the {formula(found.level)} of {item.model} lies in {formula(found.domain)}, "
                        f"found {exact_text(level)}")


def _size(item: MeasuredLevel, records: int) -> int | None:
    """The requirement's subset size k of a (k,t)-closeness or (k,ε)-DP level, checked against 1 <= k <= N - 1."""
    if item.model not in _SIZED_AT:
        return None
    size = item.parameters.get("k")
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= records - 1:
        where = item.label if item.where is None else item.where
        raise DataError(f"{where}.parameters.k: {item.model} is measured at a subset size k with "
                        f"1 <= k <= N - 1 = {records - 1}, found {size!r}")
    return size


def _unread(item: MeasuredLevel, randomized: bool) -> str | None:
    """Why a measured level is no premise of the map (``None``: it is one)."""
    if item.model == "stochastic_t_closeness":
        distance = item.distance or item.parameters.get("distance") or "multiplicative"
        if distance != "multiplicative":
            return (f"measured with the EMD ({distance} distance), which no claim of the map reads: the map's "
                    "stochastic t-closeness is the multiplicative distance (Domingo-Ferrer & Soria-Comas 2015, Def. 4)")
    elif randomized and model(item.model).kind != "randomized" and model(item.model).scope != "release":
        return ("measured on the data as read (the original records in publisher mode, the released values in "
                "auditor mode), not on the mechanism's release the randomized levels describe")
    return None


def _premises(levels: AuditLevels) -> tuple[Measured, ...]:
    """The premises: every finite measured level the map reads, with its subset size, counted N and smallest class."""
    finite = [item for item in levels.levels if item.status == "finite"]
    release_smallest = _smallest_class([(item.model, _value(item)) for item in finite])
    return tuple(_premise(item, levels, release_smallest) for item in finite
                 if item.level != sympy.oo and _unread(item, levels.randomized) is None)


def _premise(item: MeasuredLevel, levels: AuditLevels, release_smallest: int | None) -> Measured:
    """One finite level as a premise: read at its attribute's counted rows and their smallest class (the release's
    when nothing was left out; with rows left out, the counted ones when known, else unknown unless every class
    holds one row), at the requirement's subset size."""
    level = _value(item)
    _in_domain(item, level)
    left_out = levels.excluded.get(item.attribute, 0) if item.attribute is not None else 0
    counted_rows = levels.records - left_out
    smallest = release_smallest if not left_out else 1 if levels.singletons else None
    if left_out and item.attribute is not None and item.attribute in levels.counted:
        counted_rows, smallest = levels.counted[item.attribute]
    return Measured(item.model, item.attribute, level, {**item.parameters, "distance": item.distance},
                    _size(item, counted_rows), counted_rows, smallest)


def _value(item: MeasuredLevel) -> sympy.Expr:
    """The exact level of a finite measured level."""
    assert isinstance(item.level, sympy.Expr)
    return item.level


def _unread_reasons(levels: AuditLevels) -> dict[str, str]:
    """By model, why a level is not read (an EMD stochastic t-closeness, a deterministic level of a randomized
    audit): a level of the data as read says nothing of a randomized release, infinite or not."""
    found: dict[str, str] = {}
    for item in levels.levels:
        why = _unread(item, levels.randomized)
        if why is not None:
            found.setdefault(item.model, why)
    return found


def _infinite(levels: AuditLevels) -> dict[str, str]:
    """``{model: "nothing: measured infinite ..."}`` for the models the audit measured infinite."""
    found: dict[str, list[str]] = {}
    for item in levels.levels:
        if item.status == "infinite" and _unread(item, levels.randomized) is None:
            found.setdefault(item.model, []).append(str(item.attribute))
    return {name: f"nothing: measured infinite on {', '.join(names)} (no finite level holds)"
            for name, names in found.items()}


def _smallest_class(levels: Sequence[tuple[str, sympy.Expr]]) -> int | None:
    """The release's smallest class: its k-anonymity, else 1/(prosecutor risk)."""
    for name, level in levels:
        if name == "k_anonymity" and level.is_Integer:
            return int(level)
    for name, level in levels:
        if name == "prosecutor_risk" and level != 0 and (1 / level).is_Integer:
            return int(1 / level)
    return None


def _buckets(source: Measured) -> str | None:
    """``over the buckets ab = {a, b}, c = {c} ...`` when the premise was measured over buckets coarser than
    one per value (multiplicative t-closeness with a policy bucketing), else ``None``."""
    bucketing = source.parameters.get("bucketing")
    if source.model != "multiplicative_t_closeness" or bucketing in (None, "distinct values"):
        return None
    groups = source.parameters.get("groups")
    if isinstance(groups, dict):
        names = ", ".join(f"{name} = {{{', '.join(str(v) for v in values)}}}" for name, values in groups.items())
    else:
        names = ", ".join(str(label) for label in source.parameters.get("buckets") or ())
    return f"over the buckets {names} only, as measured (per value it can be infinite)"


def _scope(target: str, source: Measured, randomized: bool) -> tuple[str, ...]:
    """What an implied level of ``target`` holds over (see :attr:`Implied.scope`)."""
    found = []
    if model(target).scope != "release" and (buckets := _buckets(source)) is not None:
        found.append(buckets)
    if target in _DP_READING and not randomized:
        found.append(DEF5_READING)
    return tuple(found)


def _params(source: Measured, singletons: bool) -> dict[str, object]:
    """The query's parameters: the premise's counted N, its smallest class ``k`` (when a partition of N rows
    can have it), its subset size ``k_premise``, and the assumptions its row shows."""
    records, smallest = source.records, source.smallest
    params: dict[str, object] = {"N": records}
    if smallest is not None and (smallest == records or 2 * smallest <= records):
        params["k"] = smallest
    if source.size is not None:
        params["k_premise"] = source.size
    if source.model == "delta_disclosure" or (
            source.model == "multiplicative_t_closeness" and source.parameters.get("bucketing") == "distinct values"):
        params["distinct_buckets"] = True
    l = source.parameters.get("l")
    if source.model == "recursive_cl_diversity" and isinstance(l, int) and l >= 2:
        params["recursive_l_at_least_2"] = True
    if singletons:
        params["singleton_classes"] = True
    return params


def explain(levels: AuditLevels, graph: Graph | None = None) -> Explanation:
    """The guarantees an audit's measured levels imply (see the module docstring).

    Parameters
    ----------
    levels
        The measured levels (:meth:`AuditLevels.of` a measure or audit result, :meth:`AuditLevels.from_json` a
        results document, :func:`theory.answers.audit_levels.read_audit` its file).
    graph
        The implication map; built from the cached checked statuses
        (:func:`theory.status_cache.cached_statuses`) when ``None``.

    Raises
    ------
    TypeError
        ``levels`` is not an :class:`AuditLevels` (a results document is read once, by
        :meth:`AuditLevels.from_json`).
    DataError
        A level outside its definition's domain, or a (k,t)-closeness or (k,ε)-DP level without a subset size
        1 <= k <= N - 1.
    """
    if not isinstance(levels, AuditLevels):
        raise TypeError(f"explain: expected AuditLevels (AuditLevels.of(result) of a measure or audit result, "
                        f"AuditLevels.from_json(document) of a results document), found {type(levels).__name__}")
    if graph is None:
        from theory.answers.graph import build_graph
        from theory.status_cache import cached_statuses

        graph = build_graph(cached_statuses())
    measured = _premises(levels)
    search = _Search(graph, levels)
    for source in measured:
        search.add(source)
    implied = search.strongest()
    return Explanation(levels.records, _smallest_class([(item.model, item.level) for item in measured]), measured,
                       implied, _nothing(levels, measured, implied, search.refusals))


class _Search:
    """The strongest level of every definition each premise implies, kept per definition and attribute.

    Parameters
    ----------
    graph
        The implication map.
    levels
        The audit's levels: its N, whether every class holds one row, whether it is randomized.
    """

    def __init__(self, graph: Graph, levels: AuditLevels) -> None:
        from theory.answers.graph import CORNER_CLAIMS

        self.graph = graph
        self.levels = levels
        self.corners = CORNER_CLAIMS
        self.status = {edge.claim_id: edge.status for edge in graph.edges}
        self.targets = definitions()
        self.best: dict[tuple[str, str | None], Implied] = {}
        self.refusals: dict[str, str] = {}
        """Per definition, the first non-implication claim that refuses it from a premise."""

    def add(self, source: Measured) -> None:
        """Ask the map, from ``source``, for the strongest level of every definition; keep the stronger ones."""
        params = _params(source, self.levels.singletons)
        reached = self.graph.reachable(source.model)
        for target in self.targets:
            asked = self._query(source, target.id, params)
            if asked is None:
                continue
            query, size = asked
            if target.id not in reached and target.id != source.model:
                self._refuse(source, target.id, query)
                continue
            found = self._implied(source, target.id, query, size)
            key = (target.id, None if found is None else found.attribute)
            if found is not None and (key not in self.best or _better(found, self.best[key])):
                self.best[key] = found

    def _query(self, source: Measured, target: str, params: Mapping[str, object]
               ) -> tuple[dict[str, object], int | None] | None:
        """The query's parameters and the subset size asked of ``target`` (``None``: nothing to ask): not the premise
        itself unless at another size, not a quasi-identifier definition from an attribute with rows left out (a
        class whose values are all missing is in none of the attribute's classes), a sized definition only at a
        size 1 <= k <= N - 1."""
        from theory.answers.graph import SIZED

        if target == source.model and source.size is None:
            return None
        if model(target).scope == "release" and source.attribute is not None and source.records != self.levels.records:
            return None
        if target not in SIZED:
            return dict(params), None
        size = source.records - 1 if _SIZED_AT[target] == "N-1" else 1
        if not 1 <= size <= source.records - 1 or (target == source.model and size == source.size):
            return None
        return {**params, "k_conclusion": size}, size

    def _refuse(self, source: Measured, target: str, query: Mapping[str, object]) -> None:
        """Keep the non-implication claims that say ``source`` does not imply ``target``."""
        evidence = self.graph.refusal(source.model, target, dict(query))
        if evidence:
            self.refusals.setdefault(target, f"nothing: {source.model} does not imply {target} "
                                             f"(claim {', '.join(evidence)})")

    def _implied(self, source: Measured, target: str, query: Mapping[str, object], size: int | None) -> Implied | None:
        """The level of ``target`` the map derives from ``source``: a definite value, unconditional, along no corner
        claim (a level the release's own N and k fix is measured, not implied by this premise)."""
        try:
            answer = self.graph.strongest_level(source.model, source.level, target, dict(query), derive=False,
                                                forcing_levels=False)  # a step a certificate names is an edge
        except ValueError:
            return None
        if answer.holds != "yes" or answer.value is None or answer.value.free_symbols or answer.conditions:
            return None
        if any(step.claim_id in self.corners for step in answer.path):
            return None
        steps = tuple(Step(s.claim_id, self.status[s.claim_id], s.premise, s.conclusion) for s in answer.path)
        attribute = None if model(target).scope == "release" else source.attribute
        return Implied(target, attribute, sympy.simplify(answer.value), size, source, steps,
                       _scope(target, source, self.levels.randomized))

    def strongest(self) -> tuple[Implied, ...]:
        """The kept levels in the order of the definitions, then by attribute."""
        order = {item.id: index for index, item in enumerate(self.targets)}
        return tuple(sorted(self.best.values(), key=lambda i: (order[i.definition], i.attribute or "")))


def _nothing(levels: AuditLevels, measured: Sequence[Measured], implied: Sequence[Implied],
             refusals: Mapping[str, str]) -> tuple[Nothing, ...]:
    """Every definition neither measured finite nor implied, with the first reason that holds: a deterministic
    release (ε-DP, ε-LDP), a level measured infinite, a non-implication claim, a level not read, or no claim."""
    found_for = {item.definition for item in implied} | {item.model for item in measured}
    infinite = _infinite(levels)
    unread = _unread_reasons(levels)
    reasons = (({} if levels.randomized else _DETERMINISTIC), infinite, refusals,
               {name: f"nothing: {why}" for name, why in unread.items()})
    return tuple(Nothing(item.id, next((found[item.id] for found in reasons if item.id in found),
                                       "nothing: no claim connects the measured models to it"))
                 for item in definitions() if item.id not in found_for)


def _better(found: Implied, other: Implied) -> bool:
    """Strictly stronger level, or as strong with a shorter derivation."""
    if found.level == other.level:
        return len(found.derivation) < len(other.derivation)
    stronger = definition(found.definition).stronger(found.level, other.level)
    return bool(stronger) if stronger in (sympy.true, sympy.false) else False


def explain_file(path: str | Path, graph: Graph | None = None) -> Explanation:
    """:func:`explain` on a results document's file (:func:`theory.answers.audit_levels.read_audit`)."""
    return explain(read_audit(path), graph)
