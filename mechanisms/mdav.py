"""MDAV microaggregation on the quasi-identifiers, and the aggregation step.

Microaggregation partitions the records into clusters of at least ``k`` similar records
and replaces each record's quasi-identifiers by its cluster's centroid, which makes the
release k-anonymous (Soria-Comas et al. 2015, §2.3). MDAV (maximum distance to average
vector) is the fixed-size heuristic the paper builds on (its reference [9]):

* while at least ``3k`` records remain: take the record ``r`` farthest from the centroid of
  the remaining records and the record ``s`` farthest from ``r``; form a cluster of ``r``
  and its ``k - 1`` nearest records, then one of ``s`` and its ``k - 1`` nearest;
* with ``2k`` to ``3k - 1`` left: one cluster around the record farthest from the
  centroid, and the rest;
* with fewer than ``2k`` left: the rest is one cluster.

Distances are Euclidean on standardized quasi-identifiers: numerical columns as
z-scores, categorical columns through their declared order (the rank, then
standardized). Ties (equally distant records) go to the record that comes first, so the
partition depends only on the row order the caller gives (the constructions shuffle with
a seed first).

>>> import numpy as np
>>> labels = mdav(np.array([[0.0], [0.1], [5.0], [5.1], [9.0], [9.2]]), 2)
>>> [int(x) for x in labels]
[0, 0, 2, 2, 1, 1]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from verifier.errors import DataError

__all__ = ["Orders", "qi_columns", "qi_matrix", "mdav", "aggregate", "is_code", "released_columns", "Pool"]

Orders = Mapping[str, Sequence[Any]]


def _column(frame: pd.DataFrame, column: str, order: Sequence[Any] | None, source: str) -> np.ndarray:
    """One quasi-identifier as floats: the value, or its rank in the declared order."""
    if column not in frame.columns:
        raise DataError(f"{source}: quasi-identifier column {column!r} not found; the table has {list(frame.columns)}")
    values = frame[column]
    if order is not None:
        ranks = pd.Index(list(order)).get_indexer(values.to_numpy())
        bad = np.flatnonzero(ranks < 0)
        if bad.size:
            row = int(bad[0])
            raise DataError(
                f"{source}: row {row + 1}, column {column!r}: expected one of the declared order "
                f"{list(order)}, found {values.iloc[row]!r}"
            )
        return ranks.astype(float)
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(numbers))
    if bad.size:
        row = int(bad[0])
        raise DataError(
            f"{source}: row {row + 1}, column {column!r}: expected a number (or declare an order for a "
            f"categorical quasi-identifier), found {values.iloc[row]!r}"
        )
    return numbers


def qi_columns(frame: pd.DataFrame, qi: Sequence[str], orders: Orders | None = None, *, source: str = "data") -> np.ndarray:
    """The quasi-identifiers as floats (``n × len(qi)``): numbers, or ranks in the declared order.

    Raises
    ------
    DataError
        A column is absent, a numerical cell is not a number, or a categorical cell is
        outside its declared order (the message names the row).
    """
    orders = orders or {}
    if not qi:
        raise DataError(f"{source}: expected at least one quasi-identifier column")
    return np.column_stack([_column(frame, c, orders.get(c), source) for c in qi])


def qi_matrix(frame: pd.DataFrame, qi: Sequence[str], orders: Orders | None = None, *, source: str = "data") -> np.ndarray:
    """The standardized quasi-identifiers, one row per record (``n × len(qi)`` floats).

    Each column of :func:`qi_columns` is centred and divided by its standard deviation
    (a constant column becomes 0). Categorical columns need an entry in ``orders``.
    """
    columns = qi_columns(frame, qi, orders, source=source)
    spread = columns.std(axis=0)
    return (columns - columns.mean(axis=0)) / np.where(spread > 0, spread, 1.0)


class Pool:
    """The records not yet clustered, with their running centroid.

    Distances are computed on a compacted copy of the remaining points, so each query
    costs O(remaining × d).
    """

    def __init__(self, points: np.ndarray, members: np.ndarray | None = None) -> None:
        self.points = points
        self.alive = np.arange(len(points)) if members is None else np.asarray(members)
        self._sum = points[self.alive].sum(axis=0)

    def __len__(self) -> int:
        return int(self.alive.size)

    def centroid(self) -> np.ndarray:
        return self._sum / len(self)

    def distances(self, point: np.ndarray) -> np.ndarray:
        """Squared distances from ``point`` to the remaining records (in pool order)."""
        diff = self.points[self.alive] - point
        return np.einsum("ij,ij->i", diff, diff)

    def farthest(self, point: np.ndarray) -> int:
        """The remaining record farthest from ``point`` (first on ties)."""
        return int(self.alive[np.argmax(self.distances(point))])

    def nearest(self, point: np.ndarray, count: int) -> np.ndarray:
        """The ``count`` remaining records nearest to ``point`` (stable on ties)."""
        distances = self.distances(point)
        if count == 1:
            return self.alive[[int(np.argmin(distances))]]
        return self.alive[np.argsort(distances, kind="stable")[:count]]

    def remove(self, records: np.ndarray) -> None:
        keep = ~np.isin(self.alive, records)
        self._sum = self._sum - self.points[records].sum(axis=0)
        self.alive = self.alive[keep]


def mdav(points: np.ndarray, k: int) -> np.ndarray:
    """MDAV partition of ``points`` into clusters of ``k`` to ``2k - 1`` records.

    Parameters
    ----------
    points
        Standardized quasi-identifiers (:func:`qi_matrix`).
    k
        Minimum cluster size, ``1 ≤ k``; when fewer than ``k`` records exist they form
        one cluster.

    Returns
    -------
    numpy.ndarray
        The cluster label (``0, 1, ...`` in order of formation) of each record.

    References
    ----------
    Soria-Comas et al. 2015, §2.3 and §5 (MDAV, their reference [9]).
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    labels = np.full(len(points), -1, dtype=np.int64)
    pool = Pool(points)
    cluster = 0

    def take(seed: int) -> None:
        nonlocal cluster
        members = pool.nearest(points[seed], k)
        labels[members] = cluster
        pool.remove(members)
        cluster += 1

    while len(pool) >= 3 * k:
        r = pool.farthest(pool.centroid())
        s = pool.farthest(points[r])
        take(r)
        take(s)
    if len(pool) >= 2 * k:
        take(pool.farthest(pool.centroid()))
    if len(pool):
        labels[pool.alive] = cluster
    return labels


