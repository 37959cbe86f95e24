"""The Audit page: a release (uploaded or bundled), its policy (a form from the registry, or a TOML file),
the audit run off the event loop with its progress, the results, and the certificate signed in the session."""

from __future__ import annotations

import os
import shutil
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from privcert.app import jobs, policy_files
from privcert.app.fields import shown
from privcert.app.policy_form import (
    FormState,
    form_from_policy,
    model_fields,
    policy_from_form,
    policy_toml,
    suggest_roles,
)
from privcert.app.sessions import Session
from privcert.app.web import (
    BadRequest,
    download,
    found_session,
    fragment,
    messages_names,
    page,
    read_form,
    save_upload,
    session_of,
    shown_name,
)

__all__ = ["router", "EXAMPLES", "read_columns", "set_release", "warm", "MAX_COLUMNS"]

router = APIRouter()

RELEASES = (".csv", ".csv.gz", ".parquet", ".pq")
SAMPLE_ROWS = 200_000
"""Rows read to suggest roles (a column unique on all of them is suggested as an identifier)."""
MAX_COLUMNS = 2_000
"""The most columns a release may have in the workbench: the policy form shows one row per column (a wider table
is audited with ``privcert audit``)."""
EXAMPLES = {
    "demo": ("t-closeness slides: 9 patients (zip, age, salary, disease)", "", ("disease_hierarchy.csv",)),
    "hospital": ("hospital admissions: 300 stays (age, zip, diagnosis, length of stay)", "hospital", ()),
}
"""The bundled releases (privcert/data): a description, the folder, the files their policy names."""


def read_columns(path: Path) -> tuple[list[str], int, dict[str, int], dict[str, bool]]:
    """The release's column names, the rows read (at most :data:`SAMPLE_ROWS`), each column's distinct values
    among them and whether it is numeric. Reads the file: call it off the event loop.

    Raises
    ------
    BadRequest
        The file cannot be read as a table (the reader's message), or has more than :data:`MAX_COLUMNS` columns
        (its header is all that is read).
    """
    import pandas as pd

    try:
        if path.suffix in (".parquet", ".pq"):
            import pyarrow.parquet as pq

            table = pq.ParquetFile(path)
            _check_width(len(table.schema_arrow))
            batch = next(table.iter_batches(batch_size=SAMPLE_ROWS), None)
            frame = pd.DataFrame() if batch is None else batch.to_pandas()
        else:
            _check_width(_csv_width(path))
            frame = pd.read_csv(path, nrows=SAMPLE_ROWS)
    except BadRequest:
        raise
    except Exception as error:  # noqa: BLE001 - any reader error is the user's file, shown in the page
        raise BadRequest(f"cannot read the release as a table: {type(error).__name__}: {error}") from error
    if frame.columns.empty:
        raise BadRequest("the release has no columns")
    names = [str(c) for c in frame.columns]
    distinct = {str(c): int(frame[c].nunique(dropna=False)) for c in frame.columns}
    numeric = {str(c): bool(pd.api.types.is_numeric_dtype(frame[c])) for c in frame.columns}
    return names, len(frame), distinct, numeric


def warm() -> None:
    """Import the readers :func:`read_columns` uses and compile every template, so that the first upload after
    the server starts does neither (the server's start-up calls it, while nobody waits)."""
    import pandas  # noqa: F401 - imported for the first upload
    import pyarrow.parquet  # noqa: F401 - imported for the first upload

    from privcert.app.web import templates

    for name in templates.env.list_templates():
        templates.env.get_template(name)


def _csv_width(path: Path) -> int:
    """The fields of a CSV file's header (read by the csv module: pandas takes 48 s on a 100,000-field header)."""
    import csv
    import gzip

    with (gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="") if path.name.endswith(".gz")
          else path.open(encoding="utf-8", errors="replace", newline="")) as text:
        return len(next(csv.reader(text), []))


def _check_width(columns: int) -> None:
    if columns > MAX_COLUMNS:
        raise BadRequest(f"the release has {columns:,} columns; the workbench reads tables of at most "
                         f"{MAX_COLUMNS:,} columns (its policy form shows one row per column): audit this one with "
                         "privcert audit")


