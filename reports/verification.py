"""Re-checking a certificate: every signed field re-derived, or named as the publisher's statement.

:func:`verify` checks, in order, and says of each whether it holds, fails or was not
checked (and why):

1. **signature**: one DSSE signature verifies with the reader's key over the canonical
   statement (:func:`reports.signing.open_envelope`);
2. **fields**: the predicate has no field outside :data:`reports.statement.PREDICATE_KEYS` of its schema, one
   of :data:`reports.statement.SCHEMAS` (every schema ever released is read);
3. **hierarchies** and **mechanism**: the files the policy names, carried by content, have
   their stated SHA-256 (:mod:`reports.embedded_files`; no file the policy names is read);
4. **release**: with the release (``data``), its bytes have the subject's SHA-256 (at any
   path); without it, not checked. In publisher mode (every schema) the levels were measured on the
   original, which is measured again when given (``original``; no certificate names its digest);
5. **count tables**: recomputed from the release, or the embedded ones, have the stated
   SHA-256 (the canonical form of :mod:`reports.embedded_counts`, the same from every
   engine and row order); with the release, the embedded ones must equal its own;
6. **audit**: run again under the certified policy on those count tables, with the
   embedded hierarchies and mechanism. Facts are compared, sentences never
   (:func:`verifier.audit.facts`): the release facts, every re-checkable measurement and the
   measured randomized levels must equal the certificate's in canonical JSON but for floats, which may
   differ by a relative :data:`FLOAT_TOLERANCE`; every requirement of the signed policy has
   exactly one result, and a publisher's statement's pass/fail is its own level against the signed
   threshold; the verdict is derived from them. Implied levels (the guarantees, and auditor mode's implied
   randomized levels) are checked for soundness (:mod:`reports.soundness`), in this privcert's claim catalog
   or in the snapshot of the one the certificate names, not compared with today's derivation; a requirement
   decided on an implied level is decided again on the certified level, against the signed threshold;
7. **utility**: with the original (``original``, and the release), the utility section is
   measured again with its certified inputs (:mod:`reports.utility_section`) and must equal
   the certificate's in the same way; without it, it is the publisher's statement;
8. **publisher's statements**: the tool and the time, and what the publisher declared
   (:mod:`reports.declared`), are listed as such.

The outcome (:meth:`Verification.exit_code`): valid and PASS, valid and FAIL, invalid, or
incomplete (the signature holds but the measurements could not be re-measured: no
embedded count tables and no release).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import sympy

from reports.declared import declared_lines, name_lines
from reports.embedded_counts import EmbeddedCountsError, counts_sha256, decode_counts, release_counts
from reports.embedded_files import EmbeddedFileError, decode_hierarchies, decode_mechanism
from reports.shapes import SHAPES, unknown_key
from reports.signing import CertificateError, MalformedCertificateError, open_envelope
from reports.statement import PREDICATE_KEYS, SCHEMAS, Statement, canonical, rechecked, sha256_file
from verifier.audit import AuditResult, facts
from verifier.errors import DataError, PolicyError, VerifierError
from verifier.named_inputs import Input, Said, text_of
from verifier.policy import Policy, Requirement, parse_policy
from verifier.randomized.modes import MechanismChoice

if TYPE_CHECKING:
    import pandas as pd

    from reports.soundness import Soundness
    from theory.answers.graph import Graph

__all__ = ["Outcome", "Line", "Verification", "verify", "VALID", "FAILED_VERDICT", "INVALID", "INCOMPLETE",
           "FLOAT_TOLERANCE"]

Outcome = Literal["holds", "fails", "not checked", "publisher's statement", "look-alike"]

_NO_TABLES = Said("the certificate embeds no count tables: pass ", Input("data", asked=True))
"""Why the measurements of a certificate without count tables are not re-measured without the release."""
_BOTH = (Input("original", asked=True), " ", Input("data", asked=True))
"""The original and the release, asked for together (publisher mode, utility)."""

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
    """One thing ``verify`` looked at: what, whether it holds, and the detail (a :class:`~verifier.named_inputs.Said`
    when it names an input to give)."""

    subject: str
    outcome: Outcome
    detail: str

    def text(self) -> Said:
        """``SUBJECT: OUTCOME (DETAIL)``, keeping the inputs the detail names."""
        return Said(f"{self.subject}: {self.outcome}", *((" (", self.detail, ")") if self.detail else ()))


@dataclass(frozen=True)
class Verification:
    """What :func:`verify` found: the statement (when the signature holds) and one :class:`Line` per check."""

    statement: Statement | None
    lines: tuple[Line, ...]
    stated: int = 0
    """How many of the signed policy's requirements are the publisher's statement (not re-checkable)."""
    requirements: int = 0
    """How many requirements the signed policy has (each accounted for once)."""
    revised: tuple[str, ...] = ()
    """The claims an implied level rests on that were sound in the catalog the certificate names and that this
    privcert's catalog has since revised (refuted, removed or restated), each with what it says of them now."""

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
            why = next((line.detail for line in self.lines if line.subject == "measurements"), _NO_TABLES)
            return Said("INCOMPLETE: the signature holds, but the measurements were not re-measured (", why, ")")
        revised = (f"; {len(self.revised)} claim(s) it rests on have since been revised (see the implied levels)"
                   if self.revised else "")
        return f"VALID: every re-checkable statement holds; certified verdict {self.verdict_text()}{revised}"

    def to_json(self) -> dict[str, Any]:
        """What ``verify --json`` writes: the outcome, the verdict with how many requirements are statements, the
        declared inputs it holds given, the lines."""
        return {"valid": self.valid, "complete": self.complete, "exit_code": self.exit_code(),
                "verdict": self.verdict if self.valid else None, "requirements": self.requirements,
                "publisher_statements": self.stated, "revised_claims": list(self.revised),
                "declared_inputs": [line.detail for line in self.lines if line.subject == "declared inputs"],
                "summary": self.summary(),
                "lines": [{"subject": line.subject, "outcome": line.outcome, "detail": line.detail}
                          for line in self.lines]}

    def verdict_text(self) -> str:
        """``PASS``, or ``PASS, of which 2 of 7 requirements are the publisher's statement`` when the verdict rests
        on statements; ``it holds given 3 declared inputs`` when it rests on declared inputs too
        (:mod:`reports.declared`)."""
        text = str(self.verdict).upper()
        if self.stated:
            text += f", of which {self.stated} of {self.requirements} requirements are the publisher's statement"
        count = sum(1 for line in self.lines if line.subject == "declared inputs")
        if count:
            text += f"; it holds given {count} declared input{'' if count == 1 else 's'} (listed above)"
        return text


