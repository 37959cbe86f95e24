"""Randomized response on a nominal attribute: exact matrices and seeded releases.

A :class:`RandomizedResponse` is the exact matrix ``M[i, j] = Pr(Z(a_i) = a_j)`` over the
attribute's values (``fractions.Fraction`` entries, each row summing to 1). It releases a
column by drawing, for each record independently, a value from the row of its true value,
and it gives the per-record probability table (rows = records, columns = released values)
that the measures of randomized releases work on.

* :func:`ldp_randomized_response`: Ekenstedt et al. 2022, Fig. 4. Keep the true value with probability
  ``p_LDP``, otherwise draw uniformly from all ``n`` values; its LDP level is
  ``e^ε = 1 + n p_LDP / (1 - p_LDP)`` (Ekenstedt et al. 2022, eq. (1) corrected, see ``theory``), so a target
  ``e^ε`` is met exactly by ``p_LDP = (e^ε - 1)/(e^ε - 1 + n)``.
* :func:`tclo_randomized_response`: Ekenstedt et al. 2022, Fig. 5. Keep the true value with probability
  ``p_t``, otherwise draw from the empirical distribution of the data set.
* :meth:`RandomizedResponse.then`: sequential composition (matrix product), Ekenstedt et al. 2022, Sec. V.C.

References
----------
Ekenstedt et al. 2022, Sec. V.A (Figs. 4-5), Sec. V.C (mechanisms 1-3).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from verifier.errors import DataError

__all__ = [
    "RandomizedResponse",
    "ldp_randomized_response",
    "tclo_randomized_response",
    "empirical_frequencies",
]

Row = tuple[Fraction, ...]


def _probability(value: Fraction | int, name: str) -> Fraction:
    if isinstance(value, (bool, float)) or not isinstance(value, (int, Fraction)):
        raise TypeError(f"{name} must be an int or a Fraction, got {value!r}")
    result = Fraction(value)
    if not 0 <= result <= 1:
        raise ValueError(f"{name} must lie in [0, 1], got {result}")
    return result


def _codes(values: tuple[Hashable, ...], column: Sequence[Hashable] | pd.Series | np.ndarray, name: str) -> np.ndarray:
    """Index of each record's value in ``values``.

    Raises
    ------
    DataError
        When a record holds a value outside ``values`` (names the row and the value).
    """
    labels = pd.Series(column, dtype=object)
    codes = pd.Index(values, dtype=object).get_indexer(labels.to_numpy())
    unknown = np.flatnonzero(codes < 0)
    if unknown.size:
        row = int(unknown[0])
        raise DataError(f"{name}: record {row} has value {labels.iloc[row]!r}, expected one of {values!r}")
    return codes


@dataclass(frozen=True)
class RandomizedResponse:
    """An exact randomized-response mechanism on a nominal attribute.

    Parameters
    ----------
    values
        The attribute's values ``a_1, ..., a_n`` (distinct), indexing rows and columns.
    matrix
        ``matrix[i][j] = Pr(Z(a_i) = a_j)``: exact, each row a probability distribution.
    name
        What built it (shown in messages).
    """

    values: tuple[Hashable, ...]
    matrix: tuple[Row, ...]
    name: str = "randomized response"

    def __post_init__(self) -> None:
        size = len(self.values)
        if size == 0 or len(set(self.values)) != size:
            raise ValueError(f"{self.name}: values must be distinct and non-empty, got {self.values!r}")
        if len(self.matrix) != size or any(len(row) != size for row in self.matrix):
            raise ValueError(f"{self.name}: the matrix must be {size}x{size} for values {self.values!r}")
        for value, row in zip(self.values, self.matrix):
            if any(not isinstance(p, Fraction) or p < 0 for p in row) or sum(row) != 1:
                raise ValueError(
                    f"{self.name}: the row of true value {value!r} must hold Fractions >= 0 summing to 1, got {row}"
                )

    def codes(self, column: Sequence[Hashable] | pd.Series | np.ndarray) -> np.ndarray:
        """The row index of each record's true value (see :func:`_codes`)."""
        return _codes(self.values, column, self.name)

    def probability_table(self, column: Sequence[Hashable] | pd.Series | np.ndarray) -> tuple[Row, ...]:
        """Per-record probabilities: row ``r`` is ``Pr(Z(c_r) = a_j)`` for every ``j``.

        This is the table the definitions of Ekenstedt et al. 2022 (Defs. 4-8) are stated on, with one bucket
        per released value.
        """
        return tuple(self.matrix[code] for code in self.codes(column))

    def sample(
        self, column: Sequence[Hashable] | pd.Series | np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """Release ``column``: each record independently draws from its true value's row.

        Vectorized inverse-CDF sampling (one uniform per record) from ``rng``, so a seeded
        generator gives a reproducible release. Returns an object array of values.
        """
        codes = self.codes(column)
        cumulative = np.cumsum(np.array(self.matrix, dtype=np.float64), axis=1)
        cumulative[:, -1] = 1.0
        draws = rng.random(codes.size)
        released = (draws[:, None] >= cumulative[codes]).sum(axis=1)
        return np.asarray(self.values, dtype=object)[released]

    def then(self, other: RandomizedResponse) -> RandomizedResponse:
        """Sequential composition: ``other`` applied to this mechanism's output.

        ``(M_self M_other)[i, j] = sum_l M_self[i, l] M_other[l, j]``.
        """
        if other.values != self.values:
            raise ValueError(f"cannot compose {self.name} on {self.values!r} with {other.name} on {other.values!r}")
        size = len(self.values)
        product = tuple(
            tuple(sum((self.matrix[i][m] * other.matrix[m][j] for m in range(size)), Fraction(0)) for j in range(size))
            for i in range(size)
        )
        return RandomizedResponse(self.values, product, f"{self.name}, then {other.name}")


def ldp_randomized_response(
    values: Sequence[Hashable] | int,
    *,
    keep: Fraction | int | None = None,
    exp_epsilon: Fraction | int | None = None,
) -> RandomizedResponse:
    """Ekenstedt et al. 2022, Fig. 4: ``M = p_LDP I + (1 - p_LDP)/n J``; give ``keep`` (= p_LDP) or ``exp_epsilon``.

    ``values`` lists the attribute's values, or is their number ``n`` (values ``0..n-1``).

    >>> ldp_randomized_response(["a", "b"], exp_epsilon=3).matrix
    ((Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4)))
    >>> ldp_randomized_response(3, keep=1).values
    (0, 1, 2)
    """
    labels = tuple(range(values)) if isinstance(values, int) else tuple(values)
    size = len(labels)
    if size == 0:
        raise ValueError("an LDP randomized response needs at least one value, got none")
    if (keep is None) == (exp_epsilon is None):
        raise ValueError("give exactly one of keep (p_LDP) and exp_epsilon (e^epsilon)")
    if exp_epsilon is not None:
        if isinstance(exp_epsilon, (bool, float)) or not isinstance(exp_epsilon, (int, Fraction)):
            raise TypeError(f"exp_epsilon must be an int or a Fraction, got {exp_epsilon!r}")
        ratio = Fraction(exp_epsilon)
        if ratio < 1:
            raise ValueError(f"exp_epsilon must be >= 1, got {ratio}")
        p = (ratio - 1) / (ratio - 1 + size)
    else:
        assert keep is not None
        p = _probability(keep, "keep (p_LDP)")
    change = (1 - p) / size
    matrix = tuple(tuple(change + (p if i == j else 0) for j in range(size)) for i in range(size))
    return RandomizedResponse(labels, matrix, f"LDP randomized response (p_LDP={p})")


def tclo_randomized_response(
    values: Sequence[Hashable], frequencies: Sequence[Fraction], keep: Fraction | int
) -> RandomizedResponse:
    """Ekenstedt et al. 2022, Fig. 5: ``M = p_t I + (1 - p_t) 1 f^T`` with ``f`` the data set's frequencies.

    >>> tclo_randomized_response(["a", "b"], [Fraction(1, 4), Fraction(3, 4)], Fraction(1, 2)).matrix[0]
    (Fraction(5, 8), Fraction(3, 8))
    """
    p = _probability(keep, "keep (p_t)")
    f = tuple(_probability(value, f"frequency of {label!r}") for label, value in zip(values, frequencies))
    if len(f) != len(values) or sum(f) != 1:
        raise ValueError(f"frequencies must give one value per value of {tuple(values)!r} and sum to 1, got {f}")
    size = len(f)
    matrix = tuple(tuple((1 - p) * f[j] + (p if i == j else 0) for j in range(size)) for i in range(size))
    return RandomizedResponse(tuple(values), matrix, f"t-closeness randomized response (p_t={p})")


def empirical_frequencies(
    column: Sequence[Hashable] | pd.Series | np.ndarray, values: Sequence[Hashable]
) -> tuple[Fraction, ...]:
    """Exact frequency of each of ``values`` in ``column`` (Fig. 5's ``p_y``).

    Raises
    ------
    DataError
        When the column is empty or holds a value outside ``values``.
    """
    codes = _codes(tuple(values), column, "frequency count")
    if codes.size == 0:
        raise DataError("cannot take frequencies of an empty column")
    counts = np.bincount(codes, minlength=len(values))
    return tuple(Fraction(int(count), codes.size) for count in counts)
