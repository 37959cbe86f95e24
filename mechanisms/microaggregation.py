"""Produce a k-anonymous, t-close release by microaggregation, and audit it.

:func:`microaggregate` is the front door of Soria-Comas et al. 2015's constructions
(:mod:`mechanisms.t_closeness_microaggregation`): it shuffles the records with a seed
(every tie in the algorithms goes to the earlier record, so the seed fixes the
result), partitions them, replaces the quasi-identifiers by their cluster's centroid
(:func:`mechanisms.mdav.aggregate`) and measures the release with the verifier, as a
third party would: k-anonymity, the ordered-distance t-closeness of the confidential
attribute, both exact, and the normalized SSE (eq. 5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from mechanisms.mdav import Orders, aggregate, qi_matrix, released_columns
from mechanisms.sse import normalized_sse
from mechanisms.t_closeness_microaggregation import ALGORITHMS, Algorithm, Partition, partition
from verifier.errors import DataError, PolicyError
from verifier.privacy.anonymity import k_anonymity
from verifier.privacy.t_closeness import t_closeness
from verifier.results import Measurement
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec

__all__ = ["Microaggregation", "Achieved", "microaggregate", "achieved", "numerical_column"]


@dataclass(frozen=True)
class Achieved:
    """What the verifier measures on a produced release.

    Attributes
    ----------
    k
        The ``k_anonymity`` measurement.
    t
        The ``t_closeness`` measurement (ordered distance) of the confidential attribute.
    sse
        Normalized SSE against the original (Soria-Comas et al. 2015, eq. 5).
    """

    k: Measurement
    t: Measurement
    sse: float

    def meets(self, k: int, t: Fraction) -> bool:
        """Exact: the release is k-anonymous and t-close for the requested values."""
        return self.k.level.satisfies(k, "at_least") and self.t.level.satisfies(t, "at_most")


@dataclass(frozen=True)
class Microaggregation:
    """A release produced by :func:`microaggregate`, with how it was made and what it achieves."""

    release: pd.DataFrame
    partition: Partition
    algorithm: Algorithm
    k: int
    t: Fraction
    seed: int
    achieved: Achieved


def numerical_column(frame: pd.DataFrame, column: str, source: str) -> np.ndarray:
    """A column as finite floats; a cell that is not a number is an error naming its row."""
    if column not in frame.columns:
        raise DataError(f"{source}: column {column!r} not found; the table has {list(map(str, frame.columns))}")
    numbers = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(numbers))
    if bad.size:
        row = int(bad[0])
        raise DataError(f"{source}: row {row + 1}, column {column!r}: expected a number, found {frame[column].iloc[row]!r}")
    return numbers


def achieved(
    original: pd.DataFrame, release: pd.DataFrame, qi: Sequence[str], sensitive: str, orders: Orders | None = None,
    *, source: str = "release",
) -> Achieved:
    """Measure a release with the verifier: k-anonymity, ordered t-closeness, normalized SSE."""
    classes, (table,) = count_tables(release, qi, [AttributeSpec((sensitive,), kind="numerical")], source=source)
    return Achieved(k_anonymity(classes), t_closeness(table, "ordered"), normalized_sse(original, release, qi, orders))


def microaggregate(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sensitive: str,
    *,
    k: int,
    t: Fraction,
    algorithm: Algorithm = "t-closeness-first",
    orders: Orders | None = None,
    seed: int = 0,
    source: str = "data",
    keep: Sequence[str] = (),
) -> Microaggregation:
    """A k-anonymous t-close release of ``frame`` (Soria-Comas et al. 2015, Algorithms 1-3).

    Parameters
    ----------
    frame
        The original table.
    qi
        Quasi-identifier columns: numerical, or categorical with a declared order in
        ``orders`` (lowest first).
    sensitive
        The numerical confidential attribute (released unchanged).
    k
        Minimum cluster size, ``1 ≤ k ≤`` number of rows.
    t
        EMD threshold with the ordered distance, exact (``Fraction``), ``t ≥ 0``.
    algorithm
        ``merge`` (Algorithm 1), ``k-anonymity-first`` (Algorithm 2 with Algorithm 1's
        merging as fallback) or ``t-closeness-first`` (Algorithm 3).
    seed
        Seeds the shuffle that breaks ties; the same seed gives the same release.
    keep
        The other columns to copy into the release, unchanged; every column not among
        ``qi``, ``sensitive`` and ``keep`` is left out.

    Raises
    ------
    DataError
        A column is absent or a cell cannot be read (the message names the row).
    PolicyError
        ``k``, ``t`` or ``algorithm`` out of range, or ``sensitive`` among the ``qi``.
    """
    if algorithm not in ALGORITHMS:
        raise PolicyError(f"algorithm: expected one of {list(ALGORITHMS)}, found {algorithm!r}")
    if sensitive in qi:
        raise PolicyError(f"{source}: {sensitive!r} is both a quasi-identifier and the confidential attribute")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= len(frame):
        raise PolicyError(f"{source}: expected an integer k with 1 ≤ k ≤ {len(frame)} (the number of rows), found {k!r}")
    t = Fraction(t)
    if t < 0:
        raise PolicyError(f"expected t ≥ 0, found {t}")
    points = qi_matrix(frame, qi, orders, source=source)
    values = numerical_column(frame, sensitive, source)
    shuffle = np.random.default_rng(seed).permutation(len(frame))
    found = partition(points[shuffle], values[shuffle], k, t, algorithm)
    labels = np.empty(len(frame), dtype=np.int64)
    labels[shuffle] = found.labels
    result = Partition(labels, found.cluster_size, found.merges)
    release = aggregate(frame, qi, labels, orders)[released_columns(frame, qi, sensitive, keep, source)]
    return Microaggregation(release, result, algorithm, k, t, seed, achieved(frame, release, qi, sensitive, orders))
