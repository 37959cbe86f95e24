"""``theory.answers.explain`` and ``privcert theory explain``: the guarantees an audit implies, on the demo data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sympy
from typer.testing import CliRunner

from privcert.cli import app
from theory.answers.audit_levels import AuditLevels, _level
from theory.answers.explain import DEF5_READING, explain, explain_file
from theory.definitions import definitions
from verifier.errors import DataError

runner = CliRunner()
DATA = Path(__file__).resolve().parents[2] / "privcert" / "data"


@pytest.fixture(scope="module")
def audit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("audit") / "audit.json"
    result = runner.invoke(app, ["audit", str(DATA / "release.csv"), "--policy", str(DATA / "policy.toml"),
                                 "--json", str(out)])
    assert result.exit_code == 0, result.output
    return out


_TESTED = frozenset({"privcert:k_risk", "privcert:entropy_to_distinct", "privcert:alpha_to_entropy"})
"""The demo's steps whose claims are argued and confirmed on a seeded sample (docs/theory.md, "Tested")."""


def _step(claim: str, premise: str, conclusion: str) -> dict[str, str]:
    return {"claim": claim, "status": "tested" if claim in _TESTED else "proven", "from": premise, "to": conclusion}


def test_demo_audit_json(audit: Path) -> None:
    """Li et al. 2007, Table 5 as audited by the demo policy: N = 9, classes of 3, recursive c = 1/2 at l = 2.

    c = 1/2 gives α ≤ c/(1 + c) = 1/3, hence entropy l ≥ 1/α = 3; entropy l = 3 gives distinct l ≥ 3;
    k = 3 and R = 1/3 imply each other; k = 3 gives no sample unique and k-map K ≥ 3, R = 1/3 journalist and
    marketer risk at most 1/3.
    """
    found = explain_file(audit).to_json()
    implied = [item for item in found if item["implied"]]
    assert implied == [
        {"definition": "k_anonymity", "implied": True, "level": "3", "readable": "k = 3",
         "from": {"model": "prosecutor_risk", "attribute": None, "level": "1/3"},
         "derivation": [_step("privcert:k_risk", "prosecutor_risk", "k_anonymity")]},
        {"definition": "prosecutor_risk", "implied": True, "level": "1/3", "readable": "R = 1/3 ≈ 0.3333",
         "from": {"model": "k_anonymity", "attribute": None, "level": "3"},
         "derivation": [_step("privcert:k_risk", "k_anonymity", "prosecutor_risk")]},
        {"definition": "alpha_k_anonymity", "implied": True, "level": "1/3", "readable": "α = 1/3 ≈ 0.3333",
         "from": {"model": "recursive_cl_diversity", "attribute": "disease", "level": "1/2"},
         "derivation": [_step("privcert:recursive_to_alpha", "recursive_cl_diversity", "alpha_k_anonymity")]},
        {"definition": "distinct_l_diversity", "implied": True, "level": "3", "readable": "l = 3",
         "from": {"model": "entropy_l_diversity", "attribute": "disease", "level": "3"},
         "derivation": [_step("privcert:entropy_to_distinct", "entropy_l_diversity", "distinct_l_diversity")]},
        {"definition": "entropy_l_diversity", "implied": True, "level": "3", "readable": "l = 3",
         "from": {"model": "recursive_cl_diversity", "attribute": "disease", "level": "1/2"},
         "derivation": [_step("privcert:recursive_to_alpha", "recursive_cl_diversity", "alpha_k_anonymity"),
                        _step("privcert:alpha_to_entropy", "alpha_k_anonymity", "entropy_l_diversity")]},
        {"definition": "sample_uniqueness", "implied": True, "level": "0", "readable": "u = 0",
         "from": {"model": "k_anonymity", "attribute": None, "level": "3"},
         "derivation": [_step("privcert:k_to_uniqueness", "k_anonymity", "sample_uniqueness")]},
        {"definition": "marketer_risk", "implied": True, "level": "1/3", "readable": "R_M = 1/3 ≈ 0.3333",
         "from": {"model": "prosecutor_risk", "attribute": None, "level": "1/3"},
         "derivation": [_step("privcert:prosecutor_to_journalist", "prosecutor_risk", "journalist_risk"),
                        _step("privcert:journalist_to_marketer", "journalist_risk", "marketer_risk")]},
        {"definition": "journalist_risk", "implied": True, "level": "1/3", "readable": "R_J = 1/3 ≈ 0.3333",
         "from": {"model": "prosecutor_risk", "attribute": None, "level": "1/3"},
         "derivation": [_step("privcert:prosecutor_to_journalist", "prosecutor_risk", "journalist_risk")]},
        {"definition": "k_map", "implied": True, "level": "3", "readable": "K = 3",
         "from": {"model": "k_anonymity", "attribute": None, "level": "3"},
         "derivation": [_step("privcert:k_to_k_map", "k_anonymity", "k_map")]},
    ]
    nothing = {item["definition"]: item["nothing"] for item in found if not item["implied"]}
    assert set(nothing) == {d.id for d in definitions()} - {
        "k_anonymity", "prosecutor_risk", "alpha_k_anonymity", "distinct_l_diversity", "entropy_l_diversity",
        "recursive_cl_diversity", "t_closeness", "sample_uniqueness", "marketer_risk", "journalist_risk", "k_map"}
    assert nothing["ldp"].startswith("nothing: a deterministic release is never ε-LDP")
    assert nothing["dp"] == ("nothing: no finite multiplicative t-closeness or δ-disclosure level to read ε-DP from "
                             f"({DEF5_READING}; claim privcert:deterministic_dp)")
    assert nothing["multiplicative_t_closeness"] == (
        "nothing: distinct_l_diversity does not imply multiplicative_t_closeness (claim li2007:skewness_mult)")
    assert all(set(item) == {"definition", "implied", "nothing"} for item in found if not item["implied"])


