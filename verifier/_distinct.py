"""The distinct values of an integer array, by sorting.

numpy's ``np.unique`` without ``return_index``, ``return_inverse`` or ``return_counts``
takes a hash-based path that is many times slower than sorting on int64 arrays
(numpy 2.4: about 1 s for 400,000 distinct values, against 20 ms for a sort).
"""

from __future__ import annotations

import numpy as np

__all__ = ["distinct"]


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of ``values``, sorted (what ``np.unique(values)`` returns).

    >>> distinct(np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    """
    ordered = np.sort(values, axis=None)
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if ordered.size else ordered
