"""Writing a certificate's views: the HTML page and the PDF with the signed envelope attached."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from reports.html import render_html, view
from reports.statement import Statement
from verifier.counts import CountTable

__all__ = ["write_views"]


def write_views(
    statement: Statement,
    *,
    tables: Sequence[CountTable],
    envelope_text: str | None,
    certificate_name: str,
    verify_command: str | None,
    html: Path | None,
    pdf: Path | None,
    checked: bool = True,
) -> None:
    """Write the HTML page to ``html`` and the PDF to ``pdf`` (either may be ``None``); files are replaced atomically.

    ``envelope_text`` is the signed certificate as written (``None`` for an unsigned
    audit); the PDF carries it as an attachment named ``certificate_name``.
    """
    if html is None and pdf is None:
        return
    envelope = None if envelope_text is None else json.loads(envelope_text)
    page = view(statement.predicate, tables=tables, envelope=envelope, verify_command=verify_command, checked=checked,
                subject={"name": statement.subject_name, "sha256": statement.subject_sha256})
    if html is not None:
        temporary = html.with_name(f".{html.name}.tmp")
        temporary.write_text(render_html(page), encoding="utf-8")
        temporary.replace(html)
    if pdf is not None:
        from reports.pdf import document_date, render_pdf

        attachment = None if envelope_text is None else (certificate_name, envelope_text.encode("utf-8"))
        render_pdf(page, pdf, date=document_date(str(statement.predicate["time"])), attachment=attachment)
