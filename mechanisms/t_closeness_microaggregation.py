"""k-anonymous t-closeness through microaggregation: Algorithms 1, 2 and 3.

Soria-Comas et al. 2015 give three ways to turn microaggregation (:mod:`mechanisms.mdav`)
into a construction whose release is k-anonymous and t-close for the EMD with the
ordered distance on a numerical confidential attribute:

* ``merge`` (Algorithm 1, §5): MDAV on the quasi-identifiers, then, while some cluster
  has EMD above ``t``, merge the cluster with the greatest EMD with the cluster whose
  centroid is nearest.
* ``k-anonymity-first`` (Algorithm 2, §6): MDAV-like seeds; each cluster starts as the
  ``k`` records nearest its seed, then the next-nearest unclustered records are swapped
  in, each replacing the member whose removal gives the smallest EMD, while that lowers
  the EMD and the cluster is not t-close. Algorithm 2 alone cannot guarantee t (the
  last clusters run out of records), so, as the paper does for its Table 2, it is the
  microaggregation step of Algorithm 1 (the merge step follows).
* ``t-closeness-first`` (Algorithm 3, §7): the cluster size ``k'`` from Expression (3),
  adjusted by Expression (4) (:func:`cluster_size`); the records are split by rank of
  the confidential attribute into ``k'`` subsets of ``⌊n/k'⌋`` records, the remaining
  ``n mod k'`` going to the central subset(s); each cluster takes the record nearest
  its seed from every subset (and a second one from a central subset while it has
  extra records). The box tests "``|S_i| > |S_1|``" for extra records, which misses
  them when ``S_1`` is itself central (``k' = 2``); the count of extra records left in
  each subset is kept instead.

Two refinements, both documented in docs/constructions.md:

* Expression (4) is printed in the text as ``k + ⌊(n mod k)/⌊n/k⌋⌋`` and in the box of
  Algorithm 3 with a ceiling. The floor is used: it reproduces the paper's Table 3
  (``n = 1080``, ``t = 0.01`` gives ``k' = 49``; the ceiling gives 50), and it is the one
  that keeps ``⌊n/k'⌋`` clusters with fewer extra records than clusters.
* Proposition 2's bound holds when ``k'`` divides ``n`` and the confidential values are
  distinct; with ties (the EMD runs over distinct values, the bound over ranks) or
  uneven subsets a cluster can exceed ``t``. Every algorithm therefore ends with
  Algorithm 1's merge step, which leaves a t-close partition untouched; the number of
  merges it made is reported. All EMD decisions are exact (integers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from mechanisms._cluster_emd import RankedValues
from mechanisms.mdav import Pool, mdav

__all__ = [
    "Algorithm",
    "ALGORITHMS",
    "Partition",
    "cluster_size",
    "proposition2_bound",
    "merge_until_close",
    "k_anonymity_first",
    "t_closeness_first",
    "partition",
]

Algorithm = Literal["merge", "k-anonymity-first", "t-closeness-first"]
ALGORITHMS: tuple[Algorithm, ...] = ("merge", "k-anonymity-first", "t-closeness-first")


@dataclass(frozen=True)
class Partition:
    """A partition of the records into clusters, and how it was reached.

    Attributes
    ----------
    labels
        Cluster of each record (``0..clusters-1``, numbered by first record).
    cluster_size
        The size the clustering aimed at: ``k`` for ``merge`` and ``k-anonymity-first``,
        ``k'`` of Expressions (3)-(4) for ``t-closeness-first``.
    merges
        Merges made by Algorithm 1's merge step.
    """

    labels: np.ndarray
    cluster_size: int
    merges: int

    @property
    def clusters(self) -> int:
        return int(self.labels.max()) + 1 if self.labels.size else 0


def cluster_size(n: int, k: int, t: Fraction) -> int:
    """The cluster size of Algorithm 3: Expression (3), then the adjustment (4).

    .. math::

        k_3 = \\max\\{k, \\lceil n / (2(n-1)t + 1) \\rceil\\},\\qquad
        k' = k_3 + \\lfloor (n \\bmod k_3) / \\lfloor n / k_3 \\rfloor \\rfloor

    computed exactly (``t`` a ``Fraction``). Expression (3) solves Proposition 2's bound
    ``(n - k)/(2(n - 1)k) ≤ t`` for ``k``.

    >>> cluster_size(1080, 2, Fraction(1, 100))   # Soria-Comas et al. 2015, Table 3: 49
    49
    >>> cluster_size(1080, 2, Fraction(1, 20))    # Table 3, t = 0.05: 10
    10

    References
    ----------
    Soria-Comas et al. 2015, §7, Expressions (3) and (4), Proposition 2.
    """
    if not 1 <= k <= n:
        raise ValueError(f"expected 1 ≤ k ≤ n = {n}, found k = {k}")
    if t < 0:
        raise ValueError(f"expected t ≥ 0, found {t}")
    needed = Fraction(n) / (2 * (n - 1) * Fraction(t) + 1)
    size = max(k, math.ceil(needed))
    return size + (n % size) // (n // size)


def proposition2_bound(n: int, k: int) -> Fraction:
    """Proposition 2: ``EMD(C, T) ≤ (n - k) / (2(n - 1)k)`` for a cluster with one record
    from each of ``k`` rank subsets of ``n/k`` records (``k`` divides ``n``, ``n ≥ 2``).

    >>> proposition2_bound(1080, 10)   # 1070 / 21580
    Fraction(107, 2158)
    """
    return Fraction(n - k) / (2 * (n - 1) * k)


class _Clusters:
    """Clusters being merged: members, centroids and exact EMD numerators."""

    def __init__(self, points: np.ndarray, labels: np.ndarray, ranked: RankedValues) -> None:
        count = int(labels.max()) + 1
        order = np.argsort(labels, kind="stable")
        bounds = np.r_[0, np.cumsum(np.bincount(labels, minlength=count))]
        self.members = [order[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        self.sizes = np.diff(bounds).astype(np.int64)
        self.centroids = np.array([points[m].mean(axis=0) for m in self.members])
        self.numerators = list(ranked.numerators(np.arange(len(labels)), labels, count))
        self.active = np.ones(count, dtype=bool)
        self.ranked = ranked

    def emd(self) -> np.ndarray:
        scale = np.array([self.ranked.scale(int(s)) for s in self.sizes], dtype=float)
        return np.array([float(a) for a in self.numerators]) / scale

    def merge(self, a: int, b: int) -> None:
        sa, sb = self.sizes[a], self.sizes[b]
        self.centroids[a] = (self.centroids[a] * sa + self.centroids[b] * sb) / (sa + sb)
        self.members[a] = np.concatenate([self.members[a], self.members[b]])
        self.sizes[a] = sa + sb
        self.numerators[a] = self.ranked.numerators(self.members[a], np.zeros(sa + sb, dtype=np.int64), 1)[0]
        self.active[b] = False


def merge_until_close(
    points: np.ndarray, labels: np.ndarray, ranked: RankedValues, t: Fraction
) -> tuple[np.ndarray, int]:
    """Algorithm 1's merge step: merge clusters until every one is t-close.

    Returns the merged labels (numbered by first record) and the number of merges.

    While some cluster has ``EMD > t`` (decided exactly), the active cluster with the
    greatest EMD is merged with the active cluster whose centroid (mean of the
    standardized quasi-identifiers) is nearest. One cluster has EMD 0, so this ends.

    References
    ----------
    Soria-Comas et al. 2015, §5, Algorithm 1.
    """
    clusters = _Clusters(points, labels, ranked)
    within = ranked.within(clusters.numerators, clusters.sizes, t)
    emd = clusters.emd()
    merges = 0
    while not within[clusters.active].all():
        candidates = np.where(clusters.active, emd, -np.inf)
        worst = int(np.argmax(candidates))
        diff = clusters.centroids - clusters.centroids[worst]
        distance = np.where(clusters.active, np.einsum("ij,ij->i", diff, diff), np.inf)
        distance[worst] = np.inf
        nearest = int(np.argmin(distance))
        clusters.merge(worst, nearest)
        merges += 1
        within[worst] = ranked.within(np.array([clusters.numerators[worst]]), clusters.sizes[[worst]], t)[0]
        within[nearest] = True
        emd[worst] = float(clusters.numerators[worst]) / ranked.scale(int(clusters.sizes[worst]))
    merged = np.empty(len(labels), dtype=np.int64)
    for label, cluster in enumerate(np.flatnonzero(clusters.active)):
        merged[clusters.members[cluster]] = label
    return _by_first_record(merged), merges


def _by_first_record(labels: np.ndarray) -> np.ndarray:
    """Renumber clusters in order of their first record."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    return rank[inverse]


