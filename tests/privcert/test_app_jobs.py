"""The workbench's processes: work of the server's own run in a process of the jobs' fork server
(:func:`privcert.app.jobs.call`), the map drawn there at start-up at the lowest priority, what the first upload
needs prepared at start-up, and a finished audit's page drawn from its result alone."""

from __future__ import annotations

import csv
import functools
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from markupsafe import Markup

from _app_client import browser_client, csrf, finished
from _processes import CEILING
from privcert.app import Settings, audit_page, create_app, explore_page, jobs

HOSPITAL_FORM = {"requirements": "1", "role-0": "quasi-identifier", "role-1": "quasi-identifier",
                 "role-2": "sensitive", "kind-2": "categorical", "role-3": "left out", "req-0-model": "k_anonymity",
                 "req-0-threshold": "5"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with browser_client(create_app(Settings(root=tmp_path, warm=False))) as made:
        yield made


def test_a_call_runs_in_another_process_at_the_niceness_asked() -> None:
    assert jobs.call(os.getpid) != os.getpid()
    assert jobs.call(functools.partial(os.nice, 0)) == os.nice(0)
    assert jobs.call(functools.partial(os.nice, 0), nice=jobs.LOWEST) == min(19, os.nice(0) + jobs.LOWEST)


def test_a_call_that_raises_says_its_error() -> None:
    with pytest.raises(RuntimeError, match=r"ValueError: invalid literal for int\(\) with base 10: 'x'"):
        jobs.call(functools.partial(int, "x"))


def test_stop_calls_ends_a_running_call_and_its_caller_is_told() -> None:
    errors: list[str] = []

    def wait() -> None:
        try:
            jobs.call(functools.partial(time.sleep, 2 * CEILING))
        except RuntimeError as error:
            errors.append(str(error))

    waiting = threading.Thread(target=wait)
    waiting.start()
    deadline = time.monotonic() + CEILING
    while not any(process.is_alive() for process in list(jobs._calls)):
        assert time.monotonic() < deadline, "the call's process never started"
        time.sleep(0.01)
    jobs.stop_calls()
    waiting.join(CEILING)
    assert not waiting.is_alive()
    assert len(errors) == 1 and "its process stopped without a result (exit code -15)" in errors[0]
    assert not jobs._calls


def test_the_map_is_drawn_in_a_process_of_the_fork_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's own ``implication_map`` is made to fail: the map comes all the same, drawn elsewhere."""
    import privcert.api

    jobs.warm()  # the fork server imported privcert before the failing replacement below
    monkeypatch.setattr(explore_page, "_drawn", [])

    def fails() -> None:
        raise AssertionError("the map was drawn in the server's process")

    monkeypatch.setattr(privcert.api, "implication_map", fails)
    drawn = explore_page.map_svg()
    assert isinstance(drawn, Markup) and drawn.startswith("<svg") and 'aria-labelledby="map-title"' in drawn
    assert explore_page.map_svg() is drawn  # drawn once per server


def _document(label: str, extra: str = "") -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 90 9"{extra}>'
            f'<text font-size="9px">{label}</text></svg>')


def test_what_the_drawing_process_returns_is_written_again_before_it_is_markup(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The map crosses a process boundary as text: the server writes it again from its drawing elements (no
    script, no handler, text escaped) before a page shows it, whatever the other process returned."""
    calls: list[tuple[Callable[[], Any], int]] = []
    monkeypatch.setattr(explore_page, "_drawn", [])
    hostile = _document("a &lt;b&gt;", ' onload="alert(1)"').replace("</svg>", "<script>alert(2)</script></svg>")
    monkeypatch.setattr(jobs, "call", _recording(calls, hostile))
    drawn = explore_page.map_svg()
    assert isinstance(drawn, Markup)
    assert "onload" not in drawn and "<script" not in drawn and "alert" not in drawn
    assert "<text font-size=\"9px\">a &lt;b&gt;</text>" in drawn
    assert 'width="120" height="12"' in drawn  # drawn at the size where its 9px text is 12 px high


def _recording(calls: list[tuple[Callable[[], Any], int]], result: str) -> Callable[..., str]:
    def call(function: Callable[[], Any], *, nice: int = 0) -> str:
        calls.append((function, nice))
        return result

    return call


def test_the_start_up_checks_the_claims_then_draws_the_map_at_the_lowest_priority_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The claims are checked at normal priority (a first audit waits for that check, :mod:`theory.status_cache`),
    the map drawn at the lowest."""
    calls: list[tuple[Callable[[], Any], int]] = []
    monkeypatch.setattr(explore_page, "_drawn", [])
    monkeypatch.setattr(jobs, "call", _recording(calls, _document("drawn")))
    explore_page.warm_map()
    assert calls == [(explore_page.check_claims, 0), (explore_page.draw_map, jobs.LOWEST)]
    assert "<text font-size=\"9px\">drawn</text>" in explore_page.map_svg()
    explore_page.warm_map()
    assert len(calls) == 2


def test_the_claims_checked_at_start_up_are_the_cached_ones() -> None:
    from theory.status_cache import claim_rows

    assert jobs.call(explore_page.check_claims) == len(claim_rows()[0]) > 0


def test_a_page_that_needs_the_map_before_the_start_up_drew_it_draws_it_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Callable[[], Any], int]] = []
    monkeypatch.setattr(explore_page, "_drawn", [])
    monkeypatch.setattr(jobs, "call", _recording(calls, _document("now")))
    assert "<text font-size=\"9px\">now</text>" in explore_page.map_svg()
    assert calls == [(explore_page.draw_map, 0)]


def test_a_start_up_drawing_that_fails_leaves_the_map_to_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(function: Callable[[], Any], *, nice: int = 0) -> str:
        raise RuntimeError("draw_map: its process stopped without a result (exit code -15)")

    monkeypatch.setattr(explore_page, "_drawn", [])
    monkeypatch.setattr(jobs, "call", fails)
    explore_page.warm_map()
    assert explore_page._drawn == []


def test_the_start_up_compiles_every_template(monkeypatch: pytest.MonkeyPatch) -> None:
    from privcert.app.web import templates

    environment = templates.env
    monkeypatch.setattr(environment, "cache", type(environment.cache)(400) if environment.cache is not None else None)
    assert environment.cache is not None and len(environment.cache) == 0
    audit_page.warm()
    compiled = {key[1] for key in environment.cache.keys()}
    assert compiled == set(environment.list_templates()) and "_audit_result.j2" in compiled


def test_a_finished_audits_page_is_drawn_from_its_result_without_the_release(client: TestClient,
                                                                             tmp_path: Path) -> None:
    """Once the audit is done, its release is deleted: the job's page still shows the result, level for level."""
    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "hospital"})
    text = finished(client, client.post("/audit/run", data={"csrf": token, **HOSPITAL_FORM}).text)
    levels = re.findall(r'class="level"><code>([^<]+)</code>', text)
    (release,) = tmp_path.rglob("release-*/release.csv")
    with release.open(encoding="utf-8", newline="") as rows:
        classes = Counter(tuple(row[:2]) for row in list(csv.reader(rows))[1:])
    assert 'data-status="done"' in text and levels == [str(min(classes.values()))]  # k: the smallest class
    release.unlink()
    job = re.search(r'id="job-([0-9a-f]+)"', text)
    assert job is not None
    again = client.get(f"/jobs/{job.group(1)}").text
    assert re.findall(r'class="level"><code>([^<]+)</code>', again) == levels
    assert 'data-status="done"' in again
