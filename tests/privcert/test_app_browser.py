"""The workbench end to end: ``privcert serve`` in a real uvicorn, driven by headless Chromium through
Selenium (Debian chromium, chromium-driver), as a user would.

Upload a release, audit it, make a key, sign, download the certificate and verify it with the
command line; verify a tampered certificate in the page; compare candidates; plan a randomized
release and download its mechanism; explore the map by keyboard. Every page is photographed at
1280 and 390 px wide (into
``$PRIVCERT_APP_SCREENSHOTS`` when set, the folder docs/app.md shows, else the test's
temporary folder) and checked for sideways scrolling and overlapping labels.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from _app_client import BANNER, HOSTILE_RELEASE, SCRIPT
from _chromium import DRIVER, chromium
from _processes import CEILING

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "privcert" / "data"

if not DRIVER.is_file():
    pytest.skip("Debian's chromium-driver is not installed (scripts/setup installs it)", allow_module_level=True)

OVERLAPS = """
const boxes = [];
for (const el of document.querySelectorAll('main label, main button, main h1, main h2, main h3, main legend, main th, main td, main a, main p')) {
  if (!el.offsetParent || el.closest('svg, .map, .scroll, figure')) continue;
  const folded = el.closest('details');
  if (folded && !folded.open && !el.closest('summary')) continue;
  const r = el.getBoundingClientRect();
  if (r.width && r.height) boxes.push([el, r]);
}
const found = [];
for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
  const [a, r] = boxes[i], [b, s] = boxes[j];
  if (a.contains(b) || b.contains(a)) continue;
  const x = Math.min(r.right, s.right) - Math.max(r.left, s.left), y = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
  if (x > 2 && y > 2) found.push(a.textContent.trim().slice(0, 30) + ' / ' + b.textContent.trim().slice(0, 30));
}
return found;
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "privcert", "serve", "--port", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + CEILING
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.2)
    else:
        process.kill()
        raise AssertionError(f"privcert serve did not listen: {process.communicate()[0]}")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        output = process.communicate(timeout=CEILING)[0]
        assert "Traceback" not in output, output


@pytest.fixture(scope="module")
def downloads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory, downloads: Path) -> Iterator[object]:
    driver = chromium(tmp_path_factory.mktemp("chromium-profile"), downloads)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("PRIVCERT_APP_SCREENSHOTS")
    return Path(given) if given else tmp_path_factory.mktemp("screenshots")


def _wait(browser: object, css: str, seconds: float = CEILING) -> object:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, seconds).until(expected_conditions.visibility_of_element_located((By.CSS_SELECTOR, css)))


def _downloaded(folder: Path, name: str, seconds: float = CEILING) -> Path:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        path = folder / name
        if path.is_file() and path.stat().st_size and not (folder / f"{name}.crdownload").exists():
            return path
        time.sleep(0.2)
    raise AssertionError(f"{name} was not downloaded; found {sorted(p.name for p in folder.iterdir())}")


def _photograph(browser: object, shots: Path, name: str) -> None:
    """The page at 1280 and 390 px: no sideways scrolling on a phone, no overlapping labels, a screenshot each."""
    for width, suffix in ((1280, "desktop"), (390, "phone")):
        browser.set_window_size(width, 900)
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(width, min(max(900, height + 140), 6000))
        browser.execute_script("window.scrollTo(0, 0)")
        path = shots / f"app-{name}-{suffix}.png"
        assert browser.save_screenshot(str(path))
        assert browser.execute_script(OVERLAPS) == [], f"{name} at {width} px: overlapping text ({path})"
        scroll = browser.execute_script("return document.documentElement.scrollWidth")
        assert scroll <= browser.execute_script("return window.innerWidth"), f"{name} at {width} px scrolls sideways"
        assert _inaccessible(browser) == [], f"{name} at {width} px: axe-core's violations"
    browser.set_window_size(1280, 900)


