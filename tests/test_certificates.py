"""Certificates: the in-toto statement, its DSSE signature, and ``privcert keygen/verify`` end to end.

Each signed field is re-derived by ``verify`` or named as the publisher's statement; the
cases below are the ways a genuine certificate used to be rejected and a false one
accepted.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import stat
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from privcert.cli import app
from reports.certify import certify, implied_section
from reports.signing import CertificateError, MalformedCertificateError, load_public_key, load_signer, new_key_pair
from reports.signing import open_envelope, sign
from reports.statement import PREDICATE_TYPE, STATEMENT_TYPE, Statement, canonical, sha256_file
from reports.verification import FAILED_VERDICT, INCOMPLETE, INVALID, VALID
from verifier.audit import audit
from verifier.policy import load_policy

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "table4"
WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
runner = CliRunner()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    for name in ("release.csv", "policy.toml", "disease_hierarchy.csv"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    return tmp_path


def _keys(folder: Path, name: str = "key") -> tuple[Path, Path]:
    private, public = new_key_pair()
    (folder / name).write_bytes(private)
    (folder / f"{name}.pub").write_text(public)
    return folder / name, folder / f"{name}.pub"


def _audit(workdir: Path, data: Path | None = None, **options: Any):
    return audit(data or workdir / "release.csv", load_policy(workdir / "policy.toml"), **options)


def _statement(workdir: Path) -> Statement:
    return certify(_audit(workdir), workdir / "release.csv", (workdir / "policy.toml").read_text(), time=WHEN).statement


def _public(path: Path):
    return load_public_key(path.read_text(), str(path))


def _signed(workdir: Path) -> tuple[dict, Path]:
    key, public = _keys(workdir)
    return sign(_statement(workdir), load_signer(key.read_bytes(), str(key))), public


def _resign(workdir: Path, envelope: dict, change) -> Path:
    """The certificate with its statement changed by ``change`` and signed again with the same key (a dishonest
    publisher), written to ``forged.json``."""
    statement = json.loads(base64.b64decode(envelope["payload"]))
    change(statement)
    forged = sign(Statement.from_json(statement), load_signer((workdir / "key").read_bytes(), "key"))
    (workdir / "forged.json").write_text(json.dumps(forged))
    return workdir / "forged.json"


def _verify(certificate: Path, public: Path, *extra: str):
    return runner.invoke(app, ["verify", str(certificate), "--public-key", str(public), *extra])


def test_statement_is_in_toto_v1_with_the_release_digest(workdir: Path) -> None:
    document = _statement(workdir).to_json()
    assert document["_type"] == STATEMENT_TYPE and document["predicateType"] == PREDICATE_TYPE
    assert document["subject"] == [{"name": "release.csv", "digest": {"sha256": sha256_file(workdir / "release.csv")}}]
    predicate = document["predicate"]
    assert predicate["time"] == "2026-01-02T03:04:05Z" and predicate["verdict"] == "fail"
    levels = {(m["model"], m["attribute"], m.get("distance")): m["exact"] for m in predicate["measurements"]}
    # Li et al. 2007, Table 4: 3-anonymous, 3-diverse, ordered EMD on salary 3/8 (fails t = 0.2).
    assert levels[("k_anonymity", None, None)] == "3"
    assert levels[("t_closeness", "salary", "ordered")] == "3/8"
    assert len(predicate["failures"]) == 1 and "3/8" in predicate["failures"][0]


def test_no_path_of_the_publishers_machine_is_signed(workdir: Path) -> None:
    """The hierarchy is carried by content; its digest, not its file, names it in the measurement."""
    text = json.dumps(_statement(workdir).to_json())
    assert str(workdir) not in text and "disease_hierarchy.csv" not in text.replace(
        'hierarchy = \\"disease_hierarchy.csv\\"', "")
    predicate = _statement(workdir).predicate
    assert set(predicate["hierarchies"]) == {"disease"}
    assert predicate["hierarchies"]["disease"]["sha256"] == load_policy(workdir / "policy.toml").hierarchies[
        "disease"].digest


def test_same_audit_same_bytes(workdir: Path) -> None:
    first, second = _statement(workdir).to_bytes(), _statement(workdir).to_bytes()
    assert first == second
    assert first == canonical(json.loads(first))  # already canonical (RFC 8785)


def test_the_count_tables_are_the_same_from_every_engine_and_row_order(workdir: Path) -> None:
    shuffled = workdir / "shuffled.csv"
    lines = (workdir / "release.csv").read_text().splitlines()
    shuffled.write_text("\n".join([lines[0], *reversed(lines[1:])]) + "\n")
    hashes = {certify(_audit(workdir, data, engine=engine), data, "", time=WHEN).statement.predicate["counts"]["sha256"]
              for data in (workdir / "release.csv", shuffled) for engine in ("pandas", "duckdb")}
    assert len(hashes) == 1


def test_keygen_writes_a_private_key_only_its_owner_reads_and_never_overwrites(tmp_path: Path) -> None:
    result = runner.invoke(app, ["keygen", "--out", str(tmp_path / "key")])
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE((tmp_path / "key").stat().st_mode) == 0o600
    assert json.loads((tmp_path / "key.pub").read_text())["keytype"] == "ed25519"
    again = runner.invoke(app, ["keygen", "--out", str(tmp_path / "key")])
    assert again.exit_code == 2 and "refusing to overwrite" in again.stderr
    (tmp_path / "other.pub").write_text("keep me")  # only the public half exists: still refused
    refused = runner.invoke(app, ["keygen", "--out", str(tmp_path / "other")])
    assert refused.exit_code == 2 and (tmp_path / "other.pub").read_text() == "keep me"
    assert not (tmp_path / "other").exists()
    empty = runner.invoke(app, ["keygen", "--out", ""])
    assert empty.exit_code == 2 and "file name" in empty.stderr


def test_demo_never_touches_an_existing_key(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    out.mkdir()
    (out / "demo.key").write_text("a real key")
    (out / "publisher.key").write_text("another real key")
    done = runner.invoke(app, ["demo", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert (out / "demo.key").read_text() == "a real key" and (out / "publisher.key").read_text() == "another real key"
    assert (out / "demo-2.key").is_file() and "demo-2.key" in done.output


def test_every_flipped_byte_of_the_envelope_is_detected(workdir: Path) -> None:
    """Every byte but those of a signature's key id, which DSSE defines as an unsigned hint."""
    envelope, public = _signed(workdir)
    key = _public(public)
    assert open_envelope(envelope, key).subject_name == "release.csv"
    data = bytearray(json.dumps(envelope).encode())
    keyid = data.index(envelope["signatures"][0]["keyid"].encode())
    hint = range(keyid, keyid + len(envelope["signatures"][0]["keyid"]))
    for index in range(len(data)):
        if index in hint:
            continue
        changed = bytearray(data)
        changed[index] ^= 0x01
        with pytest.raises((CertificateError, ValueError)):
            open_envelope(json.loads(changed), key)


