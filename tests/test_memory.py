"""The command line's allocator settings (privcert/memory.py): freed blocks are reused, not faulted in again."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

_FAULTS = """
import resource, sys, threading
from privcert.memory import reuse_freed_memory
print(reuse_freed_memory() if sys.argv[1] == "reuse" else False)  # first, as the command line does
import numpy as np
def work():
    for _ in range(20):
        np.ones(1 << 23)  # 64 MiB, written, freed: a temporary of a model on 8 million cells
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
worker = threading.Thread(target=work)
worker.start()
worker.join()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str) -> tuple[bool, int]:
    """Whether the settings took, and the page faults of the loop: with 4 KiB pages (numpy asks for no huge
    pages), every page handed out fresh by the kernel is one fault."""
    env = {**os.environ, "NUMPY_MADVISE_HUGEPAGE": "0"}
    done = subprocess.run([sys.executable, "-c", _FAULTS, mode], capture_output=True, text=True, check=True, env=env)
    applied, faults = done.stdout.split()
    return applied == "True", int(faults)


def test_on_glibc_a_freed_large_block_is_reused_by_the_next_temporary() -> None:
    if not os.confstr("CS_GNU_LIBC_VERSION"):
        pytest.skip("the settings are glibc's; this C library is another")
    applied, reused = _faults("reuse")
    assert applied
    default = _faults("default")[1]
    assert reused * 5 < default, (reused, default)  # by default a fresh mapping for every temporary


def test_the_command_line_runs_with_the_settings() -> None:
    done = subprocess.run([sys.executable, "-m", "privcert", "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("privcert")
