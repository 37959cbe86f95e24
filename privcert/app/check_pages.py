"""The Verify and Compare pages: ``privcert verify`` and ``privcert compare`` on dropped files, in jobs."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from privcert.app import jobs
from privcert.app.audit_page import RELEASES, read_columns, set_release
from privcert.app.web import BadRequest, fragment, messages_names, page, read_form, save_upload, session_of, shown_name

__all__ = ["router"]

router = APIRouter()


@router.get("/verify", response_class=HTMLResponse)
async def verify_page(request: Request) -> Response:
    return page(request, "verify.j2")


@router.post("/verify", response_class=HTMLResponse)
async def verify(request: Request) -> Response:
    """``privcert verify CERTIFICATE --public-key KEY [--data RELEASE] [--original ORIGINAL]`` on the dropped files."""
    form = await read_form(request)
    session = session_of(request)
    certificate = await save_upload(session, form.get("certificate"), "dropped_certificate", (".json",),
                                    "certificate", default=".json")
    key = await save_upload(session, form.get("public_key"), "dropped_key", (".pub",), "public key", default=".pub")
    data = await save_upload(session, form.get("data"), "dropped_release", RELEASES, "release")
    original = await save_upload(session, form.get("original"), "dropped_original", RELEASES, "original")
    if certificate is None or key is None:
        raise BadRequest("expected the certificate (JSON) and the signer's public key (KEY.pub)")
    arguments = {"certificate": str(certificate), "public_key": str(key), "names": messages_names(session),
                 "data": None if data is None else str(data), "original": None if original is None else str(original)}
    job = jobs.start(session.state, "verify", arguments)
    return fragment(request, "_job.j2", job=job)


@router.get("/compare", response_class=HTMLResponse)
async def compare_page(request: Request) -> Response:
    return page(request, "compare.j2")


@router.post("/compare", response_class=HTMLResponse)
async def compare(request: Request) -> Response:
    """``privcert compare ORIGINAL RELEASE... --qi NAMES`` on the dropped files."""
    form = await read_form(request)
    session = session_of(request)
    original = await save_upload(session, form.get("original"), "original", RELEASES, "original")
    releases = [path for upload in form.getlist("candidates")
                if (path := await save_upload(session, upload, "candidate", RELEASES, "candidate")) is not None]
    if original is None or len(releases) < 2:
        raise BadRequest(f"expected the original and two or more candidates, found {'an' if original else 'no'} "
                         f"original and {len(releases)} candidate(s)")
    qi = [name.strip() for name in str(form.get("qi", "")).split(",") if name.strip()]
    if not qi:
        columns, _, _, _ = await run_in_threadpool(read_columns, original)
        raise BadRequest(f"quasi-identifiers: expected column names, comma-separated, among {', '.join(columns)}")
    # One folder holding every table under its own name: the table and the figure name them as the user does.
    folder = session.new_path("compare", "", name="original").parent
    names: list[str] = []
    candidates: dict[str, str] = session.state.setdefault("candidates", {})
    for path in (original, *releases):
        name = path.name if path.name not in names else f"{len(names)}-{path.name}"
        names.append(name)
        (folder / name).symlink_to(path)
        candidates[f"{folder.name}/{name}"] = str(path)
    arguments = {"folder": str(folder), "original": names[0], "releases": names[1:], "qi": qi,
                 "metric": str(form.get("metric", "loss")) or "loss", "names": messages_names(session),
                 "target": str(form.get("target", "")).strip() or None}
    job = jobs.start(session.state, "compare", arguments)
    return fragment(request, "_job.j2", job=job)


@router.post("/compare/audit")
async def audit_candidate(request: Request) -> Response:
    """Open a compared candidate in the Audit page (its release, the session's policy form when the columns
    are the same)."""
    form = await read_form(request)
    session = session_of(request)
    chosen = str(form.get("candidate", ""))
    path = session.state.get("candidates", {}).get(chosen)
    if path is None:
        raise BadRequest(f"candidate {chosen!r}: not a candidate compared in this session; compare again")
    await set_release(session, Path(path), shown_name(session, path), keep_form=True)
    return RedirectResponse("/audit", status_code=303)
