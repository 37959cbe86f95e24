"""Consistent lies that rest on inputs the publisher declares, on an older schema's looser rules, or on what the
certificate did not bind (the release's header, look-alike names).

Each certificate is issued or signed again with the publisher's own key, so its signature holds: what catches or
labels the lie is that every input a level depends on is classified once (:mod:`verifier.declarations`), every
declared one is shown at the top of every view and in ``verify``'s output, each schema is verified by its own
rules, the release's header is signed, and look-alike names are shown escaped.
"""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_certificate_lies import _issue, _resign, _verify, runner

from privcert.cli import app

ROOT = Path(__file__).resolve().parents[2]
TABLE4 = ROOT / "examples" / "table4"
RANDOMIZED = ROOT / "examples" / "randomized"
INPUTS = ROOT / "tests" / "golden" / "inputs"


def _inputs(folder: Path, source: Path, policy: str, release: str | None = None) -> tuple[Path, Path]:
    """``folder/inputs`` with the release of ``source`` (or ``release`` as its text), its files and ``policy``."""
    inputs = folder / "inputs"
    inputs.mkdir()
    for item in source.parent.iterdir():
        if item.is_file():
            shutil.copy(item, inputs / item.name)
    if release is not None:
        (inputs / source.name).write_text(release, encoding="utf-8")
    (inputs / "policy.toml").write_text(policy, encoding="utf-8")
    return inputs / source.name, inputs / "policy.toml"


def _payload(certificate: Path) -> dict[str, Any]:
    return json.loads(base64.b64decode(json.loads(certificate.read_text())["payload"]))


PADDED_DOMAIN = (TABLE4 / "policy.toml").read_text().replace(
    '[sensitive.salary]\nkind = "numerical"\n',
    '[sensitive.salary]\nkind = "numerical"\ndomain = [' + ", ".join(str(v) for v in range(0, 100_001, 1000)) + "]\n")


def test_a_padded_domain_is_declared_at_the_top_of_every_view(tmp_path: Path) -> None:
    """Was: "VALID … certified verdict PASS" and no view listed the domain; 101 declared values where the release
    has 9 move Table 4's ordered t-closeness on salary from 3/8 (FAIL) to 3/100 (PASS)."""
    release, policy = _inputs(tmp_path, TABLE4 / "release.csv", PADDED_DOMAIN)
    certificate = _issue(tmp_path, release, policy, "--html", str(tmp_path / "cert.html"))
    done = _verify(certificate)
    assert done.exit_code == 0, done.output
    assert ("declared inputs: publisher's statement (domain of salary: 101 values from 0 to 100000; the release has "
            "9, from 3000 to 11000 (92 declared values not in it))") in done.stdout
    assert "certified verdict PASS; it holds given 3 declared inputs" in done.stdout
    assert _verify(certificate, "--json", str(tmp_path / "verify.json")).exit_code == 0
    listed = json.loads((tmp_path / "verify.json").read_text())["declared_inputs"]
    assert [item.split(":")[0] for item in listed] == ["domain of salary", "hierarchy of disease",
                                                       "the release's encoding"]
    html = (tmp_path / "cert.html").read_text()
    body = html[html.index("<body>"):]
    assert "holds given 3 declared inputs" in body and "each level below was measured from the release" not in body
    assert body.index('id="declared"') < body.index('id="measurements"')
    assert "101 values from 0 to 100000; the release has 9, from 3000 to 11000" in body


def test_a_requirement_level_sampling_fraction_is_declared(tmp_path: Path) -> None:
    """Was: not listed as declared; a census stated as a 1/100 sample lowers population uniqueness."""
    text = (TABLE4 / "policy.toml").read_text() + (
        '\n[[require]]\nmodel = "population_uniqueness"\nestimator = "pitman"\nsampling_fraction = "1/100"\nthreshold = "1/2"\n')
    release, policy = _inputs(tmp_path, TABLE4 / "release.csv", text)
    certificate = _issue(tmp_path, release, policy)
    done = _verify(certificate, "--allow-fail")
    assert done.exit_code == 0, done.output
    assert "declared inputs: publisher's statement (sampling fraction of require[5]: 1/100)" in done.stdout


