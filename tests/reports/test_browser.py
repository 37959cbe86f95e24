"""The HTML certificate in a real browser: headless Chromium through Selenium (Debian chromium, chromium-driver).

The test opens the page from disk, reads the verdict, every measurement and the labels of
the implication map from the DOM (``textContent`` for SVG text), checks that nothing from the release became an element,
and saves screenshots (desktop and phone width) in the test's temporary folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_hostile_input import ATTRIBUTE, SCRIPT, TEMPLATE, hostile  # noqa: F401 (a fixture)

from _certify import Certified, certify_table4, golden_predicate
from _chromium import DRIVER, chromium
from verifier.escape import safe

if not DRIVER.is_file():
    pytest.skip("Debian's chromium-driver is not installed (scripts/setup installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    driver = chromium(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def table4(tmp_path_factory: pytest.TempPathFactory) -> Certified:
    return certify_table4(tmp_path_factory.mktemp("table4"))


def test_the_browser_shows_the_verdict_and_every_measurement(browser, table4: Certified, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    browser.set_window_size(1200, 1600)
    browser.get(table4.html.as_uri())
    assert browser.find_element(By.ID, "verdict").text == "FAIL"
    rows = browser.find_elements(By.CSS_SELECTOR, "tr.measurement")
    shown = [(row.find_element(By.CSS_SELECTOR, "td[data-label=Requirement]").text,
              row.find_element(By.CSS_SELECTOR, "td.level").text.split("\n")) for row in rows]
    certified = [(m["requirement"], m["exact"]) for m in table4.predicate["measurements"]]
    # the decimal to read, the exact value under it (an integer is its own exact value)
    assert shown == [("require[1]", ["3"]), ("require[2]", ["3"]), ("require[3]", ["0.375", "3/8"]),
                     ("require[4]", ["≈ 0.4444", "4/9"])]
    assert [(r, level[-1]) for r, level in shown] == certified
    svg_text = browser.execute_script(
        "return Array.from(document.querySelectorAll('svg text')).map(t => t.textContent).join(' ')")
    assert "class size |E| (records)" in svg_text and "worst class" in svg_text and "gastric ulcer" in svg_text
    map_text = browser.execute_script(
        "return Array.from(document.querySelectorAll('#implied #implication-map svg text')).map(t => t.textContent)")
    # every definition of Table 4's derivations, each arrow's number, and its legend line "N  claim: from → to"
    from reports.reading import implied_that_add

    shown = implied_that_add(table4.predicate["implied"], table4.predicate["measurements"]).shown
    steps = list(dict.fromkeys((s["claim"], s["status"], s["from"], s["to"]) for g in shown for s in g["derivation"]))
    legend = [f"{n}  {claim}{'' if status == 'proven' else f' ({status})'}: {source} → {target}"
              for n, (claim, status, source, target) in enumerate(steps, start=1)]
    expected = {side for step in steps for side in step[2:]} | {str(n) for n in range(1, len(steps) + 1)} | set(legend)
    assert any(line.endswith("  privcert:k_risk (tested): k_anonymity → prosecutor_risk") for line in legend)
    assert sorted(map_text) == sorted(expected)
    assert browser.execute_script("return document.querySelectorAll('script, img, iframe, link').length") == 0
    desktop = tmp_path / "certificate-desktop.png"
    assert browser.save_screenshot(str(desktop)) and desktop.stat().st_size > 10_000
    print(f"screenshot: {desktop}")


def test_on_a_phone_the_measurements_become_cards(browser, table4: Certified, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    browser.set_window_size(390, 844)
    browser.get(table4.html.as_uri())
    header = browser.find_element(By.CSS_SELECTOR, "table.measurements thead")
    assert not header.is_displayed()
    width = browser.execute_script("return document.documentElement.scrollWidth")
    viewport = browser.execute_script("return window.innerWidth")
    assert width <= viewport  # no sideways scrolling
    phone = tmp_path / "certificate-phone.png"
    assert browser.save_screenshot(str(phone))
    print(f"screenshot: {phone}")


def test_hostile_names_and_values_stay_text_in_the_browser(browser, hostile) -> None:  # noqa: F811 (the fixture)
    """No alert opens (Selenium would raise), no element comes from the release, the text reads as written."""
    from selenium.webdriver.common.by import By

    browser.get(hostile.certified.html.as_uri())
    assert browser.execute_script("return document.querySelectorAll('script, img, iframe, link, object').length") == 0
    assert browser.find_element(By.ID, "verdict").text == "FAIL"
    text = browser.execute_script("return document.body.textContent")
    # shown as text; control and bidirectional characters shown escaped (inert)
    assert SCRIPT in text and ATTRIBUTE in text and TEMPLATE in text and safe(hostile.bidi) in text


BUNDLED = Path(__file__).resolve().parents[2] / "privcert" / "data"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Certified]:
    """The demo's two releases (the hospital release and Table 5 of the t-closeness slides), certified."""
    from _certify import certify

    return {name: certify(tmp_path_factory.mktemp(name), folder / "release.csv", folder / "policy.toml")
            for name, folder in (("hospital", BUNDLED / "hospital"), ("table5", BUNDLED))}


