"""A randomized mechanism as data: the exact matrix ``M[true value, bucket]``.

A mechanism Z applied record by record to a sensitive attribute is known to the verifier
only through ``M[v, b] = Pr(Z(v) ∈ B_b)`` for every true value ``v`` and every bucket
``B_b`` of a partition of ``range(Z)`` (Ekenstedt et al. 2022, Defs. 4-8: the buckets
``B_1, ..., B_p``; Domingo-Ferrer & Soria-Comas 2015, Def. 3: ``Pr_{Z(c_i)}(B)``). Every
level of a randomized release is a function of this matrix and the counts
``n[class, true value]`` (:mod:`verifier.randomized.levels`).

Entries are exact (:class:`fractions.Fraction`) and every row sums to exactly 1. A
mechanism whose probabilities are not rational (Laplace, Gaussian noise) is an
:class:`IntervalMechanism`: each entry is known only between two exact bounds (computed
with outward-rounded interval arithmetic by its builder), and every level measured on it
is an interval, never a single value passed off as exact.

A mechanism file is a CSV with the header ``value,<bucket>,<bucket>,...`` and one row per
true value; entries are decimals (``0.25``) or fractions (``1/4``), read by the exact
grammar of :mod:`verifier.literal` (never as binary floats). It may begin with a data mark, lines
``# data: <kind>`` saying what the matrix was computed from (:mod:`verifier.randomized.data_mark`).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from verifier.errors import DataError, InputFileNotFoundError, MechanismError
from verifier.literal import Domain, LiteralError, parse_exact
from verifier.randomized.data_mark import DataMark, read_mark
from verifier.tables.text_file import read_text

__all__ = ["Mechanism", "IntervalMechanism", "AnyMechanism", "load_mechanism", "parse_mechanism", "mechanism_csv"]

Row = tuple[Fraction, ...]
_PROBABILITY = Domain(lower=Fraction(0), upper=Fraction(1))


def _exact_entry(value: object, where: str) -> Fraction:
    """A probability as a Fraction: int, Fraction, or text in the exact grammar; floats refused."""
    if isinstance(value, Fraction):
        result = value
    elif isinstance(value, int) and not isinstance(value, bool):
        result = Fraction(value)
    elif isinstance(value, str):
        try:
            parsed = parse_exact(value, where, _PROBABILITY)
        except LiteralError as error:
            raise MechanismError(str(error)) from None
        if not parsed.is_Rational:
            raise MechanismError(f"{where}: expected a rational probability (decimal or p/q), found {value!r}")
        result = Fraction(int(parsed.p), int(parsed.q))
    else:
        raise MechanismError(
            f"{where}: expected an exact probability (int, Fraction or text such as 0.25 or 1/4), "
            f"found {type(value).__name__} {value!r}"
        )
    if not 0 <= result <= 1:
        raise MechanismError(f"{where}: expected a probability in [0, 1], found {result}")
    return result


def _check_labels(name: str, values: tuple[Hashable, ...], buckets: tuple[Hashable, ...]) -> None:
    for what, labels in (("true values", values), ("buckets", buckets)):
        if not labels:
            raise MechanismError(f"{name}: expected at least one of the {what}, found none")
        seen: set[Hashable] = set()
        for label in labels:
            if label in seen:
                raise MechanismError(f"{name}: {what} must be distinct, found {label!r} twice")
            seen.add(label)


def _codes(values: tuple[Hashable, ...], name: str, column: Sequence[Hashable] | pd.Series | np.ndarray,
           source: str) -> np.ndarray:
    labels = pd.Series(column, dtype=object)
    codes = pd.Index(values, dtype=object).get_indexer(labels.to_numpy())
    unknown = np.flatnonzero(codes < 0)
    if unknown.size:
        row = int(unknown[0])
        raise DataError(
            f"{source}: record {row + 1} has true value {labels.iloc[row]!r}, which is not a row of {name} "
            f"(expected one of {list(values)})"
        )
    return codes


def _sample(codes: np.ndarray, probabilities: np.ndarray, buckets: tuple[Hashable, ...],
            rng: np.random.Generator) -> np.ndarray:
    """Inverse-CDF sampling: one uniform per record, the bucket where it falls in its row."""
    cumulative = np.cumsum(probabilities, axis=1)
    cumulative[:, -1] = 1.0
    draws = rng.random(codes.size)
    released = np.empty(codes.size, dtype=np.int64)
    for code in range(probabilities.shape[0]):
        mine = codes == code
        released[mine] = np.searchsorted(cumulative[code], draws[mine], side="right")
    return np.asarray(buckets, dtype=object)[np.minimum(released, len(buckets) - 1)]


def _scale(columns: Sequence[Row]) -> tuple[np.ndarray, tuple[int, ...]]:
    """Integer numerators over each column's common denominator (the lcm of its entries')."""
    rows, cols = len(columns[0]), len(columns)
    numerators = np.empty((rows, cols), dtype=object)
    denominators = []
    for b, column in enumerate(columns):
        common = math.lcm(*(p.denominator for p in column))
        denominators.append(common)
        for v, p in enumerate(column):
            numerators[v, b] = p.numerator * (common // p.denominator)
    return numerators, tuple(denominators)


@dataclass(frozen=True)
class Mechanism:
    """An exact mechanism matrix ``M[v, b] = Pr(Z(v) ∈ B_b)``.

    Parameters
    ----------
    values
        The true values ``v`` (rows), distinct.
    buckets
        The buckets ``B_b`` (columns), distinct labels; for randomized response the
        released values themselves.
    matrix
        ``matrix[i][b]``: exact probabilities (int, Fraction or text such as ``"1/4"``,
        converted to Fraction; floats are refused), each row summing to exactly 1.
    name
        What the mechanism is, for messages and reports.
    data
        What the matrix was computed from, as its file declares (``None``: not stated).

    Raises
    ------
    MechanismError
        Empty or repeated values or buckets, a ragged matrix, an entry outside [0, 1] or
        not exact, or a row whose sum is not 1; the message names the row and bucket.

    Examples
    --------
    >>> m = Mechanism(("a", "b"), ("a", "b"), (("3/4", "1/4"), ("1/4", "3/4")))
    >>> m.column(0)
    (Fraction(3, 4), Fraction(1, 4))
    >>> Mechanism(("a",), ("x", "y"), (("1/2", "1/3"),))
    Traceback (most recent call last):
    ...
    verifier.errors.MechanismError: mechanism: row of true value 'a': expected probabilities summing to 1, found sum 5/6
    """

    values: tuple[Hashable, ...]
    buckets: tuple[Hashable, ...]
    matrix: tuple[Row, ...]
    name: str = "mechanism"
    data: DataMark | None = None

    def __post_init__(self) -> None:
        values, buckets = tuple(self.values), tuple(self.buckets)
        _check_labels(self.name, values, buckets)
        rows = tuple(self.matrix)
        if len(rows) != len(values):
            raise MechanismError(f"{self.name}: expected one row per true value ({len(values)}), found {len(rows)} rows")
        exact_rows = []
        for value, row in zip(values, rows):
            entries = tuple(row)
            if len(entries) != len(buckets):
                raise MechanismError(
                    f"{self.name}: row of true value {value!r}: expected {len(buckets)} entries (one per bucket), "
                    f"found {len(entries)}"
                )
            exact = tuple(
                _exact_entry(entry, f"{self.name}: row of true value {value!r}, bucket {bucket!r}")
                for entry, bucket in zip(entries, buckets)
            )
            total = sum(exact, Fraction(0))
            if total != 1:
                raise MechanismError(
                    f"{self.name}: row of true value {value!r}: expected probabilities summing to 1, found sum {total}"
                )
            exact_rows.append(exact)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "buckets", buckets)
        object.__setattr__(self, "matrix", tuple(exact_rows))

    @property
    def shape(self) -> tuple[int, int]:
        """``(number of true values, number of buckets)``."""
        return len(self.values), len(self.buckets)

    def column(self, bucket: int) -> Row:
        """``Pr(Z(v) ∈ B_bucket)`` for every true value ``v``, in row order."""
        return tuple(row[bucket] for row in self.matrix)

    exact = True
    """Every entry is known exactly (levels are single exact values)."""

    @cached_property
    def scaled(self) -> tuple[np.ndarray, tuple[int, ...]]:
        """Integer numerators per column: ``M[v, b] = A[v, b] / L_b`` exactly (computed once).

        ``A`` (an object array of Python ints, shape ``(values, buckets)``) and
        the common denominators ``L_b`` (the lcm of column ``b``'s denominators).
        """
        return _scale([self.column(b) for b in range(len(self.buckets))])

    @property
    def scaled_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(A_low, A_high)`` over the denominators ``L_b``: both ``A`` for an exact mechanism."""
        numerators, _ = self.scaled
        return numerators, numerators

    def codes(self, column: Sequence[Hashable] | pd.Series | np.ndarray, source: str = "data") -> np.ndarray:
        """The row of each record's true value.

        Raises
        ------
        DataError
            A record holds a value that is not a row of the mechanism (names the row).
        """
        return _codes(self.values, self.name, column, source)

    def then(self, other: Mechanism) -> Mechanism:
        """Sequential composition: ``other`` applied to this mechanism's output (``M_self M_other``).

        This mechanism's buckets must be ``other``'s true values (Ekenstedt et al. 2022, Sec. V.C,
        mechanism 2: the root of one tree attached to every leaf of the other).
        """
        if tuple(self.buckets) != tuple(other.values):
            raise MechanismError(
                f"cannot compose {self.name} (buckets {list(self.buckets)}) with {other.name} "
                f"(true values {list(other.values)}): the first's buckets must be the second's values"
            )
        width = len(other.buckets)
        product = tuple(
            tuple(sum((row[m] * other.matrix[m][j] for m in range(len(row))), Fraction(0)) for j in range(width))
            for row in self.matrix
        )
        return Mechanism(self.values, other.buckets, product, f"{self.name}, then {other.name}")

    def sample(
        self, column: Sequence[Hashable] | pd.Series | np.ndarray, rng: np.random.Generator, source: str = "data"
    ) -> np.ndarray:
        """A release: each record independently draws a bucket from its true value's row.

        Inverse-CDF sampling with one uniform per record from ``rng`` (a seeded generator
        gives a reproducible release). Returns an object array of bucket labels.
        """
        return _sample(self.codes(column, source), np.array(self.matrix, dtype=np.float64), self.buckets, rng)

    def to_rows(self) -> list[list[str]]:
        """The CSV form: header ``value,<bucket>,...``, then one row per true value (``p/q`` text)."""
        return [["value", *map(str, self.buckets)]] + [
            [str(value), *map(str, row)] for value, row in zip(self.values, self.matrix)
        ]


@dataclass(frozen=True)
class IntervalMechanism:
    """A mechanism whose entries are known between exact bounds: ``low[v][b] ≤ M[v, b] ≤ high[v][b]``.

    For mechanisms with transcendental probabilities (Laplace or Gaussian noise), whose
    builders compute each entry with outward-rounded interval arithmetic. Every level
    measured on it is an interval ``[lower, upper]`` that contains the true level
    (:mod:`verifier.randomized.levels`); ``exact`` is ``False``.

    Parameters
    ----------
    values, buckets
        As for :class:`Mechanism`.
    low, high
        Exact bounds (Fractions) of every entry, ``0 ≤ low ≤ high ≤ 1``, with
        ``Σ_b low ≤ 1 ≤ Σ_b high`` in every row.
    name
        What the mechanism is, for messages and reports.

    Raises
    ------
    MechanismError
        Empty or repeated labels, a ragged matrix, bounds out of order or outside [0, 1],
        or a row whose bounds cannot sum to 1.
    """

    values: tuple[Hashable, ...]
    buckets: tuple[Hashable, ...]
    low: tuple[Row, ...]
    high: tuple[Row, ...]
    name: str = "mechanism"

    exact = False
    """Entries are intervals: every level is reported with its lower and upper bound."""

    def __post_init__(self) -> None:
        values, buckets = tuple(self.values), tuple(self.buckets)
        _check_labels(self.name, values, buckets)
        low, high = tuple(map(tuple, self.low)), tuple(map(tuple, self.high))
        if len(low) != len(values) or len(high) != len(values):
            raise MechanismError(f"{self.name}: expected one row of bounds per true value ({len(values)}), "
                                 f"found {len(low)} lower and {len(high)} upper rows")
        for value, lows, highs in zip(values, low, high):
            if len(lows) != len(buckets) or len(highs) != len(buckets):
                raise MechanismError(f"{self.name}: row of true value {value!r}: expected {len(buckets)} bounds per side")
            for bucket, a, b in zip(buckets, lows, highs):
                if not (isinstance(a, Fraction) and isinstance(b, Fraction) and 0 <= a <= b <= 1):
                    raise MechanismError(f"{self.name}: row of true value {value!r}, bucket {bucket!r}: "
                                         f"expected Fraction bounds 0 ≤ low ≤ high ≤ 1, found [{a}, {b}]")
            if not sum(lows, Fraction(0)) <= 1 <= sum(highs, Fraction(0)):
                raise MechanismError(f"{self.name}: row of true value {value!r}: the bounds cannot sum to 1 "
                                     f"(lower sum {sum(lows, Fraction(0))}, upper sum {sum(highs, Fraction(0))})")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "buckets", buckets)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    @property
    def shape(self) -> tuple[int, int]:
        """``(number of true values, number of buckets)``."""
        return len(self.values), len(self.buckets)

    @cached_property
    def scaled_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(A_low, A_high)``: integer numerators of both bounds over one denominator ``L_b`` per column."""
        width = len(self.buckets)
        numerators, _ = _scale([tuple(row[b] for row in self.low) + tuple(row[b] for row in self.high)
                                for b in range(width)])
        rows = len(self.values)
        return numerators[:rows], numerators[rows:]

    def codes(self, column: Sequence[Hashable] | pd.Series | np.ndarray, source: str = "data") -> np.ndarray:
        """The row of each record's true value (see :meth:`Mechanism.codes`)."""
        return _codes(self.values, self.name, column, source)

    def sample(
        self, column: Sequence[Hashable] | pd.Series | np.ndarray, rng: np.random.Generator, source: str = "data"
    ) -> np.ndarray:
        """A release drawn from the midpoints of the bounds (see :meth:`Mechanism.sample`).

        Sampling is not certified: the bounds are far narrower than float64's resolution.
        """
        middle = np.array([[float((a + b) / 2) for a, b in zip(lows, highs)] for lows, highs in zip(self.low, self.high)])
        return _sample(self.codes(column, source), middle, self.buckets, rng)


