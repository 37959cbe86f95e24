"""Count tables embedded in a certificate: exact round trip, re-measuring without the release, tampering caught."""

from __future__ import annotations

import base64
import json
import shutil
import warnings
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from privcert.cli import app
from reports.embedded_counts import (
    EmbeddedCountsError,
    counts_sha256,
    decode_counts,
    encode_counts,
    release_counts,
)
from reports.signing import load_signer, sign
from reports.statement import Statement, canonical
from verifier.audit import audit, audit_tables
from verifier.errors import PolicyError
from verifier.measure import measure, measure_tables
from verifier.policy import load_policy
from verifier.question import Question
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec
from verifier.tables.load import load_table

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "table4"
DEMO = Path(__file__).resolve().parents[2] / "privcert" / "data"
runner = CliRunner()


@pytest.fixture
def certified(tmp_path: Path) -> Path:
    """Table 4 of Li et al. 2007, audited and signed with its count tables embedded."""
    for name in ("release.csv", "policy.toml", "disease_hierarchy.csv"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    assert runner.invoke(app, ["keygen", "--out", str(tmp_path / "key")]).exit_code == 0
    done = runner.invoke(app, ["audit", str(tmp_path / "release.csv"), "--policy", str(tmp_path / "policy.toml"),
                               "--sign", str(tmp_path / "key"), "--certificate", str(tmp_path / "cert.json")])
    assert done.exit_code == 1, done.output  # Table 4 fails t = 0.2 on salary
    return tmp_path


def _verify(folder: Path, *extra: str):
    return runner.invoke(app, ["verify", str(folder / "cert.json"), "--public-key", str(folder / "key.pub"),
                               "--allow-fail", *extra])


def _resign(folder: Path, change) -> None:
    """Change the signed statement and sign it again with the publisher's own key (a dishonest publisher)."""
    envelope = json.loads((folder / "cert.json").read_text())
    statement = json.loads(base64.b64decode(envelope["payload"]))
    change(statement["predicate"])
    forged = sign(Statement.from_json(statement), load_signer((folder / "key").read_bytes(), "key"))
    (folder / "cert.json").write_text(json.dumps(forged))


def test_verify_without_the_release_re_measures_the_embedded_counts(certified: Path) -> None:
    (certified / "release.csv").unlink()
    (certified / "disease_hierarchy.csv").unlink()  # the hierarchy travels with the counts
    result = _verify(certified)
    assert result.exit_code == 0, result.output
    assert "count tables: holds (the embedded count tables have the stated SHA-256" in result.stdout
    assert "measurements: holds (4 item(s), re-derived and identical)" in result.stdout
    assert "certified verdict FAIL" in result.stdout


def test_a_tampered_count_is_caught_by_its_hash(certified: Path) -> None:
    def change(predicate: dict) -> None:
        predicate["counts"]["tables"]["attributes"][0]["count"][0] += 1

    _resign(certified, change)
    result = _verify(certified)
    assert result.exit_code == 4
    assert "count tables: fails (the embedded count tables have SHA-256" in result.stdout


def test_a_tampered_count_with_its_hash_updated_changes_a_measurement(certified: Path) -> None:
    def change(predicate: dict) -> None:
        tables = predicate["counts"]["tables"]
        salary = tables["attributes"][0]
        # Move one record of class 0 from its first salary to another value of the same class:
        # the class sizes still add up, but the salary distribution (and its EMD) changes.
        salary["value_index"][0] = salary["value_index"][1]
        salary["count"][1] += salary["count"].pop(0)
        salary["value_index"].pop(0)
        salary["class_index"].pop(0)
        predicate["counts"]["sha256"] = counts_sha256(tables)

    _resign(certified, change)
    result = _verify(certified)
    assert result.exit_code == 4
    assert "measurements: fails (item 3 differs in" in result.stdout


def test_with_the_release_the_counts_hash_is_checked_too(certified: Path) -> None:
    def change(predicate: dict) -> None:
        predicate["counts"]["sha256"] = "0" * 64

    _resign(certified, change)
    result = _verify(certified, "--data", str(certified / "release.csv"))
    assert result.exit_code == 4
    assert "count tables: fails (the release's count tables have SHA-256 " in result.stdout
    assert "the certificate states " + "0" * 64 in result.stdout


def test_inconsistent_tables_are_refused_with_the_reason(certified: Path) -> None:
    def change(predicate: dict) -> None:
        tables = predicate["counts"]["tables"]
        tables["attributes"][1]["class_index"][-1] = 99
        predicate["counts"]["sha256"] = counts_sha256(tables)

    _resign(certified, change)
    result = _verify(certified)
    assert result.exit_code == 4
    assert "cannot be re-measured: attributes[2]: cells must be distinct, sorted by class then value" in result.stdout


def test_no_embed_counts_keeps_only_the_hash(certified: Path) -> None:
    out = certified / "plain.json"
    runner.invoke(app, ["audit", str(certified / "release.csv"), "--policy", str(certified / "policy.toml"),
                        "--sign", str(certified / "key"), "--certificate", str(out), "--no-embed-counts"])
    predicate = json.loads(base64.b64decode(json.loads(out.read_text())["payload"]))["predicate"]
    assert set(predicate["counts"]) == {"sha256"}
    result = runner.invoke(app, ["verify", str(out), "--public-key", str(certified / "key.pub")])
    assert result.exit_code == 5 and "embeds no count tables: pass --data" in result.stdout


@pytest.mark.parametrize("folder", [EXAMPLE, DEMO])
def test_auditing_the_decoded_tables_gives_the_same_audit(folder: Path) -> None:
    policy = load_policy(folder / "policy.toml")
    result = audit(load_table(folder / "release.csv"), policy)
    document = json.loads(canonical(release_counts(result)))  # through the wire form
    classes, tables = decode_counts(document)
    again = audit_tables(classes, tables, policy)
    assert [c.to_json() for c in again.checks] == [c.to_json() for c in result.checks]
    assert again.report.to_json() == result.report.to_json()


def test_count_tables_of_another_question_are_refused() -> None:
    policy = load_policy(EXAMPLE / "policy.toml")
    release = load_table(EXAMPLE / "release.csv")
    for qi, specs, found in ((["zip"], policy.attributes, "['zip'] and ['salary', 'disease']"),
                             (["zip", "age"], policy.attributes[::-1], "['zip', 'age'] and ['disease', 'salary']")):
        classes, tables = count_tables(release, qi, specs)
        with pytest.raises(PolicyError) as caught:
            measure_tables(classes, tables, policy.question, source="embedded count tables")
        assert str(caught.value) == ("embedded count tables: expected count tables of the quasi-identifiers "
                                     f"['zip', 'age'] and the attributes ['salary', 'disease'], found {found}")


cells = st.one_of(st.none(), st.sampled_from(["a", "b", "<x>", "{{ 7*7 }}", "\u202eevil", "é"]))
numbers = st.sampled_from(["1", "2.5", "9007199254740993", "-0.125", "1e3"])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(cells, st.sampled_from(["x", "y"]), numbers, st.sampled_from(["p", "q", "r"]), cells),
                min_size=1, max_size=25))
