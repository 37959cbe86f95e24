"""SUDA2: minimal sample uniques, SUDA scores and DIS-SUDA, from the classes of a release.

A *minimal sample unique* (MSU) of a record is a set of its quasi-identifier values that
no other record shares, while every proper subset is shared with another record. Only
records unique in the release (classes of size 1) have MSUs, and a class of size ≥ 2
makes every group it falls in shared, whatever its size; so the search runs on the
classes.

A set ``S`` is an MSU of a record exactly when the record is unique on ``S`` and not on
any ``S`` minus one value (uniqueness only grows with ``S``). The search visits the
subsets of the quasi-identifiers, each after all of its own subsets, and counts on ``S``
only the classes *live* on every ``S`` minus one attribute: a class live on ``T`` is not
unique on ``T`` nor on any subset of it, and shares its ``T``-values with a record unique
in the release. This loses nothing: a class unique on a subset of ``S`` shares its
``S``-values with no other, and a group of classes without a record unique in the
release holds no MSU nor shares values with one; so a record counted alone on ``S`` is
unique on ``S`` with every proper subset shared, an MSU, and each MSU is found once, on
its own set, with no candidate to filter afterwards (Manning, Haglin & Keane 2008:
records unique on a subset leave the search, a set is an MSU when its subsets one
smaller are not unique, and only groups holding a candidate are refined). The counting
is columnar: each subset's group codes come from its parent's with one more column, and
its groups are counted with ``numpy.bincount``.

Scores, as sdcMicro's ``suda2`` (``original_scores = TRUE``) and Elliot et al. (2002):
a record's SUDA score is ``Σ (M - |m|)!`` over its MSUs ``m`` (``M`` quasi-identifiers);
its DIS-SUDA score is ``1 / (1 + P(1-d) / (d · s^Q · Σ_r s_r^{-Q}))`` with ``s`` its score,
``Q = 1 + (8 - M)/20``, ``P`` the records in classes of exactly two and ``d`` the
sampling fraction (``DisFraction``; 1/100 by default). A *special unique* has an MSU
smaller than all ``M`` quasi-identifiers.

References
----------
Elliot, Manning & Ford 2002 (SUDA, special uniques, DIS-SUDA); Manning, Haglin & Keane
2008 (SUDA2).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from verifier.tables.counts import Classes

__all__ = ["DIS_FRACTION", "SUBSETS", "SudaResult", "suda2", "bounded_size"]

DIS_FRACTION = Fraction(1, 100)
"""sdcMicro's default ``DisFraction`` (the sampling fraction DIS-SUDA assumes)."""

SUBSETS = (1 << 16) - 1
"""The subsets of the quasi-identifiers the command line's search visits unless told (:func:`bounded_size`): every
size up to 16 quasi-identifiers, MSUs of up to 6 values of 20, 3 of 40 (the search is exponential in the size)."""

Progress = Callable[[int, int], None]

SPARSE_GROUPS = 1 << 16
"""Group codes run up to ``4·classes + SPARSE_GROUPS`` before they are renumbered densely (by hashing)."""


@dataclass(frozen=True)
class SudaResult:
    """Every class's MSUs and scores.

    Attributes
    ----------
    msu_records, msu_masks
        One entry per MSU: the class (index into the classes) and the MSU as a bit mask
        of quasi-identifier positions.
    scores
        The SUDA score of each class's record (0 for classes of size ≥ 2), exact integers.
    dis
        The DIS-SUDA score of each class's record (float64).
    attributes
        ``M``, the number of quasi-identifiers.
    max_size
        The largest MSU size searched.
    pairs
        ``P``: records in classes of exactly two.
    dis_fraction
        ``d``.
    complete
        Whether every MSU was found: ``max_size`` reached the largest size an MSU can have (the number
        of groups of equivalent quasi-identifiers, and fewer than the classes); else the search was
        partial, and MSUs larger than ``max_size`` are not counted.
    """

    msu_records: np.ndarray
    msu_masks: np.ndarray
    scores: np.ndarray
    dis: np.ndarray
    attributes: int
    max_size: int
    pairs: int
    dis_fraction: Fraction
    complete: bool = True

    @property
    def msu_sizes(self) -> np.ndarray:
        """The size of each MSU."""
        return _popcount(self.msu_masks).astype(np.int64)

    def special_uniques(self) -> int:
        """Records with an MSU smaller than the full set of quasi-identifiers."""
        small = self.msu_sizes < self.attributes
        return int(np.unique(self.msu_records[small]).size)


