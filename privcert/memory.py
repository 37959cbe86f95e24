"""The command line's requests to the allocators: keep freed memory for reuse, in pages of the kernel's usual size.

A measure is passes over arrays of tens of megabytes: the cells of a count table and each
model's temporaries. glibc serves a block above its mmap threshold (which it raises to at
most 32 MiB) with fresh pages from the kernel and hands them back on ``free``, so every
such temporary is paid for again in page faults and in zeroing new pages; threads other
than the main one get arenas of at most 64 MiB, which send larger blocks the same way.
On a 10^7-row release, zeroing fresh pages was about a third of the CPU time (counted with
``perf``). :func:`reuse_freed_memory` raises the mmap threshold to 1 GiB and the trim
threshold to 2 GiB and keeps every thread on the main arena, so a freed block is reused
by the next temporary of its size instead; the peak resident memory is no higher (it is
the most the run holds at once either way; benchmarks/RESULTS.md, "Engines").

Arrow has an allocator of its own, mimalloc by default in the pyarrow wheels, which hands
the pages of freed buffers back to the kernel soon after: reading a 10^7-row Parquet
release batch by batch spent 1.5 to 3 s of system time faulting them in again, against
0.3 to 0.7 s with jemalloc, which the wheels also hold and which keeps them for reuse.
:func:`keep_arrow_memory` names jemalloc in ``ARROW_DEFAULT_MEMORY_POOL`` where this
pyarrow was built with it, unless the environment names an allocator already. Arrow reads
the variable once, when it first allocates, and only it reaches every allocation: with
``pyarrow.set_memory_pool`` instead, part of the Parquet reader's buffers (38 MB at their
peak) still came from mimalloc, and the run took as long as with mimalloc. So the
variable is set before pyarrow is loaded; whether pyarrow has jemalloc is read from its
build configuration (``include/arrow/util/config.h`` in the package), not by loading it.

numpy asks the kernel for transparent huge pages (2 MiB) for every array of 4 MiB or
more, where the kernel grants them on request (``madvise``, the default of many
distributions). A huge page needs 2 MiB of contiguous free memory, and on a virtual
machine that hands freed memory back to its host (free page reporting, as on
Firecracker), such memory has mostly gone back: touching it costs a fault on the host
too. On such a machine the same 10^7-row ``measure`` spent 1.3 to 2.8 s of system time
with numpy's huge pages against 0.7 to 1.0 s without (seventeen runs each, on both
engines, back to back and after a pause), and a loop writing a 320 MB array a few times
took 0.04 to 0.07 s of system time with huge pages in three runs of six and 0.95 to
2.06 s in the others, against 0.34 to 0.37 s without. :func:`keep_small_pages` sets
``NUMPY_MADVISE_HUGEPAGE=0``, numpy's documented switch, read once when numpy is
imported, unless the environment sets it already; ``NUMPY_MADVISE_HUGEPAGE=1`` gives
numpy its huge pages back, which may pay on a machine whose memory is its own.

The command line calls the three functions once at start-up. The library never does: the
allocators are the process's, and a program that imports privcert decides them.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["keep_arrow_memory", "keep_small_pages", "reuse_freed_memory"]

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
_SETTINGS = ((_M_MMAP_THRESHOLD, 1 << 30), (_M_TRIM_THRESHOLD, (1 << 31) - 1), (_M_ARENA_MAX, 1))
_ARROW_POOL = "ARROW_DEFAULT_MEMORY_POOL"
_NUMPY_HUGE_PAGES = "NUMPY_MADVISE_HUGEPAGE"


def reuse_freed_memory() -> bool:
    """Ask glibc's allocator to reuse freed blocks (see the module's docstring); ``False`` where it is not glibc."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False
    except (ValueError, OSError):  # no such name outside glibc
        return False
    mallopt = ctypes.CDLL(None).mallopt
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return all(mallopt(option, value) == 1 for option, value in _SETTINGS)


def keep_arrow_memory() -> bool:
    """Have Arrow allocate through jemalloc where pyarrow has it (see the module's docstring).

    ``True`` when the environment now names jemalloc; ``False`` where it names another
    allocator, pyarrow has no jemalloc, or pyarrow was loaded already (too late to choose).
    """
    return _before_import(_ARROW_POOL, "jemalloc", "pyarrow", _arrow_has_jemalloc)


def keep_small_pages() -> bool:
    """Have numpy leave its arrays in pages of the kernel's usual size (see the module's docstring).

    ``True`` when the environment now turns numpy's huge pages off; ``False`` where it
    turns them on, or numpy was loaded already (too late to choose).
    """
    return _before_import(_NUMPY_HUGE_PAGES, "0", "numpy", lambda: True)


def _before_import(variable: str, value: str, module: str, possible: Callable[[], bool]) -> bool:
    """Set ``variable`` to ``value`` for ``module``, which reads it once when loaded: unless the environment
    sets it already (then whether it is ``value``), ``module`` is loaded already, or it is not ``possible``."""
    if variable in os.environ:
        return os.environ[variable] == value
    if module in sys.modules or not possible():
        return False
    os.environ[variable] = value
    return True


def _arrow_has_jemalloc() -> bool:
    """Whether the installed pyarrow was built with jemalloc, read from its build configuration, not by loading it."""
    spec = importlib.util.find_spec("pyarrow")
    if spec is None or not spec.submodule_search_locations:
        return False
    config = Path(next(iter(spec.submodule_search_locations))) / "include" / "arrow" / "util" / "config.h"
    try:
        built = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    return "#define ARROW_JEMALLOC" in (line.strip() for line in built)
