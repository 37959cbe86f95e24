"""privcert.reports: certificates of an audit that anyone can re-check.

An audit becomes an in-toto Statement v1 (:mod:`reports.statement`), serialized with RFC
8785 and signed in a DSSE envelope with Ed25519 (:mod:`reports.signing`); it carries the
release's count tables (:mod:`reports.embedded_counts`). :mod:`reports.verification`
re-checks the signature, the release's digest and every measurement, from the release or
from the embedded tables. :mod:`reports.html`, :mod:`reports.pdf` and :mod:`reports.plots`
render it (:mod:`reports.views` writes both views). The names below are imported on first
use, so that computing a digest (``reports.statement.sha256_file``) loads no signing code.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "CertificateError": "reports.signing",
    "new_key_pair": "reports.signing",
    "load_public_key": "reports.signing",
    "load_signer": "reports.signing",
    "open_envelope": "reports.signing",
    "sign": "reports.signing",
    "PREDICATE_TYPE": "reports.statement",
    "STATEMENT_TYPE": "reports.statement",
    "Statement": "reports.statement",
    "build_statement": "reports.statement",
    "canonical": "reports.statement",
    "Verification": "reports.verification",
    "verify": "reports.verification",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'reports' has no attribute {name!r}")
