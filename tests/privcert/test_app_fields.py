"""Every message a page shows names the form's fields, never the command line's options.

The library's messages name the inputs they concern (:mod:`verifier.named_inputs`); the workbench says each as
its field (:mod:`privcert.app.fields`), the command line as its option. Each error path of the pages that ends in
such a message is walked here: the Verify page without the release or with the original alone, the Plan page's
targets, signing with a file that is not a key, a comparison whose tables do not pair, an audit that needs a
mechanism, an upload over the limit.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from _app_client import browser_client, csrf, finished
from privcert.app import Settings, create_app
from privcert.app.fields import field_of
from privcert.reporting import option_of
from verifier.named_inputs import Input, Said, say

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "v4"
RELEASE = ROOT / "privcert" / "data" / "hospital" / "release.csv"

OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
"""A command-line option's name (``--data``, ``--t``)."""


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with browser_client(create_app(Settings(max_upload=2_000_000, root=tmp_path))) as made:
        yield made


def _text(page: str) -> str:
    """What a page says (its markup's entities read), checked to name no command-line option."""
    text = html.unescape(page)
    assert not OPTION.search(text), OPTION.findall(text)
    return text


def _golden(case: str) -> dict[str, tuple[str, bytes]]:
    return {"certificate": ("cert.json", (GOLDEN / case / "cert.json").read_bytes()),
            "public_key": ("key.pub", (GOLDEN / case / "key.pub").read_bytes())}


def test_an_input_is_said_as_an_option_on_the_command_line_and_as_a_field_in_the_workbench() -> None:
    text = Said(Input("original", "o.csv"), ": expected ", Input("data", asked=True), "; no ", Input("eps0"))
    assert str(text) == "original o.csv: expected data; no eps0"
    assert say(text, option_of) == "--original o.csv: expected --data RELEASE; no --eps"
    assert say(text, field_of) == "“The original” (o.csv): expected “The release”; no “ε0”"
    assert say(ValueError(text), field_of) == say(text, field_of) and say("plain", field_of) == "plain"


def test_an_encoding_a_certificate_states_is_named_as_such_in_the_workbench(tmp_path: Path) -> None:
    from verifier.errors import DataError
    from verifier.tables.load import load_table

    release = tmp_path / "release.csv"
    release.write_text("zip\n1\n", encoding="utf-8")
    with pytest.raises(DataError) as refused:
        load_table(release, encoding="rot13")
    assert say(refused.value, field_of) == (f"{release}: the encoding the certificate states ('rot13'): rot-13 "
                                            "transforms bytes, it is not a character encoding; expected a character "
                                            "encoding that decodes one-to-one: UTF-8, UTF-16, UTF-32, ASCII or a "
                                            "single-byte table such as latin-1, iso8859-15 or cp1252")


def test_the_library_names_its_own_parameters_and_the_command_line_its_options(tmp_path: Path) -> None:
    from privcert.api import utility
    from privcert.reporting import said
    from verifier.errors import PolicyError
    from verifier.randomized.modes import MechanismChoice, mechanism_settings

    table = tmp_path / "table.csv"
    table.write_text("a,s\n1,x\n2,y\n", encoding="utf-8")
    with pytest.raises(PolicyError) as refused:
        utility(table, table, ["a"], mechanism=tmp_path / "m.csv")
    assert str(refused.value) == "mechanism: expected sensitive, the column the mechanism randomized"
    assert said(refused.value) == "--mechanism: expected --sensitive, the column the mechanism randomized"
    with pytest.raises(PolicyError) as alone:
        mechanism_settings(None, MechanismChoice(mode="auditor"))
    assert (str(alone.value), said(alone.value)) == (
        "k and mode apply to randomized releases: give mechanism (or [mechanism] in the policy)",
        "--k and --mode apply to randomized releases: give --mechanism FILE (or [mechanism] in the policy)")


def test_the_command_lines_verify_says_its_options_in_its_json_too() -> None:
    import json

    from _certify import runner
    from privcert.cli import app

    case = GOLDEN / "randomized-publisher"
    done = runner.invoke(app, ["verify", str(case / "cert.json"), "--public-key", str(case / "key.pub"), "--json", "-"])
    document = json.loads(done.stdout)
    assert document["summary"] == ("INCOMPLETE: the signature holds, but the measurements were not re-measured "
                                   "(publisher mode: the levels were measured on the original data, which no "
                                   "certificate carries: pass --original ORIGINAL --data RELEASE)")
    (release,) = (line["detail"] for line in document["lines"] if line["subject"] == "release")
    assert release.startswith("no --data; the certificate names the published release release.csv")


