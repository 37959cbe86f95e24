"""The Explore page: views of :mod:`privcert.api`'s theory results, the ones ``privcert theory`` prints.

The implication map (:func:`privcert.api.implication_map`: drawn once per server, a few seconds, without its
key, which the page gives as text), a definition's neighbourhood drawn large (its arrows in and out, from the
same map data), "does A imply B?" with a witness table when it does not follow (:func:`privcert.api.implies`,
also as JSON at ``/explore/implies.json``: the command line's ``theory implies --json``), and what typed-in
levels imply (:func:`privcert.api.explain`). The form's fields come from the definitions
(:func:`theory.definitions.definitions`) and the graph's size parameters and assumptions.
"""

from __future__ import annotations

import functools
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from privcert.app import jobs
from privcert.app.svg import page_svg
from privcert.app.web import BadRequest, fragment, number_text, page, read_form, whole_number

if TYPE_CHECKING:
    from privcert.api import ClaimSource, Implication, MapEdge
    from verifier.references import Reference

__all__ = ["router", "map_svg", "warm_map", "check_claims", "draw_map", "neighbourhood", "MAP_CSP"]

router = APIRouter()
MAP_CSP = "default-src 'none'; frame-ancestors 'self'"
"""The full-size map, opened as its own document: its drawing alone (presentation attributes, no style, no
script)."""
LABELS = 12
"""The height in pixels of the map's smallest text in the page (the map is drawn that large, and scrolls)."""


def map_svg() -> Markup:
    """The whole map as ``privcert theory map`` draws it, without the key, as an ``<svg>`` element at the size where
    its smallest text is :data:`LABELS` pixels high, whatever the window's width (the page scrolls it; a group of
    definitions a click on one of which shows its neighbourhood), written again from its drawing elements only
    (:func:`privcert.app.svg.page_svg`). Drawn once per server, in a job process (:func:`privcert.app.jobs.call`):
    the server's interpreter answers other pages meanwhile."""
    return _drawn[0] if _drawn else _keep(jobs.call(draw_map))


def warm_map() -> None:
    """At the server's start: the theory's claims checked, when their statuses are not cached yet
    (:func:`check_claims`), at normal priority, since the first audit's implied guarantees need them as much as the
    map (a job that asks for them meanwhile waits for this check and reads its outcome,
    :mod:`theory.status_cache`); then the map drawn (:func:`map_svg`) at the lowest CPU priority
    (:data:`privcert.app.jobs.LOWEST`): an audit started meanwhile has the cores; a page that needs the map before
    it is drawn draws it at once."""
    if _drawn:
        return
    try:
        jobs.call(check_claims)
        _keep(jobs.call(draw_map, nice=jobs.LOWEST))
    except RuntimeError:
        return  # the server stopped, or the drawing failed: the page draws it when asked, and shows the error


def check_claims() -> int:
    """The number of the theory's claims, their statuses read from the cache when it is current, else checked and
    cached (:func:`theory.status_cache.claim_rows`), in the process that calls this."""
    from theory.status_cache import claim_rows

    rows, _ = claim_rows()
    return len(rows)


_drawn: list[Markup] = []
"""The map once drawn (the first drawing kept)."""


def _keep(document: str) -> Markup:
    """The map's SVG document, drawn in another process, written again here from its drawing elements only
    (:func:`privcert.app.svg.page_svg`, about 12 ms): what comes back from that process is text like any other,
    and only :func:`~privcert.app.svg.page_svg` makes markup of it."""
    if not _drawn:
        _drawn.append(page_svg(document, labels=LABELS, role="group", aria_labelledby="map-title"))
    return _drawn[0]


def draw_map() -> str:
    """The SVG document of :func:`map_svg`'s map (without its key), drawn in the process that calls it."""
    from privcert.api import implication_map

    with tempfile.TemporaryDirectory(prefix="privcert-map-") as folder:
        return implication_map().draw(Path(folder) / "map.svg", key=False).read_text(encoding="utf-8")


def _definitions() -> list[Any]:
    from theory.definitions import definitions

    return list(definitions())


def _parameters() -> dict[str, Any]:
    """The query's fields: N, the size parameters, the assumptions (from the graph)."""
    from privcert.api import theory_graph
    from theory.answers.graph import SIZE_PARAMETERS

    return {"sizes": ("N", *SIZE_PARAMETERS), "assumptions": sorted(theory_graph().assumptions())}


def neighbourhood(definition_id: str) -> dict[str, Any]:
    """A definition and the arrows touching it, for its drawing: the definitions that imply it (drawn above it)
    and those it implies (below), each with its arrow's bound and number, and the papers they cite.

    Raises
    ------
    BadRequest
        An unknown definition id (the message lists the valid ones).
    """
    from privcert.api import QueryError, implication_map
    from theory.definitions import definition

    try:
        outgoing, incoming = implication_map().around(definition_id)
    except QueryError as error:
        raise BadRequest(str(error)) from error
    return {"item": definition(definition_id), "incoming": [_row(edge, edge.premise) for edge in incoming],
            "outgoing": [_row(edge, edge.conclusion) for edge in outgoing],
            "sources": _references(edge.claim for edge in (*incoming, *outgoing))}


def _row(edge: MapEdge, other: str) -> dict[str, Any]:
    from theory.definitions import definition

    return {"edge": edge, "id": other, "name": definition(other).name}