def test_every_flipped_byte_of_the_payload_and_signature_is_detected(workdir: Path) -> None:
    envelope, public = _signed(workdir)
    key = _public(public)
    for field in ("payload", "sig"):
        holder = envelope if field == "payload" else envelope["signatures"][0]
        raw = bytearray(base64.b64decode(holder[field]))
        for index in range(len(raw)):
            changed = bytearray(raw)
            changed[index] ^= 0x01
            forged = json.loads(json.dumps(envelope))
            target = forged if field == "payload" else forged["signatures"][0]
            target[field] = base64.b64encode(bytes(changed)).decode()
            with pytest.raises(CertificateError):
                open_envelope(forged, key)


def test_another_key_does_not_verify(workdir: Path) -> None:
    envelope, _ = _signed(workdir)
    _, other = _keys(workdir, "other")
    with pytest.raises(CertificateError, match="no signature verifies"):
        open_envelope(envelope, _public(other))


def test_url_safe_base64_and_a_co_signature_are_accepted(workdir: Path) -> None:
    """DSSE verifiers accept URL-safe base64 and any number of signatures of which one is by the given key."""
    envelope, public = _signed(workdir)
    other_key, _ = _keys(workdir, "other")
    statement = open_envelope(envelope, _public(public))
    co_signed = sign(statement, load_signer(other_key.read_bytes(), "other"))["signatures"][0]
    envelope["signatures"].insert(0, co_signed)
    assert open_envelope(envelope, _public(public)) == statement
    urlsafe = dict(envelope, payload=base64.urlsafe_b64encode(base64.b64decode(envelope["payload"])).decode())
    assert open_envelope(urlsafe, _public(public)) == statement


@pytest.mark.parametrize("change", [
    lambda e: e["signatures"][0].update(extra="field"),
    lambda e: e.update(note="unsigned"),
    lambda e: e.update(signatures=[]),
])
def test_unknown_or_missing_envelope_fields_are_refused(workdir: Path, change) -> None:
    envelope, public = _signed(workdir)
    change(envelope)
    with pytest.raises(MalformedCertificateError):
        open_envelope(envelope, _public(public))