def verify(document: Any, public_key: Any, *, data: Path | None = None, original: Path | None = None,
           engine: Any = "pandas", encoding: str | None = None) -> Verification:
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
        How the release is read (:func:`verifier.measure.measure`); the encoding defaults to the one the
        certificate records (UTF-8 for a certificate of schema 2).

    Raises
    ------
    MalformedCertificateError
        ``document`` is not a DSSE envelope at all (bad input rather than an invalid certificate).
    VerifierError
        The release or the original cannot be read; ``original`` without ``data`` (a :class:`PolicyError`).
    """
    if original is not None and data is None:
        raise PolicyError(Said(Input("original", str(original)), ": expected ", Input("data", asked=True),
                               " as well (the utility models compare the original with the release record by record)"))
    try:
        statement = open_envelope(document, public_key)
    except MalformedCertificateError:
        raise
    except CertificateError as error:
        return Verification(None, (Line("signature", "fails", str(error)),))
    lines = [Line("signature", "holds", f"Ed25519, key {public_key.keyid[:16]}…")]
    predicate = statement.predicate
    schema = statement.schema
    unknown = sorted(set(predicate) - set(PREDICATE_KEYS[schema]))
    nested = unknown_key(predicate, SHAPES[schema])
    if unknown or nested or predicate.get("schema_version") != schema:
        detail = (f"signed fields nobody re-checks: {unknown}" if unknown else
                  f"a signed field nobody re-checks: {nested} (schema {schema} has no such key)" if nested else
                  f"schema_version {predicate.get('schema_version')!r} in a predicate of type {statement.predicate_type}")
        return Verification(statement, (*lines, Line("fields", "fails", detail)))
    lines.append(Line("fields", "holds", f"schema {schema} (this privcert reads {', '.join(SCHEMAS)}); every signed "
                                         "field is re-derived below or named as the publisher's"))
    release = predicate.get("release")
    certified_encoding = release.get("encoding") if isinstance(release, Mapping) else None
    given, encoding = encoding, encoding or (certified_encoding if isinstance(certified_encoding, str) else "utf-8")
    tables = None
    if original is not None and data is not None and "utility" in predicate:
        from verifier.tables.load import load_table

        try:
            released = load_table(data, encoding=encoding)
        except DataError as error:
            if given is not None or sha256_file(data) != statement.subject_sha256:
                raise
            return Verification(statement, (*lines, Line("release", "fails", Said(
                f"{data.name} has the certified SHA-256, but the encoding the certificate states ({encoding}) does "
                "not read it: ", text_of(error)))))
        tables = (load_table(original, encoding=encoding), released)
    counted: tuple[int, int] = (0, 0)
    revised: tuple[str, ...] = ()
    try:
        rerun, more = _audit_again(statement, data, engine, encoding, original)
        lines += more
        if rerun is not None:
            compared, counted, revised = _compare(statement, *rerun)
            lines += compared
        lines += _utility(statement, original, tables if _held(lines, "release") else None)
        lines += _statements(predicate)
        lines += name_lines(predicate)
        lines += declared_lines(predicate)
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        lines.append(Line("content", "fails", f"a signed field is not of the shape privcert writes ({type(error).__name__}: "
                                              f"{error})"))
    return Verification(statement, tuple(lines), *counted, revised=revised)


def _audit_again(statement: Statement, data: Path | None, engine: Any, encoding: str,
                 original: Path | None = None) -> tuple[tuple[AuditResult, Policy] | None, list[Line]]:
    """Run the certified audit again, from the release or the embedded tables (in publisher mode, from the
    original); the lines of the inputs' checks.

    The audit runs the re-checkable requirements; the certified policy (all of them) comes with it."""
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
        certified = _certified_policy(statement, hierarchies)
    except (VerifierError, CertificateError) as error:
        return None, [*lines, Line("policy", "fails", str(error))]
    policy = replace(certified, requirements=tuple(r for r in certified.requirements if rechecked(r.model, certified)))
    choice = _certified_choice(predicate.get("randomized"), mechanism,
                               None if mechanism is None else predicate["mechanism"]["name"])
    counts = predicate.get("counts")
    if choice.mode == "publisher":  # of every schema: schema 2 cannot say which file its levels were measured on
        return _publisher(statement, policy, certified, choice, data, original, engine, encoding, lines)
    if data is not None:
        lines.append(_release_line(statement, data, encoding))
        if lines[-1].outcome == "fails":
            return None, lines
        from theory.answers.auditor_mode import audit_release
        from verifier.audit import audit

        result = audit(data, policy, source=str(data), mechanism=choice, implications=audit_release, engine=engine,
                       encoding=encoding, progress=False)
        lines += _counts_line(counts, release_counts(result), "the release's")
        if isinstance(counts, Mapping) and "tables" in counts and lines[-1].outcome == "holds":
            embedded = counts_sha256(counts["tables"])
            if embedded != counts["sha256"]:
                return None, [*lines, Line("embedded count tables", "fails", f"they have SHA-256 {embedded}, not the "
                                                                             f"release's {counts['sha256']}")]
            lines.append(Line("embedded count tables", "holds", "equal to the release's, re-counted"))
        return (result, certified), lines
    lines.append(Line("release", "not checked", Said("no ", Input("data"), f"; the certificate names "
                                                     f"{statement.subject_name}, SHA-256 {statement.subject_sha256[:16]}…")))
    if not isinstance(counts, Mapping) or "tables" not in counts:
        return None, [*lines, Line("measurements", "not checked", _NO_TABLES)]
    if policy.risk.weights is not None:
        return None, [*lines, Line("measurements", "not checked", Said(
            f"the weights column {policy.risk.weights!r} of individual risk is not among the count tables: pass ",
            Input("data", asked=True)))]
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
    return (result, certified), lines


def _release_line(statement: Statement, data: Path, encoding: str = "utf-8") -> Line:
    """The release has the subject's SHA-256 and (schema 4) the certified header, names and order."""
    from verifier.lookalike import shown
    from verifier.tables.load import release_columns

    found = sha256_file(data)
    if found != statement.subject_sha256:
        return Line("release", "fails", f"{data} has SHA-256 {found}; the certificate is about {statement.subject_name} "
                                        f"with SHA-256 {statement.subject_sha256}")
    release = statement.predicate.get("release")
    certified = release.get("columns") if isinstance(release, Mapping) else None
    if certified is not None:
        try:
            columns = list(release_columns(data, encoding))
        except DataError as error:
            return Line("release", "fails", Said("its header cannot be read in the certified encoding: ", text_of(error)))
        if columns != certified:
            return Line("release", "fails", f"{data.name} has the columns {', '.join(map(shown, columns))}; the "
                                            f"certificate was issued for {', '.join(map(shown, certified))}")
        return Line("release", "holds", f"{data}: SHA-256 {found[:16]}… and the {len(columns)} columns as the "
                                        "certificate states")
    return Line("release", "holds", f"{data}: SHA-256 {found[:16]}… as the certificate states")


