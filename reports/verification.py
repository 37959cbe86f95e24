"""Re-checking a certificate: its signature, the release's digest, and every measurement.

A certificate is trusted only as far as each of these holds:

1. the DSSE signature verifies with the publisher's public key (:mod:`reports.signing`);
2. the release a reader holds has the SHA-256 the statement names as its subject;
3. auditing that release again under the policy the certificate carries gives the same
   measurements, byte for byte in canonical JSON (RFC 8785).

Each failure is reported as one :class:`Finding` that says what differs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reports.statement import Statement, canonical, sha256_file
from verifier.audit import AuditResult
from verifier.policy import Policy, parse_policy

__all__ = ["Finding", "check_release", "check_measurements"]


@dataclass(frozen=True)
class Finding:
    """One thing about a certificate that does not hold, in a plain sentence."""

    what: str


def check_release(statement: Statement, release: Path) -> tuple[Finding, ...]:
    """Whether ``release`` is the file the certificate is about (SHA-256 of its bytes)."""
    found = sha256_file(release)
    if found == statement.subject_sha256:
        return ()
    return (Finding(f"the release {release} has SHA-256 {found}, but the certificate is about "
                    f"{statement.subject_name} with SHA-256 {statement.subject_sha256}"),)


def certified_policy(statement: Statement, base: Path) -> Policy:
    """The policy the certificate carries, with files it names resolved against ``base``."""
    policy = statement.predicate["policy"]
    return parse_policy(str(policy["text"]), source=f"certificate policy {policy['source']}", base=base)


def check_measurements(statement: Statement, rerun: Callable[[Policy], AuditResult], base: Path) -> tuple[Finding, ...]:
    """Re-run the audit under the certified policy and compare every measurement exactly."""
    result = rerun(certified_policy(statement, base))
    certified = list(statement.predicate["measurements"])
    measured = [check.to_json() for check in result.checks]
    findings = []
    if len(certified) != len(measured):
        findings.append(Finding(f"the certificate lists {len(certified)} measurements, the audit gives {len(measured)}"))
    for index, (before, after) in enumerate(zip(certified, measured, strict=False), start=1):
        if canonical(before) != canonical(after):
            keys = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            findings.append(Finding(f"measurement {index} ({before.get('requirement')}, {before.get('model')}) "
                                    f"differs in {', '.join(keys)}: certified {[before.get(k) for k in keys]}, "
                                    f"measured {[after.get(k) for k in keys]}"))
    verdict = "pass" if result.passed else "fail"
    if statement.predicate.get("verdict") != verdict:
        findings.append(Finding(f"the certificate's verdict is {statement.predicate.get('verdict')!r}, "
                                f"the audit's is {verdict!r}"))
    return tuple(findings)
