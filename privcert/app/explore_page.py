"""The Explore page: the implication map (``privcert theory map``'s drawing), each definition's arrows,
"does A imply B?" (``privcert theory implies``), the witness table of a non-implication
(``privcert theory witness``) and what typed-in levels imply (``privcert theory explain``).

The map is drawn once per server (a few seconds) and the graph built once from the cached
checked statuses (:func:`theory.status_cache.cached_statuses`); both are read from then on.
The form's fields come from the definitions (:func:`theory.definitions.definitions`) and the
graph's size parameters and assumptions.
"""

from __future__ import annotations

import functools
import re
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from privcert.app.svg import page_svg
from privcert.app.web import BadRequest, fragment, number_text, page, read_form, whole_number

if TYPE_CHECKING:
    from theory.answers.graph import Graph

__all__ = ["router", "graph", "map_svg"]

router = APIRouter()
_lock = threading.RLock()
"""The theory's work in the server runs one call at a time: the statuses are computed once, and Python 3.11's
parser (the status cache reads sources) is not safe to run in two threads at once."""


@functools.cache
def _graph() -> Graph:
    from theory.answers.graph import build_graph
    from theory.status_cache import cached_statuses

    return build_graph(cached_statuses())


def graph() -> Graph:
    """The implication map's graph (built once)."""
    with _lock:
        return _graph()


def map_svg() -> Markup:
    """The map as ``privcert theory map`` draws it, as an ``<svg>`` element that scales to its container."""
    with _lock:
        return _map_svg()


@functools.cache
def _map_svg() -> Markup:
    from theory.answers.map import render_map
    from theory.claims.catalog import all_claims
    from theory.status_cache import cached_statuses

    outcomes = cached_statuses()
    bounds: dict[str, tuple[str, ...]] = {}
    for item in all_claims():
        if item.kind == "bound" and item.conclusion is not None:
            bounds[item.conclusion] = (*bounds.get(item.conclusion, ()), f"{item.id}: {outcomes[item.id].status}")
    with tempfile.TemporaryDirectory(prefix="privcert-map-") as folder:
        text = render_map(graph(), Path(folder) / "map.svg", bounds).read_text(encoding="utf-8")
    return page_svg(text, width=None, height=None, role="img", aria_labelledby="map-title")


def _locked(function: Any, *arguments: Any) -> Any:
    """``function(*arguments)`` with the theory to itself (see ``_lock``)."""
    with _lock:
        return function(*arguments)


def _definitions() -> list[Any]:
    from theory.definitions import definitions

    return list(definitions())


def _parameters() -> dict[str, Any]:
    """The query's fields: N, the size parameters, the assumptions (from the graph)."""
    from theory.answers.graph import SIZE_PARAMETERS

    return {"sizes": ("N", *SIZE_PARAMETERS), "assumptions": sorted(graph().assumptions())}


@router.get("/explore", response_class=HTMLResponse)
async def explore_page(request: Request) -> Response:
    svg = await run_in_threadpool(map_svg)
    parameters = await run_in_threadpool(_parameters)
    return page(request, "explore.j2", svg=svg, definitions=_definitions(), **parameters)


@router.get("/explore/definition", response_class=HTMLResponse)
async def definition_arrows(request: Request, id: str) -> Response:
    """What a definition implies and what implies it: every arrow of the map touching it."""
    from theory.definitions import UnknownDefinitionError, definition

    definition_id = id
    try:
        item = definition(definition_id)
    except UnknownDefinitionError as error:
        raise BadRequest(str(error)) from error
    found = await run_in_threadpool(graph)
    outgoing = [_edge(e) for e in found.edges if e.premise == definition_id]
    incoming = [_edge(e) for e in found.edges if e.conclusion == definition_id and e.premise != definition_id]
    return fragment(request, "_definition.j2", item=item, outgoing=outgoing, incoming=incoming)


def _edge(edge: Any) -> dict[str, Any]:
    import sympy

    from theory.answers.map import edge_label
    from verifier.display import condition, formula

    return {"claim": edge.claim_id, "source": str(edge.source), "premise": edge.premise, "conclusion": edge.conclusion,
            "bound": "does not imply" if edge.f is None else formula(edge.f), "status": edge.status,
            "conditions": condition(sympy.And(*edge.conditions)) if edge.conditions else "always",
            "label": edge_label(edge)}


def _params(form: Any) -> dict[str, int]:
    """The size parameters typed in (integers) and the assumptions ticked (true), as ``--param`` gives them."""
    params: dict[str, int] = {}
    for name in _parameters()["sizes"]:
        text = str(form.get(f"param-{name}", "")).strip()
        if text:
            params[name] = whole_number(text, name)
    for name in _parameters()["assumptions"]:
        if form.get(f"assume-{name}"):
            params[name] = True
    return params


def _level(text: str, where: str) -> Any:
    from fractions import Fraction

    from verifier.literal import Domain, LiteralError, parse_exact

    try:
        return parse_exact(number_text(text, where), where, Domain(lower=Fraction(0)))
    except LiteralError as error:
        raise BadRequest(str(error)) from error


