"""``privcert.api``'s theory answers and certificate writing: typed results, their JSON, their errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from privcert.api import (
    QueryError,
    audit,
    explain,
    implication_map,
    implies,
    verify,
    witness,
    write_certificate,
)
from privcert.cli import app
from reports.signing import new_key_pair
from verifier.errors import PolicyError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_implies_is_a_typed_answer_with_sentences_and_sources() -> None:
    answer = implies("k_anonymity", "prosecutor_risk", level=5)
    assert answer.to_json() == {
        "premise": "k_anonymity", "conclusion": "prosecutor_risk", "holds": "yes", "headline": "yes",
        "sentence": "Yes: k-anonymity at k implies prosecutor re-identification risk at R ≤ 1/k.",
        "f": "1/k", "bound": "R ≤ 1/k", "level": "5", "value": "1/5", "value_number": 0.2,
        "guaranteed": "R = 1/5 ≈ 0.2 for k_anonymity at k = 5", "conditions": [], "when": "always",
        "path": [{"claim": "privcert:k_risk", "source": "privcert (derived here), Sec. theory, k-anonymity ⇔ prosecutor risk",
                  "reference": "privcert: derived here: relations no paper states, each proved in its claim's docstring "
                               "and checked against the verifier's exact measures (theory/papers/derived/claims.py, "
                               "docs/theory.md).",
                  "from": "k_anonymity", "to": "prosecutor_risk", "from_size": None, "to_size": None, "f": "1/k",
                  "formula": "1/k", "value": "1/5",
                  "sentence": "k-anonymity at k implies prosecutor re-identification risk at R ≤ 1/k"}],
        "evidence": [], "evidence_sources": [], "detail": "privcert:k_risk", "witness": None, "witness_error": None,
        "level_witness": None}


def test_a_no_cites_its_paper_by_authors_and_year() -> None:
    answer = implies("k_anonymity", "distinct_l_diversity")
    assert (answer.holds, answer.headline, answer.sentence) == (
        "no", "no", "No: k-anonymity does not imply distinct l-diversity.")
    assert answer.to_json()["evidence_sources"] == [{
        "number": 60, "claim": "machanavajjhala2007:homogeneity",
        "source": "Machanavajjhala et al. 2007, Sec. 3.1, homogeneity attack", "paper": "Machanavajjhala et al. 2007",
        "reference": "Ashwin Machanavajjhala, Daniel Kifer, Johannes Gehrke and Muthuramakrishnan Venkitasubramaniam. "
                     "\"ℓ-diversity: Privacy beyond k-anonymity.\" ACM Transactions on Knowledge Discovery from Data "
                     "1(1), article 3, 2007.",
        "reference_key": "machanavajjhala2007", "premise": "k_anonymity", "conclusion": "distinct_l_diversity",
        "kind": "non_implication", "f": None, "bound": "does not imply", "when": "always", "status": "proven",
        "reverse": False, "label": "[machanavajjhala2007:homogeneity] k_anonymity ⇏ distinct_l_diversity",
        "sentence": "k-anonymity does not imply distinct l-diversity"}]


def test_unknown_says_no_claim_connects_them() -> None:
    answer = implies("basic_beta_likeness", "kt_closeness")
    assert (answer.holds, answer.headline, answer.sentence) == (
        "unknown", "unknown: no claim connects them",
        "Unknown: no claim connects basic β-likeness and (k,t)-closeness.")


@pytest.mark.parametrize(("question", "message"), [
    (("ldp", "stochastic_t_closeness", None, 1),
     "level: the guaranteed level of stochastic_t_closeness depends on N, k; give each as a parameter NAME=VALUE"),
    (("multiplicative_t_closeness", "ldp", None, "1/2"),
     "level: the t of multiplicative_t_closeness lies in [1, ∞), found 1/2"),
    (("ldp", "stochastic_t_closeness", {"N": 3, "k": 2}, None),
     "no partition of N = 3 records has a smallest class of k = 2"),
])
def test_a_question_that_cannot_be_answered_is_refused(question: tuple, message: str) -> None:
    import sympy

    premise, conclusion, params, level = question
    with pytest.raises(QueryError) as refused:
        implies(premise, conclusion, params, None if level is None else sympy.Rational(level))
    assert message in str(refused.value)
    assert "--" not in str(refused.value)


def test_an_unknown_definition_is_refused_with_the_valid_ids() -> None:
    with pytest.raises(QueryError, match="unknown definition id 'ldpx'.*k_anonymity"):
        implies("ldpx", "dp")


def test_a_bound_brings_a_witness_when_it_does_not_follow() -> None:
    answer = implies("multiplicative_t_closeness", "ldp", {"N": 4, "k": 2}, bound=5)
    assert answer.witness == witness("multiplicative_t_closeness", "ldp", 5, {"N": 4, "k": 2})
    found = answer.to_json()["witness"]
    assert (found["bound"], found["premise_level"], found["conclusion_level"], found["exceeds"]) == (
        "5", "1", "ln(299)", True)
    assert found["table"] == {"probs": [["299/600", "301/600"], ["1/600", "599/600"], ["299/600", "301/600"],
                                        ["1/600", "599/600"]], "classes": [[0, 1], [2, 3]]}
    assert implies("k_anonymity", "prosecutor_risk", bound=5).witness is None  # it follows: no table is sought


def test_no_witness_is_a_message_not_a_table() -> None:
    answer = implies("ldp", "kt_closeness", {"N": 100, "k": 5}, bound=2)
    assert answer.holds == "yes" and answer.witness is None and answer.witness_error is None
    unsized = implies("basic_beta_likeness", "kt_closeness", bound=2)
    assert unsized.witness is None and unsized.witness_error == (
        "kt_closeness as conclusion needs a size: expected one of the parameters ['k_conclusion', 'k_t', 'k'], "
        "found []")
    uncovered = implies("basic_beta_likeness", "kt_closeness", {"k": 2}, bound=2)
    assert uncovered.witness is None and uncovered.witness_error is not None
    assert uncovered.witness_error.startswith("no witness family")


def test_the_map_as_data() -> None:
    found = implication_map()
    assert len(found.nodes) == 21 and [edge.number for edge in found.edges] == list(range(1, 70))
    risk = next(edge for edge in found.edges if edge.claim.claim == "privcert:k_risk")
    assert risk.to_json() | {"reference": None} == {
        "number": 46, "claim": "privcert:k_risk", "source": "privcert (derived here), Sec. theory, k-anonymity ⇔ "
        "prosecutor risk", "paper": "privcert (derived here)", "reference": None, "reference_key": "privcert",
        "premise": "k_anonymity", "conclusion": "prosecutor_risk", "kind": "implication", "f": "1/k",
        "bound": "R ≤ 1/k", "when": "always", "status": "tested", "reverse": False,
        "label": "[privcert:k_risk] k_anonymity → prosecutor_risk: 1/k (tested)",
        "sentence": "k-anonymity at k implies prosecutor re-identification risk at R ≤ 1/k (tested on a sample, not "
                    "proven)"}
    outgoing, incoming = found.around("k_anonymity")
    assert {edge.conclusion for edge in outgoing} == {"prosecutor_risk", "distinct_l_diversity", "dp", "ldp", "k_map",
                                                      "sample_uniqueness"}
    assert all(edge.conclusion == "k_anonymity" and edge.premise != "k_anonymity" for edge in incoming)
    with pytest.raises(QueryError, match="unknown definition id 'nope'"):
        found.around("nope")
    assert json.loads(json.dumps(found.to_json()))["bounds"]["k_anonymity"] == ["privcert:given_smallest_class: tested"]


def test_a_condition_that_is_an_assumption_reads_as_words() -> None:
    edge = next(e for e in implication_map().edges if e.claim.claim == "ekenstedt2022:thm1_exception")
    assert edge.when == "singleton classes"
    assert edge.sentence == ("multiplicative t-closeness (with k-anonymity) at t implies ε-local differential "
                             "privacy at ε ≤ ln(t^2) (when singleton classes)")


def test_the_map_drawn_without_its_key(tmp_path: Path) -> None:
    keyed = implication_map().draw(tmp_path / "map.svg").read_text(encoding="utf-8")
    bare = implication_map().draw(tmp_path / "bare.svg", key=False).read_text(encoding="utf-8")
    assert "numbers refer to the list below" in keyed and "proven implication" in keyed
    assert "numbers refer to the list below" not in bare and "proven implication" not in bare
    assert "k-anonymity" in bare


def test_the_cli_prints_the_map_as_json() -> None:
    result = CliRunner().invoke(app, ["theory", "map", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == json.loads(json.dumps(implication_map().to_json()))


def test_the_cli_implies_takes_a_bound() -> None:
    result = CliRunner().invoke(app, ["theory", "implies", "multiplicative_t_closeness", "ldp", "--param", "N=4",
                                      "--param", "k=2", "--bound", "5"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "multiplicative_t_closeness ⇒ ldp: no", "non-implication: ekenstedt2022:thm1",
        "witness (carrier_classes (Ekenstedt et al. 2022, Tables III/V generalised)): multiplicative_t_closeness at "
        "t = 1; ldp at ε = ln(299) ≈ 5.7 (e^ε = 299), beyond ε = 5 (e^ε = e^5 ≈ 148.4)"]


def test_explain_takes_an_audit() -> None:
    result = audit(EXAMPLES / "table4" / "release.csv", EXAMPLES / "table4" / "policy.toml")
    found = explain(result)
    assert found.records == 9
    assert any(item["definition"] == "prosecutor_risk" and item["implied"] for item in found.to_json())


def test_write_certificate_returns_what_it_wrote(tmp_path: Path) -> None:
    release, policy = EXAMPLES / "table4" / "release.csv", EXAMPLES / "table4" / "policy.toml"
    result = audit(release, policy)
    views = write_certificate(result, release, policy, html=tmp_path / "view.html")
    assert (views.path, views.html, views.pdf, views.signer, views.verify_command) == (
        None, tmp_path / "view.html", None, None, None)
    assert views.files == (tmp_path / "view.html",) and "<html" in (tmp_path / "view.html").read_text()
    private, public = new_key_pair()
    (tmp_path / "k.key").write_bytes(private)
    (tmp_path / "k.key.pub").write_text(public, encoding="utf-8")
    signed = write_certificate(result, release, policy, key=tmp_path / "k.key", out=tmp_path / "c.json")
    assert signed.files == (tmp_path / "c.json",)
    assert signed.verify_command == "privcert verify c.json --public-key k.key.pub"
    assert signed.to_json()["signer"] == signed.signer and signed.signer is not None
    assert verify(tmp_path / "c.json", tmp_path / "k.key.pub").exit_code(allow_fail=True) == 0


def test_write_certificate_refuses_a_key_without_a_file_in_its_own_words(tmp_path: Path) -> None:
    release, policy = EXAMPLES / "table4" / "release.csv", EXAMPLES / "table4" / "policy.toml"
    with pytest.raises(PolicyError) as refused:
        write_certificate(audit(release, policy), release, policy, key=tmp_path / "k.key")
    assert str(refused.value) == ("a signing key and a certificate file go together: give both, or neither for the "
                                  "views alone")
    assert list(tmp_path.iterdir()) == []