def _codes(classes: Classes) -> np.ndarray:
    """The classes' quasi-identifier values as int64 codes, one column per quasi-identifier (missing is a code)."""
    columns = []
    for column in classes.qi:
        codes, _ = pd.factorize(classes.keys[column], use_na_sentinel=True)
        columns.append(np.where(codes < 0, codes.max(initial=0) + 1, codes))
    return np.stack(columns, axis=1).astype(np.int64) if columns else np.zeros((classes.count, 0), dtype=np.int64)


class _Search:
    """The depth-first search over the subsets of the quasi-identifiers (see the module docstring).

    Subsets are visited in increasing order of their bit masks, a preorder of the tree in
    which ``S``'s parent is ``S`` without its lowest attribute; so every subset of ``S`` is
    visited before ``S``. The classes carried on ``S`` (packed bits over all classes, those
    with two or more records first) come with every class's code on ``S`` (equal codes ⇔
    equal values at the carried classes), dense below the number of groups: a child's codes
    are its parent's times the new attribute's number of values plus its value, the classes
    not carried falling into one extra group. ``live[T]`` holds the classes carried on a
    visited ``T`` that a later subset reads; it is dropped after
    its last reader ``T ∪ {highest attribute not in T}``.
    """

    def __init__(self, codes: np.ndarray, single: np.ndarray, max_size: int, progress: Progress | None) -> None:
        self.count, self.attributes = codes.shape
        self.index = np.int32 if self.count < 1 << 31 else np.int64
        self.order = np.argsort(single, kind="stable").astype(self.index)
        self.shared = int(self.count - single.sum())
        self.cardinality = [int(codes[:, a].max(initial=0)) + 1 for a in range(self.attributes)]
        self.columns = [codes[self.order, a].astype(np.min_scalar_type(width)) for a, width in enumerate(self.cardinality)]
        self.max_size, self.progress = max_size, progress
        self.total = self.below(self.attributes, 0)
        self.done = 0
        self.live: dict[int, np.ndarray] = {}
        self.records: list[np.ndarray] = []
        self.masks: list[int] = []

    def below(self, lowest: int, size: int) -> int:
        """How many subsets the search visits from one of ``size`` attributes whose lowest is ``lowest``, itself included."""
        return sum(math.comb(lowest, extra) for extra in range(self.max_size - size + 1))

    def run(self) -> tuple[np.ndarray, np.ndarray]:
        """Every MSU as (class, mask)."""
        if self.count > self.shared:
            self.visit(0, 0, np.packbits(np.ones(self.count, dtype=bool)), np.zeros(self.count, dtype=np.int64), 1)
        if self.progress is not None:
            self.progress(self.total, self.total)
        if not self.records:
            return np.zeros(0, dtype=self.index), np.zeros(0, dtype=np.int64)
        records = self.order[np.concatenate(self.records)]
        masks = np.repeat(np.array(self.masks, dtype=np.int64), [r.size for r in self.records])
        return records, masks

    def visit(self, mask: int, size: int, carried: np.ndarray, key: np.ndarray, groups: int) -> None:
        """Search the children ``mask ∪ {b}``, ``b`` below ``mask``'s lowest attribute, of a subset carrying ``carried``."""
        lowest = (mask & -mask).bit_length() - 1 if mask else self.attributes
        members = [a for a in range(self.attributes) if mask >> a & 1]
        full = (1 << self.attributes) - 1
        for b in range(lowest):
            child = mask | (1 << b)
            others = [child ^ (1 << a) for a in members]
            self.done += 1
            if all(other in self.live for other in others):
                self.child(child, size + 1, b, others, carried, key, groups)
            else:
                self.done += self.below(b, size + 1) - 1
            for a, other in zip(members, others):
                if child >> (a + 1) == full >> (a + 1):
                    self.live.pop(other, None)
            if self.progress is not None:
                self.progress(self.done, self.total)

    def child(self, mask: int, size: int, b: int, others: list[int], carried: np.ndarray, key: np.ndarray,
              groups: int) -> None:
        """Count the classes on ``mask`` = parent ∪ {b}: record its MSUs, store and descend with the classes kept.

        ``carried`` are the parent's classes as packed bits, ``key`` their codes on the parent
        (of length the number of classes; meaningless at the classes not carried).
        """
        for other in others:
            carried = carried & self.live[other]
        if not carried.any():
            self.done += self.below(b, size) - 1
            return
        width = self.cardinality[b]
        span = groups * width
        key = key - groups
        key *= width
        key += self.columns[b]
        member = np.unpackbits(carried, count=self.count)
        key *= member
        key += span
        if span > 4 * self.count + SPARSE_GROUPS:
            rows = np.flatnonzero(member)
            dense, values = pd.factorize(key[rows])
            span = values.size
            key = np.full(self.count, span, dtype=np.int64)
            key[rows] = dense
        total = np.bincount(key, minlength=span + 1)
        total[span] = 0
        if self.shared:
            repeated = np.bincount(key[:self.shared], minlength=span + 1)
            unique, kept = (total == 1) & (repeated == 0), (total >= 2) & (total > repeated)
        else:
            unique, kept = total == 1, total >= 2
        status = (unique.view(np.int8) | kept.view(np.int8) << 1).take(key)
        found = np.flatnonzero(status == 1)
        if found.size:
            self.records.append(found.astype(self.index))
            self.masks.append(mask)
        if size == self.max_size:
            return
        carried = np.packbits(status == 2)
        if not carried.any():
            self.done += self.below(b, size) - 1
            return
        if mask >> (b + 1) != (1 << self.attributes) - 1 >> (b + 1):
            self.live[mask] = carried
        if b:
            code = np.cumsum(kept, dtype=np.int32).astype(np.int64) - 1
            self.visit(mask, size, carried, code.take(key), int(code[-1]) + 1)


