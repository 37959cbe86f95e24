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


_AFTER_COMMAND = """
import sys
from privcert.cli import main
sys.argv = ["privcert", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
"""


def _without(variable: str) -> dict[str, str]:
    """This process's environment without ``variable``."""
    return {name: value for name, value in os.environ.items() if name != variable}


def _without_pool() -> dict[str, str]:
    return _without("ARROW_DEFAULT_MEMORY_POOL")


def _after_command(probe: str, variable: str, value: str | None, arguments: tuple[str, ...]) -> list[str]:
    """What a command printed and, last, what ``probe`` printed after it, with ``variable`` set to ``value`` (or unset)."""
    env = _without(variable)
    if value is not None:
        env[variable] = value
    done = subprocess.run([sys.executable, "-c", _AFTER_COMMAND + probe, *arguments], capture_output=True, text=True,
                          check=True, env=env)
    return done.stdout.splitlines()


def _arrow_pool(*arguments: str, pool: str | None = None) -> list[str]:
    """What a command printed and, last, the allocator Arrow used after it (``pool``: ``ARROW_DEFAULT_MEMORY_POOL``)."""
    return _after_command("import pyarrow; print(pyarrow.default_memory_pool().backend_name)",
                          "ARROW_DEFAULT_MEMORY_POOL", pool, arguments)


def test_the_command_line_has_arrow_keep_its_freed_memory_in_jemalloc() -> None:
    import pyarrow

    if "jemalloc" not in pyarrow.supported_memory_backends():
        pytest.skip("this pyarrow was built without jemalloc, so Arrow keeps its default allocator")
    default = subprocess.run([sys.executable, "-c", "import pyarrow; print(pyarrow.default_memory_pool().backend_name)"],
                             capture_output=True, text=True, check=True, env=_without_pool()).stdout.strip()
    assert default != "jemalloc"  # the wheels' default is another (mimalloc), so the test can tell them apart
    table = Path(__file__).parents[2] / "examples" / "table4" / "release.csv"
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


def _numpy_huge_pages(*arguments: str, setting: str | None = None) -> list[str]:
    """What a command printed and, last, whether numpy asked for huge pages after it (``setting``: ``NUMPY_MADVISE_HUGEPAGE``)."""
    return _after_command("import numpy; print(numpy._core.multiarray._get_madvise_hugepage())",
                          "NUMPY_MADVISE_HUGEPAGE", setting, arguments)


def test_the_command_line_has_numpy_keep_to_small_pages_unless_the_environment_says_otherwise() -> None:
    if sys.platform != "linux":
        pytest.skip("numpy asks for transparent huge pages only on Linux")
    default = subprocess.run([sys.executable, "-c", "import numpy; print(numpy._core.multiarray._get_madvise_hugepage())"],
                             capture_output=True, text=True, check=True, env=_without("NUMPY_MADVISE_HUGEPAGE")).stdout.strip()
    assert default == "True"  # numpy's own default on Linux 4.6 and later, so the test can tell them apart
    table = Path(__file__).parents[2] / "examples" / "table4" / "release.csv"
    measured = _numpy_huge_pages("measure", str(table), "--qi", "zip,age", "--sensitive", "disease", "--quiet")
    assert "optimal levels" in measured and measured[-1] == "False"
    assert _numpy_huge_pages("--version", setting="1")[-1] == "True"  # the user's choice is kept


def test_numpy_loaded_already_is_left_as_it_is() -> None:
    done = subprocess.run([sys.executable, "-c", "import os, numpy; from privcert.memory import keep_small_pages; "
                           "print(keep_small_pages(), os.environ.get('NUMPY_MADVISE_HUGEPAGE'))"],
                          capture_output=True, text=True, check=True, env=_without("NUMPY_MADVISE_HUGEPAGE"))
    assert done.stdout.split() == ["False", "None"]
