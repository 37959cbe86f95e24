"""Classification accuracy as utility figures of an aligned pair: what ``utility``, ``compare`` and certificates show.

Each classifier of :mod:`verifier.utility.classification` gives three figures on the
target, trained on the release's quasi-identifiers (the features) and scored against the
release's target value:

=================================  ==========================================  ==========================
metric                             raw (higher is better but the Brier score)  quality
=================================  ==========================================  ==========================
``accuracy_<classifier>``          the share of records predicted right        ARX's relative accuracy
``brier_<classifier>``             the Brier score (lower is better)           the Brier skill score
``auc_<classifier>``               the ROC AUC (mean over the target's values)  ARX's relative AUC
=================================  ==========================================  ==========================

The quality here is not ARX's normalized quality of the other models but the figure ARX's
"Classification" view sets beside the release's: 1 where the release predicts as well as
the original. The records are those of the pair (:class:`~verifier.utility.pair.Pair`):
a suppressed record is predicted but not trained on, a suppressed cell is the label ``*``,
and a record the release leaves out is scored against the original's target value. Every
figure is an estimate of a seeded cross-validation, not a pass/fail; its units say so (every
view shows them, the certificate's too) and its note gives the original's and ZeroR's figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from verifier.errors import DataError
from verifier.named_inputs import Input, Said
from verifier.utility.classification import CLASSIFIERS, SEED, Classification, classification
from verifier.utility.figure import Figure, short_text

if TYPE_CHECKING:
    import pandas as pd

    from verifier.utility.pair import Pair

__all__ = ["CLASSIFICATION_METRICS", "classification_figures", "classification_target"]

CLASSIFICATION_METRICS = tuple(f"{kind}_{name}" for name in CLASSIFIERS for kind in ("accuracy", "brier", "auc"))
"""The figures' metric ids, classifier by classifier."""

_LABEL = "*"
"""How a suppressed cell is read by the classifiers: one label of its own."""


def classification_target(figures: Sequence[Figure]) -> tuple[str | None, tuple[str, ...]]:
    """The target and the classifiers that ``figures`` were measured with (``None, ()``: none were)."""
    classifiers = tuple(name for name in CLASSIFIERS
                        if any(f.metric == f"accuracy_{name}" for f in figures))
    target = next((f.attribute for f in figures if f.metric in CLASSIFICATION_METRICS), None)
    return target, classifiers


def _note(found: Classification, kind: str, features: Sequence[str]) -> str:
    original, zero_r = getattr(found.original, kind), getattr(found.baseline, kind)
    return (f"estimate, not a pass/fail: {found.folds}-fold cross-validation (ARX's folds, seed {found.seed}) of "
            f"the model trained on the release's {', '.join(features)}; trained on the original: "
            f"{short_text(original)}; ZeroR: {short_text(zero_r)}")


def classification_figures(pair: Pair, original: pd.DataFrame, release: pd.DataFrame, target: str, *,
                           classifiers: Sequence[str] = CLASSIFIERS, seed: int = SEED) -> tuple[Figure, ...]:
    """Each classifier's accuracy, Brier score and ROC AUC on ``target`` from the pair's quasi-identifiers.

    Raises
    ------
    DataError
        ``target`` is missing from a table or is a quasi-identifier, or a classifier is unknown.
    """
    import pandas as pd

    for table, source in ((original, pair.original_source), (release, pair.release_source)):
        if target not in table.columns:
            raise DataError(Said(f"{source}: expected the column of ", Input("target", repr(target)), ", found only "
                                 f"{', '.join(map(str, table.columns))}"))
    if target in pair.qi:
        raise DataError(Said(Input("target", repr(target)), ": expected a column other than the quasi-identifiers "
                             f"{', '.join(pair.qi)} (the features)"))
    released = release[target].astype(str).tolist()
    before = original[target].astype(str).tolist()
    labels = [before[i] if row is None else released[row - 1] for i, row in enumerate(pair.release_rows)]
    names = [f"feature {i}" for i in range(len(pair.columns))]
    theirs = pd.DataFrame({n: list(c.original) for n, c in zip(names, pair.columns, strict=True)})
    ours = pd.DataFrame({n: [_LABEL if v is None else v for v in c.release]
                         for n, c in zip(names, pair.columns, strict=True)})
    theirs[target] = ours[target] = labels
    folds = min(10, pair.rows)
    found = classification(theirs, ours, target, names, classifiers=classifiers, folds=folds, seed=seed,
                           trainable=[not s for s in pair.suppressed]) if pair.rows >= 2 else ()
    figures = []
    for item in found:
        figures += [
            Figure(f"accuracy_{item.classifier}", target, item.release.accuracy, item.relative,
                   "share of records predicted right (estimate; higher is better)", _note(item, "accuracy", pair.qi)),
            Figure(f"brier_{item.classifier}", target, item.release.brier, item.brier_skill,
                   "Brier score (estimate; lower is better)", _note(item, "brier", pair.qi)),
            Figure(f"auc_{item.classifier}", target, item.release.auc, item.relative_auc,
                   "ROC AUC (estimate; higher is better)", _note(item, "auc", pair.qi)),
        ]
    return tuple(figures)
