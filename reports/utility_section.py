"""A certificate's utility section: what the certified release cost against its original.

``audit --original ORIGINAL`` measures every utility model of :mod:`verifier.utility`
between the original and the audited release and signs the figures with the rest:

.. code-block:: text

    "utility": {"original": "admissions.csv", "key": null, "mark": "*",
                "hierarchies": {"zip": {"sha256": "…", "paths": [[leaf, …, root], …]}},
                "qi": ["age", "zip"], "rows": 120, "suppressed": 0,
                "figures": [{"metric": "loss", "attribute": "zip", "raw": {"exact": "1/2", "value": 0.5}, …}, …]}

The section holds everything the figures were measured with except the original itself:
its name (no folder), the key column, the suppression mark and the quasi-identifiers'
hierarchies by content (:mod:`reports.embedded_files`). The original is not identified by
a digest: the SHA-256 of a table of personal data would let anyone who can guess its few
unknown cells (one record's diagnosis) confirm the guess offline. So without the original
the figures are the publisher's statement; ``verify --original ORIGINAL --data RELEASE``
measures them again (:func:`recompute`) and compares them in canonical JSON. The names in
messages and notes are the certified ones, so the re-computation is byte-identical at any
path.

With a target attribute (``audit --target``), the figures include the classifiers' (metric
``accuracy_<classifier>``, ``brier_…``, ``auc_…``, attribute: the target): no key is added,
so a reader of an older schema shows them as figures like the others; the target and the
classifiers are read back from them, the features are the section's ``qi`` and the folds
and seeds are ARX's defaults. They are estimates of a seeded cross-validation, not a pass/fail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reports.embedded_files import decode_hierarchies, encode_hierarchies

if TYPE_CHECKING:
    import pandas as pd

    from verifier.tables.hierarchy import Hierarchy
    from verifier.utility import UtilityReport

__all__ = ["SECTION_KEYS", "UtilitySection", "utility_section", "recompute"]

SECTION_KEYS = ("original", "key", "mark", "hierarchies", "qi", "rows", "suppressed", "figures")
"""The keys of a utility section, all required."""


@dataclass(frozen=True)
class UtilitySection:
    """The utility figures of a certified release and the inputs they were measured with (but the original).

    Attributes
    ----------
    report
        Every figure (:class:`verifier.utility.UtilityReport`); its table names are the certified ones.
    key, mark, hierarchies
        How the records were matched and read (:func:`verifier.utility.pair.align`).
    """

    report: UtilityReport
    key: str | None
    mark: str
    hierarchies: Mapping[str, Hierarchy]

    def to_json(self) -> dict[str, Any]:
        """The predicate's ``utility`` section (the module docstring)."""
        report = self.report
        return {"original": report.original, "key": self.key, "mark": self.mark,
                "hierarchies": encode_hierarchies(self.hierarchies), "qi": list(report.qi), "rows": report.rows,
                "suppressed": report.suppressed, "figures": [figure.to_json() for figure in report.figures]}


def utility_section(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    *,
    names: tuple[str, str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
    key: str | None = None,
    mark: str = "*",
    target: str | None = None,
    classifiers: Sequence[str] | None = None,
) -> UtilitySection:
    """The utility section of ``release`` against ``original`` (every model of :func:`verifier.utility.measure_utility`).

    Parameters
    ----------
    original, release
        The two tables (:func:`verifier.tables.load.load_table`).
    qi
        The quasi-identifiers (the certified policy's).
    names
        The names messages and notes give the two tables: the files' names without folders, as certified.
    hierarchies, key, mark
        As :func:`verifier.utility.pair.align` takes them.
    target, classifiers
        The attribute the classifiers predict from ``qi`` (none by default), and which (default: all).

    Raises
    ------
    DataError
        The two tables cannot be aligned (the message names the file, row and column).
    """
    from verifier.utility import measure_utility

    report = measure_utility(original, release, qi, hierarchies=hierarchies, key=key, suppressed=mark, sources=names,
                             target=target, classifiers=classifiers)
    return UtilitySection(report, key, mark, dict(hierarchies or {}))


def recompute(section: Mapping[str, Any], original: pd.DataFrame, release: pd.DataFrame,
              release_name: str) -> dict[str, Any]:
    """The certified section measured again on the reader's ``original`` and ``release``, with the certified inputs.

    Raises
    ------
    EmbeddedFileError
        The embedded hierarchies are malformed or do not have their stated SHA-256.
    TypeError
        The section is not of the shape :meth:`UtilitySection.to_json` writes.
    DataError
        The tables cannot be aligned.
    """
    if not isinstance(section, Mapping) or set(section) != set(SECTION_KEYS):
        raise TypeError(f"utility: expected exactly the keys {', '.join(SECTION_KEYS)}")
    qi, key, mark, name = section["qi"], section["key"], section["mark"], section["original"]
    if not (isinstance(qi, list) and all(isinstance(q, str) for q in qi) and isinstance(mark, str)
            and isinstance(name, str) and (key is None or isinstance(key, str))):
        raise TypeError("utility: expected text for original, mark and key, and a list of names for qi")
    target, classifiers = _classification_of(section["figures"])
    return utility_section(original, release, qi, names=(name, release_name),
                           hierarchies=decode_hierarchies(section["hierarchies"]), key=key, mark=mark,
                           target=target, classifiers=classifiers).to_json()


def _classification_of(figures: Any) -> tuple[str | None, tuple[str, ...]]:
    """The target and classifiers the certified figures name (``None, ()``: no classifier was measured)."""
    from verifier.utility.classification_figures import classification_target
    from verifier.utility.figure import Figure

    if not isinstance(figures, list) or not all(isinstance(f, Mapping) for f in figures):
        raise TypeError("utility: expected figures as a list of objects")
    target, classifiers = classification_target([Figure(str(f.get("metric")), f.get("attribute"), None, None, "")
                                                 for f in figures])
    if target is not None and not isinstance(target, str):
        raise TypeError("utility: expected a classifier's figure to name its target attribute as text")
    return target, classifiers
