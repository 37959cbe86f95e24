"""Re-checking a certificate: every signed field re-derived, or named as the publisher's statement.

:func:`verify` checks, in order, and says of each whether it holds, fails or was not
checked (and why):

1. **signature**: one DSSE signature verifies with the reader's key over the canonical
   statement (:func:`reports.signing.open_envelope`);
2. **fields**: the predicate has no field outside :data:`reports.statement.PREDICATE_KEYS`
   and is of the current schema;
3. **hierarchies** and **mechanism**: the files the policy names, carried by content, have
   their stated SHA-256 (:mod:`reports.embedded_files`; no file the policy names is read);
4. **release**: with the release (``data``), its bytes have the subject's SHA-256 (at any
   path); without it, not checked;
5. **count tables**: recomputed from the release, or the embedded ones, have the stated
   SHA-256 (the canonical form of :mod:`reports.embedded_counts`, the same from every
   engine and row order);
6. **audit**: run again under the certified policy on those count tables, with the
   embedded hierarchies and mechanism; the release facts (rows, classes,
   quasi-identifiers), every re-checkable measurement, the failure sentences, the verdict,
   the randomized levels and the implied guarantees (:func:`theory.answers.explain.explain`
   on the re-measured levels) must equal the certificate's, byte for byte in canonical JSON
   but for floats, which may differ by a relative :data:`FLOAT_TOLERANCE`;
7. **utility**: with the original (``original``, and the release), the utility section is
   measured again with its certified inputs (:mod:`reports.utility_section`) and must equal
   the certificate's in the same way; without it, it is the publisher's statement;
8. **publisher's statements**: the tool, the time, and the measurements of models that
   cannot be re-measured from count tables (``publisher_statements``) are listed as such.

The outcome (:meth:`Verification.exit_code`): valid and PASS, valid and FAIL, invalid, or
incomplete (the signature holds but the measurements could not be re-measured: no
embedded count tables and no release).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from reports.embedded_counts import EmbeddedCountsError, counts_sha256, decode_counts, release_counts
from reports.embedded_files import EmbeddedFileError, decode_hierarchies, decode_mechanism
from reports.signing import CertificateError, MalformedCertificateError, open_envelope
from reports.statement import PREDICATE_KEYS, SCHEMA_VERSION, Statement, canonical, failure_sentence, rechecked, sha256_file
from verifier.audit import AuditResult
from verifier.errors import DataError, PolicyError, VerifierError
from verifier.policy import Policy, parse_policy
from verifier.randomized_levels import MechanismChoice

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Outcome", "Line", "Verification", "verify", "VALID", "FAILED_VERDICT", "INVALID", "INCOMPLETE",
           "FLOAT_TOLERANCE"]

Outcome = Literal["holds", "fails", "not checked", "publisher's statement"]

VALID = 0
"""Exit code: the certificate is valid and its verdict is PASS."""
FAILED_VERDICT = 1
"""Exit code: the certificate is valid and certifies a FAIL verdict (0 with ``allow_fail``)."""
INVALID = 4
"""Exit code: a signature or a re-check fails."""
INCOMPLETE = 5
"""Exit code: the signature holds, but the measurements could not be re-measured (no tables, no release)."""


@dataclass(frozen=True)
class Line:
    """One thing ``verify`` looked at: what, whether it holds, and the detail."""

    subject: str
    outcome: Outcome
    detail: str

    def text(self) -> str:
        return f"{self.subject}: {self.outcome}" + (f" ({self.detail})" if self.detail else "")


@dataclass(frozen=True)
class Verification:
    """What :func:`verify` found: the statement (when the signature holds) and one :class:`Line` per check."""

    statement: Statement | None
    lines: tuple[Line, ...]

    @property
    def valid(self) -> bool:
        """The signature holds and nothing re-checked differs."""
        return self.statement is not None and all(line.outcome != "fails" for line in self.lines)

    @property
    def complete(self) -> bool:
        """The measurements were re-measured (from the embedded count tables or the release)."""
        return any(line.subject == "measurements" and line.outcome == "holds" for line in self.lines)

    @property
    def verdict(self) -> str | None:
        """The certified verdict (``pass`` or ``fail``) of a valid certificate."""
        return None if self.statement is None else str(self.statement.predicate.get("verdict"))

    def exit_code(self, *, allow_fail: bool = False) -> int:
        """0 valid and PASS; 1 valid and FAIL (0 with ``allow_fail``); 4 invalid; 5 incomplete."""
        if not self.valid:
            return INVALID
        if not self.complete:
            return INCOMPLETE
        return FAILED_VERDICT if self.verdict != "pass" and not allow_fail else VALID

    def summary(self) -> str:
        """The one-line conclusion."""
        if not self.valid:
            return "INVALID: the certificate does not hold (see the lines above)"
        if not self.complete:
            return ("INCOMPLETE: the signature holds, but the measurements were not re-measured (the certificate "
                    "embeds no count tables: pass --data RELEASE)")
        return f"VALID: every re-checkable statement holds; certified verdict {str(self.verdict).upper()}"


def verify(document: Any, public_key: Any, *, data: Path | None = None, original: Path | None = None,
           engine: Any = "pandas", encoding: str = "utf-8") -> Verification:
    """Re-check a certificate (the steps of the module docstring).

    Parameters
    ----------
    document
        The certificate: the DSSE envelope, as parsed JSON (:func:`reports.signing.read_json`).
    public_key
        The signer's public key (:func:`reports.signing.load_public_key`).
    data
        The release, at any path: its digest is checked and the audit run again on it.
    original
        The original the release was made from (with ``data``): the utility section is measured again.
    engine, encoding
        How the release is read (:func:`verifier.measure.measure`).

    Raises
    ------
    MalformedCertificateError
        ``document`` is not a DSSE envelope at all (bad input rather than an invalid certificate).
    VerifierError
        The release or the original cannot be read; ``original`` without ``data`` (a :class:`PolicyError`).
    """
    if original is not None and data is None:
        raise PolicyError(f"--original {original}: expected --data RELEASE as well (the utility models compare the "
                          "original with the release record by record)")
    try:
        statement = open_envelope(document, public_key)
    except MalformedCertificateError:
        raise
    except CertificateError as error:
        return Verification(None, (Line("signature", "fails", str(error)),))
    lines = [Line("signature", "holds", f"Ed25519, key {public_key.keyid[:16]}…")]
    predicate = statement.predicate
    unknown = sorted(set(predicate) - set(PREDICATE_KEYS))
    if unknown or predicate.get("schema_version") != SCHEMA_VERSION:
        detail = (f"signed fields nobody re-checks: {unknown}" if unknown else
                  f"schema_version {predicate.get('schema_version')!r}, this privcert reads {SCHEMA_VERSION!r}")
        return Verification(statement, (*lines, Line("fields", "fails", detail)))
    lines.append(Line("fields", "holds", "every signed field is re-derived below or named as the publisher's"))
    tables = None
    if original is not None and data is not None and "utility" in predicate:
        from verifier.load import load_table

        tables = (load_table(original, encoding=encoding), load_table(data, encoding=encoding))
    try:
        rerun, more = _audit_again(statement, data, engine, encoding)
        lines += more
        if rerun is not None:
            lines += _compare(statement, rerun)
        lines += _utility(statement, original, tables if _held(lines, "release") else None)
        lines += _statements(predicate)
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        lines.append(Line("content", "fails", f"a signed field is not of the shape privcert writes ({type(error).__name__}: "
                                              f"{error})"))
    return Verification(statement, tuple(lines))


def _audit_again(statement: Statement, data: Path | None, engine: Any,
                 encoding: str) -> tuple[AuditResult | None, list[Line]]:
    """Run the certified audit again, from the release or the embedded tables; the lines of the inputs' checks."""
    predicate = statement.predicate
    lines: list[Line] = []
    try:
        hierarchies = decode_hierarchies(predicate.get("hierarchies", {}))
        mechanism = decode_mechanism(predicate["mechanism"]) if "mechanism" in predicate else None
    except EmbeddedFileError as error:
        return None, [Line("policy files", "fails", str(error))]
    lines.append(Line("policy files", "holds", f"{len(hierarchies)} hierarchy(ies)"
                      + (f", mechanism {predicate['mechanism']['name']}" if mechanism is not None else "")
                      + " carried by content, SHA-256 as stated; no file the policy names was read"))
    try:
        policy = _certified_policy(statement, hierarchies)
    except VerifierError as error:
        return None, [*lines, Line("policy", "fails", str(error))]
    choice = _certified_choice(predicate.get("randomized"), mechanism)
    counts = predicate.get("counts")
    if data is not None:
        found = sha256_file(data)
        if found != statement.subject_sha256:
            return None, [*lines, Line("release", "fails", f"{data} has SHA-256 {found}; the certificate is about "
                                                           f"{statement.subject_name} with SHA-256 "
                                                           f"{statement.subject_sha256}")]
        lines.append(Line("release", "holds", f"{data}: SHA-256 {found[:16]}… as the certificate states"))
        from theory.answers.auditor_mode import audit_release
        from verifier.audit import audit

        result = audit(data, policy, source=str(data), mechanism=choice, implications=audit_release, engine=engine,
                       encoding=encoding, progress=False)
        return result, [*lines, *_counts_line(counts, release_counts(result), "the release's")]
    lines.append(Line("release", "not checked", f"no --data; the certificate names {statement.subject_name}, "
                                                f"SHA-256 {statement.subject_sha256[:16]}…"))
    if not isinstance(counts, Mapping) or "tables" not in counts:
        return None, [*lines, Line("measurements", "not checked",
                                   "the certificate embeds no count tables: pass --data RELEASE")]
    embedded = counts["tables"]
    lines += _counts_line(counts, embedded, "the embedded")
    if lines[-1].outcome == "fails":
        return None, lines
    try:
        from theory.answers.auditor_mode import audit_release
        from verifier.audit import audit_tables

        classes, tables = decode_counts(embedded)
        specs = tuple(table.spec for table in tables)
        if specs != policy.attributes:
            return None, [*lines, Line("count tables", "fails", "they are for other attributes than the certified "
                                                                "policy measures (or another kind, order or rule)")]
        result = audit_tables(classes, tables, policy, source="embedded count tables", mechanism=choice,
                              implications=audit_release)
    except (EmbeddedCountsError, VerifierError) as error:
        return None, [*lines, Line("count tables", "fails", f"cannot be re-measured: {error}")]
    return result, lines