def test_the_encoding_is_declared_in_every_view(tmp_path: Path) -> None:
    """Was: one CLI line, shown only beside other declarations; the encoding decides which rows are equal."""
    text = '[data]\nqi = ["zip", "age"]\n\n[sensitive.disease]\n\n[[require]]\nmodel = "k_anonymity"\nthreshold = 3\n'
    release, policy = _inputs(tmp_path, TABLE4 / "release.csv", text)
    certificate = _issue(tmp_path, release, policy, "--html", str(tmp_path / "cert.html"))
    done = _verify(certificate)
    assert done.exit_code == 0, done.output
    assert "declared inputs: publisher's statement (the release's encoding: utf-8)" in done.stdout
    assert "<strong><bdi>the release&#39;s encoding</bdi></strong>: <bdi>utf-8</bdi>" in (tmp_path / "cert.html").read_text()


def test_a_look_alike_quasi_identifier_is_shown_escaped_and_flagged(tmp_path: Path) -> None:
    """Was: the page read "zіp, age" (Cyrillic і), the same as "zip, age"; verify printed no line about it."""
    rows = [line.split(",") for line in (TABLE4 / "release.csv").read_text().splitlines()]
    text = "\n".join(",".join([f"4760{n}" if n else "zip", *row]) for n, row in enumerate(rows)) + "\n"
    text = text.replace("zip,zip,", "zip,z\u0456p,", 1)
    policy = (TABLE4 / "policy.toml").read_text().replace('qi = ["zip", "age"]', 'qi = ["z\u0456p", "age"]')
    release, policy_file = _inputs(tmp_path, TABLE4 / "release.csv", policy, text)
    certificate = _issue(tmp_path, release, policy_file, "--html", str(tmp_path / "cert.html"))
    done = _verify(certificate, "--allow-fail")
    assert ("names: look-alike (quasi-identifier 'z\\u0456p' (U+0456 CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I): "
            "mixed scripts (Cyrillic, Latin), looks like 'zip')") in done.stdout
    html = (tmp_path / "cert.html").read_text()
    assert "z\u0456p" not in html and "z\\u0456p" in html and "looks like" in html


def test_a_release_with_other_columns_than_certified_is_invalid(tmp_path: Path) -> None:
    """Was: exit 1 (verdict FAIL, valid): a certificate re-signed for the same release plus a column of full names
    verified, since the certificate recorded no column list."""
    certificate = _issue(tmp_path, TABLE4 / "release.csv", TABLE4 / "policy.toml")
    rows = (tmp_path / "release.csv").read_text().splitlines()
    named = "\n".join(f"{row},{'name' if n == 0 else f'Person {n}'}" for n, row in enumerate(rows)) + "\n"
    (tmp_path / "named.csv").write_text(named)
    import hashlib

    digest = hashlib.sha256(named.encode()).hexdigest()
    forged = _resign(certificate, lambda s: s["subject"][0].update(name="named.csv", digest={"sha256": digest}))
    done = _verify(forged, "--data", str(tmp_path / "named.csv"), "--allow-fail")
    assert done.exit_code == 4, done.output
    assert ("release: fails (named.csv has the columns zip, age, salary, disease, name; the certificate was issued "
            "for zip, age, salary, disease)") in done.stdout


def test_columns_outside_the_policy_are_listed_with_an_identifier_warning(tmp_path: Path) -> None:
    rows = (TABLE4 / "release.csv").read_text().splitlines()
    named = "\n".join(f"{row},{'name' if n == 0 else f'Person {n}'}" for n, row in enumerate(rows)) + "\n"
    release, policy = _inputs(tmp_path, TABLE4 / "release.csv", (TABLE4 / "policy.toml").read_text(), named)
    certificate = _issue(tmp_path, release, policy, "--html", str(tmp_path / "cert.html"))
    done = _verify(certificate, "--data", str(tmp_path / "release.csv"), "--allow-fail")
    assert done.exit_code == 0, done.output
    assert ("columns: publisher's statement (also in the release, not audited: name (looks like a direct "
            "identifier))") in done.stdout
    html = (tmp_path / "cert.html").read_text()
    assert "Also in the release, not audited" in html and "looks like a direct identifier" in html


