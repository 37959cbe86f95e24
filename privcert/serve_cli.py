"""``privcert serve``: the workbench, a local web application (docs/app.md).

Thin: checks the options, warns when the server would be reachable from the network, and
runs :func:`privcert.app.create_app` under uvicorn. FastAPI and uvicorn are imported here,
when the command runs, so that ``privcert --help`` stays fast.
"""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["serve_command"]


def serve_command(
    host: Annotated[str, typer.Option("--host", metavar="HOST", help="The address to listen on (default 127.0.0.1: this computer only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", metavar="PORT", min=0, max=65535, help="The port to listen on.")] = 8000,
    open_browser: Annotated[bool, typer.Option("--open", help="Open the workbench in the default web browser.")] = False,
    max_upload: Annotated[int, typer.Option("--max-upload", metavar="MB", min=1, help="The largest upload accepted, in MB.")] = 200,
    idle: Annotated[int, typer.Option("--idle", metavar="MINUTES", min=1, help="Minutes after which an unused session and its files are deleted.")] = 60,
    workers: Annotated[int, typer.Option("--workers", metavar="N", min=1, help="Audits and other long jobs run at once (the others wait).")] = 2,
) -> None:
    """Start the workbench: audit, certify, verify, compare and explore in a web browser (privcert docs app)."""
    import uvicorn

    from privcert.app import Settings, create_app
    from privcert.app.jobs import set_workers
    from privcert.app.web import LOOPBACK
    from privcert.reporting import stderr_line

    if host not in LOOPBACK:
        stderr_line("warning", f"--host {host}: the workbench and the data uploaded to it will be reachable from the "
                    "network, without a password; use --host 127.0.0.1 unless you mean it")
    set_workers(workers)
    app = create_app(Settings(max_upload=max_upload * 1024 * 1024, session_idle=idle * 60.0, host=host, port=port))
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    typer.echo(f"privcert workbench on {url} (Ctrl-C to stop)")
    if open_browser:
        import threading
        import webbrowser

        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    server.run()