def test_demo_audit_text(audit: Path) -> None:
    result = runner.invoke(app, ["theory", "explain", str(audit)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "release: N = 9 records, smallest class k = 3; 8 finite measured level(s)"
    assert lines[1:4] == ["k_anonymity: implied, k = 3", "  from prosecutor_risk = 1/3 ≈ 0.3333",
                          "  prosecutor_risk → k_anonymity  [privcert:k_risk, tested]"]
    assert "alpha_k_anonymity on disease: implied, α = 1/3 ≈ 0.3333" in lines
    assert "multiplicative_t_closeness: nothing: distinct_l_diversity does not imply multiplicative_t_closeness " \
           "(claim li2007:skewness_mult)" in lines
    headlines = [line.split(":")[0].split(" on ")[0] for line in lines[1:] if not line.startswith("  ")]
    assert set(headlines) | {"recursive_cl_diversity", "t_closeness"} == {d.id for d in definitions()}
    assert "log(" not in result.stdout and "oo" not in result.stdout.split()
    as_json = runner.invoke(app, ["theory", "explain", str(audit), "--json"])
    assert json.loads(as_json.stdout) == explain_file(audit).to_json()


def _audit(*measurements: dict) -> AuditLevels:
    return AuditLevels.from_json({"rows": 10, "classes": 2, "measurements": list(measurements)})


def _row(model: str, exact: str, attribute: str | None = "s", **parameters: object) -> dict:
    status = "infinite" if exact == "inf" else "finite"
    return {"model": model, "attribute": attribute, "exact": exact, "status": status, "parameters": parameters}


def test_delta_implies_the_multiplicative_family() -> None:
    """δ = ln 2 over N = 10 records in classes of 5: t = 2, EMD ≤ 1/3, β ≤ 1, and ε-DP (Def. 5 reading)
    e^ε ≤ max(10/9, 9·2/5) = 18/5 (Ekenstedt et al. 2022, Lemma 2(3) corrected, Thm. 4(1), Lemma 3(3))."""
    found = explain(_audit(_row("delta_disclosure", "ln(2)"), _row("k_anonymity", "5", None)))
    levels = {item.definition: item for item in found.implied}
    assert levels["multiplicative_t_closeness"].level == 2
    assert levels["t_closeness"].level == sympy.Rational(1, 3)
    assert levels["basic_beta_likeness"].level == 1
    assert levels["delta_disclosure_present"].level == sympy.log(2)
    assert levels["dp"].level == sympy.log(sympy.Rational(18, 5))
    assert levels["dp"].readable == f"ε = ln(18/5) ≈ 1.281 (e^ε = 18/5 ≈ 3.6); {DEF5_READING}"
    assert [s.claim for s in levels["dp"].derivation] == [
        "privcert:delta_to_mult", "ekenstedt2022:lemma2_3c", "ekenstedt2022:thm4_1", "ekenstedt2022:lemma3_3"]
    assert levels["kt_closeness"].size == 9 and levels["kt_closeness"].level == sympy.Rational(18, 5)
    nothing = {item.definition: item.reason for item in found.nothing}
    assert "ldp" in nothing and "dp" not in nothing


def test_infinite_measurement_is_said() -> None:
    found = explain(_audit(_row("multiplicative_t_closeness", "inf", bucketing="distinct values")))
    nothing = {item.definition: item.reason for item in found.nothing}
    assert nothing["multiplicative_t_closeness"] == "nothing: measured infinite on s (no finite level holds)"


def test_levels_are_read_without_evaluating_text() -> None:
    assert _level("3*2^(1/3)/2", "x") == 3 * sympy.Integer(2) ** sympy.Rational(1, 3) / 2
    assert _level("ln(9/4)", "x") == sympy.log(sympy.Rational(9, 4))
    for bad in ("__import__('os')", "9^9^9", "2**3", "", "1e999999999"):
        with pytest.raises(DataError):
            _level(bad, "x")


@pytest.mark.parametrize("content, message", [
    (None, "no such audit file"),
    ("{not json", "not JSON"),
    ('{"rows": 3}', "expected an audit with 'rows' (an integer) and 'measurements' (a list)"),
    ('{"rows": 3, "measurements": [{"model": "k_anonymity"}]}', "measurements[0]: expected an object with 'model' and 'exact'"),
    ('{"rows": 3, "measurements": [{"model": "k_anonymity", "exact": "x+1", "status": "finite"}]}', "measurements[0].exact"),
])
def test_bad_audit_file_exits_2(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "audit.json"
    if content is not None:
        path.write_text(content)
    result = runner.invoke(app, ["theory", "explain", str(path)])
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.output


def test_explain_reads_the_randomized_levels_of_measure_json(tmp_path: Path) -> None:
    """``measure --mechanism --json`` writes the randomized levels under ``randomized.measurements``: they are
    premises (ε-LDP was "nothing: k_anonymity does not imply ldp" though it was measured)."""
    (tmp_path / "m.csv").write_text("value,a,b,c\na,2/3,1/6,1/6\nb,1/6,2/3,1/6\nc,1/6,1/6,2/3\n")
    (tmp_path / "r.csv").write_text("q,s\nx,a\nx,b\nx,a\ny,c\ny,a\ny,b\n")
    measured = runner.invoke(app, ["measure", str(tmp_path / "r.csv"), "--qi", "q", "--sensitive", "s", "--mechanism",
                                   str(tmp_path / "m.csv"), "--k", "1", "--json", str(tmp_path / "out.json")])
    assert measured.exit_code == 0, measured.output
    found = {item["definition"]: item for item in explain_file(tmp_path / "out.json").to_json()}
    for name in ("ldp", "dp", "kt_closeness", "k_eps_dp", "stochastic_t_closeness"):
        assert found[name]["implied"], found[name]
    assert found["dp"]["level"] == "ln(3/2)"
    text = runner.invoke(app, ["theory", "explain", str(tmp_path / "out.json")]).stdout
    assert "ldp: nothing" not in text and "7 finite measured level(s)" in text.splitlines()[0]
    # δ measured infinite on the data as read says nothing of the mechanism's release
    assert found["delta_disclosure"]["nothing"].startswith("nothing: measured on the data as read")
