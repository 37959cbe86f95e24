"""The HTML view of a certificate (or of an audit or a report): one self-contained page.

One Jinja2 template (``reports/templates/certificate.html.j2``) with autoescaping: the
column names and values of a third party's release are text and never markup. The page
holds its CSS and its SVG figures (:mod:`reports.plots`), no script and no external
resource; it is readable on a phone (the measurement table becomes one card per row)
and in print. The PDF (:mod:`reports.pdf`) is the same page with fonts declared through
``@font-face``.

:func:`view` gathers the page's content, one section from each module of :mod:`reports.page` (the measurement
table, the release, the implied guarantees, the randomized levels, the utility, the signature, the verdict's
sentence); text from the release is bounded and made inert by the ``cell`` and ``block`` filters
(:mod:`reports.page.text`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup, escape

from reports.page import names, randomized, release, signature, utility
from reports.page.implied import readable
from reports.page.measurements import failures, in_policy_order, row
from reports.page.text import BLOCK_LIMIT, CELL_LIMIT, block, breakable, cell
from reports.page.verdict import verdict_sentence
from verifier.audit import AuditResult
from verifier.lookalike import shown
from verifier.measure import MeasureResult
from verifier.tables.counts import CountTable

if TYPE_CHECKING:
    from jinja2 import Template

__all__ = ["FontFace", "View", "CELL_LIMIT", "BLOCK_LIMIT", "cell", "block", "breakable", "notebook_html", "render_html", "view"]


@dataclass(frozen=True)
class FontFace:
    """An ``@font-face`` rule: family, weight and the font file's URL."""

    family: str
    weight: str
    url: str


@dataclass(frozen=True)
class View:
    """What the template shows, gathered from a predicate (and the envelope when signed)."""

    context: Mapping[str, Any]


def view(
    predicate: Mapping[str, Any],
    *,
    tables: Sequence[CountTable] = (),
    subject: Mapping[str, str] | None = None,
    envelope: Mapping[str, Any] | None = None,
    verify_command: str | None = None,
    checked: str | None = None,
    revised: Sequence[str] = (),
    title: str | None = None,
) -> View:
    """Gather the page's content.

    Parameters
    ----------
    predicate
        The certificate's predicate (:func:`reports.statement.build_predicate`), or a
        report's JSON (measurements without requirements: no verdict is shown).
    tables
        The count tables, for the figures (empty: no figures of classes).
    subject
        ``{"name", "sha256"}`` of the release.
    envelope
        The signed DSSE envelope: its key id and signature are shown with ``verify_command``.
    checked
        The key id of the public key with which every check of ``verify`` held before rendering (the signer),
        or ``None``: not verified (``privcert report`` without ``--public-key``); the page then carries a "not
        verified" banner at the top, and the envelope's key id (an unsigned hint) is never shown as the signer.
    revised
        The claims a verified level rests on that this privcert has since revised
        (:attr:`reports.verification.Verification.revised`): the banner at the top names them.
    """
    from reports.declared import declared
    from reports.plots import figures, implication_map
    from reports.reading import implied_that_add

    given = predicate.get("release")
    order = (given.get("quasi_identifiers") or []) if isinstance(given, Mapping) else []
    measurements = [in_policy_order(m, order) for m in predicate.get("measurements", [])]
    rows = [row(m) for m in measurements]
    stated = [in_policy_order(m, order) for m in (predicate.get("publisher_statements") or {}).get("measurements", [])]
    implied = implied_that_add([readable(item) for item in predicate.get("implied") or () if isinstance(item, Mapping)],
                               predicate.get("measurements", []))
    verdict = predicate.get("verdict")
    inputs = declared(predicate)
    failed = sum(1 for r in rows if r["passed"] is False)
    return View({
        "title": title or ("Privacy certificate" if envelope is not None else "Privacy audit" if verdict else "Privacy measurements"),
        "tool_version": cell((predicate.get("tool") or {}).get("version", ""), 80),
        "time": None if predicate.get("time") is None else cell(predicate.get("time"), 80),
        "verdict": verdict,
        "failed": failed,
        # made of counts and fixed words only
        "verdict_sentence": Markup(verdict_sentence(verdict, len(rows) + len(stated), failed, len(stated),  # noqa: S704
                                                    inputs.count, randomized.publisher(predicate.get("randomized")))),
        "lookalikes": names.lookalikes(predicate),
        "lookalike_names": names.lookalike_names(predicate),
        "unaudited": names.unaudited(predicate),
        "stated": len(stated),
        "rows": rows,
        "failures": failures([*measurements, *stated]),
        "subject": None if subject is None else {key: cell(value) for key, value in subject.items()},
        "release": release.section(predicate.get("release")),
        "policy": predicate.get("policy"),
        "counts": release.counts(predicate.get("counts")),
        "implied": implied if predicate.get("implied") else None,
        "implication_map": implication_map(implied.shown),
        "statements": [row(m) for m in stated],
        "randomized": randomized.section(predicate.get("randomized")),
        "utility": utility.section(predicate.get("utility")),
        "figures": figures(predicate, tables),
        "signature": signature.section(envelope, checked),
        "verified": envelope is None or checked is not None,
        "revised": [cell(claim) for claim in revised] if checked is not None else [],
        "declared": inputs,
        "verify_command": verify_command,
    })


@cache
def _template() -> Template:
    """The page's template, compiled once per process (the HTML page and the PDF of a certificate share it)."""
    from importlib import resources

    from jinja2 import Environment, FunctionLoader, select_autoescape

    folder = resources.files("reports") / "templates"
    environment = Environment(autoescape=select_autoescape(default=True, default_for_string=True),
                              keep_trailing_newline=True,
                              loader=FunctionLoader(lambda name: (folder / name).read_text(encoding="utf-8")))
    environment.filters.update(cell=cell, block=block, breakable=breakable)
    return environment.get_template("certificate.html.j2")


def render_html(page: View, *, fonts: Sequence[FontFace] = (), date: str | None = None) -> str:
    """The page as HTML text (``fonts``: ``@font-face`` rules, for print; ``date``: PDF metadata dates)."""
    page_text = _template().render(**page.context, fonts=list(fonts), date=date)
    for name in page.context.get("lookalike_names", ()):
        # wherever else the name appears (a sentence, the policy, a figure's text), it is written escaped too
        page_text = page_text.replace(str(escape(name)), shown(name)).replace(name, shown(name))
    return page_text


def notebook_html(item: AuditResult | MeasureResult) -> str:
    """The page of an audit or a report, without signature parts (Jupyter's ``_repr_html_``)."""
    from reports.statement import build_predicate

    if isinstance(item, AuditResult):
        source = Path(item.policy.source)
        text = source.read_text(encoding="utf-8") if source.is_file() else ""
        predicate = build_predicate(item, text)
        report = item.report
    else:
        report = item
        predicate = {"release": {"rows": report.rows, "classes": report.classes, "quasi_identifiers": list(report.qi)},
                     "measurements": [m.to_json() for m in report.measurements]}
    return render_html(view(predicate, tables=tuple(report.tables.values())))
