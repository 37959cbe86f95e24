"""A certificate's views: the HTML page and the PDF with the signed envelope attached, as content.

Nothing here writes a file (the command line writes what it is asked for, safely).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from reports.html import render_html, view
from reports.statement import Statement
from verifier.tables.counts import CountTable

__all__ = ["Views", "render_views"]


@dataclass(frozen=True)
class Views:
    """The rendered views: the HTML text and the PDF bytes (each ``None`` when not asked for)."""

    html: str | None
    pdf: bytes | None


def render_views(
    statement: Statement,
    *,
    tables: Sequence[CountTable],
    envelope_text: str | None,
    certificate_name: str,
    verify_command: str | None,
    html: bool,
    pdf: bool,
    checked: str | None = None,
    revised: Sequence[str] = (),
) -> Views:
    """Render the HTML page and/or the PDF of ``statement``.

    ``envelope_text`` is the signed certificate as written (``None`` for an unsigned
    audit); the PDF carries it as an attachment named ``certificate_name``. ``checked`` is the key id with which
    every check of ``verify`` held (:func:`reports.html.view`); ``None`` renders a "not verified" view. ``revised``:
    the claims a verified level rests on that this privcert has since revised (:attr:`Verification.revised`).
    """
    envelope = None if envelope_text is None else json.loads(envelope_text)
    page = view(statement.predicate, tables=tables, envelope=envelope, verify_command=verify_command, checked=checked,
                revised=revised, subject={"name": statement.subject_name, "sha256": statement.subject_sha256})
    document = None
    if pdf:
        from reports.pdf import document_date, render_pdf

        attachment = None if envelope_text is None else (certificate_name, envelope_text.encode("utf-8"))
        document = render_pdf(page, date=document_date(str(statement.predicate["time"])), attachment=attachment)
    return Views(render_html(page) if html else None, document)
