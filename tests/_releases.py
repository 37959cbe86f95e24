"""Random randomized releases for property tests: a mechanism with exact rows and N records."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from verifier.randomized.levels import sufficient_table
from verifier.randomized.mechanism import Mechanism
from verifier.tables.counts import CountTable

F = Fraction


@st.composite
def releases(draw: st.DrawFn, max_n: int = 12) -> tuple[CountTable, Mechanism, list[int], list[int]]:
    """A mechanism on V values and p buckets, and N records (true value, class)."""
    values = draw(st.integers(1, 4))
    buckets = draw(st.integers(1, 4))
    matrix = []
    for _ in range(values):
        weights = draw(st.lists(st.integers(0, 4), min_size=buckets, max_size=buckets))
        if not any(weights):
            weights[draw(st.integers(0, buckets - 1))] = 1
        matrix.append(tuple(F(w, sum(weights)) for w in weights))
    mechanism = Mechanism(tuple(f"v{i}" for i in range(values)), tuple(f"b{j}" for j in range(buckets)), tuple(matrix))
    n = draw(st.integers(2, max_n))
    truth = draw(st.lists(st.integers(0, values - 1), min_size=n, max_size=n))
    labels = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    renumber = {label: i for i, label in enumerate(dict.fromkeys(labels))}
    owner = [renumber[label] for label in labels]
    table = sufficient_table(owner, truth, [1] * n, mechanism.values, len(renumber))
    return table, mechanism, truth, owner