def _publisher(statement: Statement, policy: Policy, certified: Policy, choice: MechanismChoice, data: Path | None,
               original: Path | None, engine: Any, encoding: str,
               lines: list[Line]) -> tuple[tuple[AuditResult, Policy] | None, list[Line]]:
    """Publisher mode: the levels were measured on the original data, which the certificate neither carries nor
    names by a digest (a digest would confirm guesses of personal data offline). They are measured again from
    ``original`` when the reader has it, never from the release or from count tables, which a certificate of
    schema 2 may embed (its subject was the audited file, and nothing it signs says whether that file was the
    original: a publisher-mode audit of the release re-signed as schema 2 must not pass for the original's)."""
    from theory.answers.auditor_mode import audit_release
    from verifier.audit import audit

    if data is None:
        lines.append(Line("release", "not checked", Said("no ", Input("data"), "; the certificate names the published "
                                                         f"release {statement.subject_name}, SHA-256 "
                                                         f"{statement.subject_sha256[:16]}…")))
    else:
        lines.append(_release_line(statement, data, encoding))
        if lines[-1].outcome == "fails":
            return None, lines
    if original is None:
        return None, [*lines, Line("measurements", "not checked", Said(
            "publisher mode: the levels were measured on the original data, which no certificate carries: pass ",
            *_BOTH))]
    result = audit(original, policy, source=str(original), mechanism=choice, implications=audit_release, engine=engine,
                   encoding=encoding, progress=False)
    lines.append(Line("original", "not checked", f"{original}: publisher mode names no digest of the original data; "
                                                 "the levels are measured again from it"))
    return (result, certified), lines


