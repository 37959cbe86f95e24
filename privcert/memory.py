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

The command line calls it once at start-up. The library never does: the allocator is the
process's, and a program that imports privcert decides it.
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["reuse_freed_memory"]

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
_SETTINGS = ((_M_MMAP_THRESHOLD, 1 << 30), (_M_TRIM_THRESHOLD, (1 << 31) - 1), (_M_ARENA_MAX, 1))


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
