"""HTML and PDF views of a certificate: content, self-containment, reproducibility, attachment, `report`."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from _certify import TABLE4, Certified, certify, certify_table4, golden_predicate, runner
from privcert.cli import app
from reports.html import render_html, view
from verifier.audit import audit
from verifier.policy import load_policy
from verifier.tables.load import load_table


class Tags(HTMLParser):
    """Every start tag with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags_of(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Tags()
    parser.feed(html)
    return parser.tags


@pytest.fixture(scope="module")
def table4(tmp_path_factory: pytest.TempPathFactory) -> Certified:
    return certify_table4(tmp_path_factory.mktemp("table4"))


def test_html_shows_verdict_every_measurement_and_the_verify_command(table4: Certified) -> None:
    html = table4.html.read_text(encoding="utf-8")
    assert table4.exit_code == 1
    assert re.search(r'id="verdict" class="verdict fail">FAIL<', html)
    # Li et al. 2007, Table 4: k = 3, distinct l = 3, ordered EMD on salary 3/8, hierarchical on disease 4/9.
    levels = re.findall(r'<td data-label="Level" class="level"><span class="decimal">([^<]*)</span>'
                        r'(?: <span class="exact">([^<]*)</span>)?', html)
    assert levels == [("3", ""), ("3", ""), ("0.375", "3/8"), ("≈ 0.4444", "4/9")]
    assert "does not meet the threshold 1/5" in html
    # named by file name only: no folder of the publisher's machine goes into a view
    assert "privcert verify cert.json --public-key key.pub" in html and str(table4.certificate.parent) not in html
    # class sizes, the worst class of each t-closeness requirement, and the implication map used
    assert html.count("<svg") == 4


def test_html_is_self_contained(table4: Certified) -> None:
    html = table4.html.read_text(encoding="utf-8")
    names = {tag for tag, _ in tags_of(html)}
    assert not names & {"script", "img", "iframe", "object", "embed", "link", "base", "form"}
    for _, attributes in tags_of(html):
        assert not any(name.startswith("on") for name in attributes)
        assert not any(str(value).startswith(("http:", "https:", "//", "file:")) for name, value in attributes.items()
                       if name in ("src", "href"))
    assert "@font-face" not in html and not re.search(r"url\((?!#)", html)  # only in-page references


def test_every_id_of_the_page_is_unique_and_every_in_page_reference_reaches_its_own_figure(table4: Certified) -> None:
    """Four figures drawn by matplotlib, which numbers each figure's ids alike: each is scoped to its figure."""
    html = table4.html.read_text(encoding="utf-8")
    ids = [attributes["id"] for _, attributes in tags_of(html) if attributes.get("id")]
    assert len(ids) == len(set(ids)) > 100
    figures = re.findall(r"<svg.*?</svg>", html, flags=re.S)
    assert len(figures) == 4
    for figure in figures:
        references = set(re.findall(r'url\(#([^)]+)\)', figure)) | set(re.findall(r'href="#([^"]+)"', figure))
        assert references <= set(re.findall(r'\bid="([^"]+)"', figure))
    assert sum(bool(re.search(r'url\(#', figure)) for figure in figures) >= 2


def test_scoping_a_figure_s_ids_leaves_its_text_as_written() -> None:
    """A label is the release's value: text that looks like an id or a reference is not an id and stays as it is."""
    from reports.plots import _axes, _style, _svg

    label = 'id="v" url(#w) href="#x"'
    with _style():
        figure, axes = _axes(2)
        axes.set_title(label)
        axes.plot([0, 1], [0, 1])
        svg = _svg(figure)
    assert f">{label}<" in svg
    assert len(re.findall(r'clip-path="url\(#f[0-9a-f]{10}-', svg)) == len(re.findall(r'clip-path="url\(#', svg)) >= 1


def test_same_certificate_same_views(table4: Certified, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    pages = []
    for number in (1, 2):
        html, pdf = tmp_path / f"{number}.html", tmp_path / f"{number}.pdf"
        done = runner.invoke(app, ["report", str(table4.certificate), "--html", str(html), "--pdf", str(pdf),
                                   "--public-key", str(table4.public_key)])
        assert done.exit_code == 0, done.output
        pages.append((html.read_bytes(), pdf.read_bytes()))
    assert pages[0] == pages[1]
    info = subprocess.run(["pdfinfo", str(tmp_path / "1.pdf")], capture_output=True, text=True, check=True).stdout
    assert re.search(r"CreationDate:\s+Tue Nov 14 22:13:20 2023", info), info


def test_pdf_text_holds_verdict_and_every_measurement(table4: Certified, tmp_path: Path) -> None:
    text = subprocess.run(["pdftotext", "-layout", str(table4.pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    from reports.reading import model_words

    assert "FAIL" in text and "1 of 4 requirements fail" in text
    for measurement in table4.predicate["measurements"]:
        name = model_words(measurement["model"]).name.split()[0]
        assert re.search(rf"{measurement['requirement'].replace('[', '.').replace(']', '.')}\s+{re.escape(name)}", text)
        assert measurement["exact"] in text and measurement["model"] in text
    subprocess.run(["pdftoppm", "-r", "40", "-f", "1", "-l", "1", "-png", str(table4.pdf), str(tmp_path / "page")],
                   check=True)
    assert (tmp_path / "page-1.png").stat().st_size > 1000


def test_pdf_fonts_are_the_shipped_ones_and_the_certificate_is_attached(table4: Certified, tmp_path: Path) -> None:
    fonts = subprocess.run(["pdffonts", str(table4.pdf)], capture_output=True, text=True, check=True).stdout
    families = {line.split()[0].split("+")[-1] for line in fonts.splitlines()[2:]}
    assert {"Certificate-Sans", "Certificate-Mono"} <= families
    assert all(family.startswith(("Certificate-", "DejaVu")) for family in families), families
    subprocess.run(["pdfdetach", "-saveall", "-o", str(tmp_path), str(table4.pdf)], check=True)
    assert (tmp_path / "cert.json").read_bytes() == table4.certificate.read_bytes()


def test_report_without_a_key_says_the_signature_is_not_checked(table4: Certified, tmp_path: Path) -> None:
    done = runner.invoke(app, ["report", str(table4.certificate), "--html", str(tmp_path / "r.html")])
    assert done.exit_code == 0, done.output
    assert "<strong>not checked</strong> by this view" in (tmp_path / "r.html").read_text()
    other = tmp_path / "other"
    runner.invoke(app, ["keygen", "--out", str(other)])
    wrong = runner.invoke(app, ["report", str(table4.certificate), "--html", str(tmp_path / "w.html"),
                                "--public-key", f"{other}.pub"])
    assert wrong.exit_code == 4 and "no signature verifies" in wrong.stdout and not (tmp_path / "w.html").exists()
    assert runner.invoke(app, ["report", str(table4.certificate)]).exit_code == 2


def test_implied_guarantees_show_only_what_adds_to_the_measurements() -> None:
    """Table 4 measures k = 3: k = 3 implied again adds nothing, k = 4 does (stronger), β-likeness does (not
    measured); the definitions for which nothing follows are named in one line."""
    from reports.statement import build_predicate

    result = audit(load_table(TABLE4 / "release.csv"), load_policy(TABLE4 / "policy.toml"))
    step = {"claim": "x2022:y", "status": "proven", "from": "prosecutor_risk", "to": "k_anonymity"}
    implied = [
        {"definition": "k_anonymity", "implied": True, "level": "3", "readable": "k = 3",
         "from": {"model": "prosecutor_risk", "attribute": None, "level": "1/3"}, "derivation": [step]},
        {"definition": "k_anonymity", "implied": True, "level": "4", "readable": "k = 4",
         "from": {"model": "prosecutor_risk", "attribute": None, "level": "1/4"}, "derivation": [step]},
        {"definition": "basic_beta_likeness", "implied": True, "level": "3", "readable": "β = 3",
         "from": {"model": "t_closeness", "attribute": "salary", "level": "3/8"},
         "derivation": [{"claim": "soriacomas2015:x", "status": "proven", "from": "t_closeness",
                         "to": "basic_beta_likeness"}]},
        {"definition": "dp", "implied": False, "nothing": "no claim leads from these levels to <dp>."},
        {"definition": "ldp", "implied": False, "nothing": "nothing: a deterministic release is never ε-LDP"},
    ]
    html = render_html(view(build_predicate(result, "", implied=implied)))
    section = html[html.index('<section id="implied">'):html.index("</section>", html.index('<section id="implied">'))]
    assert [re.sub(r"<[^>]*>", "", h) for h in re.findall(r"<h3>(.*?)</h3>", section)] == [
        "From prosecutor re-identification risk = 1/4 = 0.25", "From t-closeness (EMD) on salary = 3/8 = 0.375"]
    assert re.findall(r"<strong>(.*?)</strong>: ([^\n]*)", section) == [("k-anonymity", "k = 4"), ("basic β-likeness", "β = 3")]
    assert '<span class="word">t_</span><wbr><span class="word">closeness</span> → ' in section  # breakable ids
    assert "t_closeness → basic_beta_likeness by soriacomas2015:x (proven)" in re.sub(r"<[^>]*>", "", section)
    assert ('<p id="nothing-follows" class="nothing">Nothing follows for: ε-differential privacy, '
            "ε-local differential privacy.</p>") in section


def svg_texts(svg: str) -> list[str]:
    """The text of every ``<text>`` element of an SVG document, as a reader gets it."""
    from xml.etree import ElementTree

    return ["".join(element.itertext()) for element in ElementTree.fromstring(svg).iter()
            if element.tag.rsplit("}", 1)[-1] == "text"]


def test_the_implication_map_names_every_definition_and_claim_of_the_derivations(table4: Certified) -> None:
    html = table4.html.read_text(encoding="utf-8")
    figure = re.search(r'<figure id="implication-map">(<svg.*?</svg>)', html, re.DOTALL)
    assert figure is not None and html.index('id="implied"') < figure.start() < html.index('id="figures"')
    from reports.reading import implied_that_add

    shown = implied_that_add(table4.predicate["implied"], table4.predicate["measurements"]).shown
    steps = [step for g in shown for step in g["derivation"]]
    assert steps  # Table 4's levels imply guarantees (risk from k-anonymity at least)
    texts = svg_texts(figure.group(1))
    definitions = {step[side] for step in steps for side in ("from", "to")}
    distinct = list(dict.fromkeys((step["claim"], step["status"], step["from"], step["to"]) for step in steps))
    legend = {f"{number}  {claim}{'' if status == 'proven' else f' ({status})'}: {source} → {target}"
              for number, (claim, status, source, target) in enumerate(distinct, start=1)}
    numbers = {str(number) for number in range(1, len(distinct) + 1)}
    assert set(texts) == definitions | numbers | legend
    assert len(texts) == len(definitions) + len(numbers) + len(legend)


def test_no_two_texts_of_the_implication_map_overlap(table4: Certified, tmp_path: Path) -> None:
    from _svg_text import clashes, text_boxes

    html = table4.html.read_text(encoding="utf-8")
    figure = re.search(r'<figure id="implication-map">(<svg.*?</svg>)', html, re.DOTALL)
    assert figure is not None
    (tmp_path / "map.svg").write_text(figure.group(1), encoding="utf-8")
    boxes = text_boxes(tmp_path / "map.svg")
    assert len(boxes) >= 4 and not clashes(boxes)


def test_the_implication_map_draws_only_the_steps_used_and_labels_their_status() -> None:
    from reports.plots import implication_map

    implied = [
        {"definition": "dp", "implied": True, "level": "ln(2)", "readable": "ε = ln(2)",
         "from": {"model": "ldp", "attribute": "d", "level": "ln(2)"},
         "derivation": [{"claim": "a2022:x", "status": "proven", "from": "ldp", "to": "kt_closeness"},
                        {"claim": "a2022:y", "status": "corrected", "from": "kt_closeness", "to": "dp"}]},
        {"definition": "kt_closeness", "implied": True, "level": "2", "readable": "t = 2",
         "from": {"model": "ldp", "attribute": "d", "level": "ln(2)"},
         "derivation": [{"claim": "a2022:x", "status": "proven", "from": "ldp", "to": "kt_closeness"}]},
        {"definition": "beta_likeness", "implied": False, "nothing": "no claim leads there"},
    ]
    figure = implication_map(implied)
    assert figure is not None
    assert sorted(svg_texts(figure.svg)) == ["1", "1  a2022:x: ldp → kt_closeness", "2",
                                             "2  a2022:y (corrected): kt_closeness → dp", "dp", "kt_closeness", "ldp"]
    assert implication_map(implied[2:]) is None and implication_map([]) is None


def test_arrows_fanning_out_of_one_definition_keep_their_numbers_apart(tmp_path: Path) -> None:
    """The derivations of the demo's Table 5: nine arrows, three out of k-anonymity, two arcs in one column."""
    from _svg_text import clashes, text_boxes
    from reports.plots import implication_map

    steps = [("k_risk", "prosecutor_risk", "k_anonymity"), ("k_risk", "k_anonymity", "prosecutor_risk"),
             ("recursive_to_alpha", "recursive_cl_diversity", "alpha_k_anonymity"),
             ("entropy_to_distinct", "entropy_l_diversity", "distinct_l_diversity"),
             ("alpha_to_entropy", "alpha_k_anonymity", "entropy_l_diversity"),
             ("k_to_uniqueness", "k_anonymity", "sample_uniqueness"),
             ("prosecutor_to_journalist", "prosecutor_risk", "journalist_risk"),
             ("journalist_to_marketer", "journalist_risk", "marketer_risk"), ("k_to_k_map", "k_anonymity", "k_map")]
    implied = [{"definition": target, "implied": True,
                "derivation": [{"claim": f"privcert:{claim}", "status": "proven", "from": source, "to": target}]}
               for claim, source, target in steps]
    figure = implication_map(implied)
    assert figure is not None
    (tmp_path / "map.svg").write_text(figure.svg, encoding="utf-8")
    boxes = text_boxes(tmp_path / "map.svg")
    assert {text for text, _ in boxes} >= {str(n) for n in range(1, 10)} and not clashes(boxes)


def test_without_implied_guarantees_there_is_no_implication_map() -> None:
    from reports.statement import build_predicate

    result = audit(load_table(TABLE4 / "release.csv"), load_policy(TABLE4 / "policy.toml"))
    nothing = [{"definition": "dp", "implied": False, "nothing": "no claim leads from these levels to dp."}]
    for implied in (None, nothing):
        html = render_html(view(build_predicate(result, "", implied=implied)))
        assert 'id="implication-map"' not in html and "implication map" not in html


def test_jupyter_views_use_the_same_page() -> None:
    from reports.html import notebook_html

    result = audit(load_table(TABLE4 / "release.csv"), load_policy(TABLE4 / "policy.toml"))
    html = notebook_html(result)
    assert 'class="verdict fail">FAIL<' in html and "3/8" in html and 'id="signature"' not in html
    report = notebook_html(result.report)
    assert ">MEASURED<" in report and report.count('class="measurement"') == len(result.report.measurements)


def test_jupyter_tables_come_from_the_verifier_alone() -> None:
    """``_repr_html_`` is the verifier's own table (it imports nothing of reports), escaped."""
    result = audit(load_table(TABLE4 / "release.csv"), load_policy(TABLE4 / "policy.toml"))
    html = result._repr_html_()
    assert 'class="verdict fail">FAIL<' in html and "3/8" in html
    assert html.count('class="check"') == len(result.checks)
    report = result.report._repr_html_()
    assert report.count('class="measurement"') == len(result.report.measurements)


def test_randomized_release_shows_the_kt_curve_and_never_embeds_original_counts(tmp_path: Path) -> None:
    folder = Path(__file__).resolve().parents[2] / "examples" / "randomized"
    for name in ("original.csv", "release.csv", "publisher.toml", "mechanism.csv"):
        shutil.copy(folder / name, tmp_path / name)
    done = certify(tmp_path, tmp_path / "original.csv", tmp_path / "publisher.toml", "--release",
                   str(tmp_path / "release.csv"))
    html = done.html.read_text(encoding="utf-8")
    assert "(k,t)-closeness of the randomized release over the subset size k" in html
    assert 'id="randomized"' in html and "625/176" in html  # (k,t)-closeness at k = 2 and k = 50
    assert "counts" not in done.predicate  # publisher mode: the data is the original, never named by a digest
    refused = runner.invoke(app, ["audit", "--policy", str(tmp_path / "publisher.toml"), "--sign", str(tmp_path / "key"),
                                  "--certificate", str(tmp_path / "again.json"), "--embed-counts"])
    assert refused.exit_code == 2 and "never put in a certificate" in refused.stderr


RISK_POLICY = """
[data]
qi = ["zip"]

[sensitive.diagnosis]

[risk]
sampling_fraction = "1/10"

[[require]]
model = "sample_uniqueness"
threshold = "1/2"
"""


def test_risk_audits_show_the_records_per_band_of_prosecutor_risk(table4: Certified, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from verifier.risk.distribution import UPPER_BOUNDS

    shutil.copy(Path(__file__).resolve().parents[2] / "privcert" / "data" / "hospital" / "release.csv", tmp_path)
    (tmp_path / "policy.toml").write_text(RISK_POLICY, encoding="utf-8")
    done = certify(tmp_path, tmp_path / "release.csv", tmp_path / "policy.toml", "--embed-counts")
    html = done.html.read_text(encoding="utf-8")
    # zip's 28 classes: 13 of 5 records (risk 1/5), 9 of 10, 3 of 20, 1 of 25 and 2 of 30 (1/25 and 1/30 in (3%, 4%])
    caption = ("Records per band of prosecutor re-identification risk 1/|E| (the bands ARX shows), of 300 records: "
               "(16.67%, 20%]: 65 records (13/60); (9%, 10%]: 90 records (3/10); (4%, 5%]: 60 records (1/5); "
               "(3%, 4%]: 85 records (17/60)")
    found = re.findall(r"<figure>(<svg.*?</svg>)\s*<figcaption><bdi>([^<]*)</bdi>", html, re.DOTALL)
    assert [c for _, c in found][1] == caption  # after the class sizes
    texts = svg_texts(found[1][0])
    assert "[0%, 1e-06%]" in texts and "(50%, 100%]" in texts and "(12.5%, 14.29%]" in texts
    assert sum(1 for t in texts if t.endswith("]")) == len(UPPER_BOUNDS) == 24
    assert "Records per band of prosecutor re-identification risk" not in table4.html.read_text(encoding="utf-8")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    pages = []
    for number in (1, 2):
        page = tmp_path / f"{number}.html"
        assert runner.invoke(app, ["report", str(done.certificate), "--html", str(page)]).exit_code == 0
        pages.append(page.read_bytes())
    assert pages[0] == pages[1] and caption.encode() in pages[0]


@pytest.fixture(scope="module")
def table5(tmp_path_factory: pytest.TempPathFactory) -> Certified:
    """The demo's Table 5 (Li et al. 2007): ids with underscores, joint attributes, a parameter, fractions."""
    data = Path(__file__).resolve().parents[2] / "privcert" / "data"
    return certify(tmp_path_factory.mktemp("table5"), data / "release.csv", data / "policy.toml")


@pytest.mark.parametrize("name", ["table4", "table5"])
def test_pdf_rows_read_in_order_each_on_its_own_line(name: str, request: pytest.FixtureRequest) -> None:
    """pdftotext reads each measurement as one line, its cells left to right: requirement, model in words,
    attribute, the level as a decimal, the threshold, the result; under it the model's meaning and id. A
    column drawn over another (an id that does not break) would cut or merge these."""
    from reports.reading import model_words, number

    certified: Certified = request.getfixturevalue(name)
    text = subprocess.run(["pdftotext", "-layout", str(certified.pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    lines = text.splitlines()
    found = []
    for measurement in certified.predicate["measurements"]:
        words = model_words(measurement["model"])
        attribute = measurement["attribute"]
        attribute = "-" if attribute is None else attribute if isinstance(attribute, str) else "+".join(attribute)
        level = number(measurement["exact"]).decimal
        threshold = number(measurement["threshold"])
        shown = threshold.decimal if not threshold.decimal.startswith("≈") else measurement["threshold"]
        cells = [re.escape(measurement["requirement"]), re.escape(words.name.split()[0]), re.escape(attribute.split("+")[0]),
                 re.escape(level), r"[≥≤<>]\s?" + re.escape(shown), "pass" if measurement["passed"] else "fail"]
        pattern = re.compile(r"^\s*" + r"\S*\s.*?".join(cells) + r"\s*$")
        at = next((i for i, line in enumerate(lines) if pattern.match(line)), None)
        assert at is not None, (measurement["requirement"], pattern.pattern, text)
        end = next(i for i in range(at + 1, len(lines)) if re.match(r"\s*(require\[|The exact value)", lines[i]))
        below = re.sub(r"\s+", " ", " ".join(lines[at:end]))
        assert " ".join(words.meaning.split()[:3]) in below and measurement["model"] in below
        found.append(at)
    assert found == sorted(found)
    assert "exact value (in small type) decides pass or fail" in text


def test_a_level_with_a_root_reads_as_a_decimal_and_is_compared_exactly() -> None:
    """Levels are read with the grammar privcert writes them in (entropy l of a class of 65 records,
    {x×64, y}, is 65·2^(6/65)/64), not the grammar of user-written thresholds, which has no roots."""
    from reports.reading import implied_that_add, number

    assert number("65*2^(6/65)/64") == type(number("1/5"))("≈ 1.083", "65*2^(6/65)/64")
    measured = [{"model": "entropy_l_diversity", "attribute": "a", "exact": "65*2^(6/65)/64"}]
    implied = [{"definition": "entropy_l_diversity", "implied": True, "level": "1",
                "from": {"model": "distinct_l_diversity", "attribute": "a", "level": "2"}}]
    # The measured level (≈ 1.083) is stronger than the implied 1: nothing added.
    assert implied_that_add(implied, measured).shown == ()


def test_a_failure_sentence_names_the_quasi_identifiers_in_the_policys_order() -> None:
    """A signed predicate is canonical JSON, whose objects come back with sorted keys ({age, zip}); the
    page writes the witness class in the policy's order (zip, age), as the audit printed it."""
    predicate = golden_predicate("v3", "table4-fail")
    assert predicate["release"]["quasi_identifiers"] == ["zip", "age"]
    assert any(list((m.get("witness") or {}).get("qi") or {}) == ["age", "zip"] for m in predicate["measurements"])
    failures = view(predicate).context["failures"]
    assert failures and all("{zip: 476**, age: 2*}" in text for text in failures), failures


def test_a_level_known_only_between_exact_bounds_reads_as_both_decimals_not_exact() -> None:
    """In auditor mode (k,t)-closeness at k = 50 is implied from ε-LDP: known only between 1 and 49/10, its signed
    ``exact`` the upper bound. Measured or stated, its cell gives both decimals, says it is not exact and shows both
    exact bounds; it passes as signed (decided on the upper bound). An exactly known level reads as before."""
    predicate = golden_predicate("v4", "randomized-auditor")
    bounded = predicate["measurements"][2]
    assert (bounded["exact"], bounded["bounds"], bounded["passed"]) == (
        "49/10", {"exact": False, "lower": "1", "upper": "49/10"}, True)
    predicate["publisher_statements"] = {"measurements": [{**bounded, "requirement": "require[4]"}]}
    html = render_html(view(predicate))
    cells = re.findall(r'<tr class="(measurement|statement)">.*?(<td data-label="Level".*?)\n', html, re.S)
    between = ('<td data-label="Level" class="level"><span class="decimal">between 1 and 4.9 (not exact)</span> '
               '<span class="exact">1 ≤ level ≤ 49/10</span></td>')
    required = ('<td data-label="Required" class="threshold"><span class="decimal">≤&nbsp;5</span></td>\n'
                '<td data-label="Result" class="result"><span class="ok">pass</span></td>')
    assert cells == [
        ("measurement", '<td data-label="Level" class="level"><span class="decimal">318</span></td>'),
        ("measurement", '<td data-label="Level" class="level"><span class="decimal">≈ 1.609</span> '
                        '<span class="exact">ln(5)</span></td>'),
        ("measurement", between),
        ("statement", between)]
    assert html.count(required) == 2


def test_bounds_that_round_alike_read_as_one_decimal_each_exact_bound_clipped_on_its_own() -> None:
    """ε-LDP of a noise mechanism: bounds a few ulps apart read as one decimal, still not exact; a bound longer than
    a cell shows is cut alone, so the other one stays whole beside it."""
    from reports.page.measurements import row
    from reports.reading import Interval

    lower = f"ln({'9' * 300}/{'1' + '0' * 298})"
    measurement = {"model": "ldp", "attribute": "age", "exact": "ln(100)",
                   "bounds": {"exact": False, "lower": lower, "upper": "ln(100)"}}
    assert row(measurement)["bounds"] == Interval("≈ 4.605 (not exact)", lower, "ln(100)")
    assert row({**measurement, "bounds": None})["bounds"] is None
    html = render_html(view({"measurements": [measurement]}))
    assert (f'<span class="decimal">≈ 4.605 (not exact)</span> <span class="exact">ln({"9" * 237}… (604 characters; '
            "the whole text is in the certificate&#39;s JSON) ≤ level ≤ ln(100)</span></td>") in html


def test_a_randomized_level_known_only_between_exact_bounds_reads_as_both_in_its_table() -> None:
    """A noise mechanism's levels (publisher mode) are known only between exact bounds: the randomized table gives
    both decimals, not exact, and both exact bounds, where an exact level shows alone as before."""
    bounded = {"model": "ldp", "parameters": {}, "exact": "ln(49/10)",
               "bounds": {"exact": False, "lower": "ln(2)", "upper": "ln(49/10)"}}
    exact = {"model": "dp", "parameters": {}, "exact": "ln(5)"}
    html = render_html(view({"measurements": [], "randomized": {"mode": "publisher", "mechanism": "noise.toml",
                                                                 "measurements": [bounded, exact]}}))
    assert re.findall(r'<tr class="randomized"><td>.*?</td><td></td>(<td class="level">.*?</td>)', html) == [
        '<td class="level"><span class="decimal">between 0.6931 and 1.589 (not exact)</span> '
        '<span class="exact">ln(2) ≤ level ≤ ln(49/10)</span></td>',
        '<td class="level">ln(5)</td>']
    assert '<th class="level">Level</th>' in html
