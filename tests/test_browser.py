"""The HTML certificate in a real browser: headless Chromium through Selenium (Debian chromium, chromium-driver).

The test opens the page from disk, reads the verdict, every measurement and the labels of
the implication map from the DOM (``textContent`` for SVG text), checks that nothing from the release became an element,
and saves screenshots (desktop and phone width) in the test's temporary folder.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from _certify import Certified, certify_table4
from _chromium import DRIVER, chromium
from verifier.escape import safe
from test_hostile_input import ATTRIBUTE, SCRIPT, TEMPLATE, hostile  # noqa: F401 (a fixture)


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
              row.find_element(By.CSS_SELECTOR, "td.level").text) for row in rows]
    certified = [(m["requirement"], m["exact"]) for m in table4.predicate["measurements"]]
    assert shown == certified == [("require[1]", "3"), ("require[2]", "3"), ("require[3]", "3/8"), ("require[4]", "4/9")]
    svg_text = browser.execute_script(
        "return Array.from(document.querySelectorAll('svg text')).map(t => t.textContent).join(' ')")
    assert "class size |E| (records)" in svg_text and "worst class" in svg_text and "gastric ulcer" in svg_text
    map_text = browser.execute_script(
        "return Array.from(document.querySelectorAll('#implied #implication-map svg text')).map(t => t.textContent)")
    # every definition of Table 4's derivations, each arrow's number, and its legend line "N  claim: from → to"
    steps = list(dict.fromkeys((s["claim"], s["status"], s["from"], s["to"])
                               for g in table4.predicate["implied"] if g["implied"] for s in g["derivation"]))
    legend = [f"{n}  {claim}{'' if status == 'proven' else f' ({status})'}: {source} → {target}"
              for n, (claim, status, source, target) in enumerate(steps, start=1)]
    expected = {side for step in steps for side in step[2:]} | {str(n) for n in range(1, len(steps) + 1)} | set(legend)
    assert any(line.endswith("  privcert:k_risk: k_anonymity → prosecutor_risk") for line in legend)
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
