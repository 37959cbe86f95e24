"""The bucketization construction for multiplicative t-closeness.

Domingo-Ferrer & Soria-Comas 2015, §6: with the multiplicative distance (Def. 4) a class
that lacks a value of the confidential attribute is infinitely far from the table, so
the attribute is first coarsened into ``b = t + 1`` buckets of (nearly) equal frequency
(§6.1 derives ``N/(t+1)`` records per bucket from ``t·b_i/N + (1/t)(1 - b_i/N) = 1``)
and the records are then partitioned into classes in which every bucket's share lies
between ``p_j / t`` and ``t · p_j`` (§6.3, step 4(b)). Table 1 of the paper lets class
``E_i`` *emphasize* bucket ``B_{i mod b}``: share ``t/(t+1)`` there, ``1/(t(t+1))`` elsewhere.

The construction here (integer ``t ≥ 1``):

1. Buckets: :class:`verifier.tables.buckets.EqualFrequency` with this ``t`` (the cuts of §6.2,
   never splitting a value's records), so the verifier measures the same buckets.
2. Class sizes: ``g = (t+1)·l`` classes with ``e_i = ⌈iN/g⌉ - ⌈(i-1)N/g⌉`` (§6.2), ``l``
   as large as ``k`` allows (``l = ⌊N/((t+1)k)⌋``), smaller if no allocation exists, and
   one class (the whole table, level 1) when none does.
3. Allocation: integer counts ``c[i, j]`` of bucket ``j`` in class ``i`` with the class
   sizes and bucket sizes as margins and ``⌈b_j e_i/(tN)⌉ ≤ c[i, j] ≤ ⌊t b_j e_i / N⌋``,
   which is exactly step 4(b) for integer counts. The paper's rounding recipe (take
   ``⌈e_i p_i t⌉`` records from each other bucket, complete with ``e_i - t⌈e_i p_i t⌉``)
   is garbled in print: it does not keep the bucket margins and can exceed ``t``. A
   flow with these bounds does both; each class is filled first in its emphasized
   bucket (Table 1's design), then completed by augmenting paths.
4. Records: class by class, the seed is the record of the emphasized bucket farthest
   from the centroid of the remaining records; the class takes from each bucket the
   ``c[i, j]`` remaining records of that bucket nearest the seed (quasi-identifiers
   standardized as in MDAV), and the quasi-identifiers are replaced by the class
   centroid. The confidential attribute is released as its bucket (§6.2, step 1).

Every bound is integer arithmetic and the release is measured by the verifier.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mechanisms.mdav import Orders, Pool, aggregate, qi_matrix, released_columns
from mechanisms.microaggregation import numerical_column
from mechanisms.sse import normalized_sse
from verifier.errors import PolicyError
from verifier.privacy.anonymity import k_anonymity
from verifier.privacy.multiplicative import multiplicative_t_closeness
from verifier.results import Measurement
from verifier.tables.buckets import EqualFrequency
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec

__all__ = ["Bucketization", "bucketize", "class_sizes", "allocation"]


@dataclass(frozen=True)
class Bucketization:
    """A release made by :func:`bucketize` and what the verifier measures on it.

    Attributes
    ----------
    release
        The table: quasi-identifiers replaced by class centroids, the confidential
        attribute by its bucket label.
    labels
        Class of each record.
    buckets
        The bucket labels, lowest first.
    counts
        ``counts[i, j]``: records of bucket ``j`` in class ``i``.
    k, t
        The verifier's ``k_anonymity`` and ``multiplicative_t_closeness`` measurements.
    sse
        Normalized SSE of the quasi-identifiers (Soria-Comas et al. 2015, eq. 5).
    """

    release: pd.DataFrame
    labels: np.ndarray
    buckets: tuple[str, ...]
    counts: np.ndarray
    k: Measurement
    t: Measurement
    sse: float


def class_sizes(n: int, classes: int) -> list[int]:
    """``e_i = ⌈i n/g⌉ - ⌈(i-1) n/g⌉`` for ``i = 1..g`` (Domingo-Ferrer & Soria-Comas 2015, §6.2).

    >>> class_sizes(10, 3)
    [4, 3, 3]
    """
    edges = [-((-i * n) // classes) for i in range(classes + 1)]
    return [b - a for a, b in zip(edges[:-1], edges[1:])]


def allocation(sizes: Sequence[int], buckets: Sequence[int], t: int) -> np.ndarray | None:
    """Counts ``c[i, j]`` with margins ``sizes`` and ``buckets`` and every share within a
    factor ``t`` of the table's, or ``None`` when none exists.

    Bounds: ``t · N · c[i, j] ≥ b_j e_i`` and ``N · c[i, j] ≤ t · b_j e_i``. Class ``i``
    is filled first in bucket ``i mod len(buckets)``; augmenting paths (Edmonds-Karp on
    the bipartite residual graph) complete a maximum flow, so ``None`` means infeasible.

    >>> allocation([6, 6, 6], [6, 6, 6], 2).tolist()   # Table 1 with t = 2: 4/6 and 1/6
    [[4, 1, 1], [1, 4, 1], [1, 1, 4]]
    """
    e = np.asarray(sizes, dtype=object)
    b = np.asarray(buckets, dtype=object)
    n = int(b.sum())
    demand = np.outer(e, b)
    low = np.array(-((-demand) // (t * n)), dtype=np.int64)
    high = np.array((t * demand) // n, dtype=np.int64)
    flow = low.copy()
    if (low > high).any():
        return None
    rows = np.asarray(sizes, dtype=np.int64) - flow.sum(axis=1)
    cols = np.asarray(buckets, dtype=np.int64) - flow.sum(axis=0)
    if (rows < 0).any() or (cols < 0).any():
        return None
    g, m = flow.shape
    for i in range(g):
        for j in [i % m, *range(m)]:
            push = min(rows[i], cols[j], high[i, j] - flow[i, j])
            flow[i, j] += push
            rows[i] -= push
            cols[j] -= push
    while rows.sum():
        path = _augmenting_path(flow, low, high, rows, cols)
        if path is None:
            return None
        first, steps, last = path
        rows[first] -= 1
        cols[last] -= 1
        for i, j, sign in steps:
            flow[i, j] += sign
    return flow


def _augmenting_path(
    flow: np.ndarray, low: np.ndarray, high: np.ndarray, rows: np.ndarray, cols: np.ndarray
) -> tuple[int, list[tuple[int, int, int]], int] | None:
    """A shortest path source → class → bucket (→ class → bucket ...) → sink of one unit.

    Class ``i`` reaches bucket ``j`` while ``c[i, j] < high``; bucket ``j`` reaches class
    ``i`` (by taking a unit back) while ``c[i, j] > low``. Returns the first class, the
    changes ``(i, j, ±1)`` and the last bucket.
    """
    starts = [int(i) for i in np.flatnonzero(rows > 0)]
    reached_by: dict[int, int] = {}       # bucket -> class that reached it
    taken_from: dict[int, int | None] = dict.fromkeys(starts)   # class -> bucket
    queue = deque(starts)
    while queue:
        i = queue.popleft()
        for j in (int(j) for j in np.flatnonzero(flow[i] < high[i])):
            if j in reached_by:
                continue
            reached_by[j] = i
            if cols[j] > 0:
                steps, bucket = [], j
                while True:
                    owner = reached_by[bucket]
                    steps.append((owner, bucket, 1))
                    back = taken_from[owner]
                    if back is None:
                        return owner, steps, j
                    steps.append((owner, back, -1))
                    bucket = back
            for other in (int(x) for x in np.flatnonzero(flow[:, j] > low[:, j])):
                if other not in taken_from:
                    taken_from[other] = j
                    queue.append(other)
    return None


def _buckets(frame: pd.DataFrame, sensitive: str, t: int, source: str) -> tuple[np.ndarray, tuple[str, ...]]:
    """Each record's bucket under :class:`~verifier.tables.buckets.EqualFrequency` ``(t)``, and the labels."""
    everyone = "__all_records__"
    _, (table,) = count_tables(
        frame[[sensitive]].assign(**{everyone: 0}), [everyone], [AttributeSpec((sensitive,), kind="numerical")],
        source=source,
    )
    mapping, labels = EqualFrequency(t).assign(table)
    codes = pd.Index(table.values).get_indexer(numerical_column(frame, sensitive, source))
    return mapping[codes], tuple(labels)


