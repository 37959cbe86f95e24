"""The PDF view of a certificate: the HTML page printed by WeasyPrint, the signed envelope attached.

The fonts are Debian's DejaVu (package ``fonts-dejavu-core``), declared with
``@font-face`` under their own family names so that the output does not depend on the
fonts a machine happens to have. The PDF's dates (document and attachment) are
``SOURCE_DATE_EPOCH`` when it is set, otherwise the audit's time, and no random file
identifier is written: the same certificate gives the same bytes.

References
----------
Reproducible Builds, ``SOURCE_DATE_EPOCH`` specification:
https://reproducible-builds.org/specs/source-date-epoch/
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from reports.html import FontFace, View, render_html
from reports.signing import CertificateError

__all__ = ["FONT_DIR", "document_date", "render_pdf"]

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
"""Where Debian's ``fonts-dejavu-core`` installs the fonts."""

_FACES = (("Certificate Sans", "normal", "DejaVuSans.ttf"), ("Certificate Sans", "bold", "DejaVuSans-Bold.ttf"),
          ("Certificate Mono", "normal", "DejaVuSansMono.ttf"), ("Certificate Mono", "bold", "DejaVuSansMono-Bold.ttf"))


def _fonts() -> tuple[FontFace, ...]:
    missing = [name for _, _, name in _FACES if not (FONT_DIR / name).is_file()]
    if missing:
        raise CertificateError(f"the PDF fonts {missing} are not in {FONT_DIR}: install the Debian package "
                               "fonts-dejavu-core (apt-get install fonts-dejavu-core)")
    return tuple(FontFace(family, weight, (FONT_DIR / name).as_uri()) for family, weight, name in _FACES)


def document_date(audit_time: str) -> datetime:
    """The PDF's date: ``SOURCE_DATE_EPOCH`` (seconds since 1970, UTC) when set, else the audit's time, else (a
    time not in the exact form privcert writes: the page shows it as written, escaped) 1970-01-01."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        if not epoch.isdigit():
            raise CertificateError(f"SOURCE_DATE_EPOCH: expected a number of seconds, found {epoch!r}")
        return datetime.fromtimestamp(int(epoch), UTC)
    try:
        return datetime.strptime(audit_time, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return datetime.fromtimestamp(0, UTC)


def render_pdf(page: View, *, date: datetime, attachment: tuple[str, bytes] | None = None) -> bytes:
    """The page as PDF bytes, with ``attachment`` = (file name, bytes) embedded."""
    from weasyprint import HTML, Attachment

    html = render_html(page, fonts=_fonts(), date=date.strftime("%Y-%m-%dT%H:%M:%SZ"))
    naive = date.astimezone(UTC).replace(tzinfo=None)
    attachments = [] if attachment is None else [
        Attachment(string=attachment[1], name=attachment[0], description="the signed certificate (DSSE envelope)",
                   created=naive, modified=naive, relationship="Source")]
    document: bytes = HTML(string=html, base_url=str(FONT_DIR)).write_pdf(attachments=attachments)
    return document
