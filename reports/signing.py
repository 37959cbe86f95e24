"""Signing and checking certificates: DSSE envelopes with Ed25519 keys.

The signed payload is the statement's canonical bytes (:mod:`reports.statement`); the
envelope is the Dead Simple Signing Envelope, whose signature covers the pre-authentication
encoding ``PAE(payloadType, payload)``. Keys, signatures and envelopes are
securesystemslib's (on ``cryptography``); nothing here is hand-rolled cryptography.

References
----------
DSSE: Dead Simple Signing Envelope, protocol v1.0.
https://github.com/secure-systems-lab/dsse/blob/master/protocol.md
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import os
from hashlib import sha256
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.serialization import load_pem_private_key
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import FormatError, VerificationError
from securesystemslib.signer import CryptoSigner, SSlibKey

from reports.statement import PAYLOAD_TYPE, Statement, canonical

__all__ = ["CertificateError", "generate_keys", "load_signer", "load_public_key", "sign", "open_envelope",
           "unverified_statement"]


class CertificateError(ValueError):
    """A certificate, key or signature is malformed or does not verify."""


def generate_keys(private_path: Path) -> Path:
    """Write a new Ed25519 key pair: ``private_path`` (PEM, mode 0600) and ``private_path.pub``.

    The public key file is securesystemslib's key JSON (``keytype``, ``scheme``,
    ``keyval.public``), which :func:`load_public_key` reads.
    """
    signer = CryptoSigner.generate_ed25519()
    public_path = private_path.with_name(private_path.name + ".pub")
    descriptor = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as stream:
        stream.write(signer.private_bytes)
    public_path.write_text(json.dumps(signer.public_key.to_dict(), indent=2) + "\n", encoding="utf-8")
    return public_path


def load_signer(private_path: Path) -> CryptoSigner:
    """The signer for a private key written by :func:`generate_keys`."""
    try:
        key = load_pem_private_key(private_path.read_bytes(), password=None)
    except (ValueError, TypeError) as error:
        raise CertificateError(f"{private_path}: not an unencrypted PEM private key ({error})") from error
    return CryptoSigner(key)


def load_public_key(public_path: Path) -> SSlibKey:
    """A public key written by :func:`generate_keys` (its key id is derived from its content)."""
    try:
        document = json.loads(public_path.read_text(encoding="utf-8"))
        return SSlibKey.from_dict(_key_id(document), dict(document))
    except (ValueError, KeyError, TypeError) as error:
        raise CertificateError(f"{public_path}: not a public key file written by privcert keygen ({error})") from error


def _key_id(document: dict[str, Any]) -> str:
    return sha256(canonical(document)).hexdigest()


def sign(statement: Statement, signer: CryptoSigner) -> dict[str, Any]:
    """The DSSE envelope (as JSON) of ``statement`` signed by ``signer``."""
    envelope = Envelope(payload=statement.to_bytes(), payload_type=PAYLOAD_TYPE, signatures={})
    envelope.sign(signer)
    return envelope.to_dict()


def open_envelope(document: Any, public_key: SSlibKey) -> Statement:
    """Check the envelope's signature with ``public_key`` and return its statement.

    Raises
    ------
    CertificateError
        The envelope is malformed, its payload type is not an in-toto statement, no
        signature verifies, or the payload is not a privcert statement.
    """
    try:
        as_written = canonical(document)
        envelope = Envelope.from_dict(copy.deepcopy(dict(document)))
    except (KeyError, TypeError, ValueError, AttributeError, binascii.Error, FormatError) as error:
        raise CertificateError(f"not a DSSE envelope ({type(error).__name__}: {error})") from error
    if canonical(envelope.to_dict()) != as_written:
        raise CertificateError("the envelope is not in canonical form (extra fields, or base64 that does not "
                               "re-encode to itself)")
    if any(signature.keyid != public_key.keyid for signature in envelope.signatures.values()):
        raise CertificateError(f"the envelope is signed by another key than {public_key.keyid}")
    if envelope.payload_type != PAYLOAD_TYPE:
        raise CertificateError(f"payloadType: expected {PAYLOAD_TYPE!r}, found {envelope.payload_type!r}")
    try:
        envelope.verify([public_key], 1)
    except VerificationError as error:
        raise CertificateError(f"the signature does not verify with this public key ({error})") from error
    try:
        return Statement.from_json(json.loads(envelope.payload))
    except (ValueError, UnicodeDecodeError) as error:
        raise CertificateError(f"the signed payload is not a privcert statement ({error})") from error


def unverified_statement(document: Any) -> Statement:
    """The statement inside an envelope, read *without* checking any signature (for views only).

    Raises
    ------
    CertificateError
        The document is not an envelope whose payload is a privcert statement.
    """
    try:
        payload = base64.b64decode(document["payload"], validate=True)
        return Statement.from_json(json.loads(payload))
    except (KeyError, TypeError, ValueError, binascii.Error) as error:
        raise CertificateError(f"not a privcert certificate ({type(error).__name__}: {error})") from error
