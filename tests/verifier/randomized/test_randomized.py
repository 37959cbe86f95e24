"""verifier.randomized.levels against an all-subsets brute force, and its witnesses.

Random mechanisms ``M`` (exact rows) and random data sets of N ≤ 12 records (a true value
and a class per record) are measured twice: by the verifier on the sufficient statistics
``n[class, true value]`` with ``M``, and by tests/_theory_bruteforce.py on the expanded
per-record probability table, enumerating every subset, removal, pair and class straight
from Ekenstedt et al. 2022, Defs. 4-8. The two must agree exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from _releases import releases
from _theory_bruteforce import group_level, k_eps_dp_ratio, kt_level, ldp_ratio, multiplicative_level
from theory.answers.auditor_mode import implied_levels
from theory.answers.graph import Graph, build_graph
from verifier.errors import MechanismError
from verifier.randomized import levels as randomized
from verifier.randomized.levels import Extreme, sufficient_table
from verifier.randomized.mechanism import IntervalMechanism, Mechanism
from verifier.randomized.stochastic_emd import stochastic_emd
from verifier.tables.counts import CountTable
from verifier.tables.hierarchy import load_hierarchy

F = Fraction


def expanded(mechanism: Mechanism, truth: list[int]) -> list[tuple[Fraction, ...]]:
    return [mechanism.matrix[v] for v in truth]


def same(extreme: Extreme, brute: Fraction | float) -> bool:
    return extreme.ratio is None if brute == math.inf else extreme.ratio == brute


def subset_ratio(extreme: Extreme, mechanism: Mechanism, rows: list[tuple[Fraction, ...]], removal: bool) -> Fraction | float:
    """The level the witness subset attains on its bucket, recomputed from the records."""
    b = extreme.bucket
    whole = sum((r[b] for r in rows), F(0)) / len(rows)
    size = sum(count for _, count in extreme.subset)
    total = sum((mechanism.matrix[v][b] * count for v, count in extreme.subset), F(0))
    if removal:
        part = (whole * len(rows) - total) / (len(rows) - size)
    else:
        part = total / size
    return math.inf if part == 0 else max(whole / part, part / whole)


@settings(max_examples=200, deadline=None)
@given(releases())
def test_levels_match_brute_force(release: tuple[CountTable, Mechanism, list[int], list[int]]) -> None:
    table, mechanism, truth, owner = release
    rows = expanded(mechanism, truth)
    classes = [[i for i, o in enumerate(owner) if o == c] for c in range(table.classes.count)]
    assert same(randomized.multiplicative_t(table, mechanism), multiplicative_level(rows, classes))
    assert same(randomized.ldp(mechanism, table), ldp_ratio(rows))
    assert same(randomized.dp(table, mechanism), k_eps_dp_ratio(rows, 1))
    curve = randomized.kt_curve(table, mechanism)
    assert len(curve) == len(rows) - 1
    for size in range(1, len(rows)):
        kt = randomized.kt_closeness(table, mechanism, size)
        assert same(kt, kt_level(rows, size)) and kt == curve[size - 1]
        assert same(kt, subset_ratio(kt, mechanism, rows, removal=False))
        keps = randomized.k_eps_dp(table, mechanism, size)
        assert same(keps, k_eps_dp_ratio(rows, size))
        assert same(keps, subset_ratio(keps, mechanism, rows, removal=True))


@settings(max_examples=100, deadline=None)
@given(releases())
def test_multiplicative_witness_class_attains_the_level(release: tuple[CountTable, Mechanism, list[int], list[int]]) -> None:
    table, mechanism, truth, owner = release
    rows = expanded(mechanism, truth)
    found = randomized.multiplicative_t(table, mechanism)
    members = [i for i, o in enumerate(owner) if o == found.cls]
    one_bucket = [[r[found.bucket]] for r in rows]
    assert same(found, group_level(one_bucket, [members]))


@settings(max_examples=100, deadline=None)
@given(releases(), st.data())
def test_ldp_without_data_covers_every_row(release: tuple[CountTable, Mechanism, list[int], list[int]],
                                           data: st.DataObject) -> None:
    """The data-independent ε-LDP (every row of M) is the publisher's level when every value occurs."""
    _, mechanism, _, _ = release
    everyone = list(range(len(mechanism.values)))
    table = sufficient_table([0] * len(everyone), everyone, [1] * len(everyone), mechanism.values, 1)
    assert randomized.ldp(mechanism) == randomized.ldp(mechanism, table)
    assert same(randomized.ldp(mechanism), ldp_ratio(mechanism.matrix))


