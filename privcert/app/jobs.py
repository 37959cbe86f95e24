"""Long work of the workbench (audits, certificates, verification, comparisons), off the event loop.

Each job runs in its own process (started by a fork server that has already imported
privcert, so a job starts in milliseconds): the page stays responsive, a job can be
cancelled at any point (its process is terminated), and the memory it used is returned
when it ends. At most :data:`WORKERS` jobs run at once; the others wait, shown as queued.
The process reports its steps (:data:`verifier.measure.ProgressCallback`) and its result
through a pipe; a thread of the server reads them into the :class:`Job` the pages poll.

Work of the server's own at start-up runs through :func:`call` in processes of the same fork
server, so that it never holds the server's interpreter lock while a page is answered: checking
the theory's claims when their statuses are not cached (at normal priority: the first audit needs
them), then drawing the Explore page's map, which nobody waits for yet, at the lowest CPU
priority, so that it takes no core from a job.
"""

from __future__ import annotations

import multiprocessing
import os
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Literal, TypeVar

__all__ = ["Job", "start", "cancel", "cancel_all", "call", "stop_calls", "WORKERS", "PRELOAD", "LOWEST"]

WORKERS = 2
"""Jobs running at once (the others are queued); ``privcert serve --workers`` changes it."""
PRELOAD = ["pandas", "pyarrow", "sympy", "privcert.api", "verifier.audit", "verifier.measure", "reports.certify",
           "reports.views", "theory.answers.auditor_mode", "privcert.app.work"]
"""Modules the fork server imports once, so that every job starts with them loaded."""

LOWEST = 19
"""The niceness of :func:`call`'s background work (the lowest priority): it runs when the cores are not needed."""

Status = Literal["queued", "running", "done", "failed", "cancelled"]

_slots = threading.BoundedSemaphore(WORKERS)
_context: Any = None
_context_lock = threading.Lock()
_Result = TypeVar("_Result")
_calls: set[Any] = set()
_calls_lock = threading.Lock()


@dataclass
class Job:
    """One job: its kind, status, last progress line and fraction, and its result or error message."""

    id: str
    kind: str
    status: Status = "queued"
    step: str = "waiting for a free worker"
    fraction: float | None = None
    result: dict[str, Any] | None = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    seconds: float | None = None
    _process: Any = None
    _cancelled: threading.Event = field(default_factory=threading.Event)

    @property
    def finished(self) -> bool:
        return self.status in ("done", "failed", "cancelled")


def set_workers(count: int) -> None:
    """Allow ``count`` jobs at once (before the server starts)."""
    global _slots, WORKERS
    WORKERS = count
    _slots = threading.BoundedSemaphore(count)


def _get_context() -> Any:
    global _context
    with _context_lock:
        if _context is None:
            _context = multiprocessing.get_context("forkserver")
            _context.set_forkserver_preload(PRELOAD)
        return _context


def warm() -> None:
    """Start the fork server now (it imports :data:`PRELOAD` once), so that the first job starts at once."""
    from multiprocessing import forkserver

    _get_context()
    forkserver.ensure_running()


def call(function: Callable[[], _Result], *, nice: int = 0) -> _Result:
    """``function()`` run in a new process of the fork server (:data:`PRELOAD` imported), its niceness raised by
    ``nice`` (:data:`LOWEST` for work nobody waits for yet), and its result: the caller waits for it, but the
    server's interpreter stays free to answer pages meanwhile. ``function`` is a module-level function (it is
    sent to the process by name) and returns a picklable value.

    Raises
    ------
    RuntimeError
        ``function`` raised (the message says its error) or its process stopped without a result.
    """
    context = _get_context()
    receiving, sending = context.Pipe(duplex=False)
    process = context.Process(target=_call, args=(function, nice, sending), daemon=True)
    with _calls_lock:
        _calls.add(process)
    process.start()
    sending.close()
    try:
        tag, value = receiving.recv()
    except (EOFError, OSError):
        process.join()
        tag, value = "error", f"its process stopped without a result (exit code {process.exitcode})"
    finally:
        receiving.close()
        process.join()
        with _calls_lock:
            _calls.discard(process)
    if tag == "error":
        raise RuntimeError(f"{getattr(function, '__qualname__', function)}: {value}")
    result: _Result = value
    return result


