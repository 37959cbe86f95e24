"""Consistent lies a dishonest publisher signs with their own key, and genuine inputs that were refused.

Each lie is signed again with the publisher's key, so the signature holds: what catches it is that ``verify``
accounts for every requirement of the signed policy, decides the publisher's statements against their own
levels, compares the embedded count tables with the release's, and shows what it cannot check (the
publisher's declared hierarchies and mechanism) in plain view.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from securesystemslib.dsse import Envelope
from typer.testing import CliRunner

from privcert.cli import app
from reports.signing import load_signer, sign
from reports.statement import PAYLOAD_TYPE, Statement

ROOT = Path(__file__).resolve().parents[2]
INPUTS = ROOT / "tests" / "golden" / "inputs"
TABLE4 = ROOT / "examples" / "table4"
RANDOMIZED = ROOT / "examples" / "randomized"
runner = CliRunner()


def _issue(folder: Path, release: Path, policy: Path, *extra: str) -> Path:
    """``keygen`` and ``audit --sign`` in ``folder`` (inputs copied there); the certificate's path."""
    for source in {release.parent, policy.parent}:
        for item in source.iterdir():
            if item.is_file():
                shutil.copy(item, folder / item.name)
    key = folder / "key"
    if not key.exists():
        assert runner.invoke(app, ["keygen", "--out", str(key)]).exit_code == 0
    done = runner.invoke(app, ["audit", str(folder / release.name), "--policy", str(folder / policy.name), "--sign",
                               str(key), "--certificate", str(folder / "cert.json"), *extra])
    assert done.exit_code in (0, 1), done.output
    return folder / "cert.json"