def released_columns(frame: pd.DataFrame, qi: Sequence[str], sensitive: str, keep: Sequence[str],
                     source: str) -> list[str]:
    """The columns a construction releases, in the table's order: the quasi-identifiers, the sensitive attribute
    and the other columns named in ``keep``; nothing else is copied (an identifier left in would undo the release).

    Raises
    ------
    DataError
        A column of ``keep`` is not in the table.
    """
    absent = [name for name in keep if name not in frame.columns]
    if absent:
        raise DataError(f"{source}: --keep {absent[0]!r}: no such column; the table has {list(map(str, frame.columns))}")
    wanted = {*qi, sensitive, *keep}
    return [name for name in frame.columns if name in wanted]


def is_code(column: pd.Series) -> bool:
    """Whether a column's values are codes written in digits rather than quantities: every value is a string of
    digits, all of one length of at least 5 (``47810``), or one begins with ``0`` (``02138``).

    >>> is_code(pd.Series(["47810", "47906"])), is_code(pd.Series(["02138", "2139"])), is_code(pd.Series(["31", "45"]))
    (True, True, False)
    """
    values = column.tolist()
    texts = [value for value in values if isinstance(value, str) and value.isascii() and value.isdigit()]
    if not texts or len(texts) != len(values):
        return False
    lengths = {len(text) for text in texts}
    return (len(lengths) == 1 and min(lengths) >= 5) or any(len(t) > 1 and t.startswith("0") for t in texts)


def aggregate(
    frame: pd.DataFrame, qi: Sequence[str], labels: np.ndarray, orders: Orders | None = None
) -> pd.DataFrame:
    """The release: each record's quasi-identifiers replaced by its cluster's centroid.

    Numerical quasi-identifiers take the cluster mean (the aggregate that minimizes the
    SSE for a given partition, Soria-Comas et al. 2015, §2.3); categorical ones take the
    cluster's median category in the declared order (the lower median); a code written in
    digits (:func:`is_code`: a zip code) takes the cluster's lower median code, as written,
    never a mean that is no code (47810.4). Every other column is kept as it is.
    """
    orders = orders or {}
    release = frame.copy()
    groups = pd.Series(labels, index=frame.index)
    for column in qi:
        order = orders.get(column)
        if order is None and is_code(frame[column]):
            numbers = pd.to_numeric(frame[column])
            position = numbers.groupby(groups).transform(lambda r: np.sort(r.to_numpy())[(len(r) - 1) // 2])
            text = dict(zip(numbers.tolist(), frame[column].tolist()))
            release[column] = [text[value] for value in position.tolist()]
        elif order is None:
            numbers = pd.to_numeric(frame[column])
            release[column] = numbers.groupby(groups).transform("mean")
        else:
            ranks = pd.Series(pd.Index(list(order)).get_indexer(frame[column].to_numpy()), index=frame.index)
            median = ranks.groupby(groups).transform(lambda r: np.sort(r.to_numpy())[(len(r) - 1) // 2])
            release[column] = np.asarray(list(order), dtype=object)[median.to_numpy()]
    return release