def suda2(classes: Classes, max_size: int | None = None, dis_fraction: Fraction = DIS_FRACTION,
          progress: Progress | None = None) -> SudaResult:
    """The MSUs of every record up to ``max_size`` values (default: all quasi-identifiers), and the scores.

    Parameters
    ----------
    classes
        The release's classes.
    max_size
        The largest MSU searched (sdcMicro searches all sizes).
    dis_fraction
        ``d`` of DIS-SUDA, in (0, 1).
    progress
        Called as ``progress(done, total)`` as the subsets of the quasi-identifiers are searched
        (``total`` subsets up to ``max_size`` values; pruned subsets count as done).

    References
    ----------
    Elliot, Manning & Ford 2002; Manning, Haglin & Keane 2008.
    """
    attributes = len(classes.qi)
    limit = attributes if max_size is None else min(max_size, attributes)
    sizes = classes.sizes.astype(np.int64)
    codes = _codes(classes)
    groups = _equivalent_columns(codes, int(sizes.sum()))
    # an MSU of m values has, for each value, another class that differs from it on that value only: m < classes
    possible = min(len(groups), max(classes.count - 1, 1))
    largest = min(limit, possible)
    found, group_masks = _Search(codes[:, [group[0] for group in groups]], sizes == 1, largest, progress).run()
    records, masks = _expand(found, group_masks, groups, attributes)
    scores = _scores(records, _popcount(masks), attributes, classes.count)
    pairs = int(2 * (sizes == 2).sum())
    return SudaResult(records, masks, scores, _dis(scores, attributes, pairs, dis_fraction), attributes, limit, pairs,
                      dis_fraction, complete=limit >= possible)


def bounded_size(attributes: int, subsets: int = SUBSETS) -> int:
    """The largest MSU size whose search visits at most ``subsets`` subsets of ``attributes`` quasi-identifiers
    (at least 1): ``max(s)`` with ``Σ_{1 ≤ j ≤ s} binom(attributes, j) ≤ subsets``.

    >>> bounded_size(20), bounded_size(16), bounded_size(40)
    (6, 16, 3)
    """
    total, size = 0, 0
    while size < attributes and total + math.comb(attributes, size + 1) <= subsets:
        size += 1
        total += math.comb(attributes, size)
    return max(size, 1)


