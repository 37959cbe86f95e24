"""The distinct values of an integer array, by sorting, and how often each occurs.

numpy's ``np.unique`` without ``return_index``, ``return_inverse`` or ``return_counts``
takes a hash-based path that is many times slower than sorting on int64 arrays
(numpy 2.4: about 1 s for 400,000 distinct values, against 20 ms for a sort), and with
them sorts by quicksort. The sorts here are numpy's stable ones (a radix sort for
integers): 0.77 s against 1.0 s on 10^7 random int64, and 0.14–0.2 s against 0.7 s on
10^7 made of sorted runs (a batch's cells, a class's cells), which is how the counts
arrive.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from verifier.cpus import usable_cpus

__all__ = ["distinct", "runs", "run_starts", "sorted_runs", "weighted_sort", "small_codes", "key_groups"]


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of ``values``, sorted (what ``np.unique(values)`` returns).

    >>> distinct(np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    """
    ordered = np.sort(values, axis=None, kind="stable")
    return ordered[run_starts(ordered)]


def sorted_runs(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``values``, sorted, and how many times each occurs (``np.unique(values,
    return_counts=True)``), by one stable sort.

    >>> [part.tolist() for part in sorted_runs(np.array([5, 1, 5, 2, 5]))]
    [[1, 2, 5], [1, 1, 3]]
    """
    return runs(np.sort(values, axis=None, kind="stable"))


def weighted_sort(keys: np.ndarray, weights: np.ndarray, bound: int, *,
                  runs: bool) -> tuple[np.ndarray, np.ndarray]:
    """Non-negative int64 ``keys`` below ``bound`` in order, and their non-negative ``weights`` moved with them
    (equal keys in any order).

    Both are sorted as one int64 array when they fit in one (a key's bits above a weight's):
    on 10^7 keys in random order 0.76 s of CPU by numpy's quicksort, against 1.7 s for a
    stable ``argsort`` and the two gathers behind it. ``runs``: the keys come as a few
    sorted runs, which numpy's stable sort (a timsort) merges, 0.19 s for 20 runs of 10^7
    keys against 0.92 s by its quicksort (and 1.0 s against 0.76 s in random order).

    >>> [part.tolist() for part in weighted_sort(np.array([5, 1, 3]), np.array([7, 8, 9]), 6, runs=False)]
    [[1, 3, 5], [8, 9, 7]]
    """
    free = 63 - max(int(bound - 1).bit_length(), 1)
    if keys.size and int(weights.max()) < 1 << free:
        packed = keys << free
        packed |= weights
        _sort(packed, runs)
        return packed >> free, packed & ((1 << free) - 1)
    order = np.argsort(keys, kind="stable")
    return keys[order], weights[order]


_PARALLEL_SORT = 1 << 22
"""The fewest values sorted in parts, one a thread, when more than one CPU is usable."""


def _sort(values: np.ndarray, runs: bool) -> None:
    """Sort ``values`` in place: by the stable sort when they come as a few sorted ``runs``, else by parts, each
    sorted by quicksort in a thread of its own (numpy releases the GIL while it sorts), their sorted runs then
    merged by the stable sort (8.4·10^7 values in random order on 2 CPUs: 4.7 s of wall time against 8.2 s,
    the same CPU)."""
    parts = min(usable_cpus(), 8) if values.size >= _PARALLEL_SORT and not runs else 1
    if parts == 1:
        values.sort(kind="stable" if runs else "quicksort")
        return
    with ThreadPoolExecutor(parts) as pool:
        list(pool.map(lambda part: part.sort(kind="quicksort"), np.array_split(values, parts)))
    values.sort(kind="stable")


def small_codes(values: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``values`` (non-negative integers below ``bound``), sorted, and each entry's place
    among them (``np.unique(values, return_inverse=True)``), by one ``bincount``: no sort.

    >>> [part.tolist() for part in small_codes(np.array([7, 3, 7, 0]), 8)]
    [[0, 3, 7], [2, 1, 2, 0]]
    """
    present = np.bincount(values, minlength=bound) > 0
    return np.flatnonzero(present), (np.cumsum(present) - 1)[values]


def runs(ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of sorted ``ordered`` and how many times each occurs.

    Adding these to a table with a plain indexed add is several times faster than
    ``np.add.at`` of every value (0.02 s against 0.13 s for 2^19 cells of a 4·10^7-cell table).

    >>> [part.tolist() for part in runs(np.array([1, 1, 2, 5, 5, 5]))]
    [[1, 2, 5], [2, 1, 3]]
    """
    starts = run_starts(ordered)
    return ordered[starts], np.diff(np.r_[starts, ordered.size])


def key_groups(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Columns of ``keys`` grouped by equal columns: where each distinct column first occurs and each column's group.

    What ``np.unique(keys, axis=1, return_index=True, return_inverse=True)[1:]`` returns
    (groups numbered in the columns' sorted order), by one stable ``lexsort``: ``np.unique``
    with an axis sorts the columns as opaque bytes, 8 times slower on 400,000 columns of
    two ``uint64`` rows.

    >>> [part.tolist() for part in key_groups(np.array([[2, 1, 2], [5, 7, 5]]))]
    [[1, 0], [1, 0, 1]]
    """
    order = np.lexsort(keys[::-1])
    ordered = keys[:, order]
    starts = np.r_[True, (ordered[:, 1:] != ordered[:, :-1]).any(axis=0)] if order.size else np.zeros(0, dtype=bool)
    group = np.empty(order.size, dtype=np.int64)
    group[order] = np.cumsum(starts) - 1
    return order[starts], group


def run_starts(ordered: np.ndarray) -> np.ndarray:
    """The positions in sorted ``ordered`` where a run of equal values starts.

    >>> run_starts(np.array([1, 1, 2, 5, 5, 5])).tolist()
    [0, 2, 3]
    """
    return np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if ordered.size else np.zeros(0, dtype=np.int64)
