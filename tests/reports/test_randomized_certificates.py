"""``privcert verify`` on certificates of randomized releases: the ``randomized`` section is measured again.

The levels of a randomized release (Ekenstedt et al. 2022, Defs. 4-8) are in the
certificate whether or not a requirement names them; a publisher who signs a false one
is caught by measuring them again, from the release (``--data``) or from the embedded
count tables (auditor mode).
"""

from __future__ import annotations

import base64
import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from privcert.cli import app
from reports.signing import load_signer, sign
from reports.statement import Statement

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "randomized"
ARGUMENTS = {"publisher": ("--data", "release.csv", "--original", "original.csv"), "auditor": ("--data", "release.csv")}
"""What verify is given: in publisher mode the published release (the subject) and the original (measured again)."""


def _arguments(folder: Path, mode: str) -> list[str]:
    return [item if item.startswith("--") else str(folder / item) for item in ARGUMENTS[mode]]
runner = CliRunner()


def _certified(folder: Path, mode: str) -> Path:
    for name in ("original.csv", "release.csv", "mechanism.csv", f"{mode}.toml"):
        shutil.copy(EXAMPLE / name, folder / name)
    assert runner.invoke(app, ["keygen", "--out", str(folder / "key")]).exit_code == 0
    release = ["--release", str(folder / "release.csv")] if mode == "publisher" else []
    done = runner.invoke(app, ["audit", "--policy", str(folder / f"{mode}.toml"), "--sign", str(folder / "key"),
                               "--certificate", str(folder / "cert.json"), *release])
    assert done.exit_code == 0, done.output
    return folder / "cert.json"


def _verify(certificate: Path, *data: str) -> Any:
    return runner.invoke(app, ["verify", str(certificate), "--public-key", str(certificate.parent / "key.pub"), *data])


def _resigned(certificate: Path, change: Any) -> None:
    """The certificate's statement changed by ``change`` and signed again with the same key."""
    statement = json.loads(base64.b64decode(json.loads(certificate.read_text())["payload"]))
    change(statement["predicate"])
    forged = sign(Statement.from_json(statement), load_signer((certificate.parent / "key").read_bytes(), "key"))
    certificate.write_text(json.dumps(forged))