def _generate_cluster(points: np.ndarray, pool: Pool, seed: int, ranked: RankedValues, k: int, t: Fraction) -> np.ndarray:
    """GenerateCluster of Algorithm 2: ``k`` nearest records, then swaps toward ``t``."""
    if len(pool) < 2 * k:
        return pool.alive.copy()
    ordered = pool.nearest(points[seed], len(pool))
    cluster, candidates = ordered[:k].copy(), ordered[k:]
    codes = [int(c) for c in ranked.codes[cluster]]
    numerator = ranked.numerator_of(codes)
    scale = ranked.scale(k)
    for y in candidates:
        if numerator * t.denominator <= t.numerator * scale:
            break
        code = int(ranked.codes[y])
        options = [ranked.numerator_of(codes[:i] + [code] + codes[i + 1:]) for i in range(k)]
        best = min(range(k), key=options.__getitem__)
        if options[best] < numerator:
            cluster[best], codes[best], numerator = y, code, options[best]
    return cluster


def k_anonymity_first(points: np.ndarray, ranked: RankedValues, k: int, t: Fraction) -> np.ndarray:
    """Algorithm 2's clustering (before the merge step): labels of each record.

    References
    ----------
    Soria-Comas et al. 2015, §6, Algorithm 2 (functions k-ANONYMITY-FIRST and
    GENERATECLUSTER).
    """
    labels = np.full(len(points), -1, dtype=np.int64)
    pool = Pool(points)
    cluster = 0

    def take(seed: int) -> None:
        nonlocal cluster
        members = _generate_cluster(points, pool, seed, ranked, k, t)
        labels[members] = cluster
        pool.remove(members)
        cluster += 1

    while len(pool):
        x0 = pool.farthest(pool.centroid())
        take(x0)
        if len(pool):
            take(pool.farthest(points[x0]))
    return labels


