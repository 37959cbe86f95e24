"""Classification accuracy: how well a model trained on the release predicts a target, against the original.

For a target attribute and features (the quasi-identifiers by default), each classifier
(logistic regression, naive Bayes, a random forest: scikit-learn's) is trained and
evaluated by k-fold cross-validation twice, on the original's features and on the
release's, with the same folds and the same seeds; ZeroR (the most frequent target value
of the training folds) is the baseline. Every feature value is read as a label (one-hot),
so a generalized value is a category of its own, as ARX's classifiers read the release's
strings. As in ARX (``StatisticsClassification``), the target value a prediction is
scored against is the release's, records whose features are all suppressed are left out
of the release's training folds (but are still predicted), and the relative accuracy is

.. math:: \\frac{acc_{release} - acc_{ZeroR}}{acc_{original} - acc_{ZeroR}}

(ARX's "relative accuracy"; undefined when the original's model does no better than
ZeroR). Accuracies are counts of correct predictions over the records, so they are exact
fractions; the classifiers themselves are floating-point and their seeds are stated.

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

__all__ = ["CLASSIFIERS", "Accuracy", "classification"]

CLASSIFIERS = ("logistic_regression", "naive_bayes", "random_forest")
"""The classifiers, in report order."""

SEED = 2**31 - 1
"""The seed of the folds and of every classifier (ARX's default seed, ``Integer.MAX_VALUE``)."""


@dataclass(frozen=True)
class Accuracy:
    """One classifier's cross-validated accuracy on the release and on the original.

    Attributes
    ----------
    classifier
        One of :data:`CLASSIFIERS`.
    release, original, baseline
        The share of records predicted right by the model trained on the release, on the
        original, and by ZeroR (exact: correct predictions over the records).
    relative
        ``(release - baseline) / (original - baseline)``; ``None`` when ``original == baseline``.
    folds, seed
        The cross-validation's number of folds and the seed of the folds and the classifier.
    """

    classifier: str
    release: Fraction
    original: Fraction
    baseline: Fraction
    relative: Fraction | None
    folds: int
    seed: int


def _estimator(name: str, seed: int) -> Any:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import BernoulliNB

    if name == "logistic_regression":
        return LogisticRegression(max_iter=1000, random_state=seed)
    if name == "naive_bayes":
        return BernoulliNB(alpha=1.0)
    return RandomForestClassifier(n_estimators=100, random_state=seed)


def _encode(table: pd.DataFrame, features: Sequence[str]) -> Any:
    from sklearn.preprocessing import OneHotEncoder

    return OneHotEncoder(handle_unknown="ignore").fit_transform(table[list(features)].astype(str))


def _correct(name: str, x: Any, target: np.ndarray, folds: list[tuple[np.ndarray, np.ndarray]],
             trainable: np.ndarray, seed: int) -> int:
    import numpy as np

    right = 0
    for train, test in folds:
        train = train[trainable[train]]
        if train.size == 0:
            continue
        if name == "zero_r":
            values, counts = np.unique(target[train], return_counts=True)
            right += int(np.sum(target[test] == values[np.argmax(counts)]))
            continue
        if np.unique(target[train]).size == 1:
            right += int(np.sum(target[test] == target[train][0]))
            continue
        model = _estimator(name, seed).fit(x[train], target[train])
        right += int(np.sum(model.predict(x[test]) == target[test]))
    return right


def classification(original: pd.DataFrame, release: pd.DataFrame, target: str, features: Sequence[str], *,
                   classifiers: Sequence[str] = CLASSIFIERS, folds: int = 10, seed: int = SEED,
                   suppressed: str = "*") -> tuple[Accuracy, ...]:
    """Each classifier's accuracy on the release and on the original, by ``folds``-fold cross-validation.

    The records are paired by position (row ``i`` of the release is record ``i`` of the
    original); the folds are a shuffle of the records with ``seed``.

    Raises
    ------
    DataError
        A column missing from a table, tables of different lengths, the target among the
        features, fewer records than folds, or an unknown classifier: what, where, expected, found.
    """
    import numpy as np
    from sklearn.model_selection import KFold

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
    split = list(KFold(n_splits=folds, shuffle=True, random_state=seed).split(np.arange(rows)))
    every = np.ones(rows, dtype=bool)
    kept = ~(release[list(features)].astype(str) == suppressed).all(axis=1).to_numpy()
    ours, theirs = _encode(release, features), _encode(original, features)
    baseline = Fraction(_correct("zero_r", None, labels, split, every, seed), rows)
    found = []
    for name in classifiers:
        on_release = Fraction(_correct(name, ours, labels, split, kept, seed), rows)
        on_original = Fraction(_correct(name, theirs, labels, split, every, seed), rows)
        relative = None if on_original == baseline else (on_release - baseline) / (on_original - baseline)
        found.append(Accuracy(name, on_release, on_original, baseline, relative, folds, seed))
    return tuple(found)
