"""Write a certificate and its views: the signed file, its HTML and PDF views, as one result.

:mod:`privcert.api` re-exports :func:`write_certificate` and :func:`write_views`. ``privcert audit --sign``,
``privcert report``, ``privcert demo`` and the workbench's Audit page call them and show what they return;
every file goes through :func:`privcert.files.write_output` (nothing clobbered, nothing half-written).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reports.certify import Certificate
    from reports.statement import Statement
    from reports.utility_section import UtilitySection
    from verifier.audit import AuditResult
    from verifier.tables.counts import CountTable

__all__ = ["WrittenCertificate", "write_certificate", "write_views", "verify_command_line"]


def verify_command_line(certificate: str, public_key: str, release: str | None) -> str:
    """``privcert verify CERTIFICATE --public-key KEY [--data RELEASE]``: what a reader runs to check it."""
    command = ["privcert", "verify", certificate, "--public-key", public_key]
    return shlex.join(command + ([] if release is None else ["--data", release]))


@dataclass(frozen=True)
class WrittenCertificate:
    """What :func:`write_certificate` wrote: the certificate (signed, or the unsigned statement), its files.

    Attributes
    ----------
    certificate
        The certificate built (:class:`reports.certify.Certificate`); ``envelope`` is ``None`` when unsigned.
    path, html, pdf
        The files written (``None``: not asked for).
    signer
        The signing key's id (``None``: unsigned).
    verify_command
        The command that checks the signed file (``None``: unsigned).
    """

    certificate: Certificate
    path: Path | None
    html: Path | None
    pdf: Path | None
    signer: str | None
    verify_command: str | None

    @property
    def files(self) -> tuple[Path, ...]:
        """Every file written, in order: the certificate, the HTML view, the PDF view."""
        return tuple(path for path in (self.path, self.html, self.pdf) if path is not None)

    def to_json(self) -> dict[str, Any]:
        return {"certificate": None if self.path is None else str(self.path),
                "html": None if self.html is None else str(self.html),
                "pdf": None if self.pdf is None else str(self.pdf),
                "signer": self.signer, "verify_command": self.verify_command}


def write_certificate(result: AuditResult, release: str | Path, policy: str | Path | None = None, *,
                      key: str | Path | None = None, out: str | Path | None = None, html: str | Path | None = None,
                      pdf: str | Path | None = None, embed_counts: bool = True,
                      utility: UtilitySection | None = None, encoding: str = "utf-8") -> WrittenCertificate:
    """Certify the audit of ``release`` (:func:`privcert.api.certify`): signed with the private key file ``key``
    and written to ``out`` (both or neither), its views to ``html`` and ``pdf``. Views of an unsigned audit show
    the same content without a signature. ``utility``, what the release cost against its original, is signed
    with it.

    Raises
    ------
    PolicyError
        A key without a certificate file or the reverse, or a file that cannot be written (the message names it).
    MalformedCertificateError
        ``key`` is not an Ed25519 private key written by ``privcert keygen``.
    """
    from privcert.api import certify
    from privcert.files import write_output
    from verifier.errors import PolicyError

    if (key is None) != (out is None):
        raise PolicyError("a signing key and a certificate file go together: give both, or neither for the views "
                          "alone")
    release = Path(release)
    certificate = certify(result, release, policy, key=key, embed_counts=embed_counts, utility=utility,
                          encoding=encoding)
    signer = None
    if key is not None:
        from reports.signing import load_signer, public_key_of

        signer = public_key_of(load_signer(Path(key).read_bytes(), str(key))).keyid
    text = None if certificate.envelope is None else certificate.text
    target = None if out is None else Path(out)
    if target is not None and text is not None:
        write_output(target, text, option="certificate")
    command = None if target is None or key is None else verify_command_line(
        target.name, f"{Path(key).name}.pub", None if embed_counts else release.name)
    views = write_views(certificate.statement, certificate.tables, text, target.name if target else "", command,
                        html=html, pdf=pdf, checked=signer)
    return WrittenCertificate(certificate, target if text is not None else None, views[0], views[1], signer, command)


def write_views(statement: Statement, tables: tuple[CountTable, ...], envelope_text: str | None,
                certificate_name: str, command: str | None, *, html: str | Path | None = None,
                pdf: str | Path | None = None, checked: str | None = None,
                revised: tuple[str, ...] = ()) -> tuple[Path | None, Path | None]:
    """Render a certificate's statement as HTML and/or PDF (:func:`reports.views.render_views`) and write them;
    returns the two paths written (``None`` when not asked for). ``checked`` is the key id its signature was
    checked with (``None``: the view says it is not verified)."""
    from privcert.files import write_output
    from reports.views import render_views

    if html is None and pdf is None:
        return None, None
    views = render_views(statement, tables=tables, envelope_text=envelope_text, certificate_name=certificate_name,
                         verify_command=command, html=html is not None, pdf=pdf is not None, checked=checked,
                         revised=revised)
    written: list[Path | None] = []
    for target, data, label in ((html, views.html, "HTML view"), (pdf, views.pdf, "PDF view")):
        if target is None or data is None:
            written.append(None)
            continue
        write_output(target, data, option=label)
        written.append(Path(target))
    return written[0], written[1]
