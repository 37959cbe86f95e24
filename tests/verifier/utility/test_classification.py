"""Classification accuracy of a release against its original, with the same folds and seeds."""

from __future__ import annotations

import re
from fractions import Fraction

import pandas as pd
import pytest

from verifier.errors import DataError
from verifier.utility.classification import CLASSIFIERS, classification

# 15 records of p (all "yes"), 5 of q (all "no"): the feature decides the target
_ORIGINAL = pd.DataFrame({"a": ["p"] * 15 + ["q"] * 5, "b": [str(i % 3) for i in range(20)],
                          "y": ["yes"] * 15 + ["no"] * 5})


def test_a_release_that_hides_the_deciding_feature_predicts_no_better_than_zero_r() -> None:
    release = _ORIGINAL.assign(a="x")  # one label for every record: the features say nothing
    found = classification(_ORIGINAL, release, "y", ["a"], folds=5, seed=7)
    assert [(f.classifier, f.release, f.original, f.baseline, f.relative) for f in found] == [
        (name, Fraction(3, 4), Fraction(1), Fraction(3, 4), Fraction(0)) for name in CLASSIFIERS]
    assert {(f.folds, f.seed) for f in found} == {(5, 7)}


def test_the_release_itself_has_the_originals_accuracy_and_relative_accuracy_1() -> None:
    found = classification(_ORIGINAL, _ORIGINAL.copy(), "y", ["a", "b"], folds=4)
    assert [(f.release, f.original, f.relative) for f in found] == [(Fraction(1), Fraction(1), Fraction(1))] * 3


def test_suppressed_records_are_not_trained_on_but_are_predicted() -> None:
    # every record suppressed: the release's model is never trained, so no prediction is right (as in ARX)
    found = classification(_ORIGINAL, _ORIGINAL.assign(a="*"), "y", ["a"], folds=5,
                           classifiers=["naive_bayes"])
    assert [(f.release, f.original, f.baseline, f.relative) for f in found] == [
        (Fraction(0), Fraction(1), Fraction(3, 4), Fraction(-3))]


def test_an_original_no_better_than_zero_r_has_no_relative_accuracy() -> None:
    flat = _ORIGINAL.assign(a="x")
    (found,) = classification(flat, flat, "y", ["a"], folds=5, classifiers=["logistic_regression"])
    assert (found.original, found.baseline, found.relative) == (Fraction(3, 4), Fraction(3, 4), None)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"target": "z"}, "original: expected the columns ['z', 'a'], found no 'z'"),
    ({"features": ["y"]}, "features: expected columns other than the target 'y', found it among them"),
    ({"folds": 21}, "folds: expected 2 ≤ folds ≤ 20 (the records), found 21"),
    ({"classifiers": ["svm"]}, "classifiers: expected some of logistic_regression, naive_bayes, random_forest, "
                               "found 'svm'"),
])
def test_what_cannot_be_measured_is_refused_with_what_and_where(kwargs: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"target": "y", "features": ["a"], **kwargs}
    with pytest.raises(DataError, match=re.escape(message)):
        classification(_ORIGINAL, _ORIGINAL, **arguments)  # type: ignore[arg-type]


def test_tables_of_different_lengths_are_refused() -> None:
    with pytest.raises(DataError, match="release: expected 20 rows .the original's., found 19"):
        classification(_ORIGINAL, _ORIGINAL.iloc[:19], "y", ["a"])
