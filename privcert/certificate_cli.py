"""``privcert keygen`` and ``privcert verify``, and the certificate written by ``audit --sign``.

Thin: reads files, calls :mod:`reports`, prints, sets the exit code (``verify``: 0 valid,
1 invalid, saying what differs; 2 bad input).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from verifier.audit import AuditResult

__all__ = ["keygen_command", "verify_command", "write_certificate"]



def _bad_input(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def write_certificate(result: AuditResult, release: Path, policy: Path, key: Path | None, out: Path | None) -> None:
    """Sign the audit of ``release`` with ``key`` and write the envelope to ``out`` (both or neither)."""
    if key is None and out is None:
        return
    if key is None or out is None:
        raise _bad_input("--sign KEY and --certificate OUT go together")
    from reports.signing import CertificateError, load_signer, sign
    from reports.statement import build_statement

    try:
        signer = load_signer(key)
    except (OSError, CertificateError) as error:
        raise _bad_input(f"--sign {key}: {error}") from error
    statement = build_statement(result, release, policy.read_text(encoding="utf-8"))
    temporary = out.with_name(f".{out.name}.tmp")
    temporary.write_text(json.dumps(sign(statement, signer), indent=2) + "\n", encoding="utf-8")
    temporary.replace(out)


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
    data: Annotated[Path | None, typer.Option("--data", metavar="FILE", help="The release: check its digest and re-run the audit.")] = None,
) -> None:
    """Check a certificate: signature, then (with --data) the release's digest and every measurement."""
    from reports.signing import CertificateError, load_public_key, open_envelope
    from privcert.randomized_cli import RandomizedRun
    from reports.verification import check_measurements, check_release
    from verifier.audit import audit
    from verifier.errors import VerifierError
    from verifier.load import load_table

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
    if data is None:
        typer.echo(f"verdict certified: {statement.predicate.get('verdict')} (pass --data to re-check the release)")
        return
    try:
        findings = check_release(statement, data)
        if not findings:
            findings = check_measurements(
                statement, lambda policy: audit(load_table(data), policy, source=str(data), randomized=RandomizedRun(policy)),
                data.parent)
    except (OSError, VerifierError) as error:
        raise _bad_input(str(error)) from error
    for finding in findings:
        typer.echo(f"INVALID: {finding.what}")
    if findings:
        raise typer.Exit(1)
    typer.echo(f"release: sha256 matches; {len(statement.predicate['measurements'])} measurements re-measured "
               f"and identical; verdict {statement.predicate['verdict']}")