def test_non_canonical_duplicate_key_and_non_finite_payloads_are_refused(workdir: Path) -> None:
    envelope, public = _signed(workdir)
    statement = json.loads(base64.b64decode(envelope["payload"]))
    key = load_signer((workdir / "key").read_bytes(), "key")
    for payload in (json.dumps(statement, indent=1).encode(),  # valid JSON, not RFC 8785
                    canonical(statement)[:-1] + b',"_type":"x"}',  # a repeated key
                    canonical(statement).replace(b'"rows":9', b'"rows":1e400')):  # not finite
        from securesystemslib.dsse import Envelope

        forged = Envelope(payload, envelope["payloadType"], {})
        forged.sign(key)
        with pytest.raises(CertificateError):
            open_envelope(forged.to_dict(), _public(public))
    duplicate = json.dumps(envelope)[:-1] + ', "payload": "e30="}'
    (workdir / "dup.json").write_text(duplicate)
    done = _verify(workdir / "dup.json", public)
    assert done.exit_code == 2 and "appears twice" in done.stderr and "dup.json" in done.stderr


def test_audit_sign_then_verify_end_to_end_with_exit_codes(workdir: Path) -> None:
    key, cert, release = workdir / "key", workdir / "cert.json", workdir / "release.csv"
    assert runner.invoke(app, ["keygen", "--out", str(key)]).exit_code == 0
    audited = runner.invoke(app, ["audit", str(release), "--policy", str(workdir / "policy.toml"),
                                  "--sign", str(key), "--certificate", str(cert)])
    assert audited.exit_code == 1  # Table 4 fails t = 0.2 on salary; the certificate says so
    verified = _verify(cert, Path(f"{key}.pub"), "--data", str(release))
    assert verified.exit_code == FAILED_VERDICT, verified.output  # valid, but a FAIL verdict is not a pass
    assert "measurements: holds (4 item(s), re-derived and identical)" in verified.stdout
    assert "certified verdict FAIL" in verified.stdout
    assert _verify(cert, Path(f"{key}.pub"), "--data", str(release), "--allow-fail").exit_code == VALID
    # every flipped byte of the release is detected (digest)
    original = release.read_bytes()
    for index in range(0, len(original), 7):
        changed = bytearray(original)
        changed[index] ^= 0x01
        release.write_bytes(bytes(changed))
        result = _verify(cert, Path(f"{key}.pub"), "--data", str(release))
        assert result.exit_code == INVALID and "SHA-256" in result.stdout


def test_verify_says_what_it_did_not_check(workdir: Path) -> None:
    key, cert = workdir / "key", workdir / "cert.json"
    runner.invoke(app, ["keygen", "--out", str(key)])
    runner.invoke(app, ["audit", "--policy", str(workdir / "policy.toml"), "--sign", str(key), "--certificate", str(cert)])
    done = _verify(cert, Path(f"{key}.pub"), "--allow-fail")
    assert done.exit_code == VALID, done.output
    assert "release: not checked (no --data; the certificate names release.csv" in done.stdout
    assert "sha256 matches" not in done.stdout.lower()
    assert "tool and time: publisher's statement" in done.stdout


