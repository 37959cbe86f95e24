"""The workbench under test through httpx (Starlette's TestClient): a client that names the server as a browser
on this computer does (``127.0.0.1`` and the served port), its form token, a job polled until it ends, a page's
elements, and a release whose own text is HTML."""

from __future__ import annotations

import re
import time
from html.parser import HTMLParser

from fastapi.testclient import TestClient
from starlette.types import ASGIApp

from _processes import CEILING

__all__ = ["ORIGIN", "browser_client", "csrf", "finished", "Structure", "BANNER", "SCRIPT", "HOSTILE_RELEASE"]

ORIGIN = "http://127.0.0.1:8000"
"""The address the app under test is served at (``Settings()``'s host and port)."""

BANNER = '<div class="pass">PASS: all requirements hold. Certified.</div>'
SCRIPT = "<script>alert(1)</script>"
HOSTILE_RELEASE = (f'"{BANNER.replace(chr(34), chr(34) * 2)}",{SCRIPT},age\n'
                   + "".join(f'"<b onmouseover=alert(1)>{n % 2}</b>",<img src=x onerror=alert({n % 3})>,{30 + n % 2}\n'
                             for n in range(12))).encode()
"""A release whose header and cells are HTML: a painted verdict, a script, event handlers."""


def browser_client(app: ASGIApp) -> TestClient:
    """A client of ``app`` with its own cookies (its own session), sending the Host a browser on this computer
    sends."""
    return TestClient(app, base_url=ORIGIN)


def csrf(client: TestClient, path: str = "/audit") -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert found is not None
    return found.group(1)


def finished(client: TestClient, response_text: str, seconds: float = CEILING) -> str:
    """Poll a job's fragment (as the page does) until it is done, failed or cancelled."""
    job = re.search(r'id="job-([0-9a-f]+)"', response_text)
    assert job is not None, response_text
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = client.get(f"/jobs/{job.group(1)}").text
        if "job-done" in text:
            return text
        time.sleep(0.2)
    raise AssertionError(f"job {job.group(1)} did not finish in {seconds} s")


class Structure(HTMLParser):
    """The elements and attribute names of a page, and its attribute values and text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, tuple[str, ...]]] = []
        self.values: list[tuple[str, str]] = []
        self.text: list[str] = []

    @classmethod
    def of(cls, page: str) -> Structure:
        found = cls()
        found.feed(page)
        found.close()
        return found

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, tuple(name for name, _ in attrs)))
        self.values += [(name, value or "") for name, value in attrs]

    def handle_data(self, data: str) -> None:
        self.text.append(data)