def _inaccessible(browser: object) -> list[str]:
    """axe-core's violations of the page as it is shown (its default rules: WCAG 2.x A and AA and its best
    practices), each rule's id and the elements it found. axe-core is the script that the axe-playwright-python
    package ships (4.12 in 2026); Selenium runs it in the page."""
    from importlib.resources import files

    browser.execute_script((files("axe_playwright_python") / "axe.min.js").read_text(encoding="utf-8"))
    found = browser.execute_async_script("const done = arguments[arguments.length - 1]; axe.run().then(done)")
    return [f"{rule['id']} ({rule['impact']}): {', '.join(str(node['target']) for node in rule['nodes'][:5])}"
            for rule in found["violations"]]


def test_upload_audit_sign_download_and_verify_with_the_cli(server: str, browser, downloads: Path, shots: Path,
                                                             tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    browser.set_window_size(1280, 900)
    browser.get(f"{server}/audit")
    release = tmp_path / "admissions.csv"
    release.write_bytes((DATA / "hospital" / "release.csv").read_bytes())
    browser.find_element(By.ID, "release-file").send_keys(str(release))
    browser.find_element(By.CSS_SELECTOR, "form[hx-post='/audit/release'] button").click()
    _wait(browser, "#policy-status .ok")
    assert "admissions.csv" in browser.find_element(By.ID, "policy-title").text
    roles = [e.get_attribute("value") for e in browser.find_elements(By.CSS_SELECTOR, "select[id^=role-]")]
    assert roles == ["quasi-identifier", "quasi-identifier", "sensitive", "sensitive"]
    threshold = browser.find_element(By.ID, "req-0-threshold")
    threshold.clear()
    threshold.send_keys("0")
    _wait(browser, "#policy-status .error")
    assert "require[1].threshold" in browser.find_element(By.ID, "policy-status").text
    threshold.clear()
    threshold.send_keys("5")
    _wait(browser, "#policy-status .ok")
    browser.find_element(By.XPATH, "//button[text()='Run the audit']").click()
    verdict = _wait(browser, "#verdict")
    assert verdict.text == "PASS"
    rows = browser.find_elements(By.CSS_SELECTOR, "tr.requirement-row")
    # the suggested requirements: 5-anonymity (typed in), distinct 2-diversity on each sensitive column
    assert [r.find_element(By.CSS_SELECTOR, "td.level").text for r in rows] == ["5", "2", "3"]
    _photograph(browser, shots, "audit")
    browser.find_element(By.XPATH, "//button[text()='Generate a new key']").click()
    _wait(browser, "a[href$='privcert.key.pub']").click()
    browser.find_element(By.CSS_SELECTOR, "a[href$='privcert.key']").click()
    public = _downloaded(downloads, "privcert.key.pub")
    _downloaded(downloads, "privcert.key")
    browser.find_element(By.XPATH, "//button[text()='Sign the certificate']").click()
    _wait(browser, "#download-certificate").click()
    certificate = _downloaded(downloads, "certificate.json")
    _photograph(browser, shots, "certify")
    cli = subprocess.run([sys.executable, "-m", "privcert", "verify", str(certificate), "--public-key", str(public)],
                         capture_output=True, text=True, check=False)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    assert "VALID" in cli.stdout and "admissions.csv" in cli.stdout


def _refused_by_the_csp(browser: object) -> list[str]:
    """The console's Content-Security-Policy refusals since the last call (an inline style or script the page has)."""
    return [entry["message"] for entry in browser.get_log("browser") if "Content Security Policy" in entry["message"]]


INJECTED = "return document.querySelectorAll('main b, main img, main div.pass, main script, main i').length"
"""The elements a release of HTML would bring into a page if its text were markup."""


def test_a_release_of_html_shows_as_its_text_on_every_page(server: str, browser, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _refused_by_the_csp(browser)
    browser.set_window_size(1280, 900)
    browser.get(f"{server}/audit")
    release = tmp_path / "<i>hostile<i>.csv"
    release.write_bytes(HOSTILE_RELEASE)
    browser.find_element(By.ID, "release-file").send_keys(str(release))
    browser.find_element(By.CSS_SELECTOR, "form[hx-post='/audit/release'] button").click()
    _wait(browser, "#policy-status .error")  # no sensitive column suggested
    assert browser.find_element(By.ID, "policy-title").text == "2. The policy for <i>hostile<i>.csv"
    assert [e.text for e in browser.find_elements(By.CSS_SELECTOR, "table.columns th code")] == [BANNER, SCRIPT, "age"]
    Select(browser.find_element(By.ID, "role-1")).select_by_visible_text("sensitive")
    _wait(browser, "#policy-status .ok")
    threshold = browser.find_element(By.ID, "req-0-threshold")
    threshold.clear()
    threshold.send_keys("7")
    _wait(browser, "#policy-status .ok")
    browser.find_element(By.XPATH, "//button[text()='Run the audit']").click()
    assert _wait(browser, "#verdict").text == "FAIL"
    worst = browser.find_element(By.CSS_SELECTOR, "tr.requirement-row td[data-label='Worst class']").text
    assert worst == f"{BANNER} = <b onmouseover=alert(1)>0</b>, age = 30 (6 records)"
    assert browser.execute_script(INJECTED) == 0 and _refused_by_the_csp(browser) == []
    for page in ("verify", "compare", "plan", "explore"):
        browser.get(f"{server}/{page}")
        _wait(browser, "main h1")
        assert browser.execute_script(INJECTED) == 0 and _refused_by_the_csp(browser) == [], page
    browser.get(f"{server}/audit")
    assert [e.text for e in browser.find_elements(By.CSS_SELECTOR, "table.columns th code")] == [BANNER, SCRIPT, "age"]
    assert browser.execute_script(INJECTED) == 0 and _refused_by_the_csp(browser) == []


def test_a_tampered_certificate_shows_invalid_in_the_page(server: str, browser, downloads: Path, shots: Path,
                                                          tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    certificate, public = downloads / "certificate.json", downloads / "privcert.key.pub"
    if not certificate.is_file():
        pytest.fail("needs the certificate the previous test downloaded")
    browser.get(f"{server}/verify")
    browser.find_element(By.ID, "certificate-file").send_keys(str(certificate))
    browser.find_element(By.ID, "public-key-file").send_keys(str(public))
    browser.find_element(By.XPATH, "//button[text()='Verify']").click()
    assert _wait(browser, "#verify-verdict").text == "VALID, PASS"
    envelope = json.loads(certificate.read_text(encoding="utf-8"))
    payload = base64.b64decode(envelope["payload"])
    changed = payload.replace(b'"rows":300', b'"rows":299')
    assert changed != payload
    envelope["payload"] = base64.b64encode(changed).decode()
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(envelope), encoding="utf-8")
    browser.get(f"{server}/verify")
    browser.find_element(By.ID, "certificate-file").send_keys(str(tampered))
    browser.find_element(By.ID, "public-key-file").send_keys(str(public))
    browser.find_element(By.XPATH, "//button[text()='Verify']").click()
    assert _wait(browser, "#verify-verdict").text == "INVALID"
    assert "signature: fails" in browser.find_element(By.CSS_SELECTOR, "pre.lines").text
    _photograph(browser, shots, "verify")


def test_compare_shows_the_table_and_the_figure(server: str, browser, shots: Path, tmp_path: Path) -> None:
    import pandas as pd
    from selenium.webdriver.common.by import By

    original = pd.read_csv(DATA / "hospital" / "release.csv")
    original.to_csv(tmp_path / "original.csv", index=False)
    original.assign(zip="*").to_csv(tmp_path / "no-zip.csv", index=False)
    original.assign(age="*").to_csv(tmp_path / "no-age.csv", index=False)
    browser.get(f"{server}/compare")
    browser.find_element(By.ID, "original-file").send_keys(str(tmp_path / "original.csv"))
    browser.find_element(By.ID, "candidate-files").send_keys(f"{tmp_path / 'no-zip.csv'}\n{tmp_path / 'no-age.csv'}")
    browser.find_element(By.ID, "qi").send_keys("age,zip")
    browser.find_element(By.XPATH, "//button[text()='Compare']").click()
    table = _wait(browser, "table.compare")
    names = [e.get_attribute("aria-label") for e in table.find_elements(By.CSS_SELECTOR, "tbody th button")]
    assert names == ["Audit no-zip.csv", "Audit no-age.csv"]
    assert browser.find_elements(By.CSS_SELECTOR, "figure.figure svg")
    _photograph(browser, shots, "compare")
    browser.find_element(By.CSS_SELECTOR, "button[aria-label='Audit no-age.csv']").click()
    assert "no-age.csv" in _wait(browser, "#policy-title").text


def test_plan_shows_the_mechanisms_figures_and_downloads_the_chosen_one(server: str, browser, downloads: Path,
                                                                        shots: Path) -> None:
    from selenium.webdriver.common.by import By

    browser.get(f"{server}/plan")
    browser.find_element(By.ID, "original-file").send_keys(str(ROOT / "examples" / "randomized" / "original.csv"))
    for field, value in (("sensitive", "disease"), ("t0", "4"), ("eps0", "ln(5)"), ("k", "50")):
        browser.find_element(By.ID, field).send_keys(value)
    browser.find_element(By.XPATH, "//button[text()='Plan']").click()
    chosen = _wait(browser, "table.compare tr.chosen")
    assert chosen.find_element(By.CSS_SELECTOR, "th").text == "optimal"  # the data-independent optimum: Fig. 4 here
    assert len(browser.find_elements(By.CSS_SELECTOR, "figure.figure svg")) == 2
    browser.find_element(By.ID, "download-mechanism").click()
    assert _downloaded(downloads, "mechanism.csv").read_text(encoding="utf-8").splitlines()[:3] == \
        ["# data: independent", "value,asthma,cold,flu,hiv", "asthma,53/92,13/92,13/92,13/92"]
    _photograph(browser, shots, "plan")


def test_explore_by_keyboard(server: str, browser, shots: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(f"{server}/explore")
    from selenium.webdriver.support.ui import WebDriverWait

    assert "privcert:k_risk" in _wait(browser, "#definition .arrows").text  # k-anonymity's, drawn with the page
    node = _wait(browser, "#map svg text.definition-node[aria-label='Show the arrows of ε-differential privacy']")
    browser.execute_script("arguments[0].focus()", node)
    node.send_keys(Keys.ENTER)
    WebDriverWait(browser, CEILING).until(lambda driver: driver.execute_script(
        "return document.activeElement.id") == "definition")  # the focus follows the update
    assert browser.find_element(By.CSS_SELECTOR, "#definition h3").text == "ε-differential privacy dp"
    assert "privcert:k_not_dp" in browser.find_element(By.CSS_SELECTOR, "#definition .arrows").text
    premise = browser.find_element(By.ID, "premise")
    premise.send_keys("multiplicative")
    conclusion = browser.find_element(By.ID, "conclusion")
    browser.execute_script("arguments[0].value = 'ldp'", conclusion)
    browser.find_element(By.ID, "bound").send_keys("3")
    browser.find_element(By.ID, "param-N").send_keys("4")
    browser.find_element(By.ID, "param-k").send_keys("2" + Keys.ENTER)
    answer = _wait(browser, "#implies-answer")
    assert answer.text == "No: multiplicative t-closeness (with k-anonymity) does not imply ε-local differential privacy."
    WebDriverWait(browser, CEILING).until(lambda driver: driver.execute_script(
        "return document.activeElement.id") == "implies-result")
    assert "43/88" in _wait(browser, "#witness-table").text
    browser.find_element(By.XPATH, "//button[text()='Explain']").click()
    assert "prosecutor_risk" in _wait(browser, "#explained").text
    _photograph(browser, shots, "explore")
