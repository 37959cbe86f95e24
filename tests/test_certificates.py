"""Certificates: the in-toto statement, its DSSE signature, and ``privcert keygen/verify`` end to end."""

from __future__ import annotations

import base64
import json
import shutil
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from privcert.cli import app
from reports.signing import CertificateError, generate_keys, load_public_key, load_signer, open_envelope, sign
from reports.statement import PREDICATE_TYPE, STATEMENT_TYPE, build_statement, canonical, sha256_file
from theory.answers.explain import explain
from verifier.audit import audit
from verifier.load import load_table
from verifier.policy import load_policy

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "table4"
WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
runner = CliRunner()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    for name in ("release.csv", "policy.toml", "disease_hierarchy.csv"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    return tmp_path


def _statement(workdir: Path):
    policy = load_policy(workdir / "policy.toml")
    result = audit(load_table(workdir / "release.csv"), policy)
    return build_statement(result, workdir / "release.csv", (workdir / "policy.toml").read_text(), time=WHEN)


def test_statement_is_in_toto_v1_with_the_release_digest(workdir: Path) -> None:
    document = _statement(workdir).to_json()
    assert document["_type"] == STATEMENT_TYPE and document["predicateType"] == PREDICATE_TYPE
    assert document["subject"] == [{"name": "release.csv",
                                    "digest": {"sha256": sha256_file(workdir / "release.csv")}}]
    predicate = document["predicate"]
    assert predicate["time"] == "2026-01-02T03:04:05Z" and predicate["verdict"] == "fail"
    levels = {(m["model"], m["attribute"], m.get("distance")): m["exact"] for m in predicate["measurements"]}
    # Li et al. 2007, Table 4: 3-anonymous, 3-diverse, ordered EMD on salary 3/8 (fails t = 0.2).
    assert levels[("k_anonymity", None, None)] == "3"
    assert levels[("t_closeness", "salary", "ordered")] == "3/8"
    assert len(predicate["failures"]) == 1 and "3/8" in predicate["failures"][0]


def test_same_audit_same_bytes(workdir: Path) -> None:
    first, second = _statement(workdir).to_bytes(), _statement(workdir).to_bytes()
    assert first == second
    assert first == canonical(json.loads(first))  # already canonical (RFC 8785)


def test_keygen_writes_a_private_key_only_its_owner_reads(tmp_path: Path) -> None:
    result = runner.invoke(app, ["keygen", "--out", str(tmp_path / "key")])
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE((tmp_path / "key").stat().st_mode) == 0o600
    assert json.loads((tmp_path / "key.pub").read_text())["keytype"] == "ed25519"
    again = runner.invoke(app, ["keygen", "--out", str(tmp_path / "key")])
    assert again.exit_code == 2 and "refusing to overwrite" in again.stderr


def _signed(workdir: Path) -> tuple[dict, Path]:
    public = generate_keys(workdir / "key")
    return sign(_statement(workdir), load_signer(workdir / "key")), public


def test_every_flipped_byte_of_the_envelope_is_detected(workdir: Path) -> None:
    envelope, public = _signed(workdir)
    key = load_public_key(public)
    assert open_envelope(envelope, key).subject_name == "release.csv"
    data = bytearray(json.dumps(envelope).encode())
    for index in range(len(data)):
        changed = bytearray(data)
        changed[index] ^= 0x01
        with pytest.raises((CertificateError, ValueError)):
            open_envelope(json.loads(changed), key)


def test_every_flipped_byte_of_the_payload_and_signature_is_detected(workdir: Path) -> None:
    envelope, public = _signed(workdir)
    key = load_public_key(public)
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
    other = generate_keys(workdir / "other")
    with pytest.raises(CertificateError, match="another key"):
        open_envelope(envelope, load_public_key(other))


def test_audit_sign_then_verify_end_to_end(workdir: Path) -> None:
    key, cert, release = workdir / "key", workdir / "cert.json", workdir / "release.csv"
    assert runner.invoke(app, ["keygen", "--out", str(key)]).exit_code == 0
    audited = runner.invoke(app, ["audit", str(release), "--policy", str(workdir / "policy.toml"),
                                  "--sign", str(key), "--certificate", str(cert)])
    assert audited.exit_code == 1  # Table 4 fails t = 0.2 on salary; the certificate says so
    verified = runner.invoke(app, ["verify", str(cert), "--public-key", f"{key}.pub", "--data", str(release)])
    assert verified.exit_code == 0, verified.output
    assert "4 measurements re-measured and identical; verdict fail" in verified.stdout
    # every flipped byte of the release is detected (digest), and a changed value too
    original = release.read_bytes()
    for index in range(len(original)):
        changed = bytearray(original)
        changed[index] ^= 0x01
        release.write_bytes(bytes(changed))
        result = runner.invoke(app, ["verify", str(cert), "--public-key", f"{key}.pub", "--data", str(release)])
        assert result.exit_code == 1 and "SHA-256" in result.stdout


def test_signed_certificate_carries_the_guarantees_the_levels_imply(workdir: Path) -> None:
    key, cert = workdir / "key", workdir / "cert.json"
    assert runner.invoke(app, ["keygen", "--out", str(key)]).exit_code == 0
    runner.invoke(app, ["audit", str(workdir / "release.csv"), "--policy", str(workdir / "policy.toml"),
                        "--sign", str(key), "--certificate", str(cert)])
    predicate = open_envelope(json.loads(cert.read_text()), load_public_key(Path(f"{key}.pub"))).predicate
    audit_json = audit(load_table(workdir / "release.csv"), load_policy(workdir / "policy.toml")).to_json()
    assert predicate["implied"] == explain(audit_json).to_json()
    by_definition = {item["definition"]: item for item in predicate["implied"]}
    # Table 4 is 3-anonymous: the prosecutor risk is at most 1/3, by a relation derived in privcert
    risk = by_definition["prosecutor_risk"]
    assert (risk["level"], risk["from"]["model"]) == ("1/3", "k_anonymity")
    assert [step["claim"] for step in risk["derivation"]] == ["privcert:k_risk"]
    # and about ε-DP nothing follows from a deterministic release's levels
    assert by_definition["dp"]["implied"] is False


def test_verify_detects_a_changed_measurement_behind_a_valid_digest(workdir: Path) -> None:
    """A publisher who signs a false level is caught by re-measuring, not only by the digest."""
    envelope, public = _signed(workdir)
    statement = json.loads(base64.b64decode(envelope["payload"]))
    salary = next(m for m in statement["predicate"]["measurements"] if m["attribute"] == "salary")
    salary["exact"] = "1/8"
    from reports.statement import Statement

    forged = sign(Statement.from_json(statement), load_signer(workdir / "key"))
    (workdir / "cert.json").write_text(json.dumps(forged))
    result = runner.invoke(app, ["verify", str(workdir / "cert.json"), "--public-key", str(public),
                                 "--data", str(workdir / "release.csv")])
    assert result.exit_code == 1
    assert "differs in exact" in result.stdout and "'1/8'" in result.stdout and "'3/8'" in result.stdout


@pytest.mark.parametrize(
    ("content", "expected"),
    [("not json", "Expecting value"), ('{"payload": 1}', "not a DSSE envelope")],
)
def test_verify_bad_input_exits_2_or_1(workdir: Path, content: str, expected: str) -> None:
    generate_keys(workdir / "key")
    (workdir / "cert.json").write_text(content)
    result = runner.invoke(app, ["verify", str(workdir / "cert.json"), "--public-key", str(workdir / "key.pub")])
    assert result.exit_code in (1, 2)
    assert expected in result.output


def test_sign_without_certificate_is_bad_input(workdir: Path) -> None:
    generate_keys(workdir / "key")
    result = runner.invoke(app, ["audit", str(workdir / "release.csv"), "--policy", str(workdir / "policy.toml"),
                                 "--sign", str(workdir / "key")])
    assert result.exit_code == 2 and "go together" in result.stderr
