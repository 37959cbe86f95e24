"""The command line's requests to the allocators: keep freed memory for reuse.

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

The command line calls both functions once at start-up. The library never does: the
allocators are the process's, and a program that imports privcert decides them.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import sys
from pathlib import Path

__all__ = ["keep_arrow_memory", "reuse_freed_memory"]

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
_SETTINGS = ((_M_MMAP_THRESHOLD, 1 << 30), (_M_TRIM_THRESHOLD, (1 << 31) - 1), (_M_ARENA_MAX, 1))
_ARROW_POOL = "ARROW_DEFAULT_MEMORY_POOL"


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
    if _ARROW_POOL in os.environ:
        return os.environ[_ARROW_POOL] == "jemalloc"
    spec = None if "pyarrow" in sys.modules else importlib.util.find_spec("pyarrow")
    if spec is None or not spec.submodule_search_locations:
        return False
    config = Path(next(iter(spec.submodule_search_locations))) / "include" / "arrow" / "util" / "config.h"
    try:
        built = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    if "#define ARROW_JEMALLOC" not in (line.strip() for line in built):
        return False
    os.environ[_ARROW_POOL] = "jemalloc"
    return True
