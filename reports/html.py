"""The HTML view of a certificate (or of an audit or a report): one self-contained page.

One Jinja2 template (``reports/templates/certificate.html.j2``) with autoescaping: the
column names and values of a third party's release are text and never markup. The page
holds its CSS and its SVG figures (:mod:`reports.plots`), no script and no external
resource; it is readable on a phone (the measurement table becomes one card per row)
and in print. The PDF (:mod:`reports.pdf`) is the same page with fonts declared through
``@font-face``.

Text from the release is also bounded and made inert (the ``cell`` and ``block`` filters):
control characters and bidirectional overrides are shown escaped (a U+202E in a value
would otherwise reverse the rest of its sentence, numbers included), and a value longer
than :data:`CELL_LIMIT` characters is cut with an ellipsis and its length (the whole value
is in the certificate's JSON), so that no release can make a page unreadable or its PDF
layout take minutes (WeasyPrint lays out an unbreakable string in quadratic time).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from verifier.audit import AuditResult, reason_text
from verifier.display import attribute_label
from verifier.lookalike import shown
from verifier.measure import MeasureResult
from verifier.tables.counts import CountTable

__all__ = ["FontFace", "View", "CELL_LIMIT", "BLOCK_LIMIT", "cell", "block", "breakable", "notebook_html", "render_html", "view"]

CELL_LIMIT = 240
"""Most characters of a value a table cell or sentence shows."""
BLOCK_LIMIT = 20_000
"""Most characters of a block of text (the policy) a page shows."""


def _clipped(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters; the whole text is in the certificate's JSON)"


def cell(value: Any, limit: int = CELL_LIMIT) -> str:
    r"""A value for one line of a page: control and bidirectional characters escaped, at most ``limit`` characters.

    >>> cell("flu\u202e0.5")
    'flu\\u202e0.5'
    >>> cell("x" * 300, 4)
    "xxxx… (300 characters; the whole text is in the certificate's JSON)"
    """
    from verifier.escape import safe

    return _clipped(safe("" if value is None else value), limit)


def block(value: Any, limit: int = BLOCK_LIMIT) -> str:
    """Text of several lines (a policy): each line as :func:`cell` would show it, line breaks kept."""
    from verifier.escape import safe

    text = "\n".join(safe(line) for line in str("" if value is None else value).split("\n"))
    return _clipped(text, limit)

_BREAK = re.compile(r"([_+])")
WORD = 24
"""Longest part of an id or a name (between ``_`` and ``+``) a page keeps on one line."""

_SIGNS = {("larger", False): "≥", ("smaller", False): "≤", ("smaller", True): "<", ("larger", True): ">"}


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


def _attribute(value: Any) -> str:
    if isinstance(value, list):
        return attribute_label(tuple(shown(part) for part in value))
    return attribute_label(None if value is None else shown(value))


def _detail(measurement: Mapping[str, Any]) -> str:
    parts = [f"{measurement['distance']} distance"] if measurement.get("distance") else []
    if "l" in (measurement.get("parameters") or {}):
        parts.append(f"l = {measurement['parameters']['l']}")
    return ", ".join(parts)


def breakable(value: Any, limit: int = CELL_LIMIT) -> Markup:
    """A value as :func:`cell` shows it, breakable after each ``_`` and ``+`` (``<wbr>``) and only there.

    Each part up to :data:`WORD` characters is kept whole (``white-space: nowrap``): a layout
    engine that breaks ``overflow-wrap: anywhere`` text greedily (WeasyPrint) would otherwise cut
    ``disease`` into ``diseas``/``e``; a longer part stays breakable anywhere, so that no value can
    widen its column past the page.

    >>> str(breakable("salary+<b>")), str(breakable("a" * 30))[:5]
    ('<span class="word">salary+</span><wbr><span class="word">&lt;b&gt;</span>', 'aaaaa')
    """
    parts = [part for part in _BREAK.split(cell(value, limit)) if part]
    joined: list[str] = []
    for part in parts:
        if _BREAK.fullmatch(part) and joined:
            joined[-1] += part
        else:
            joined.append(part)
    return Markup("<wbr>").join(Markup('<span class="word">{}</span>').format(part) if len(part) <= WORD
                                else escape(part) for part in joined)


def _row(measurement: Mapping[str, Any]) -> dict[str, Any]:
    from reports.reading import model_words, number

    direction = measurement.get("direction") or {}
    return {
        "requirement": measurement.get("requirement"),
        "model": measurement.get("model"),
        "words": model_words(measurement.get("model")),
        "level": number(measurement.get("exact")),
        "limit": number(measurement.get("threshold")),
        "detail": _detail(measurement),
        "attribute": _attribute(measurement.get("attribute")),
        "exact": measurement.get("exact"),
        "threshold": measurement.get("threshold"),
        "sign": _SIGNS.get((str(direction.get("stronger")), bool(direction.get("strict"))), ""),
        "passed": measurement.get("passed"),
        "reason": None if measurement.get("passed") is not False else _sentence(reason_text, measurement),
    }


def _in_policy_order(measurement: Any, order: Sequence[Any]) -> Any:
    """A measurement whose witness names its quasi-identifiers in the policy's order: a signed predicate is
    canonical JSON (RFC 8785), whose objects come back with their keys sorted."""
    if not isinstance(measurement, Mapping) or not isinstance(measurement.get("witness"), Mapping):
        return measurement
    qi = measurement["witness"].get("qi")
    if not isinstance(qi, Mapping):
        return measurement
    rank = {name: index for index, name in enumerate(order) if isinstance(name, str)}
    ordered = dict(sorted(qi.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0])))
    return {**measurement, "witness": {**measurement["witness"], "qi": ordered}}


def _sentence(make: Any, facts: Mapping[str, Any]) -> str | None:
    """A sentence generated from a certificate's facts, or ``None`` when the facts lack what it needs (a forged
    or partial certificate rendered unverified)."""
    try:
        return str(make(facts))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _readable(item: Mapping[str, Any]) -> dict[str, Any]:
    """An implied guarantee with its readable level, generated from its facts (a certificate signs none)."""
    from theory.answers.explain import level_text
    from verifier.exact_grammar import GrammarError, read_exact

    if not item.get("implied") or item.get("readable"):
        return dict(item)
    try:
        return {**item, "readable": level_text(str(item.get("definition")), read_exact(item.get("level"), "level"))}
    except (GrammarError, KeyError, ValueError, TypeError):
        return dict(item)


def _how(level: Mapping[str, Any], publisher: bool) -> str:
    """How a randomized level was found, from its facts: computed from the declared mechanism (on the original
    data in publisher mode), or implied from such a level by claims."""
    if level.get("reason") or level.get("notes"):
        return str(level.get("reason") or "; ".join(map(str, level.get("notes") or ())))
    premise = level.get("premise")
    source = "from the declared mechanism" + (", on the original data" if publisher else "")
    if not level.get("implied") or not isinstance(premise, Mapping):
        return source
    path = " → ".join(f"{step.get('claim')} ({step.get('status')})" for step in level.get("derivation") or ()
                      if isinstance(step, Mapping))
    return f"implied from {premise.get('model')} = {premise.get('exact')} ({source}) by {path}"


def _randomized(section: Mapping[str, Any]) -> dict[str, Any]:
    publisher = section.get("mode") == "publisher"
    rows = [{"model": m.get("model"), "exact": m.get("exact"),
             "parameters": ", ".join(f"{k} = {v}" for k, v in (m.get("parameters") or {}).items()),
             "how": _how(m, publisher)}
            for m in section.get("measurements", []) if isinstance(m, Mapping)]
    return {"mode": section.get("mode"), "mechanism": section.get("mechanism"), "rows": rows}


def _number(value: Any) -> str:
    """A utility figure's value as :func:`verifier.utility.figure.value_json` wrote it: ``3/8 ≈ 0.375``, ``0.4512``."""
    if not isinstance(value, Mapping):
        return "—"
    exact, number = value.get("exact"), value.get("value")
    approximate = f"{number:.4g}" if isinstance(number, (int, float)) and not isinstance(number, bool) else ""
    if isinstance(exact, str):
        return f"{exact} ≈ {approximate}" if "/" in exact and approximate else exact
    return approximate or "—"


