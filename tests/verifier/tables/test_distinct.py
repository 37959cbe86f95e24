"""The sorting helpers of verifier.tables.distinct give what np.unique (or a stable argsort) gives, on any integers."""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from verifier.tables import distinct as distinct_module
from verifier.tables.distinct import distinct, small_codes, sorted_runs, weighted_sort

integers = arrays(np.int64, st.integers(0, 300), elements=st.integers(-(2**62), 2**62))
small = arrays(np.int64, st.integers(0, 300), elements=st.integers(0, 40))


@given(integers)
def test_distinct_and_sorted_runs_are_np_unique(values: np.ndarray) -> None:
    expected, counts = np.unique(values, return_counts=True)
    found, repeats = sorted_runs(values)
    assert found.tolist() == expected.tolist() == distinct(values).tolist()
    assert repeats.tolist() == counts.tolist()


@given(small)
def test_small_codes_is_np_unique_with_inverse(values: np.ndarray) -> None:
    expected, inverse = np.unique(values, return_inverse=True)
    found, places = small_codes(values, 41)
    assert found.tolist() == expected.tolist()
    assert places.tolist() == inverse.reshape(-1).tolist()


def test_sorted_runs_merges_sorted_batches() -> None:
    batches = np.concatenate([np.array([1, 4, 4, 9]), np.array([0, 4, 9, 9]), np.array([2])])
    found, repeats = sorted_runs(batches)
    assert found.tolist() == [0, 1, 2, 4, 9]
    assert repeats.tolist() == [1, 1, 1, 3, 3]


@given(keys=arrays(np.int64, st.integers(0, 300), elements=st.integers(0, 999)),
       big=st.booleans(), runs=st.booleans())
def test_weighted_sort_orders_keys_and_carries_their_weights(keys: np.ndarray, big: bool, runs: bool) -> None:
    # weights too wide to share an int64 with a key take the argsort
    weights = (np.arange(keys.size, dtype=np.int64) * 7919) % 1000 + (1 << 60 if big else 0)
    ordered, carried = weighted_sort(keys, weights, 1000, runs=runs)
    order = np.argsort(keys, kind="stable")
    assert ordered.tolist() == keys[order].tolist()
    assert sorted(zip(ordered.tolist(), carried.tolist())) == sorted(zip(keys.tolist(), weights.tolist()))


@given(keys=arrays(np.int64, st.integers(0, 300), elements=st.integers(0, 999)), parts=st.integers(2, 5))
def test_weighted_sort_in_parts_one_a_thread_orders_as_one_sort(keys: np.ndarray, parts: int) -> None:
    weights = np.arange(keys.size, dtype=np.int64)
    with mock.patch.object(distinct_module, "_PARALLEL_SORT", 1), \
            mock.patch.object(distinct_module, "usable_cpus", lambda: parts):
        ordered, carried = weighted_sort(keys, weights, 1000, runs=False)
    assert ordered.tolist() == np.sort(keys).tolist()
    assert sorted(zip(ordered.tolist(), carried.tolist())) == sorted(zip(keys.tolist(), weights.tolist()))
