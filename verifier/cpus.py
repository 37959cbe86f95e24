"""The CPUs this process may run on: how many threads the engines and the models use."""

from __future__ import annotations

import os

__all__ = ["usable_cpus"]


def usable_cpus() -> int:
    """The CPUs this process may run on (in a container or under ``taskset`` they can be fewer than the machine's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not every platform has the affinity call
        return os.cpu_count() or 1