def _utility(section: Mapping[str, Any]) -> dict[str, Any]:
    """The utility section (:mod:`reports.utility_section`): one row per figure that applies."""
    from verifier.utility.figure import MODEL_NAMES

    rows = [{"model": MODEL_NAMES.get(str(f.get("metric")), f.get("metric")),
             "attribute": "all" if f.get("attribute") is None else f.get("attribute"),
             "raw": _number(f.get("raw")) + (f" {f.get('units')}" if f.get("units") else ""),
             "quality": _number(f.get("quality"))}
            for f in section.get("figures") or () if isinstance(f, Mapping) and f.get("raw") is not None]
    return {"original": section.get("original"), "rows": rows, "records": section.get("rows"),
            "suppressed": section.get("suppressed")}


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
    from reports.declared import declared, lookalikes, unaudited
    from reports.plots import figures, implication_map
    from reports.reading import implied_that_add
    from reports.statement import failure_sentence

    release = predicate.get("release")
    order = (release.get("quasi_identifiers") or []) if isinstance(release, Mapping) else []
    measurements = [_in_policy_order(m, order) for m in predicate.get("measurements", [])]
    rows = [_row(m) for m in measurements]
    stated = [_in_policy_order(m, order) for m in (predicate.get("publisher_statements") or {}).get("measurements", [])]
    failures = [text for m in [*measurements, *stated]
                if isinstance(m, Mapping) and m.get("passed") is False
                and (text := _sentence(failure_sentence, m)) is not None]
    implied = implied_that_add([_readable(item) for item in predicate.get("implied") or () if isinstance(item, Mapping)],
                               predicate.get("measurements", []))
    counts = predicate.get("counts")
    signature = None
    if envelope is not None:
        first = (envelope.get("signatures") or [{}])[0]
        signature = {"payload_type": cell(envelope.get("payloadType")), "sig": cell(first.get("sig")),
                     "checked": checked is not None,
                     # the envelope's key id is an unsigned hint: the signer only when the signature verified
                     "keyid": cell(checked) if checked is not None else
                     f"not verified (the envelope names {cell(first.get('keyid'), 80)}, an unsigned hint)"}
    verdict = predicate.get("verdict")
    inputs = declared(predicate)
    randomized = predicate.get("randomized")
    publisher = isinstance(randomized, Mapping) and randomized.get("mode") == "publisher"
    failed = sum(1 for r in rows if r["passed"] is False)
    return View({
        "title": title or ("Privacy certificate" if envelope is not None else "Privacy audit" if verdict else "Privacy measurements"),
        "tool_version": cell((predicate.get("tool") or {}).get("version", ""), 80),
        "time": None if predicate.get("time") is None else cell(predicate.get("time"), 80),
        "verdict": verdict,
        "failed": failed,
        # made of counts and fixed words only
        "verdict_sentence": Markup(_verdict_sentence(verdict, len(rows) + len(stated), failed, len(stated),  # noqa: S704
                                                     inputs.count, publisher)),
        "lookalikes": [{"role": role, "text": found.text()} for role, found in lookalikes(predicate)],
        "lookalike_names": [found.name for _, found in lookalikes(predicate)],
        "unaudited": [{"name": shown(name), "identifier": flagged} for name, flagged in unaudited(predicate)],
        "stated": len(stated),
        "rows": rows,
        "failures": failures,
        "subject": None if subject is None else {key: cell(value) for key, value in subject.items()},
        "release": None if not isinstance(release, Mapping) else {
            "rows": cell(release.get("rows"), 40), "classes": cell(release.get("classes"), 40),
            "quasi_identifiers": [shown(name) for name in release.get("quasi_identifiers") or []]},
        "policy": predicate.get("policy"),
        "counts": None if not isinstance(counts, Mapping) else {"sha256": cell(counts.get("sha256")),
                                                                "embedded": "tables" in counts},
        "implied": implied if predicate.get("implied") else None,
        "implication_map": implication_map(implied.shown),
        "statements": [_row(m) for m in stated],
        "randomized": _randomized(predicate["randomized"]) if isinstance(predicate.get("randomized"), Mapping) else None,
        "utility": _utility(predicate["utility"]) if isinstance(predicate.get("utility"), Mapping) else None,
        "figures": figures(predicate, tables),
        "signature": signature,
        "verified": envelope is None or checked is not None,
        "revised": [cell(claim) for claim in revised] if checked is not None else [],
        "declared": inputs,
        "verify_command": verify_command,
    })