def test_verify_accepts_the_release_at_another_path_and_from_another_engine(workdir: Path, tmp_path_factory) -> None:
    """A policy with a hierarchy file, the release re-typed as ./, absolute and moved, and a DuckDB certificate."""
    key, cert = workdir / "key", workdir / "cert.json"
    runner.invoke(app, ["keygen", "--out", str(key)])
    made = runner.invoke(app, ["audit", "--policy", str(workdir / "policy.toml"), "--sign", str(key),
                               "--certificate", str(cert), "--engine", "duckdb"])
    assert made.exit_code == 1, made.output
    moved = tmp_path_factory.mktemp("elsewhere") / "renamed.csv"
    shutil.copy(workdir / "release.csv", moved)
    cwd = os.getcwd()
    try:
        os.chdir(workdir)
        for data, engine in (("./release.csv", "pandas"), (str(workdir / "release.csv"), "pandas"),
                             (str(moved), "duckdb"), (str(moved), "pandas")):
            done = _verify(cert, Path(f"{key}.pub"), "--data", data, "--engine", engine, "--allow-fail")
            assert done.exit_code == VALID, (data, engine, done.output)
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize(("change", "where"), [
    (lambda s: s["predicate"]["release"].update(rows=30000), "release facts"),
    (lambda s: s["predicate"]["implied"].append(
        {"definition": "dp", "implied": True, "level": "1/10", "readable": "ε = 1/10",
         "from": {"model": "k_anonymity", "attribute": None, "level": "3"},
         "derivation": [{"claim": "paper:invented", "status": "proven", "from": "k_anonymity", "to": "dp"}]}),
     "implied guarantees"),
    (lambda s: s["predicate"]["failures"].clear(), "failures"),
    (lambda s: s["predicate"].update(verdict="pass"), "verdict"),
    (lambda s: next(m for m in s["predicate"]["measurements"] if m["attribute"] == "salary").update(exact="1/8"),
     "measurements"),
    (lambda s: s["predicate"].update(endorsement="approved by the regulator"), "fields"),
])
def test_a_re_signed_false_statement_is_rejected(workdir: Path, change, where: str) -> None:
    """A dishonest publisher signs a false row count, an invented guarantee, ... with their own key: each is
    re-derived by verify, which exits 4 naming what differs."""
    envelope, public = _signed(workdir)
    forged = _resign(workdir, envelope, change)
    for extra in ((), ("--data", str(workdir / "release.csv"))):
        done = _verify(forged, public, *extra)
        assert done.exit_code == INVALID, done.output
        assert f"{where}: fails" in done.stdout


def test_the_shown_values_are_escaped_for_the_terminal(workdir: Path) -> None:
    envelope, public = _signed(workdir)
    def change(statement: dict) -> None:
        statement["subject"][0]["name"] = "release\x1b[2J.csv"
        statement["predicate"]["release"]["quasi_identifiers"][0] = "zip\x1b]8;;evil\x07"

    done = _verify(_resign(workdir, envelope, change), public)
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "release\\x1b[2J.csv" in done.stdout and "zip\\x1b]8;;evil" in done.stdout


def test_oddly_shaped_signed_content_is_invalid_not_a_crash(workdir: Path) -> None:
    envelope, public = _signed(workdir)
    for change in (lambda s: s["predicate"].update(measurements={"a": 1}),
                   lambda s: s["predicate"].update(publisher_statements=["x"]),
                   lambda s: s["predicate"].update(policy="text"),
                   lambda s: s["predicate"].update(hierarchies=[1])):
        done = _verify(_resign(workdir, envelope, change), public)
        assert done.exit_code == INVALID, done.output


def test_a_certificate_cannot_make_verify_read_a_file(workdir: Path, tmp_path_factory) -> None:
    """A signed policy that names /etc/passwd or ../.. as its hierarchy: verify uses the embedded content only."""
    secret = tmp_path_factory.mktemp("secret") / "passwd.csv"
    secret.write_text("root,x\nsecret-line,x\n")
    envelope, public = _signed(workdir)
    forged = _resign(workdir, envelope, lambda s: s["predicate"]["policy"].update(
        text=s["predicate"]["policy"]["text"].replace("disease_hierarchy.csv", str(secret))))
    done = _verify(forged, public)
    assert "secret-line" not in done.output
    assert done.exit_code in (VALID, FAILED_VERDICT, INVALID)
    missing = _resign(workdir, envelope, lambda s: s["predicate"].update(hierarchies={}))
    done = _verify(missing, public)
    assert done.exit_code == INVALID and "secret" not in done.output and "policy: fails" in done.stdout


def test_a_signature_without_tables_or_release_is_incomplete(workdir: Path) -> None:
    key, cert = workdir / "key", workdir / "cert.json"
    runner.invoke(app, ["keygen", "--out", str(key)])
    runner.invoke(app, ["audit", "--policy", str(workdir / "policy.toml"), "--sign", str(key), "--certificate",
                        str(cert), "--no-embed-counts"])
    done = _verify(cert, Path(f"{key}.pub"), "--allow-fail")
    assert done.exit_code == INCOMPLETE and "pass --data" in done.stdout


def test_signed_certificate_carries_the_guarantees_the_levels_imply(workdir: Path) -> None:
    predicate = _statement(workdir).predicate
    assert predicate["implied"] == implied_section(_audit(workdir))
    by_definition = {item["definition"]: item for item in predicate["implied"]}
    # Table 4 is 3-anonymous: the prosecutor risk is at most 1/3, by a relation derived in privcert
    risk = by_definition["prosecutor_risk"]
    assert (risk["level"], risk["from"]["model"]) == ("1/3", "k_anonymity")
    assert [step["claim"] for step in risk["derivation"]] == ["privcert:k_risk"]
    assert by_definition["dp"]["implied"] is False


