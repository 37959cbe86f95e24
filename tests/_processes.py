"""Waiting until a child process reaches a state (its imports done), read from the process itself."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path


def searching(process: subprocess.Popen[bytes], seconds: float = 120) -> None:
    """Wait until ``process`` has loaded Z3 (its imports are done: a Ctrl-C now reaches the command), then 1 s."""
    maps = Path(f"/proc/{process.pid}/maps")
    deadline = time.monotonic() + seconds
    while "libz3" not in maps.read_text():
        assert process.poll() is None and time.monotonic() < deadline, "the search never started"
        time.sleep(0.1)
    time.sleep(1)