def _counts_line(counts: Any, document: Mapping[str, Any], whose: str) -> list[Line]:
    if not isinstance(counts, Mapping) or "sha256" not in counts:
        return [Line("count tables", "fails", "the certificate states no SHA-256 of its count tables")]
    found = counts_sha256(document)
    if found != counts["sha256"]:
        return [Line("count tables", "fails", f"{whose} count tables have SHA-256 {found}, the certificate states "
                                              f"{counts['sha256']}")]
    return [Line("count tables", "holds", f"{whose} count tables have the stated SHA-256 {found[:16]}…")]


def _certified_policy(statement: Statement, hierarchies: Mapping[str, Any]) -> Policy:
    """The certified policy, its files given by content (no file it names is read), every requirement kept."""
    text = statement.predicate["policy"]
    if not isinstance(text, Mapping) or not isinstance(text.get("text"), str):
        raise CertificateError("policy: expected {source, text}")
    digest = text.get("sha256")
    if digest is not None and digest != hashlib.sha256(text["text"].encode("utf-8")).hexdigest():
        raise CertificateError("policy: its text does not have the stated SHA-256")
    return parse_policy(text["text"], source=f"the certificate's policy {text.get('source')!r}",
                        base=Path("/nonexistent-certificate-folder"), hierarchies=hierarchies, read_files=False)


def _certified_choice(certified: Any, mechanism: Any, name: str | None = None) -> MechanismChoice:
    """The mode and subset sizes of the certificate's randomized section, and the embedded mechanism
    (named as it was: a mechanism given on the command line, not in the policy, is no file of the policy's)."""
    from theory.definitions import subset_sized

    file = None if name is None else Path(name)
    if not isinstance(certified, Mapping):
        return MechanismChoice(given=mechanism, file=file)
    subset_models = subset_sized()
    ks = [(m.get("parameters") or {}).get("k") for m in certified.get("measurements") or ()
          if isinstance(m, Mapping) and m.get("model") in subset_models]
    mode = certified.get("mode")
    return MechanismChoice(mode=mode if isinstance(mode, str) else None,
                           ks=tuple(dict.fromkeys(k for k in ks if isinstance(k, int))), given=mechanism, file=file)