def _counts_line(counts: Any, document: Mapping[str, Any], whose: str) -> list[Line]:
    if not isinstance(counts, Mapping) or "sha256" not in counts:
        return [Line("count tables", "fails", "the certificate states no SHA-256 of its count tables")]
    found = counts_sha256(document)
    if found != counts["sha256"]:
        return [Line("count tables", "fails", f"{whose} count tables have SHA-256 {found}, the certificate states "
                                              f"{counts['sha256']}")]
    return [Line("count tables", "holds", f"{whose} count tables have the stated SHA-256 {found[:16]}…")]


def _certified_policy(statement: Statement, hierarchies: Mapping[str, Any]) -> Policy:
    """The certified policy, its files given by content, without the requirements nobody can re-measure."""
    text = statement.predicate["policy"]
    if not isinstance(text, Mapping) or not isinstance(text.get("text"), str):
        raise CertificateError("policy: expected {source, text}")
    policy = parse_policy(text["text"], source=f"the certificate's policy {text.get('source')!r}",
                          base=Path("/nonexistent-certificate-folder"), hierarchies=hierarchies, read_files=False)
    return replace(policy, requirements=tuple(r for r in policy.requirements if rechecked(r.model)))


def _certified_choice(certified: Any, mechanism: Any) -> MechanismChoice:
    """The mode and subset sizes of the certificate's randomized section, and the embedded mechanism."""
    from theory.definitions import sized

    if not isinstance(certified, Mapping):
        return MechanismChoice(given=mechanism)
    subset_models = sized("subset")
    ks = [(m.get("parameters") or {}).get("k") for m in certified.get("measurements") or ()
          if isinstance(m, Mapping) and m.get("model") in subset_models]
    mode = certified.get("mode")
    return MechanismChoice(mode=mode if isinstance(mode, str) else None,
                           ks=tuple(dict.fromkeys(k for k in ks if isinstance(k, int))), given=mechanism)


