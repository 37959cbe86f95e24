"""Shared test set-up: every results document a test writes is checked against the shipped JSON Schema, every
test run checks theory claims into its own cache directory, never the user's, and no property-based test has a
time limit (Hypothesis's default deadline of 200 ms per example, and its health check on slow data generation, fail
on a loaded machine, not on a defect)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("machine-independent", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("machine-independent")

os.environ.setdefault("PRIVCERT_CACHE_DIR", tempfile.mkdtemp(prefix="privcert-test-cache-"))

RESULTS_SCHEMA = json.loads((resources.files("privcert.data") / "schema" / "results.schema.json").read_text())


def results_documents(folder: Path) -> Iterator[tuple[Path, dict]]:
    """The results documents (``measure``/``audit`` ``--json`` output) under ``folder``."""
    for path in folder.rglob("*.json"):
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(document, dict) and "schema_version" in document and "measurements" in document:
            yield path, document


@pytest.fixture(autouse=True)
def _results_follow_the_schema(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each test that used ``tmp_path``, validate every results document it left there."""
    folder = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    if folder is None:
        return
    check_results_documents(folder)


def check_results_documents(folder: Path) -> int:
    """Validate every results document under ``folder``; fail the test on the first that breaks the schema."""
    checked = 0
    for path, document in results_documents(folder):
        try:
            jsonschema.validate(document, RESULTS_SCHEMA)
        except jsonschema.ValidationError as error:
            pytest.fail(f"{path.name} does not follow results.schema.json: {error.message}")
        checked += 1
    return checked