def stop_calls() -> None:
    """End the processes of :func:`call` still running (the server is stopping: nobody waits for them)."""
    with _calls_lock:
        running = list(_calls)
    for process in running:
        if process.is_alive():
            process.terminate()


def _call(function: Callable[[], Any], nice: int, sending: Connection) -> None:
    """The body of :func:`call`'s process."""
    try:
        if nice:
            os.nice(nice)
        try:
            message: tuple[str, Any] = ("done", function())
        except Exception as error:  # noqa: BLE001 - sent to the caller, which raises it
            message = ("error", f"{type(error).__name__}: {error}")
        sending.send(message)
    except OSError:
        pass  # the caller is gone (the server stopped): nobody waits for the result
    finally:
        sending.close()


def start(state: dict[str, Any], kind: str, arguments: Mapping[str, Any],
          done: Callable[[Job], None] | None = None) -> Job:
    """Start ``privcert.app.work.run(kind, arguments)`` in a new process; the job is kept in the session's
    ``state`` (the session's jobs are cancelled when it expires). ``done`` is called with the finished job."""
    job = Job(secrets.token_hex(8), kind)
    state.setdefault("jobs", {})[job.id] = job
    threading.Thread(target=_supervise, args=(job, dict(arguments), done), daemon=True,
                     name=f"privcert-job-{job.id}").start()
    return job


def _supervise(job: Job, arguments: dict[str, Any], done: Callable[[Job], None] | None) -> None:
    try:
        _run(job, arguments)
    except Exception as error:  # noqa: BLE001 - the job fails with the reason; the server stays up
        job.status, job.step = "failed", "failed"
        job.error = f"the {job.kind} could not start: {type(error).__name__}: {error}"
    if job.status == "running" and job.result is not None:
        # The job is shown done only once what follows it has happened (a signing key deleted, say): a page that
        # polls sees the session as it is after the job, never between the result and its consequence.
        try:
            if done is not None:
                done(job)
        except Exception as error:  # noqa: BLE001 - the job fails with the reason; the server stays up
            job.status, job.step = "failed", "failed"
            job.error = f"the {job.kind} finished, but what follows it failed: {type(error).__name__}: {error}"
        else:
            job.status, job.step, job.fraction = "done", "done", 1.0


def _run(job: Job, arguments: dict[str, Any]) -> None:
    from privcert.app import work

    with _slots:
        if job._cancelled.is_set():
            job.status = "cancelled"
            return
        context = _get_context()
        receiving, sending = context.Pipe(duplex=False)
        process = context.Process(target=work.run, args=(job.kind, arguments, sending), daemon=True)
        job._process = process
        job.status, job.step, job.started = "running", "starting", time.monotonic()
        process.start()
        sending.close()
        _read(job, receiving)
        process.join()
        receiving.close()
        job.seconds = job.seconds or time.monotonic() - job.started
        if job._cancelled.is_set():
            job.status, job.step = "cancelled", "cancelled"
        elif job.status == "running" and job.result is None:
            job.status = "failed"
            job.error = job.error or f"the {job.kind} stopped unexpectedly (exit code {process.exitcode})"


def _read(job: Job, receiving: Connection) -> None:
    while True:
        try:
            message = receiving.recv()
        except (EOFError, OSError):
            return
        tag = message[0]
        if tag == "progress":
            _, job.step, step, total = message
            job.fraction = None if not total else min(1.0, step / total)
        elif tag == "warning":
            job.warnings.append(message[1])
        elif tag == "done":
            job.seconds = time.monotonic() - job.started
            job.result, job.step, job.fraction = message[1], "finishing", 1.0
        elif tag == "error":
            job.error, job.status, job.step = message[1], "failed", "failed"


def cancel(job: Job) -> None:
    """Stop ``job``: a queued job never starts, a running one's process is terminated."""
    job._cancelled.set()
    if job.status == "queued":
        job.status = "cancelled"
    process = job._process
    if process is not None and process.is_alive():
        process.terminate()


def cancel_all(state: dict[str, Any]) -> None:
    """Cancel every unfinished job of a session (it is being dropped)."""
    for job in state.get("jobs", {}).values():
        if not job.finished:
            cancel(job)