def _compare(statement: Statement, result: AuditResult) -> list[Line]:
    """Every re-derived section against the certificate's."""
    from reports.certify import implied_section

    predicate = statement.predicate
    checks = [check.to_json() for check in result.checks]
    stated = list(_stated(predicate))
    verdict_passed = all(check["passed"] for check in checks) and all(bool(s.get("passed")) for s in stated)
    report = result.report
    derived = {
        "release facts": ("release", {"rows": report.rows, "classes": report.classes,
                                      "quasi_identifiers": list(report.qi)}),
        "measurements": ("measurements", checks),
        "failures": ("failures", [failure_sentence(c) for c in checks + stated if not c.get("passed")]),
        "verdict": ("verdict", "pass" if verdict_passed else "fail"),
        "randomized levels": ("randomized", None if result.randomized is None else result.randomized.to_json()),
        "implied guarantees": ("implied", implied_section(result) if "implied" in predicate else None),
    }
    lines = []
    for subject, (key, value) in derived.items():
        lines.append(_same(subject, predicate.get(key), value))
    return lines


FLOAT_TOLERANCE = 1e-9
"""How far a re-derived float may be from the certified one, relative (or absolute, near 0).

The floats of a certificate are the figures computed in floating point by nature (entropies,
KL divergence, ARX's record-level quality, statistical risk estimates) and the floats
printed beside an exact value. Another platform or library version may sum in another order
and differ in the last bits, which says nothing about the release; every exact value (integers,
fractions, text, every pass/fail and the verdict) must still be identical."""


def _agree(certified: Any, derived: Any) -> bool:
    """Equal in canonical JSON, but for floats, which may differ by :data:`FLOAT_TOLERANCE`."""
    if type(certified) is float and type(derived) is float:
        return math.isclose(certified, derived, rel_tol=FLOAT_TOLERANCE, abs_tol=FLOAT_TOLERANCE)
    if isinstance(certified, list) and isinstance(derived, list):
        return len(certified) == len(derived) and all(map(_agree, certified, derived))
    if isinstance(certified, Mapping) and isinstance(derived, Mapping):
        return certified.keys() == derived.keys() and all(_agree(certified[key], derived[key]) for key in certified)
    return canonical(certified) == canonical(derived)


