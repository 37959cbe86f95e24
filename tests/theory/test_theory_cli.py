"""``privcert theory``: end to end through the CLI, including the JSON contract."""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _processes import CEILING, searching
from privcert.cli import app
from theory.claims.catalog import claim_ids
from theory.claims.claim import KINDS, STATUSES
from theory.definitions import definition_ids, definitions

runner = CliRunner()


@pytest.fixture(scope="module")
def claims_json() -> list[dict]:
    result = runner.invoke(app, ["theory", "claims", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_claims_json_contract(claims_json: list[dict]) -> None:
    assert [row["id"] for row in claims_json] == list(claim_ids())
    for row in claims_json:
        assert {"id", "source", "kind", "printed", "status", "corrected", "counterexample", "checked_by"} <= set(row)
        assert row["kind"] in KINDS and row["status"] in STATUSES
        assert row["source"]["paper"].endswith(("2007", "2015", "2022", "(derived here)")) and row["source"]["item"]
        assert isinstance(row["printed"], str) and row["printed"]
        assert row["corrected"] is None or isinstance(row["corrected"], str)
        assert isinstance(row["checked_by"], list) and row["checked_by"]
        if row["status"] in ("refuted", "corrected"):
            assert row["counterexample"] is not None


def test_claims_json_counterexample_is_a_table(claims_json: list[dict]) -> None:
    row = next(r for r in claims_json if r["id"] == "ekenstedt2022:thm3a")
    assert row["status"] == "corrected"
    assert row["corrected"] == "Eq(t, (k + (N - k)*exp(epsilon))/N)"
    assert set(row["counterexample"]) == {"probs", "classes"}


def test_claims_text_lists_why() -> None:
    result = runner.invoke(app, ["theory", "claims"])
    assert result.exit_code == 0
    assert "ekenstedt2022:thm3a" in result.stdout and "why:" in result.stdout


def test_implies_paper_example_json() -> None:
    result = runner.invoke(
        app, ["theory", "implies", "ldp", "kt_closeness", "--param", "N=100", "--param", "k=5", "--level", "0.7", "--json"]
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    # (5 + 95 e^0.7)/100 = 1.9630651 (see tests/theory/test_theory_graph.py for the derivation).
    assert payload["holds"] == "yes"
    assert math.isclose(payload["value_number"], 1.9630651, rel_tol=1e-7)
    assert payload["path"][0]["claim"] == "ekenstedt2022:thm3a" and payload["path"][0]["to_size"] == "5"


def test_implies_refuses_a_smallest_class_no_partition_has() -> None:
    """3 records cannot be split into classes whose smallest has 2 records: exit 2, not "unknown"."""
    result = runner.invoke(app, ["theory", "implies", "ldp", "stochastic_t_closeness", "--param", "N=3", "--param", "k=2"])
    assert result.exit_code == 2
    assert "no partition of N = 3 records has a smallest class of k = 2" in result.stderr


def test_implies_answers_in_words() -> None:
    """Headline first; a path valid only for N = 2 says so (not "yes"); levels with symbol and e^ε."""
    only = runner.invoke(app, ["theory", "implies", "dp", "ldp", "--level", "1"])
    assert only.exit_code == 0, only.output
    lines = only.stdout.splitlines()
    assert lines[0] == "dp ⇒ ldp: only if N = 2"
    assert "guaranteed: ε = 2 (e^ε = e^2 ≈ 7.389) for dp at ε = 1 (e^ε = e ≈ 2.718)" in lines
    assert "log(" not in only.stdout and "oo" not in only.stdout and "Eq(" not in only.stdout
    many = runner.invoke(app, ["theory", "implies", "dp", "ldp", "--level", "1", "--param", "N=100"])
    assert many.stdout.splitlines()[0] == "dp ⇒ ldp: no"
    none = runner.invoke(app, ["theory", "implies", "t_closeness", "dp"])
    assert none.stdout.splitlines()[0] == "t_closeness ⇒ dp: no"
    assert "privcert:emd_not_dp" in none.stdout
    unknown = runner.invoke(app, ["theory", "implies", "basic_beta_likeness", "kt_closeness"])
    assert unknown.stdout.splitlines()[0] == "basic_beta_likeness ⇒ kt_closeness: unknown: no claim connects them"


def test_witness_levels_in_their_own_units() -> None:
    """The bound is ε and so is the conclusion's level (ln of the measured ratio), never e^ε."""
    result = runner.invoke(app, ["theory", "witness", "multiplicative_t_closeness", "ldp", "--bound", "5",
                                 "--param", "N=4", "--param", "k=2"])
    payload = json.loads(result.stdout)
    assert (payload["bound"], payload["premise_level"], payload["conclusion_level"]) == ("5", "1", "ln(299)")
    assert payload["exceeds"] and "ldp at ε = ln(299)" in payload["summary"]


def test_implies_no_with_evidence() -> None:
    result = runner.invoke(app, ["theory", "implies", "multiplicative_t_closeness", "ldp", "--param", "N=6"])
    assert result.exit_code == 0
    assert ": no" in result.stdout and "ekenstedt2022:thm1" in result.stdout


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["implies", "ldpx", "dp"], "unknown definition id 'ldpx'"),
        (["implies", "ldp", "dp", "--param", "N"], "expected NAME=VALUE"),
        (["implies", "ldp", "dp", "--param", "N=ten"], "expected an integer or true/false"),
        (["implies", "ldp", "dp", "--level", "abc"], "expected a number"),
        (["witness", "nope", "ldp", "--bound", "2"], "unknown definition id 'nope'"),
        (["witness", "ldp", "kt_closeness", "--bound", "2", "--param", "k=2"], "no witness family"),
        (["refute", "ekenstedt2022:thm99"], "unknown claim id 'ekenstedt2022:thm99'"),
        (["implies", "dp", "ldp", "--level", "__import__('os').system('touch PWNED')"], "expected a number such as"),
        (["implies", "dp", "ldp", "--level", "10**10**10"], "expected a number such as"),
        (["implies", "dp", "ldp", "--level", "-1"], "--level: expected a number ≥ 0"),
        (["witness", "multiplicative_t_closeness", "ldp", "--bound", "1e308"], "beyond the magnitude"),
        (["implies", "ldp", "stochastic_t_closeness", "--level", "1"], "depends on N, k; give each as a parameter NAME=VALUE"),
        (["implies", "multiplicative_t_closeness", "ldp", "--level", "1/2"], "lies in [1, ∞), found 1/2"),
        (["map", "--out", "map.txt"], "expected a file ending in .svg, .png, .pdf"),
        (["refute", "ekenstedt2022:thm4_1", "--max-n", "100"], "less than or equal to 8"),
    ],
)
def test_bad_input_exits_2(args: list[str], expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["theory", *args])
    assert result.exit_code == 2
    assert expected in result.stderr
    assert list(tmp_path.iterdir()) == []  # nothing evaluated, nothing written
    if "definition id" in expected:
        assert all(i in result.stderr for i in definition_ids())


