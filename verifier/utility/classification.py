"""Classification accuracy: how well a model trained on the release predicts a target, against the original.

For a target attribute and features (the quasi-identifiers by default), each classifier
(logistic regression, naive Bayes, a random forest: scikit-learn's) is trained and
evaluated by k-fold cross-validation twice, on the original's features and on the
release's, with the same folds and the same seeds; ZeroR (the most frequent target value
of the training folds) is the baseline. It follows ARX's ``StatisticsClassification``
where ARX fixes a choice:

* the folds are ARX's: the records shuffled by Java's ``Collections.shuffle`` with a
  ``java.util.Random`` of the seed (ARX's default ``Integer.MAX_VALUE``), then cut into
  ``folds`` runs of ``N // folds`` records, the last taking the rest (:func:`arx_folds`);
* every feature value is a label (one-hot), so a generalized value (``2*``, ``[20-30[``) is
  a category of its own: ARX reads the release's strings, not its hierarchies;
* a prediction is scored against the release's target value;
* a suppressed record (all its quasi-identifiers suppressed, ARX's outlier) is not trained
  on, but it is predicted; a fold with nothing to train on predicts nothing right;
* the relative accuracy is ARX's (its "Classification" view):
  ``(acc_release − acc_ZeroR) / (acc_original − acc_ZeroR)``, and ``acc_release / acc_ZeroR``
  where the original's model does no better than ZeroR.

Besides the accuracy, each model reports what ARX reports: the Brier score (the mean over
records of ``Σ_c (p_c − [c = y])²``, ``p`` the model's class probabilities) with the Brier
skill score ``1 − Brier_release / Brier_original``, and per value of the target its
sensitivity (recall), specificity and ROC AUC against the other values. ARX reports no
precision, so none is given here. Accuracies, sensitivities and specificities are counts
over records (exact fractions); the AUC is exact given the model's scores (ties count ½);
the Brier score is a float. The classifiers themselves are floating-point and seeded, and
every figure is an estimate of the model's performance, not a pass/fail.

References
----------
Iyengar 2002, Sec. 4 (classification accuracy of a transformed table as its utility).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from verifier.errors import DataError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["CLASSIFIERS", "SEED", "ClassScores", "Classification", "Performance", "arx_folds", "classification"]

CLASSIFIERS = ("logistic_regression", "naive_bayes", "random_forest")
"""The classifiers, in report order."""

SEED = 2**31 - 1
"""The seed of the folds and of every classifier (ARX's default seed, ``Integer.MAX_VALUE``)."""

TREES = 100
"""The random forest's trees (ARX's default is 500: a tenth of the cross-validation's cost per tree here)."""

_MASK = (1 << 48) - 1
_MULTIPLIER = 0x5DEECE66D


@dataclass(frozen=True)
class ClassScores:
    """One value of the target against the others: how the model's predictions of it fare.

    Attributes
    ----------
    value
        The target value.
    sensitivity
        Records of the value predicted as it, over the records of the value (recall);
        ``None`` when no record has the value.
    specificity
        Records of other values not predicted as it, over the records of other values.
    auc
        The area under the ROC curve of the model's probability of the value (ties count ½).
    """

    value: str
    sensitivity: Fraction | None
    specificity: Fraction | None
    auc: Fraction | None


@dataclass(frozen=True)
class Performance:
    """A model's cross-validated performance on one table.

    Attributes
    ----------
    accuracy
        The share of records predicted right.
    brier
        The mean over records of ``Σ_c (p_c − [c = y])²`` (0: certain and right; ARX's multi-class Brier score).
    classes
        Per value of the target, in sorted order (ARX's order).
    """

    accuracy: Fraction
    brier: float
    classes: tuple[ClassScores, ...]

    @property
    def auc(self) -> Fraction | None:
        """The mean over the target's values of their ROC AUC (for two values, their common AUC)."""
        found = [c.auc for c in self.classes if c.auc is not None]
        return sum(found, Fraction(0)) / len(found) if found else None


@dataclass(frozen=True)
class Classification:
    """One classifier cross-validated on the release and on the original, with ZeroR's baseline.

    Attributes
    ----------
    classifier
        One of :data:`CLASSIFIERS`.
    release, original, baseline
        The model trained on the release, the model trained on the original, and ZeroR.
    folds, seed
        The cross-validation's number of folds and the seed of the folds and the classifier.
    """

    classifier: str
    release: Performance
    original: Performance
    baseline: Performance
    folds: int
    seed: int

    @property
    def relative(self) -> Fraction | None:
        """ARX's relative accuracy (the module docstring); ``None`` when ZeroR predicts nothing right."""
        release, original, zero_r = self.release.accuracy, self.original.accuracy, self.baseline.accuracy
        if original != zero_r:
            return (release - zero_r) / (original - zero_r)
        return None if zero_r == 0 else release / zero_r

    @property
    def relative_auc(self) -> Fraction | None:
        """ARX's relative AUC, the same formula on the mean AUC; ``None`` when undefined."""
        release, original, zero_r = self.release.auc, self.original.auc, self.baseline.auc
        if release is None or original is None or zero_r is None:
            return None
        if original != zero_r:
            return (release - zero_r) / (original - zero_r)
        return None if zero_r == 0 else release / zero_r

    @property
    def brier_skill(self) -> float | None:
        """``1 − Brier_release / Brier_original``: 0 keeps the original's calibration; ``None`` when that is perfect."""
        return None if self.original.brier == 0 else 1 - self.release.brier / self.original.brier


def _java_shuffle(rows: int, seed: int) -> list[int]:
    """``Collections.shuffle`` of ``0 … rows−1`` with ``new java.util.Random(seed)``, as Java computes it."""
    state = (seed ^ _MULTIPLIER) & _MASK

    def bits31() -> int:
        nonlocal state
        state = (state * _MULTIPLIER + 0xB) & _MASK
        return state >> 17

    order = list(range(rows))
    for size in range(rows, 1, -1):
        if size & -size == size:
            pick = (size * bits31()) >> 31
        else:
            drawn = bits31()
            while drawn - drawn % size + size - 1 >= 1 << 31:
                drawn = bits31()
            pick = drawn % size
        order[size - 1], order[pick] = order[pick], order[size - 1]
    return order


def arx_folds(rows: int, folds: int, seed: int = SEED) -> list[list[int]]:
    """ARX's cross-validation folds (``StatisticsClassification.getFolds``): the shuffled records in ``folds`` runs.

    >>> arx_folds(7, 3, 1)
    [[3, 0], [5, 1], [2, 6, 4]]
    """
    order = _java_shuffle(rows, seed)
    size = max(rows // folds, 1)
    return [order[i * size:rows if i == folds - 1 else (i + 1) * size] for i in range(folds)]


def _estimator(name: str, seed: int) -> Any:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import BernoulliNB

    if name == "logistic_regression":
        return LogisticRegression(max_iter=1000, random_state=seed)
    if name == "naive_bayes":
        return BernoulliNB(alpha=1.0)
    # ARX's settings but the number of trees: at most 100 leaves, 5 records a leaf, √features tried per split
    return RandomForestClassifier(n_estimators=TREES, max_leaf_nodes=100, min_samples_leaf=5, max_features="sqrt",
                                  random_state=seed)


def _encode(table: pd.DataFrame, features: Sequence[str]) -> Any:
    from sklearn.preprocessing import OneHotEncoder

    return OneHotEncoder(handle_unknown="ignore").fit_transform(table[list(features)].astype(str))


def _probabilities(name: str, x: Any, target: np.ndarray, classes: np.ndarray, folds: list[list[int]],
                   trainable: np.ndarray, seed: int) -> np.ndarray:
    """Each record's class probabilities (columns: ``classes``) from the folds it was not trained on; 0 untrained."""
    import numpy as np

    found = np.zeros((target.size, classes.size))
    for held in range(len(folds)):
        test = np.asarray(folds[held], dtype=int)
        train = np.asarray([r for other, fold in enumerate(folds) if other != held for r in fold], dtype=int)
        train = train[trainable[train]]
        if train.size == 0 or test.size == 0:
            continue
        seen = np.unique(target[train])
        columns = np.searchsorted(classes, seen)
        if name == "zero_r":
            counts = np.array([np.sum(target[train] == value) for value in seen])
            found[np.ix_(test, columns)] = counts / train.size
        elif seen.size == 1:
            found[test, columns[0]] = 1.0
        else:
            model = _estimator(name, seed).fit(x[train], target[train])
            found[np.ix_(test, np.searchsorted(classes, model.classes_))] = model.predict_proba(x[test])
    return found


def _auc(scores: np.ndarray, positive: np.ndarray) -> Fraction | None:
    """The ROC AUC of ``scores`` for ``positive`` (Mann–Whitney: pairs ranked right, ties ½), exact given the scores."""
    import numpy as np

    positives = int(positive.sum())
    negatives = positive.size - positives
    if positives == 0 or negatives == 0:
        return None
    values, group = np.unique(scores, return_inverse=True)
    pos = np.bincount(group, weights=positive, minlength=values.size).astype(int)
    neg = np.bincount(group, minlength=values.size) - pos
    below = np.concatenate(([0], np.cumsum(neg)[:-1]))
    twice = int(np.sum(pos * (2 * below + neg)))
    return Fraction(twice, 2 * positives * negatives)


def _performance(probabilities: np.ndarray, target: np.ndarray, classes: np.ndarray) -> Performance:
    import numpy as np

    rows = target.size
    truth = (target[:, None] == classes[None, :])
    trained = probabilities.sum(axis=1) > 0
    predicted = np.where(trained, np.argmax(probabilities, axis=1), -1)
    actual = np.searchsorted(classes, target)
    scores = []
    for index, value in enumerate(classes):
        mine, said = truth[:, index], predicted == index
        scores.append(ClassScores(str(value), Fraction(int(np.sum(mine & said)), int(mine.sum())) if mine.any() else None,
                                  Fraction(int(np.sum(~mine & ~said)), int((~mine).sum())) if (~mine).any() else None,
                                  _auc(probabilities[:, index], mine)))
    brier = float(np.sum((probabilities - truth) ** 2)) / rows
    return Performance(Fraction(int(np.sum(predicted == actual)), rows), brier, tuple(scores))


def classification(original: pd.DataFrame, release: pd.DataFrame, target: str, features: Sequence[str], *,
                   classifiers: Sequence[str] = CLASSIFIERS, folds: int = 10, seed: int = SEED,
                   suppressed: str = "*", trainable: Sequence[bool] | None = None) -> tuple[Classification, ...]:
    """Each classifier on the release and on the original, by ``folds``-fold cross-validation (ARX's folds).

    The records are paired by position (row ``i`` of the release is record ``i`` of the
    original). ``trainable`` says which of the release's records are trained on (default:
    those whose features are not all ``suppressed``).

    Raises
    ------
    DataError
        A column missing from a table, tables of different lengths, the target among the
        features, fewer records than folds, or an unknown classifier: what, where, expected, found.
    """
    import numpy as np

    for name, table in (("original", original), ("release", release)):
        missing = [c for c in (target, *features) if c not in table.columns]
        if missing:
            raise DataError(f"{name}: expected the columns {[target, *features]}, found no {missing[0]!r}")
    if len(original) != len(release):
        raise DataError(f"release: expected {len(original)} rows (the original's), found {len(release)}")
    if target in features:
        raise DataError(f"features: expected columns other than the target {target!r}, found it among them")
    unknown = [c for c in classifiers if c not in CLASSIFIERS]
    if unknown:
        raise DataError(f"classifiers: expected some of {', '.join(CLASSIFIERS)}, found {unknown[0]!r}")
    rows = len(release)
    if rows < folds or folds < 2:
        raise DataError(f"folds: expected 2 ≤ folds ≤ {rows} (the records), found {folds}")
    labels = release[target].astype(str).to_numpy()
    classes = np.unique(labels)
    split = arx_folds(rows, folds, seed)
    every = np.ones(rows, dtype=bool)
    kept = (~(release[list(features)].astype(str) == suppressed).all(axis=1).to_numpy() if trainable is None
            else np.asarray(trainable, dtype=bool))
    ours, theirs = _encode(release, features), _encode(original, features)
    baseline = _performance(_probabilities("zero_r", None, labels, classes, split, every, seed), labels, classes)
    found = []
    for name in (c for c in CLASSIFIERS if c in classifiers):
        on_release = _performance(_probabilities(name, ours, labels, classes, split, kept, seed), labels, classes)
        on_original = _performance(_probabilities(name, theirs, labels, classes, split, every, seed), labels, classes)
        found.append(Classification(name, on_release, on_original, baseline, folds, seed))
    return tuple(found)
