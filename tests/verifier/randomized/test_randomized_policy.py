"""Requirements on randomized models in a policy decide the exit code of ``privcert audit`` exactly.

Levels come from the bundled example (examples/randomized: publisher mode measures
ε-LDP = ln(5), (50,t) = 625/176, (10,ε) = ln(35024/34575); auditor mode measures ln(5) and is
guaranteed (50,t) ≤ 49/10) and from a Laplace mechanism whose ε-LDP is exactly 1 but known
only between bounds ~2^-380 apart.
"""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from privcert.cli import app

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "randomized"
runner = CliRunner()

HEAD = """[data]
qi = ["age", "zip"]
path = "{data}"

[sensitive.disease]
kind = "categorical"
"""


def audit(tmp_path: Path, requirements: str, mode: str = "publisher", text: bool = False) -> tuple[int, dict, str]:
    """Exit code, JSON document and (with ``text``) the plain output of an audit of the example."""
    for name in ("original.csv", "release.csv", "mechanism.csv"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    data = "original.csv" if mode == "publisher" else "release.csv"
    policy = tmp_path / "policy.toml"
    policy.write_text(HEAD.format(data=data) + requirements +
                      f'\n[mechanism]\nfile = "mechanism.csv"\nattribute = "disease"\nmode = "{mode}"\n')
    result = runner.invoke(app, ["audit", "--policy", str(policy), "--json", "-"])
    document = json.loads(result.stdout) if result.stdout.startswith("{") else {}
    if not text:
        return result.exit_code, document, result.stderr
    plain = runner.invoke(app, ["audit", "--policy", str(policy)], env={"COLUMNS": "400"})
    return result.exit_code, document, plain.stdout + plain.stderr


def require(model: str, threshold: str, k: int | None = None) -> str:
    return (f'[[require]]\nmodel = "{model}"\nattribute = "disease"\nthreshold = "{threshold}"\n'
            + (f"k = {k}\n" if k is not None else ""))


def verdicts(document: dict) -> list[tuple[str, str, str]]:
    return [(m["model"], m["threshold"], m["verdict"]) for m in document["measurements"]]


def test_bundled_examples_pass() -> None:
    for name in ("publisher.toml", "auditor.toml", "laplace.toml"):
        result = runner.invoke(app, ["audit", "--policy", str(EXAMPLE / name), "--json", "-"])
        assert result.exit_code == 0, result.output
        assert all(m["verdict"] == "pass" for m in json.loads(result.stdout)["measurements"])


@pytest.mark.parametrize(
    ("requirement", "code", "verdict"),
    [
        (require("ldp", "ln(5)"), 0, "pass"),  # e^ε = 5 ≤ 5, compared as rationals
        (require("ldp", "ln(499/100)"), 1, "fail"),
        (require("ldp", "1.6094379124341004"), 0, "pass"),  # ln 5 = 1.60943791243410037460...
        (require("ldp", "1.6094379124341003"), 1, "fail"),
        (require("kt_closeness", "625/176", 50), 0, "pass"),  # exactly at the level
        (require("kt_closeness", "3.55", 50), 1, "fail"),
        (require("k_eps_dp", "ln(35024/34575)", 10), 0, "pass"),
        (require("k_eps_dp", "ln(35023/34575)", 10), 1, "fail"),
        (require("dp", "e^(-6)"), 0, "pass"),  # ln(351824/351375) ≈ 0.00127702 < e^-6 ≈ 0.00247875
        (require("stochastic_t_closeness", "357411/327500"), 0, "pass"),
        (require("stochastic_t_closeness", "1.09"), 1, "fail"),
    ],
)
def test_publisher_requirements_decide_the_exit_code(tmp_path: Path, requirement: str, code: int, verdict: str) -> None:
    exit_code, document, text = audit(tmp_path, requirement, text=verdict == "fail")
    assert exit_code == code, text
    assert verdicts(document)[0][2] == verdict
    assert verdict == "pass" or "FAIL" in text


def test_auditor_mode_passes_on_guarantees_and_is_undecided_beyond_them(tmp_path: Path) -> None:
    """Auditor: ε-LDP = ln(5) measured; (50,t) guaranteed ≤ 49/10 (Thm. 3 corrected), the lower bound is 1."""
    exit_code, document, _ = audit(tmp_path, require("kt_closeness", 5, 50), mode="auditor")
    assert exit_code == 0 and verdicts(document) == [("kt_closeness", "5", "pass")]
    assert document["measurements"][0]["bounds"] == {"exact": False, "lower": "1", "upper": "49/10"}
    exit_code, document, text = audit(tmp_path, require("kt_closeness", "4.5", 50), mode="auditor", text=True)
    assert exit_code == 1 and verdicts(document) == [("kt_closeness", "9/2", "undecided")]
    assert "require[1] is undecided" in text and "between 1 and 49/10" in text and "UNDECIDED" in text
    exit_code, document, _ = audit(tmp_path, require("ldp", "ln(4)"), mode="auditor")
    assert exit_code == 1 and verdicts(document) == [("ldp", "ln(4)", "fail")]


def test_interval_levels_pass_fail_or_stay_undecided(tmp_path: Path) -> None:
    """Laplace, b = 1, values 0 and 1, boundary 0: e^ε = e, so ε = 1 exactly, known within ~2^-380."""
    (tmp_path / "data.csv").write_text("zip,x\n" + "a,0\nb,1\n" * 5)
    (tmp_path / "m.toml").write_text('noise = "laplace"\nscale = "1"\nboundaries = ["0"]\nvalues = ["0", "1"]\n')
    results = {}
    for threshold in ("1", "1.0001", "0.9999"):
        (tmp_path / "p.toml").write_text(
            f'[data]\nqi = ["zip"]\npath = "data.csv"\n\n[sensitive.x]\nkind = "numerical"\n\n'
            f'[[require]]\nmodel = "ldp"\nattribute = "x"\nthreshold = "{threshold}"\n\n'
            '[mechanism]\nfile = "m.toml"\nattribute = "x"\n')
        result = runner.invoke(app, ["audit", "--policy", str(tmp_path / "p.toml"), "--json", "-"])
        (check,) = json.loads(result.stdout)["measurements"]
        results[threshold] = (result.exit_code, check["verdict"])
        assert check["bounds"]["exact"] is False
    assert results == {"1": (1, "undecided"), "1.0001": (0, "pass"), "0.9999": (1, "fail")}


@pytest.mark.parametrize(
    ("requirement", "message"),
    [
        ('[[require]]\nmodel = "kt_closeness"\nattribute = "disease"\nthreshold = 2\n', "require[1].k"),
        (require("stochastic_t_closeness", "0.5"), "require[1].threshold: expected a number ≥ 1"),
        (require("ldp", "-1"), "require[1].threshold: expected a number ≥ 0"),
        (require("kt_closeness", "2", 2000), "expected an integer k in [1, N-1] = [1, 1999]"),
    ],
)
def test_bad_randomized_requirements_exit_2(tmp_path: Path, requirement: str, message: str) -> None:
    exit_code, _, text = audit(tmp_path, requirement)
    assert exit_code == 2 and message in text, text


def test_randomized_requirement_needs_a_mechanism(tmp_path: Path) -> None:
    shutil.copy(EXAMPLE / "original.csv", tmp_path / "original.csv")
    (tmp_path / "p.toml").write_text(HEAD.format(data="original.csv") + require("ldp", "1"))
    result = runner.invoke(app, ["audit", "--policy", str(tmp_path / "p.toml")])
    assert result.exit_code == 2 and "give the mechanism ([mechanism] in the policy, or --mechanism FILE)" in result.stderr
    result = runner.invoke(app, ["audit", "--policy", str(tmp_path / "p.toml"), "--mechanism", str(EXAMPLE / "mechanism.csv")])
    assert result.exit_code == 1 and "ldp" in result.stdout  # ln(5) > 1


def test_stochastic_emd_requirement(tmp_path: Path) -> None:
    """Equal-distance stochastic t-closeness of the example: decided at its exact level."""
    from verifier.measure import measure
    from verifier.question import Question
    from verifier.randomized.mechanism import load_mechanism
    from verifier.randomized.stochastic_emd import stochastic_emd
    from verifier.tables.counts import AttributeSpec
    from verifier.tables.load import load_table

    question = Question.of(("age", "zip"), (AttributeSpec(("disease",)),))
    table = measure(load_table(EXAMPLE / "original.csv"), question).tables["disease"]
    level = stochastic_emd(table, load_mechanism(EXAMPLE / "mechanism.csv"), "equal").level.exact
    passing = require("stochastic_t_closeness", level) + 'distance = "equal"\n'
    exit_code, document, _ = audit(tmp_path, passing)
    assert exit_code == 0 and document["measurements"][0]["distance"] == "equal"
    assert document["measurements"][0]["exact"] == level
    below = Fraction(level) - Fraction(1, 10**9)
    exit_code, document, _ = audit(tmp_path, require("stochastic_t_closeness", str(below)) + 'distance = "equal"\n')
    assert exit_code == 1 and document["measurements"][0]["verdict"] == "fail"


def test_auditor_requirement_the_theory_cannot_reach_is_undecided(tmp_path: Path) -> None:
    """The EMD version of stochastic t-closeness is implied by nothing: the auditor cannot certify it."""
    exit_code, document, text = audit(tmp_path, require("stochastic_t_closeness", "1/2") + 'distance = "equal"\n',
                                      mode="auditor", text=True)
    assert exit_code == 1 and verdicts(document) == [("stochastic_t_closeness", "1/2", "undecided")]
    assert document["measurements"][0]["reason"].startswith("stochastic_t_closeness is not known exactly")
    assert "UNDECIDED" in text
