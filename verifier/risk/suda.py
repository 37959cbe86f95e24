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
        return np.array([bin(int(m)).count("1") for m in self.msu_masks], dtype=np.int64)

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
    codes, _ = pd.factorize(values)
    return codes.astype(np.int64)


def _candidates(codes: np.ndarray, weight: np.ndarray, single: np.ndarray, max_size: int,
                progress: Progress | None) -> tuple[np.ndarray, np.ndarray]:
    """Every (class, subset) where a unique record becomes unique, depth first (see the module docstring)."""
    attributes = codes.shape[1]
    found_records: list[np.ndarray] = []
    found_masks: list[np.ndarray] = []

    def visit(mask: int, last: int, depth: int, rows: np.ndarray, group: np.ndarray) -> None:
        if depth >= max_size:
            return
        for attribute in range(last + 1, attributes):
            key = _dense(group * (int(codes[:, attribute].max()) + 1) + codes[rows, attribute])
            counts = np.bincount(key, weights=weight[rows])
            unique = counts[key] == 1
            child = mask | (1 << attribute)
            if unique.any():
                found_records.append(rows[unique])
                found_masks.append(np.full(int(unique.sum()), child, dtype=np.int64))
            keep = ~unique
            holds = np.bincount(key[keep], weights=single[rows[keep]], minlength=key.max(initial=-1) + 1) > 0
            keep &= holds[key]
            if keep.any():
                visit(child, attribute, depth + 1, rows[keep], _dense(key[keep]))
            if progress is not None and depth == 0:
                progress(attribute + 1, attributes)

    rows = np.arange(codes.shape[0])
    if single.any() and attributes:
        visit(0, -1, 0, rows, np.zeros(rows.size, dtype=np.int64))
    if not found_records:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(found_records), np.concatenate(found_masks)


def _minimal(records: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Which candidates are MSUs: those with no other candidate of the same record as a proper subset."""
    order = np.lexsort((masks, records))
    records, masks = records[order], masks[order]
    keep = np.ones(records.size, dtype=bool)
    starts = np.flatnonzero(np.r_[True, records[1:] != records[:-1]])
    ends = np.r_[starts[1:], records.size]
    for start, end in zip(starts.tolist(), ends.tolist()):
        if end - start == 1:
            continue
        own = masks[start:end].tolist()
        for i, m in enumerate(own):
            if any(o != m and (o & m) == o for o in own):
                keep[start + i] = False
    result = np.zeros(records.size, dtype=bool)
    result[order] = keep
    return result


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
        Called as ``progress(done, total)`` after each first attribute of the search.

    References
    ----------
    Elliot, Manning & Ford 2002; Manning, Haglin & Keane 2008.
    """
    attributes = len(classes.qi)
    limit = attributes if max_size is None else min(max_size, attributes)
    sizes = classes.sizes.astype(np.int64)
    single = (sizes == 1).astype(float)
    records, masks = _candidates(_codes(classes), np.minimum(sizes, 2).astype(float), single, limit, progress)
    minimal = _minimal(records, masks)
    records, masks = records[minimal], masks[minimal]
    msu_sizes = np.array([bin(int(m)).count("1") for m in masks], dtype=np.int64)
    factorial = np.array([math.factorial(attributes - s) for s in range(attributes + 1)], dtype=object)
    scores = np.zeros(classes.count, dtype=object)
    np.add.at(scores, records, factorial[msu_sizes] if msu_sizes.size else np.zeros(0, dtype=object))
    pairs = int(2 * (sizes == 2).sum())
    return SudaResult(records, masks, scores, _dis(scores, attributes, pairs, dis_fraction), attributes, limit, pairs,
                      dis_fraction)


def _dis(scores: np.ndarray, attributes: int, pairs: int, fraction: Fraction) -> np.ndarray:
    """DIS-SUDA per class (float64): 0 without a score, 1 when no class has exactly two records."""
    positive = np.array([int(s) > 0 for s in scores], dtype=bool)
    dis = np.zeros(scores.size, dtype=float)
    if not positive.any():
        return dis
    q = 1 + (8 - attributes) / 20
    powered = np.array([float(int(s)) ** q for s in scores[positive]])
    adjust = float((1 / powered).sum())
    d = float(fraction)
    dis[positive] = 1 / (1 + pairs * (1 - d) / (d * powered * adjust))
    return dis
