"""``privcert keygen``, ``verify`` and ``report``, and the certificate and views written by ``audit``.

Thin: checks the outputs (:mod:`privcert.files`), calls :func:`privcert.api.write_certificate`,
:func:`privcert.api.write_views` and :func:`privcert.api.verify`, prints and sets the exit
code. ``verify``'s exit codes: 0 the certificate is valid and its verdict PASS; 1 valid and
FAIL (0 with ``--allow-fail``); 2 bad input; 4 invalid; 5 incomplete (see
docs/certificates.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from privcert.options import EngineOption, MasterOption
from privcert.reporting import BAD_INPUT, said, said_in, stage, stderr_line, wrote

if TYPE_CHECKING:
    from privcert.api_certificate import WrittenCertificate
    from reports.utility_section import UtilitySection
    from verifier.audit import AuditResult

__all__ = ["keygen_command", "report_command", "verify_command", "write_certificate", "certificate_outputs",
           "check_signer"]

def _bad_input(message: str) -> typer.Exit:
    stderr_line("error", message)
    return typer.Exit(BAD_INPUT)


def check_signer(key: Path | None) -> None:
    """Refuse, before any work, a ``--sign`` file that is not an Ed25519 private key (exit 2, naming what it is)."""
    from reports.signing import MalformedCertificateError, load_signer

    if key is None:
        return
    try:
        load_signer(key.read_bytes(), str(key))
    except OSError as error:
        raise _bad_input(f"--sign {key}: cannot read the key: {error.strerror or error}") from error
    except MalformedCertificateError as error:
        raise _bad_input(said(error)) from error


def certificate_outputs(certificate: Path | None, html: Path | None, pdf: Path | None) -> dict[str, tuple[Path | None, str]]:
    """The outputs of a certificate and its views, for :func:`privcert.files.check_outputs`."""
    return {"--certificate": (certificate, "json"), "--html": (html, "html"), "--pdf": (pdf, "pdf")}


def write_certificate(result: AuditResult, release: Path, policy: Path, key: Path | None, out: Path | None, *,
                      html: Path | None = None, pdf: Path | None = None, embed_counts: bool = True,
                      utility: UtilitySection | None = None, encoding: str = "utf-8",
                      quiet: bool = False) -> WrittenCertificate | None:
    """:func:`privcert.api.write_certificate` under a spinner, when ``--sign``, ``--certificate``, ``--html`` or
    ``--pdf`` asks for it (the outputs were checked beforehand: :func:`certificate_outputs`)."""
    if key is None and out is None and html is None and pdf is None:
        return None
    from privcert.api import write_certificate as write

    with stage("signing the certificate; writing its views" if key is not None else "building the statement",
               quiet=quiet):
        return write(result, release, policy, key=key, out=out, html=html, pdf=pdf, embed_counts=embed_counts,
                     utility=utility, encoding=encoding)


def report_command(
    certificate: Annotated[Path, typer.Argument(metavar="CERTIFICATE", help="The certificate (a DSSE envelope, JSON).")],
    html: Annotated[Path | None, typer.Option("--html", metavar="FILE", help="Write the HTML view (one self-contained file).")] = None,
    pdf: Annotated[Path | None, typer.Option("--pdf", metavar="FILE", help="Write the PDF view (the certificate attached).")] = None,
    public_key: Annotated[Path | None, typer.Option("--public-key", metavar="FILE", help="Check the signature first (KEY.pub).")] = None,
) -> None:
    """Render an existing certificate as HTML and/or PDF (the figures need its embedded count tables).

    With --public-key, every check of `privcert verify` runs first (from the embedded count tables): the view says
    "verified" only when they all hold; an invalid certificate is not rendered (exit 4). Without it, or when the
    checks are incomplete, the view carries a "not verified" banner at the top."""
    from privcert.files import check_outputs
    from reports.embedded_counts import EmbeddedCountsError, decode_counts
    from reports.signing import (
        CertificateError,
        MalformedCertificateError,
        load_public_key,
        read_json,
        unverified_statement,
    )
    from reports.verification import verify
    from verifier.errors import VerifierError
    from verifier.escape import safe

    if html is None and pdf is None:
        raise _bad_input("give --html FILE and/or --pdf FILE")
    try:
        check_outputs({"--html": (html, "html"), "--pdf": (pdf, "pdf")},
                      {"certificate": certificate, "public key": public_key})
        text = certificate.read_text(encoding="utf-8")
        document = read_json(text, str(certificate))
        key = None if public_key is None else load_public_key(public_key.read_text(encoding="utf-8"), str(public_key))
        checked: str | None = None
        revised: tuple[str, ...] = ()
        if key is not None:
            found = verify(document, key)
            if not found.valid:
                for line in found.lines:
                    typer.echo(safe(said(line.text())))
                typer.echo(f"INVALID: {safe(certificate)}: not rendered (see the lines above)")
                raise typer.Exit(4)
            checked = key.keyid if found.complete else None
            if not found.complete:
                typer.echo(safe(said(found.summary())) + "; the view says it is not verified")
            elif found.revised:
                typer.echo(safe(said(found.summary())))
                revised = found.revised
        statement = unverified_statement(document) if checked is None or found.statement is None else found.statement
    except MalformedCertificateError as error:
        raise _bad_input(f"{certificate}: {said(error)}") from error
    except CertificateError as error:
        typer.echo(f"INVALID: {certificate}: {error}")
        raise typer.Exit(4) from error
    except (OSError, UnicodeDecodeError, VerifierError) as error:
        raise _bad_input(f"{certificate}: {said(error)}") from error
    counts = statement.predicate.get("counts")
    try:
        tables = decode_counts(counts["tables"])[1] if isinstance(counts, dict) and "tables" in counts else ()
    except EmbeddedCountsError:
        tables = ()
    from privcert.api import verify_command_line, write_views

    command = verify_command_line(certificate.name, public_key.name if public_key else "PUBLIC_KEY",
                                  None if tables else statement.subject_name)
    try:
        with stage("rendering the views"):
            write_views(statement, tuple(tables), text, certificate.name, command, html=html, pdf=pdf,
                        checked=checked, revised=revised)
    except (OSError, CertificateError, VerifierError) as error:
        raise _bad_input(f"cannot write the views: {error}") from error
    wrote(html, pdf)


def keygen_command(
    out: Annotated[Path, typer.Option("--out", metavar="FILE", help="The private key file to write (its public key goes to OUT.pub).")],
) -> None:
    """Write a new Ed25519 key pair for signing certificates (never over an existing file)."""
    from privcert.files import existing, write_new
    from reports.signing import new_key_pair
    from verifier.errors import PolicyError

    if not str(out) or out.name in ("", ".", ".."):
        raise _bad_input(f"--out {str(out)!r}: expected a file name for the private key")
    public = out.with_name(out.name + ".pub")
    taken = existing([out, public])
    if taken:
        raise _bad_input(f"--out {out}: {', '.join(map(str, taken))} exist(s); refusing to overwrite a key "
                         "(choose another name, or remove the old pair yourself)")
    private_pem, public_text = new_key_pair()
    try:
        write_new(out, private_pem, option="--out", mode=0o600)
        write_new(public, public_text.encode("utf-8"), option="--out")
    except PolicyError as error:
        raise _bad_input(said(error)) from error
    typer.echo(f"wrote {out} (the private key, mode 0600: keep it secret)\nwrote {public} (the public key)")


def verify_command(
    certificate: Annotated[Path, typer.Argument(metavar="CERTIFICATE", help="The certificate (a DSSE envelope, JSON).")],
    public_key: Annotated[Path, typer.Option("--public-key", metavar="FILE", help="The signer's public key (KEY.pub).")],
    data: Annotated[Path | None, typer.Option("--data", metavar="FILE", help="The release, at any path: check its digest and re-run the audit on it (default: re-measure the embedded count tables).")] = None,
    original: Annotated[Path | None, typer.Option("--original", metavar="FILE", help="The original the release was made from (with --data): measure the utility section again (default: it is the publisher's statement).")] = None,
    allow_fail: Annotated[bool, typer.Option("--allow-fail", help="Exit 0 for a valid certificate whose verdict is FAIL (validity alone).")] = False,
    json_out: Annotated[str | None, typer.Option("--json", metavar="FILE|-", help="Also write what was found as JSON (the verdict, how many requirements are the publisher's statement, every line).")] = None,
    encoding: Annotated[str | None, typer.Option("--encoding", metavar="NAME", help="The release's text encoding (default: the one the certificate records, else UTF-8).")] = None,
    engine: EngineOption = "pandas",
    master: MasterOption = None,
) -> None:
    """Re-check a certificate: every signed field re-derived, or named as the publisher's statement.

    Exit codes: 0 valid and PASS; 1 valid and FAIL (0 with --allow-fail); 2 bad input; 4 invalid; 5 incomplete.
    """
    from privcert.api import verify
    from privcert.reporting import reporting_errors
    from reports.signing import MalformedCertificateError
    from verifier.engines import get_engine
    from verifier.errors import PolicyError, VerifierError
    from verifier.escape import safe

    with reporting_errors():  # the claims left out of the catalog it checks in are named as a warning
        try:
            found = verify(certificate, public_key, data=data, original=original,
                           engine=get_engine(engine, master=master), encoding=encoding)
        except (MalformedCertificateError, PolicyError) as error:
            raise _bad_input(said(error)) from error
        except (OSError, VerifierError) as error:
            raise _bad_input(f"{certificate}: {said(error)}") from error
    from privcert.files import write_json

    try:
        if write_json(said_in(found.to_json()), json_out):
            raise typer.Exit(found.exit_code(allow_fail=allow_fail))
    except PolicyError as error:
        raise _bad_input(said(error)) from error
    for line in found.lines:
        typer.echo(safe(said(line.text())))
    typer.echo(safe(said(found.summary())))
    raise typer.Exit(found.exit_code(allow_fail=allow_fail))
