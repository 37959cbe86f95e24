"""How every command reports: its console, one-line errors (exit 2) and warnings on stderr.

Shared by the command modules, so that none of them imports the command line's entry
point (:mod:`privcert.cli` imports them, never the other way).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from verifier.errors import PrivcertWarning, VerifierError
from verifier.named_inputs import Input, say, say_in

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["BAD_INPUT", "FAILED", "INTERNAL", "INTERRUPTED", "PIPE_CLOSED", "interrupt_outside_finalizers",
           "make_console", "reporting_errors", "said", "said_in", "stage", "stderr_line", "wrote"]

FAILED = 1
BAD_INPUT = 2
INTERNAL = 3
INTERRUPTED = 130
PIPE_CLOSED = 141
"""The reader of standard output closed it (``privcert … | head -1``): 128 + SIGPIPE, as a shell reports it; not a
requirement that fails."""


def interrupt_outside_finalizers() -> None:
    """Make Ctrl-C raise ``KeyboardInterrupt`` only outside a finalizer (``__del__``).

    Python prints an exception raised inside ``__del__`` as "Exception ignored in ..." with
    its traceback, and goes on: a Ctrl-C that lands while a solver object (Z3 gives every
    expression one) is being freed would be lost. A signal that arrives there is delivered
    again 10 ms later, when the finalizer has returned.
    """
    import signal
    import threading
    from types import FrameType

    def handler(number: int, frame: FrameType | None) -> None:
        while frame is not None:
            if frame.f_code.co_name == "__del__":
                threading.Timer(0.01, signal.raise_signal, args=(number,)).start()
                return
            frame = frame.f_back
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, handler)


_OPTIONS = {"data": ("--data", "RELEASE"), "original": ("--original", "ORIGINAL"), "t0": ("--t", "T0"),
            "eps0": ("--eps", "E0"), "signing_key": ("--sign", "KEY"), "record_key": ("--key", "COLUMN"),
            "mechanism": ("--mechanism", "FILE"), "qi": ("--qi", "NAMES"), "hierarchy": ("--hierarchy", "Q=FILE")}
"""Each input a message may name (:class:`verifier.named_inputs.Input`): its option and what the option takes."""


def option_of(named: Input) -> str:
    """The command line's words for an input: its option, then the value given, or what it takes when asked for."""
    option, takes = _OPTIONS.get(named.name, (f"--{named.name.replace('_', '-')}", named.name.upper()))
    value = named.value if named.value is not None else takes if named.asked else None
    return option if value is None else f"{option} {value}"


def said(text: object) -> str:
    """A message (or an error) in the command line's words: each input it names as its option."""
    return say(text, option_of)


def said_in(document: Any) -> Any:
    """A JSON document in the command line's words: each input its texts name as its option."""
    return say_in(document, option_of)


def stderr_line(kind: str, message: str) -> None:
    """``kind: message`` on stderr, the message made safe for a terminal (no control sequences)."""
    from verifier.escape import safe

    sys.stderr.write(f"{kind}: {safe(message)}\n")


@contextmanager
def reporting_errors() -> Iterator[None]:
    """Turn bad input into a one-line message on stderr and exit code 2; show privcert's warnings as
    ``warning: ...`` and any other library's in Python's own format (naming the module that raised it)."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PrivcertWarning)
            try:
                yield
            except (VerifierError, FileNotFoundError) as error:
                stderr_line("error", said(error))
                raise typer.Exit(BAD_INPUT) from error
    finally:
        shown: set[str] = set()
        for warning in caught:  # shown once the recording has ended, so that showing one records nothing
            if issubclass(warning.category, PrivcertWarning):
                if str(warning.message) not in shown:  # a fact read twice (the claims left out) is said once
                    stderr_line("warning", str(warning.message))
                shown.add(str(warning.message))
            else:
                warnings.showwarning(warning.message, warning.category, warning.filename, warning.lineno)


def make_console() -> Console:
    """The console a command prints to: no highlighting, soft-wrapped when piped."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=not sys.stdout.isatty())


def wrote(*paths: Path | str | None, stdout: bool = True) -> None:
    """One ``wrote PATH`` line per file written (``None`` and ``-``, stdout, skipped), on stdout, or on stderr
    when stdout carries a document (``--json -``)."""
    from verifier.escape import safe

    stream = sys.stdout if stdout else sys.stderr
    for path in paths:
        if path is not None and str(path) != "-":
            stream.write(f"wrote {safe(str(path))}\n")


@contextmanager
def stage(description: str, *, quiet: bool = False) -> Iterator[None]:
    """A transient spinner on stderr saying what runs (``signing the certificate``) while the block runs.

    Shown only on a terminal and not under ``--quiet``; nothing is left on the screen after it.
    """
    if quiet or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console

    with Console(stderr=True).status(description):
        yield
