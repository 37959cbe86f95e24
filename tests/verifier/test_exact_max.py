"""The exact maximum of many fractions (:func:`verifier._exact_max.exact_argmax`) against Fractions one by one."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier._exact_max import exact_argmax


def _oracle(pairs: list[tuple[int, int]]) -> tuple[Fraction, list[bool]]:
    values = [Fraction(n, d) for n, d in pairs]
    best = max(values)
    return best, [value == best for value in values]


_SIZES = st.sampled_from([3, 1000, 2**31, 2**40, 2**62])


@given(_SIZES.flatmap(lambda size: st.lists(st.tuples(st.integers(-size, size), st.integers(1, size)),
                                           min_size=1, max_size=40)))
def test_exact_argmax_is_the_maximum_of_the_fractions(pairs: list[tuple[int, int]]) -> None:
    num = np.array([n for n, _ in pairs], dtype=np.int64)
    den = np.array([d for _, d in pairs], dtype=np.int64)
    best, mask = exact_argmax(num, den)
    expected, where = _oracle(pairs)
    assert best == expected
    assert mask.dtype == bool and mask.tolist() == where
    objects_best, objects_mask = exact_argmax(num.astype(object), den.astype(object))
    assert objects_best == expected and objects_mask.tolist() == where


@pytest.mark.parametrize("pairs", [
    [(1, 3), (2**55 + 1, 3 * 2**55 + 2), (2, 6)],  # the second exceeds 1/3 by about 2^-57: the same float64
    [(2**60 // 3, 2**60), (1, 3)],  # the first is below 1/3 by 2^-60 / 3, the same float64, and first in order
    [(2**61 + 1, 2**61), (1, 1)],  # cross products past INT64_SAFE: decided on Python integers
])
def test_exact_argmax_where_float64_cannot_tell_the_fractions_apart(pairs: list[tuple[int, int]]) -> None:
    num = np.array([n for n, _ in pairs], dtype=np.int64)
    den = np.array([d for _, d in pairs], dtype=np.int64)
    assert len({n / d for n, d in pairs}) < len({Fraction(n, d) for n, d in pairs})
    best, mask = exact_argmax(num, den)
    expected, where = _oracle(pairs)
    assert best == expected and mask.tolist() == where