def _resign(certificate: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    statement = json.loads(base64.b64decode(json.loads(certificate.read_text())["payload"]))
    change(statement)
    forged = sign(Statement.from_json(statement), load_signer((certificate.parent / "key").read_bytes(), "key"))
    path = certificate.with_name("forged.json")
    path.write_text(json.dumps(forged))
    return path


def _verify(certificate: Path, *extra: str) -> Any:
    return runner.invoke(app, ["verify", str(certificate), "--public-key", str(certificate.parent / "key.pub"),
                               *extra])


def _stated(statement: dict[str, Any]) -> list[dict[str, Any]]:
    return statement["predicate"]["publisher_statements"]["measurements"]


@pytest.fixture
def risky(tmp_path: Path) -> Path:
    """Table 5 against a population table, with k-map required at 100: k-map fails (12 people), so the verdict
    is FAIL; k-map, journalist risk and δ-presence are the publisher's statements."""
    policy = (INPUTS / "risk-population.toml").read_text().replace('model = "k_map"\nthreshold = 10',
                                                                      'model = "k_map"\nthreshold = 100')
    (tmp_path / "inputs").mkdir()
    for name in ("table5.csv", "population.csv"):
        shutil.copy(INPUTS / name, tmp_path / "inputs" / name)
    (tmp_path / "inputs" / "policy.toml").write_text(policy)
    return _issue(tmp_path, tmp_path / "inputs" / "table5.csv", tmp_path / "inputs" / "policy.toml")


def test_a_dropped_statement_with_the_verdict_set_to_pass_is_invalid(risky: Path) -> None:
    """Was: exit 0, "verdict: holds". The signed policy requires k_map; the certificate has no result for it."""
    def drop(statement: dict[str, Any]) -> None:
        statement["predicate"]["publisher_statements"]["measurements"] = [
            m for m in _stated(statement) if m["model"] != "k_map"]
        statement["predicate"]["verdict"] = "pass"

    for extra in ((), ("--data", str(risky.parent / "table5.csv"))):
        done = _verify(_resign(risky, drop), *extra)
        assert done.exit_code == 4, done.output
        assert "requirements: fails (no result for require[2] of the signed policy" in done.stdout


def test_a_flipped_statement_is_invalid(risky: Path) -> None:
    """Was: exit 0. The stated k-map level 12 does not meet 100: a stated pass contradicts its own level."""
    def flip(statement: dict[str, Any]) -> None:
        next(m for m in _stated(statement) if m["model"] == "k_map").update(passed=True, verdict="pass")
        statement["predicate"]["verdict"] = "pass"

    done = _verify(_resign(risky, flip))
    assert done.exit_code == 4, done.output
    assert "publisher's statements: fails (require[2]: the stated level 12 does not meet the threshold 100" in done.stdout


def test_a_verdict_resting_on_statements_says_so(risky: Path) -> None:
    done = _verify(risky, "--allow-fail")
    assert done.exit_code == 0, done.output
    assert "certified verdict FAIL, of which 3 of 4 requirements are the publisher's statement" in done.stdout


def test_fake_embedded_tables_with_the_real_digest_are_invalid_with_data(tmp_path: Path) -> None:
    """Was: exit 1 with --data (the release's tables have the stated digest; the embedded ones were not compared),
    and report drew the fake tables' figures."""
    certificate = _issue(tmp_path, TABLE4 / "release.csv", TABLE4 / "policy.toml")

    def fake(statement: dict[str, Any]) -> None:
        statement["predicate"]["counts"]["tables"]["classes"]["sizes"] = [9, 9, 9]

    done = _verify(_resign(certificate, fake), "--data", str(tmp_path / "release.csv"), "--allow-fail")
    assert done.exit_code == 4, done.output
    assert "embedded count tables: fails" in done.stdout


def test_report_runs_verify_and_refuses_an_invented_guarantee(tmp_path: Path) -> None:
    """Was: rendered with "the signature verified", exit 0. report --public-key runs verify's checks."""
    certificate = _issue(tmp_path, TABLE4 / "release.csv", TABLE4 / "policy.toml")

    def invent(statement: dict[str, Any]) -> None:
        statement["predicate"]["implied"].append(
            {"definition": "dp", "implied": True, "level": "1/10", "from": {"model": "k_anonymity", "attribute": None,
                                                                             "level": "3"},
             "derivation": [{"claim": "paper:invented", "status": "proven", "from": "k_anonymity", "to": "dp"}]})

    forged = _resign(certificate, invent)
    done = runner.invoke(app, ["report", str(forged), "--public-key", str(tmp_path / "key.pub"), "--html",
                               str(tmp_path / "view.html")])
    assert done.exit_code == 4, done.output
    assert "implied guarantees: fails" in done.stdout and not (tmp_path / "view.html").exists()


def test_an_unverified_view_says_so_at_the_top_and_never_names_the_hint_as_signer(tmp_path: Path) -> None:
    certificate = _issue(tmp_path, TABLE4 / "release.csv", TABLE4 / "policy.toml")
    envelope = json.loads(certificate.read_text())
    envelope["signatures"][0]["keyid"] = "the-regulators-key"
    certificate.write_text(json.dumps(envelope))
    for key in ((), ("--public-key", str(tmp_path / "key.pub"))):
        out = tmp_path / f"view{len(key)}.html"
        done = runner.invoke(app, ["report", str(certificate), *key, "--html", str(out)])
        assert done.exit_code == 0, done.output
        html = out.read_text()
        if key:
            assert "NOT VERIFIED" not in html and "the-regulators-key" not in html
            assert "CLAIMS SINCE REVISED" not in html  # nothing it rests on was revised
        else:
            body = html[html.index("<body>"):]
            assert body.index("NOT VERIFIED") < body.index("<h1>")
            assert "not verified (the envelope names the-regulators-key, an unsigned hint)" in html


def test_a_padded_hierarchy_is_shown_to_the_reader(tmp_path: Path) -> None:
    """Was: exit 0 and nothing shown; padding the disease hierarchy with nine dummy levels moves hierarchical t
    from 8/27 to 5/81. verify cannot know the real hierarchy: it now draws the declared one (13 levels) and
    says the verdict holds given it; so does the page."""
    rows = [line.split(",") for line in (TABLE4 / "disease_hierarchy.csv").read_text().splitlines() if line]
    padded = "\n".join(",".join([row[0], *(f"{row[0]}-{i}" for i in range(9)), *row[1:]]) for row in rows) + "\n"
    (tmp_path / "inputs").mkdir()
    for name in ("release.csv", "policy.toml"):
        shutil.copy(TABLE4 / name, tmp_path / "inputs" / name)
    (tmp_path / "inputs" / "disease_hierarchy.csv").write_text(padded)
    certificate = _issue(tmp_path, tmp_path / "inputs" / "release.csv", tmp_path / "inputs" / "policy.toml",
                         "--html", str(tmp_path / "cert.html"))
    done = _verify(certificate, "--allow-fail")
    assert done.exit_code == 0, done.output
    assert "declared inputs: publisher's statement (hierarchy of disease: 13 levels, 10 leaves" in done.stdout
    assert "it holds given 2 declared inputs (listed above)" in done.stdout
    html = (tmp_path / "cert.html").read_text()
    assert "What the publisher declared (not checkable from the release)" in html and "13 levels" in html


def test_a_mild_mechanism_is_printed_to_the_reader(tmp_path: Path) -> None:
    """Was: exit 0 and the matrix nowhere shown. verify prints the declared matrix."""
    certificate = _issue(tmp_path, RANDOMIZED / "release.csv", RANDOMIZED / "auditor.toml")
    done = _verify(certificate)
    assert done.exit_code == 0, done.output
    assert ("declared inputs: publisher's statement (mechanism mechanism.csv: value,asthma,cold,flu,hiv / "
            "asthma,5/8,1/8,1/8,1/8") in done.stdout


@pytest.mark.parametrize("kind", ["public", "rsa", "ecdsa", "encrypted", "openssh", "raw"])
def test_only_an_ed25519_private_key_signs(tmp_path: Path, kind: str) -> None:
    """Was: exit 3 for a .pub, encrypted, OpenSSH or raw key; an RSA or ECDSA key signed a certificate nothing
    verifies. Now exit 2 before any work, naming --sign and what was found."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    key = tmp_path / "bad.key"
    if kind == "public":
        assert runner.invoke(app, ["keygen", "--out", str(tmp_path / "k")]).exit_code == 0
        key = tmp_path / "k.pub"
    else:
        private = {"rsa": lambda: rsa.generate_private_key(65537, 2048), "ecdsa": lambda: ec.generate_private_key(
            ec.SECP256R1())}.get(kind, ed25519.Ed25519PrivateKey.generate)()
        encoding = {"openssh": serialization.PrivateFormat.OpenSSH}.get(kind, serialization.PrivateFormat.PKCS8)
        protection = (serialization.BestAvailableEncryption(b"secret") if kind == "encrypted"
                      else serialization.NoEncryption())
        data = (private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                      serialization.NoEncryption()) if kind == "raw"
                else private.private_bytes(serialization.Encoding.PEM, encoding, protection))
        key.write_bytes(data)
    done = runner.invoke(app, ["audit", str(TABLE4 / "release.csv"), "--policy", str(TABLE4 / "policy.toml"),
                               "--sign", str(key), "--certificate", str(tmp_path / "c.json")])
    assert done.exit_code == 2, done.output
    assert "--sign" in done.stderr and "expected an Ed25519 private key" in done.stderr
    assert not (tmp_path / "c.json").exists()


def test_outputs_follow_the_umask_and_keys_stay_private(tmp_path: Path) -> None:
    """Was: every output 0600 (mkstemp), so a certificate put on a web server was unreadable."""
    old = os.umask(0o022)
    try:
        certificate = _issue(tmp_path, TABLE4 / "release.csv", TABLE4 / "policy.toml", "--html",
                             str(tmp_path / "cert.html"), "--json", str(tmp_path / "audit.json"))
    finally:
        os.umask(old)
    for path in (certificate, tmp_path / "cert.html", tmp_path / "audit.json", tmp_path / "key.pub"):
        assert path.stat().st_mode & 0o777 == 0o644, path
    assert (tmp_path / "key").stat().st_mode & 0o777 == 0o600


def test_unsigned_fields_are_clipped_and_a_malformed_time_is_shown_escaped(tmp_path: Path) -> None:
    """Was: a 30,000-character key id made report --pdf run for minutes, a time not in the exact form exited 3
    and printed its escape bytes raw."""
    certificate = _issue(tmp_path, TABLE4 / "release.csv", TABLE4 / "policy.toml")
    forged = _resign(certificate, lambda s: s["predicate"].update(time="2026-13-99\x1b[2J", tool={
        "name": "privcert", "version": "9" * 3000, "engine": "pandas"}))
    envelope = json.loads(forged.read_text())
    envelope["signatures"][0]["keyid"] = "k" * 30_000
    forged.write_text(json.dumps(envelope))
    done = runner.invoke(app, ["report", str(forged), "--html", str(tmp_path / "v.html"), "--pdf",
                               str(tmp_path / "v.pdf")])
    assert done.exit_code == 0, done.output
    html = (tmp_path / "v.html").read_text()
    assert "k" * 200 not in html and "9" * 200 not in html and "\x1b" not in html and "2026-13-99\\x1b[2J" in html
    checked = _verify(forged)
    assert checked.exit_code == 1 and "9" * 200 not in checked.stdout and "2026-13-99\\x1b[2J" in checked.stdout


def test_an_integer_beyond_ijson_is_invalid_not_a_crash(tmp_path: Path) -> None:
    """Was: exit 3. A payload with an integer RFC 8785 cannot write is not canonical: invalid."""
    certificate = _issue(tmp_path, TABLE4 / "release.csv", TABLE4 / "policy.toml")
    statement = json.loads(base64.b64decode(json.loads(certificate.read_text())["payload"]))
    statement["predicate"]["release"]["rows"] = 2**60
    envelope = Envelope(json.dumps(statement, sort_keys=True, separators=(",", ":")).encode(), PAYLOAD_TYPE, {})
    envelope.sign(load_signer((tmp_path / "key").read_bytes(), "key"))
    (tmp_path / "big.json").write_text(json.dumps(envelope.to_dict()))
    done = _verify(tmp_path / "big.json")
    assert done.exit_code == 4 and "canonical" in done.stdout, done.output


def test_a_latin1_release_records_its_encoding(tmp_path: Path) -> None:
    """Was: verify --data exited 4 unless --encoding was given again; the certificate did not record it."""
    (tmp_path / "inputs").mkdir()
    text = (ROOT / "privcert" / "data" / "release.csv").read_text().replace("flu", "grippe à")
    (tmp_path / "inputs" / "release.csv").write_bytes(text.encode("latin-1"))
    (tmp_path / "inputs" / "policy.toml").write_text(
        '[data]\nqi = ["zip", "age"]\n\n[sensitive.disease]\n\n[[require]]\nmodel = "k_anonymity"\nthreshold = 3\n')
    certificate = _issue(tmp_path, tmp_path / "inputs" / "release.csv", tmp_path / "inputs" / "policy.toml",
                         "--encoding", "latin-1")
    done = _verify(certificate, "--data", str(tmp_path / "release.csv"))
    assert done.exit_code == 0, done.output
    assert "the release's encoding: latin-1" in done.stdout


def test_the_badge_says_how_many_requirements_are_statements(tmp_path: Path) -> None:
    golden = ROOT / "tests" / "golden" / "v2" / "risk-population"
    done = runner.invoke(app, ["report", str(golden / "cert.json"), "--public-key", str(golden / "key.pub"), "--html",
                               str(tmp_path / "view.html")])
    assert done.exit_code == 0, done.output
    html = (tmp_path / "view.html").read_text()
    assert "every requirement of the policy holds, of which 3 of 4 requirements are the publisher's statement" in html
    assert "NOT VERIFIED" not in html