def test_multiplicities_are_cells_not_records() -> None:
    """10^4 records of 3 true values in one class are 3 cells; levels match the closed forms.

    M = [[3/4, 1/4], [1/4, 3/4], [1/2, 1/2]] (rows a, b, c), counts a: 5000, b: 3000, c: 2000.
    Pr_D(b0) = (5000·3/4 + 3000/4 + 2000/2)/10^4 = 5500/10^4 = 11/20.
    (k,t), k = 2000: the smallest 2000 Pr(b0) are 2000 records of b (1/4): ratio (11/20)/(1/4) = 11/5;
    the largest are a (3/4): (3/4)/(11/20) = 15/11. Bucket b1 mirrors: Pr_D = 9/20;
    smallest 2000 are a (1/4): (9/20)/(1/4) = 9/5; largest b (3/4): 5/3. So t = 11/5.
    """
    mechanism = Mechanism(("a", "b", "c"), ("x", "y"), (("3/4", "1/4"), ("1/4", "3/4"), ("1/2", "1/2")))
    table = sufficient_table([0, 0, 0], [0, 1, 2], [5000, 3000, 2000], mechanism.values, 1)
    assert table.count.size == 3
    found = randomized.kt_closeness(table, mechanism, 2000)
    assert found.ratio == F(11, 5) and found.bucket == 0 and found.subset == ((1, 2000),)
    assert randomized.ldp(mechanism, table).ratio == 3
    assert randomized.multiplicative_t(table, mechanism).ratio == 1


def test_kt_rejects_sizes_outside_one_to_n_minus_one() -> None:
    mechanism = Mechanism(("a",), ("x",), ((1,),))
    table = sufficient_table([0], [0], [3], mechanism.values, 1)
    for size in (0, 3, True):
        with pytest.raises(ValueError, match=r"expected an integer k in \[1, N-1\] = \[1, 2\]"):
            randomized.kt_closeness(table, mechanism, size)  # type: ignore[arg-type]


def test_values_outside_the_mechanism_are_named() -> None:
    mechanism = Mechanism(("a",), ("x",), ((1,),))
    table = sufficient_table([0, 0], [0, 1], [1, 2], ("a", "zz"), 1)
    with pytest.raises(ValueError, match="true value 'zz' \\(held by 2 record\\(s\\)\\) is not a row of mechanism"):
        randomized.dp(table, mechanism)


def test_large_counts_stay_exact() -> None:
    """Numerators past int64 (denominators 10^12, 10^6 records) switch to Python integers.

    Bucket y: Pr_D(y) = (999999(1 - p) + p)/10^6 and the record of b has Pr(y) = p, so the
    (1,t) level is Pr_D(y)/p. Removing that record from bucket x (where it has the largest
    Pr(x) = 1 - p) leaves Pr_{D-b}(x) = p against Pr_D(x) = (999999 p + 1 - p)/10^6: e^ε = Pr_D(x)/p."""
    p = F(1, 10**12)
    mechanism = Mechanism(("a", "b"), ("x", "y"), ((p, 1 - p), (1 - p, p)))
    table = sufficient_table([0, 0], [0, 1], [999_999, 1], mechanism.values, 1)
    whole_y = (999_999 * (1 - p) + p) / 10**6
    assert randomized.kt_closeness(table, mechanism, 1).ratio == whole_y / p
    assert randomized.dp(table, mechanism).ratio == (999_999 * p + 1 - p) / 10**6 / p
    assert randomized.ldp(mechanism).ratio == (1 - p) / p


