"""Count tables: the sufficient statistics of a deterministic release.

Every measure of a deterministic release is a function of the counts
``n[class, value]`` (equivalence class × sensitive value) and their margins
(docs/design.md, "Count tables are sparse"). :func:`count_tables` builds them with one
group-by over the quasi-identifiers (per-column factorization into one integer key) and
one bincount per sensitive attribute; nothing after it touches rows.
:func:`count_tables_from_cells` builds the same tables from counts an engine took
(:mod:`verifier.engines`), keyed by the distinct values as found, which it codes and
checks once per distinct value; :func:`count_tables_from_groups` turns an engine's
group-bys (distinct rows with their counts) into such counts.

Conventions:

* A missing quasi-identifier value is a value of its own: it forms or joins a class,
  and no row is ever dropped.
* A missing sensitive value is an error unless the attribute's ``missing`` policy is
  ``"value"`` (a category of its own, categorical attributes only) or ``"exclude"``
  (the rows leave that attribute's table; they are counted, reported and warned about,
  and still count for the quasi-identifier-only models).
* Row order and index labels never change a result: classes are numbered by first
  appearance (:func:`count_tables`) or in the order of their QI values
  (:func:`count_tables_from_cells`, :func:`qi_order`), but every measure is a function
  of the multiset of classes, ties are broken by QI values, and sensitive values are
  coded in sorted (or declared) order.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from threading import Lock, RLock
from typing import Any, Literal, TypeVar, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from verifier.cpus import usable_cpus
from verifier.errors import DataError, ExcludedRowsWarning, IdentifierColumnWarning, PolicyError, listing
from verifier.results import jsonable

__all__ = ["AttributeSpec", "Classes", "CountTable", "Cells", "DenseCells", "count_tables", "count_tables_from_groups",
           "count_tables_from_cells", "qi_order",
           "first_row", "Locate", "check_columns", "AttributeKind", "Missing"]

AttributeKind = Literal["categorical", "numerical", "ordinal"]
Missing = Literal["error", "value", "exclude"]

_BLOCK_CELLS = 1 << 20

T = TypeVar("T")


@dataclass(frozen=True)
class AttributeSpec:
    """How one sensitive attribute (or a joint combination of several) is read.

    Parameters
    ----------
    columns
        One column, or several for a joint attribute (Domingo-Ferrer & Soria-Comas 2015, §4: the confidential
        attributes taken together as one attribute, over the combinations present).
    kind
        ``categorical`` (unordered), ``numerical`` (ordered by value) or ``ordinal``
        (ordered by ``order``, or by sorting the values when no order is given).
        A joint attribute is categorical.
    missing
        What a missing sensitive value means: ``error`` (the default), ``value`` or
        ``exclude``.
    order
        For ``ordinal``: the categories from lowest to highest. For ``numerical``: a
        declared domain (all values the attribute can take, any order); the ordered
        EMD then runs over this domain instead of the values present in the table.
    """

    columns: tuple[str, ...]
    kind: AttributeKind = "categorical"
    missing: Missing = "error"
    order: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        if not self.columns:
            raise PolicyError("a sensitive attribute needs at least one column")
        if len(self.columns) > 1 and self.kind != "categorical":
            raise PolicyError(
                f"joint attribute {list(self.columns)}: expected kind 'categorical' "
                f"(combinations have no order), found {self.kind!r}"
            )
        if self.missing == "value" and self.kind != "categorical":
            raise PolicyError(
                f"sensitive attribute {self.name!r}: missing = 'value' makes a category of its "
                f"own and applies to categorical attributes only; the {self.kind} attribute "
                "must use 'error' or 'exclude'"
            )

    @property
    def name(self) -> str | tuple[str, ...]:
        """The column name, or the tuple of columns of a joint attribute."""
        return self.columns[0] if len(self.columns) == 1 else self.columns

    @property
    def ordered(self) -> bool:
        return self.kind in ("numerical", "ordinal")


@dataclass(frozen=True)
class Classes:
    """The equivalence classes: one row per distinct quasi-identifier combination.

    Attributes
    ----------
    qi
        The quasi-identifier columns.
    keys
        One row per class (positional index ``0..C-1``), the class's QI values.
    sizes
        ``|E|`` for each class (all rows, whatever any sensitive attribute excludes).
    """

    qi: tuple[str, ...]
    keys: pd.DataFrame
    sizes: np.ndarray

    @property
    def count(self) -> int:
        return int(self.sizes.size)

    @property
    def rows(self) -> int:
        return int(self.sizes.sum())

    @cached_property
    def qi_rank(self) -> np.ndarray:
        """Each class's position in the order of the quasi-identifier values (:func:`qi_order`), computed once.

        Every witness is chosen among tied classes by this order
        (:func:`verifier._exact_max.first_by_qi`), so a release of many classes sorts its
        keys once, not once per model.
        """
        rank = np.empty(self.count, dtype=np.int64)
        rank[qi_order(self.keys, self.qi)] = np.arange(self.count)
        return rank

    def describe(self, index: int) -> dict[str, Any]:
        """The quasi-identifier values of class ``index`` (missing values as ``None``)."""
        row = self.keys.iloc[int(index)]
        return {column: jsonable(row[column]) for column in self.qi}


@dataclass(frozen=True)
class CountTable:
    """Counts ``n[class, value]`` of one sensitive attribute, stored sparse.

    The non-zero cells are ``(class_index[i], value_index[i], count[i])``, sorted by
    class then value. ``values`` lists the attribute's values in code order: sorted,
    or the declared order/domain for ordered attributes (so a declared value may have
    a zero total).

    Attributes
    ----------
    spec
        How the attribute was read.
    classes
        The equivalence classes shared by all attributes.
    values
        The attribute's values in code order (tuples for a joint attribute; ``None``
        stands for the missing category when ``missing = "value"``).
    sizes
        Rows counted per class for this attribute (``|E|`` less excluded rows).
    totals
        Rows counted per value over the whole table.
    excluded
        Rows excluded because their sensitive value is missing (``missing = "exclude"``).
    """

    spec: AttributeSpec
    classes: Classes
    values: tuple[Any, ...]
    class_index: np.ndarray
    value_index: np.ndarray
    count: np.ndarray
    sizes: np.ndarray = field(repr=False)
    totals: np.ndarray = field(repr=False)
    excluded: int = 0
    _derived: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    _derived_locks: dict[str, RLock] = field(default_factory=dict, init=False, repr=False, compare=False)
    _derived_lock: Lock = field(default_factory=Lock, init=False, repr=False, compare=False)

    @property
    def attribute(self) -> str | tuple[str, ...]:
        return self.spec.name

    def derived(self, name: str, build: Callable[[], T]) -> T:
        """What ``build`` derives from this table, built once and shared by every model that asks for ``name``.

        The models of one attribute run on several threads and several of them start from
        the same arrays (the cells grouped by class, the exact ratio terms); the table is
        immutable, so the first to ask builds them and the others asking for the same name
        wait for it (a build may ask for another name: cells before ratio terms).
        """
        with self._derived_lock:
            lock = self._derived_locks.setdefault(name, RLock())
        with lock:  # one lock per name: building one never waits for another being built
            if name not in self._derived:
                self._derived[name] = build()
            return cast("T", self._derived[name])

    def forget_derived(self) -> None:
        """Drop what :meth:`derived` built (a measure does once its models have run: it can be large)."""
        with self._derived_lock:
            self._derived.clear()

    @property
    def n(self) -> int:
        """Rows counted for this attribute."""
        return int(self.totals.sum())

    @property
    def m(self) -> int:
        """Number of values (the size of the attribute's domain in code order)."""
        return len(self.values)

    def blocks(self, max_cells: int = _BLOCK_CELLS) -> Iterator[tuple[int, int, np.ndarray]]:
        """Yield ``(start, stop, counts)`` with dense ``counts[stop-start, m]`` (int64).

        Classes ``start..stop-1`` are covered by each block; blocks cover all classes in
        order and each holds at most ``max_cells`` cells (at least one class).
        """
        per_block = max(1, max_cells // max(1, self.m))
        bounds = np.searchsorted(self.class_index, np.arange(0, self.classes.count + per_block, per_block))
        for number, start in enumerate(range(0, self.classes.count, per_block)):
            stop = min(start + per_block, self.classes.count)
            lo, hi = bounds[number], bounds[number + 1]
            block = np.zeros((stop - start, self.m), dtype=np.int64)
            block[self.class_index[lo:hi] - start, self.value_index[lo:hi]] = self.count[lo:hi]
            yield start, stop, block

    def rows(self, indices: np.ndarray, max_cells: int = _BLOCK_CELLS) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(chunk, counts)``: dense int64 count rows of the classes ``indices``.

        ``indices`` must be sorted and distinct; each chunk holds at most ``max_cells``
        cells (at least one class). Only the cells of the requested classes are read.
        """
        indices = np.asarray(indices, dtype=np.int64)
        per_chunk = max(1, max_cells // max(1, self.m))
        for start in range(0, indices.size, per_chunk):
            chunk = indices[start:start + per_chunk]
            lo, hi = np.searchsorted(self.class_index, [chunk[0], chunk[-1] + 1])
            owners = self.class_index[lo:hi]
            slot = np.minimum(np.searchsorted(chunk, owners), chunk.size - 1)
            keep = chunk[slot] == owners
            out = np.zeros((chunk.size, self.m), dtype=np.int64)
            out[slot[keep], self.value_index[lo:hi][keep]] = self.count[lo:hi][keep]
            yield chunk, out

    def row(self, index: int) -> np.ndarray:
        """Dense counts of class ``index`` over all values (int64, length ``m``)."""
        return next(self.rows(np.array([index])))[1][0]

    def regroup(self, mapping: np.ndarray, labels: Sequence[Any]) -> CountTable:
        """Merge values into buckets: value code ``v`` goes to bucket ``mapping[v]``.

        Returns the count table of the bucketized attribute, with ``labels`` as its
        values (in bucket order).
        """
        mapping = np.asarray(mapping, dtype=np.int64)
        if mapping.shape != (self.m,):
            raise ValueError(f"mapping must give a bucket for each of the {self.m} values, got shape {mapping.shape}")
        buckets = len(labels)
        keys = self.class_index * buckets + mapping[self.value_index]
        cells, inverse = np.unique(keys, return_inverse=True)
        merged = np.bincount(inverse, weights=self.count).astype(np.int64)
        return CountTable(
            spec=self.spec,
            classes=self.classes,
            values=tuple(labels),
            class_index=cells // buckets,
            value_index=cells % buckets,
            count=merged,
            sizes=self.sizes,
            totals=np.bincount(mapping, weights=self.totals, minlength=buckets).astype(np.int64),
            excluded=self.excluded,
        )


def _row_label(frame: pd.DataFrame, position: int) -> str:
    label = frame.index[position]
    return f"row {position + 1} (index label {jsonable(label)!r})"


Locate = Callable[[pd.DataFrame, Sequence[str], np.ndarray], tuple[int, str]]
"""Where the first offending row is: ``locate(frame, columns, mask)`` takes the rows of
``frame`` flagged by ``mask`` (their values of ``columns`` are at fault) and returns the
position in ``frame`` of the offending row that comes first in the release, and how an
error message names that row."""


def first_row(frame: pd.DataFrame, columns: Sequence[str], mask: np.ndarray) -> tuple[int, str]:
    """:data:`Locate` for a frame that is the release itself: the first flagged row."""
    position = int(np.flatnonzero(mask)[0])
    return position, _row_label(frame, position)


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
    _refuse_empty(len(frame), source)
    frame = mixed_as_text(frame, (*qi, *(c for a in attributes for c in a.columns)))

    ids = _class_ids(frame, qi)
    keys = frame.iloc[_first_occurrences(ids)][list(qi)].reset_index(drop=True)
    classes = Classes(qi=qi, keys=keys, sizes=np.bincount(ids, minlength=len(keys)).astype(np.int64))
    if len(frame) > 1 and classes.count == len(frame):
        _flag_identifiers(frame, qi, source)

    tables = tuple(_count(frame, ids, classes, spec, source) for spec in attributes)
    return classes, tables


def count_tables_from_groups(
    groups: Sequence[pa.Table],
    qi: Sequence[str],
    attributes: Sequence[AttributeSpec],
    *,
    count: str,
    source: str = "data",
    locate: Locate = first_row,
) -> tuple[Classes, tuple[CountTable, ...]]:
    """Build the classes and count tables from group-bys done elsewhere (an engine), as Arrow tables.

    Parameters
    ----------
    groups
        One per attribute, in the order of ``attributes`` (one over the quasi-identifiers
        alone when there is no attribute): the distinct combinations of the QI columns and
        the attribute's columns, and their numbers of rows in the column ``count``
        (``SELECT qi..., columns..., COUNT(*) ... GROUP BY qi..., columns...``). Missing
        values are groups of their own, so every group-by covers every row and holds
        every class.
    qi, attributes, source
        As for :func:`count_tables`.
    count
        The name of the count column.
    locate
        Finds the release row that an error message names (the groups hold distinct
        values, not rows).

    Returns
    -------
    (Classes, tuple of CountTable)
        The same as :func:`count_tables` on the rows, except the class numbering: classes
        are numbered in the order of their quasi-identifier values (:func:`qi_order`),
        not by first appearance. No measure depends on the numbering.

    Notes
    -----
    The quasi-identifier values stay in Arrow: each column is coded against the distinct
    values of the first group-by (a hash lookup in Arrow, no Python object per row), the
    codes are combined into class numbers as :func:`count_tables` does, and each
    attribute's distinct values are found in Arrow too; :func:`count_tables_from_cells`
    does the rest.
    """
    qi = tuple(qi)
    weights = [group.column(count).to_numpy().astype(np.int64, copy=False) for group in groups]
    _refuse_empty(int(weights[0].sum()), source)
    dictionaries = [pc.unique(_no_nan(groups[0].column(column))) for column in qi]
    codes = [np.concatenate([_positions(group.column(column), dictionary) for group in groups])
             for column, dictionary in zip(qi, dictionaries, strict=True)]
    bounds = np.cumsum([0] + [group.num_rows for group in groups])
    ids = _combined_ids(zip(codes, map(len, dictionaries), strict=True), int(bounds[-1]))
    first = _first_occurrences(ids[:bounds[1]])
    keys = pa.table({column: dictionary.take(pa.array(column_codes[first]))
                     for column, dictionary, column_codes in zip(qi, dictionaries, codes, strict=True)})
    del codes
    sizes = _sums(ids[:bounds[1]], weights[0], len(first))
    cells = []
    for number, spec in enumerate(attributes):
        group = groups[number].select(list(spec.columns))
        raw = _combined_ids(((encoded.indices.to_numpy(zero_copy_only=False), len(encoded.dictionary))
                             for encoded in (pc.dictionary_encode(column.combine_chunks(), null_encoding="encode")
                                             for column in group.columns)), group.num_rows)
        cells.append(Cells(values=group.take(pa.array(_first_occurrences(raw))), class_index=ids[bounds[number]:bounds[number + 1]],
                           value_index=raw, count=weights[number]))
    return count_tables_from_cells(keys, sizes, cells, qi, attributes, source=source, locate=locate)


@dataclass(frozen=True)
class DenseCells:
    """One attribute's counts as a dense ``class × value`` table, before its values are coded.

    Attributes
    ----------
    values
        The attribute's distinct values as found, as for :class:`Cells`.
    counts
        Rows per (table row, table column), int32 or int64; rows and columns no class or
        value names are empty.
    rows
        Each class's row of ``counts`` (classes in the order of the keys).
    columns
        Each value's column of ``counts`` (values in the order of ``values``).
    """

    values: pa.Table
    counts: np.ndarray
    rows: np.ndarray
    columns: np.ndarray


@dataclass(frozen=True)
class Cells:
    """One attribute's non-empty cells before its values are coded: what an engine counted.

    Attributes
    ----------
    values
        The attribute's distinct values as found (one column per attribute column, one row
        per value; missing values as nulls), not yet parsed, ordered or checked.
    class_index, value_index, count
        Each cell's class (a row of the classes' keys), value (a row of ``values``) and
        number of rows.
    """

    values: pa.Table
    class_index: np.ndarray
    value_index: np.ndarray
    count: np.ndarray


def count_tables_from_cells(
    keys: pa.Table,
    sizes: np.ndarray,
    cells: Sequence[Cells | DenseCells],
    qi: Sequence[str],
    attributes: Sequence[AttributeSpec],
    *,
    source: str = "data",
    locate: Locate = first_row,
) -> tuple[Classes, tuple[CountTable, ...]]:
    """Build the classes and count tables from counts taken elsewhere (an engine), keyed by distinct values.

    Parameters
    ----------
    keys
        One row per class (any numbering): the class's quasi-identifier values.
    sizes
        Rows per class, in the rows' order of ``keys``.
    cells
        One per attribute, in the order of ``attributes``: the cells, or a dense table.
    qi, attributes, source
        As for :func:`count_tables`.
    locate
        Finds the release row that an error message names (the cells hold distinct
        values, not rows).

    Returns
    -------
    (Classes, tuple of CountTable)
        The same as :func:`count_tables` on the rows, except the class numbering: classes
        are numbered in the order of their quasi-identifier values (:func:`qi_order`),
        not by first appearance. No measure depends on the numbering.

    Notes
    -----
    Each attribute's values are coded, parsed and checked once per distinct value by the
    functions of :func:`count_tables`, then the codes are spread over the cells.
    """
    qi = tuple(qi)
    _refuse_empty(int(sizes.sum()), source)
    keys_frame = keys.to_pandas(integer_object_nulls=True)
    order = qi_order(keys_frame, qi)
    renumber = np.empty(len(order), dtype=np.int64)
    renumber[order] = np.arange(len(order))
    found = Classes(qi=qi, keys=keys_frame.iloc[order].reset_index(drop=True), sizes=sizes[order])
    found.__dict__["qi_rank"] = np.arange(found.count)  # the keys are in QI order: no second sort for the rank
    if found.rows > 1 and found.count == found.rows:
        _flag_identifiers(found.keys, qi, source)
    tables = tuple(_count_dense(cell, cell.rows[order], found, spec, source, locate) if isinstance(cell, DenseCells)
                   else _count(cell.values.to_pandas(integer_object_nulls=True), renumber[cell.class_index], found,
                               spec, source, cell.count, locate, raw=cell.value_index)
                   for cell, spec in zip(cells, attributes, strict=True))
    return found, tables


def _refuse_empty(rows: int, source: str) -> None:
    if rows == 0:
        raise DataError(f"{source}: the table has no rows")


def _positions(values: pa.ChunkedArray, dictionary: pa.Array) -> np.ndarray:
    """The position of each value in ``dictionary`` (NULL included), looked up in Arrow."""
    found = pc.index_in(_no_nan(values), value_set=dictionary, skip_nulls=False)
    if found.null_count:
        raise ValueError("every group-by must hold the same classes")
    return found.to_numpy(zero_copy_only=False)


def _no_nan(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Floating-point NaN as a missing value, as pandas reads it (one class for NaN and NULL)."""
    if not pa.types.is_floating(values.type):
        return values
    return pc.if_else(pc.is_nan(values), pa.scalar(None, values.type), values)


