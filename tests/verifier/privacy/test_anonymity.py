"""k-anonymity, (α,k)-anonymity, prosecutor risk and class metrics (verifier.privacy.anonymity)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _measure_tables import (
    empty_table,
    frame_from_counts,
    no_classes,
    paper_frame,
    paper_table,
    perturbed,
    releases,
    tables_of,
)
from verifier._exact_max import exact_ints
from verifier.errors import ExcludedRowsWarning, PolicyError
from verifier.privacy._screen import screened_max
from verifier.privacy.anonymity import alpha_k_anonymity, class_metrics, k_anonymity, prosecutor_risk
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec


def paper_classes():
    classes, _ = count_tables(paper_frame(), ["zip", "age"], [])
    return classes


def test_table2_is_3_anonymous():
    # Li et al. 2007, Table 2: three classes (476**,2*), (4790*,>=40), (476**,3*) of 3 rows each.
    measurement = k_anonymity(paper_classes())
    assert measurement.level.exact == "3"
    assert measurement.comparison == "at_least"
    assert measurement.level.satisfies(3, "at_least") and not measurement.level.satisfies(4, "at_least")
    # All three classes attain 3; the witness is the one whose QI text sorts first.
    assert measurement.witness.qi == {"zip": "476**", "age": "2*"}
    assert measurement.witness.size == 3
    assert measurement.witness.numbers["classes_of_size_k"] == 3


def test_k_witness_is_a_smallest_class():
    classes, _ = tables_of(frame_from_counts([{"a": 4}, {"a": 2}, {"b": 5}, {"a": 1, "b": 1}]))
    measurement = k_anonymity(classes)
    # Sizes 4, 2, 5, 2: k = 2, attained by q = 1 and q = 3; q = 1 sorts first.
    assert measurement.level.exact == "2"
    assert measurement.witness.qi == {"q": 1}
    assert measurement.witness.numbers["classes_of_size_k"] == 2


def test_alpha_on_paper_tables():
    # Table 2: class (476**, 2*) is all Heart Disease: α = 3/3 = 1.
    table2 = alpha_k_anonymity(paper_table("disease2"))
    assert table2.level.exact == "1"
    assert table2.witness.qi == {"zip": "476**", "age": "2*"}
    assert table2.witness.value == "Heart Disease"
    assert table2.parameters == {"k": 3}
    # Table 4: every class holds 3 distinct diseases once each: α = 1/3.
    table4 = alpha_k_anonymity(paper_table("disease4"))
    assert table4.level.exact == "1/3"
    assert table4.witness.value == "gastric ulcer"  # the smallest value of the first class


def test_prosecutor_risk_numbers():
    # Sizes 1, 2, 5 (N = 8): max risk 1/1; mean risk = 3 classes / 8 rows = 3/8.
    # Threshold 1/5: risk 1/|E| > 1/5 iff |E| < 5, i.e. the 1 + 2 = 3 records of the first two classes.
    classes, _ = tables_of(frame_from_counts([{"a": 1}, {"a": 2}, {"a": 5}]))
    measurement = prosecutor_risk(classes)
    assert measurement.level.exact == "1"
    assert measurement.witness.qi == {"q": 0}
    assert measurement.witness.numbers["mean_risk"] == Fraction(3, 8)
    assert measurement.witness.numbers["records_above_threshold"] == 3
    assert measurement.witness.numbers["share_above_threshold"] == Fraction(3, 8)
    assert measurement.parameters == {"threshold": Fraction(1, 5)}


def test_prosecutor_threshold_is_strict():
    # Table 2: every record has risk 1/3. Threshold 1/3: no record is *above* it; 1/4: all 9 are.
    assert prosecutor_risk(paper_classes(), Fraction(1, 3)).witness.numbers["records_above_threshold"] == 0
    above = prosecutor_risk(paper_classes(), Fraction(1, 4)).witness.numbers
    assert above["records_above_threshold"] == 9 and above["share_above_threshold"] == 1


def test_class_metrics():
    # Sizes 1, 2, 5: DM = 1 + 4 + 25 = 30; average 8/3; normalized (8/3)/1.
    classes, _ = tables_of(frame_from_counts([{"a": 1}, {"a": 2}, {"a": 5}]))
    metrics = class_metrics(classes)
    assert metrics.discernibility == 30
    assert metrics.average_class_size == Fraction(8, 3)
    assert metrics.normalized_average_class_size == Fraction(8, 3)
    # Table 2: 3 classes of 3: DM = 27, average 3, normalized 3/3 = 1.
    assert class_metrics(paper_classes()).to_json() == {
        "discernibility": 27, "average_class_size": 3, "normalized_average_class_size": 1}


def test_excluded_rows_leave_alpha_but_not_k():
    frame = pd.DataFrame({"q": [0, 0, 0, 1, 1, 1], "s": ["a", "b", None, "a", "a", "b"]})
    with pytest.warns(ExcludedRowsWarning, match="1 row"):
        classes, (table,) = count_tables(frame, ["q"], [AttributeSpec(("s",), missing="exclude")])
    assert k_anonymity(classes).level.exact == "3"
    measurement = alpha_k_anonymity(table)
    # Class 0 counts 2 rows (a, b): 1/2; class 1: a twice of 3: 2/3. k in this table is 2.
    assert measurement.level.exact == "2/3" and measurement.parameters == {"k": 2}
    assert "excluded" in measurement.notes[0]


@pytest.mark.parametrize(
    ("threshold", "message"),
    [
        (0.2, "expected an exact number"),
        (True, "expected an exact number"),
        ("1/5", "expected an exact number"),
        (Fraction(6, 5), r"expected a probability in \[0, 1\], found 6/5"),
        (-1, r"expected a probability in \[0, 1\], found -1"),
    ],
)
def test_prosecutor_bad_threshold(threshold, message):
    with pytest.raises(PolicyError, match=message):
        prosecutor_risk(paper_classes(), threshold)


def test_screened_max_beyond_int64():
    # Ratios that float64 cannot tell apart: (10^20 + 1)/10^20 > 10^20/(10^20 - 1)? No:
    # a/b vs c/d with a·d - c·b = (10^20+1)(10^20-1) - 10^40 = -1 < 0, so the second is larger.
    big = 10**20
    num = np.array([big + 1, big, 2 * big], dtype=object)
    den = np.array([big, big - 1, 2 * big - 2], dtype=object)
    value, where = screened_max(num, den)
    assert value == Fraction(big, big - 1)
    assert where.tolist() == [1, 2]
    assert exact_ints(2**63, np.array([3])).dtype == object


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(st.integers(0, 50), st.integers(1, 50)), min_size=1, max_size=30),
       chunk=st.integers(1, 8))
def test_screened_max_is_the_exact_maximum_whatever_the_chunks(pairs: list[tuple[int, int]], chunk: int) -> None:
    num, den = (np.array(column, dtype=np.int64) for column in zip(*pairs, strict=True))
    best = max(Fraction(a, b) for a, b in pairs)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("verifier.privacy._screen.CHUNK_CELLS", chunk)  # the float screen in chunks of 1 to 8 entries
        value, where = screened_max(num, den)
    assert value == best
    assert where.tolist() == [i for i, (a, b) in enumerate(pairs) if Fraction(a, b) == best]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_row_order_and_labels_never_matter(data):
    frame = data.draw(releases())
    shuffled = data.draw(perturbed(frame))
    (c1, t1), (c2, t2) = tables_of(frame), tables_of(shuffled)
    for measure in (k_anonymity, prosecutor_risk):
        assert measure(c1).to_json() == measure(c2).to_json()
    assert alpha_k_anonymity(t1).to_json() == alpha_k_anonymity(t2).to_json()
    assert class_metrics(c1) == class_metrics(c2)


@settings(max_examples=60, deadline=None)
@given(releases(), st.integers(0, 3), st.integers(0, 3))
def test_merging_two_classes_never_lowers_k(frame, a, b):
    merged = frame.assign(q=frame["q"].replace({a: b}))
    before = k_anonymity(tables_of(frame)[0]).level
    after = k_anonymity(tables_of(merged)[0]).level
    assert after.satisfies(before.value, "at_least")


@settings(max_examples=60, deadline=None)
@given(releases())
def test_against_brute_force(frame):
    classes, table = tables_of(frame)
    groups = {q: list(group) for q, group in frame.groupby("q")["s"]}
    k = min(len(g) for g in groups.values())
    alpha = max(Fraction(g.count(s), len(g)) for g in groups.values() for s in g)
    assert k_anonymity(classes).level.value == k
    assert alpha_k_anonymity(table).level.value == alpha
    risk = prosecutor_risk(classes)
    assert risk.level.value == Fraction(1, k)
    assert risk.witness.numbers["records_above_threshold"] == sum(len(g) for g in groups.values() if len(g) < 5)
    assert class_metrics(classes).discernibility == sum(len(g) ** 2 for g in groups.values())


def test_no_classes():
    assert k_anonymity(no_classes()).level.exact == "undefined"
    assert prosecutor_risk(no_classes()).level.exact == "undefined"
    with pytest.raises(ValueError, match="class_metrics: the table has no equivalence class with rows"):
        class_metrics(no_classes())
    measurement = alpha_k_anonymity(empty_table())
    assert measurement.level.exact == "undefined"
    assert measurement.notes == ('2 row(s) with a missing value excluded (missing = "exclude")',)