@pytest.fixture(scope="module")
def graph() -> Graph:
    return build_graph()


@settings(max_examples=40, deadline=None)
@given(releases(), st.data())
def test_measured_levels_never_exceed_the_implied_ones(graph: Graph, release: tuple[CountTable, Mechanism, list[int], list[int]],
                                                       data: st.DataObject) -> None:
    """Every level the implication map guarantees from the measured ε-LDP bounds the measured level
    (claims proven or corrected only: the graph uses no other)."""
    table, mechanism, _, _ = release
    local = randomized.ldp(mechanism, table)
    if local.ratio is None:
        return
    ks = [data.draw(st.integers(1, table.n - 1))]
    smallest = int(table.classes.sizes.min())
    eps = sympy.log(sympy.Rational(local.ratio.numerator, local.ratio.denominator))
    measured = {
        ("stochastic_t_closeness", smallest): randomized.multiplicative_t(table, mechanism).ratio,
        ("dp", None): randomized.dp(table, mechanism).ratio,
        ("kt_closeness", ks[0]): randomized.kt_closeness(table, mechanism, ks[0]).ratio,
        ("k_eps_dp", ks[0]): randomized.k_eps_dp(table, mechanism, ks[0]).ratio,
    }
    implied = implied_levels("ldp", eps, table.n, smallest, ks, graph)
    assert implied
    for item in implied:
        level = measured[(item.model, item.parameters.get("k"))]
        assert level is not None
        value = sympy.Rational(level.numerator, level.denominator)
        bound = sympy.exp(item.level.value) if item.model in ("dp", "k_eps_dp") else item.level.value
        assert sympy.Le(value, bound) == sympy.true, (item.model, value, bound)


def class_distributions(table: CountTable, mechanism: Mechanism, truth: list[int], owner: list[int]
                        ) -> tuple[list[list[Fraction]], list[Fraction]]:
    """Pr_E(B_b) per class and Pr_D(B_b), straight from Domingo-Ferrer & Soria-Comas 2015, Def. 3."""
    width = len(mechanism.buckets)
    whole = [sum((mechanism.matrix[v][b] for v in truth), F(0)) / len(truth) for b in range(width)]
    per_class = []
    for c in range(table.classes.count):
        members = [truth[i] for i, o in enumerate(owner) if o == c]
        per_class.append([sum((mechanism.matrix[v][b] for v in members), F(0)) / len(members) for b in range(width)])
    return per_class, whole


@settings(max_examples=100, deadline=None)
@given(releases())
def test_stochastic_emd_matches_the_formulas(release: tuple[CountTable, Mechanism, list[int], list[int]]) -> None:
    """Equal: half the L1 distance; ordered: Σ |cumulative difference| / (m - 1) (Li et al. 2007)."""
    table, mechanism, truth, owner = release
    per_class, whole = class_distributions(table, mechanism, truth, owner)
    m = len(whole)
    equal = max(sum(abs(p - q) for p, q in zip(dist, whole)) / 2 for dist in per_class)
    ordered = max(sum(abs(sum(dist[:i + 1]) - sum(whole[:i + 1])) for i in range(m)) / max(m - 1, 1)
                  for dist in per_class)
    assert stochastic_emd(table, mechanism, "equal").level.value == sympy.Rational(equal)
    assert stochastic_emd(table, mechanism, "ordered").level.value == sympy.Rational(ordered)


