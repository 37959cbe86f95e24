"""``privcert keygen``, ``verify`` and ``report``, and the certificate and views written by ``audit``.

Thin: reads files, calls :mod:`reports`, prints, sets the exit code (``verify``: 0 valid,
1 invalid, saying what differs; 2 bad input).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from privcert.options import EncodingOption

if TYPE_CHECKING:
    from reports.statement import Statement
    from reports.verification import Finding
    from verifier.audit import AuditResult
    from verifier.randomized_levels import MechanismChoice

__all__ = ["keygen_command", "report_command", "verify_command", "write_certificate"]



def _bad_input(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def _verify_command(certificate: Path, public_key: str, release: str | None) -> str:
    command = ["privcert", "verify", str(certificate), "--public-key", public_key]
    return shlex.join(command + ([] if release is None else ["--data", release]))


def write_certificate(result: AuditResult, release: Path, policy: Path, key: Path | None, out: Path | None, *,
                      html: Path | None = None, pdf: Path | None = None, embed_counts: bool = True) -> None:
    """Sign the audit of ``release`` with ``key`` and write the envelope to ``out`` (both or neither),
    and its views to ``html`` and ``pdf``.

    ``embed_counts`` puts the count tables in the certificate (their SHA-256 is always
    there). Views of an unsigned audit show the same content without a signature. The
    guarantees the measured levels imply (:func:`theory.answers.explain.explain`) go into the
    predicate as ``implied``.
    """
    if key is None and out is None and html is None and pdf is None:
        return
    if (key is None) != (out is None):
        raise _bad_input("--sign KEY and --certificate OUT go together")
    from reports.embedded_counts import counts_section
    from reports.signing import CertificateError, load_signer, sign
    from reports.statement import build_statement
    from reports.views import write_views
    from theory.answers.explain import explain

    try:
        signer = None if key is None else load_signer(key)
    except (OSError, CertificateError) as error:
        raise _bad_input(f"--sign {key}: {error}") from error
    statement = build_statement(result, release, policy.read_text(encoding="utf-8"),
                                counts=counts_section(result, embed=embed_counts),
                                implied=explain(result.to_json()).to_json(),
                                randomized=None if result.randomized is None else result.randomized.to_json())
    text = None
    if signer is not None and out is not None:
        text = json.dumps(sign(statement, signer), indent=2) + "\n"
        temporary = out.with_name(f".{out.name}.tmp")
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(out)
    command = None if out is None else _verify_command(out, f"{key}.pub", None if embed_counts else str(release))
    try:
        write_views(statement, tables=tuple(result.report.tables.values()), envelope_text=text,
                    certificate_name=out.name if out else "", verify_command=command, html=html, pdf=pdf)
    except (OSError, CertificateError) as error:
        raise _bad_input(f"cannot write the views: {error}") from error


def report_command(
    certificate: Annotated[Path, typer.Argument(metavar="CERTIFICATE", help="The certificate (a DSSE envelope, JSON).")],
    html: Annotated[Path | None, typer.Option("--html", metavar="FILE", help="Write the HTML view (one self-contained file).")] = None,
    pdf: Annotated[Path | None, typer.Option("--pdf", metavar="FILE", help="Write the PDF view (the certificate attached).")] = None,
    public_key: Annotated[Path | None, typer.Option("--public-key", metavar="FILE", help="Check the signature first (KEY.pub).")] = None,
) -> None:
    """Render an existing certificate as HTML and/or PDF (the figures need its embedded count tables)."""
    from reports.embedded_counts import EmbeddedCountsError, decode_counts
    from reports.signing import CertificateError, load_public_key, open_envelope, unverified_statement
    from reports.views import write_views

    if html is None and pdf is None:
        raise _bad_input("give --html FILE and/or --pdf FILE")
    try:
        text = certificate.read_text(encoding="utf-8")
        document = json.loads(text)
        statement = unverified_statement(document) if public_key is None else None
        key = None if public_key is None else load_public_key(public_key)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, CertificateError) as error:
        raise _bad_input(f"{certificate}: {error}") from error
    if key is not None:
        try:
            statement = open_envelope(document, key)
        except CertificateError as error:
            typer.echo(f"INVALID: {certificate}: {error}")
            raise typer.Exit(1) from error
    assert statement is not None
    counts = statement.predicate.get("counts")
    try:
        tables = decode_counts(counts["tables"])[1] if isinstance(counts, dict) and "tables" in counts else ()
    except EmbeddedCountsError:
        tables = ()
    embedded = bool(tables)
    command = _verify_command(certificate, str(public_key or "PUBLIC_KEY"), None if embedded else statement.subject_name)
    try:
        write_views(statement, tables=tables, envelope_text=text, certificate_name=certificate.name,
                    verify_command=command, html=html, pdf=pdf, checked=key is not None)
    except (OSError, CertificateError) as error:
        raise _bad_input(f"cannot write the views: {error}") from error
    for path in (html, pdf):
        if path is not None:
            typer.echo(f"wrote {path}")


def keygen_command(
    out: Annotated[Path, typer.Option("--out", metavar="FILE", help="The private key file to write (its public key goes to OUT.pub).")],
) -> None:
    """Write a new Ed25519 key pair for signing certificates."""
    from reports.signing import generate_keys

    try:
        public = generate_keys(out)
    except FileExistsError as error:
        raise _bad_input(f"--out {out}: the file exists; refusing to overwrite a key") from error
    except OSError as error:
        raise _bad_input(f"--out {out}: {error.strerror}") from error
    typer.echo(f"private key: {out} (mode 0600; keep it secret)\npublic key:  {public}")


def verify_command(
    certificate: Annotated[Path, typer.Argument(metavar="CERTIFICATE", help="The certificate (a DSSE envelope, JSON).")],
    public_key: Annotated[Path, typer.Option("--public-key", metavar="FILE", help="The signer's public key (KEY.pub).")],
    data: Annotated[Path | None, typer.Option("--data", metavar="FILE", help="The release: check its digest and re-run the audit (default: re-measure the embedded count tables).")] = None,
    encoding: EncodingOption = "utf-8",
) -> None:
    """Check a certificate: signature, then every measurement and randomized level, re-measured from the release (--data) or from the embedded count tables."""
    from reports.signing import CertificateError, load_public_key, open_envelope
    from verifier.errors import VerifierError

    try:
        document = json.loads(certificate.read_text(encoding="utf-8"))
        key = load_public_key(public_key)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, CertificateError) as error:
        raise _bad_input(str(error)) from error
    try:
        statement = open_envelope(document, key)
    except CertificateError as error:
        typer.echo(f"INVALID: {certificate}: {error}")
        raise typer.Exit(1) from error
    typer.echo(f"signature: valid ({statement.subject_name}, sha256 {statement.subject_sha256})")
    if data is None and "tables" not in statement.predicate.get("counts", {}):
        typer.echo(f"verdict certified: {statement.predicate.get('verdict')} (the count tables are not embedded: "
                   "pass --data to re-check the release)")
        return
    try:
        findings, done = certificate_findings(statement, certificate, data, encoding)
    except (OSError, VerifierError) as error:
        raise _bad_input(str(error)) from error
    for finding in findings:
        typer.echo(f"INVALID: {finding.what}")
    if findings:
        raise typer.Exit(1)
    typer.echo(f"{done}; verdict {statement.predicate['verdict']}")


def certificate_findings(statement: Statement, certificate: Path, data: Path | None,
                         encoding: str = "utf-8") -> tuple[tuple[Finding, ...], str]:
    """What does not hold of a certificate whose signature verified, and a sentence of what was checked.

    With ``data``: the release's digest, then every measurement re-measured from it; without:
    every measurement re-measured from the embedded count tables. Then the randomized levels.
    """
    from reports.verification import check_embedded_counts, check_measurements, check_randomized, check_release
    from theory.answers.auditor_mode import audit_release
    from verifier.audit import audit
    from verifier.load import load_table

    measured = len(statement.predicate["measurements"])
    choice = _certified_choice(statement.predicate.get("randomized"))
    randomized: dict[str, Any] | None = None
    if data is None:
        findings, rerun = check_embedded_counts(statement, certificate.parent, mechanism=choice)
        done = f"embedded count tables: sha256 matches; {measured} measurements re-measured from them and identical"
    else:
        findings, rerun = check_release(statement, data), None
        if not findings:
            findings, rerun = check_measurements(
                statement, lambda policy: audit(load_table(data, encoding=encoding), policy, source=str(data),
                                                mechanism=choice, implications=audit_release),
                data.parent)
        done = f"release: sha256 matches; {measured} measurements re-measured and identical"
    if rerun is not None and rerun.randomized is not None:
        randomized = rerun.randomized.to_json()
    if not findings and rerun is not None:
        findings = check_randomized(statement, randomized)
        done += "; randomized levels measured again and identical" if randomized else ""
    return findings, done


_SUBSET_MODELS = ("kt_closeness", "k_eps_dp")  # their parameter k is a subset size (--k), not the smallest class


def _certified_choice(certified: Any) -> MechanismChoice:
    """The mode and subset sizes of the certificate's ``randomized`` section (``audit --mode`` and
    ``--k`` may have set them), to measure the randomized levels again as they were measured."""
    from verifier.randomized_levels import MechanismChoice

    if not isinstance(certified, dict):
        return MechanismChoice()
    ks = [(m.get("parameters") or {}).get("k") for m in certified.get("measurements") or ()
          if isinstance(m, dict) and m.get("model") in _SUBSET_MODELS]
    mode = certified.get("mode")
    return MechanismChoice(mode=mode if isinstance(mode, str) else None,
                           ks=tuple(dict.fromkeys(k for k in ks if isinstance(k, int))))
