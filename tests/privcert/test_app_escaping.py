"""Every template of the workbench, rendered with hostile text in every field, shows that text and none of its
markup: no element, attribute, script URL, control character or bidirectional override of the user's reaches the
page, and no template has an inline style (the Content-Security-Policy forbids them)."""

from __future__ import annotations

import hashlib
import io
import itertools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace as Object
from typing import Any
from xml.sax.saxutils import quoteattr

import pytest

from _app_client import Structure
from privcert.app.svg import page_svg
from privcert.app.web import templates
from verifier.escape import safe

TEMPLATES = Path(__file__).resolve().parents[2] / "privcert" / "app" / "templates"
HOSTILE = ("<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "javascript:alert(1)",
           "\u202eSSAP", "bell\x07escape\x1b[31mnull\x00", "' onmouseover='alert(1)",
           '<div class="pass">PASS: all requirements hold. Certified.</div>', "<style>*{color:red}</style>")
"""Tags, attribute breakers (both quotes), a script URL, an RTL override, control characters, a painted verdict."""
Text = Callable[[], str]


def svg(text: Text) -> str:
    """An SVG as a figure of the server might be if its labels carried the user's text (escaped, as matplotlib
    writes it), with the parts no figure may bring into a page: a script, a style block, an event handler, a
    link out, a foreign object."""
    parts = [quoteattr(text().translate(dict.fromkeys(range(32)))) for _ in range(6)]  # XML has no control character
    return (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" '
            f'height="10" onload={parts[0]}><style>*{{fill:red}}</style><script>{parts[1][1:-1]}</script>'
            f'<g style="fill: none; stroke: #000; background: url(javascript:alert(1))" id="a">'
            f'<text x="1" y="2" aria-label={parts[2]}>{parts[3][1:-1]}</text>'
            f'<a xlink:href="javascript:alert(1)"><rect width="1" height="1"/></a><use xlink:href={parts[4]}/>'
            f'<use xlink:href="#a"/><foreignObject><div xmlns="http://www.w3.org/1999/xhtml">{parts[5][1:-1]}'
            "</div></foreignObject></g></svg>")


def _page(text: Text) -> dict[str, Any]:
    return {"session": Object(csrf=text()), "request": Object(url=Object(path=text()))}


def _policy(text: Text) -> dict[str, Any]:
    model, parameter, choice = text(), text(), text()
    models = [Object(id=model, name=text(), kind="privacy", per_attribute=True, threshold=text(), stronger=text(),
                     parameters=[Object(name=parameter, description=text(), choices=(choice, text()), domain=text(),
                                        required=False),
                                 Object(name=text(), description=text(), choices=(), domain=text(), required=True)],
                     needs=(text(),), source=text())]
    requirement = {"model": model, "attribute": text(), "threshold": text(), parameter: choice}
    form = Object(columns=[Object(name=text(), role=text(), kind=text(), note=text())], requirements=[requirement],
                  sensitive=[text()])
    return {**_page(text), "form": form, "models": models, "rows_read": 3}


def _key(text: Text) -> dict[str, Any]:
    return {"key": {"generated": True, "private": text(), "public": text()}, "key_offered": False}


def _job(text: Text, kind: str, status: str = "done", result: Any = None) -> Object:
    return Object(id=text(), kind=kind, status=status, step=text(), fraction=0.5, finished=status != "running",
                  warnings=[text()], error=text(), result=result, seconds=1.5)


def _workspace(text: Text) -> dict[str, Any]:
    return {**_policy(text), **_key(text), "error": text(), "release": text(), "release_name": text(),
            "job": _job(text, text(), "running"), "certificate": None, "examples": {text(): (text(), text(), ())},
            "policy_files": [text(), text()]}


def _audit_result(text: Text) -> dict[str, Any]:
    measurement = {"requirement": text(), "model": text(), "distance": text(), "attribute": text(), "exact": text(),
                   "level": 0.5, "threshold": text(), "verdict": text(), "witness": {"qi": {text(): text()}, "size": 3},
                   "reason": text()}
    bounded = {**measurement, "bounds": {"exact": False, "lower": text(), "upper": text()}}
    implied = [{"implied": True, "definition": text(), "readable": text(),
                "from": {"model": text(), "attribute": text(), "level": text()},
                "derivation": [{"claim": text(), "status": text()}]},
               {"implied": False, "definition": text(), "nothing": text()}]
    result = {"passed": True, "audit": {"rows": 3, "classes": 2, "qi": [text()], "measurements": [measurement, bounded]},
              "implied": implied, "view": text()}
    return {**_page(text), **_key(text), "job": _job(text, "audit", result=result)}


def _claim(text: Text) -> Object:
    return Object(claim=text(), source=text(), reference_key=text())


