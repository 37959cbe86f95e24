"""The certificate's content: an in-toto Statement v1 about one audited release.

The statement's subject is the release file, named and identified by the SHA-256 of its
bytes; its predicate (``PREDICATE_TYPE``, privcert's own versioned type) holds what was
checked and what was found, as facts only: the tool and schema versions, the time, the policy
as written, every measurement with its exact level, threshold, verdict and witness, the
overall verdict, the guarantees with their claims, the claim catalog's digest. Sentences
are generated from the facts by each reader (schema 2 also signed them; they are read and
ignored: docs/certificates.md, "Compatibility"). Infinite and undefined levels are
strings (``"inf"``, ``"undefined"``), never ``null``. The statement is serialized with
the JSON Canonicalization Scheme (RFC 8785), so the same audit at the same time gives the
same bytes.

References
----------
in-toto Attestation Framework, Statement layer v1:
https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md
RFC 8785, JSON Canonicalization Scheme (Rundgren, Jordan & Erdtman 2020).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import rfc8785

if TYPE_CHECKING:
    from verifier.audit import AuditResult
    from verifier.policy import Policy

__all__ = [
    "STATEMENT_TYPE",
    "PREDICATE_TYPE",
    "SCHEMA_VERSION",
    "SCHEMAS",
    "Statement",
    "predicate_type",
    "build_predicate",
    "build_statement",
    "failure_sentence",
    "PREDICATE_KEYS",
    "rechecked",
    "canonical",
    "sha256_file",
]

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
SCHEMA_VERSION = "4"
"""The schema of the certificates this privcert issues (docs/certificates.md, "Compatibility")."""
SCHEMAS = ("2", "3", "4")
"""Every schema ever released: ``verify`` reads each of them, for ever."""


def predicate_type(schema: str) -> str:
    """The in-toto predicate type of a schema version."""
    return f"https://privcert.dev/attestation/audit/v{schema}"


PREDICATE_TYPE = predicate_type(SCHEMA_VERSION)
PAYLOAD_TYPE = "application/vnd.in-toto+json"
"""The DSSE payload type of an in-toto statement."""


_SAFE_INTEGER = (1 << 53) - 1


def canonical(document: Any) -> bytes:
    """RFC 8785 canonical JSON bytes of ``document`` (sorted keys, no spaces, UTF-8).

    ``rfc8785`` serializes every value; objects are assembled here (members sorted by the
    UTF-16 code units of their names, RFC 8785 §3.2.3) so that a long array of integers
    in I-JSON's exact range (the count tables) is written in one join, the same bytes
    ``rfc8785`` writes element by element.
    """
    if isinstance(document, Mapping) and all(isinstance(key, str) for key in document):
        members = sorted(document.items(), key=lambda member: member[0].encode("utf-16-be"))
        return b"{" + b",".join(rfc8785.dumps(key) + b":" + canonical(value) for key, value in members) + b"}"
    if isinstance(document, list):
        if all(type(item) is int for item in document) and (
                not document or -_SAFE_INTEGER <= min(document) and max(document) <= _SAFE_INTEGER):
            return ("[" + ",".join(map(str, document)) + "]").encode("ascii")
        return b"[" + b",".join(canonical(item) for item in document) + b"]"
    return rfc8785.dumps(document)


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's bytes, read in chunks.

    For a directory (a Parquet dataset): the SHA-256 of the lines ``<relative path>
    <file's SHA-256>`` of every file under it, in path order, so that renaming, moving,
    adding or changing any file changes the digest.
    """
    if path.is_dir():
        lines = (f"{file.relative_to(path).as_posix()} {sha256_file(file)}\n"
                 for file in sorted(p for p in path.rglob("*") if p.is_file()))
        return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True)