def qi_order(keys: pd.DataFrame, qi: Sequence[str]) -> np.ndarray:
    """The positions of ``keys`` sorted by their quasi-identifier values: a row-order-free order of classes.

    Values are compared column by column (in QI order) by the ``repr`` of their JSON
    form, so the order is a function of the values alone. Vectorized: one ``repr`` per
    distinct value of each column, ranked by Arrow (UTF-8 bytes sort as Python compares
    code points; ``repr`` escapes what UTF-8 cannot hold), then ``np.lexsort``.
    """
    ranks = []
    for column in reversed(tuple(qi)):
        codes, uniques = pd.factorize(keys[column], use_na_sentinel=False)
        rank = pc.rank(_json_reprs(uniques), sort_keys="ascending", tiebreaker="first").to_numpy().astype(np.int64) - 1
        ranks.append(rank[codes])
    return np.lexsort(ranks) if ranks else np.arange(len(keys))


_PLAIN_TEXT = r"^[ -&(-\[\]-~]*$"  # printable ASCII but ' and \: its repr is the text in single quotes


def _json_reprs(values: pd.Index) -> pa.Array:
    """``repr(jsonable(value))`` of each of ``values``, as Arrow text.

    Text and integers (missing values among them) are written by Arrow: an integer's
    repr is its decimal digits, text of plain characters (:data:`_PLAIN_TEXT`) is quoted,
    and only other text, or values of other types, goes through Python, one at a time.
    """
    try:
        array = pa.array(values, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        array = None
    if array is not None and pa.types.is_integer(array.type):
        return pc.fill_null(pc.cast(array, pa.string()), "None")
    if array is None or not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        return pa.array([repr(jsonable(v)) for v in values.tolist()], pa.string())  # tolist: no Arrow scalar per value
    quote, empty = pa.scalar("'", array.type), pa.scalar("", array.type)
    quoted = pc.fill_null(pc.binary_join_element_wise(quote, array, quote, empty), "None")
    other = pc.invert(pc.fill_null(pc.match_substring_regex(array, _PLAIN_TEXT), True))
    if not pc.any(other).as_py():
        return quoted
    return pc.replace_with_mask(quoted, other, pa.array([repr(v) for v in array.filter(other).to_pylist()],
                                                        quoted.type))


def _class_ids(frame: pd.DataFrame, qi: Sequence[str]) -> np.ndarray:
    """Number the rows' quasi-identifier combinations by first appearance.

    The group-by, done as pandas does it but with less memory: each column is
    factorized (a missing value is a code of its own), then :func:`_combined_ids`.
    """
    columns = (pd.factorize(frame[column], use_na_sentinel=False) for column in qi)
    return _combined_ids(((codes, len(uniques)) for codes, uniques in columns), len(frame))


def _combined_ids(columns: Iterable[tuple[np.ndarray, int]], rows: int) -> np.ndarray:
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


def _flag_identifiers(frame: pd.DataFrame, qi: Sequence[str], source: str) -> None:
    """Warn about each quasi-identifier that is unique on every row (checked only when every class is a singleton)."""
    for column in qi:
        if frame[column].nunique(dropna=False) == len(frame):
            warnings.warn(
                f"{source}: quasi-identifier {column!r} holds a different value on every one of the {len(frame)} rows: "
                "it looks like a record identifier, which makes every class a single record",
                IdentifierColumnWarning,
                stacklevel=4,
            )


def _first_occurrences(ids: np.ndarray) -> np.ndarray:
    """Row positions where each class first appears (ids are numbered by first appearance)."""
    running = np.maximum.accumulate(ids)
    return np.flatnonzero(np.r_[True, running[1:] > running[:-1]])


def mixed_as_text(frame: pd.DataFrame, columns: Iterable[str]) -> pd.DataFrame:
    """The frame with each named column of mixed Python values read as text, as a CSV file reads it.

    An object column holding ``1``, ``1.0`` and ``True`` would group them as one value
    (Python counts them equal); written to a CSV they are three. A column of text, of one
    numeric type or of booleans is left as it is (numbers keep their type); missing cells
    stay missing.

    >>> mixed_as_text(pd.DataFrame({"q": [1, 1.0, True]}, dtype=object), ["q"])["q"].tolist()
    ['1', '1.0', 'True']
    """
    changed = {}
    for column in dict.fromkeys(columns):
        series = frame[column]
        if series.dtype == object and pd.api.types.infer_dtype(series, skipna=True).startswith("mixed"):
            changed[column] = series.map(lambda v: v if isinstance(v, str) or v is None or v is pd.NA
                                         or (isinstance(v, float) and math.isnan(v)) else str(v))
    return frame.assign(**changed) if changed else frame


def check_columns(names: Sequence[Any], qi: Sequence[str], attributes: Sequence[AttributeSpec], source: str) -> None:
    """Require at least one quasi-identifier and every named column among the table's ``names``, once, by text.

    Raises
    ------
    PolicyError
        No quasi-identifier.
    DataError
        A column is absent (the message lists the table's columns), a named column's name
        is not text or two columns have the name of a named one.
    """
    if not tuple(qi):
        raise PolicyError(f"{source}: at least one quasi-identifier column is needed")
    wanted = tuple(dict.fromkeys(tuple(qi) + tuple(c for a in attributes for c in a.columns)))
    odd = next((name for name in wanted if not isinstance(name, str)), None)
    if odd is not None:
        raise DataError(f"{source}: column name {odd!r} is of type {type(odd).__name__}; expected text, as a CSV header is "
                        "(rename the columns: frame.columns = frame.columns.astype(str))")
    names = list(names)
    repeated = next((name for name in wanted if names.count(name) > 1), None)
    if repeated is not None:
        raise DataError(f"{source}: {names.count(repeated)} columns are named {repeated!r}; expected each named "
                        "column once")
    present = set(names)
    missing = [c for c in dict.fromkeys(tuple(qi) + tuple(c for a in attributes for c in a.columns)) if c not in present]
    if missing:
        spaced = [f"{name!r} (the table has {name.strip()!r}; names are read as written, spaces included)"
                  for name in missing if isinstance(name, str) and name.strip() != name and name.strip() in present]
        hint = f"; {', '.join(spaced)}" if spaced else ""
        raise DataError(f"{source}: column(s) {missing} not found; the table has columns {listing(map(str, names), 50)}{hint}")


def _codes(frame: pd.DataFrame, spec: AttributeSpec, source: str,
           locate: Locate = first_row) -> tuple[np.ndarray, tuple[Any, ...]]:
    """Code the attribute's values: ``-1`` marks a missing value."""
    if len(spec.columns) > 1:
        parts = [_codes(frame, AttributeSpec((c,), missing=spec.missing), source, locate) for c in spec.columns]
        missing = np.zeros(len(frame), dtype=bool)
        combined = np.zeros(len(frame), dtype=np.int64)
        for codes, uniques in parts:
            missing |= codes < 0
            # mixed radix, renumbered densely after every column: the key stays below N·(values + 1),
            # so no product of the columns' cardinalities can overflow int64
            combined = np.unique(combined * (len(uniques) + 1) + (codes + 1), return_inverse=True)[1].reshape(-1)
        _, first, inverse = np.unique(combined[~missing], return_index=True, return_inverse=True)
        out = np.full(len(frame), -1, dtype=np.int64)
        out[~missing] = inverse.reshape(-1)
        rows = np.flatnonzero(~missing)[first]
        return out, tuple(tuple(uniques[codes[row]] for codes, uniques in parts) for row in rows.tolist())

    column = spec.columns[0]
    series = frame[column]
    if spec.kind == "numerical":
        series = _exact_numbers(frame, series, column, source, locate)
    if spec.order is not None:
        domain = spec.order if spec.kind == "ordinal" else tuple(sorted(spec.order))
        # an order is matched by text (a Parquet integer 3 is the declared "3"), a domain by exact value
        ordinal = spec.kind == "ordinal"
        index = pd.Index([str(v) if ordinal else v for v in domain], dtype=object)
        if index.has_duplicates:
            raise PolicyError(f"sensitive attribute {column!r}: the declared order/domain repeats a value")
        present, uniques = pd.factorize(series, use_na_sentinel=True)
        keys = pd.Index([str(v) if ordinal else v for v in uniques.tolist()], dtype=object)
        positions = np.append(index.get_indexer(keys).astype(np.int64), -1)
        codes = positions[present]
        outside = (codes < 0) & (present >= 0)
        if outside.any():
            position, where = locate(frame, (column,), outside)
            raise DataError(
                f"{source}: column {column!r}, {where}: value "
                f"{jsonable(series.iloc[position])!r} is not in the declared {'order' if spec.kind == 'ordinal' else 'domain'} "
                f"{listing(domain)}"
            )
        return codes, tuple(domain)
    try:
        if isinstance(series.dtype, pd.CategoricalDtype):
            series = series.cat.remove_unused_categories()
            series = series.cat.reorder_categories(sorted(series.cat.categories))
        codes, uniques = pd.factorize(series, sort=True)
    except TypeError:
        codes, uniques = pd.factorize(series.astype(str).where(series.notna()), sort=True)
    return codes.astype(np.int64), tuple(uniques.tolist())


_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def exact_number(text: str) -> int | Decimal | None:
    """A numerical cell's exact value: an ``int`` or an exact ``Decimal``, at any length.

    Text is parsed as written (no float rounding: ``9007199254740993`` and
    ``9007199254740992`` stay distinct; no context rounding either:
    ``1.00000000000000000000000000001`` is not ``1`` and ``1e-1000030`` is not ``0``);
    ``None`` when the text is not a finite decimal number (``inf``, ``nan``, ``1,5``,
    ``12 kg``). Whitespace is data, so `` 5`` is not a number. Trailing zeros are dropped
    (``2.50`` is ``2.5``); an integral value is an ``int`` unless it has more than
    :data:`INTEGER_DIGITS` digits (``1e999999999`` stays a ``Decimal``: no such integer is
    ever built).

    Examples
    --------
    >>> exact_number("02138"), exact_number("2.50"), exact_number("1e3"), exact_number("inf")
    (2138, Decimal('2.5'), 1000, None)
    >>> exact_number("1.00000000000000000000000000001"), exact_number("1e999999999")
    (Decimal('1.00000000000000000000000000001'), Decimal('1E+999999999'))
    """
    if _NUMBER.fullmatch(text) is None:
        return None
    sign, digits, exponent = Decimal(text).as_tuple()
    assert isinstance(exponent, int)
    coefficient = "".join(map(str, digits)).lstrip("0")
    significant = coefficient.rstrip("0")
    if not significant:
        return 0
    exponent += len(coefficient) - len(significant)
    if exponent >= 0 and len(significant) + exponent <= INTEGER_DIGITS:
        return (-1) ** sign * int(significant) * 10 ** exponent
    return Decimal((sign, tuple(map(int, significant)), exponent))


INTEGER_DIGITS = 4000
"""The most digits a numerical cell's value has as an ``int``; longer integers stay exact ``Decimal`` values."""


def _exact_cell(cell: Any) -> int | Decimal | None:
    """A numerical cell of a text or object column (CSV text, Parquet decimal or big integer), exactly."""
    if isinstance(cell, str):
        return exact_number(cell)
    if isinstance(cell, Decimal):
        return exact_number(str(cell)) if cell.is_finite() else None
    return int(cell) if isinstance(cell, int) and not isinstance(cell, bool) else None


def _exact_numbers(frame: pd.DataFrame, series: pd.Series, column: str, source: str,
                   locate: Locate = first_row) -> pd.Series:
    """A numerical column's values, exact: text parsed by :func:`exact_number`, numbers checked finite.

    Each distinct value is parsed once.
    """
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        finite = np.isfinite(series.to_numpy(dtype=float, na_value=0.0))
        if not finite.all():
            position, where = locate(frame, (column,), ~finite)
            raise DataError(f"{source}: column {column!r} is declared numerical but {where} "
                            f"holds {series.iloc[position]!r}; expected a finite number")
        return series
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    parsed = [_exact_cell(cell) for cell in uniques.tolist()]
    bad = [index for index, value in enumerate(parsed) if value is None]
    if bad:
        position, where = locate(frame, (column,), np.isin(codes, bad))
        raise DataError(f"{source}: column {column!r} is declared numerical but {where} "
                        f"holds {series.iloc[position]!r}; expected a finite decimal number such as 12, -3.5 or 1e6")
    values = np.empty(len(parsed) + 1, dtype=object)
    values[:-1] = parsed
    values[-1] = None
    return pd.Series(values[codes], index=series.index, dtype=object)


def _value_codes(frame: pd.DataFrame, spec: AttributeSpec, source: str, locate: Locate,
                 absent: Callable[[np.ndarray], int]) -> tuple[np.ndarray, tuple[Any, ...], int]:
    """The attribute's code of each row of ``frame`` under its ``missing`` policy (``-1``: excluded), its values
    in code order, and the rows excluded; ``absent(mask)`` is the number of release rows the rows ``mask`` stand for.
    """
    codes, values = _codes(frame, spec, source, locate)
    missing = codes < 0
    excluded = 0
    if missing.any():
        name = spec.name if isinstance(spec.name, str) else list(spec.name)
        count = absent(missing)
        if spec.missing == "error":
            _, where = locate(frame, spec.columns, missing)
            raise DataError(
                f"{source}: sensitive attribute {name!r} has {count} missing value(s), "
                f"the first at {where}; set missing = \"value\" (a category of "
                "its own) or missing = \"exclude\" for this attribute in the policy"
            )
        if spec.missing == "value":
            codes = np.where(missing, len(values), codes)
            values = values + (None,)
        else:
            excluded = count
            warnings.warn(
                f"{source}: {excluded} row(s) with a missing value of {name!r} excluded from its measures "
                "(missing = \"exclude\")",
                ExcludedRowsWarning,
                stacklevel=4,
            )
    if not values:
        raise DataError(f"{source}: sensitive attribute {spec.name!r} has no non-missing value")
    return codes, values, excluded


def _count(frame: pd.DataFrame, ids: np.ndarray, classes: Classes, spec: AttributeSpec, source: str,
           weights: np.ndarray | None = None, locate: Locate = first_row, raw: np.ndarray | None = None) -> CountTable:
    """One attribute's count table from rows (``weights`` = None) or from cells with their counts.

    ``raw``: each cell's row of ``frame``, when ``frame`` holds the distinct values (coded
    once each) rather than one row per cell.
    """
    def absent(mask: np.ndarray) -> int:
        mask = mask if raw is None else mask[raw]
        return int(mask.sum()) if weights is None else int(weights[mask].sum())

    codes, values, excluded = _value_codes(frame, spec, source, locate, absent)
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
    class_index = cells // m
    return CountTable(
        spec=spec,
        classes=classes,
        values=values,
        class_index=class_index,
        value_index=cells % m,
        count=counts,
        sizes=_sums(class_index, counts, classes.count),
        totals=_sums(cells % m, counts, m),
        excluded=excluded,
    )


def _count_dense(cells: DenseCells, rows: np.ndarray, classes: Classes, spec: AttributeSpec, source: str,
                 locate: Locate) -> CountTable:
    """One attribute's count table from a dense table of counts: ``rows`` are its rows in the order of the classes.

    The table is read in blocks of classes (at most :data:`_BLOCK_CELLS` cells each), on
    :func:`~verifier.cpus.usable_cpus` threads when there are several: numpy's gathers
    release the interpreter.
    """
    frame = cells.values.to_pandas(integer_object_nulls=True)
    codes, values, excluded = _value_codes(frame, spec, source, locate,
                                           lambda mask: int(cells.counts[:, cells.columns[mask]].sum()))
    m = len(values)
    kept = np.flatnonzero(codes >= 0)
    by_code = kept[np.argsort(codes[kept], kind="stable")]
    starts = np.flatnonzero(np.r_[True, np.diff(codes[by_code]) != 0])
    targets, columns = codes[by_code][starts], cells.columns[by_code]
    merged = starts.size < columns.size  # values written two ways (2.50 and 2.5) share a code
    spread = not np.array_equal(targets, np.arange(m))  # a declared value no row holds
    in_order = np.array_equal(columns, np.arange(columns.size))  # the table's columns already in code order
    per_block = max(1, _BLOCK_CELLS // max(m, columns.size))

    def block(start: int) -> tuple[np.ndarray, ...]:
        """The block's cells (class, value, count), its classes' sizes and its values' totals."""
        chosen = rows[start:start + per_block]
        dense = np.take(cells.counts[:, :columns.size], chosen, axis=0) if in_order else \
            cells.counts[np.ix_(chosen, columns)]
        if merged:
            dense = np.add.reduceat(dense, starts, axis=1)
        if spread:
            dense, found = np.zeros((dense.shape[0], m), dtype=np.int64), dense
            dense[:, targets] = found
        flat = dense.reshape(-1)
        nonzero = np.flatnonzero(flat)
        owner, value = np.divmod(nonzero, m)
        return owner + start, value, flat[nonzero].astype(np.int64), dense.sum(axis=1), dense.sum(axis=0)

    firsts = range(0, rows.size, per_block)
    if len(firsts) > 1:
        with ThreadPoolExecutor(usable_cpus()) as pool:
            found = list(pool.map(block, firsts))
    else:
        found = [block(first) for first in firsts]
    class_index, value_index, count, sizes = (np.concatenate([part[i] for part in found] or [np.empty(0, np.int64)])
                                              for i in range(4))
    totals = np.zeros(m, dtype=np.int64)
    for part in found:
        totals += part[4]
    return CountTable(
        spec=spec,
        classes=classes,
        values=values,
        class_index=class_index,
        value_index=value_index,
        count=count,
        sizes=sizes,
        totals=totals,
        excluded=excluded,
    )


_DENSE_CELLS = 1 << 24


def _cell_counts(keys: np.ndarray, weights: np.ndarray | None, cells: int) -> tuple[np.ndarray, np.ndarray]:
    """The non-empty cells among ``0..cells-1`` in order, and their counts (rows, or summed ``weights``), int64.

    Counted densely, :data:`_DENSE_CELLS` cells at a time (a bincount per block: no sort,
    bounded memory), when the cells are at most 8 times the keys; otherwise by sorting
    the keys.
    """
    blocks = -(-cells // _DENSE_CELLS)
    if cells > 8 * len(keys):
        if weights is None:
            found, counts = np.unique(keys, return_counts=True)
            return found, counts.astype(np.int64)
        found, inverse = np.unique(keys, return_inverse=True)
        return found, _sums(inverse, weights, found.size)
    found_cells, found_counts = [], []
    for start in range(0, cells, _DENSE_CELLS):
        stop = min(start + _DENSE_CELLS, cells)
        inside = (keys >= start) & (keys < stop) if blocks > 1 else slice(None)
        part = keys[inside] - start
        dense = np.bincount(part, minlength=stop - start) if weights is None else \
            _sums(part, weights[inside], stop - start)
        nonzero = np.flatnonzero(dense)
        found_cells.append(nonzero + start)
        found_counts.append(dense[nonzero].astype(np.int64))
    return np.concatenate(found_cells), np.concatenate(found_counts)


def _sums(index: np.ndarray, counts: np.ndarray, length: int) -> np.ndarray:
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