def _implies(premise: str, conclusion: str, params: dict[str, int], level: Any, bound: Any) -> dict[str, Any]:
    import sympy

    from theory.answers.explain import level_text
    from theory.definitions import definition
    from theory.tables.witnesses import NoWitnessError, WitnessSizeError, witness
    from verifier.display import condition, exact_text, formula

    for name in (premise, conclusion):
        definition(name)
    item = definition(premise)
    if level is not None and level != sympy.oo and not bool(item.domain.contains(level)):
        raise BadRequest(f"level: the {formula(item.level)} of {premise} lies in {formula(item.domain)}, found {level}")
    try:
        answer = graph().implies(premise, conclusion, params, level)
    except ValueError as error:
        raise BadRequest(str(error)) from error
    together = condition(sympy.And(*answer.conditions)) if answer.conditions else "always"
    headline = ("yes" if together == "always" else f"only if {together}") if answer.holds == "yes" else \
        "no" if answer.holds == "no" else "unknown"
    target = definition(conclusion)
    found: dict[str, Any] = {
        "premise": premise, "conclusion": conclusion, "holds": answer.holds, "headline": headline,
        "bound": None if answer.f is None else
        f"{formula(target.level)} {'≥' if target.direction == 'larger_is_stronger' else '≤'} {formula(answer.f)}",
        "guaranteed": None if answer.value is None or answer.value.free_symbols else
        f"{level_text(conclusion, answer.value)} for {premise} at {level_text(premise, level)}",
        "path": [{"claim": s.claim_id, "source": str(s.source), "from": s.premise, "to": s.conclusion,
                  "f": formula(s.f)} for s in answer.path],
        "evidence": list(answer.evidence), "detail": answer.detail if answer.holds != "yes" else "",
        "witness": None, "witness_error": None}
    if bound is not None and answer.holds != "yes":
        try:
            table = witness(premise, conclusion, bound, params=params)
        except (NoWitnessError, WitnessSizeError, OverflowError, sympy.PrecisionExhausted) as error:
            found["witness_error"] = str(error)
        else:
            json_table = table.table.to_json()
            found["witness"] = {"probs": json_table["probs"], "classes": json_table["classes"],
                                "premise_level": exact_text(table.premise_level),
                                "conclusion_level": exact_text(table.conclusion_level), "exceeds": table.exceeds,
                                "family": table.family, "detail": table.detail}
    return found


@router.post("/explore/implies", response_class=HTMLResponse)
async def implies(request: Request) -> Response:
    """Does A imply B? (``privcert theory implies A B --param ... --level ...``, and ``theory witness`` when not)."""
    form = await read_form(request)
    premise, conclusion = str(form.get("premise", "")), str(form.get("conclusion", ""))
    level_text = str(form.get("level", "")).strip()
    bound_text = str(form.get("bound", "")).strip()
    level = _level(level_text, "A's level") if level_text else None
    bound = _level(bound_text, "B's level to exceed") if bound_text else None
    answer = await run_in_threadpool(_locked, _implies, premise, conclusion, _params(form), level, bound)
    return fragment(request, "_implies.j2", answer=answer)


def _explain(records: int, lines: list[str]) -> Any:
    from theory.answers.audit_levels import AuditLevels
    from theory.answers.explain import explain

    measurements = []
    for number, line in enumerate(lines, start=1):
        match = re.fullmatch(r"\s*([a-z_]+)(?:\s+on\s+(\S+))?(?:\s*\(k\s*=\s*(\d+)\))?\s*=\s*(\S+)\s*", line)
        if match is None:
            raise BadRequest(f"levels, line {number}: expected MODEL [on ATTRIBUTE] [(k = SIZE)] = LEVEL, e.g. "
                             f"k_anonymity = 5 or t_closeness on disease = 1/5; found {line!r}")
        model, attribute, size, level = match.groups()
        measurements.append({"model": model, "attribute": attribute, "exact": level, "status": "finite",
                             "parameters": {} if size is None else {"k": int(size)}})
    return explain(AuditLevels.from_json({"rows": records, "measurements": measurements}), graph())


@router.post("/explore/explain", response_class=HTMLResponse)
async def explain_levels(request: Request) -> Response:
    """What typed-in levels imply about every other definition (``privcert theory explain``)."""
    from verifier.errors import VerifierError

    form = await read_form(request)
    records = whole_number(str(form.get("records", "")).strip(), "Records N", minimum=1)
    lines = [number_text(line, "Measured levels") for line in str(form.get("levels", "")).splitlines()
             if line.strip()]
    if not lines:
        raise BadRequest("levels: expected one measured level per line, e.g. k_anonymity = 5")
    try:
        found = await run_in_threadpool(_locked, _explain, records, lines)
    except VerifierError as error:
        raise BadRequest(str(error)) from error
    return fragment(request, "_explain.j2", implied=found.to_json(), text=found.text())
