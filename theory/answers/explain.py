"""What an audit's measured levels imply about every other definition on the map.

An audit (``privcert audit --json`` or ``privcert measure --json``; schema
``privcert/data/schema/results.schema.json``) holds the optimal level of each measured
model on each attribute, the release's number of rows N and its classes. Each finite measured
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

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sympy

from theory.definitions import definition, definition_ids, definitions
from verifier.display import exact_text, readable
from verifier.errors import DataError, InputFileNotFoundError
from verifier.exact_grammar import GrammarError, read_exact
from verifier.registry import model

if TYPE_CHECKING:
    from theory.answers.graph import Graph

__all__ = ["DEF5_READING", "Measured", "Step", "Implied", "Nothing", "Explanation", "explain", "explain_file", "load_audit",
           "level_text"]

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


def _level(text: object, where: str) -> sympy.Expr:
    """A measured level as :func:`verifier.display.exact_text` writes it, read by the grammar of
    :mod:`verifier.exact_grammar` (radicals, long exact bounds), never evaluated as code."""
    try:
        return read_exact(text, where)
    except GrammarError as error:
        raise DataError(str(error)) from None


def _row_level(row: Mapping[str, Any], where: str) -> sympy.Expr:
    """The level a row guarantees: its exact level, or for a level known only between exact bounds the
    bound on the weak side (the upper one when smaller is stronger), which the release certainly meets."""
    bounds = row.get("bounds")
    if isinstance(bounds, dict) and bounds.get("exact") is False:
        weak = "upper" if definition(row["model"]).direction == "smaller_is_stronger" else "lower"
        return _level(bounds.get(weak), f"{where}.bounds.{weak}")
    return _level(row["exact"], f"{where}.exact")


def load_audit(path: str | Path) -> dict[str, Any]:
    """Read an audit's JSON file.

    Raises
    ------
    InputFileNotFoundError
        The file does not exist.
    DataError
        It is not JSON, or not an audit (``rows`` and ``measurements`` expected).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputFileNotFoundError(f"{path}: no such audit file (write one with `privcert audit ... --json FILE`)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(f"{path}: cannot read the audit file ({error})") from None
    try:
        audit = json.loads(text)
    except ValueError as error:
        raise DataError(f"{path}: not JSON ({error}); expected the output of `privcert audit --json`") from None
    if not isinstance(audit, dict) or not isinstance(audit.get("rows"), int) or not isinstance(audit.get("measurements"), list):
        found = sorted(audit) if isinstance(audit, dict) else type(audit).__name__
        raise DataError(f"{path}: expected an audit with 'rows' (an integer) and 'measurements' (a list), found {found}")
    return audit


def _in_domain(definition_id: str, level: sympy.Expr, where: str) -> None:
    """Raise when ``level`` lies outside its definition's domain (k a positive integer, t >= 1, ε >= 0, ...)."""
    from verifier.display import formula

    item = definition(definition_id)
    if item.domain.contains(level) is not sympy.true:
        raise DataError(f"{where}: the {formula(item.level)} of {definition_id} lies in {formula(item.domain)}, "
                        f"found {exact_text(level)}")


def _attribute_name(attribute: object) -> str | None:
    if isinstance(attribute, list):
        return "+".join(str(a) for a in attribute)
    return None if attribute is None else str(attribute)


def _size(row: Mapping[str, Any], parameters: Mapping[str, Any], records: int, where: str) -> int | None:
    """The requirement's subset size k of a (k,t)-closeness or (k,ε)-DP row, checked against 1 <= k <= N - 1."""
    if row["model"] not in _SIZED_AT:
        return None
    size = parameters.get("k")
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= records - 1:
        raise DataError(f"{where}.parameters.k: {row['model']} is measured at a subset size k with "
                        f"1 <= k <= N - 1 = {records - 1}, found {size!r}")
    return size


def _unread(row: Mapping[str, Any], parameters: Mapping[str, Any], randomized: bool) -> str | None:
    """Why a finite measured row is no premise of the map (``None``: it is one)."""
    if row["model"] == "stochastic_t_closeness":
        distance = row.get("distance") or parameters.get("distance") or "multiplicative"
        if distance != "multiplicative":
            return (f"measured with the EMD ({distance} distance), which no claim of the map reads: the map's "
                    "stochastic t-closeness is the multiplicative distance (Domingo-Ferrer & Soria-Comas 2015, Def. 4)")
    elif randomized and model(row["model"]).kind != "randomized" and model(row["model"]).scope != "release":
        return ("measured on the data as read (the original records in publisher mode, the released values in "
                "auditor mode), not on the mechanism's release the randomized levels describe")
    return None


def _measured(audit: Mapping[str, Any], counted: Mapping[str, tuple[int, int]] | None
              ) -> tuple[tuple[Measured, ...], dict[str, str]]:
    """The premises: every finite measured level with its subset size, counted N and smallest class;
    and, by model, why a finite row is not read (an EMD stochastic t-closeness, a deterministic level of a
    randomized audit)."""
    known = set(definition_ids())
    records = int(audit["rows"])
    randomized = isinstance(audit.get("randomized"), dict)
    given_excluded = audit.get("excluded")
    excluded: Mapping[str, Any] = given_excluded if isinstance(given_excluded, dict) else {}
    rows = _rows(audit)
    levels = [(where, row, _row_level(row, where)) for where, row in rows
              if row["model"] in known and row.get("status", "finite") == "finite"]
    release_smallest = _smallest_class([(row["model"], level) for _, row, level in levels])
    singletons = audit.get("classes") == records
    found: list[Measured] = []
    unread: dict[str, str] = {}
    for _, row in rows:  # a level of the data as read says nothing of a randomized release, infinite or not
        given = row.get("parameters")
        why = _unread(row, given if isinstance(given, dict) else {}, randomized)
        if why is not None and row["model"] in known:
            unread.setdefault(row["model"], why)
    for where, row, level in levels:
        given = row.get("parameters")
        parameters: dict[str, Any] = given if isinstance(given, dict) else {}
        if level == sympy.oo or _unread(row, parameters, randomized) is not None:
            continue
        _in_domain(row["model"], level, f"{where}.exact")
        attribute = _attribute_name(row.get("attribute"))
        left_out = excluded.get(attribute, 0) if attribute is not None else 0
        counted_rows = records - (left_out if isinstance(left_out, int) else 0)
        smallest = release_smallest if not left_out else 1 if singletons else None
        if left_out and counted is not None and attribute is not None and attribute in counted:
            counted_rows, smallest = counted[attribute]
        size = _size(row, parameters, counted_rows, where)
        found.append(Measured(row["model"], attribute, level, {**parameters, "distance": row.get("distance")},
                              size, counted_rows, smallest))
    return tuple(found), unread


def _rows(audit: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """Every measurement row with where it was read: the ``measurements``, then, in the JSON of ``measure
    --mechanism --json`` (no ``policy``), the randomized levels it writes under ``randomized.measurements``;
    each row once. An audit's premises are its policy's rows: it lists the required randomized levels among
    its ``measurements`` already.

    Raises
    ------
    DataError
        A row that is not an object with a ``model`` and an ``exact`` level.
    """
    found: list[tuple[str, Mapping[str, Any]]] = []
    seen: set[str] = set()
    randomized = audit.get("randomized")
    extra = randomized.get("measurements") if isinstance(randomized, dict) and "policy" not in audit else None
    for prefix, listed in (("measurements", audit["measurements"]),
                           ("randomized.measurements", extra if isinstance(extra, list) else [])):
        for index, row in enumerate(listed):
            where = f"{prefix}[{index}]"
            if not isinstance(row, dict) or not isinstance(row.get("model"), str) or "exact" not in row:
                raise DataError(f"{where}: expected an object with 'model' and 'exact'")
            key = json.dumps([row.get(name) for name in ("model", "attribute", "distance", "parameters", "exact",
                                                         "status")], sort_keys=True, default=str)
            if key not in seen:
                seen.add(key)
                found.append((where, row))
    return found


def _infinite(audit: Mapping[str, Any]) -> dict[str, str]:
    """``{model: "nothing: measured infinite ..."}`` for the models the audit measured infinite."""
    found: dict[str, list[str]] = {}
    randomized = isinstance(audit.get("randomized"), dict)
    for _, row in _rows(audit):
        given = row.get("parameters")
        if row.get("status") == "infinite" and _unread(row, given if isinstance(given, dict) else {}, randomized) is None:
            found.setdefault(row["model"], []).append(str(_attribute_name(row.get("attribute"))))
    return {model: f"nothing: measured infinite on {', '.join(names)} (no finite level holds)"
            for model, names in found.items()}


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


def explain(audit: Mapping[str, Any], graph: Graph | None = None,
            counted: Mapping[str, tuple[int, int]] | None = None) -> Explanation:
    """The guarantees an audit's measured levels imply (see the module docstring).

    Parameters
    ----------
    audit
        The parsed JSON of ``privcert audit --json`` / ``privcert measure --json``.
    graph
        The implication map; built from the cached checked statuses
        (:func:`theory.status_cache.cached_statuses`) when ``None``.
    counted
        For the attributes with rows left out (``missing = "exclude"``): the rows counted and the smallest
        class among them, by attribute name (joint attributes as ``S+T``). The JSON does not carry the
        smallest counted class: without it, the class-based claims are not applied to such an attribute.

    Raises
    ------
    DataError
        A measurement without a model or an exact level, a level outside the grammar, or a (k,t)-closeness
        or (k,ε)-DP row without a subset size 1 <= k <= N - 1.
    """
    from theory.answers.graph import CORNER_CLAIMS, SIZED
    from theory.answers.graph import build_graph as build
    from theory.status_cache import cached_statuses

    graph = graph if graph is not None else build(cached_statuses())
    status = {edge.claim_id: edge.status for edge in graph.edges}
    records = int(audit["rows"])
    measured, unread = _measured(audit, counted)
    smallest = _smallest_class([(item.model, item.level) for item in measured])
    singletons = audit.get("classes") == records
    randomized = isinstance(audit.get("randomized"), dict)
    best: dict[tuple[str, str | None], Implied] = {}
    refusals: dict[str, str] = {}
    targets = definitions()
    for source in measured:
        params = _params(source, singletons)
        reached = graph.reachable(source.model)
        for target in targets:
            if target.id == source.model and source.size is None:
                continue
            if model(target.id).scope == "release" and source.attribute is not None and source.records != records:
                continue  # rows left out: a class whose values are all missing is in none of the attribute's classes
            size = None
            query = dict(params)
            if target.id in SIZED:
                size = source.records - 1 if _SIZED_AT[target.id] == "N-1" else 1
                if not 1 <= size <= source.records - 1 or (target.id == source.model and size == source.size):
                    continue
                query["k_conclusion"] = size
            if target.id not in reached and target.id != source.model:
                evidence = graph.refusal(source.model, target.id, query)
                if evidence:
                    refusals.setdefault(target.id, f"nothing: {source.model} does not imply {target.id} "
                                                   f"(claim {', '.join(evidence)})")
                continue
            try:
                answer = graph.strongest_level(source.model, source.level, target.id, query, derive=False)
            except ValueError:
                continue
            if answer.holds != "yes" or answer.value is None or answer.value.free_symbols or answer.conditions:
                continue
            if any(s.claim_id in CORNER_CLAIMS for s in answer.path):
                continue  # a level the release's own N and k fix: measured, not implied by this premise
            steps = tuple(Step(s.claim_id, status[s.claim_id], s.premise, s.conclusion) for s in answer.path)
            attribute = None if model(target.id).scope == "release" else source.attribute
            found = Implied(target.id, attribute, sympy.simplify(answer.value), size, source, steps,
                            _scope(target.id, source, randomized))
            key = (target.id, attribute)
            if key not in best or _better(found, best[key]):
                best[key] = found
    order = {item.id: index for index, item in enumerate(targets)}
    implied = tuple(sorted(best.values(), key=lambda i: (order[i.definition], i.attribute or "")))
    found_for = {item.definition for item in implied} | {item.model for item in measured}
    infinite = _infinite(audit)
    nothing = tuple(
        Nothing(item.id, (None if randomized else _DETERMINISTIC.get(item.id)) or infinite.get(item.id)
                or refusals.get(item.id)
                or (f"nothing: {unread[item.id]}" if item.id in unread else None)
                or "nothing: no claim connects the measured models to it")
        for item in targets if item.id not in found_for)
    return Explanation(records, smallest, measured, implied, nothing)


def _better(found: Implied, other: Implied) -> bool:
    """Strictly stronger level, or as strong with a shorter derivation."""
    if found.level == other.level:
        return len(found.derivation) < len(other.derivation)
    stronger = definition(found.definition).stronger(found.level, other.level)
    return bool(stronger) if stronger in (sympy.true, sympy.false) else False


def explain_file(path: str | Path, graph: Graph | None = None) -> Explanation:
    """:func:`explain` on an audit's JSON file (:func:`load_audit`)."""
    return explain(load_audit(path), graph)