def _workspace(request: Request, message: str | None = None, **extra: Any) -> HTMLResponse:
    session = session_of(request)
    return fragment(request, "_workspace.j2", **_context(session), error=message, **extra)


def _context(session: Session) -> dict[str, Any]:
    state = session.state
    return {"examples": EXAMPLES, "release": state.get("release"), "release_name": state.get("release_name"),
            "rows_read": state.get("rows_read"), "form": state.get("form"), "models": model_fields(),
            "job": state.get("jobs", {}).get(state.get("audit_job", "")), "key": state.get("key"),
            "key_offered": state.get("key_offered", False), "certificate": state.get("certificate_job"),
            "policy_files": sorted(policy_files.uploaded(session))}


@router.get("/audit", response_class=HTMLResponse)
async def audit_page(request: Request) -> Response:
    return page(request, "audit.j2", **_context(session_of(request)))


async def set_release(session: Session, path: Path, name: str, form: FormState | None = None,
                      keep_form: bool = False) -> None:
    """Make ``path`` the release the Audit page audits, with the policy form ``form`` (default: with
    ``keep_form``, the session's form when the columns are the same; else roles suggested from the release)."""
    names, rows, distinct, numeric = await run_in_threadpool(read_columns, path)
    state = session.state
    if form is None and keep_form and state.get("columns") == names:
        form = state.get("form")
    state.update(release=str(path), release_name=name, columns=names, rows_read=rows,
                 form=form or suggest_roles(names, rows, distinct, numeric), audit_job=None)


async def _set_release(request: Request, path: Path, name: str, form: FormState | None = None) -> HTMLResponse:
    await set_release(session_of(request), path, name, form)
    return _workspace(request)


@router.post("/audit/release", response_class=HTMLResponse)
async def upload_release(request: Request) -> Response:
    form = await read_form(request)
    session = session_of(request)
    path = await save_upload(session, form.get("release"), "release", RELEASES, "release")
    if path is None:
        raise BadRequest("release: choose a CSV or Parquet file first")
    return await _set_release(request, path, shown_name(session, path))


@router.post("/audit/example", response_class=HTMLResponse)
async def pick_example(request: Request) -> Response:
    form = await read_form(request)
    session = session_of(request)
    name = str(form.get("example", ""))
    if name not in EXAMPLES:
        raise BadRequest(f"example: expected one of {', '.join(EXAMPLES)}, found {name!r}")
    _, folder, hierarchies = EXAMPLES[name]
    source = resources.files("privcert") / "data" / folder if folder else resources.files("privcert") / "data"
    release = session.new_path("release", ".csv", name="release.csv")
    named = session.state.setdefault("policy_files", {})
    with resources.as_file(source) as where:
        shutil.copyfile(Path(where) / "release.csv", release)
        for hierarchy in hierarchies:
            named[hierarchy] = str(release.parent / hierarchy)
            shutil.copyfile(Path(where) / hierarchy, named[hierarchy])
        policy = tomllib.loads((Path(where) / "policy.toml").read_text(encoding="utf-8"))
    session.state.setdefault("names", {})[str(release)] = f"{name}/release.csv"
    names, _, _, _ = await run_in_threadpool(read_columns, release)
    return await _set_release(request, release, f"{name}/release.csv", form_from_policy(policy, names))


def _state_from(form: Any, session: Session) -> FormState:
    columns = session.state.get("columns")
    if not columns:
        raise BadRequest("no release yet: upload one or pick an example first")
    state = policy_from_form(form, columns, session.state.get("form"))
    session.state["form"] = state
    return state


def _check_policy(session: Session, state: FormState) -> tuple[Path, Any]:
    """Write the form's policy in the session's folder, beside the files it may name (the session's uploads,
    :mod:`privcert.app.policy_files`), and read it as ``privcert audit`` does, with those files only."""
    path = session.new_path("policy", ".toml", name="policy.toml")
    path.write_text(policy_toml(state), encoding="utf-8")
    session.state.setdefault("names", {})[str(path)] = "the policy"
    return path, policy_files.read_policy(session, path)