@pytest.fixture
def downgraded(tmp_path: Path) -> Path:
    """A publisher-mode audit run on the release (as if it were the original), re-signed as schema 2 with the
    release's count tables. The genuine publisher audit fails kt_closeness k = 50 at 3 (625/176); measured on
    the release, 1250/417 passes."""
    policy = (RANDOMIZED / "publisher.toml").read_text().replace("k = 50\nthreshold = 4", "k = 50\nthreshold = 3")
    release, policy_file = _inputs(tmp_path, RANDOMIZED / "release.csv", policy)
    certificate = _issue(tmp_path, release, policy_file, "--release", str(release))
    assert _payload(certificate)["predicate"]["verdict"] == "pass"
    auditor = tmp_path / "auditor"
    auditor.mkdir()
    counted = _issue(auditor, RANDOMIZED / "release.csv", RANDOMIZED / "auditor.toml")
    counts = _payload(counted)["predicate"]["counts"]

    def downgrade(statement: dict[str, Any]) -> None:
        predicate = statement["predicate"]
        statement["predicateType"] = "https://privcert.dev/attestation/audit/v2"
        predicate.update(schema_version="2", counts=counts, failures=[])
        predicate.pop("catalog")
        predicate["release"].pop("encoding")
        predicate["release"].pop("columns", None)
        for item in predicate["implied"]:  # schema 2 states no bounds
            for step in item.get("derivation", []):
                step.pop("bounds", None)

    return _resign(certificate, downgrade)


def test_a_schema_2_publisher_certificate_is_not_confirmed_from_a_release(downgraded: Path) -> None:
    """Was: exit 0 without data, with --data, and with --original (silently ignored)."""
    folder = downgraded.parent
    done = _verify(downgraded)
    assert done.exit_code == 5, done.output
    assert ("measurements: not checked (publisher mode: the levels were measured on the original data, which no "
            "certificate carries") in done.stdout
    done = _verify(downgraded, "--data", str(folder / "release.csv"))
    assert done.exit_code == 5, done.output
    done = _verify(downgraded, "--data", str(folder / "release.csv"), "--original", str(folder / "original.csv"))
    assert done.exit_code == 4, done.output
    assert "measurements: fails" in done.stdout


def test_a_schema_2_publisher_certificate_never_reads_measured_from_the_release(downgraded: Path,
                                                                                tmp_path: Path) -> None:
    done = runner.invoke(app, ["report", str(downgraded), "--html", str(tmp_path / "view.html")])
    assert done.exit_code == 0, done.output
    html = (tmp_path / "view.html").read_text()
    assert "measured from the release" not in html
    assert "measured on the original data" in html


def _guarantee(statement: dict[str, Any]) -> dict[str, Any]:
    return next(item for item in statement["predicate"]["implied"] if item.get("implied") is not False)


def test_a_claim_status_re_signed_otherwise_than_the_catalog_is_invalid(tmp_path: Path) -> None:
    """Was: valid (exit 1, 0 with --allow-fail): a step's status was never compared with the catalog's, so any text passed."""
    certificate = _issue(tmp_path, TABLE4 / "release.csv", TABLE4 / "policy.toml")
    first = _guarantee(_payload(certificate))["derivation"][0]
    assert first["status"] == "tested"  # privcert:distinct_to_k: argued, confirmed on a seeded sample
    forged = _resign(certificate, lambda s: _guarantee(s)["derivation"][0].update(status="proven beyond doubt"))
    done = _verify(forged, "--allow-fail")
    assert done.exit_code == 4, done.output
    assert (f"the claim {first['claim']} is tested in this privcert's catalog, the certificate states it 'proven "
            "beyond doubt'") in done.stdout
    # A real status other than the catalog's is refused alike: "tested" re-signed as "proven".
    upgraded = _verify(_resign(certificate, lambda s: _guarantee(s)["derivation"][0].update(status="proven")),
                       "--allow-fail")
    assert upgraded.exit_code == 4, upgraded.output
    assert f"the claim {first['claim']} is tested in this privcert's catalog, the certificate states it 'proven'" in (
        upgraded.stdout)


def test_a_derivation_that_is_not_a_path_is_invalid(tmp_path: Path) -> None:
    """Was: valid (exit 1, 0 with --allow-fail): a step repeated (each claim genuine) was accepted, the chain never followed."""
    certificate = _issue(tmp_path, TABLE4 / "release.csv", TABLE4 / "policy.toml")

    def repeat(statement: dict[str, Any]) -> None:
        steps = _guarantee(statement)["derivation"]
        steps.insert(0, dict(steps[0]))

    done = _verify(_resign(certificate, repeat), "--allow-fail")
    assert done.exit_code == 4, done.output
    assert ("implied guarantees: fails (item 1 (k_anonymity): its derivation (distinct_l_diversity–k_anonymity → "
            "distinct_l_diversity–k_anonymity) is not a path from distinct_l_diversity to k_anonymity)") in done.stdout