@pytest.mark.parametrize("mode", ["publisher", "auditor"])
def test_a_good_certificate_of_a_randomized_release_verifies(tmp_path: Path, mode: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    certificate = _certified(tmp_path, mode)
    (tmp_path / "mechanism.csv").unlink()  # the certificate carries the mechanism: verify reads no file it names
    monkeypatch.chdir(tmp_path.parent)
    done = _verify(certificate, *_arguments(tmp_path, mode))
    assert done.exit_code == 0, done.output
    assert "randomized levels: holds (computed from the declared mechanism, re-derived and identical)" in done.stdout
    assert "mechanism mechanism.csv carried by content" in done.stdout
    if mode == "auditor":  # the count tables are embedded
        embedded = _verify(certificate)
        assert embedded.exit_code == 0, embedded.output
        assert embedded.stdout.startswith("signature: holds")
        assert "measurements: holds (3 item(s), re-derived and identical)" in embedded.stdout
        assert "randomized levels: holds (computed from the declared mechanism, re-derived and identical)" in embedded.stdout


def _kt_at_2(predicate: dict[str, Any]) -> dict[str, Any]:
    """The (k,t)-closeness level at k = 2: in the certificate, named by no requirement (they name k = 50)."""
    return next(m for m in predicate["randomized"]["measurements"]
                if m["model"] == "kt_closeness" and m["parameters"] == {"k": 2})


CHANGED = {"publisher": "measurements: item 4 differs in exact: certified ['1'], re-derived ['{}']",
           "auditor": "item 4 (kt_closeness, k = 2): the certified claims give ['{}'] from the re-measured levels, "
                      "the certificate states 1"}
"""How a level changed to 1 is caught: measured again (publisher mode), or not sound (auditor mode: implied)."""


@pytest.mark.parametrize(("mode", "certified"), [("publisher", "625/176"), ("auditor", "1249/250")])
def test_a_changed_randomized_level_is_invalid(tmp_path: Path, mode: str, certified: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    certificate = _certified(tmp_path, mode)
    assert _kt_at_2(json.loads(base64.b64decode(json.loads(certificate.read_text())["payload"]))["predicate"])[
        "exact"] == certified
    _resigned(certificate, lambda predicate: _kt_at_2(predicate).update(exact="1"))
    runs = [_arguments(tmp_path, mode)] + ([[]] if mode == "auditor" else [])
    monkeypatch.chdir(tmp_path.parent)
    for data in runs:
        done = _verify(certificate, *data)
        assert done.exit_code == 4, done.output
        assert f"randomized levels: fails ({CHANGED[mode].format(certified)}" in done.stdout, done.output


def test_a_changed_mode_a_dropped_level_or_section_is_invalid(tmp_path: Path) -> None:
    certificate = _certified(tmp_path, "publisher")
    original = certificate.read_text()
    data = _arguments(tmp_path, "publisher")
    expected = {
        "mode": "measurements: fails (item 2 parameters: differs in data_independent: certified [None], "
                "re-derived [True]",
        "level": "randomized levels: fails (measurements: the certificate lists 8, re-deriving gives 9",
        "section": "randomized levels: fails (certified None",
    }
    changes = {
        "mode": lambda predicate: predicate["randomized"].update(mode="auditor"),  # measured again as the auditor
        "level": lambda predicate: predicate["randomized"]["measurements"].pop(),
        "section": lambda predicate: predicate.pop("randomized"),
    }
    for name, change in changes.items():
        certificate.write_text(original)
        _resigned(certificate, change)
        done = _verify(certificate, *data)
        assert done.exit_code == 4 and expected[name] in done.stdout, (name, done.output)


def test_publisher_mode_binds_the_published_release_and_never_names_the_original(tmp_path: Path) -> None:
    """The subject is the published release; no digest of the original (nor of its count tables) is signed, since
    anyone could confirm guesses of personal data with it offline; the original is measured again when given."""
    import hashlib

    certificate = _certified(tmp_path, "publisher")
    statement = json.loads(base64.b64decode(json.loads(certificate.read_text())["payload"]))
    release = hashlib.sha256((tmp_path / "release.csv").read_bytes()).hexdigest()
    original = hashlib.sha256((tmp_path / "original.csv").read_bytes()).hexdigest()
    assert statement["subject"] == [{"name": "release.csv", "digest": {"sha256": release}}]
    assert original not in certificate.read_text() and "counts" not in statement["predicate"]
    without = _verify(certificate, "--data", str(tmp_path / "release.csv"))
    assert without.exit_code == 5 and "pass --original ORIGINAL --data RELEASE" in without.stdout
    assert _verify(certificate, "--data", str(tmp_path / "original.csv")).exit_code == 4  # not the subject
    refused = runner.invoke(app, ["audit", "--policy", str(tmp_path / "publisher.toml"), "--sign",
                                  str(tmp_path / "key"), "--certificate", str(tmp_path / "other.json")])
    assert refused.exit_code == 2 and "--release FILE" in refused.output
    # audited on the release itself and passed off as publisher mode: measured again from the original, it differs
    (tmp_path / "cheat.toml").write_text((tmp_path / "publisher.toml").read_text().replace(
        'path = "original.csv"', 'path = "release.csv"'))
    cheat = runner.invoke(app, ["audit", "--policy", str(tmp_path / "cheat.toml"), "--sign", str(tmp_path / "key"),
                                "--certificate", str(tmp_path / "cheat.json"), "--release",
                                str(tmp_path / "release.csv")])
    assert cheat.exit_code in (0, 1), cheat.output
    assert _verify(tmp_path / "cheat.json", *_arguments(tmp_path, "publisher")).exit_code == 4


def _kt_at_50(predicate: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The implied (k,t)-closeness level at k = 50 and the requirement decided on it (require[3])."""
    level = next(m for m in predicate["randomized"]["measurements"]
                 if m["model"] == "kt_closeness" and m["parameters"] == {"k": 50})
    return level, next(m for m in predicate["measurements"] if m["requirement"] == "require[3]")


def _stronger(predicate: dict[str, Any], *, requirement: bool = True, level: bool = True) -> None:
    """(k,t)-closeness at k = 50 stated as 2 where the claims give 49/10: in the implied level, the requirement, or
    both (a consistent lie)."""
    implied, decided = _kt_at_50(predicate)
    if level:
        implied.update(exact="2", level=2)
        implied["derivation"][-1].update(exact="2", level=2)
    if requirement:
        decided.update(exact="2", level=2)
        decided["bounds"]["upper"] = "2"


@pytest.mark.parametrize(("change", "expected"), [
    (lambda p: _stronger(p), "randomized levels: fails (item 6 (kt_closeness, k = 50): the certified claims give "
                             "['49/10'] from the re-measured levels, the certificate states 2; nor in the catalog the "
                             "certificate names)"),
    (lambda p: _stronger(p, level=False), "measurements: fails (item 3 differs in bounds, exact, level: certified "),
    (lambda p: _stronger(p, requirement=False), "randomized levels: fails (item 6 (kt_closeness, k = 50)"),
    (lambda p: _kt_at_50(p)[0].update(level=2), "randomized levels: fails (item 6 (kt_closeness, k = 50): the level 2 "
                                                "is not its exact value 49/10)"),
    (lambda p: _kt_at_50(p)[1].update(passed=False, verdict="undecided"), "measurements: fails (item 3 differs in "
                                                                          "passed, verdict"),
])
def test_an_implied_level_stated_stronger_than_the_claims_give_is_invalid(tmp_path: Path, change: Any,
                                                                          expected: str) -> None:
    """Auditor mode: a publisher who re-signs an implied level stronger than the catalog's claims give (or a
    requirement decided otherwise than on its certified level) is caught, from the tables and from the release."""
    certificate = _certified(tmp_path, "auditor")
    _resigned(certificate, change)
    for data in ([], _arguments(tmp_path, "auditor")):
        done = _verify(certificate, *data)
        assert done.exit_code == 4 and expected in done.stdout, done.output


def test_a_requirement_on_an_implied_level_is_decided_again_on_the_certified_level(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(k,t)-closeness ≤ 4 at k = 50 is undecided on the implied 49/10 (a FAIL certificate). A later catalog that
    implies 59/20 would pass it: verify still says FAIL, decided on the certified level, and the certificate is
    valid (exit 1), since a claim added later never invalidates a certificate."""
    import theory.answers.graph as graph

    for name in ("release.csv", "mechanism.csv", "auditor.toml"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    policy = tmp_path / "auditor.toml"
    policy.write_text(policy.read_text().replace("k = 50\nthreshold = 5", "k = 50\nthreshold = 4"))
    assert runner.invoke(app, ["keygen", "--out", str(tmp_path / "key")]).exit_code == 0
    done = runner.invoke(app, ["audit", "--policy", str(policy), "--sign", str(tmp_path / "key"),
                               "--certificate", str(tmp_path / "cert.json")])
    assert done.exit_code == 1, done.output
    _, decided = _kt_at_50(json.loads(base64.b64decode(json.loads((tmp_path / "cert.json").read_text())["payload"]))[
        "predicate"])
    assert (decided["exact"], decided["verdict"]) == ("49/10", "undecided")
    built = graph.build_graph

    def tighter(statuses: object = None) -> graph.Graph:
        found = built(statuses)  # type: ignore[arg-type]
        return graph.Graph(tuple(replace(e, f=1 + (e.f - 1) / 2) if e.claim_id == "ekenstedt2022:thm3a" and e.usable
                                 else e for e in found.edges), found.corners)

    monkeypatch.setattr(graph, "build_graph", tighter)
    again = runner.invoke(app, ["audit", "--policy", str(policy)])
    assert again.exit_code == 0, again.output  # today's claims would pass it
    done = _verify(tmp_path / "cert.json")
    assert done.exit_code == 1, done.output
    assert "require[3]: decided on the certificate's implied level" in done.stdout
    assert "VALID: every re-checkable statement holds; certified verdict FAIL" in done.stdout
