"""Waiting until a child process reaches a state (its imports done), read from the process itself; the tests' one
ceiling on a wait."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CEILING = 600.0
"""The longest any wait of the tests lasts, in seconds: not a budget (no test asserts that something is fast; each
waits for an event: a state, an answer, an exit) but the point at which a test that hangs is ended. Far above any
run, on a loaded machine too (README.md, "The suite under CPU load")."""


def until(condition: Callable[[], bool], process: subprocess.Popen[Any], seconds: float = CEILING,
          failure: str = "the awaited state never came") -> None:
    """Wait until ``condition()`` holds, ``process`` running meanwhile (its exit, or ``seconds`` passing, fails
    the test with ``failure``)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert process.poll() is None and time.monotonic() < deadline, failure
        time.sleep(0.01)


def searching(process: subprocess.Popen[bytes], seconds: float = CEILING) -> None:
    """Wait until ``process`` has loaded Z3 (its imports are done: a Ctrl-C now reaches the command), then 1 s."""
    maps = Path(f"/proc/{process.pid}/maps")
    until(lambda: "libz3" in maps.read_text(), process, seconds, "the search never started")
    time.sleep(1)