def test_witness_json() -> None:
    result = runner.invoke(
        app, ["theory", "witness", "multiplicative_t_closeness", "ldp", "--bound", "3", "--param", "N=4", "--param", "k=2"]
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["premise_level"] == "1"  # every class averages μ: multiplicative 1-closeness
    assert len(payload["table"]["probs"]) == 4


def test_refute_small_search() -> None:
    result = runner.invoke(app, ["theory", "refute", "ekenstedt2022:thm4_1", "--max-n", "3", "--timeout", "5"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["id"] == "ekenstedt2022:thm4_1" and payload["status"] in STATUSES


def test_map_svg(tmp_path: Path) -> None:
    out = tmp_path / "map.svg"
    result = runner.invoke(app, ["theory", "map", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    for item in definitions():
        assert item.name in text
    assert "ekenstedt2022:thm3a" in text and "(corrected)" in text and "(refuted)" in text


def test_ctrl_c_stops_a_z3_search_promptly() -> None:
    """Z3 cancels only its current check on SIGINT unless privcert turns its handler off."""
    process = subprocess.Popen(
        [sys.executable, "-m", "privcert", "theory", "refute", "domingoferrer2015:prop1", "--max-n", "8", "--timeout", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    searching(process)  # inside the search (it runs for minutes at N <= 8)
    assert process.poll() is None
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=CEILING)
    assert process.returncode == 130  # stopped by the signal: a search that ran on would end in 0 or 1