def _references(claims: Iterable[ClaimSource]) -> list[Reference]:
    """The full references of the papers ``claims`` cite, each once, in the order first cited."""
    from verifier.references import reference

    papers = list(dict.fromkeys(claim.source.paper for claim in claims))
    return [item for item in (reference(paper) for paper in papers) if item is not None]


@router.get("/explore", response_class=HTMLResponse)
async def explore_page(request: Request, definition: str = "k_anonymity") -> Response:
    """The page: the map, ``definition``'s neighbourhood, the two question forms."""
    from privcert.api import implication_map

    svg = await run_in_threadpool(map_svg)
    parameters = await run_in_threadpool(_parameters)
    around = await run_in_threadpool(neighbourhood, definition)
    found = await run_in_threadpool(implication_map)
    return page(request, "explore.j2", svg=svg, definitions=_definitions(), arrows=found.edges, bounds=found.bounds,
                **around, **parameters)


@functools.cache
def _full_map() -> str:
    from privcert.api import implication_map

    with tempfile.TemporaryDirectory(prefix="privcert-map-") as folder:
        text = implication_map().draw(Path(folder) / "map.svg").read_text(encoding="utf-8")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + str(page_svg(text, standalone=True))


@router.get("/explore/map.svg")
async def full_map() -> Response:
    """The whole map at full size with its numbered list and legend, as ``privcert theory map`` draws it (the
    browser zooms and scrolls it), written again from its drawing elements only, so that it needs no style."""
    return Response(await run_in_threadpool(_full_map), media_type="image/svg+xml",
                    headers={"Content-Security-Policy": MAP_CSP})


@router.get("/explore/definition", response_class=HTMLResponse)
async def definition_arrows(request: Request, id: str) -> Response:
    """What a definition implies and what implies it: its neighbourhood drawn, and every arrow in words."""
    around = await run_in_threadpool(neighbourhood, id)
    return fragment(request, "_definition.j2", **around)


def _params(form: Mapping[str, Any]) -> dict[str, int]:
    """The size parameters typed in (integers) and the assumptions ticked (true), as ``--param`` gives them."""
    parameters = _parameters()
    params: dict[str, int] = {}
    for name in parameters["sizes"]:
        text = str(form.get(f"param-{name}", "")).strip()
        if text:
            params[name] = whole_number(text, name)
    for name in parameters["assumptions"]:
        if form.get(f"assume-{name}"):
            params[name] = True
    return params


def _level(text: str, where: str) -> Any:
    from fractions import Fraction

    from verifier.literal import Domain, LiteralError, parse_exact

    if not text:
        return None
    try:
        return parse_exact(number_text(text, where), where, Domain(lower=Fraction(0)))
    except LiteralError as error:
        raise BadRequest(str(error)) from error


def _answer(form: Mapping[str, Any]) -> Implication:
    """:func:`privcert.api.implies` on the form's (or the query string's) fields."""
    from privcert.api import QueryError, implies

    premise, conclusion = str(form.get("premise", "")), str(form.get("conclusion", ""))
    level = _level(str(form.get("level", "")).strip(), "A's level")
    bound = _level(str(form.get("bound", "")).strip(), "B's level to exceed")
    try:
        return implies(premise, conclusion, _params(form), level, bound=bound)
    except QueryError as error:
        raise BadRequest(str(error)) from error


@router.post("/explore/implies", response_class=HTMLResponse)
async def implies(request: Request) -> Response:
    """Does A imply B? (``privcert theory implies A B --param ... --level ... --bound ...``)."""
    form = await read_form(request)
    answer = await run_in_threadpool(_answer, form)
    sources = _references((*(step.claim for step in answer.path), *(edge.claim for edge in answer.evidence)))
    return fragment(request, "_implies.j2", answer=answer, sources=sources)


@router.get("/explore/implies.json")
async def implies_json(request: Request) -> Response:
    """The answer as JSON, the same document as ``privcert theory implies ... --json``
    (fields as the form's: ``premise``, ``conclusion``, ``level``, ``bound``, ``param-NAME``, ``assume-NAME``);
    a question that cannot be answered is ``{"error": message}`` with status 422."""
    try:
        answer = await run_in_threadpool(_answer, request.query_params)
    except BadRequest as error:
        return JSONResponse({"error": str(error)}, status_code=422)
    return JSONResponse(answer.to_json())


def _explain(records: int, lines: list[str]) -> Any:
    from privcert.api import explain
    from theory.answers.audit_levels import AuditLevels

    measurements = []
    for number, line in enumerate(lines, start=1):
        match = re.fullmatch(r"\s*([a-z_]+)(?:\s+on\s+(\S+))?(?:\s*\(k\s*=\s*([0-9]+)\))?\s*=\s*(\S+)\s*", line)
        if match is None:
            raise BadRequest(f"levels, line {number}: expected MODEL [on ATTRIBUTE] [(k = SIZE)] = LEVEL, e.g. "
                             f"k_anonymity = 5 or t_closeness on disease = 1/5; found {line!r}")
        model, attribute, size, level = match.groups()
        measurements.append({"model": model, "attribute": attribute, "exact": level, "status": "finite",
                             "parameters": {} if size is None else {"k": int(size)}})
    return explain(AuditLevels.from_json({"rows": records, "measurements": measurements}))


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
        found = await run_in_threadpool(_explain, records, lines)
    except VerifierError as error:
        raise BadRequest(str(error)) from error
    return fragment(request, "_explain.j2", implied=found.to_json(), text=found.text())