def _compare(statement: Statement, result: AuditResult, policy: Policy
             ) -> tuple[list[Line], tuple[int, int], tuple[str, ...]]:
    """Every re-derived fact against the certificate's, every requirement of the signed policy accounted for once;
    how many requirements are the publisher's statements and how many the policy has; and the claims since revised
    that a guarantee rests on.

    Sentences (reasons, notes, failure sentences, readable forms) are views: never compared; implied levels are
    checked for soundness, not compared with today's derivation (docs/certificates.md, "Compatibility")."""
    from reports.claim_catalog import named_catalog

    predicate = statement.predicate
    stated = _stated(predicate)
    measured = predicate["measurements"]
    if not isinstance(measured, list) or not all(isinstance(item, Mapping) for item in measured):
        raise TypeError("measurements: expected a list of objects")
    report = result.report
    release = predicate["release"]
    lines = [_same("release facts", {key: release.get(key) for key in ("rows", "classes", "quasi_identifiers")},
                   {"rows": report.rows, "classes": report.classes, "quasi_identifiers": list(report.qi)})]
    derived = {check.requirement.key: facts(check.to_json()) for check in result.checks}
    accounted, by_key = _account(policy, [*measured, *stated])
    lines.append(accounted)
    if accounted.outcome == "fails":
        return lines, (0, len(policy.requirements)), ()
    restated = {key: value for key, value in _restated(result, predicate.get("randomized")).items()
                if not _agree(facts(by_key[key]), derived[key])}
    expected = {**derived, **restated}
    certified = [facts(by_key[key]) for key in derived]
    compared = _same("measurements", certified, list(expected.values()))
    differing = [(key, value["model"]) for key, value, given in zip(expected, expected.values(), certified, strict=True)
                 if not _agree(given, value)]
    if compared.outcome == "fails" and differing:
        compared = Line("measurements", "fails", f"{compared.detail}; that is {differing[0][0]}, {differing[0][1]}")
    elif compared.outcome == "holds" and restated:
        compared = Line("measurements", "holds", f"{len(derived)} item(s), re-derived and identical but "
                                                 f"{', '.join(restated)}: decided on the certificate's implied "
                                                 "level, each sound (randomized levels), against the signed "
                                                 "threshold, as certified")
    lines.append(compared)
    statements = [r for r in policy.requirements if r.key not in derived]
    if statements:
        lines.append(_consistent(statements, by_key))
    passed = all(bool(by_key[r.key].get("passed")) for r in policy.requirements)
    lines.append(_same("verdict", predicate.get("verdict"), "pass" if passed else "fail"))
    section = predicate.get("catalog")
    named = named_catalog(section.get("sha256")) if isinstance(section, Mapping) else None
    line, revised = _randomized(statement, result, named)
    lines.append(line)
    if "implied" in predicate:
        line, more = _implied(predicate["implied"], result, named)
        lines.append(line)
        revised = tuple(sorted({*revised, *more}))
    lines.append(_catalog(section, named))
    return lines, (len(statements), len(policy.requirements)), revised


def _account(policy: Policy, entries: Sequence[Mapping[str, Any]]) -> tuple[Line, dict[str, Mapping[str, Any]]]:
    """Each requirement of the signed policy appears exactly once among the certified results, and nothing else."""
    keys = [r.key for r in policy.requirements]
    by_key: dict[str, Mapping[str, Any]] = {}
    for entry in entries:
        key = entry.get("requirement")
        if not isinstance(key, str) or key not in keys:
            return Line("requirements", "fails", f"the certificate has a result for {key!r}, which the signed policy "
                                                 "does not require"), by_key
        if key in by_key:
            return Line("requirements", "fails", f"{key} has two results"), by_key
        by_key[key] = entry
    missing = [key for key in keys if key not in by_key]
    if missing:
        return Line("requirements", "fails", f"no result for {', '.join(missing)} of the signed policy (a "
                                             "requirement dropped from the certificate)"), by_key
    for requirement in policy.requirements:
        entry = by_key[requirement.key]
        if entry.get("model") != requirement.model:
            return Line("requirements", "fails", f"{requirement.key}: the signed policy requires {requirement.model}, "
                                                 f"the result is of {entry.get('model')!r}"), by_key
    return Line("requirements", "holds", f"each of the signed policy's {len(keys)} requirement(s) has one result"), by_key


