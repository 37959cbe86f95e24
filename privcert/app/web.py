"""The workbench's plumbing: sessions in a cookie, CSRF on every form, the Content-Security-Policy,
the upload size limit, templates and downloads.

Every response carries a Content-Security-Policy that allows only the app's own origin
(scripts and styles from ``/static``; no CDN, no external request of any kind), and forbids
being framed by another site. A ``POST`` must carry the session's CSRF token (a form field
``csrf`` or the ``X-CSRF-Token`` header htmx sends) and declare its length; a body over the
upload limit is refused before it is read, with a message that says the limit.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup, escape
from starlette.background import BackgroundTask
from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Receive, Scope, Send

from privcert.app.sessions import COOKIE, MAX_SESSIONS, SESSION_DISK, Session, Sessions, safe_suffix
from verifier.escape import safe

__all__ = ["Settings", "LOOPBACK", "BadRequest", "templates", "session_of", "found_session", "read_form", "save_upload", "download", "page",
           "fragment", "CSP", "Guard", "shown_name", "messages_names", "shown_text", "number_text", "whole_number"]

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'self'")
"""The app's own origin only: scripts and styles from ``/static``, no inline script or style (a figure's
styles are presentation attributes, :mod:`privcert.app.svg`)."""
VIEW_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'"
"""The certificate's HTML view (self-contained: inline CSS and SVG, no script)."""


LOOPBACK = ("127.0.0.1", "localhost", "::1")
"""The names only this computer reaches the server by."""


@dataclass(frozen=True)
class Settings:
    """How the server runs: the upload limit in bytes, a session's idle lifetime in seconds, and the folder
    under which the sessions' folders are made (default: the system's temporary folder); ``warm``: start
    the jobs' fork server and draw the map at start-up, in the background; ``host`` and ``port``: the address
    served (``privcert serve --host --port``), which with :data:`LOOPBACK` are the only names a request may
    give the server (:meth:`addresses`); ``max_sessions`` and ``session_disk``: the sessions live at once and
    the bytes each one's files may take (:mod:`privcert.app.sessions`)."""

    max_upload: int = 200 * 1024 * 1024
    session_idle: float = 3600.0
    root: Path | None = None
    warm: bool = True
    host: str = "127.0.0.1"
    port: int = 8000
    max_sessions: int = MAX_SESSIONS
    session_disk: int = SESSION_DISK

    def addresses(self) -> frozenset[str]:
        """The ``Host`` headers the server answers: each loopback name and the served host, with the port (and
        without it on port 80, as browsers send it)."""
        names = {f"[{name}]" if ":" in name else name for name in (*LOOPBACK, self.host.lower())}
        return frozenset({f"{name}:{self.port}" for name in names} | (names if self.port == 80 else set()))


class BadRequest(Exception):
    """Input a page refuses: the message is shown in the page, in its words (its fields' labels)."""


def number_text(text: str, field: str) -> str:
    """``text``, a number typed in the field labelled ``field``, once every digit in it is one of 0-9 (Python and
    the exact grammar would read ``१२``, other scripts' digits, as 12).

    Raises
    ------
    BadRequest
        ``text`` holds a digit or numeral other than 0-9.
    """
    if any(char.isnumeric() and not "0" <= char <= "9" for char in text):
        raise BadRequest(f"{field}: expected a number written with the digits 0-9, found {text!r}")
    return text


def whole_number(text: str, field: str, minimum: int = 0) -> int:
    """The whole number ``text`` typed in the field labelled ``field`` (digits 0-9 only), at least ``minimum``.

    Raises
    ------
    BadRequest
        ``text`` is not such a number.
    """
    number_text(text, field)
    if not re.fullmatch(r"[0-9]+", text) or int(text) < minimum:
        raise BadRequest(f"{field}: expected a whole number ≥ {minimum}, found {text!r}")
    return int(text)