def test_the_verify_page_names_its_fields(client: TestClient) -> None:
    token = csrf(client, "/verify")
    alone = _text(finished(client, client.post("/verify", data={"csrf": token}, files=_golden("demo-hospital")).text))
    assert "release: not checked (no “The release”; the certificate names release.csv, SHA-256 6d71005250113e74…)" \
        in alone
    publisher = _text(finished(client, client.post("/verify", data={"csrf": token},
                                                   files=_golden("randomized-publisher")).text))
    assert ("INCOMPLETE: the signature holds, but the measurements were not re-measured (publisher mode: the levels "
            "were measured on the original data, which no certificate carries: pass “The original” “The release”)"
            ) in publisher
    original = _text(finished(client, client.post("/verify", data={"csrf": token}, files={
        **_golden("demo-hospital"), "original": ("original.csv", RELEASE.read_bytes())}).text))
    assert ("“The original” (original.csv): expected “The release” as well (the utility models compare the original "
            "with the release record by record)") in original


def test_the_plan_page_names_its_targets_fields(client: TestClient) -> None:
    token = csrf(client, "/plan")
    for targets, message in (({"t0": "1/2"}, "“t0”: expected a number ≥ 1, found 1/2"),
                             ({"t0": "2", "eps0": "-1"}, "“ε0”: expected a number ≥ 0 (or inf), found -1")):
        failed = _text(finished(client, client.post("/plan", data={"csrf": token, "example": "demo",
                                                                   "sensitive": "disease", **targets}).text))
        assert 'data-status="failed"' in failed and message in failed, failed


def test_signing_with_a_file_that_is_no_key_names_the_key_field(client: TestClient) -> None:
    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "hospital"})
    form = {"csrf": token, "requirements": "1", "role-0": "quasi-identifier", "role-1": "quasi-identifier",
            "role-2": "sensitive", "kind-2": "categorical", "role-3": "sensitive", "kind-3": "numerical",
            "req-0-model": "k_anonymity", "req-0-threshold": "5"}
    finished(client, client.post("/audit/run", data=form).text)
    client.post("/certify/key/upload", data={"csrf": token}, files={"key": ("mine.pem", b"not a key")})
    failed = _text(finished(client, client.post("/certify", data={"csrf": token}).text))
    assert ("“Your private key” (mine.pem): expected an Ed25519 private key written by privcert keygen, found not a "
            "PEM private key") in failed


def test_tables_that_do_not_pair_are_named_in_the_compare_pages_words(client: TestClient) -> None:
    token = csrf(client, "/compare")
    original = b"age,disease\n30,flu\n31,flu\n32,cold\n"
    failed = _text(finished(client, client.post("/compare", data={"csrf": token, "qi": "age"}, files=[
        ("original", ("original.csv", original)), ("candidates", ("a.csv", b"age,disease\n*,flu\n*,flu\n")),
        ("candidates", ("b.csv", b"age,disease\n*,flu\n*,flu\n*,cold\n"))]).text))
    assert ("a.csv: expected the 3 records of original.csv in the same order (or a key column, a key column (the "
            "Compare page pairs the tables row by row)), found 2 rows") in failed


def test_an_audit_that_needs_a_mechanism_says_how_to_give_it(client: TestClient) -> None:
    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "hospital"})
    policy = (b'[data]\nqi = ["age", "zip"]\n[sensitive.diagnosis]\n'
              b'[[require]]\nmodel = "ldp"\nattribute = "diagnosis"\nthreshold = "ln(3)"\n')
    client.post("/audit/policy/import", data={"csrf": token}, files={"policy": ("policy.toml", policy)})
    form = {"csrf": token, "requirements": "1", "role-0": "quasi-identifier", "role-1": "quasi-identifier",
            "role-2": "sensitive", "kind-2": "categorical", "req-0-model": "ldp", "req-0-attribute": "diagnosis",
            "req-0-threshold": "ln(3)"}
    failed = _text(finished(client, client.post("/audit/run", data=form).text))
    assert ("require[1]: ldp is a level of a randomized release: give the mechanism ([mechanism] in the policy, or "
            "a mechanism file uploaded with the policy's files)") in failed


def test_an_upload_over_the_limit_names_no_option(client: TestClient) -> None:
    token = csrf(client)
    response = client.post("/audit/release", data={"csrf": token},
                           files={"release": ("big.csv", b"a,b\n" + b"1,2\n" * 600_000)})
    assert response.status_code == 413 and "privcert serve takes a larger upload limit" in _text(response.text)