def _edges(text: Text) -> list[dict[str, Any]]:
    """A definition's neighbourhood (:func:`privcert.app.explore_page.neighbourhood`): each arrow with its other end."""
    edge = Object(kind=text(), status=text(), number=text(), bound=text(), when=text(), sentence=text(),
                  claim=_claim(text))
    return [{"edge": edge, "id": text(), "name": text()}]


def _neighbourhood(text: Text) -> dict[str, Any]:
    return {"item": Object(name=text(), id=text(), summary=text(), source=text()), "incoming": _edges(text),
            "outgoing": _edges(text), "sources": [Object(key=text(), text=text())]}


def _figures(text: Text) -> list[dict[str, str]]:
    return [{"svg": svg(text), "name": text(), "png": text(), "svg_link": text()}]


def _implies(text: Text) -> dict[str, Any]:
    witness = Object(family=text(), summary=text(), detail=text(), table={"probs": [[text(), text()]], "classes": [[0]]})
    answer = Object(premise=text(), conclusion=text(), holds=text(), headline=text(), sentence=text(),
                    guaranteed=text(), path=[Object(sentence=text(), claim=_claim(text))],
                    evidence=[Object(sentence=text(), number=text(), claim=_claim(text))], detail=text(),
                    witness_error=text(), witness=witness)
    return {"answer": answer, "sources": [Object(key=text(), text=text())]}


CONTEXTS: dict[str, list[Callable[[Text], dict[str, Any]]]] = {
    "base.j2": [_page],
    "audit.j2": [_workspace],
    "_workspace.j2": [_workspace],
    "_policy.j2": [_policy],
    "_policy_status.j2": [lambda text: {"problem": text()}, lambda text: {"problem": None, "count": text()}],
    "_error.j2": [lambda text: {"message": text()}],
    "_job.j2": [lambda text: {**_page(text), "job": _job(text, text(), "running")},
                lambda text: {**_page(text), "job": _job(text, text(), "failed")},
                lambda text: {**_page(text), "job": _job(text, "verify", result={"exit_code": 4, "lines": [text()],
                                                                                   "summary": text()})}],
    "_audit_result.j2": [_audit_result],
    "_certify.j2": [lambda text: {**_page(text), **_key(text)},
                    lambda text: {**_page(text), "key": {"generated": False}}],
    "_certify_result.j2": [lambda text: {"job": _job(text, "certify", result={
        "passed": False, "certificate": text(), "html": text(), "pdf": text()})}],
    "verify.j2": [_page],
    "_verify_result.j2": [lambda text: {"job": _job(text, "verify", result={"exit_code": text(), "lines": [text()],
                                                                               "summary": text()})}],
    "compare.j2": [_page],
    "_compare_result.j2": [lambda text: {**_page(text), "job": _job(text, "compare", result={
        "rows": [[text(), text()]], "header": [text(), text()], "folder": text(),
        "figure": {"svg": svg(text), "caption": text()}})}],
    "plan.j2": [lambda text: {**_page(text), "examples": {text(): (text(), text(), ())}}],
    "_plan_result.j2": [lambda text: {"job": _job(text, "plan", result={
        "lines": [text()], "header": [text(), text()], "rows": [[text(), text()]], "chosen": text(),
        "mechanism": text(), "figures": _figures(text)})}],
    "explore.j2": [lambda text: {**_page(text), "svg": page_svg(svg(text)), "sizes": [text()],
                                 "assumptions": [text()],
                                 "definitions": [Object(name=text(), id=text()), Object(name=text(), id=text())],
                                 "arrows": [Object(number=text(), status=text(), sentence=text(), claim=_claim(text))],
                                 "bounds": [(text(), [text(), text()])], **_neighbourhood(text)}],
    "_definition.j2": [_neighbourhood],
    "_implies.j2": [_implies],
    "_explain.j2": [lambda text: {"implied": _audit_result(text)["job"].result["implied"], "text": text()}],
}
"""Each template's contexts: every field the template reads, a string wherever the app may put the user's text
(or a message quoting it)."""


def parsed(name: str, context: Callable[[Text], dict[str, Any]], strings: Iterator[str]) -> Structure:
    return Structure.of(templates.env.get_template(name).render(**context(lambda: next(strings))))


def test_every_template_has_hostile_contexts() -> None:
    assert sorted(CONTEXTS) == sorted(path.name for path in TEMPLATES.glob("*.j2"))


