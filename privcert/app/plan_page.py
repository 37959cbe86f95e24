"""The Plan page: ``privcert plan`` on an uploaded (or bundled) original, its targets typed in or read from a
policy, for an auditor or a publisher, in a job; the optima over every matrix beside the paper's three
mechanisms (the page renders :func:`privcert.api.plan`'s typed result), the chosen matrix and its CSV,
Figs. 6-7 for these values."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from privcert.app import jobs
from privcert.app.audit_page import EXAMPLES, RELEASES
from privcert.app.policy_files import checked_policy
from privcert.app.web import (
    BadRequest,
    fragment,
    messages_names,
    number_text,
    page,
    read_form,
    save_upload,
    session_of,
    whole_number,
)

__all__ = ["router"]

router = APIRouter()


@router.get("/plan", response_class=HTMLResponse)
async def plan_page(request: Request) -> Response:
    return page(request, "plan.j2", examples=EXAMPLES)


@router.post("/plan", response_class=HTMLResponse)
async def plan(request: Request) -> Response:
    """``privcert plan ORIGINAL --sensitive ATTR (--t T0 [--eps E0] [--k K] | --policy FILE) [--for WHO]
    [--data-dependent | --estimate-eps E] --mechanism-out FILE --figures DIR`` on the dropped (or bundled)
    original."""
    form = await read_form(request)
    session = session_of(request)
    original = await save_upload(session, form.get("original"), "original", RELEASES, "original")
    example = str(form.get("example", ""))
    if original is None and example:
        if example not in EXAMPLES:
            raise BadRequest(f"example: expected one of {', '.join(EXAMPLES)}, found {example!r}")
        folder = EXAMPLES[example][1]
        source = resources.files("privcert") / "data" / folder if folder else resources.files("privcert") / "data"
        original = session.new_path("original", ".csv", name="original.csv")
        with resources.as_file(source) as where:
            shutil.copyfile(Path(where) / "release.csv", original)
        session.state.setdefault("names", {})[str(original)] = f"{example}/release.csv"
    if original is None:
        raise BadRequest("original: choose a CSV or Parquet file, or a bundled table, first")
    policy = await save_upload(session, form.get("policy"), "plan_policy", (".toml",), "policy", default=".toml")
    if policy is not None:
        await checked_policy(session, policy)
    targets = {name: str(form.get(name, "")).strip() or None for name in ("sensitive", "t0", "eps0", "k",
                                                                          "estimate_eps")}
    for name, label in (("t0", "t0"), ("eps0", "ε0"), ("estimate_eps", "the estimate's ε")):
        number_text(targets[name] or "", label)
    if targets["k"] is not None:
        whole_number(targets["k"], "k", minimum=1)
    audience = str(form.get("audience", "") or "auditor")
    if audience not in ("auditor", "publisher"):
        raise BadRequest(f"audience: expected auditor or publisher, found {audience!r}")
    out = session.new_path("plan", ".csv", name="mechanism.csv")
    arguments = {"original": str(original), "policy": None if policy is None else str(policy), **targets,
                 "audience": audience, "data_dependent": form.get("data_dependent") == "on",
                 "mechanism": str(out), "names": messages_names(session)}
    job = jobs.start(session.state, "plan", arguments)
    return fragment(request, "_job.j2", job=job)
