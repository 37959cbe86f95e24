"""A measurement or an audit as an HTML table, for Jupyter (``_repr_html_``).

Every cell is escaped (:func:`html.escape`): column names and values come from the
release, a third party's file. The certificate's full page (figures, implied guarantees)
is :func:`reports.html.notebook_html`; this table needs nothing beyond the verifier.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from verifier.display import attribute_label, measurement_level, measurement_model, measurement_witness

if TYPE_CHECKING:
    from verifier.audit import AuditResult
    from verifier.measure import MeasureResult

__all__ = ["measure_html", "audit_html"]

_SIGN = {"at_least": "≥", "at_most": "≤", "below": "<"}


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], css: str) -> str:
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    body = "".join(f'<tr class="{css}">' + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _summary(result: MeasureResult) -> str:
    return (f"<p>{escape(result.source)}: {result.rows} rows, {result.classes} classes over "
            f"{escape(', '.join(result.qi))}</p>")


def measure_html(result: MeasureResult) -> str:
    """Every measurement: model, attribute, level (exact) and witness."""
    rows = [(measurement_model(m), attribute_label(m.attribute), measurement_level(m), measurement_witness(m))
            for m in result.measurements]
    return _summary(result) + _table(("model", "attribute", "level", "witness"), rows, "measurement")


def audit_html(result: AuditResult) -> str:
    """The verdict, then one row per requirement: level, what is required, pass/fail, witness."""
    rows = []
    for check in result.checks:
        m = check.measurement
        rows.append((check.requirement.key, measurement_model(m), attribute_label(m.attribute), measurement_level(m),
                     f"{_SIGN[m.comparison]} {check.threshold_text}", check.verdict.upper(), measurement_witness(m)))
    verdict = "pass" if result.passed else "fail"
    return (f'<p class="verdict {verdict}">{verdict.upper()}</p>' + _summary(result.report)
            + _table(("requirement", "model", "attribute", "level", "required", "result", "witness"), rows, "check"))
