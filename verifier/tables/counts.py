"""Count tables: the sufficient statistics of a deterministic release.

Every measure of a deterministic release is a function of the counts
``n[class, value]`` (equivalence class × sensitive value) and their margins
(docs/design.md, "Count tables are sparse"). This module holds what they are: how an
attribute is read (:class:`AttributeSpec`), the equivalence classes (:class:`Classes`),
one attribute's counts (:class:`CountTable`) and the row-order-free order of classes
(:func:`qi_order`). They are built from rows by :func:`verifier.tables.counting.count_tables`
and from what an engine counted by :mod:`verifier.tables.engine_counts`; an attribute's
values are read by :mod:`verifier.tables.values`.

Conventions:

* A missing quasi-identifier value is a value of its own: it forms or joins a class,
  and no row is ever dropped.
* A missing sensitive value is an error unless the attribute's ``missing`` policy is
  ``"value"`` (a category of its own, categorical attributes only) or ``"exclude"``
  (the rows leave that attribute's table; they are counted, reported and warned about,
  and still count for the quasi-identifier-only models).
* Row order and index labels never change a result: classes are numbered by first
  appearance (from rows) or in the order of their QI values (from an engine's counts,
  :func:`qi_order`), but every measure is a function of the multiset of classes, ties
  are broken by QI values, and sensitive values are coded in sorted (or declared) order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from threading import Lock, RLock
from typing import Any, Literal, TypeVar, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from verifier.errors import PolicyError
from verifier.results import jsonable

__all__ = ["WeightsSpec", "AttributeSpec", "Classes", "CountTable", "qi_order", "AttributeKind", "Missing", "BLOCK_CELLS"]

AttributeKind = Literal["categorical", "numerical", "ordinal"]
Missing = Literal["error", "value", "exclude"]

BLOCK_CELLS = 1 << 20
"""The most cells of a dense block of counts (:meth:`CountTable.blocks`)."""

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
class WeightsSpec(AttributeSpec):
    """The release's column of sampling weights, counted as a numerical attribute beside the sensitive ones
    (individual risk sums it per class); its errors speak of weights."""

    kind: AttributeKind = "numerical"


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

    def blocks(self, max_cells: int = BLOCK_CELLS) -> Iterator[tuple[int, int, np.ndarray]]:
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

    def rows(self, indices: np.ndarray, max_cells: int = BLOCK_CELLS) -> Iterator[tuple[np.ndarray, np.ndarray]]:
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
