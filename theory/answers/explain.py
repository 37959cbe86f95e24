"""What an audit's measured levels imply about every other definition on the map.

An audit (``privcert audit --json`` or ``privcert measure --json``; schema
``privcert/data/schema/results.schema.json``) holds the optimal level of each measured
model on each attribute, the release's number of rows N and its classes. For every
definition of :mod:`theory.definitions`, :func:`explain` asks the implication map
(:mod:`theory.answers.graph`) for the strongest level each finite measured level guarantees at
this N and this smallest class k, and keeps the strongest per definition and attribute,
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
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sympy

from theory.definitions import definition, definition_ids, definitions
from verifier.display import exact_text, readable
from verifier.errors import DataError, InputFileNotFoundError
from verifier.literal import LiteralError, parse_exact
from verifier.registry import model

if TYPE_CHECKING:
    from theory.answers.graph import Graph

__all__ = ["Measured", "Step", "Implied", "Nothing", "Explanation", "explain", "explain_file", "load_audit",
           "level_text"]

_SIZED_AT = {"kt_closeness": "N-1", "k_eps_dp": "1"}
"""Subset sizes asked for the sized definitions: (N-1, t)-closeness is the one multiplicative
t-closeness reaches (Ekenstedt et al. 2022, Lemma 2(3) corrected); (1, ε)-DP is ε-DP."""
_POWER = re.compile(r"(?P<op>[*/]?)(?P<base>\d{1,40})(?:\^(?:(?P<int>\d{1,6})|\((?P<num>\d{1,6})/(?P<den>\d{1,6})\)))?")
_DETERMINISTIC = {
    "ldp": "nothing: a deterministic release is never ε-LDP (two records released with different values "
           "differ with certainty; claim privcert:deterministic_not_ldp)",
    "dp": "nothing: a deterministic release is never ε-DP as the output of a mechanism (claim "
          "privcert:deterministic_dp); in the reading of Ekenstedt et al. 2022, Def. 5 a level follows only "
          "from a finite multiplicative t-closeness or δ-disclosure level, and the audit has none",
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
    """One finite measured level of the audit: the model, its attribute (``None`` for QI-only models)."""

    model: str
    attribute: str | None
    level: sympy.Expr
    parameters: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "attribute": self.attribute, "level": exact_text(self.level)}


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

    @property
    def readable(self) -> str:
        text = level_text(self.definition, self.level)
        return text if self.size is None else f"{text} (subsets of k = {self.size} records)"

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
            lines.append(f"  from {source.model}{'' if source.attribute is None else ' on ' + source.attribute} "
                         f"= {readable(source.level)}")
            lines.extend(f"  {s.premise} → {s.conclusion}  [{s.claim}, {s.status}]" for s in item.derivation)
        lines.extend(f"{item.definition}: {item.reason}" for item in self.nothing)
        return "\n".join(lines)


def _level(text: object, where: str) -> sympy.Expr:
    """A measured level written by :func:`verifier.display.exact_text`: the exact grammar, or a product of
    prime powers (entropy l-diversity), read without evaluating any text."""
    try:
        return parse_exact(text, where)
    except LiteralError:
        pass
    if not isinstance(text, str) or not text:
        raise DataError(f"{where}: expected an exact level (3, 3/8, ln(9/4), inf), found {text!r}")
    value: sympy.Expr = sympy.Integer(1)
    position = 0
    while position < len(text):
        match = _POWER.match(text, position)
        if match is None or bool(match["op"]) != (position > 0):
            raise DataError(f"{where}: expected an exact level (3, 3/8, ln(9/4), 3*2^(1/3)/2, inf), found {text!r}")
        exponent = (Fraction(int(match["int"])) if match["int"] else
                    Fraction(int(match["num"]), int(match["den"])) if match["num"] else Fraction(1))
        factor = sympy.Integer(int(match["base"])) ** sympy.Rational(exponent.numerator, exponent.denominator)
        value = value / factor if match["op"] == "/" else value * factor
        position = match.end()
    return value


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


def _measured(audit: Mapping[str, Any]) -> tuple[Measured, ...]:
    known = set(definition_ids())
    found = []
    for index, row in enumerate(audit["measurements"]):
        where = f"measurements[{index}]"
        if not isinstance(row, dict) or not isinstance(row.get("model"), str) or "exact" not in row:
            raise DataError(f"{where}: expected an object with 'model' and 'exact'")
        if row["model"] not in known or row.get("status", "finite") != "finite":
            continue
        attribute = row.get("attribute")
        if isinstance(attribute, list):
            attribute = "+".join(str(a) for a in attribute)
        given = row.get("parameters")
        parameters: dict[str, Any] = given if isinstance(given, dict) else {}
        level = _level(row["exact"], f"{where}.exact")
        if level != sympy.oo:
            found.append(Measured(row["model"], attribute, level, {**parameters, "distance": row.get("distance")}))
    return tuple(found)


def _infinite(audit: Mapping[str, Any]) -> dict[str, str]:
    """``{model: "nothing: measured infinite ..."}`` for the models the audit measured infinite."""
    found: dict[str, list[str]] = {}
    for row in audit["measurements"]:
        if isinstance(row, dict) and row.get("status") == "infinite" and isinstance(row.get("model"), str):
            attribute = row.get("attribute")
            name = "+".join(map(str, attribute)) if isinstance(attribute, list) else str(attribute)
            found.setdefault(row["model"], []).append(name)
    return {model: f"nothing: measured infinite on {', '.join(names)} (no finite level holds)"
            for model, names in found.items()}


def _smallest_class(measured: Sequence[Measured]) -> int | None:
    for item in measured:
        if item.model == "k_anonymity" and item.level.is_Integer:
            return int(item.level)
    for item in measured:
        if item.model == "prosecutor_risk" and (1 / item.level).is_Integer:
            return int(1 / item.level)
    return None


def _params(source: Measured, records: int, smallest: int | None, singletons: bool) -> dict[str, object]:
    params: dict[str, object] = {"N": records}
    if smallest is not None and (smallest == records or 2 * smallest <= records):
        params["k"] = smallest
    if source.model == "delta_disclosure" or (
            source.model == "multiplicative_t_closeness" and source.parameters.get("bucketing") == "distinct values"):
        params["distinct_buckets"] = True
    l = source.parameters.get("l")
    if source.model == "recursive_cl_diversity" and isinstance(l, int) and l >= 2:
        params["recursive_l_at_least_2"] = True
    if singletons:
        params["singleton_classes"] = True
    return params


def explain(audit: Mapping[str, Any], graph: Graph | None = None) -> Explanation:
    """The guarantees an audit's measured levels imply (see the module docstring).

    Parameters
    ----------
    audit
        The parsed JSON of ``privcert audit --json`` / ``privcert measure --json``.
    graph
        The implication map; built from the cached checked statuses
        (:func:`theory.status_cache.cached_statuses`) when ``None``.

    Raises
    ------
    DataError
        A measurement without a model or an exact level, or a level outside the grammar.
    """
    from theory.answers.graph import SIZED
    from theory.answers.graph import build_graph as build
    from theory.status_cache import cached_statuses

    graph = graph if graph is not None else build(cached_statuses())
    status = {edge.claim_id: edge.status for edge in graph.edges}
    records = int(audit["rows"])
    measured = _measured(audit)
    smallest = _smallest_class(measured)
    singletons = audit.get("classes") == records
    best: dict[tuple[str, str | None], Implied] = {}
    refusals: dict[str, str] = {}
    targets = definitions()
    for source in measured:
        params = _params(source, records, smallest, singletons)
        reached = graph.reachable(source.model)
        for target in targets:
            if target.id == source.model:
                continue
            size = None
            query = dict(params)
            if target.id in SIZED:
                size = records - 1 if _SIZED_AT[target.id] == "N-1" else 1
                if not 1 <= size <= records - 1:
                    continue
                query["k_conclusion"] = size
            if target.id not in reached:
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
            steps = tuple(Step(s.claim_id, status[s.claim_id], s.premise, s.conclusion) for s in answer.path)
            attribute = None if model(target.id).scope == "release" else source.attribute
            found = Implied(target.id, attribute, sympy.simplify(answer.value), size, source, steps)
            key = (target.id, attribute)
            if key not in best or _better(found, best[key]):
                best[key] = found
    order = {item.id: index for index, item in enumerate(targets)}
    implied = tuple(sorted(best.values(), key=lambda i: (order[i.definition], i.attribute or "")))
    found_for = {item.definition for item in implied} | {item.model for item in measured}
    infinite = _infinite(audit)
    nothing = tuple(
        Nothing(item.id, _DETERMINISTIC.get(item.id) or infinite.get(item.id) or refusals.get(item.id)
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