# For every table cell: its box, and the box of its content (a Range over its children, so text that
# spills out of its cell is caught); the page's width against the window's.
_BOXES = """
const box = r => [r.left, r.top, r.right, r.bottom];
const cells = Array.from(document.querySelectorAll('table')).map(table =>
  Array.from(table.querySelectorAll('th, td')).filter(c => c.offsetParent !== null).map(c => {
    const range = document.createRange(); range.selectNodeContents(c);
    return {text: c.textContent.trim().slice(0, 40), cell: box(c.getBoundingClientRect()),
            content: box(range.getBoundingClientRect())};
  }));
return {cells: cells, width: document.documentElement.scrollWidth, window: window.innerWidth};
"""


def _overlaps(found: dict) -> list[str]:
    """Every pair of cells of one table whose boxes intersect, and every cell whose content spills out of it."""
    def intersect(a: list[float], b: list[float]) -> bool:
        return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5

    problems = []
    for table in found["cells"]:
        for i, first in enumerate(table):
            cell, content = first["cell"], first["content"]
            if first["text"] and (content[0] < cell[0] - 0.5 or content[2] > cell[2] + 0.5):
                problems.append(f"{first['text']!r} spills out of its cell: {content} beyond {cell}")
            problems += [f"{first['text']!r} overlaps {second['text']!r}" for second in table[i + 1:]
                         if intersect(cell, second["cell"])]
    if found["width"] > found["window"]:
        problems.append(f"the page is {found['width']} px wide in a {found['window']} px window")
    return problems


@pytest.mark.parametrize("width", [1280, 800, 390])
def test_no_cell_overlaps_another_or_spills_out_at_any_width(browser, demo: dict[str, Certified], table4: Certified,
                                                             width: int, tmp_path: Path) -> None:
    """The measurement tables of the demo's certificates and of Table 4: every cell apart, every text inside its
    cell, no sideways scrolling (the page at 390 px is a phone's). With ``PRIVCERT_SCREENSHOTS=DIR`` the
    screenshots are written there (docs/images is refreshed so)."""
    folder = Path(os.environ.get("PRIVCERT_SCREENSHOTS") or tmp_path)
    for name, certified in (*demo.items(), ("table4", table4)):
        browser.set_window_size(width, 900)
        browser.get(certified.html.as_uri())
        found = browser.execute_script(_BOXES)
        assert sum(len(table) for table in found["cells"]) >= 4 * 6
        assert _overlaps(found) == [], name
        if name == "hospital" and width in (1280, 390):  # its top, as docs/certificates.md shows it
            browser.set_window_size(width, 1500)
            shot = folder / ("certificate.png" if width == 1280 else "certificate-phone.png")
            assert browser.save_screenshot(str(shot))
            print(f"screenshot: {shot}")
    if width == 1280:  # the PDF's first page, as pdftoppm draws it
        import subprocess

        subprocess.run(["pdftoppm", "-r", "70", "-f", "1", "-l", "1", "-singlefile", "-png", str(demo["hospital"].pdf),
                        str(folder / "certificate-pdf")], check=True)
        print(f"screenshot: {folder / 'certificate-pdf.png'}")


def test_long_exact_levels_wrap_inside_their_cells_on_a_phone(browser: Any, tmp_path: Path) -> None:
    """Levels hundreds of digits long (a noise mechanism's ε, known only between two such exact bounds; a fraction of
    40-digit numbers), in the measurements, the publisher's statements, the randomized levels and the implied
    guarantees' headings: each wraps inside its cell or heading at 390 px, and the page never scrolls sideways."""
    from reports.html import render_html, view

    lower, upper = f"ln({'9' * 120}/1{'0' * 118})", f"ln(1{'0' * 120}/1{'0' * 118})"
    predicate = golden_predicate("v4", "randomized-auditor")
    predicate["measurements"][1]["exact"] = f"{'7' * 40}/{'3' * 40}"
    predicate["measurements"][2].update(exact=upper, bounds={"exact": False, "lower": lower, "upper": upper})
    predicate["publisher_statements"] = {"measurements": [{**predicate["measurements"][2], "requirement": "require[4]"}]}
    for level in predicate["randomized"]["measurements"]:
        level["exact"] = upper
    for entry in predicate["implied"]:
        entry["from"]["level"] = upper
    page = tmp_path / "long.html"
    page.write_text(render_html(view(predicate)), encoding="utf-8")
    browser.set_window_size(390, 900)
    browser.get(page.as_uri())
    found = browser.execute_script(_BOXES)
    levels = [cell["text"] for table in found["cells"] for cell in table if cell["text"].startswith("≈")]
    assert levels == [f"≈ 2.333 {'7' * 32}", *[f"≈ 4.605 (not exact) ln({'9' * 17}"] * 2]  # 40 characters of each
    assert _overlaps(found) == []
    # the randomized levels' table scrolls inside its own box, its exact levels wrapped (one line would be 2,000 px)
    assert browser.execute_script("const box = document.querySelector('#randomized .scroll');"
                                  "return box.scrollWidth < 2 * box.clientWidth")


def test_the_overlap_check_catches_a_spilling_cell() -> None:
    """The check itself: an id that does not break, wider than its cell, and two cells on top of each other."""
    found = {"cells": [[{"text": "distinct_l_diversity", "cell": [0, 0, 100, 20], "content": [0, 0, 160, 20]},
                        {"text": "disease", "cell": [90, 0, 200, 20], "content": [90, 0, 150, 20]}]],
             "width": 390, "window": 390}
    assert _overlaps(found) == ["'distinct_l_diversity' spills out of its cell: [0, 0, 160, 20] beyond [0, 0, 100, 20]",
                                "'distinct_l_diversity' overlaps 'disease'"]