def _rank_subsets(values_order: np.ndarray, size: int) -> list[np.ndarray]:
    """Split records (sorted by the confidential attribute) into ``size`` subsets of
    ``⌊n/size⌋``, the ``n mod size`` extra records going to the central subset (odd
    ``size``) or split between the two central ones, the lower getting the odd one."""
    n = values_order.size
    counts = np.full(size, n // size)
    extra = n % size
    if size % 2:
        counts[size // 2] += extra
    else:
        counts[size // 2 - 1] += extra - extra // 2
        counts[size // 2] += extra // 2
    return np.split(values_order, np.cumsum(counts)[:-1])


def t_closeness_first(points: np.ndarray, values: np.ndarray, k: int, t: Fraction) -> tuple[np.ndarray, int]:
    """Algorithm 3's clustering: labels of each record and the cluster size ``k'``.

    References
    ----------
    Soria-Comas et al. 2015, §7, Algorithm 3, Expressions (3)-(4), Figs. 3-4.
    """
    n = len(points)
    size = cluster_size(n, k, t)
    split = _rank_subsets(np.argsort(values, kind="stable"), size)
    subsets = [Pool(points, s) for s in split]
    extras = [len(s) - n // size for s in split]
    everyone = Pool(points)
    labels = np.full(n, -1, dtype=np.int64)
    cluster = 0

    def build(seed: np.ndarray) -> None:
        nonlocal cluster
        members: list[int] = []
        for i, subset in enumerate(subsets):
            takes = 2 if extras[i] and len(members) == i else 1
            extras[i] -= takes - 1
            for _ in range(takes):
                x = subset.nearest(seed, 1)
                subset.remove(x)
                members.append(int(x[0]))
        labels[members] = cluster
        everyone.remove(np.array(members))
        cluster += 1

    while len(everyone):
        x0 = everyone.farthest(everyone.centroid())
        build(points[x0])
        if len(everyone):
            build(points[everyone.farthest(points[x0])])
    return labels, size


def partition(
    points: np.ndarray, values: np.ndarray, k: int, t: Fraction, algorithm: Algorithm
) -> Partition:
    """Run one algorithm, then Algorithm 1's merge step; every cluster is then t-close.

    Parameters
    ----------
    points
        Standardized quasi-identifiers (:func:`mechanisms.mdav.qi_matrix`).
    values
        The numerical confidential attribute.
    k
        Minimum cluster size, ``1 ≤ k ≤ n``.
    t
        The EMD threshold (ordered distance), exact.
    algorithm
        ``merge``, ``k-anonymity-first`` or ``t-closeness-first``.
    """
    if not 1 <= k <= len(points):
        raise ValueError(f"expected 1 ≤ k ≤ n = {len(points)}, found k = {k}")
    ranked = RankedValues.of(values)
    if algorithm == "merge":
        labels, size = mdav(points, k), k
    elif algorithm == "k-anonymity-first":
        labels, size = k_anonymity_first(points, ranked, k, t), k
    elif algorithm == "t-closeness-first":
        labels, size = t_closeness_first(points, values, k, t)
    else:
        raise ValueError(f"algorithm: expected one of {ALGORITHMS}, found {algorithm!r}")
    merged, merges = merge_until_close(points, labels, ranked, t)
    return Partition(merged, size, merges)