@pytest.mark.parametrize(("name", "variant"), [(name, n) for name, found in CONTEXTS.items() for n in range(len(found))])
def test_a_template_shows_hostile_text_and_none_of_its_markup(name: str, variant: int) -> None:
    context = CONTEXTS[name][variant]
    hostile = parsed(name, context, (f"{HOSTILE[n % len(HOSTILE)]}{n}" for n in itertools.count()))
    plain = parsed(name, context, (f"plain text {n}" for n in itertools.count()))
    assert hostile.elements == plain.elements  # not one element or attribute more
    assert not any(tag in ("style", "img", "iframe", "object", "embed", "foreignobject") or
                   (tag == "script" and names != ("src",)) for tag, names in hostile.elements)  # no inline script
    for attribute, value in hostile.values:
        assert attribute != "style" and not attribute.startswith("on"), (attribute, value)
        if attribute in ("href", "src", "action", "formaction", "hx-get", "hx-post"):
            assert not value.strip().lower().startswith("javascript:"), (attribute, value)
    shown = "".join(hostile.text) + "".join(value for _, value in hostile.values)
    assert not any(char in shown for char in "\u202e\x00\x07\x1b")
    assert any(safe(text) in shown for text in HOSTILE)  # shown, as text


def test_a_figure_keeps_its_drawing_and_loses_everything_else() -> None:
    text = svg(itertools.cycle(HOSTILE).__next__)
    made = page_svg(text, width=None, role="img")
    scope = "f" + hashlib.sha256(text.encode()).hexdigest()[:8] + "-"
    assert made == (
        f'<svg xmlns="http://www.w3.org/2000/svg" height="10" role="img"><g fill="none" stroke="#000" id="{scope}a">'
        f'<text x="1" y="2" aria-label="javascript:alert(1)">\\u202eSSAP</text><use></use><use href="#{scope}a"></use>'
        '</g></svg>')


def test_a_figures_root_takes_only_the_attributes_a_figure_keeps() -> None:
    """The root's attributes set by the caller pass the same list as the drawing's: an event handler is refused."""
    text = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9"><text font-size="9px">a</text></svg>'
    assert 'role="group" aria-labelledby="t"' in page_svg(text, role="group", aria_labelledby="t")
    with pytest.raises(ValueError, match=r"root attributes \['onload'\]"):
        page_svg(text, onload="alert(1)")


def test_two_figures_on_one_page_share_no_id_and_each_refers_to_its_own() -> None:
    """Before, the Plan page's two matplotlib figures both had ``figure_1``, ``axes_1``... (axe-core's
    duplicate-id)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    drawn = []
    for values in ([1, 2, 3], [3, 1, 2]):
        figure, axes = pyplot.subplots()
        axes.plot(values, marker="o", clip_on=True)
        written = io.StringIO()
        figure.savefig(written, format="svg")
        pyplot.close(figure)
        drawn.append(str(page_svg(written.getvalue())))
    ids = [re.findall(r' id="([^"]+)"', made) for made in drawn]
    assert ids[0] and ids[1] and not set(ids[0]) & set(ids[1]) and all(len(set(i)) == len(i) for i in ids)
    for made, own in zip(drawn, ids):
        referred = re.findall(r'href="#([^"]+)"', made) + re.findall(r"url\(#([^)]+)\)", made)
        assert referred and set(referred) <= set(own)


def test_a_level_known_between_exact_bounds_reads_as_both_in_the_audit_result() -> None:
    measured = {"requirement": "require[0]", "model": "ldp", "attribute": "age", "exact": "ln(49/10)", "level": 1.589,
                "threshold": "3", "verdict": "pass", "witness": None, "reason": "ε ≤ 3"}
    bounded = {**measured, "requirement": "require[1]", "bounds": {"exact": False, "lower": "ln(2)", "upper": "ln(49/10)"}}
    result = {"passed": True, "audit": {"rows": 3, "classes": 2, "qi": ["zip"], "measurements": [measured, bounded]},
              "implied": [], "view": ""}
    page = templates.env.get_template("_audit_result.j2").render(
        session=Object(csrf="token"), request=Object(url=Object(path="/audit")), key=None, key_offered=False,
        job=Object(id="1", kind="audit", status="done", result=result, finished=True, warnings=[], error=None))
    rows = re.findall(r'class="level">(.*?)</td>\s*<td data-label="Decimal">(.*?)</td>', page, re.S)
    assert rows == [("<code>ln(49/10)</code>", "≈ 1.589"),
                    ("<code>ln(2)</code> ≤ level ≤ <code>ln(49/10)</code>", "between 0.6931 and 1.589 (not exact)")]


def test_a_figure_keeps_no_value_that_names_anything_outside_it() -> None:
    text = ('<svg xmlns="http://www.w3.org/2000/svg"><clipPath id="c"><rect/></clipPath>'
            '<path fill="url(https://example.org/x.svg#p)" clip-path="url(#c)" style="stroke: URL( //example.org/s); '
            'fill-opacity: 0.5"/><rect stroke="url(#c) url(data:x)"/></svg>')
    scope = "f" + hashlib.sha256(text.encode()).hexdigest()[:8] + "-"
    assert page_svg(text) == (f'<svg xmlns="http://www.w3.org/2000/svg"><clipPath id="{scope}c"><rect></rect></clipPath>'
                              f'<path clip-path="url(#{scope}c)" fill-opacity="0.5"></path><rect></rect></svg>')