def _verdict_sentence(verdict: Any, total: int, failed: int, stated: int, declared: int, publisher: bool) -> str:
    """The sentence beside the verdict: what holds, how many requirements are the publisher's statement, how many
    declared inputs it rests on, and in publisher mode that the levels were measured on the original data."""
    given = f"; it holds given {declared} declared input{'' if declared == 1 else 's'} (listed directly below)" \
        if declared else ""
    if publisher:
        source = ("; the levels were measured on the original data (publisher mode), which the certificate does not "
                  "carry: only a reader holding it can measure them again")
    elif declared:
        source = "; with them, each level below is re-measured from the release and compared exactly with its threshold"
    else:
        source = "; each level below was measured from the release and compared exactly with its threshold"
    if verdict == "pass":
        statements = (f", of which {stated} of {total} requirements are the publisher's statement (not re-measured)"
                      if stated else "")
        return f"The release meets its policy: every requirement of the policy holds{statements}{given}{source}."
    return (f"The release does not meet its policy: {failed} of {total} requirements fail (see why below); the others "
            f"hold{given}{source}.")


def render_html(page: View, *, fonts: Sequence[FontFace] = (), date: str | None = None) -> str:
    """The page as HTML text (``fonts``: ``@font-face`` rules, for print; ``date``: PDF metadata dates)."""
    from importlib import resources

    from jinja2 import Environment, FunctionLoader, select_autoescape

    folder = resources.files("reports") / "templates"
    environment = Environment(autoescape=select_autoescape(default=True, default_for_string=True),
                              keep_trailing_newline=True,
                              loader=FunctionLoader(lambda name: (folder / name).read_text(encoding="utf-8")))
    environment.filters.update(cell=cell, block=block, breakable=breakable)
    template = environment.get_template("certificate.html.j2")
    page_text = template.render(**page.context, fonts=list(fonts), date=date)
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