def _likeness(certified: Any, derived: Any) -> str:
    """How two agreeing values agree: ``identical``, or equal with floats within the tolerance."""
    if canonical(certified) == canonical(derived):
        return "identical"
    return f"equal (floats within a relative {FLOAT_TOLERANCE:g})"


def _same(subject: str, certified: Any, derived: Any) -> Line:
    """Whether a certified section equals the re-derived one (:func:`_agree`), and where it differs."""
    if _agree(certified, derived):
        count = f"{len(derived)} item(s), " if isinstance(derived, list) else ""
        return Line(subject, "holds", f"{count}re-derived and {_likeness(certified, derived)}" if derived is not None
                    else "none, as stated")
    return Line(subject, "fails", _difference(certified, derived))


def _difference(certified: Any, derived: Any) -> str:
    """Where two JSON values differ, descending into the one list item or object member that differs."""
    if isinstance(certified, list) and isinstance(derived, list):
        if len(certified) != len(derived):
            return f"the certificate lists {len(certified)}, re-deriving gives {len(derived)}"
        for index, (one, other) in enumerate(zip(certified, derived, strict=True), start=1):
            if not _agree(one, other):
                return f"item {index} " + _difference(one, other)
    if isinstance(certified, Mapping) and isinstance(derived, Mapping):
        keys = sorted((k for k in set(certified) | set(derived)
                       if k not in certified or k not in derived or not _agree(certified[k], derived[k])), key=str)
        nested = [k for k in keys if isinstance(certified.get(k), (list, Mapping))
                  and type(certified.get(k)) is type(derived.get(k))]
        if len(keys) == 1 and nested:
            return f"{keys[0]}: " + _difference(certified[keys[0]], derived[keys[0]])
        return (f"differs in {', '.join(map(str, keys))}: certified {[certified.get(k) for k in keys]}, "
                f"re-derived {[derived.get(k) for k in keys]}")
    return f"certified {certified!r}, re-derived {derived!r}"


def _held(lines: Sequence[Line], subject: str) -> bool:
    return any(line.subject == subject and line.outcome == "holds" for line in lines)


def _utility(statement: Statement, original: Path | None, tables: tuple[pd.DataFrame, pd.DataFrame] | None
             ) -> list[Line]:
    """The utility section measured again on the original and the release (``tables``, read when the release has
    its certified digest), or named as the publisher's statement."""
    from reports.utility_section import recompute

    section = statement.predicate.get("utility")
    if section is None:
        return [] if original is None else [Line("utility", "not checked", "the certificate has no utility section")]
    figures = section["figures"]
    if not isinstance(figures, list):
        raise TypeError("utility.figures: expected a list")
    against = f"{len(figures)} figure(s) against the original {section['original']!r}"
    if original is None:
        return [Line("utility", "publisher's statement", f"{against}, not re-computed: pass --original ORIGINAL "
                                                          "--data RELEASE")]
    if tables is None:
        return [Line("utility", "not checked", "the release does not have the certified SHA-256")]
    try:
        derived = recompute(section, *tables, statement.subject_name)
    except (DataError, EmbeddedFileError) as error:
        return [Line("utility", "fails", f"cannot be measured again against {original}: {error}")]
    line = _same("utility", section, derived)
    if line.outcome == "holds":
        return [Line("utility", "holds", f"{against}, re-measured from {original} and {_likeness(section, derived)}")]
    return [line]


def _stated(predicate: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The measurements the publisher states without their being re-checkable (``publisher_statements``).

    Raises
    ------
    TypeError
        The section is not an object of a list of objects.
    """
    section = predicate.get("publisher_statements", {})
    found = section.get("measurements", []) if isinstance(section, Mapping) else None
    if not isinstance(found, list) or not all(isinstance(item, Mapping) for item in found):
        raise TypeError("publisher_statements: expected {\"measurements\": [objects]}")
    return found


def _statements(predicate: Mapping[str, Any]) -> Sequence[Line]:
    given = predicate.get("tool")
    tool: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    lines = [Line("tool and time", "publisher's statement",
                  f"{tool.get('name')} {tool.get('version')} ({tool.get('engine')} engine), {predicate.get('time')}")]
    stated = _stated(predicate)
    if stated:
        models = sorted({str(item.get("model")) for item in stated if isinstance(item, Mapping)})
        lines.append(Line("measurements not re-measurable from count tables", "publisher's statement",
                          f"{len(stated)} of {', '.join(models)} (they need inputs the certificate does not carry)"))
    return lines