def test_stochastic_emd_flat_hierarchy_is_the_equal_distance(tmp_path: Path) -> None:
    """Every leaf under the root (height 1): moving mass between any two buckets costs 1, as with 'equal'."""
    mechanism = Mechanism(("a", "b", "c"), ("a", "b", "c"), (("1/2", "1/4", "1/4"), ("1/4", "1/2", "1/4"), (0, 0, 1)))
    table = sufficient_table([0, 0, 1, 1], [0, 1, 2, 0], [3, 1, 2, 2], mechanism.values, 2)
    (tmp_path / "h.csv").write_text("a,*\nb,*\nc,*\n")
    flat = stochastic_emd(table, mechanism, "hierarchical", load_hierarchy(tmp_path / "h.csv"))
    # class 0: Pr_E = (7, 5, 4)/16, Pr_D = (11, 7, 14)/32: (3 + 3 + 6)/64 = 3/16.
    assert flat.level.value == stochastic_emd(table, mechanism, "equal").level.value == sympy.Rational(3, 16)
    assert flat.witness is not None and flat.witness.qi == {"class": 0} and flat.witness.size == 4


def test_stochastic_emd_refuses_interval_mechanisms() -> None:
    mechanism = Mechanism(("a",), ("x",), ((1,),))
    bounded = IntervalMechanism(("a",), ("x",), ((F(1),),), ((F(1),),))
    table = sufficient_table([0], [0], [2], mechanism.values, 1)
    with pytest.raises(MechanismError, match="needs an exact mechanism"):
        stochastic_emd(table, bounded, "equal")


@pytest.mark.parametrize(("n", "k", "ratio"), [(3, 2, F(2)), (5, 2, F(3)), (6, 4, F(7, 2)), (4, 1, F(5))])
def test_implied_levels_are_reached_on_the_tight_mechanism(graph: Graph, n: int, k: int, ratio: Fraction) -> None:
    """M = [[m, Tm], [Tm, m]] with m = 1/(T+1) (ε-LDP: e^ε = T); k records of value 0, N-k of value 1.

    The k records of value 0 have the smallest Pr(b0) = m against Pr_D(b0) = (km + (N-k)Tm)/N, so
    (k,t) = (k + (N-k)T)/N: the corrected Thm. 3 bound (Ekenstedt et al. 2022), reached exactly;
    removing the N-k records of value 1 leaves them, so (N-k, ε)-DP has the same e^ε (Thm. 4(1)).
    """
    m = 1 / (ratio + 1)
    mechanism = Mechanism(("v0", "v1"), ("b0", "b1"), ((m, ratio * m), (ratio * m, m)))
    table = sufficient_table([0, 1], [0, 1], [k, n - k], mechanism.values, 2)
    eps = sympy.log(sympy.Rational(ratio.numerator, ratio.denominator))
    implied = {(i.model, i.parameters.get("k")): i for i in implied_levels("ldp", eps, n, min(k, n - k), [k, n - k], graph)}
    tight = F(k + (n - k) * ratio, n)
    assert randomized.ldp(mechanism, table).ratio == ratio
    assert randomized.kt_closeness(table, mechanism, k).ratio == tight
    assert implied[("kt_closeness", k)].level.value == sympy.Rational(tight)
    assert randomized.k_eps_dp(table, mechanism, n - k).ratio == tight
    assert sympy.exp(implied[("k_eps_dp", n - k)].level.value) == sympy.Rational(tight)


@settings(max_examples=100, deadline=None)
@given(releases(), st.data())
def test_thm4_equivalence_both_ways(release: tuple[CountTable, Mechanism, list[int], list[int]], data: st.DataObject) -> None:
    """Ekenstedt et al. 2022, Thm. 4(1): (k, t)-closeness ⇔ (N-k, ln t)-DP, checked at random thresholds t
    in both directions (and so the two optimal levels coincide)."""
    table, mechanism, _, _ = release
    k = data.draw(st.integers(1, table.n - 1))
    t = F(data.draw(st.integers(1, 400)), data.draw(st.integers(1, 100)))
    closeness, dp_level = randomized.kt_closeness(table, mechanism, k), randomized.k_eps_dp(table, mechanism, table.n - k)
    close = closeness.ratio is not None and closeness.ratio <= t
    private = dp_level.ratio is not None and dp_level.ratio <= t
    assert close == private
    assert closeness.ratio == dp_level.ratio
