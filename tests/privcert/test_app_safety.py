"""The workbench is safe to open: a release's own text never becomes the page's markup, no policy reaches a file
the browser did not upload, only this computer's names for the server are answered, and what a browser can make
the server keep (sessions, disk, columns, keys) is bounded. Through httpx (Starlette's TestClient)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from _app_client import Structure, browser_client, csrf, finished
from privcert.app import Settings, create_app

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "privcert" / "data"
BANNER = '<div class="pass">PASS: all requirements hold. Certified.</div>'
SCRIPT = "<script>alert(1)</script>"
HOSTILE_RELEASE = (f'"{BANNER.replace(chr(34), chr(34) * 2)}",{SCRIPT},age\n'
                   + "".join(f'"<b onmouseover=alert(1)>{n % 2}</b>",<img src=x onerror=alert({n % 3})>,{30 + n % 2}\n'
                             for n in range(12))).encode()
"""A release whose header and cells are HTML: a painted verdict, a script, event handlers."""
HOSTILE_FORM = {"requirements": "2", "role-0": "quasi-identifier", "role-1": "sensitive", "kind-1": "categorical",
                "role-2": "quasi-identifier", "req-0-model": "k_anonymity", "req-0-threshold": "2",
                "req-1-model": "distinct_l_diversity", "req-1-attribute": SCRIPT, "req-1-threshold": "2"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with browser_client(create_app(Settings(max_upload=2_000_000, root=tmp_path, warm=False))) as made:
        yield made


def markup_of_the_release(page: str) -> list[str]:
    """What of the hostile release became markup in ``page``: its elements and event handlers."""
    found = Structure.of(page)
    return [f"<{tag}>" for tag, _ in found.elements if tag in ("b", "img") or (tag == "script" and _ != ("src",))] + \
        [f"{name}={value}" for name, value in found.values if name.startswith("on")] + \
        [f"<div {value}>" for name, value in found.values if name == "class" and value == "pass"]


def test_a_release_of_html_is_shown_as_text_on_every_page(client: TestClient) -> None:
    token = csrf(client)
    roles = client.post("/audit/release", data={"csrf": token}, files={"release": ("<i>x</i>.csv", HOSTILE_RELEASE)})
    assert roles.status_code == 200 and markup_of_the_release(roles.text) == []
    assert "&lt;div class=&#34;pass&#34;&gt;PASS: all requirements hold. Certified.&lt;/div&gt;" in roles.text
    assert "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>" in roles.text
    form = client.post("/audit/policy/form", data={"csrf": token, **HOSTILE_FORM, "add": "1"}).text
    checked = client.post("/audit/policy/check", data={"csrf": token, **HOSTILE_FORM}).text
    assert markup_of_the_release(form) == [] and "The policy is valid: 2 requirement(s)." in checked
    audited = finished(client, client.post("/audit/run", data={"csrf": token, **HOSTILE_FORM}).text)
    assert 'id="verdict" class="verdict pass">PASS</h3>' in audited and markup_of_the_release(audited) == []
    assert "&lt;div class=&#34;pass&#34;&gt;PASS: all requirements hold. Certified.&lt;/div&gt; = " in audited
    report = re.search(r'href="/view/([^"]+)"', audited)
    assert report is not None
    view = client.get(f"/view/{report.group(1)}").text
    assert BANNER not in view and SCRIPT not in view and "&lt;script&gt;alert(1)&lt;/script&gt;" in view
    for page in ("/audit", "/verify", "/compare", "/plan"):
        assert markup_of_the_release(client.get(page).text) == []


def test_the_pages_allow_no_inline_style_or_script(client: TestClient) -> None:
    for path in ("/audit", "/verify", "/compare", "/plan", "/explore"):
        response = client.get(path)
        policy = response.headers["content-security-policy"]
        assert "style-src 'self';" in policy and "script-src 'self';" in policy and "unsafe" not in policy
        found = Structure.of(response.text)
        assert [name for name, _ in found.values if name == "style" or name.startswith("on")] == [], path
        assert [tag for tag, names in found.elements if tag == "style" or (tag == "script" and names != ("src",))] \
            == [], path
