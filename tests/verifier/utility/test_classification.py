"""Classification accuracy of a release against its original, with the same folds and seeds."""

from __future__ import annotations

import re
from fractions import Fraction

import pandas as pd
import pytest

from verifier.errors import DataError
from verifier.utility.classification import CLASSIFIERS, arx_folds, classification

# 45 records of p (all "yes"), 15 of q (all "no"): the feature decides the target (enough records for ARX's
# random forest, whose leaves hold at least 5)
_ORIGINAL = pd.DataFrame({"a": ["p"] * 45 + ["q"] * 15, "b": [str(i % 3) for i in range(60)],
                          "y": ["yes"] * 45 + ["no"] * 15})


def test_a_release_that_hides_the_deciding_feature_predicts_no_better_than_zero_r() -> None:
    release = _ORIGINAL.assign(a="x")  # one label for every record: the features say nothing
    found = classification(_ORIGINAL, release, "y", ["a"], folds=5, seed=7)
    assert [(f.classifier, f.release.accuracy, f.original.accuracy, f.baseline.accuracy, f.relative)
            for f in found] == [(name, Fraction(3, 4), Fraction(1), Fraction(3, 4), Fraction(0)) for name in CLASSIFIERS]
    assert {(f.folds, f.seed) for f in found} == {(5, 7)}


def test_the_release_itself_has_the_originals_accuracy_and_relative_accuracy_1() -> None:
    found = classification(_ORIGINAL, _ORIGINAL.copy(), "y", ["a", "b"], folds=4)
    assert [(f.release.accuracy, f.original.accuracy, f.relative) for f in found] == [
        (Fraction(1), Fraction(1), Fraction(1))] * 3


def test_suppressed_records_are_not_trained_on_but_are_predicted() -> None:
    # every record suppressed: the release's model is never trained, so no prediction is right (as in ARX)
    found = classification(_ORIGINAL, _ORIGINAL.assign(a="*"), "y", ["a"], folds=5,
                           classifiers=["naive_bayes"])
    assert [(f.release.accuracy, f.original.accuracy, f.baseline.accuracy, f.relative) for f in found] == [
        (Fraction(0), Fraction(1), Fraction(3, 4), Fraction(-3))]
    # nothing trained, no class probability: every record's Brier term is 1 (its own class's (0 - 1)²)
    assert found[0].release.brier == 1.0


def test_an_original_no_better_than_zero_r_has_arxs_relative_accuracy_over_zero_r() -> None:
    flat = _ORIGINAL.assign(a="x")
    (found,) = classification(flat, flat.assign(a=["*"] * 45 + ["x"] * 15), "y", ["a"], folds=5,
                              classifiers=["logistic_regression"])
    # the release suppresses every "yes" record: trained on the "no" records alone, it predicts "no" everywhere
    assert (found.release.accuracy, found.original.accuracy, found.baseline.accuracy) == (
        Fraction(1, 4), Fraction(3, 4), Fraction(3, 4))
    assert found.relative == Fraction(1, 3)  # ARX's acc / acc_ZeroR where the original is no better than ZeroR


def test_the_folds_are_arxs_javas_shuffle_cut_into_runs_the_last_taking_the_rest() -> None:
    # new java.util.Random(1), Collections.shuffle of 0..6 (computed by Java 17)
    assert arx_folds(7, 3, 1) == [[3, 0], [5, 1], [2, 6, 4]]
    assert [len(f) for f in arx_folds(23, 10)] == [2] * 9 + [5]
    assert sorted(r for f in arx_folds(1000, 7, 5) for r in f) == list(range(1000))


def test_sensitivity_specificity_auc_and_brier_of_a_perfect_and_of_zero_r() -> None:
    (found,) = classification(_ORIGINAL, _ORIGINAL, "y", ["a"], folds=4, classifiers=["naive_bayes"])
    assert [(c.value, c.sensitivity, c.specificity, c.auc) for c in found.original.classes] == [
        ("no", Fraction(1), Fraction(1), Fraction(1)), ("yes", Fraction(1), Fraction(1), Fraction(1))]
    assert found.original.auc == Fraction(1)
    # ZeroR predicts "yes" everywhere: every "yes" found, no "no"
    assert [(c.value, c.sensitivity, c.specificity) for c in found.baseline.classes] == [
        ("no", Fraction(0), Fraction(1)), ("yes", Fraction(1), Fraction(0))]
    assert found.brier_skill == pytest.approx(0.0)
    assert found.relative_auc == Fraction(1)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"target": "z"}, "original: expected the columns ['z', 'a'], found no 'z'"),
    ({"features": ["y"]}, "features: expected columns other than the target 'y', found it among them"),
    ({"folds": 61}, "folds: expected 2 ≤ folds ≤ 60 (the records), found 61"),
    ({"classifiers": ["svm"]}, "classifiers: expected some of logistic_regression, naive_bayes, random_forest, "
                               "found 'svm'"),
])
def test_what_cannot_be_measured_is_refused_with_what_and_where(kwargs: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"target": "y", "features": ["a"], **kwargs}
    with pytest.raises(DataError, match=re.escape(message)):
        classification(_ORIGINAL, _ORIGINAL, **arguments)  # type: ignore[arg-type]


def test_tables_of_different_lengths_are_refused() -> None:
    with pytest.raises(DataError, match="release: expected 60 rows .the original's., found 59"):
        classification(_ORIGINAL, _ORIGINAL.iloc[:59], "y", ["a"])