def _equivalent_columns(codes: np.ndarray, rows: int) -> list[list[int]]:
    """The quasi-identifiers grouped by the partition of the classes they induce, constant ones left out.

    Two columns that split the classes alike (equal values at the same classes) are
    interchangeable in every MSU and never both in one (the second would split nothing),
    and a column with one value splits nothing at all (unless the release is one record,
    unique on each column alone): the search runs on one column per group and
    :func:`_expand` puts each group's members back.
    """
    groups: dict[bytes, list[int]] = {}
    for column in range(codes.shape[1]):
        pattern, _ = pd.factorize(codes[:, column])
        if pattern.size and (pattern.max() > 0 or rows == 1):
            groups.setdefault(pattern.astype(np.int64).tobytes(), []).append(column)
    return list(groups.values())


def _expand(records: np.ndarray, masks: np.ndarray, groups: list[list[int]],
            attributes: int) -> tuple[np.ndarray, np.ndarray]:
    """The MSUs over the original columns: each MSU over the groups' representatives, once per choice of one member
    of each of its groups. Masks are int64 up to 63 quasi-identifiers, Python integers beyond."""
    dtype: type = np.int64 if attributes < 63 else object
    if all(len(group) == 1 for group in groups) and [g[0] for g in groups] == list(range(attributes)):
        return records, masks.astype(dtype)
    expanded: dict[int, np.ndarray] = {}
    for mask in set(masks.tolist()):
        members = [[1 << column for column in groups[g]] for g in range(len(groups)) if mask >> g & 1]
        expanded[mask] = np.array([sum(choice) for choice in itertools.product(*members)], dtype=dtype)
    if not masks.size:
        return records, masks.astype(dtype)
    pieces = [expanded[mask] for mask in masks.tolist()]
    return (np.repeat(records, [piece.size for piece in pieces]), np.concatenate(pieces))


def _popcount(masks: np.ndarray) -> np.ndarray:
    """The number of quasi-identifiers in each mask."""
    if masks.dtype == object:
        return np.array([int(mask).bit_count() for mask in masks.tolist()], dtype=np.int64)
    return np.bitwise_count(masks)


def _scores(records: np.ndarray, sizes: np.ndarray, attributes: int, count: int) -> np.ndarray:
    """SUDA scores ``Σ (M - |m|)!`` per class, exact: int64 when no sum can reach 2^63, Python integers otherwise.

    The MSUs of a record are an antichain, so its score is at most ``Σ_k C(M, k)(M - k)! = Σ_k M!/k!``.
    """
    bound = sum(math.factorial(attributes) // math.factorial(k) for k in range(1, attributes + 1))
    dtype: type = np.int64 if bound < 1 << 63 else object
    scores: np.ndarray = np.zeros(count, dtype=dtype)
    for size in np.unique(sizes).tolist():
        scores += np.bincount(records[sizes == size], minlength=count).astype(dtype) * math.factorial(attributes - size)
    return scores


def _dis(scores: np.ndarray, attributes: int, pairs: int, fraction: Fraction) -> np.ndarray:
    """DIS-SUDA per class (float64): 0 without a score, 1 when no class has exactly two records."""
    positive = (scores > 0).astype(bool)
    dis = np.zeros(scores.size, dtype=float)
    if not positive.any():
        return dis
    q = 1 + (8 - attributes) / 20
    # s^q · Σ_r s_r^(-q) in logarithms: scores of many quasi-identifiers (M! past 10^308) stay finite
    logs = q * np.array([math.log(int(score)) for score in scores[positive].tolist()])
    shift = float((-logs).max())
    log_adjust = shift + math.log(float(np.exp(-logs - shift).sum()))
    d = float(fraction)
    dis[positive] = 1 / (1 + pairs * (1 - d) / d * np.exp(-(logs + log_adjust)))
    return dis
