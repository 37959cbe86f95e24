"""Re-checking a certificate: its signature, the release's digest, and every measurement.

A certificate is trusted only as far as each of these holds:

1. the DSSE signature verifies with the publisher's public key (:mod:`reports.signing`);
2. the release a reader holds has the SHA-256 the statement names as its subject;
3. auditing that release again under the policy the certificate carries gives the same
   measurements, byte for byte in canonical JSON (RFC 8785), and count tables with the
   SHA-256 the certificate names;
4. without the release: the count tables embedded in the certificate have that SHA-256,
   and auditing them gives the same measurements;
5. for a randomized release, the randomized levels measured again (publisher or auditor
   mode, Ekenstedt et al. 2022) are the certificate's ``randomized`` section, byte for
   byte in canonical JSON.

Each failure is reported as one :class:`Finding` that says what differs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reports.embedded_counts import EmbeddedCountsError, counts_sha256, decode_counts, release_counts
from reports.statement import Statement, canonical, sha256_file
from theory.answers.auditor_mode import audit_release
from verifier.audit import AuditResult, audit_tables
from verifier.errors import VerifierError
from verifier.hierarchy import Hierarchy
from verifier.policy import Policy, parse_policy
from verifier.randomized_levels import MechanismChoice

__all__ = ["Finding", "check_release", "check_measurements", "check_embedded_counts", "check_randomized"]


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


def certified_policy(statement: Statement, base: Path, hierarchies: Mapping[str, Hierarchy] | None = None) -> Policy:
    """The policy the certificate carries, with files it names resolved against ``base``
    (or the hierarchies given, such as those embedded with the count tables)."""
    policy = statement.predicate["policy"]
    return parse_policy(str(policy["text"]), source=f"certificate policy {policy['source']}", base=base,
                        hierarchies=hierarchies)


def check_measurements(statement: Statement, rerun: Callable[[Policy], AuditResult],
                       base: Path) -> tuple[tuple[Finding, ...], AuditResult]:
    """Re-run the audit under the certified policy and compare every measurement exactly.

    When the certificate names the SHA-256 of its count tables, the tables of the re-run
    must have it too. Returns the findings and the audit run again.
    """
    result = rerun(certified_policy(statement, base))
    findings = list(_compare(statement, result))
    counts = statement.predicate.get("counts")
    if isinstance(counts, Mapping) and counts.get("sha256") != (found := counts_sha256(release_counts(result))):
        findings.append(Finding(f"the release's count tables have SHA-256 {found}, but the certificate names "
                                f"{counts.get('sha256')}"))
    return tuple(findings), result


def check_embedded_counts(statement: Statement, base: Path, *, mechanism: MechanismChoice = MechanismChoice()
                          ) -> tuple[tuple[Finding, ...], AuditResult | None]:
    """Re-measure from the count tables embedded in the certificate, without the release.

    Their canonical SHA-256 must be the one the certificate names; then the audit is run
    on them under the certified policy (with the embedded hierarchies), its randomized
    levels with ``mechanism``'s mode and subset sizes, and every measurement must be
    identical. Returns the findings and the audit run again (``None`` when none could run).
    """
    counts = statement.predicate.get("counts")
    if not isinstance(counts, Mapping) or "tables" not in counts:
        return (Finding("the certificate does not embed its count tables: pass --data RELEASE to re-check it"),), None
    found = counts_sha256(counts["tables"])
    if found != counts.get("sha256"):
        return (Finding(f"the embedded count tables have SHA-256 {found}, but the certificate names "
                        f"{counts.get('sha256')}"),), None
    try:
        classes, tables, hierarchies = decode_counts(counts["tables"])
        policy = certified_policy(statement, base, hierarchies)
        specs = tuple(table.spec for table in tables)
        if specs != policy.attributes:
            return (Finding(f"the embedded count tables are for the attributes {[list(s.columns) for s in specs]}, "
                            f"the certified policy measures {[list(s.columns) for s in policy.attributes]} "
                            "(or their kind, order or missing-value rule differ)"),), None
        result = audit_tables(classes, tables, policy, source="embedded count tables", mechanism=mechanism,
                              implications=audit_release)
    except (EmbeddedCountsError, VerifierError) as error:
        return (Finding(f"the embedded count tables cannot be re-measured: {error}"),), None
    return _compare(statement, result), result


def _compare(statement: Statement, result: AuditResult) -> tuple[Finding, ...]:
    """Every certified measurement against the re-measured one, and the verdict."""
    certified = list(statement.predicate["measurements"])
    measured = [check.to_json() for check in result.checks]
    findings = []
    if len(certified) != len(measured):
        findings.append(Finding(f"the certificate lists {len(certified)} measurements, the audit gives {len(measured)}"))
    for index, (before, after) in enumerate(zip(certified, measured, strict=False), start=1):
        findings.extend(_differs(f"measurement {index} ({before.get('requirement')}, {before.get('model')})",
                                 before, after))
    verdict = "pass" if result.passed else "fail"
    if statement.predicate.get("verdict") != verdict:
        findings.append(Finding(f"the certificate's verdict is {statement.predicate.get('verdict')!r}, "
                                f"the audit's is {verdict!r}"))
    return tuple(findings)


def check_randomized(statement: Statement, measured: Mapping[str, Any] | None) -> tuple[Finding, ...]:
    """The certificate's ``randomized`` section against the one measured again (``None``: no mechanism).

    The section holds the levels of the randomized release (Ekenstedt et al. 2022,
    Defs. 4-8; in auditor mode also the levels implied by the theory's map), whether or
    not a requirement names them: each must be identical in canonical JSON, as must the
    mode. The mechanism's path is where the auditor read it (the levels depend on its
    content, which the re-measured levels check), so it is not compared.
    """
    certified = statement.predicate.get("randomized")
    if certified is None and measured is None:
        return ()
    if not isinstance(certified, Mapping):
        return (Finding("the certified policy declares a [mechanism], but the certificate has no randomized levels"),)
    if measured is None:
        return (Finding("the certificate has randomized levels, but its policy declares no [mechanism] to "
                        "measure them again"),)
    findings = list(_differs("the randomized section", {"mode": certified.get("mode")}, {"mode": measured.get("mode")}))
    before, after = list(certified.get("measurements") or []), list(measured.get("measurements") or [])
    if len(before) != len(after):
        findings.append(Finding(f"the certificate lists {len(before)} randomized levels, measuring again gives "
                                f"{len(after)}"))
    for index, (one, other) in enumerate(zip(before, after, strict=False), start=1):
        findings.extend(_differs(f"randomized level {index} ({one.get('model')}, {one.get('parameters')})", one, other))
    return tuple(findings)


def _differs(what: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> tuple[Finding, ...]:
    """One finding naming the keys in which ``before`` (certified) and ``after`` (measured) differ, if any."""
    if canonical(before) == canonical(after):
        return ()
    keys = sorted(k for k in set(before) | set(after) if canonical(before.get(k)) != canonical(after.get(k)))
    return (Finding(f"{what} differs in {', '.join(keys)}: certified {[before.get(k) for k in keys]}, "
                    f"measured {[after.get(k) for k in keys]}"),)