class Statement:
    """An in-toto Statement v1 as a typed value; :meth:`to_json` is the wire form."""

    subject_name: str
    subject_sha256: str
    predicate: Mapping[str, Any]
    predicate_type: str = PREDICATE_TYPE

    @property
    def schema(self) -> str:
        """The schema version its predicate type names (one of :data:`SCHEMAS`)."""
        return self.predicate_type.rsplit("/v", 1)[-1]

    def to_json(self) -> dict[str, Any]:
        return {
            "_type": STATEMENT_TYPE,
            "subject": [{"name": self.subject_name, "digest": {"sha256": self.subject_sha256}}],
            "predicateType": self.predicate_type,
            "predicate": dict(self.predicate),
        }

    def to_bytes(self) -> bytes:
        """The canonical (RFC 8785) bytes that are signed."""
        return canonical(self.to_json())

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> Statement:
        """Read a statement back, checking its type fields; ``ValueError`` names what differs."""
        if document.get("_type") != STATEMENT_TYPE:
            raise ValueError(f"_type: expected {STATEMENT_TYPE!r}, found {document.get('_type')!r}")
        known = [predicate_type(schema) for schema in SCHEMAS]
        if document.get("predicateType") not in known:
            raise ValueError(f"predicateType: expected one of {known}, found {document.get('predicateType')!r}")
        subjects = document.get("subject")
        if not isinstance(subjects, list) or len(subjects) != 1 or not isinstance(subjects[0], Mapping):
            raise ValueError("subject: expected exactly one subject")
        digest = subjects[0].get("digest", {})
        if not isinstance(digest, Mapping) or not isinstance(digest.get("sha256"), str):
            raise ValueError("subject[0].digest.sha256: expected a hex string")
        predicate = document.get("predicate")
        if not isinstance(predicate, Mapping):
            raise ValueError("predicate: expected an object")
        return cls(str(subjects[0].get("name")), digest["sha256"], predicate, str(document["predicateType"]))


def failure_sentence(check: Mapping[str, Any]) -> str:
    """One plain sentence saying why a requirement fails, from its facts (:meth:`verifier.audit.Check.to_json`,
    with or without its sentences: the reason is generated by :func:`verifier.audit.reason_text`)."""
    from verifier.audit import reason_text

    attribute = f" on {check['attribute']}" if check.get("attribute") is not None else ""
    return (f"{check['requirement']} ({check['model']}{attribute}) has level {check['exact']}, "
            f"which does not meet the threshold {check['threshold']}: {reason_text(check)}")


PREDICATE_KEYS: Mapping[str, tuple[str, ...]] = {
    "2": ("tool", "schema_version", "time", "policy", "release", "hierarchies", "mechanism", "counts",
          "measurements", "failures", "verdict", "implied", "randomized", "publisher_statements", "utility"),
    "3": ("tool", "schema_version", "time", "policy", "release", "hierarchies", "mechanism", "counts",
          "measurements", "verdict", "implied", "randomized", "publisher_statements", "utility", "catalog"),
    "4": ("tool", "schema_version", "time", "policy", "release", "hierarchies", "mechanism", "counts",
          "measurements", "verdict", "implied", "randomized", "publisher_statements", "utility", "catalog"),
}
"""Every key a predicate of each schema may have (docs/certificates.md: which are re-derived and which are the
publisher's statements). ``verify`` rejects any other: a signed field nobody checks must not pass for a certified
one."""

def rechecked(model_id: str, policy: Policy | None = None) -> bool:
    """Whether ``verify`` re-measures a requirement on ``model_id`` under ``policy``: its model is re-measured
    from the count tables and reads no input the certificate does not carry (a population table); otherwise its
    measurement goes into the predicate's ``publisher_statements``."""
    from verifier.registry import model

    declared = model(model_id)
    if policy is not None and policy.risk.population_table_named and "population_table" in (
            declared.needs | declared.reads):
        return False
    return declared.recheck == "count_tables"


