"""privcert.reports: certificates of an audit that anyone can re-check.

An audit becomes an in-toto Statement v1 (:mod:`reports.statement`), serialized with RFC
8785 and signed in a DSSE envelope with Ed25519 (:mod:`reports.signing`); it carries the
release's count tables (:mod:`reports.embedded_counts`). :mod:`reports.verification`
re-checks the signature, the release's digest and every measurement, from the release or
from the embedded tables. :mod:`reports.html`, :mod:`reports.pdf` and :mod:`reports.plots`
render it (:mod:`reports.views` writes both views).
"""

from reports.signing import CertificateError, generate_keys, load_public_key, load_signer, open_envelope, sign
from reports.statement import PREDICATE_TYPE, STATEMENT_TYPE, Statement, build_statement, canonical
from reports.verification import Finding, check_measurements, check_release

__all__ = [
    "CertificateError",
    "Finding",
    "PREDICATE_TYPE",
    "STATEMENT_TYPE",
    "Statement",
    "build_statement",
    "canonical",
    "check_measurements",
    "check_release",
    "generate_keys",
    "load_public_key",
    "load_signer",
    "open_envelope",
    "sign",
]
