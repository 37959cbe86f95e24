"""Issuing a certificate: the statement of an audit, signed, with what its views need.

:func:`certify` turns an audit (:func:`verifier.audit.audit`) into a :class:`Certificate`:
the in-toto statement (:mod:`reports.statement`) with the count tables (embedded or only
their SHA-256, :mod:`reports.embedded_counts`), the hierarchies and the mechanism by
content (:mod:`reports.embedded_files`) and the guarantees the measured levels imply
(:func:`implied_section`), signed in a DSSE envelope when a signer is given
(:mod:`reports.signing`). Nothing here writes a file: the caller writes
:meth:`Certificate.text` and the views (:func:`reports.views.render_views`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reports.embedded_counts import counts_section
from reports.embedded_files import encode_mechanism
from reports.signing import sign
from reports.statement import Statement, build_statement, rechecked

if TYPE_CHECKING:
    from securesystemslib.signer import CryptoSigner

    from reports.utility_section import UtilitySection
    from verifier.audit import AuditResult
    from verifier.counts import CountTable

__all__ = ["Certificate", "certify", "implied_section"]


@dataclass(frozen=True)
class Certificate:
    """A certified audit: its statement, the signed envelope (``None`` when unsigned), the count tables."""

    statement: Statement
    envelope: dict[str, Any] | None
    tables: tuple[CountTable, ...]

    @property
    def text(self) -> str:
        """The certificate file's text: the envelope as indented JSON.

        Raises
        ------
        ValueError
            The certificate is not signed.
        """
        if self.envelope is None:
            raise ValueError("an unsigned audit has no certificate file (give a signer)")
        return json.dumps(self.envelope, indent=2) + "\n"


def implied_section(result: AuditResult) -> list[dict[str, Any]]:
    """The guarantees the re-checkable measured levels imply (:func:`theory.answers.explain.explain`).

    Only measurements ``verify`` re-measures are premises, so that a reader re-derives
    exactly this list. An attribute with rows left out (``missing = "exclude"``) is read at its
    counted rows and their smallest class.
    """
    from theory.answers.explain import explain

    document = result.to_json()
    document["measurements"] = [m for m in document["measurements"] if rechecked(str(m["model"]))]
    counted = {"+".join(map(str, name)) if isinstance(name, tuple) else str(name):
               (table.n, int(table.sizes[table.sizes > 0].min()))
               for name, table in result.report.tables.items() if table.excluded and table.n}
    return explain(document, counted=counted).to_json()


def certify(result: AuditResult, release: Path, policy_text: str, *, signer: CryptoSigner | None = None,
            embed_counts: bool = True, time: datetime | None = None,
            utility: UtilitySection | None = None) -> Certificate:
    """The certificate of ``result``, the audit of the file ``release`` under the policy ``policy_text``.

    Parameters
    ----------
    result
        The audit, with its randomized levels when the release was made by a mechanism.
    release
        The audited file (or Parquet directory): the statement's subject.
    policy_text
        The policy as written.
    signer
        The publisher's key (:func:`reports.signing.load_signer`); ``None`` for an unsigned
        statement (views of an audit without a certificate).
    embed_counts
        Put the count tables in the certificate (their SHA-256 is always there). Never for
        the original data of a randomized release (publisher mode).
    time
        The audit's time (default: now), fixed for reproducible bytes.
    utility
        What the release cost against its original (:func:`reports.utility_section.utility_section`): signed
        in the predicate's ``utility`` section.
    """
    randomized = result.randomized
    mechanism = None if randomized is None or randomized.file is None else encode_mechanism(randomized.file)
    statement = build_statement(result, release, policy_text, time=time,
                                counts=counts_section(result, embed=embed_counts), implied=implied_section(result),
                                mechanism=mechanism, utility=None if utility is None else utility.to_json())
    envelope = None if signer is None else sign(statement, signer)
    return Certificate(statement, envelope, tuple(result.report.tables.values()))