def _consistent(statements: Sequence[Requirement], by_key: Mapping[str, Mapping[str, Any]]) -> Line:
    """The publisher's statements agree with the signed policy: model, attribute, threshold, and the stated
    pass/fail is the stated level decided against the threshold, exactly. Their levels are not re-checked."""
    from verifier.display import exact_text
    from verifier.exact_grammar import GrammarError, read_exact

    for requirement in statements:
        entry = by_key[requirement.key]
        threshold = requirement.threshold
        written = str(threshold) if isinstance(threshold, (int, Fraction)) else exact_text(threshold)
        attribute = entry.get("attribute")
        attribute = tuple(attribute) if isinstance(attribute, list) else attribute
        if entry.get("threshold") != written or attribute != requirement.attribute:
            return Line("publisher's statements", "fails", f"{requirement.key}: the stated threshold or attribute is "
                                                           "not the signed policy's")
        bounds = entry.get("bounds")
        try:
            level = read_exact(bounds["upper"] if isinstance(bounds, Mapping) else entry.get("exact"), requirement.key)
        except GrammarError as error:
            return Line("publisher's statements", "fails", f"{requirement.key}: {error}")
        bound = sympy.Rational(threshold.numerator, threshold.denominator) if isinstance(threshold, Fraction) \
            else sympy.sympify(threshold)
        comparison = (entry.get("direction") or {})
        holds = (level >= bound if comparison.get("stronger") == "larger"
                 else level < bound if comparison.get("strict") else level <= bound)
        if bool(holds) != bool(entry.get("passed")) and not (isinstance(bounds, Mapping) and not entry.get("passed")):
            return Line("publisher's statements", "fails", f"{requirement.key}: the stated level {entry.get('exact')} "
                                                           f"{'meets' if holds else 'does not meet'} the threshold "
                                                           f"{written}, but the certificate says "
                                                           f"{'pass' if entry.get('passed') else 'fail'}")
    return Line("publisher's statements", "publisher's statement",
                f"{len(statements)} requirement(s) ({', '.join(sorted({r.model for r in statements}))}): levels not "
                "re-checkable (they need inputs the certificate does not carry); each pass/fail is its stated level "
                "against the signed threshold")


def _implied(certified: Any, result: AuditResult, named: Graph | None) -> tuple[Line, tuple[str, ...]]:
    """The certified guarantees, checked for soundness (:mod:`reports.soundness`), and the claims since revised
    that some of them rest on.

    Each premise must be a re-measured level; each step's claim a usable claim of this privcert's catalog (or of
    the catalog the certificate names) from the stated definition to the next, with the stated bounds when the
    certificate gives them (schema 3); the re-measured premises, through the certified claims alone, must give
    each stated level or a stronger one. A claim added later, or a stronger level found since, leaves a
    certificate valid."""
    from reports.certify import premises
    from reports.soundness import Stated, Step, soundness
    from theory.answers.explain import explain
    from verifier.exact_grammar import read_exact

    if not isinstance(certified, list) or not all(isinstance(item, Mapping) for item in certified):
        raise TypeError("implied: expected a list of objects")
    guarantees = [item for item in certified if item.get("implied") is not False]
    levels = premises(result)
    measured = [item.to_json() for item in explain(levels, _no_claims()).measured]
    stated = []
    for number, item in enumerate(guarantees, start=1):
        name = item["definition"]
        if facts(item["from"]) not in measured:
            return Line("implied guarantees", "fails", f"item {number} ({name}): the premise {item['from']} is not a "
                                                       "re-measured level"), ()
        stated.append(Stated(f"item {number} ({name})", name, name, read_exact(item["level"], f"implied[{number}].level"),
                             tuple(Step(step["claim"], step["from"], step["to"],
                                        tuple(step["bounds"]) if "bounds" in step else None, str(step["status"]))
                                   for step in item["derivation"]), premise=str(item["from"]["model"])))

    def derive(graph: Graph) -> dict[Hashable, list[sympy.Expr]]:
        reached: dict[Hashable, list[sympy.Expr]] = {}
        for other in explain(levels, graph).implied:
            found = other.to_json()
            reached.setdefault(found["definition"], []).append(read_exact(found["level"], "level"))
        return reached

    found = soundness(stated, derive, named)
    if found.failure is not None:
        return Line("implied guarantees", "fails", found.failure), ()
    return Line("implied guarantees", "holds", f"{len(guarantees)} guarantee(s), each sound: " + (
        _revised(found.revised) if found.revised else
        "its claims are in this privcert's catalog and give its level from the re-measured premises")), found.revised


