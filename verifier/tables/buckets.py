"""Bucketizations of a sensitive attribute's values, for multiplicative t-closeness.

Multiplicative t-closeness (Domingo-Ferrer & Soria-Comas 2015, Definition 4) is infinite as
soon as a class lacks a value that the table holds, so it is measured on buckets of
values (Domingo-Ferrer & Soria-Comas 2015, §6). A bucketing turns the values of a :class:`~verifier.tables.counts.CountTable`
(in code order) into a bucket code per value and a label per bucket, the arguments of
:meth:`CountTable.regroup`:

* :class:`DistinctValues`: one bucket per value (the default; no regrouping).
* :class:`Ranges`: declared half-open ranges ``[lo, hi)`` of a numerical or ordinal
  attribute (``None`` for an unbounded side); every value must fall in exactly one.
* :class:`Groups`: declared groups of values of any attribute; every value must be in
  exactly one group. Values are matched by their text form ``str(value)``.
* :class:`EqualFrequency`: Domingo-Ferrer & Soria-Comas 2015, §6.1–6.2 for a level ``t``: ``t + 1`` buckets of
  consecutive values, each holding as close as possible to ``N / (t + 1)`` records.

>>> from verifier.tables.counts import AttributeSpec
>>> from verifier.tables.counting import count_tables
>>> import pandas as pd
>>> frame = pd.DataFrame({"q": [0] * 6, "x": [1, 2, 2, 3, 4, 5]})
>>> _, (table,) = count_tables(frame, ["q"], [AttributeSpec(("x",), kind="numerical")])
>>> EqualFrequency(2).assign(table)
(array([0, 0, 1, 2, 2]), ('[1, 2]', '[3, 3]', '[4, 5]'))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from verifier.errors import DataError, PolicyError
from verifier.tables.counts import CountTable

__all__ = ["Bucketing", "DistinctValues", "Ranges", "Groups", "EqualFrequency", "bucketize"]


@dataclass(frozen=True)
class DistinctValues:
    """One bucket per value: the empirical distribution itself (Domingo-Ferrer & Soria-Comas 2015, Proposition 2)."""

    def assign(self, table: CountTable) -> tuple[np.ndarray, tuple[Any, ...]]:
        return np.arange(table.m, dtype=np.int64), table.values

    @property
    def parameters(self) -> dict[str, Any]:
        return {"bucketing": "distinct values"}


@dataclass(frozen=True)
class Ranges:
    """Declared half-open ranges ``[lo, hi)``; ``None`` leaves a side unbounded.

    Bounds of a numerical attribute compare as numbers; bounds of an ordinal attribute
    with a declared order compare by their position in that order (so they must be
    values of the order), otherwise by the values' natural order.
    """

    intervals: tuple[tuple[Any, Any], ...]

    def __post_init__(self) -> None:
        if not self.intervals:
            raise PolicyError("ranges: expected at least one range [lo, hi), found none")
        for interval in self.intervals:
            if len(interval) != 2:
                raise PolicyError(f"ranges: expected [lo, hi] pairs, found {list(interval)!r}")

    @classmethod
    def from_edges(cls, edges: Sequence[Any]) -> Ranges:
        """Consecutive ranges ``[e0, e1), [e1, e2), ...`` from strictly increasing edges."""
        if len(edges) < 2:
            raise PolicyError(f"range edges: expected at least 2 edges, found {list(edges)!r}")
        for i in range(1, len(edges)):
            if not edges[i - 1] < edges[i]:
                raise PolicyError(
                    f"range edges: expected strictly increasing edges, found {edges[i - 1]!r} then {edges[i]!r} "
                    f"at positions {i - 1} and {i}"
                )
        return cls(tuple(zip(edges[:-1], edges[1:])))

    def assign(self, table: CountTable) -> tuple[np.ndarray, tuple[Any, ...]]:
        if not table.spec.ordered:
            raise PolicyError(
                f"attribute {table.attribute!r}: ranges need a numerical or ordinal attribute, found {table.spec.kind!r}"
            )
        labels = tuple(_range_label(lo, hi) for lo, hi in self.intervals)
        if table.spec.kind == "ordinal" and table.spec.order is not None:
            keys = np.arange(table.m)
            bounds = [tuple(None if b is None else _position(table, b) for b in pair) for pair in self.intervals]
        else:
            keys = np.array(table.values, dtype=object)
            bounds = list(self.intervals)
        inside = np.zeros((table.m, len(bounds)), dtype=bool)
        for j, (lo, hi) in enumerate(bounds):
            if lo is not None and hi is not None and not lo < hi:
                raise PolicyError(f"attribute {table.attribute!r}: range {labels[j]} is empty; expected lo < hi")
            inside[:, j] = (True if lo is None else keys >= lo) & (True if hi is None else keys < hi)
        _require_one_each(table, inside, labels, "range")
        return np.argmax(inside, axis=1).astype(np.int64), labels

    @property
    def parameters(self) -> dict[str, Any]:
        return {"bucketing": "ranges", "ranges": [_range_label(lo, hi) for lo, hi in self.intervals]}


@dataclass(frozen=True)
class Groups:
    """Declared groups of values: ``(name, values)`` pairs, in bucket order."""

    groups: tuple[tuple[str, tuple[Any, ...]], ...]

    def __post_init__(self) -> None:
        if not self.groups:
            raise PolicyError("groups: expected at least one group, found none")
        seen: dict[str, str] = {}
        for name, values in self.groups:
            if not values:
                raise PolicyError(f"group {name!r}: expected at least one value, found none")
            for value in values:
                other = seen.setdefault(str(value), name)
                if other != name:
                    raise PolicyError(f"value {value!r} is listed in group {other!r} and in group {name!r}")

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Sequence[Any]]) -> Groups:
        """Groups from ``{name: [values]}`` (bucket order = mapping order)."""
        return cls(tuple((str(name), tuple(values)) for name, values in mapping.items()))

    def assign(self, table: CountTable) -> tuple[np.ndarray, tuple[Any, ...]]:
        group_of = {value: j for j, (_, values) in enumerate(self.groups) for value in values}
        labels = tuple(name for name, _ in self.groups)
        inside = np.zeros((table.m, len(labels)), dtype=bool)
        for i, value in enumerate(table.values):
            if value is None:
                continue
            group = group_of.get(value, group_of.get(str(value)))
            if group is not None:
                inside[i, group] = True
        _require_one_each(table, inside, labels, "group")
        return np.argmax(inside, axis=1).astype(np.int64), labels

    @property
    def parameters(self) -> dict[str, Any]:
        return {"bucketing": "groups", "groups": {name: list(values) for name, values in self.groups}}


@dataclass(frozen=True)
class EqualFrequency:
    """The bucketization of Domingo-Ferrer & Soria-Comas 2015, §6.1–6.2 for a target level ``t``.

    ``b = t + 1`` buckets of consecutive values (code order). Domingo-Ferrer & Soria-Comas 2015, §6.2 cuts the sorted
    *records* at ``⌊j·N/(t+1) + 0.5⌋`` for ``j = 1..t``; here the ``j``-th cut goes after
    the value whose cumulative count ``C`` is nearest to ``j·N/(t+1)`` (ties to the
    larger ``C``, as the paper's rounding), so a value's records are never split
    between buckets. When all values are distinct this is the paper's construction.
    Cuts that coincide, or that would leave a bucket without records, are dropped, so
    fewer than ``t + 1`` buckets come out when a few values hold most records.
    """

    t: int

    def __post_init__(self) -> None:
        if isinstance(self.t, bool) or not isinstance(self.t, (int, np.integer)) or self.t < 1:
            raise PolicyError(f"equal_frequency: expected a positive integer t, found {self.t!r}")

    def assign(self, table: CountTable) -> tuple[np.ndarray, tuple[Any, ...]]:
        if not table.spec.ordered:
            raise PolicyError(
                f"attribute {table.attribute!r}: equal-frequency buckets need a numerical or ordinal attribute, "
                f"found {table.spec.kind!r}"
            )
        b, n = int(self.t) + 1, table.n
        cumulative = [0, *np.cumsum(table.totals).tolist()]
        cuts = set()
        # The targets j·N/(t+1), j = 1..t, scaled by t + 1 to the integers j·N. Between two consecutive
        # distinct scaled cumulative counts lo < hi, a target at or above their midpoint picks hi's
        # first position, one below it lo's first position: each gap is settled by its smallest and
        # largest target, so the work is linear in the values, however large t is.
        first: dict[int, int] = {}
        for position, count in enumerate(cumulative):
            first.setdefault(count, position)
        counts = sorted(first)
        for lo, hi in zip(counts[:-1], counts[1:]):
            smallest, largest = max(lo * b // n + 1, 1), min(hi * b // n, b - 1)
            if smallest > largest:
                continue
            if 2 * largest * n >= (lo + hi) * b:
                cuts.add(first[hi])
            if 2 * smallest * n < (lo + hi) * b:
                cuts.add(first[lo])
        cuts = {pick for pick in cuts if 0 < cumulative[pick] < n}
        edges = [0, *sorted(cuts), table.m]
        mapping = np.searchsorted(np.array(sorted(cuts), dtype=np.int64), np.arange(table.m), side="right")
        labels = tuple(f"[{table.values[lo]}, {table.values[hi - 1]}]" for lo, hi in zip(edges[:-1], edges[1:]))
        return mapping.astype(np.int64), labels

    @property
    def parameters(self) -> dict[str, Any]:
        return {"bucketing": "equal_frequency", "t": int(self.t)}


Bucketing = DistinctValues | Ranges | Groups | EqualFrequency


def bucketize(table: CountTable, bucketing: Bucketing) -> CountTable:
    """The count table of the bucketized attribute (the table itself for distinct values)."""
    if isinstance(bucketing, DistinctValues):
        return table
    mapping, labels = bucketing.assign(table)
    return table.regroup(mapping, labels)


def _range_label(lo: Any, hi: Any) -> str:
    return f"{'(-inf' if lo is None else f'[{lo}'}, {'inf' if hi is None else hi})"


def _position(table: CountTable, bound: Any) -> int:
    if bound not in table.values:
        raise PolicyError(
            f"attribute {table.attribute!r}: range bound {bound!r} is not a value of the declared order "
            f"{list(table.values)}"
        )
    return table.values.index(bound)


def _require_one_each(table: CountTable, inside: np.ndarray, labels: tuple[Any, ...], what: str) -> None:
    """Every value in exactly one bucket, or an error naming the first value that is not."""
    hits = inside.sum(axis=1)
    if (hits == 0).any():
        value = table.values[int(np.flatnonzero(hits == 0)[0])]
        raise DataError(
            f"attribute {table.attribute!r}: value {value!r} is in none of the {what}s {list(labels)}; "
            f"expected every value in exactly one {what}"
        )
    if (hits > 1).any():
        row = int(np.flatnonzero(hits > 1)[0])
        names = [labels[j] for j in np.flatnonzero(inside[row])]
        raise PolicyError(
            f"attribute {table.attribute!r}: value {table.values[row]!r} is in the {what}s {names}; "
            f"expected every value in exactly one {what}"
        )
