"""The comparison page of candidate releases of one original: one table and the privacy/utility figure.

One self-contained HTML file (inline CSS and SVG, no script), rendered from
``reports/templates/comparison.html.j2`` with autoescaping; release names are text, shown
through the same ``cell`` filter as the certificate's page (:mod:`reports.page.text`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from verifier.utility.comparison import ReleaseComparison

__all__ = ["ESTIMATES", "comparison_rows", "comparison_title", "render_comparison"]

ESTIMATES = ("a classifier's accuracy and ROC AUC: higher keeps more; its figures are estimates of a seeded "
             "cross-validation, not pass/fail")
"""What the table says of the classifiers' columns, where it has some."""


def _classified(comparison: ReleaseComparison) -> bool:
    from verifier.utility.classification_figures import CLASSIFICATION_METRICS

    return any(metric in CLASSIFICATION_METRICS for metric in comparison.metrics)


def comparison_title(comparison: ReleaseComparison) -> str:
    """The table's title: how many releases, and how to read the raw values (and the classifiers' estimates)."""
    return (f"{len(comparison.candidates)} releases of {comparison.original} (raw values; lower keeps more"
            + (f"; {ESTIMATES})" if _classified(comparison) else ")"))


def comparison_rows(comparison: ReleaseComparison) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The table's header and one row per release: k, highest and mean prosecutor risk, the raw value of each model
    that applies to one of the releases (its id as header, as ``--metric`` and the JSON name it)."""
    from verifier.utility.figure import short_text

    metrics = comparison.metrics
    header = ("release", "k", "max_risk", "mean_risk", *metrics)
    rows = []
    for candidate in comparison.candidates:
        values = [candidate.figure(metric) for metric in metrics]
        rows.append((candidate.release, "—" if candidate.k is None else str(candidate.k), short_text(candidate.risk),
                     short_text(candidate.mean_risk), *(short_text(None if f is None else f.raw) for f in values)))
    return header, rows


def render_comparison(comparison: ReleaseComparison, metric: str) -> str:
    """The page: the table of :func:`comparison_rows` and :func:`reports.plots.privacy_utility` over ``metric``."""
    from importlib import resources

    from jinja2 import Environment, select_autoescape

    from reports.page.text import cell
    from reports.plots import privacy_utility

    environment = Environment(autoescape=select_autoescape(default=True, default_for_string=True),
                              keep_trailing_newline=True)
    environment.filters.update(cell=cell)
    template = environment.from_string(
        (resources.files("reports") / "templates" / "comparison.html.j2").read_text(encoding="utf-8"))
    header, rows = comparison_rows(comparison)
    context: dict[str, Any] = {"original": comparison.original, "qi": comparison.qi, "header": header, "rows": rows,
                               "figure": privacy_utility(comparison, metric), "estimates": ESTIMATES if _classified(comparison) else None}
    return template.render(**context)
