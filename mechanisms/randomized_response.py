"""Randomized response on a nominal attribute: exact matrices and seeded releases.

Each builder returns a :class:`verifier.randomized.mechanism.Mechanism`: the exact matrix
``M[i, j] = Pr(Z(a_i) = a_j)`` over the attribute's values (its buckets are the values
themselves), which samples a release (:meth:`~verifier.randomized.mechanism.Mechanism.sample`,
seeded), composes (:meth:`~verifier.randomized.mechanism.Mechanism.then`) and is measured by
:mod:`verifier.randomized.levels`.

* :func:`ldp_randomized_response`: Ekenstedt et al. 2022, Fig. 4. Keep the true value with probability
  ``p_LDP``, otherwise draw uniformly from all ``n`` values; its LDP level is
  ``e^ε = 1 + n p_LDP / (1 - p_LDP)`` (Ekenstedt et al. 2022, eq. (1) corrected, see ``theory``), so a target
  ``e^ε`` is met exactly by ``p_LDP = (e^ε - 1)/(e^ε - 1 + n)``.
* :func:`tclo_randomized_response`: Ekenstedt et al. 2022, Fig. 5. Keep the true value with probability
  ``p_t``, otherwise draw from the empirical distribution of the data set.
* :meth:`verifier.randomized.mechanism.Mechanism.then`: sequential composition (matrix product), Ekenstedt et al. 2022, Sec. V.C.

References
----------
Ekenstedt et al. 2022, Sec. V.A (Figs. 4-5), Sec. V.C (mechanisms 1-3).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from fractions import Fraction

import numpy as np
import pandas as pd

from verifier.errors import DataError, MechanismError
from verifier.randomized.mechanism import Mechanism

__all__ = [
    "ldp_randomized_response",
    "tclo_randomized_response",
    "empirical_frequencies",
    "MAX_VALUES",
]

MAX_VALUES = 1_000
"""The most values a randomized response is built for: its matrix holds |V|² exact probabilities."""


def _check_size(size: int) -> None:
    if size > MAX_VALUES:
        raise MechanismError(f"randomized response over {size:,} distinct values: its mechanism is a dense |V|×|V| "
                             f"matrix of exact probabilities, built for at most {MAX_VALUES:,} values; group the "
                             "values into fewer categories first")


def _probability(value: Fraction | int, name: str) -> Fraction:
    if isinstance(value, (bool, float)) or not isinstance(value, (int, Fraction)):
        raise TypeError(f"{name} must be an int or a Fraction, got {value!r}")
    result = Fraction(value)
    if not 0 <= result <= 1:
        raise ValueError(f"{name} must lie in [0, 1], got {result}")
    return result


def ldp_randomized_response(
    values: Sequence[Hashable] | int,
    *,
    keep: Fraction | int | None = None,
    exp_epsilon: Fraction | int | None = None,
) -> Mechanism:
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
    _check_size(size)
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
    return Mechanism(labels, labels, matrix, f"LDP randomized response (p_LDP={p})")


def tclo_randomized_response(
    values: Sequence[Hashable], frequencies: Sequence[Fraction], keep: Fraction | int
) -> Mechanism:
    """Ekenstedt et al. 2022, Fig. 5: ``M = p_t I + (1 - p_t) 1 f^T`` with ``f`` the data set's frequencies.

    >>> tclo_randomized_response(["a", "b"], [Fraction(1, 4), Fraction(3, 4)], Fraction(1, 2)).matrix[0]
    (Fraction(5, 8), Fraction(3, 8))
    """
    _check_size(len(values))
    p = _probability(keep, "keep (p_t)")
    f = tuple(_probability(value, f"frequency of {label!r}") for label, value in zip(values, frequencies))
    if len(f) != len(values) or sum(f) != 1:
        raise ValueError(f"frequencies must give one value per value of {tuple(values)!r} and sum to 1, got {f}")
    size = len(f)
    matrix = tuple(tuple((1 - p) * f[j] + (p if i == j else 0) for j in range(size)) for i in range(size))
    return Mechanism(tuple(values), tuple(values), matrix, f"t-closeness randomized response (p_t={p})")


def empirical_frequencies(
    column: Sequence[Hashable] | pd.Series | np.ndarray, values: Sequence[Hashable]
) -> tuple[Fraction, ...]:
    """Exact frequency of each of ``values`` in ``column`` (Fig. 5's ``p_y``).

    Raises
    ------
    DataError
        When the column is empty or holds a value outside ``values``.
    """
    labels = pd.Series(column, dtype=object)
    if labels.empty:
        raise DataError("cannot take frequencies of an empty column")
    known = labels.isin(list(values)).to_numpy()
    if not known.all():
        row = int(np.flatnonzero(~known)[0])
        raise DataError(f"frequency count: record {row + 1} has value {labels.iloc[row]!r}, expected one of {list(values)}")
    counts = labels.value_counts()
    return tuple(Fraction(int(counts.get(value, 0)), labels.size) for value in values)
