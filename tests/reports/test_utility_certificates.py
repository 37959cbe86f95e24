"""The utility section of audits and certificates: signed, shown, and re-measured by ``verify --original``.

Table 4 of the t-closeness slides (Li et al. 2007) against Table 3, generalized in the zip
and age hierarchies: its loss is 3/8 (docs/utility.md works it out by hand).
"""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from privcert.cli import app
from reports.signing import load_signer, sign
from reports.statement import Statement

runner = CliRunner()
TABLE4 = Path(__file__).resolve().parents[2] / "examples" / "table4"
HIERARCHIES = ("--hierarchy", "zip=zip_hierarchy.csv", "--hierarchy", "age=age_hierarchy.csv")


def _audit(folder: Path, *extra: str) -> object:
    return runner.invoke(app, ["audit", str(folder / "release.csv"), "--policy", str(folder / "policy.toml"), *extra])


@pytest.fixture(scope="module")
def issued(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Table 4 certified with its utility against Table 3, once for the module."""
    folder = tmp_path_factory.mktemp("issued")
    for name in ("release.csv", "original.csv", "policy.toml", "disease_hierarchy.csv", "zip_hierarchy.csv",
                 "age_hierarchy.csv"):
        shutil.copy(TABLE4 / name, folder / name)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert runner.invoke(app, ["keygen", "--out", "key"]).exit_code == 0
        done = _audit(folder, "--original", "original.csv", *HIERARCHIES, "--sign", "key", "--certificate",
                      "cert.json", "--html", "cert.html", "--json", "audit.json")
    assert done.exit_code == 1, done.output  # Table 4 fails its 0.2-closeness on salary
    return folder


@pytest.fixture
def certified(issued: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the issued certificate and its inputs in ``tmp_path``, the working folder."""
    folder = tmp_path / "certified"
    shutil.copytree(issued, folder)
    monkeypatch.chdir(folder)
    return folder


def _predicate(folder: Path) -> dict:
    return json.loads(base64.b64decode(json.loads((folder / "cert.json").read_text())["payload"]))["predicate"]


def _verify(folder: Path, *extra: str) -> object:
    return runner.invoke(app, ["verify", "cert.json", "--public-key", "key.pub", "--allow-fail", *extra])


def _resign(folder: Path, change) -> None:
    """Change the signed statement and sign it again with the publisher's own key (a dishonest publisher)."""
    envelope = json.loads((folder / "cert.json").read_text())
    statement = json.loads(base64.b64decode(envelope["payload"]))
    change(statement["predicate"]["utility"])
    forged = sign(Statement.from_json(statement), load_signer((folder / "key").read_bytes(), "key"))
    (folder / "cert.json").write_text(json.dumps(forged))


def _figure(section: dict, metric: str, attribute: str | None = None) -> dict:
    return next(f for f in section["figures"] if f["metric"] == metric and f["attribute"] == attribute)


def test_the_audit_signs_what_it_prints(certified: Path) -> None:
    from verifier.audit import facts

    section = json.loads((certified / "audit.json").read_text())["utility"]
    assert facts(section) == _predicate(certified)["utility"]  # the certificate signs its facts, no note
    assert (section["original"], section["key"], section["mark"], section["qi"]) == ("original.csv", None, "*",
                                                                                     ["zip", "age"])
    assert (section["rows"], section["suppressed"]) == (9, 0)
    assert sorted(section["hierarchies"]) == ["age", "zip"]
    assert _figure(section, "loss")["raw"] == {"exact": "3/8", "value": 0.375}
    assert _figure(section, "loss", "zip")["quality"] == {"exact": "1/2", "value": 0.5}
    assert _figure(section, "discernibility")["raw"] == {"exact": "27", "value": 27.0}


def test_the_terminal_shows_the_utility_after_the_audit(certified: Path) -> None:
    done = _audit(certified, "--original", "original.csv", *HIERARCHIES)
    assert done.exit_code == 1
    assert "release.csv against original.csv: 9 records, 0 suppressed, over zip, age" in done.stdout
    assert "model: loss (granularity)  attribute: all  raw: 3/8 ≈ 0.375 share of the domain  quality: 5/8" in done.stdout


def test_a_certificate_with_utility_verifies_with_the_original(certified: Path) -> None:
    result = _verify(certified, "--data", "release.csv", "--original", "original.csv")
    assert result.exit_code == 0, result.output
    assert ("utility: holds (17 figure(s) against the original 'original.csv', re-measured from original.csv and "
            "identical)") in result.stdout


def test_the_original_may_be_anywhere(certified: Path) -> None:
    (certified / "elsewhere").mkdir()
    shutil.move(certified / "original.csv", certified / "elsewhere" / "table3.csv")
    result = _verify(certified, "--data", "release.csv", "--original", "elsewhere/table3.csv")
    assert result.exit_code == 0, result.output
    assert "utility: holds" in result.stdout


def test_without_the_original_the_utility_is_the_publishers_statement(certified: Path) -> None:
    result = _verify(certified)
    assert result.exit_code == 0, result.output
    assert ("utility: publisher's statement (17 figure(s) against the original 'original.csv', not re-computed: "
            "pass --original ORIGINAL --data RELEASE)") in result.stdout


def test_a_changed_figure_is_caught_with_the_original_and_unchecked_without(certified: Path) -> None:
    def change(section: dict) -> None:
        _figure(section, "loss")["raw"] = {"exact": "1/8", "value": 0.125}

    _resign(certified, change)
    unchecked = _verify(certified)
    assert unchecked.exit_code == 0, unchecked.output
    assert "utility: publisher's statement" in unchecked.stdout
    caught = _verify(certified, "--data", "release.csv", "--original", "original.csv")
    assert caught.exit_code == 4, caught.output
    assert ("utility: fails (figures: item 3 raw: differs in exact, value: certified ['1/8', 0.125], "
            "re-derived ['3/8', 0.375])") in caught.stdout
    assert "INVALID" in caught.stdout


@pytest.mark.parametrize(("relative", "holds"), [(1e-12, True), (1e-6, False)])
def test_a_float_figure_is_compared_within_the_stated_tolerance(certified: Path, relative: float, holds: bool) -> None:
    """Entropies are floats: another summation order moves the last bits, which must not invalidate a certificate;
    a change the tolerance does not cover is caught."""
    def change(section: dict) -> None:
        figure = _figure(section, "non_uniform_entropy")
        assert "exact" not in figure["raw"]
        figure["raw"]["value"] *= 1 + relative

    _resign(certified, change)
    result = _verify(certified, "--data", "release.csv", "--original", "original.csv")
    if holds:
        assert result.exit_code == 0, result.output
        assert ("utility: holds (17 figure(s) against the original 'original.csv', re-measured from original.csv and "
                "equal (floats within a relative 1e-09))") in result.stdout
    else:
        assert result.exit_code == 4, result.output
        assert "utility: fails (figures: item 6 raw: differs in value: " in result.stdout
        assert "raw: differs in value: certified [34.529359542" in result.stdout
        assert "re-derived [34.529325012" in result.stdout


def test_a_changed_hierarchy_is_caught_by_its_hash(certified: Path) -> None:
    def change(section: dict) -> None:
        section["hierarchies"]["age"]["paths"][0][1] = "3*"

    _resign(certified, change)
    caught = _verify(certified, "--data", "release.csv", "--original", "original.csv")
    assert caught.exit_code == 4, caught.output
    assert "utility: fails (cannot be measured again against original.csv: hierarchies.age: its paths have SHA-256" \
        in caught.stdout


def test_another_original_fails_the_utility_line(certified: Path) -> None:
    caught = _verify(certified, "--data", "release.csv", "--original", "release.csv")
    assert caught.exit_code == 4, caught.output
    assert ("utility: fails (cannot be measured again against release.csv: original.csv, row 1, column 'zip': "
            "'476**' is not a leaf of the hierarchy") in caught.stdout


def test_a_certificate_without_utility_says_so(certified: Path) -> None:
    assert _audit(certified, "--sign", "key", "--certificate", "plain.cert.json").exit_code == 1
    assert "utility" not in json.loads(base64.b64decode(json.loads(
        (certified / "plain.cert.json").read_text())["payload"]))["predicate"]
    result = runner.invoke(app, ["verify", "plain.cert.json", "--public-key", "key.pub", "--allow-fail", "--data",
                                 "release.csv", "--original", "original.csv"])
    assert result.exit_code == 0, result.output
    assert "utility: not checked (the certificate has no utility section)" in result.stdout


def test_the_view_labels_the_utility_as_the_publishers_statement(certified: Path) -> None:
    page = (certified / "cert.html").read_text()
    section = page[page.index('<section id="utility">'):]
    section = section[:section.index("</section>")]
    assert "What the release cost (the publisher's statement, not re-checked)" in section
    assert "--original ORIGINAL" in section
    assert section.count('<tr class="utility">') == 17
    assert ("<tr class=\"utility\"><td>loss (granularity)</td><td><bdi dir=\"auto\">all</bdi></td>"
            "<td class=\"mono\">3/8 ≈ 0.375 share of the domain</td><td class=\"mono\">5/8 ≈ 0.625</td></tr>") in section


@pytest.mark.parametrize(("args", "message"), [
    (["verify", "cert.json", "--public-key", "key.pub", "--original", "original.csv"],
     "--original original.csv: expected --data RELEASE as well"),
    (["verify", "cert.json", "--public-key", "key.pub", "--data", "release.csv", "--original", "missing.csv"],
     "missing.csv: data file not found"),
])
def test_verify_bad_input_exits_2(certified: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr


@pytest.mark.parametrize(("extra", "message"), [
    (["--key", "id"], "--key: expected --original with it"),
    (list(HIERARCHIES), "--hierarchy: expected --original with it"),
    (["--original", "original.csv", "--hierarchy", "salary=age_hierarchy.csv"],
     "--hierarchy 'salary=age_hierarchy.csv': expected one of the columns ['zip', 'age']"),
    (["--original", "original.csv", "--key", "id"], "column 'id'"),
    (["--original", "policy.toml", "--json", "policy.toml"], "--json policy.toml"),
])
def test_audit_bad_utility_input_exits_2(certified: Path, extra: list[str], message: str) -> None:
    result = _audit(certified, *extra)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