def bucketize(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sensitive: str,
    *,
    k: int,
    t: int,
    orders: Orders | None = None,
    seed: int = 0,
    source: str = "data",
    keep: Sequence[str] = (),
) -> Bucketization:
    """A k-anonymous release that is multiplicatively t-close over ``t + 1`` buckets.

    Parameters
    ----------
    frame, qi, sensitive, orders, source, keep
        As for :func:`mechanisms.microaggregation.microaggregate`; ``sensitive`` is
        numerical (or ordered by its numeric value).
    k
        Minimum class size.
    t
        The multiplicative level, an integer ``≥ 1`` (the construction has ``t + 1``
        buckets).
    seed
        Seeds the shuffle that breaks ties between equally distant records.

    References
    ----------
    Domingo-Ferrer & Soria-Comas 2015, §6.1-6.3, Table 1.
    """
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or t < 1:
        raise PolicyError(f"bucketization: expected an integer t ≥ 1 (t + 1 buckets), found {t!r}")
    n = len(frame)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n:
        raise PolicyError(f"{source}: expected an integer k with 1 ≤ k ≤ {n} (the number of rows), found {k!r}")
    if sensitive in qi:
        raise PolicyError(f"{source}: {sensitive!r} is both a quasi-identifier and the confidential attribute")
    bucket, labels = _buckets(frame, sensitive, int(t), source)
    sizes_b = np.bincount(bucket, minlength=len(labels))
    counts = np.array([[n]])
    for l in range(n // ((t + 1) * k), 0, -1):
        sizes = class_sizes(n, (t + 1) * l)
        found = allocation(sizes, sizes_b.tolist(), int(t))
        if found is not None:
            counts = found
            break
    else:
        counts = sizes_b[None, :]
    shuffle = np.random.default_rng(seed).permutation(n)
    points = qi_matrix(frame, qi, orders, source=source)[shuffle]
    pools = [Pool(points, np.flatnonzero(bucket[shuffle] == j)) for j in range(len(labels))]
    everyone = Pool(points)
    found_labels = np.empty(n, dtype=np.int64)
    for i, row in enumerate(counts):
        emphasized = pools[i % len(pools)]
        source_pool = emphasized if len(emphasized) else everyone
        seed_point = points[source_pool.farthest(everyone.centroid())]
        members = np.concatenate([pool.nearest(seed_point, int(c)) for pool, c in zip(pools, row)])
        for pool in pools:
            pool.remove(members)
        everyone.remove(members)
        found_labels[members] = i
    class_of = np.empty(n, dtype=np.int64)
    class_of[shuffle] = found_labels
    release = aggregate(frame, qi, class_of, orders)[released_columns(frame, qi, sensitive, keep, source)]
    release[sensitive] = np.asarray(labels, dtype=object)[bucket]
    classes, (table,) = count_tables(release, qi, [AttributeSpec((sensitive,))], source="release")
    return Bucketization(
        release, class_of, labels, counts, k_anonymity(classes), multiplicative_t_closeness(table),
        normalized_sse(frame, release, qi, orders),
    )
