"""Classification figures against ARX's own code (``StatisticsClassification``) on ARX's adult and pyCANON's releases.

``tests/data/classification_peers.json`` (``benchmarks/peers/compare_classification.py``)
holds, per table, ARX's cross-validated figures (its default 10 folds, seed and settings)
of logistic regression, naive Bayes, random forest and ZeroR trained on the table, the
positions ARX's encoders hash each feature value to, and the table itself, row by row.
privcert cuts the same folds as ARX (Java's shuffle with ARX's seed), so ZeroR, which
depends on the folds alone, is ARX's exactly; the classifiers differ in their fitting and
their encoding, so their accuracies agree within the cross-validation's noise, stated as
two standard errors of an accuracy over n records, ``2·sqrt(p(1 − p)/n)`` (docs/utility.md).
ARX's naive Bayes is the exception: it reads every feature value at two hashed positions
(Mahout's two probes), which counts each value's evidence twice; scikit-learn's Bernoulli
model given ARX's own vectors and folds gives ARX's accuracy.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from verifier.utility.classification import CLASSIFIERS, Performance, arx_folds, classification

FIXTURE: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "classification_peers.json").read_text())
TABLES = tuple(FIXTURE["tables"])


def noise(accuracy: float, rows: int) -> float:
    """Two standard errors of an accuracy ``accuracy`` over ``rows`` records: the cross-validation's noise."""
    return 2 * math.sqrt(accuracy * (1 - accuracy) / rows)


def table(entry: dict[str, Any]) -> pd.DataFrame:
    """The table, row by row, as the fixture stores it."""
    labels = entry["labels"]
    distinct = [[labels[j][code] for j, code in enumerate(row)] for row in entry["values"]]
    return pd.DataFrame([distinct[int(i)] for i in entry["rows"].split(" ")],
                        columns=[*entry["features"], entry["target"]])


def privcert_figures(entry: dict[str, Any], classifiers: tuple[str, ...] = CLASSIFIERS) -> dict[str, Performance]:
    """privcert's figures of each classifier trained on the table (``zero_r``: ZeroR's)."""
    frame = table(entry)
    found = classification(frame, frame, entry["target"], entry["features"], classifiers=classifiers)
    return {"zero_r": found[0].baseline, **{item.classifier: item.original for item in found}}


@cache
def _measured(name: str, classifier: str) -> dict[str, Performance]:
    return privcert_figures(FIXTURE["tables"][name], (classifier,))


def _arx(name: str, classifier: str) -> dict[str, Any]:
    found: dict[str, Any] = FIXTURE["tables"][name]["arx"][classifier]
    return found


@pytest.mark.parametrize("name", TABLES)
def test_zero_r_is_arxs_exactly_its_accuracy_and_brier_score(name: str) -> None:
    ours = _measured(name, "naive_bayes")["zero_r"]
    for classifier in CLASSIFIERS:
        assert float(ours.accuracy) == float(_arx(name, classifier)["zero_r_accuracy"])
        assert ours.brier == pytest.approx(float(_arx(name, classifier)["zero_r_brier"]), rel=1e-12)


@pytest.mark.parametrize("name", TABLES)
def test_logistic_regression_agrees_with_arx_within_the_cross_validations_noise(name: str) -> None:
    ours = _measured(name, "logistic_regression")["logistic_regression"]
    theirs = float(_arx(name, "logistic_regression")["original_accuracy"])
    assert abs(float(ours.accuracy) - theirs) <= noise(theirs, len(table(FIXTURE["tables"][name])))


RANDOM_FOREST = {"arx_adult": Fraction(12029, 15081), "adult_k3": Fraction(14743, 18203),
                 "adult_k10": Fraction(5729, 7303)}
"""privcert's random forest on each table (its folds and seeds are fixed)."""


@pytest.mark.slow
@pytest.mark.parametrize("name", TABLES)
def test_the_random_forest_predicts_better_than_arxs_beyond_the_noise_as_docs_utility_md_says(name: str) -> None:
    # slow (10 folds of 100 trees on each table): run with -m slow. ARX's forest (Smile 1.3.1) scores 2.5 to 3.9
    # points lower on every table; ARX's encoding (dictionary codes) is not the cause (docs/utility.md)
    ours = _measured(name, "random_forest")["random_forest"]
    theirs = float(_arx(name, "random_forest")["original_accuracy"])
    assert ours.accuracy == RANDOM_FOREST[name]
    assert float(ours.accuracy) - theirs > noise(theirs, len(table(FIXTURE["tables"][name])))


def _arx_vectors(entry: dict[str, Any]) -> Any:
    """The vectors ARX's naive Bayes reads: the intercept and every feature value at their hashed positions."""
    import numpy as np

    hashing, columns = entry["hashing"], entry["columns"]
    distinct = np.zeros((len(entry["values"]), 1000))
    for row, codes in enumerate(entry["values"]):
        words = ["intercept", *(f"Attribute-{columns.index(c)}:{entry['labels'][j][codes[j]]}"
                                for j, c in enumerate(entry["features"]))]
        for word in words:
            for position, weight in hashing[word]:
                distinct[row, position] += weight
    return distinct[[int(i) for i in entry["rows"].split(" ")]]


@pytest.mark.parametrize("name", TABLES)
def test_naive_bayes_on_arxs_own_vectors_and_folds_is_arxs_naive_bayes(name: str) -> None:
    # Smile's Bernoulli model (ARX's default, smoothing 1) is scikit-learn's BernoulliNB(alpha=1): given ARX's
    # hashed vectors and ARX's folds it predicts as ARX does, to a record or two (ties between equal scores)
    import numpy as np
    from sklearn.naive_bayes import BernoulliNB

    entry = FIXTURE["tables"][name]
    x, target = _arx_vectors(entry), table(entry)[entry["target"]].to_numpy()
    folds = arx_folds(len(target), 10)
    right = 0
    for held, test in enumerate(folds):
        train = [r for other, fold in enumerate(folds) if other != held for r in fold]
        right += int(np.sum(BernoulliNB(alpha=1.0).fit(x[train], target[train]).predict(x[test]) == target[test]))
    assert abs(right - float(_arx(name, "naive_bayes")["original_accuracy"]) * len(target)) <= 2


@pytest.mark.parametrize("name", TABLES)
def test_privcerts_naive_bayes_reads_each_value_once_and_predicts_better_than_arxs(name: str) -> None:
    # beyond the noise on ARX's adult and pyCANON's k = 3, within it on k = 10 (docs/utility.md's table)
    ours = _measured(name, "naive_bayes")["naive_bayes"]
    assert float(ours.accuracy) > float(_arx(name, "naive_bayes")["original_accuracy"])
