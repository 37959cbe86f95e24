"""The workbench: ``privcert serve``, a local web application over :mod:`privcert.api` (docs/app.md).

Pages: Audit (a release, its policy, the audit, the certificate), Verify, Compare, Plan
(a randomized release from its targets) and Explore (the implication map). The app holds no privacy logic: every answer comes from
the same library calls the command line makes, and the forms are built from the model
registry and the theory's definitions, so a model registered later appears without a
change here. Built with FastAPI (Starlette), the project's Jinja2 and htmx (vendored under
``static/``, no external request), served by uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from pathlib import Path

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.staticfiles import StaticFiles

from privcert.app import jobs
from privcert.app.sessions import Sessions
from privcert.app.web import BadRequest, Guard, Settings

__all__ = ["create_app", "Settings"]

SWEEP_SECONDS = 60.0
"""How often expired sessions are looked for (and their folders deleted)."""


def create_app(settings: Settings | None = None) -> FastAPI:
    """The workbench as an ASGI application (``uvicorn`` serves it; tests call it through httpx)."""
    from privcert.app import audit_page, check_pages, explore_page, plan_page

    settings = settings or Settings()
    sessions = Sessions(settings.root, settings.session_idle, settings.max_sessions, settings.session_disk)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async def sweep() -> None:
            while True:
                await asyncio.sleep(SWEEP_SECONDS)
                sessions.expire()

        task = asyncio.create_task(sweep())
        if settings.warm:
            threading.Thread(target=_warm, daemon=True, name="privcert-warm").start()
        try:
            yield
        finally:
            task.cancel()
            sessions.close()
            jobs.stop_calls()

    app = FastAPI(title="privcert workbench", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.state.sessions = sessions
    app.state.settings = settings
    app.add_middleware(Guard, sessions=sessions, settings=settings)
    app.mount("/static", StaticFiles(directory=Path(__file__).parent / "static"), name="static")
    app.include_router(audit_page.router)
    app.include_router(check_pages.router)
    app.include_router(explore_page.router)
    app.include_router(plan_page.router)

    @app.get("/")
    async def home() -> Response:
        return RedirectResponse("/audit", status_code=303)

    @app.exception_handler(BadRequest)
    async def bad_request(request: Request, error: BadRequest) -> Response:
        from privcert.app.fields import shown
        from privcert.app.web import found_session, messages_names, templates

        session = found_session(request)
        message = shown(error, {} if session is None else messages_names(session))
        return templates.TemplateResponse(request, "_error.j2", {"message": message}, status_code=422)

    @app.exception_handler(404)
    async def not_found(request: Request, error: Exception) -> Response:
        return HTMLResponse('<p class="error" role="alert">not found</p>', status_code=404)

    return app


def _warm() -> None:
    """While nobody waits for them: start the jobs' fork server (it imports their modules once, in its own
    process), prepare what the first upload needs in the server (:func:`privcert.app.audit_page.warm`: its
    readers imported, the templates compiled), then check the theory's claims when their statuses are not cached
    yet and draw the map, in processes of the fork server, the drawing at the lowest CPU priority
    (:func:`privcert.app.explore_page.warm_map`), so that an upload or audit started meanwhile finds the server's
    interpreter free and the cores its own, and a job that needs the statuses waits for that one check rather
    than making its own."""
    from privcert.app import audit_page, explore_page, jobs

    jobs.warm()
    audit_page.warm()
    explore_page.warm_map()