AnyMechanism = Mechanism | IntervalMechanism
"""A mechanism with exact entries or with entries known between exact bounds."""


def parse_mechanism(rows: Sequence[Sequence[str]], *, source: str = "<mechanism>") -> Mechanism:
    """A mechanism from CSV rows: header ``value,<bucket>,...``, one row per true value.

    True values and bucket labels are read as written, like the release's cells (`` flu``
    is not ``flu``); the probabilities may carry spaces. Every error names ``source``, the
    line (counting the file's first line as line 1) and the column (by its header). Leading data-mark
    lines (:func:`verifier.randomized.data_mark.read_mark`) give :attr:`Mechanism.data`.

    Raises
    ------
    MechanismError
        A wrong header, a short or long row, a repeated value, an entry that is not an
        exact probability, or a row that does not sum to exactly 1.

    Examples
    --------
    >>> parse_mechanism([["value", "yes", "no"], ["yes", "0.75", "1/4"], ["no", "1/4", "0.75"]]).matrix[0]
    (Fraction(3, 4), Fraction(1, 4))
    >>> parse_mechanism([["# data: histogram"], ["value", "yes"], ["yes", "1"]]).data.sentence()
    "publishes the original's histogram: the matrix holds its value frequencies"
    """
    mark, skip = read_mark(rows, source)
    if len(rows) <= skip:
        raise MechanismError(f"{source}: expected a header 'value,<bucket>,...', found "
                             + ("an empty file" if not skip else "only the data mark"))
    header = list(rows[skip])
    if not header or header[0] != "value":
        raise MechanismError(f"{source}, line {skip + 1}, column 1: expected the header 'value', "
                             f"found {header[0] if header else ''!r}")
    buckets = header[1:]
    if not buckets:
        raise MechanismError(f"{source}, line {skip + 1}: expected at least one bucket column after 'value', found none")
    for position, bucket in enumerate(buckets, start=2):
        if not bucket:
            raise MechanismError(f"{source}, line {skip + 1}, column {position}: expected a bucket label, found an empty cell")
        if buckets.index(bucket) != position - 2:
            raise MechanismError(f"{source}, line {skip + 1}, column {position}: bucket {bucket!r} is already column {buckets.index(bucket) + 2}")
    values: list[str] = []
    matrix: list[Row] = []
    for line, row in enumerate(rows[skip + 1:], start=skip + 2):
        if not any(row):
            continue
        if len(row) != len(header):
            raise MechanismError(f"{source}, line {line}: expected {len(header)} cells (as the header), found {len(row)}")
        value = row[0]
        if value in values:
            raise MechanismError(f"{source}, line {line}, column 'value': true value {value!r} is already on line "
                                 f"{values.index(value) + skip + 2}")
        entries = tuple(
            _exact_entry(cell.strip(), f"{source}, line {line}, column {bucket!r}") for cell, bucket in zip(row[1:], buckets)
        )
        total = sum(entries, Fraction(0))
        if total != 1:
            raise MechanismError(f"{source}, line {line} (true value {value!r}): expected probabilities summing to 1, "
                                 f"found sum {total}")
        values.append(value)
        matrix.append(entries)
    if not values:
        raise MechanismError(f"{source}: expected one row per true value after the header, found none")
    return Mechanism(tuple(values), tuple(buckets), tuple(matrix), name=f"mechanism {source}", data=mark)


def load_mechanism(path: str | Path) -> Mechanism:
    """Read a mechanism CSV file (see :func:`parse_mechanism`).

    Raises
    ------
    InputFileNotFoundError
        The file does not exist.
    MechanismError
        The file is malformed (names the file, line and column).
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileNotFoundError(f"{path}: mechanism file not found")
    text = read_text(path, kind=MechanismError)
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as error:
        raise MechanismError(f"{path}: cannot read the file as CSV: {error}") from error
    return parse_mechanism(rows, source=str(path))


def mechanism_csv(mechanism: Mechanism) -> str:
    """The mechanism as the CSV text :func:`load_mechanism` reads back exactly (its data mark, then
    ``value,<bucket>,...``)."""
    buffer = io.StringIO()
    if mechanism.data is not None:
        buffer.write("".join(f"{line}\n" for line in mechanism.data.lines()))
    csv.writer(buffer, lineterminator="\n").writerows(mechanism.to_rows())
    return buffer.getvalue()