def _revised(claims: Sequence[str]) -> str:
    """What a line says of levels sound only in the catalog the certificate names (docs/certificates.md,
    "Compatibility")."""
    return ("some only in the catalog the certificate names, whose snapshot ships with this privcert; CLAIMS SINCE "
            f"REVISED: {'; '.join(claims)}: the levels resting on them held when certified and do not follow in "
            "this privcert's catalog")


def _no_claims() -> Graph:
    from theory.answers.graph import Graph

    return Graph(())


def _randomized(statement: Statement, result: AuditResult, named: Graph | None) -> tuple[Line, tuple[str, ...]]:
    """The randomized section: the measured levels re-derived and compared; in auditor mode, the implied levels
    checked for soundness (:mod:`reports.soundness`) when they are not today's, and the claims since revised that
    some of them rest on."""
    predicate = statement.predicate
    certified = facts(predicate.get("randomized"))
    derived = None if result.randomized is None else facts(result.randomized.to_json())
    line = _same("randomized levels", certified, derived)
    if line.outcome == "holds" and derived is not None:
        line = Line("randomized levels", "holds", f"computed from the declared mechanism, {line.detail}")
    if line.outcome == "holds" or derived is None or derived["mode"] != "auditor" or not (
            isinstance(certified, Mapping) and isinstance(certified.get("measurements"), list)):
        return line, ()
    entries = certified["measurements"]
    if not all(isinstance(entry, Mapping) for entry in entries):
        raise TypeError("randomized.measurements: expected a list of objects")
    implied = [(number, entry) for number, entry in enumerate(entries, start=1) if entry.get("implied") is True]
    line = _same("randomized levels", {**certified, "measurements": [e for e in entries if e.get("implied") is not True]},
                 {**derived, "measurements": [e for e in derived["measurements"] if e.get("implied") is not True]})
    if line.outcome == "fails":
        return line, ()
    found = _implied_randomized(implied, result, predicate, named)
    if found.failure is not None:
        return Line("randomized levels", "fails", found.failure), ()
    measured = len(entries) - len(implied)
    return Line("randomized levels", "holds", f"{measured} level(s) computed from the declared mechanism, re-derived "
                                              "and identical; "
                                              f"{len(implied)} implied level(s), each sound: " + (
        _revised(found.revised) if found.revised else "its claims are in this privcert's catalog and give its level "
                                                      "(or a stronger one) from the re-measured ε-LDP")), found.revised


def _implied_randomized(implied: Sequence[tuple[int, Mapping[str, Any]]], result: AuditResult,
                        predicate: Mapping[str, Any], named: Graph | None) -> Soundness:
    """Auditor mode's implied levels for soundness: each from the re-measured ε-LDP (its premise), through its
    certified claims (:func:`theory.answers.auditor_mode.audit_release` on a graph of them)."""
    from reports.soundness import Soundness, Stated, Step, soundness
    from theory.answers.auditor_mode import audit_release
    from theory.answers.graph import SIZED
    from verifier.exact_grammar import read_exact
    from verifier.results import jsonable

    assert result.randomized is not None
    premise = result.randomized.measurements[0]
    stated = []
    floats: list[str] = []
    for number, entry in implied:
        label = f"item {number} ({', '.join([entry['model'], *(f'{k} = {v}' for k, v in entry['parameters'].items())])})"
        if entry.get("premise") != {"model": premise.model, "exact": premise.level.exact}:
            return Soundness(f"{label}: its premise {entry.get('premise')} is not the re-measured "
                             f"{premise.model} {premise.level.exact}")
        level = read_exact(entry["exact"], f"randomized {label}")
        if not _agree(entry.get("level"), _number(level)):
            floats.append(f"{label}: the level {entry.get('level')!r} is not its exact value {entry['exact']}")
        stated.append(Stated(label, entry["model"], (entry["model"], canonical(entry["parameters"])), level,
                             tuple(Step(step["claim"], step["premise"], step["conclusion"], status=str(step["status"]))
                                   for step in entry["derivation"]), premise=str(premise.model)))
    assert premise.attribute is not None  # ε-LDP is of the mechanism's attribute
    table = result.report.tables[premise.attribute]
    mechanism = decode_mechanism(predicate["mechanism"])
    ks = tuple(dict.fromkeys(entry["parameters"]["k"] for _, entry in implied if entry["model"] in SIZED))

    def derive(graph: Graph) -> dict[Hashable, list[sympy.Expr]]:
        reached: dict[Hashable, list[sympy.Expr]] = {}
        for level in audit_release(table, mechanism, ks, graph)[1]:
            if level.level.value is not None:
                reached.setdefault((level.model, canonical(jsonable(level.parameters))), []).append(level.level.value)
        return reached

    found = soundness(stated, derive, named)
    return Soundness(floats[0]) if found.failure is None and floats else found