@router.post("/audit/policy/form", response_class=HTMLResponse)
async def policy_form(request: Request) -> Response:
    """The policy form again, after adding or removing a requirement or changing a model."""
    form = await read_form(request)
    _state_from(form, session_of(request))
    return fragment(request, "_policy.j2", **_context(session_of(request)))


async def _posted_policy(request: Request) -> tuple[Path | None, Any, str | None]:
    """The posted form's policy, written and read as ``privcert audit`` does: its file and parsed policy, or the
    reader's message."""
    from verifier.errors import VerifierError

    session = session_of(request)
    state = _state_from(await read_form(request), session)
    try:
        path, parsed = await run_in_threadpool(_check_policy, session, state)
    except VerifierError as error:
        return None, None, shown(error, messages_names(session))
    return path, parsed, None


@router.post("/audit/policy/check", response_class=HTMLResponse)
async def policy_check(request: Request) -> Response:
    """The policy's validation, as you type: the message ``privcert audit`` would print, or what it requires."""
    _, parsed, problem = await _posted_policy(request)
    return fragment(request, "_policy_status.j2", problem=problem,
                    count=None if parsed is None else len(parsed.requirements))


async def _release_form(request: Request) -> tuple[Any, Session]:
    """The posted form (its token checked) and the session, which has a release to write a policy for."""
    form = await read_form(request)
    session = session_of(request)
    if not session.state.get("columns"):
        raise BadRequest("no release yet: upload one or pick an example first")
    return form, session


@router.post("/audit/policy/import", response_class=HTMLResponse)
async def import_policy(request: Request) -> Response:
    form, session = await _release_form(request)
    path = await save_upload(session, form.get("policy"), "imported", (".toml",), "policy")
    if path is None:
        raise BadRequest("policy: choose a TOML file first")
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise BadRequest(f"{shown_name(session, path)}: not a TOML policy file: {error}") from error
    session.state["form"] = form_from_policy(document, session.state["columns"])
    return _workspace(request)


@router.post("/audit/policy/files", response_class=HTMLResponse)
async def upload_policy_files(request: Request) -> Response:
    """Files the policy names (hierarchies, population tables, mechanisms), each named in the policy by its name."""
    form, session = await _release_form(request)
    saved = [path for upload in form.getlist("files") if (path := await save_upload(
        session, upload, "policy_file", policy_files.SUFFIXES, "file the policy names")) is not None]
    if not saved:
        raise BadRequest("files the policy names: choose one or more files first")
    session.state.setdefault("policy_files", {}).update({path.name: str(path) for path in saved})
    return _workspace(request)


@router.get("/audit/policy.toml")
async def export_policy(request: Request) -> Response:
    session = found_session(request)
    state = None if session is None else session.state.get("form")
    if session is None or state is None:
        return HTMLResponse("no policy yet", status_code=404)
    text = policy_toml(state, Path(session.state.get("release_name", "release.csv")).name)
    return Response(text, media_type="application/toml",
                    headers={"Content-Disposition": 'attachment; filename="policy.toml"'})


@router.post("/audit/run", response_class=HTMLResponse)
async def run_audit(request: Request) -> Response:
    policy, _, problem = await _posted_policy(request)
    session = session_of(request)
    if policy is None:
        return _workspace(request, problem)
    view = session.new_path("report", ".html", name="report.html")
    release = session.state["release"]
    arguments = {"release": release, "policy": str(policy), "view": str(view), "names": messages_names(session)}
    job = jobs.start(session.state, "audit", arguments)
    session.state.update(audit_job=job.id, audited={"release": release, "policy": str(policy)},
                         certificate_job=None)
    return fragment(request, "_job.j2", **{**_context(session), "job": job})


@router.get("/jobs/{job_id}", response_class=HTMLResponse)
async def job_status(request: Request, job_id: str) -> Response:
    session = found_session(request)
    job = None if session is None else session.state.get("jobs", {}).get(job_id)
    if session is None or job is None:
        return HTMLResponse('<p class="error" role="alert">error: no such job in this session</p>')
    return fragment(request, "_job.j2", **{**_context(session), "job": job})


