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
model given ARX's own vectors and folds gives ARX's accuracy. ARX's random forest is the other:
Smile 1.3.1's, re-implemented in tests/_smile_forest.py, gives ARX's accuracy; its generator (whose
``nextInt(n)`` reaches only part of the values for an even ``n``, so that a class's bootstrap is drawn
among a fixed fraction of its records) is the cause on pyCANON's releases, its trees' class-boundary
shortcut on tied values part of it on ARX's adult, where the ranking of its nodes and its leaf at a node whose
drawn attributes are constant make the rest, to scikit-learn's forest on the same codes.
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
from hypothesis import given
from hypothesis import strategies as st

from _smile_forest import SmileRandom, SmileTree, bootstrap, quicksort_order, smile_forest_predict, smile_next_int
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
    # points lower on every table, for the two reasons the tests below trace (docs/utility.md)
    ours = _measured(name, "random_forest")["random_forest"]
    theirs = float(_arx(name, "random_forest")["original_accuracy"])
    assert ours.accuracy == RANDOM_FOREST[name]
    assert float(ours.accuracy) - theirs > noise(theirs, len(table(FIXTURE["tables"][name])))


def test_smiles_next_int_reaches_a_fraction_of_the_values_when_n_has_a_large_power_of_2() -> None:
    # every one of the generator's 2^24 doubles: nextInt(12) gives only these 6 values, as Smile 1.3.1's own
    # UniversalGenerator does in Java (two hundred thousand draws), nextInt(6000) 750 values, an odd n all of them
    import numpy as np

    every = np.arange(2 ** 24)
    assert np.unique(smile_next_int(every, 12)).tolist() == [0, 3, 4, 7, 8, 11]
    assert np.unique(smile_next_int(every, 6000)).size == 750
    assert np.unique(smile_next_int(every, 6001)).size == 6001
    assert np.unique(smile_next_int(every, 4096)).size == 4096  # a power of 2 takes the top bits


def test_smiles_bootstrap_of_the_salary_class_reaches_146_of_its_4672_records_on_a_fold_of_pycanons_k_3() -> None:
    # ARX's first fold of pyCANON's k = 3: its training folds hold 4672 = 2^6 * 73 records of >50K; every tree
    # of ARX's forest draws its 4672 bootstrap records of that class among the same 146 (a 32nd)
    import numpy as np

    entry = FIXTURE["tables"]["adult_k3"]
    target = table(entry)[entry["target"]].to_numpy()
    folds = arx_folds(len(target), 10)
    training = [r for fold in folds[1:] for r in fold]
    assert int(np.sum(target[training] == ">50K")) == 4672
    assert np.unique(smile_next_int(np.arange(2 ** 24), 4672)).size == 146


def test_smiles_quicksort_orders_tied_values_as_smile_does() -> None:
    # smile.sort.QuickSort.sort(double[]) on these values, run in Java, returns this order
    import numpy as np

    values = np.array([2, 1, 2, 1, 1, 2, 2, 1, 1, 2, 0, 1, 2], dtype=float)
    assert quicksort_order(values).tolist() == [10, 7, 1, 3, 4, 8, 11, 0, 6, 9, 5, 2, 12]


@given(st.lists(st.integers(0, 4), min_size=1, max_size=60))
def test_smiles_quicksort_order_sorts(values: list[int]) -> None:
    import numpy as np

    order = quicksort_order(np.array(values, dtype=float))
    assert sorted(order.tolist()) == list(range(len(values)))
    assert [values[i] for i in order] == sorted(values)


class _InOrder(SmileRandom):
    """Smile's draws, but ``Math.permutate`` leaves the attributes in order: the drawn attributes are the first."""

    def __init__(self) -> None:
        super().__init__(0)

    def permutate(self, n: int) -> Any:
        import numpy as np

        return np.arange(n)


def _tree(x: Any, y: Any, samples: Any = None, **settings: Any) -> SmileTree:
    import numpy as np

    weights = np.ones(len(y)) if samples is None else np.asarray(samples, dtype=float)
    order = [quicksort_order(x[:, j]) for j in range(x.shape[1])]
    return SmileTree(x, y, 2, order, weights, _InOrder(), **settings)


