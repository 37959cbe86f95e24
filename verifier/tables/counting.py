"""Counting rows: the classes and count tables of a table in memory.

:func:`count_tables` builds them with one group-by over the quasi-identifiers
(per-column factorization into one integer key, :func:`combined_ids`) and one bincount
per sensitive attribute (:func:`count_attribute`); nothing after it touches rows. The
same kernel counts the distinct values an engine found (:mod:`verifier.tables.engine_counts`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from verifier.errors import DataError, IdentifierColumnWarning
from verifier.tables.counts import AttributeSpec, Classes, CountTable
from verifier.tables.distinct import run_starts, sorted_runs, weighted_sort
from verifier.tables.values import Locate, check_columns, first_row, mixed_as_text, refuse_complex, value_codes

__all__ = ["count_tables", "count_attribute", "combined_ids", "first_occurrences", "flag_identifiers", "refuse_empty",
           "sums"]


def count_tables(
    frame: pd.DataFrame,
    qi: Sequence[str],
    attributes: Sequence[AttributeSpec],
    *,
    source: str = "data",
) -> tuple[Classes, tuple[CountTable, ...]]:
    """Build the classes and one count table per sensitive attribute.

    Parameters
    ----------
    frame
        The released table.
    qi
        Quasi-identifier columns (at least one).
    attributes
        Sensitive attributes to count.
    source
        Name of the file the frame came from, used in error messages.

    Returns
    -------
    (Classes, tuple of CountTable)

    Raises
    ------
    DataError
        A named column is absent, a numerical column holds text, a value lies outside
        a declared order, or a sensitive value is missing under ``missing = "error"``.
    """
    qi = tuple(qi)
    check_columns(frame.columns, qi, attributes, source)
    refuse_empty(len(frame), source)
    named = (*qi, *(c for a in attributes for c in a.columns))
    refuse_complex(frame, named, source)
    frame = mixed_as_text(frame, named)

    ids = _class_ids(frame, qi)
    keys = frame.iloc[first_occurrences(ids)][list(qi)].reset_index(drop=True)
    classes = Classes(qi=qi, keys=keys, sizes=np.bincount(ids, minlength=len(keys)).astype(np.int64))
    if len(frame) > 1 and classes.count == len(frame):
        flag_identifiers(frame, qi, source)

    tables = tuple(count_attribute(frame, ids, classes, spec, source) for spec in attributes)
    return classes, tables


def refuse_empty(rows: int, source: str) -> None:
    if rows == 0:
        raise DataError(f"{source}: the table has no rows")


def _class_ids(frame: pd.DataFrame, qi: Sequence[str]) -> np.ndarray:
    """Number the rows' quasi-identifier combinations by first appearance.

    The group-by, done as pandas does it but with less memory: each column is
    factorized (a missing value is a code of its own), then :func:`combined_ids`.
    """
    columns = (pd.factorize(frame[column], use_na_sentinel=False) for column in qi)
    return combined_ids(((codes, len(uniques)) for codes, uniques in columns), len(frame))


def combined_ids(columns: Iterable[tuple[np.ndarray, int]], rows: int) -> np.ndarray:
    """Number the rows' combinations of column codes (``codes``, ``radix``) by first appearance.

    The codes are combined into one mixed-radix int64 key, re-compressed whenever the
    radix product could overflow, and the key is factorized once more.
    """
    key = np.zeros(rows, dtype=np.int64)
    radix = 1
    for codes, size in columns:
        if radix * max(size, 1) >= 1 << 62:
            compressed, distinct = pd.factorize(key)
            key, radix = compressed.astype(np.int64, copy=False), len(distinct)
        key *= size
        key += codes
        radix *= max(size, 1)
    ids, _ = pd.factorize(key)
    return ids.astype(np.int64, copy=False)


def flag_identifiers(frame: pd.DataFrame, qi: Sequence[str], source: str) -> None:
    """Warn about each quasi-identifier that is unique on every row (checked only when every class is a singleton)."""
    for column in qi:
        if frame[column].nunique(dropna=False) == len(frame):
            warnings.warn(
                f"{source}: quasi-identifier {column!r} holds a different value on every one of the {len(frame)} rows: "
                "it looks like a record identifier, which makes every class a single record",
                IdentifierColumnWarning,
                stacklevel=4,
            )


def first_occurrences(ids: np.ndarray) -> np.ndarray:
    """Row positions where each class first appears (ids are numbered by first appearance; none when there is no row)."""
    if not ids.size:
        return np.zeros(0, dtype=np.int64)
    running = np.maximum.accumulate(ids)
    return np.flatnonzero(np.r_[True, running[1:] > running[:-1]])


def count_attribute(frame: pd.DataFrame, ids: np.ndarray, classes: Classes, spec: AttributeSpec, source: str,
           weights: np.ndarray | None = None, locate: Locate = first_row, raw: np.ndarray | None = None) -> CountTable:
    """One attribute's count table from rows (``weights`` = None) or from cells with their counts.

    ``raw``: each cell's row of ``frame``, when ``frame`` holds the distinct values (coded
    once each) rather than one row per cell.
    """
    def absent(mask: np.ndarray) -> int:
        mask = mask if raw is None else mask[raw]
        return int(mask.sum()) if weights is None else int(weights[mask].sum())

    codes, values, excluded = value_codes(frame, spec, source, locate, absent)
    if raw is not None:
        codes = codes[raw]
    if excluded:
        kept = codes >= 0
        ids, codes = ids[kept], codes[kept]
        weights = None if weights is None else weights[kept]
    m = len(values)
    keys = ids * m
    keys += codes
    del codes
    cells, counts = _cell_counts(keys, weights, classes.count * m)
    del keys
    class_index, value_index = np.divmod(cells, m)
    return CountTable(
        spec=spec,
        classes=classes,
        values=values,
        class_index=class_index,
        value_index=value_index,
        count=counts,
        sizes=sums(class_index, counts, classes.count),
        totals=sums(value_index, counts, m),
        excluded=excluded,
    )


_DENSE_CELLS = 1 << 24

_DENSE_BLOCKS = 8
"""The most blocks of :data:`_DENSE_CELLS` cells counted densely: each block reads every key once more (about
8.5 ns a key), and past about ten blocks a sort of the keys (about 90 ns a key) costs less."""


def _cell_counts(keys: np.ndarray, weights: np.ndarray | None, cells: int) -> tuple[np.ndarray, np.ndarray]:
    """The non-empty cells among ``0..cells-1`` in order, and their counts (rows, or summed ``weights``), int64.

    Counted densely, :data:`_DENSE_CELLS` cells at a time (a bincount per block: no sort,
    bounded memory), when the cells are at most 8 times the keys and at most
    :data:`_DENSE_BLOCKS` blocks; otherwise by sorting the keys (with their weights:
    :func:`~verifier.tables.distinct.weighted_sort`).
    """
    blocks = -(-cells // _DENSE_CELLS)
    if cells > 8 * len(keys) or blocks > _DENSE_BLOCKS:
        if weights is None:
            found, counts = sorted_runs(keys)
            return found, counts.astype(np.int64)
        weights = np.asarray(weights, dtype=np.int64)
        if not keys.size:
            return keys, np.zeros(0, dtype=np.int64)
        steps = np.diff(keys)
        if bool(np.all(steps > 0)):  # distinct cells in order (an engine's, by class and value): counted as they are
            return keys, weights
        if not bool(np.all(steps >= 0)):  # cells in order, some repeated, are not sorted
            runs = int(np.count_nonzero(steps < 0)) < len(keys) // 16  # a few sorted runs (a batch's, a class's)
            keys, weights = weighted_sort(keys, weights, cells, runs=runs)
        del steps
        starts = run_starts(keys)
        return keys[starts], np.add.reduceat(weights, starts)
    found_cells, found_counts = [], []
    for start in range(0, cells, _DENSE_CELLS):
        stop = min(start + _DENSE_CELLS, cells)
        inside = (keys >= start) & (keys < stop) if blocks > 1 else slice(None)
        part = keys[inside] - start
        dense = np.bincount(part, minlength=stop - start) if weights is None else \
            sums(part, weights[inside], stop - start)
        nonzero = np.flatnonzero(dense)
        found_cells.append(nonzero + start)
        found_counts.append(dense[nonzero].astype(np.int64))
    return np.concatenate(found_cells), np.concatenate(found_counts)


def sums(index: np.ndarray, counts: np.ndarray, length: int) -> np.ndarray:
    """``out[i] = sum of counts where index == i``, in exact int64.

    Counts are non-negative; while their total is below 2^53 every partial sum is an
    integer that float64 holds exactly, so one weighted bincount is exact; past it, int64
    sums (``np.add.at``).
    """
    if int(counts.sum()) < 1 << 53:
        return np.bincount(index, weights=counts, minlength=length).astype(np.int64)
    out = np.zeros(length, dtype=np.int64)
    np.add.at(out, index, counts)
    return out