def build_predicate(
    result: AuditResult,
    policy_text: str | None = None,
    *,
    time: datetime | None = None,
    counts: Mapping[str, Any] | None = None,
    implied: Sequence[Mapping[str, Any]] | None = None,
    mechanism: Mapping[str, Any] | None = None,
    utility: Mapping[str, Any] | None = None,
    catalog: Mapping[str, Any] | None = None,
    encoding: str = "utf-8",
    columns: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The predicate of the statement certifying ``result`` (parameters: :func:`build_statement`): facts only.

    Each requirement's facts (:func:`verifier.audit.facts`: model, parameters, exact level, threshold, witness,
    pass/fail; no sentence) go to ``measurements`` when ``verify`` re-measures them from the count tables, else to
    ``publisher_statements``; every sentence a reader sees is generated from these facts by the views and by
    ``verify`` (docs/certificates.md, "Compatibility"). The ``utility`` section is re-derived only when the
    reader has the original (:mod:`reports.utility_section`); otherwise it is the publisher's statement.
    """
    from reports.embedded_files import encode_hierarchies
    from verifier.audit import facts

    policy = result.policy
    text = policy.text if policy_text is None else policy_text
    if text is None:
        raise ValueError(f"{policy.source}: the policy has no text to certify (read it from a file)")
    when = (time or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
    checks = [facts(check.to_json()) for check in result.checks]
    measured = [check for check, item in zip(checks, result.checks, strict=True)
                if rechecked(item.requirement.model, policy)]
    stated = [check for check, item in zip(checks, result.checks, strict=True)
              if not rechecked(item.requirement.model, policy)]
    predicate: dict[str, Any] = {
        "tool": {"name": "privcert", "version": version("privcert"), "engine": result.report.engine},
        "schema_version": SCHEMA_VERSION,
        "time": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "policy": {"source": Path(policy.source).name, "text": text,
                   "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()},
        "release": {"rows": result.report.rows, "classes": result.report.classes,
                    "quasi_identifiers": list(result.report.qi), "encoding": encoding,
                    **({} if columns is None else {"columns": list(columns)})},
        "hierarchies": encode_hierarchies(policy.hierarchies),
        "measurements": measured,
        "verdict": "pass" if result.passed else "fail",
    }
    optional = {"counts": counts, "implied": None if implied is None else list(implied),
                "randomized": None if result.randomized is None else facts(result.randomized.to_json()),
                "mechanism": mechanism, "utility": None if utility is None else facts(dict(utility)),
                "publisher_statements": {"measurements": stated} if stated else None,
                "catalog": None if catalog is None else dict(catalog)}
    predicate.update({key: value for key, value in optional.items() if value is not None})
    return predicate


def build_statement(
    result: AuditResult,
    release: Path,
    policy_text: str | None = None,
    *,
    time: datetime | None = None,
    counts: Mapping[str, Any] | None = None,
    implied: Sequence[Mapping[str, Any]] | None = None,
    mechanism: Mapping[str, Any] | None = None,
    utility: Mapping[str, Any] | None = None,
    catalog: Mapping[str, Any] | None = None,
    encoding: str = "utf-8",
) -> Statement:
    """The statement certifying ``result``, the audit of the file ``release``.

    Parameters
    ----------
    result
        The audit (:func:`verifier.audit.audit`), with its randomized levels if any.
    release
        The audited file, or in publisher mode the published release; its name (without folders) and the SHA-256
        of its bytes are the subject.
    policy_text
        The policy exactly as written (default: the text the audit's policy was parsed from).
    time
        The time of the audit (default: now, UTC); fixed in tests so that the bytes are
        reproducible.
    counts
        The count tables' section (:func:`reports.embedded_counts.counts_section`): their
        SHA-256, and the tables themselves when they are embedded.
    implied
        The guarantees the measured levels imply, as facts (:func:`reports.certify.implied_section`).
    mechanism
        The mechanism file of a randomized release, by content
        (:func:`reports.embedded_files.encode_mechanism`).
    utility
        What the release cost against its original (:meth:`reports.utility_section.UtilitySection.to_json`).
    catalog
        The claim catalog the guarantees were derived with (:func:`reports.claim_catalog.catalog_section`).
    encoding
        The text encoding the release was read in.
    """
    from verifier.tables.load import release_columns

    predicate = build_predicate(result, policy_text, time=time, counts=counts, implied=implied, mechanism=mechanism,
                                utility=utility, catalog=catalog, encoding=encoding,
                                columns=release_columns(release, encoding))
    return Statement(release.name, sha256_file(release), predicate)
