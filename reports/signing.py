"""Signing and checking certificates: DSSE envelopes with Ed25519 keys.

The signed payload is the statement's canonical bytes (:mod:`reports.statement`); the
envelope is the Dead Simple Signing Envelope, whose signature covers the pre-authentication
encoding ``PAE(payloadType, payload)``. Keys and signatures are securesystemslib's (on
``cryptography``); nothing here is hand-rolled cryptography.

Reading is strict, so that every byte of a certificate is accounted for:

* the file is JSON without duplicate keys or non-finite numbers (``NaN``, ``1e400``);
* the envelope has exactly ``payload``, ``payloadType`` and ``signatures``, each signature
  exactly ``sig`` and optionally ``keyid``;
* base64 is standard or URL-safe, with or without padding, as the DSSE protocol asks
  verifiers to accept, and must re-encode to itself in the form it was written (a flipped
  low bit of the last character decodes to the same bytes and would otherwise pass);
* one signature (of any number) verifies with the reader's key; the key id is a hint only;
* the payload is the RFC 8785 canonical form of a privcert statement.

References
----------
DSSE: Dead Simple Signing Envelope, protocol and envelope v1.0.
https://github.com/secure-systems-lab/dsse/blob/master/protocol.md
https://github.com/secure-systems-lab/dsse/blob/master/envelope.md
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from hashlib import sha256
from typing import Any

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import UnverifiedSignatureError
from securesystemslib.signer import CryptoSigner, Signature, SSlibKey

from reports.statement import PAYLOAD_TYPE, Statement, canonical
from verifier.named_inputs import Input, Said

__all__ = ["CertificateError", "MalformedCertificateError", "new_key_pair", "load_signer", "load_public_key", "sign",
           "read_json", "open_envelope", "unverified_statement", "public_key_of"]

_HEX_KEY = re.compile(r"[0-9a-f]{64}")


class CertificateError(ValueError):
    """A certificate whose signature or content does not hold (it is invalid)."""


class MalformedCertificateError(CertificateError):
    """A certificate or key file that is not what it should be at all (bad input)."""


def new_key_pair() -> tuple[bytes, str]:
    """A new Ed25519 key pair: the private key (PEM bytes) and the public key file's text.

    The public key file is securesystemslib's key JSON (``keytype``, ``scheme``,
    ``keyval.public``), which :func:`load_public_key` reads.
    """
    signer = CryptoSigner.generate_ed25519()
    return signer.private_bytes, json.dumps(signer.public_key.to_dict(), indent=2) + "\n"


def load_signer(private_key: bytes, source: str) -> CryptoSigner:
    """The signer for an Ed25519 private key written by ``privcert keygen`` (unencrypted PEM, PKCS #8).

    Raises
    ------
    MalformedCertificateError
        Anything else, saying what was found: a public key, an encrypted or OpenSSH key, raw bytes, or a key of
        another type (an RSA or ECDSA key would sign a certificate no privcert reader can verify).
    """
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    text = private_key[:4096]
    if b"ENCRYPTED" in text:
        found = "an encrypted private key (privcert signs with an unencrypted one, mode 0600)"
    elif b"OPENSSH PRIVATE KEY" in text:
        found = "an OpenSSH private key (privcert keygen writes a PEM one)"
    elif b"PUBLIC KEY" in text or text.lstrip().startswith(b"{"):
        found = "a public key (sign with the private key, not its .pub file)"
    else:
        try:
            key = load_pem_private_key(private_key, password=None)
        except (ValueError, TypeError, UnsupportedAlgorithm):
            found = "not a PEM private key"
        else:
            if isinstance(key, Ed25519PrivateKey):
                return CryptoSigner(key)
            found = f"a {type(key).__name__.removeprefix('_').replace('PrivateKey', '')} private key"
    raise MalformedCertificateError(Said(Input("signing_key", source), ": expected an Ed25519 private key written by "
                                         f"privcert keygen, found {found}"))


def public_key_of(signer: CryptoSigner) -> SSlibKey:
    """The public key of ``signer`` with its key id, as :func:`load_public_key` reads it from its ``.pub`` file."""
    document = signer.public_key.to_dict()
    return SSlibKey.from_dict(sha256(canonical(document)).hexdigest(), dict(document))


def load_public_key(text: str, source: str) -> SSlibKey:
    """A public key written by ``privcert keygen`` (its key id is derived from its content).

    Raises
    ------
    MalformedCertificateError
        Not the JSON of an Ed25519 public key (``keytype`` and ``scheme`` ``ed25519``,
        ``keyval.public`` 64 hexadecimal digits, nothing else).
    """
    document = read_json(text, source)
    expected = {"keytype": "ed25519", "scheme": "ed25519"}
    keyval = document.get("keyval") if isinstance(document, dict) else None
    if (not isinstance(document, dict) or set(document) != {"keytype", "scheme", "keyval"}
            or any(document.get(key) != value for key, value in expected.items())
            or not isinstance(keyval, dict) or set(keyval) != {"public"}
            or not isinstance(keyval["public"], str) or not _HEX_KEY.fullmatch(keyval["public"])):
        raise MalformedCertificateError(f"{source}: not a public key file written by privcert keygen (expected "
                                        "keytype and scheme 'ed25519' and keyval.public, 64 hexadecimal digits)")
    return SSlibKey.from_dict(sha256(canonical(document)).hexdigest(), dict(document))


def sign(statement: Statement, signer: CryptoSigner) -> dict[str, Any]:
    """The DSSE envelope (as JSON) of ``statement`` signed by ``signer``."""
    envelope = Envelope(payload=statement.to_bytes(), payload_type=PAYLOAD_TYPE, signatures={})
    envelope.sign(signer)
    return envelope.to_dict()


def read_json(text: str, source: str) -> Any:
    """Strict JSON: a repeated key or a number that is not finite is an error.

    Raises
    ------
    MalformedCertificateError
        Not JSON, a key repeated in an object, or ``NaN``/``Infinity``/an overflowing number.
    """
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in items]
        repeated = sorted({key for key in keys if keys.count(key) > 1})
        if repeated:
            raise MalformedCertificateError(f"{source}: the key {repeated[0]!r} appears twice in one object")
        return dict(items)

    def number(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise MalformedCertificateError(f"{source}: the number {text[:40]} is not finite")
        return value

    def constant(text: str) -> Any:
        raise MalformedCertificateError(f"{source}: {text} is not a JSON number")

    try:
        return json.loads(text, object_pairs_hook=pairs, parse_float=number, parse_constant=constant)
    except (ValueError, RecursionError) as error:
        if isinstance(error, MalformedCertificateError):
            raise
        raise MalformedCertificateError(f"{source}: not JSON ({error})") from None


def _base64(text: Any, where: str) -> bytes:
    """Standard or URL-safe base64, padded or not, that re-encodes to itself in the form it was written."""
    if not isinstance(text, str) or not text.isascii():
        raise MalformedCertificateError(f"{where}: expected a base64 string")
    urlsafe = "-" in text or "_" in text
    padded = text + "=" * (-len(text) % 4)
    try:
        data = (base64.urlsafe_b64decode(padded) if urlsafe else base64.b64decode(padded, validate=True))
    except (binascii.Error, ValueError) as error:
        raise MalformedCertificateError(f"{where}: not base64 ({error})") from None
    again = (base64.urlsafe_b64encode(data) if urlsafe else base64.b64encode(data)).decode("ascii")
    if (again if text.endswith("=") or len(text) % 4 == 0 else again.rstrip("=")) != text:
        raise CertificateError(f"{where}: its base64 does not re-encode to itself (a changed character that decodes "
                               "to the same bytes)")
    return data


def open_envelope(document: Any, public_key: SSlibKey) -> Statement:
    """Check the envelope (see the module docstring) and return its statement.

    Raises
    ------
    MalformedCertificateError
        Not a DSSE envelope (missing or unknown fields, malformed base64).
    CertificateError
        No signature verifies with ``public_key``, the payload type is not an in-toto
        statement, or the payload is not the canonical form of a privcert statement.
    """
    if not isinstance(document, dict) or set(document) != {"payload", "payloadType", "signatures"}:
        found = sorted(document) if isinstance(document, dict) else type(document).__name__
        raise MalformedCertificateError(f"not a DSSE envelope: expected exactly payload, payloadType and signatures, "
                                        f"found {found}")
    payload = _base64(document["payload"], "payload")
    if document["payloadType"] != PAYLOAD_TYPE:
        raise CertificateError(f"payloadType: expected {PAYLOAD_TYPE!r}, found {document['payloadType']!r}")
    signatures = document["signatures"]
    if not isinstance(signatures, list) or not signatures:
        raise MalformedCertificateError("signatures: expected a non-empty list")
    found = []
    for number, item in enumerate(signatures, start=1):
        if not isinstance(item, dict) or "sig" not in item or not set(item) <= {"sig", "keyid"} or not all(
                isinstance(value, str) for value in item.values()):
            raise MalformedCertificateError(f"signatures[{number}]: expected sig and optionally keyid (text), found "
                                            f"{sorted(item) if isinstance(item, dict) else type(item).__name__}")
        found.append(_base64(item["sig"], f"signatures[{number}].sig"))
    pae = Envelope(payload, PAYLOAD_TYPE, {}).pae()
    if not any(_verifies(public_key, signature, pae) for signature in found):
        raise CertificateError(f"no signature verifies with the public key {public_key.keyid[:16]}…: the certificate "
                               "was changed, or signed by another key")
    try:
        statement = Statement.from_json(read_json(payload.decode("utf-8"), "the signed payload"))
    except (ValueError, UnicodeDecodeError) as error:
        raise CertificateError(f"the signed payload is not a privcert statement ({error})") from error
    try:
        written = canonical(statement.to_json())
    except (ValueError, TypeError, OverflowError) as error:  # an integer beyond I-JSON's range (RFC 8785 §3.2.2.3)
        raise CertificateError(f"the signed payload is not in RFC 8785 canonical form ({error})") from error
    if written != payload:
        raise CertificateError("the signed payload is not in RFC 8785 canonical form")
    return statement


def _verifies(key: SSlibKey, signature: bytes, pae: bytes) -> bool:
    try:
        key.verify_signature(Signature(key.keyid, signature.hex()), pae)
    except UnverifiedSignatureError:
        return False
    return True


def unverified_statement(document: Any) -> Statement:
    """The statement inside an envelope, read *without* checking any signature (for views only).

    Raises
    ------
    MalformedCertificateError
        The document is not an envelope whose payload is a privcert statement.
    """
    try:
        payload = _base64(document["payload"], "payload")
        return Statement.from_json(read_json(payload.decode("utf-8"), "the payload"))
    except (KeyError, TypeError, ValueError, UnicodeDecodeError) as error:
        raise MalformedCertificateError(f"not a privcert certificate ({type(error).__name__}: {error})") from error
