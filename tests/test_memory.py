"""The command line's allocator settings (privcert/memory.py): freed blocks are reused, not faulted in again."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

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


_ARROW_POOL = """
import sys
from privcert.cli import main
sys.argv = ["privcert", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
import pyarrow
print(pyarrow.default_memory_pool().backend_name)
"""


def _without_pool() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if name != "ARROW_DEFAULT_MEMORY_POOL"}


def _arrow_pool(*arguments: str, pool: str | None = None) -> list[str]:
    """What a command printed and, last, the allocator Arrow used after it (``pool``: ``ARROW_DEFAULT_MEMORY_POOL``)."""
    env = _without_pool()
    if pool:
        env["ARROW_DEFAULT_MEMORY_POOL"] = pool
    done = subprocess.run([sys.executable, "-c", _ARROW_POOL, *arguments], capture_output=True, text=True,
                          check=True, env=env)
    return done.stdout.splitlines()


def test_the_command_line_has_arrow_keep_its_freed_memory_in_jemalloc() -> None:
    import pyarrow

    if "jemalloc" not in pyarrow.supported_memory_backends():
        pytest.skip("this pyarrow was built without jemalloc, so Arrow keeps its default allocator")
    default = subprocess.run([sys.executable, "-c", "import pyarrow; print(pyarrow.default_memory_pool().backend_name)"],
                             capture_output=True, text=True, check=True, env=_without_pool()).stdout.strip()
    assert default != "jemalloc"  # the wheels' default is another (mimalloc), so the test can tell them apart
    table = Path(__file__).parents[1] / "examples" / "table4" / "release.csv"
    measured = _arrow_pool("measure", str(table), "--qi", "zip,age", "--sensitive", "disease", "--quiet")
    assert "optimal levels" in measured and measured[-1] == "jemalloc"


def test_an_allocator_the_environment_names_is_kept() -> None:
    assert _arrow_pool("--version", pool="system") == [f"privcert {version('privcert')}", "system"]


def test_arrow_loaded_already_is_left_as_it_is() -> None:
    # a program that loaded pyarrow before has made its choice: too late to name another
    done = subprocess.run([sys.executable, "-c", "import os, pyarrow; from privcert.memory import keep_arrow_memory; "
                           "print(keep_arrow_memory(), os.environ.get('ARROW_DEFAULT_MEMORY_POOL'))"],
                          capture_output=True, text=True, check=True, env=_without_pool())
    assert done.stdout.split() == ["False", "None"]
