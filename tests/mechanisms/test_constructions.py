"""Tests of the constructions: MDAV, Algorithms 1-3 (Soria-Comas et al. 2015) and the
bucketization of Domingo-Ferrer & Soria-Comas 2015, §6. Every produced release is
measured by the verifier."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechanisms._cluster_emd import RankedValues
from mechanisms.bucketization import allocation, bucketize, class_sizes
from mechanisms.mdav import mdav, qi_matrix
from mechanisms.microaggregation import microaggregate
from mechanisms.sse import normalized_sse
from mechanisms.t_closeness_microaggregation import (
    ALGORITHMS,
    cluster_size,
    partition,
    proposition2_bound,
    t_closeness_first,
)
from verifier.errors import DataError, PolicyError
from verifier.privacy.t_closeness import emd


def table(seed: int, n: int, correlation: float = 0.5, distinct: int | None = None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 2))
    s = correlation * q[:, 0] + math.sqrt(1 - correlation**2) * rng.normal(size=n)
    values = np.round(s * 1000) if distinct is None else np.digitize(s, np.linspace(-2, 2, distinct - 1))
    return pd.DataFrame({"a": np.round(q[:, 0], 3), "b": np.round(q[:, 1], 3), "s": values})


@given(st.lists(st.integers(0, 6), min_size=1, max_size=30), st.data())
@settings(max_examples=60, deadline=None)
def test_cluster_emd_equals_the_verifiers(values: list[int], data: st.DataObject) -> None:
    ranked = RankedValues.of(np.array(values))
    members = data.draw(st.lists(st.sampled_from(range(len(values))), min_size=1, unique=True))
    counts = np.bincount(ranked.codes[members], minlength=ranked.m)
    expected = emd(counts, ranked.totals, "ordered")
    assert ranked.emd(np.array(members)) == expected
    assert Fraction(ranked.numerator_of([int(c) for c in ranked.codes[members]]), ranked.scale(len(members))) == expected


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 60),
    k=st.integers(1, 6),
    t=st.fractions(0, Fraction(1, 2), max_denominator=50),
    distinct=st.sampled_from([None, 2, 5]),
)
@settings(max_examples=25, deadline=None)
def test_every_release_meets_k_and_t(algorithm: str, seed: int, n: int, k: int, t: Fraction, distinct: int | None) -> None:
    frame = table(seed, n, distinct=distinct)
    k = min(k, n)
    result = microaggregate(frame, ["a", "b"], "s", k=k, t=t, algorithm=algorithm, seed=seed)  # type: ignore[arg-type]
    assert result.achieved.meets(k, t)
    assert result.release["s"].tolist() == frame["s"].tolist()


def test_release_reread_from_csv_meets_k_and_t(tmp_path: object) -> None:
    from mechanisms.microaggregation import achieved
    from verifier.tables.load import load_table

    frame = table(3, 400)
    result = microaggregate(frame, ["a", "b"], "s", k=4, t=Fraction(1, 10))
    path = f"{tmp_path}/release.csv"
    result.release.to_csv(path, index=False)
    again = achieved(frame, load_table(path), ["a", "b"], "s")
    assert again.k.level.value == result.achieved.k.level.value
    assert again.t.level.value == result.achieved.t.level.value
    assert again.meets(4, Fraction(1, 10))


@given(seed=st.integers(0, 1000), clusters=st.integers(1, 30), size=st.integers(1, 8))
@settings(max_examples=40, deadline=None)
def test_proposition2_bound_holds_on_algorithm3_clusters(seed: int, clusters: int, size: int) -> None:
    # k' divides n and values are distinct: every cluster of Algorithm 3 (before any
    # merge) is within (n - k')/(2(n - 1)k') (Soria-Comas et al. 2015, Prop. 2).
    n = clusters * size
    rng = np.random.default_rng(seed)
    points, values = rng.normal(size=(n, 2)), rng.permutation(n).astype(float)
    labels, k = t_closeness_first(points, values, size, Fraction(1))
    assert k == size
    if n == 1:
        return
    ranked = RankedValues.of(values)
    bound = proposition2_bound(n, k)
    assert all(ranked.emd(np.flatnonzero(labels == c)) <= bound for c in range(labels.max() + 1))


def test_ties_break_proposition2_and_the_merge_step_repairs() -> None:
    # Values 0,0,0,0,1,1 with k' = 2: rank subsets {0,0,0} and {0,1,1}; a cluster {0,0}
    # has EMD |1 - 4/6| = 1/3 > (6-2)/(2·5·2) = 1/5, the bound of Prop. 2 on ranks.
    points = np.array([[10.0], [0.0], [0.1], [10.0], [0.2], [-0.1]])
    values = np.array([0, 0, 0, 0, 1, 1], dtype=float)
    t = Fraction(1, 5)
    labels, k = t_closeness_first(points, values, 2, t)
    assert k == 2
    ranked = RankedValues.of(values)
    assert ranked.emd(np.flatnonzero(labels == labels[0])) == Fraction(1, 3)
    repaired = partition(points, values, 2, t, "t-closeness-first")
    assert repaired.merges >= 1
    numerators = ranked.numerators(np.arange(6), repaired.labels, repaired.clusters)
    assert ranked.within(numerators, np.bincount(repaired.labels), t).all()


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_same_seed_same_release(algorithm: str) -> None:
    frame = table(5, 200, distinct=7)
    one = microaggregate(frame, ["a", "b"], "s", k=3, t=Fraction(3, 20), algorithm=algorithm, seed=11)  # type: ignore[arg-type]
    two = microaggregate(frame, ["a", "b"], "s", k=3, t=Fraction(3, 20), algorithm=algorithm, seed=11)  # type: ignore[arg-type]
    pd.testing.assert_frame_equal(one.release, two.release)
    assert (one.partition.labels == two.partition.labels).all()


def _partitions(items: list[int]):  # type: ignore[no-untyped-def]
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for smaller in _partitions(rest):
        for i in range(len(smaller)):
            yield smaller[:i] + [[first, *smaller[i]]] + smaller[i + 1:]
        yield [[first], *smaller]


@pytest.mark.parametrize("seed", range(4))
def test_no_algorithm_beats_the_optimal_partition(seed: int) -> None:
    # Brute force over all partitions of 7 records into t-close clusters of ≥ 2.
    frame = table(seed, 7)
    k, t = 2, Fraction(3, 10)
    ranked = RankedValues.of(frame["s"].to_numpy())
    best = math.inf
    for blocks in _partitions(list(range(7))):
        if min(map(len, blocks)) < k or any(ranked.emd(np.array(b)) > t for b in blocks):
            continue
        labels = np.empty(7, dtype=np.int64)
        for label, block in enumerate(blocks):
            labels[block] = label
        release = frame.copy()
        release[["a", "b"]] = frame[["a", "b"]].groupby(labels).transform("mean")
        best = min(best, normalized_sse(frame, release, ["a", "b"]))
    for algorithm in ALGORITHMS:
        found = microaggregate(frame, ["a", "b"], "s", k=k, t=t, algorithm=algorithm)  # type: ignore[arg-type]
        assert found.achieved.sse >= best - 1e-12


def test_mdav_finds_the_optimal_partition_of_separated_groups() -> None:
    points = np.array([[0.0], [9.0], [0.2], [5.0], [9.1], [5.3]])
    labels = mdav(points, 2)
    groups = {frozenset(np.flatnonzero(labels == c).tolist()) for c in set(labels.tolist())}
    assert groups == {frozenset({0, 2}), frozenset({1, 4}), frozenset({3, 5})}


# Soria-Comas et al. 2015, Table 3 (n = 1080): the cluster size is max(k, size(t)),
# the same for MCD and HCD, with size(t) below.
TABLE3_SIZE = {"0.01": 49, "0.05": 10, "0.09": 6, "0.13": 4, "0.17": 3, "0.21": 3, "0.25": 2}


@pytest.mark.parametrize("k", [2, 5, 10, 15, 20, 25, 30])
@pytest.mark.parametrize("t", list(TABLE3_SIZE))
def test_table3_cluster_sizes(k: int, t: str) -> None:
    expected = max(k, TABLE3_SIZE[t]) if t != "0.01" else 49
    size = cluster_size(1080, k, Fraction(t))
    assert size == expected
    # every cluster has k' or k'+1 records: the minimum is k', the average rounds to k'
    clusters = 1080 // size
    assert round(1080 / clusters) == expected


def test_expression4_with_a_ceiling_would_not_reproduce_table3() -> None:
    # The box of Algorithm 3 prints ⌈(n mod k)/⌊n/k⌋⌉; with n = 1080, t = 0.01 that gives
    # 48 + ⌈24/22⌉ = 50, but Table 3 shows 49 = 48 + ⌊24/22⌋.
    base = math.ceil(Fraction(1080) / (2 * 1079 * Fraction(1, 100) + 1))
    assert base == 48
    assert base + math.ceil(Fraction(1080 % base, 1080 // base)) == 50
    assert cluster_size(1080, 2, Fraction(1, 100)) == 49


def test_table3_on_a_1080_record_table() -> None:
    frame = table(0, 1080)
    for t, k, expected in [("0.01", 2, (49, 49)), ("0.05", 2, (10, 10)), ("0.13", 5, (5, 5))]:
        result = microaggregate(frame, ["a", "b"], "s", k=k, t=Fraction(t))
        sizes = np.bincount(result.partition.labels)
        assert (sizes.min(), round(sizes.mean())) == expected
        assert result.partition.merges == 0


@given(
    sizes=st.lists(st.integers(1, 6), min_size=1, max_size=3),
    buckets=st.lists(st.integers(1, 6), min_size=1, max_size=3),
    t=st.integers(1, 3),
)
@settings(max_examples=80, deadline=None)
def test_allocation_is_found_exactly_when_one_exists(sizes: list[int], buckets: list[int], t: int) -> None:
    if sum(sizes) != sum(buckets):
        return
    n = sum(buckets)
    ranges = [range(-((-e * b) // (t * n)), (t * e * b) // n + 1) for e in sizes for b in buckets]
    exists = any(
        (np.array(c).reshape(len(sizes), -1).sum(axis=1) == sizes).all()
        and (np.array(c).reshape(len(sizes), -1).sum(axis=0) == buckets).all()
        for c in itertools.product(*ranges)
    )
    found = allocation(sizes, buckets, t)
    assert (found is not None) == exists
    if found is not None:
        assert (found.sum(axis=1) == sizes).all() and (found.sum(axis=0) == buckets).all()


def test_table1_shares_are_met_exactly() -> None:
    # t = 3, 4 buckets of 12, classes of 12: emphasized share 3/4 = 9/12, others 1/12.
    counts = allocation([12] * 4, [12] * 4, 3)
    assert counts is not None
    assert counts.tolist() == [[9 if i == j else 1 for j in range(4)] for i in range(4)]
    assert class_sizes(10, 4) == [3, 2, 3, 2]


@given(seed=st.integers(0, 1000), n=st.integers(4, 80), k=st.integers(1, 8), t=st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_bucketization_meets_k_and_multiplicative_t(seed: int, n: int, k: int, t: int) -> None:
    frame = table(seed, n, distinct=None if seed % 2 else 6)
    result = bucketize(frame, ["a", "b"], "s", k=min(k, n), t=t, seed=seed)
    assert result.k.level.satisfies(min(k, n), "at_least")
    assert result.t.level.satisfies(t, "at_most")


def test_bad_input_names_row_and_column() -> None:
    frame = table(0, 10).astype({"a": object})
    frame.loc[3, "a"] = "x"
    with pytest.raises(DataError, match=r"row 4, column 'a'"):
        microaggregate(frame, ["a", "b"], "s", k=2, t=Fraction(1, 5))
    with pytest.raises(PolicyError, match="k"):
        microaggregate(table(0, 10), ["a", "b"], "s", k=11, t=Fraction(1, 5))
    with pytest.raises(PolicyError, match="algorithm"):
        microaggregate(table(0, 10), ["a", "b"], "s", k=2, t=Fraction(1, 5), algorithm="mondrian")  # type: ignore[arg-type]
    with pytest.raises(PolicyError, match="integer t"):
        bucketize(table(0, 10), ["a", "b"], "s", k=2, t=Fraction(3, 2))  # type: ignore[arg-type]


def test_categorical_quasi_identifier_uses_its_order() -> None:
    frame = pd.DataFrame({"edu": ["low", "high", "mid", "low", "high", "mid"], "s": [1, 2, 3, 4, 5, 6]})
    order = {"edu": ["low", "mid", "high"]}
    assert qi_matrix(frame, ["edu"], order)[:, 0].tolist() == pytest.approx(
        [-1.224744871391589, 1.224744871391589, 0.0, -1.224744871391589, 1.224744871391589, 0.0])
    result = microaggregate(frame, ["edu"], "s", k=2, t=Fraction(1), orders=order)
    assert set(result.release["edu"]) <= {"low", "mid", "high"}
    with pytest.raises(DataError, match="declared order"):
        qi_matrix(frame, ["edu"], {"edu": ["low", "mid"]})