def _objects(value: Any, shape: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of every object of a predicate whose keys are fields (:data:`reports.shapes.SHAPES`)."""
    from reports.shapes import ANY, _Map

    if shape == ANY:
        return []
    if isinstance(shape, _Map):
        return [found for key, item in value.items() for found in _objects(item, shape.shape, (*path, key))]
    if isinstance(shape, list):
        return [found for number, item in enumerate(value) for found in _objects(item, shape[0], (*path, number))]
    if not isinstance(value, dict):
        return []
    return [path, *(found for key, item in value.items() for found in _objects(item, shape[key], (*path, key)))]


@pytest.mark.parametrize(("source", "policy", "objects"), [
    (INPUTS / "table5.csv", INPUTS / "risk-population.toml", 35),
    (RANDOMIZED / "release.csv", RANDOMIZED / "auditor.toml", 71)])
def test_a_key_added_at_any_depth_is_invalid(tmp_path: Path, source: Path, policy: Path, objects: int) -> None:
    """Was: a key added inside a publisher's statement, an implied level, its steps, the release, the policy,
    the count tables, the tool or the catalog verified (only the predicate's top level was checked)."""
    from reports.shapes import SHAPES
    from reports.signing import load_public_key, load_signer, sign
    from reports.statement import Statement
    from reports.verification import INVALID, verify

    certificate = _issue(tmp_path, source, policy)
    statement = _payload(certificate)
    signer = load_signer((tmp_path / "key").read_bytes(), "key")
    public = load_public_key((tmp_path / "key.pub").read_text(), "key.pub")
    paths = _objects(statement["predicate"], SHAPES["4"])
    assert len(paths) == objects
    for path in paths:
        forged = json.loads(json.dumps(statement))
        target = forged["predicate"]
        for part in path:
            target = target[part]
        target["unchecked"] = True
        found = verify(sign(Statement.from_json(forged), signer), public)
        assert found.exit_code() == INVALID, (path, [line.text() for line in found.lines])
        assert found.lines[-1].subject == "fields" or any(line.outcome == "fails" for line in found.lines), path


def test_a_forged_encoding_is_invalid_with_the_original_too(tmp_path: Path) -> None:
    """Was: exit 2 with --original (the original was read first, in the forged encoding: bad input), 4 without."""
    certificate = _issue(tmp_path, TABLE4 / "release.csv", TABLE4 / "policy.toml", "--original",
                         str(TABLE4 / "original.csv"), "--hierarchy", f"zip={TABLE4 / 'zip_hierarchy.csv'}",
                         "--hierarchy", f"age={TABLE4 / 'age_hierarchy.csv'}")
    forged = _resign(certificate, lambda s: s["predicate"]["release"].update(encoding="utf-16"))
    done = _verify(forged, "--data", str(tmp_path / "release.csv"), "--original", str(tmp_path / "original.csv"))
    assert done.exit_code == 4, done.output
    assert ("release: fails (release.csv has the certified SHA-256, but the encoding the certificate states (utf-16) "
            "does not read it") in done.stdout


GOLDEN = ROOT / "tests" / "golden"


def test_the_utility_sections_hierarchies_are_declared() -> None:
    """Was: not among the declared inputs; a padded zip hierarchy moved the utility figures unseen."""
    folder = GOLDEN / "v3" / "utility-original"
    done = runner.invoke(app, ["verify", str(folder / "cert.json"), "--public-key", str(folder / "key.pub"),
                               "--allow-fail"])
    assert done.exit_code == 0, done.output
    assert ("declared inputs: publisher's statement (utility hierarchy of age: 3 levels, 9 leaves; leaves per node, "
            "root first: level 0: *") in done.stdout
    assert "declared inputs: publisher's statement (the utility section's suppression mark: '*')" in done.stdout


def test_a_level_from_the_declared_mechanism_never_reads_measured(tmp_path: Path) -> None:
    folder = GOLDEN / "v4" / "randomized-auditor"
    done = runner.invoke(app, ["report", str(folder / "cert.json"), "--public-key", str(folder / "key.pub"), "--html",
                               str(tmp_path / "view.html")])
    assert done.exit_code == 0, done.output
    html = (tmp_path / "view.html").read_text()
    assert '<td class="reason">from the declared mechanism</td>' in html and ">measured<" not in html
    assert "mechanism mechanism.csv</bdi></strong>: <bdi>value,asthma,cold,flu,hiv" in html
    assert "ε = ln(5), from the declared mechanism" in html