def shown_text(value: Any) -> Any:
    """What a template prints of ``value`` (its ``finalize``): a string with its control characters and
    bidirectional overrides escaped (:func:`verifier.escape.safe`; line breaks kept), so that no name of the
    user's reverses or hides the text around it; markup the app built (:class:`markupsafe.Markup`) as it is."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return safe(value, lines=True)
    return value


def _environment() -> Environment:
    """The app's one Jinja environment: every template escaped, whatever its suffix (Starlette's default
    escapes only ``.html``, ``.htm`` and ``.xml``), every printed value through :func:`shown_text`."""
    from privcert.app.svg import page_svg
    from reports.reading import interval, number

    environment = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True,
                              finalize=shown_text)
    environment.filters.update(link=lambda path: f"{Path(path).parent.name}/{Path(path).name}", figure=page_svg,
                               decimal=lambda exact: number(exact).decimal, interval=interval)
    return environment


templates = Jinja2Templates(env=_environment())


def session_of(request: Request) -> Session:
    """The request's session, made now (its cookie set on the response) when the browser has none: for a page
    that needs one (its forms carry the session's CSRF token)."""
    session: Session | None = request.state.session
    if session is None:
        session = request.state.session = request.state.sessions.create()
        request.state.fresh = True
    return session


def found_session(request: Request) -> Session | None:
    """The request's session if the browser has one (a download, a job's progress: nothing to make one for)."""
    session: Session | None = request.state.session
    return session


def page(request: Request, name: str, **context: Any) -> HTMLResponse:
    """A whole page (the template extends ``base.j2``)."""
    return templates.TemplateResponse(request, name, {"session": session_of(request), **context})


def fragment(request: Request, name: str, **context: Any) -> HTMLResponse:
    """A part of a page, swapped in by htmx."""
    return templates.TemplateResponse(request, name, {"session": found_session(request), **context})


async def read_form(request: Request) -> FormData:
    """The posted form, once its CSRF token is checked against the session's.

    Raises
    ------
    BadRequest
        The token is absent or not the session's (a form of another site, or of an expired session).
    """
    form = await request.form()
    request.state.forms = [*getattr(request.state, "forms", []), form]
    token = form.get("csrf") or request.headers.get("x-csrf-token") or ""
    session = found_session(request)
    if session is None or not isinstance(token, str) or not secrets.compare_digest(token, session.csrf):
        raise BadRequest("this form is out of date or did not come from this page (its CSRF token does not match "
                         "the session's); reload the page and try again")
    return form


async def save_upload(session: Session, upload: Any, stem: str, allowed: tuple[str, ...], what: str,
                      default: str | None = None) -> Path | None:
    """Store an uploaded file in a fresh folder ``stem-N`` under its name made plain
    (:func:`privcert.app.sessions.plain_name`; ``default``: the suffix of a name that has none of ``allowed``,
    where any name will do); the browser's name is kept for display. ``None`` when no file was chosen. The file
    is readable by the server's user only (``0600``: it may be a private key).

    Raises
    ------
    BadRequest
        The file's name does not end in one of ``allowed``, or the session's files would take more than its
        :attr:`~privcert.app.sessions.Session.disk` (the file is not kept).
    """
    if not isinstance(upload, UploadFile) or not upload.filename:
        return None
    suffix = safe_suffix(upload.filename, allowed) or default
    if not suffix:
        raise BadRequest(f"{what} {upload.filename!r}: expected a file ending in {', '.join(allowed)}")
    room = session.disk - session.used()
    path = session.new_path(stem, suffix, uploaded=upload.filename)
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
        while chunk := await upload.read(1 << 20):
            room -= len(chunk)
            if room < 0:
                break
            out.write(chunk)
    if room < 0:
        shutil.rmtree(path.parent)
        raise BadRequest(f"{what} {upload.filename!r}: this session's files may take at most "
                         f"{session.disk / 1024 / 1024:,.0f} MB, and this file would pass that; it was not kept "
                         "(a session's files are deleted when it ends: close the workbench's tabs and open it "
                         "again for a new one)")
    session.state.setdefault("names", {})[str(path)] = upload.filename
    return path


def shown_name(session: Session, path: Path | str) -> str:
    """The name the user knows a session file by (the uploaded name, or the file's own)."""
    names: dict[str, str] = session.state.get("names", {})
    return names.get(str(path), Path(path).name)


def messages_names(session: Session) -> dict[str, str]:
    """What a job's messages replace: each session file's path by the name its user knows, the folder by nothing."""
    return {**session.state.get("names", {}), str(session.folder) + "/": ""}


def download(session: Session, relative: str, inline: bool = False, after: Callable[[], None] | None = None
             ) -> Response:
    """The session's file ``FOLDER/NAME`` (:meth:`~privcert.app.sessions.Session.link`), then ``after()`` once it
    is sent; anything else is not found."""
    path = session.file(relative)
    if path is None:
        return HTMLResponse("not found", status_code=404)
    if inline:
        response = FileResponse(path, media_type="text/html; charset=utf-8")
        response.headers["Content-Security-Policy"] = VIEW_CSP
        return response
    return FileResponse(path, filename=path.name, background=None if after is None else BackgroundTask(after))


class Guard:
    """ASGI middleware: the names the server answers to, the origin of a form, the session cookie, the upload
    limit, and the security headers of every response.

    A request whose ``Host`` is not one of :meth:`Settings.addresses` is refused (400): a page of another site
    that made its own name point at this computer (DNS rebinding) reaches nothing. A request that changes
    something (any method but GET, HEAD, OPTIONS) whose ``Origin``, or ``Referer`` when it has no ``Origin``,
    is not the server's own is refused (403), even with the session's CSRF token.
    """

    def __init__(self, app: ASGIApp, sessions: Sessions, settings: Settings) -> None:
        self.app, self.sessions, self.settings = app, sessions, settings
        self.addresses = settings.addresses()
        self.origins = frozenset(f"http://{address}" for address in self.addresses)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refusal = self._refusal(request)
        state = scope.setdefault("state", {})
        state.update(session=None if refusal else self.sessions.get(request.cookies.get(COOKIE)),
                     sessions=self.sessions, fresh=False)

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", CSP.encode()))
                headers += [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
                            (b"cache-control", b"no-store")]
                if state["fresh"]:
                    headers.append((b"set-cookie", (f"{COOKIE}={state['session'].id}; Path=/; HttpOnly; "
                                                    "SameSite=Strict").encode()))
                message["headers"] = headers
            await send(message)

        if refusal is not None:
            await refusal(scope, receive, send_with_headers)
            return
        try:
            await self.app(scope, receive, send_with_headers)
        finally:
            for form in state.get("forms", []):
                await form.close()

    def _refusal(self, request: Request) -> Response | None:
        host = request.headers.get("host", "").lower()
        if host not in self.addresses:
            shown = ", ".join(f"http://{address}/" for address in sorted(self.addresses) if ":" in address)
            return HTMLResponse(f"<p>error: this server answers only at this computer's own addresses for it "
                                f"({escape(shown)}), not at {escape(safe(host))!s}; open one of them</p>", status_code=400)
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        origin = request.headers.get("origin")
        referer = request.headers.get("referer")
        came = origin if origin is not None else None if referer is None else "/".join(referer.split("/", 3)[:3])
        if came is not None and came.lower() not in self.origins:
            return HTMLResponse(f'<p class="error" role="alert">error: this form came from another site '
                                f"({escape(safe(came))}); the workbench accepts forms only from its own pages</p>",
                                status_code=403)
        length = request.headers.get("content-length")
        limit = self.settings.max_upload
        if length is None or not length.isdigit():
            return HTMLResponse('<p class="error" role="alert">error: the request did not say its length; '
                                "send the form from the page</p>", status_code=411)
        if int(length) > limit:
            return HTMLResponse(f'<p class="error" role="alert">error: the upload is {int(length) / 1024 / 1024:.1f} '
                                f"MB; this server accepts at most {limit / 1024 / 1024:.1f} MB per request "
                                "(whoever started the workbench can allow more: privcert serve takes a larger "
                                "upload limit)</p>", status_code=413)
        return None