def test_a_node_whose_drawn_attributes_are_constant_is_a_leaf_unless_drawing_continues_as_scikit_learns() -> None:
    # attributes 0 and 1 are constant, 2 separates the classes; mtry = 2 draws 0 and 1 first: Smile makes a leaf,
    # scikit-learn's splitter does not count a constant attribute among max_features and draws 2
    import numpy as np

    x = np.array([[1, 7, v] for v in range(8)], dtype=float)
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    smile = _tree(x, y, mtry=2, node_size=1)
    assert smile.feature == [-1]
    drawn = _tree(x, y, mtry=2, node_size=1, draw_until_split=True)
    assert (drawn.feature, drawn.value[0]) == ([2, -1, -1], 3.5)
    assert drawn.predict(x).tolist() == y.tolist()


def test_best_first_by_the_gain_splits_the_purer_node_and_by_the_gain_times_its_records_the_larger() -> None:
    # the root splits at 3.5 into [1, 0, 1, 1] and [0, 0, 0, 0, 1, 0]; the first's best split (at 1.5) gains
    # 3/8 - 2/4 * 1/2 = 1/8, the second's (at 7.5) 5/18 - 2/6 * 1/2 = 1/9: Smile splits the first next, a ranking
    # by the gain times the node's records (4/8 against 6/9, scikit-learn's) the second
    import numpy as np

    x = np.arange(10, dtype=float)[:, None]
    y = np.array([1, 0, 1, 1, 0, 0, 0, 0, 1, 0])
    settings: dict[str, Any] = {"max_leaves": 3, "node_size": 1, "mtry": 1, "all_thresholds": True}
    assert _tree(x, y, **settings).value[:3] == [3.5, 1.5, 0.0]
    assert _tree(x, y, weighted_best_first=True, **settings).value[:3] == [3.5, 0.0, 7.5]


def test_a_node_of_few_distinct_records_drawn_twice_each_is_split_by_its_draws_not_by_its_records() -> None:
    # six records drawn twice each: 12 draws, sides of 6 and 6 draws; Smile counts nodeSize = 5 in draws and splits,
    # scikit-learn's min_samples_leaf = 5 counts records (3 a side) and keeps a leaf
    import numpy as np

    x = np.arange(6, dtype=float)[:, None]
    y = np.array([0, 0, 0, 1, 1, 1])
    assert _tree(x, y, samples=[2] * 6, mtry=1).value[0] == 2.5
    assert _tree(x, y, samples=[2] * 6, mtry=1, distinct_leaf_size=True).feature == [-1]


def test_a_leaf_gives_its_class_shares_of_the_draws_for_soft_votes() -> None:
    # record 0 drawn twice: the best split (gain 15/32 - 4/8 * 3/8 = 9/32, at 2.5) leaves on its left 3 draws of
    # class 0 and 1 of class 1, which the tree votes 0 and gives the shares 3/4, 1/4
    import numpy as np

    x = np.arange(6, dtype=float)[:, None]
    y = np.array([0, 1, 0, 1, 1, 1])
    tree = _tree(x, y, samples=[2, 1, 1, 1, 1, 1], mtry=1, node_size=1, max_leaves=2)
    assert tree.value[0] == 2.5
    assert tree.predict(np.array([[0.0], [5.0]])).tolist() == [0, 1]
    assert tree.predict_shares(np.array([[0.0], [5.0]])).tolist() == [[0.75, 0.25], [0.0, 1.0]]


def test_smiles_bootstrap_draws_each_class_its_count_and_an_overall_one_does_not() -> None:
    # 3 records of class 0, 1 of class 1: drawn class by class, every sample holds 3 draws of class 0 and 1 of
    # class 1; drawn among all 4 records (scikit-learn's), these 20 samples hold from 0 to 3 draws of class 1
    import numpy as np

    y = np.array([0, 0, 1, 0])
    rng = SmileRandom(0, sound=True)
    assert {tuple(np.bincount(y, weights=bootstrap(y, 2, rng), minlength=2)) for _ in range(20)} == {(3.0, 1.0)}
    overall = {float(bootstrap(y, 2, rng, overall=True)[2]) for _ in range(20)}
    assert overall == {0.0, 1.0, 2.0, 3.0}
    assert all(bootstrap(y, 2, rng, overall=True).sum() == 4 for _ in range(20))


def _arx_codes(name: str) -> tuple[Any, Any, list[list[int]]]:
    """A table's features as ARX's dictionary codes (each column's values numbered in order of first occurrence),
    its target and ARX's 10 folds."""
    import numpy as np

    entry = FIXTURE["tables"][name]
    frame = table(entry)
    x = np.column_stack([pd.factorize(frame[column])[0] for column in entry["features"]]).astype(float)
    target = frame[entry["target"]].to_numpy()
    return x, target, arx_folds(len(target), 10)