def test_round_trip_preserves_every_measurement(rows: list[tuple]) -> None:
    """Hypothesis: any table (missing QI values, exact numbers beyond 2^53, joint and excluded values) re-measures identically."""
    rows = [*rows, ("a", "x", "1", "p", "b")]  # every attribute has a value
    frame = pd.DataFrame(rows, columns=["q1", "q2", "salary", "disease", "extra"], dtype=object)
    specs = (AttributeSpec(("salary",), kind="numerical"), AttributeSpec(("disease",)),
             AttributeSpec(("extra",), missing="exclude"), AttributeSpec(("disease", "salary")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = measure(frame, Question.of(["q1", "q2"], specs))
        classes, tables = count_tables(frame, ["q1", "q2"], specs)
    document = encode_counts(classes, tables)
    wire = json.loads(canonical(document))
    assert wire == json.loads(canonical(encode_counts(*decode_counts(wire))))
    again = measure_tables(*decode_counts(wire))
    assert again.to_json() == report.to_json()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from(["x", "y"]), st.sampled_from(["p", "q"])),
                min_size=1, max_size=30), st.randoms(use_true_random=False))
def test_the_encoding_does_not_depend_on_the_row_order(rows: list[tuple], shuffle) -> None:
    """Hypothesis: classes are numbered by their values, so any row order gives the same bytes."""
    specs = (AttributeSpec(("s",)),)
    frame = pd.DataFrame(rows, columns=["q1", "q2", "s"], dtype=object)
    order = list(range(len(rows)))
    shuffle.shuffle(order)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = canonical(encode_counts(*count_tables(frame, ["q1", "q2"], specs)))
        second = canonical(encode_counts(*count_tables(frame.iloc[order], ["q1", "q2"], specs)))
    assert first == second


def test_exact_values_keep_their_type() -> None:
    frame = pd.DataFrame({"q": ["a", "a"], "s": ["9007199254740993", "2.50"]}, dtype=object)
    classes, tables = count_tables(frame, ["q"], [AttributeSpec(("s",), kind="numerical")])
    document = encode_counts(classes, tables)
    assert document["attributes"][0]["values"] == [{"decimal": "2.5"}, {"int": "9007199254740993"}]
    assert decode_counts(document)[1][0].values == (Decimal("2.5"), 9007199254740993)


def test_malformed_value_form_is_named() -> None:
    frame = pd.DataFrame({"q": ["a"], "s": ["x"]}, dtype=object)
    document = encode_counts(*count_tables(frame, ["q"], [AttributeSpec(("s",))]))
    document["attributes"][0]["values"] = [{"complex": "1j"}]
    with pytest.raises(EmbeddedCountsError, match="unknown value form"):
        decode_counts(document)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=5)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=3), children, max_size=4)
    | st.lists(st.integers(-(2**53) + 1, 2**53 - 1), max_size=80),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_canonical_is_rfc8785(document) -> None:
    """The fast path for integer arrays and the member order give exactly rfc8785's bytes."""
    import rfc8785

    assert canonical(document) == rfc8785.dumps(document)


def test_canonical_orders_members_by_utf16_code_units() -> None:
    import rfc8785

    document = {"\U0001f600": 1, "\uff61": 2, "a": [1, 2, 3], "b": [True, 1], "c": [2**60]}
    with pytest.raises(rfc8785.IntegerDomainError):
        rfc8785.dumps({"c": [2**60]})
    with pytest.raises(rfc8785.IntegerDomainError):
        canonical(document)
    del document["c"]
    assert canonical(document) == rfc8785.dumps(document)
    assert canonical(document).index("\U0001f600".encode()) < canonical(document).index("\uff61".encode())
