"""SUDA2: minimal sample uniques, SUDA scores and DIS-SUDA, from the classes of a release.

A *minimal sample unique* (MSU) of a record is a set of its quasi-identifier values that
no other record shares, while every proper subset is shared with another record. Only
records unique in the release (classes of size 1) have MSUs, and a class of size ≥ 2
counts the same whether it has 2 records or more; so the search runs on the classes,
each counted at most twice.

The search visits the subsets of the quasi-identifiers depth first, each subset ``S``
reached from ``S`` minus its last attribute, carrying only the classes that are not yet
unique on ``S`` and that share their ``S``-values with a record unique in the release:
a class unique on ``S`` is unique on every superset and leaves the branch, and a group
with no such record cannot yield an MSU (Manning, Haglin & Keane 2008: uniques leave
the search, and only groups holding a candidate are refined). Every set where a record
becomes unique is a candidate; the MSUs are the candidates without a candidate subset.

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

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from verifier.counts import Classes

__all__ = ["DIS_FRACTION", "SudaResult", "suda2"]

DIS_FRACTION = Fraction(1, 100)
"""sdcMicro's default ``DisFraction`` (the sampling fraction DIS-SUDA assumes)."""

Progress = Callable[[int, int], None]


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
    """

    msu_records: np.ndarray
    msu_masks: np.ndarray
    scores: np.ndarray
    dis: np.ndarray
    attributes: int
    max_size: int
    pairs: int
    dis_fraction: Fraction

    @property
    def msu_sizes(self) -> np.ndarray:
        """The size of each MSU."""
        return _popcount(self.msu_masks)

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


def _dense(values: np.ndarray) -> np.ndarray:
    """Dense codes ``0..g-1`` of ``values``, by hashing."""
    codes, _ = pd.factorize(values)
    return codes.astype(np.int64)


def _groups(columns: list[np.ndarray], cardinality: np.ndarray, rows: np.ndarray, attributes: list[int]) -> np.ndarray:
    """Codes of the rows' values on ``attributes`` (equal codes ⇔ equal values), all below ``4·len(rows) + 2^16``."""
    key = columns[attributes[0]][rows]
    span = int(cardinality[attributes[0]])
    for attribute in attributes[1:]:
        width = int(cardinality[attribute])
        if span * width >= 1 << 62:
            key = _dense(key)
            span = int(key.max(initial=-1)) + 1
        key = key * width + columns[attribute][rows]
        span *= width
    return key if span <= 4 * rows.size + (1 << 16) else _dense(key)


def _search(codes: np.ndarray, weight: np.ndarray, single: np.ndarray, max_size: int,
            progress: Progress | None) -> tuple[np.ndarray, np.ndarray]:
    """Every MSU as (class, mask), subsets of the quasi-identifiers level by level (see the module docstring).

    ``live[S]`` is the set of classes still carried on ``S``, as packed bits; a subset is
    searched only when every one of its subsets one smaller is live, on the classes live
    on all of them.
    """
    count, attributes = codes.shape
    columns = [np.ascontiguousarray(codes[:, a]) for a in range(attributes)]
    cardinality = np.array([int(c.max(initial=0)) + 1 for c in columns], dtype=np.int64)
    total = sum(math.comb(attributes, size) for size in range(1, max_size + 1))
    found_records: list[np.ndarray] = []
    found_masks: list[np.ndarray] = []
    live = {0: np.packbits(np.ones(count, dtype=bool))} if single.any() else {}
    done = 0
    for size in range(1, max_size + 1):
        following: dict[int, np.ndarray] = {}
        for parent, carried in live.items():
            for attribute in range(parent.bit_length(), attributes):
                mask = parent | (1 << attribute)
                others = [parent ^ (1 << a) | (1 << attribute) for a in range(attribute) if parent >> a & 1]
                if any(other not in live for other in others):
                    continue
                packed = carried
                for other in others:
                    packed = packed & live[other]
                rows = np.flatnonzero(np.unpackbits(packed, count=count))
                if rows.size == 0:
                    continue
                key = _groups(columns, cardinality, rows, [a for a in range(attributes) if mask >> a & 1])
                unique = np.bincount(key, weights=weight[rows])[key] == 1
                if unique.any():
                    found_records.append(rows[unique])
                    found_masks.append(np.full(int(unique.sum()), mask, dtype=np.int64))
                keep = ~unique & (np.bincount(key, weights=single[rows]) > 0)[key]
                if keep.any():
                    flags = np.zeros(count, dtype=bool)
                    flags[rows[keep]] = True
                    following[mask] = np.packbits(flags)
            done += attributes - parent.bit_length()
            if progress is not None:
                progress(done, total)
        done = sum(math.comb(attributes, s) for s in range(1, size + 1))
        if progress is not None:
            progress(done, total)
        live = following
    if progress is not None:
        progress(total, total)
    if not found_records:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(found_records), np.concatenate(found_masks)


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
    single = (sizes == 1).astype(float)
    records, masks = _search(_codes(classes), np.minimum(sizes, 2).astype(float), single, limit, progress)
    scores = _scores(records, _popcount(masks), attributes, classes.count)
    pairs = int(2 * (sizes == 2).sum())
    return SudaResult(records, masks, scores, _dis(scores, attributes, pairs, dis_fraction), attributes, limit, pairs,
                      dis_fraction)


def _popcount(masks: np.ndarray) -> np.ndarray:
    """The number of quasi-identifiers in each mask."""
    return np.bitwise_count(masks.astype(np.uint64)).astype(np.int64)


def _scores(records: np.ndarray, sizes: np.ndarray, attributes: int, count: int) -> np.ndarray:
    """SUDA scores ``Σ (M - |m|)!`` per class, exact: int64 when no sum can reach 2^63, Python integers otherwise.

    The MSUs of a record are an antichain, so its score is at most ``Σ_k C(M, k)(M - k)! = Σ_k M!/k!``.
    """
    factorial = [math.factorial(attributes - size) for size in range(attributes + 1)]
    bound = sum(math.factorial(attributes) // math.factorial(k) for k in range(1, attributes + 1))
    dtype: type = np.int64 if bound < 1 << 63 else object
    scores = np.zeros(count, dtype=dtype)
    np.add.at(scores, records, np.array(factorial, dtype=dtype)[sizes])
    return scores


def _dis(scores: np.ndarray, attributes: int, pairs: int, fraction: Fraction) -> np.ndarray:
    """DIS-SUDA per class (float64): 0 without a score, 1 when no class has exactly two records."""
    positive = (scores > 0).astype(bool)
    dis = np.zeros(scores.size, dtype=float)
    if not positive.any():
        return dis
    q = 1 + (8 - attributes) / 20
    powered = scores[positive].astype(float) ** q
    adjust = float((1 / powered).sum())
    d = float(fraction)
    dis[positive] = 1 / (1 + pairs * (1 - d) / (d * powered * adjust))
    return dis