def _smile_accuracy(name: str, **switches: bool) -> float:
    """The accuracy of Smile's forest re-implemented (100 trees; ARX grows 500) on ARX's codes and ARX's folds."""
    import numpy as np

    x, target, folds = _arx_codes(name)
    right = 0
    for held, test in enumerate(folds):
        train = np.asarray([r for other, fold in enumerate(folds) if other != held for r in fold])
        labels = pd.unique(target[train])
        codes = pd.Index(labels).get_indexer(target[train])  # ARX's class codes, in order of first occurrence
        found = smile_forest_predict(x[train], codes, x[test], seed=held, trees=100, **switches)
        right += int(np.sum(labels[found] == target[test]))
    return right / len(target)


@pytest.mark.slow
@pytest.mark.parametrize("name", TABLES)
def test_smiles_forest_re_implemented_scores_arxs_accuracy_within_the_noise(name: str) -> None:
    # slow (10 folds of 100 trees): run with -m slow. Smile's forest as ARX calls it (tests/_smile_forest.py)
    theirs = float(_arx(name, "random_forest")["original_accuracy"])
    assert abs(_smile_accuracy(name) - theirs) <= noise(theirs, len(table(FIXTURE["tables"][name])))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["adult_k3", "adult_k10"])
def test_with_a_sound_generator_smiles_forest_scores_privcerts_accuracy_on_pycanons_releases(name: str) -> None:
    # slow: run with -m slow. With a generator whose nextInt(n) reaches every value, Smile's forest scores privcert's
    # accuracy within the noise, beyond the noise above ARX's: on these tables the generator is the cause
    rows = len(table(FIXTURE["tables"][name]))
    theirs, ours = float(_arx(name, "random_forest")["original_accuracy"]), float(RANDOM_FOREST[name])
    sound = _smile_accuracy(name, sound_generator=True)
    assert abs(sound - ours) <= noise(ours, rows)
    assert sound - theirs > noise(theirs, rows)


@pytest.mark.slow
def test_on_arxs_adult_the_threshold_shortcut_costs_beyond_the_noise_and_a_gap_to_privcerts_remains() -> None:
    # slow: run with -m slow. On ARX's adult the generator changes nothing beyond the noise; trying every threshold
    # scores beyond the noise above ARX's, and still beyond the noise below privcert's (docs/utility.md)
    rows = len(table(FIXTURE["tables"]["arx_adult"]))
    theirs, ours = float(_arx("arx_adult", "random_forest")["original_accuracy"]), float(RANDOM_FOREST["arx_adult"])
    assert abs(_smile_accuracy("arx_adult", sound_generator=True) - theirs) <= noise(theirs, rows)
    every = _smile_accuracy("arx_adult", all_thresholds=True)
    assert every - theirs > noise(theirs, rows)
    assert ours - every > noise(ours, rows)


def _scikit_learn_on_codes_accuracy(name: str) -> float:
    """scikit-learn's forest (privcert's settings, 2 attributes a split) on ARX's codes and ARX's folds."""
    import numpy as np
    from sklearn.ensemble import RandomForestClassifier

    from verifier.utility.classification import SEED, TREES

    x, target, folds = _arx_codes(name)
    right = 0
    for held, test in enumerate(folds):
        train = [r for other, fold in enumerate(folds) if other != held for r in fold]
        forest = RandomForestClassifier(n_estimators=TREES, max_leaf_nodes=100, min_samples_leaf=5, max_features=2,
                                        random_state=SEED).fit(x[train], target[train])
        right += int(np.sum(forest.predict(x[test]) == target[test]))
    return right / len(target)


@pytest.mark.slow
def test_on_arxs_adult_drawing_past_constant_attributes_brings_smiles_forest_to_scikit_learns_on_the_same_codes() -> None:
    # slow: run with -m slow. Every threshold tried, a sound generator, best first by the gain times the node's
    # records: 0.7809, beyond the noise below scikit-learn's forest on ARX's codes (0.7949); drawing further where a
    # drawn attribute is constant in the node, as scikit-learn's splitter does, scores it within the noise
    rows = len(table(FIXTURE["tables"]["arx_adult"]))
    theirs = _scikit_learn_on_codes_accuracy("arx_adult")
    assert theirs == pytest.approx(23976 / rows, abs=1e-12)
    steps = {"all_thresholds": True, "sound_generator": True, "weighted_best_first": True}
    before = _smile_accuracy("arx_adult", **steps)
    after = _smile_accuracy("arx_adult", draw_until_split=True, **steps)
    assert theirs - before > noise(theirs, rows)
    assert after - before > noise(before, rows)
    assert abs(after - theirs) <= noise(theirs, rows)


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