@pytest.mark.parametrize(
    ("content", "expected"),
    [("not json", "not JSON"), ('{"payload": 1}', "not a DSSE envelope"), ('{"a": NaN}', "not a JSON number")],
)
def test_verify_bad_input_exits_2_and_names_the_file(workdir: Path, content: str, expected: str) -> None:
    _, public = _keys(workdir)
    (workdir / "cert.json").write_text(content)
    result = _verify(workdir / "cert.json", public)
    assert result.exit_code == 2 and expected in result.stderr and "cert.json" in result.stderr


@pytest.mark.parametrize("key", ['{"keytype": "ed25519"}', "not json", '{"keytype": "ed25519", "scheme": "ed25519", '
                                                                       '"keyval": {"public": "zz"}}'])
def test_a_malformed_key_file_is_bad_input(workdir: Path, key: str) -> None:
    envelope, _ = _signed(workdir)
    (workdir / "cert.json").write_text(json.dumps(envelope))
    (workdir / "bad.pub").write_text(key)
    result = _verify(workdir / "cert.json", workdir / "bad.pub")
    assert result.exit_code == 2 and "bad.pub" in result.stderr


def test_sign_without_certificate_is_bad_input(workdir: Path) -> None:
    _keys(workdir)
    result = runner.invoke(app, ["audit", str(workdir / "release.csv"), "--policy", str(workdir / "policy.toml"),
                                 "--sign", str(workdir / "key")])
    assert result.exit_code == 2 and "go together" in result.stderr


@pytest.mark.parametrize(("options", "message"), [
    (["--json", "release.csv"], "it is the release"),
    (["--html", "policy.toml"], "it is the policy"),
    (["--json", "out.txt"], "expected a file ending in .json"),
    (["--pdf", "view.html"], "expected a file ending in .pdf"),
    (["--sign", "key", "--certificate", "x.json", "--json", "x.json"], "writes the same file"),
])
def test_outputs_never_overwrite_inputs_or_each_other(workdir: Path, options: list[str], message: str) -> None:
    _keys(workdir)
    before = {path.name: path.read_bytes() for path in workdir.iterdir() if path.is_file()}
    cwd = os.getcwd()
    try:
        os.chdir(workdir)
        done = runner.invoke(app, ["audit", "--policy", "policy.toml", *options])
    finally:
        os.chdir(cwd)
    assert done.exit_code == 2 and message in done.stderr, done.output
    assert {path.name: path.read_bytes() for path in workdir.iterdir() if path.is_file()} == before


def test_report_never_writes_over_the_certificate(workdir: Path) -> None:
    envelope, public = _signed(workdir)
    (workdir / "cert.json").write_text(json.dumps(envelope))
    done = runner.invoke(app, ["report", str(workdir / "cert.json"), "--html", str(workdir / "cert.json")])
    assert done.exit_code == 2 and json.loads((workdir / "cert.json").read_text()) == envelope


def test_json_onto_a_fifo_writes_into_it_and_leaves_it_a_fifo(workdir: Path) -> None:
    fifo = workdir / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    done = runner.invoke(app, ["measure", str(workdir / "release.csv"), "--qi", "zip,age", "--sensitive", "disease",
                               "--json", str(fifo)])
    reader.join(timeout=60)
    assert done.exit_code == 0, done.output
    assert stat.S_ISFIFO(fifo.stat().st_mode) and json.loads(received[0])["rows"] == 9


def test_a_planted_link_at_the_temporary_name_is_never_followed(workdir: Path) -> None:
    victim = workdir / "victim.txt"
    victim.write_text("untouched")
    (workdir / ".out.json.tmp").symlink_to(victim)
    done = runner.invoke(app, ["measure", str(workdir / "release.csv"), "--qi", "zip,age", "--sensitive", "disease",
                               "--json", str(workdir / "out.json")])
    assert done.exit_code == 0 and victim.read_text() == "untouched"
    assert json.loads((workdir / "out.json").read_text())["rows"] == 9


def test_an_unwritable_output_folder_is_bad_input(workdir: Path) -> None:
    done = runner.invoke(app, ["measure", str(workdir / "release.csv"), "--qi", "zip,age", "--sensitive", "disease",
                               "--json", str(workdir / "no-such-folder" / "out.json")])
    assert done.exit_code == 2 and "cannot write" in done.stderr and "no-such-folder" in done.stderr
