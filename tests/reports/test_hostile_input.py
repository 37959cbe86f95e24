"""A third party's column names and values are text: never markup, template code or a broken PDF.

The release below names its columns and fills its cells with HTML that would run a script,
an attribute injection, Jinja2 template code, right-to-left overrides, a 10,000-character
string and Latin-1 bytes that are not UTF-8. The HTML view must contain no element or
attribute made from them, the template must not evaluate them, the PDF must render them,
and the signed JSON must carry them exactly and verify.
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_views import tags_of

from _certify import Certified, certify, runner
from privcert.cli import app
from verifier.escape import safe

SCRIPT = "<script>alert(1)</script>"
ATTRIBUTE = '"><img src=x onerror=alert(1)>'
TEMPLATE = "{{ 7*7 }}"
RTL = "\u202eevil\u202c \u200fmark"
LONG = "x" * 10_000
LATIN = "café ÿ"  # bytes e9 and ff in Latin-1: not valid UTF-8


def _toml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a TOML basic string


@dataclass(frozen=True)
class Hostile:
    """A certified hostile release, in one encoding; ``bidi`` is the name of the second sensitive column."""

    certified: Certified
    encoding: str
    bidi: str


@pytest.fixture(scope="module", params=["utf-8", "latin-1"])
def hostile(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Hostile:
    """The UTF-8 file has right-to-left marks; the Latin-1 one has bytes e9, ff and C1 controls (not UTF-8)."""
    encoding = request.param
    bidi = RTL if encoding == "utf-8" else "\x85\x9b" + LATIN
    folder = tmp_path_factory.mktemp("hostile")
    header = [SCRIPT, ATTRIBUTE, TEMPLATE, bidi]
    rows = [[SCRIPT, ATTRIBUTE, TEMPLATE, LATIN], [SCRIPT, ATTRIBUTE, SCRIPT, bidi], [SCRIPT, ATTRIBUTE, LONG, ATTRIBUTE],
            [LONG, TEMPLATE, LATIN, TEMPLATE], [LONG, TEMPLATE, bidi, LATIN], [LONG, TEMPLATE, TEMPLATE, SCRIPT]]
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows([header, *rows])
    (folder / "release.csv").write_bytes(text.getvalue().encode(encoding))
    (folder / "policy.toml").write_text(f"""
[data]
qi = [{_toml(SCRIPT)}, {_toml(ATTRIBUTE)}]

[sensitive.{_toml(TEMPLATE)}]
kind = "categorical"

[sensitive.{_toml(bidi)}]
kind = "categorical"

[[require]]
model = "k_anonymity"
threshold = 3

[[require]]
model = "t_closeness"
attribute = {_toml(TEMPLATE)}
threshold = "1/2"

[[require]]
model = "distinct_l_diversity"
attribute = {_toml(bidi)}
threshold = 4
""", encoding="utf-8")
    return Hostile(certify(folder, folder / "release.csv", folder / "policy.toml", "--encoding", encoding),
                   encoding, bidi)


def test_the_audit_reads_them_as_text(hostile: Hostile) -> None:
    predicate = hostile.certified.predicate
    assert hostile.certified.exit_code == 1  # distinct l = 3 < 4
    assert predicate["release"]["quasi_identifiers"] == [SCRIPT, ATTRIBUTE]
    levels = {m["requirement"]: m["exact"] for m in predicate["measurements"]}
    assert levels == {"require[1]": "3", "require[2]": "1/3", "require[3]": "3"}
    keys = predicate["counts"]["tables"]["classes"]["keys"]
    assert keys == [[SCRIPT, ATTRIBUTE], [LONG, TEMPLATE]]
    values = predicate["counts"]["tables"]["attributes"][0]["values"]
    assert LONG in values and SCRIPT in values and TEMPLATE in values and LATIN in values and hostile.bidi in values
    assert predicate["measurements"][2]["attribute"] == hostile.bidi


def test_html_holds_no_element_made_from_them(hostile: Hostile) -> None:
    html = hostile.certified.html.read_text(encoding="utf-8")
    allowed = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p", "span", "dl", "dt", "dd",
               "section", "ul", "li", "div", "table", "thead", "tbody", "tr", "th", "td", "bdi", "wbr", "figure",
               "figcaption", "pre", "code", "strong", "em", "a", "svg", "g", "path", "text", "defs", "clippath", "rect",
               "use", "metadata", "rdf:rdf", "cc:work", "dc:type", "dc:date", "dc:format", "dc:creator", "cc:agent",
               "dc:title", "polyline", "line", "tspan"}
    found = {tag for tag, _ in tags_of(html)}
    assert found <= allowed, found - allowed
    for _, attributes in tags_of(html):
        assert not any(name.startswith("on") or name == "src" for name in attributes)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script" not in html
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    assert TEMPLATE in html  # shown, never evaluated
    # made inert: a right-to-left override in a value is shown escaped, so it cannot reverse the text after it
    assert "\u202e" not in html and "\u200f" not in html
    isolated = [re.sub(r"<[^>]*>", "", inner) for inner in re.findall(r'<bdi dir="auto">(.*?)</bdi>', html)]
    # in an isolate of its own (the page may break it after _ and +); a name that may pass for another is escaped
    from verifier.lookalike import lookalike, shown

    assert (shown(hostile.bidi) if lookalike(hostile.bidi) else safe(hostile.bidi)) in isolated


def test_pdf_renders_them(hostile: Hostile, tmp_path: Path) -> None:
    text = subprocess.run(["pdftotext", str(hostile.certified.pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "alert(1)" in text and "7*7" in text and "FAIL" in text
    subprocess.run(["pdftoppm", "-r", "30", "-f", "1", "-l", "1", "-png", str(hostile.certified.pdf), str(tmp_path / "p")],
                   check=True)
    assert (tmp_path / "p-1.png").stat().st_size > 1000


def test_json_round_trips_and_verifies(hostile: Hostile) -> None:
    certified = hostile.certified
    plain = runner.invoke(app, ["verify", str(certified.certificate), "--public-key", str(certified.public_key),
                                "--allow-fail"])
    assert plain.exit_code == 0, plain.output
    release = certified.certificate.parent / "release.csv"
    full = runner.invoke(app, ["verify", str(certified.certificate), "--public-key", str(certified.public_key),
                               "--data", str(release), "--encoding", hostile.encoding, "--allow-fail"])
    assert full.exit_code == 0, full.output
    again = certified.html.with_suffix(".2.html")
    assert runner.invoke(app, ["report", str(certified.certificate), "--html", str(again)]).exit_code == 0
    assert again.read_text(encoding="utf-8").count("&lt;script&gt;") == certified.html.read_text(encoding="utf-8").count("&lt;script&gt;")