def _number(level: sympy.Expr) -> Any:
    """A level as :attr:`verifier.results.Level.json_value` writes it beside its exact value."""
    from verifier.results import Level

    return Level(level).json_value


def _restated(result: AuditResult, certified: Any) -> dict[str, Any]:
    """Auditor mode: the randomized requirements decided as the audit decides them
    (:func:`verifier.audit.decide`), on the re-measured levels and the certificate's implied ones (checked for
    soundness in the randomized levels' line), as facts by requirement."""
    from verifier.audit import decide
    from verifier.exact_grammar import read_exact
    from verifier.randomized.modes import ImpliedLevel
    from verifier.results import Level

    randomized = result.randomized
    if randomized is None or randomized.mode != "auditor" or not isinstance(certified, Mapping) or not isinstance(
            certified.get("measurements"), list):
        return {}
    implied = tuple(ImpliedLevel(entry["model"], Level(read_exact(entry["exact"], "randomized level")),
                                 entry["premise"]["model"], Level(read_exact(entry["premise"]["exact"], "premise")), (),
                                 dict(entry["parameters"]))
                    for entry in certified["measurements"] if isinstance(entry, Mapping) and entry.get("implied") is True)
    levels = replace(randomized, implied=implied).decidable
    return {check.requirement.key: facts(decide(result.report, check.requirement, levels).to_json())
            for check in result.checks if check.requirement.randomized}


def _catalog(section: Any, named: Graph | None) -> Line:
    """Whether the certificate was derived with this privcert's claim catalog, and whether a snapshot of its own
    ships with this privcert (a record; soundness is checked)."""
    from reports.claim_catalog import catalog_section

    if not isinstance(section, Mapping):
        return Line("claim catalog", "not checked", "not recorded (schema 2); the guarantees were checked for "
                                                    "soundness in this privcert's catalog")
    here = catalog_section()
    same = "the same as this privcert's" if section.get("sha256") == here["sha256"] else (
        f"this privcert's is {here['sha256'][:16]}… (privcert {here['privcert']}); the guarantees were checked for "
        "soundness in it" + (", then in the snapshot of the certificate's, which ships with this privcert"
                             if named is not None else
                             "; no snapshot of the certificate's ships with this privcert"))
    return Line("claim catalog", "holds", f"privcert {section.get('privcert')}'s, SHA-256 "
                                          f"{str(section.get('sha256'))[:16]}…: {same}")


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
        return [Line("utility", "publisher's statement", Said(f"{against}, not re-computed: pass ", *_BOTH))]
    if tables is None:
        return [Line("utility", "not checked", "the release does not have the certified SHA-256")]
    try:
        derived = recompute(section, *tables, statement.subject_name)
    except (DataError, EmbeddedFileError) as error:
        return [Line("utility", "fails", f"cannot be measured again against {original}: {error}")]
    line = _same("utility", facts(section), facts(derived))
    if line.outcome == "holds":
        return [Line("utility", "holds", f"{against}, re-measured from {original} and {_likeness(facts(section), facts(derived))}")]
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
    from reports.page.text import cell

    return [Line("tool and time", "publisher's statement",
                 f"{cell(tool.get('name'), 80)} {cell(tool.get('version'), 80)} ({cell(tool.get('engine'), 80)} engine), "
                 f"{cell(predicate.get('time'), 80)}")]