@router.post("/jobs/{job_id}/cancel", response_class=HTMLResponse)
async def job_cancel(request: Request, job_id: str) -> Response:
    await read_form(request)
    session = session_of(request)
    job = session.state.get("jobs", {}).get(job_id)
    if job is not None:
        jobs.cancel(job)
    return fragment(request, "_job.j2", **{**_context(session), "job": job})


@router.get("/files/{folder}/{name}")
async def session_file(request: Request, folder: str, name: str) -> Response:
    """A file of the session (a download); the private key it generated only once, deleted after it when it has
    signed."""
    session = found_session(request)
    if session is None:
        return HTMLResponse("not found", status_code=404)
    key = session.state.get("key")
    if key is not None and key["private"] and session.file(f"{folder}/{name}") == Path(key["private"]):
        if session.state.get("key_offered"):
            return HTMLResponse("the private key was offered for download once; generate a new one", status_code=404)
        session.state["key_offered"] = True
        return download(session, f"{folder}/{name}", after=lambda: _forget_key(session))
    return download(session, f"{folder}/{name}")


def _forget_key(session: Session) -> None:
    """Delete the session's private key once it is no longer needed: it has signed a certificate, and (made here)
    it has been offered for download."""
    key = session.state.get("key")
    if key is not None and key["private"] and key.get("signed") and session.state.get("key_offered"):
        Path(key["private"]).unlink(missing_ok=True)
        key["private"] = None


def _signed(session: Session) -> Any:
    """What a finished signing job does: the key has signed (and is deleted if it was offered for download)."""
    def done(_: jobs.Job) -> None:
        key = session.state.get("key")
        if key is not None:
            key["signed"] = True
            _forget_key(session)

    return done


@router.get("/view/{folder}/{name}")
async def session_view(request: Request, folder: str, name: str) -> Response:
    """An HTML view of the session (the audit's report, the certificate's view), shown in the browser."""
    session = found_session(request)
    if session is None or not name.endswith(".html"):
        return HTMLResponse("not found", status_code=404)
    return download(session, f"{folder}/{name}", inline=True)


@router.post("/certify/key/new", response_class=HTMLResponse)
async def new_key(request: Request) -> Response:
    """A new Ed25519 key pair for this session (``privcert keygen``): the private key offered for download once."""
    from reports.signing import new_key_pair

    await read_form(request)
    session = session_of(request)
    private_pem, public_text = new_key_pair()
    private = session.new_path("key", ".key", name="privcert.key")
    with os.fdopen(os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
        out.write(private_pem)
    public = private.with_name(private.name + ".pub")
    public.write_text(public_text, encoding="utf-8")
    session.state.update(key={"private": str(private), "public": str(public), "generated": True}, key_offered=False)
    return fragment(request, "_certify.j2", **_context(session))


@router.post("/certify/key/upload", response_class=HTMLResponse)
async def upload_key(request: Request) -> Response:
    """A private key written by ``privcert keygen`` (checked when signing)."""
    form = await read_form(request)
    session = session_of(request)
    private = await save_upload(session, form.get("key"), "key", (".pem", ".key"), "private key", default=".pem")
    if private is None:
        raise BadRequest("private key: choose the key file first")
    session.state.update(key={"private": str(private), "public": None, "generated": False}, key_offered=True)
    return fragment(request, "_certify.j2", **_context(session))


@router.post("/certify", response_class=HTMLResponse)
async def certify(request: Request) -> Response:
    """Sign the audit just run: the certificate (JSON) and its HTML and PDF views, in a job."""
    await read_form(request)
    session = session_of(request)
    audited, key = session.state.get("audited"), session.state.get("key")
    if audited is None:
        raise BadRequest("no audit yet: run the audit first")
    if key is None or not key["private"]:
        raise BadRequest("no signing key: generate one or upload yours first")
    certificate = session.new_path("certificate", ".json", name="certificate.json")
    arguments = {**audited, "key": key["private"], "certificate": str(certificate),
                 "html": str(certificate.with_name("certificate.html")),
                 "pdf": str(certificate.with_name("certificate.pdf")), "names": messages_names(session)}
    job = jobs.start(session.state, "certify", arguments, done=_signed(session))
    session.state["certificate_job"] = job.id
    return fragment(request, "_job.j2", **{**_context(session), "job": job})
