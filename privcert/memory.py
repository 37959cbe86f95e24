"""The command line's request to the C allocator: keep freed blocks for reuse (glibc only).

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
:func:`keep_arrow_memory` makes jemalloc Arrow's allocator where this pyarrow has it,
unless the environment names one (``ARROW_DEFAULT_MEMORY_POOL``).

The command line calls :func:`reuse_freed_memory` once at start-up and
:func:`keep_arrow_memory` before any command (not for ``--help`` or ``--version``, which
need no Arrow). The library never does: the allocators are the process's, and a program
that imports privcert decides them.
"""

from __future__ import annotations

import ctypes
import os

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


def keep_arrow_memory() -> str:
    """Make jemalloc Arrow's allocator where pyarrow has it (see the module's docstring); the allocator in use."""
    import pyarrow

    if _ARROW_POOL not in os.environ and "jemalloc" in pyarrow.supported_memory_backends():
        pyarrow.set_memory_pool(pyarrow.jemalloc_memory_pool())
    return pyarrow.default_memory_pool().backend_name
