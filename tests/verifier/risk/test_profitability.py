"""The re-identification game's payoffs (Wan et al. 2015) as ARX computes them, exactly."""

from __future__ import annotations

import base64
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from privcert.cli import app
from verifier.measure import measure
from verifier.question import Question
from verifier.risk.profitability import ARX_COSTS, CostBenefit, adversary_payoff, no_attack_k, publisher_payoff
from verifier.tables.counting import count_tables
from verifier.tables.counts import Classes

runner = CliRunner()


def _classes(values: list[str]) -> Classes:
    return count_tables(pd.DataFrame({"a": values}), ["a"], [])[0]


def _costs(gain: int | Fraction, cost: int | Fraction, benefit: int = 1200, loss: int = 300) -> CostBenefit:
    return CostBenefit(Fraction(benefit), Fraction(loss), Fraction(gain), Fraction(cost))


# classes z (3 records), x (2), y (1)
_RELEASE = ["z", "x", "z", "y", "x", "z"]


def test_the_publishers_payoff_of_each_class_and_of_the_release() -> None:
    found = publisher_payoff("profitability_prosecutor", _classes(_RELEASE), _costs(300, 4), "prosecutor")
    assert found.level.value == 1200 - 300  # the singleton y: attacked (300/1 - 4 > 0), loses L·1
    assert found.witness is not None and found.witness.qi == {"a": "y"}
    assert found.witness.numbers == {
        "release_payoff": 6 * 1200 - 300 * 3, "maximum_payoff": 7200, "profitable_payoff": 6300,
        "attacked_classes": 3, "attacked_records": 6, "unprofitable_classes": 0, "unprofitable_records": 0,
        "success_probability": Fraction(1), "adversary_payoff": Fraction(296)}
    assert found.parameters == {"publisher_benefit": 1200, "publisher_loss": 300, "adversary_gain": 300,
                                "adversary_cost": 4}


def test_a_class_that_pays_exactly_nothing_is_unprofitable_as_arx_suppresses_it() -> None:
    # B = 100, L = 300: y pays 100 - 300, x 100 - 150, z 100 - 100 = 0; ARX keeps a class only above 0
    found = publisher_payoff("profitability_prosecutor", _classes(_RELEASE), _costs(300, 4, 100, 300), "prosecutor")
    assert found.level.value == -200
    assert found.witness is not None
    numbers = found.witness.numbers
    assert (numbers["unprofitable_classes"], numbers["unprofitable_records"]) == (3, 6)
    assert numbers["release_payoff"] == 600 - 900
    assert numbers["profitable_payoff"] == 0


def test_an_unattacked_release_pays_the_full_benefit_and_names_the_first_class() -> None:
    # G/C = 1/2: no class is worth attacking
    found = publisher_payoff("profitability_prosecutor", _classes(_RELEASE), _costs(1, 2), "prosecutor")
    assert found.level.value == 1200
    assert found.witness is not None and found.witness.qi == {"a": "x"}
    assert found.witness.numbers["attacked_classes"] == 0


@pytest.mark.parametrize(("gain", "cost", "k"), [(300, 4, 76), (250, 3, 84), (9, 3, 4), (0, 0, 1), (0, 5, 1),
                                                 (5, 0, None), (Fraction(1, 2), 1, 1)])
def test_arxs_no_attack_k(gain: int, cost: int, k: int | None) -> None:
    assert no_attack_k(_costs(gain, cost)) == k


def test_the_adversarys_largest_payoff_and_the_records_below_arxs_k() -> None:
    found = adversary_payoff("no_attack_prosecutor", _classes(_RELEASE), _costs(9, 3), "prosecutor")
    assert found.level.value == 9 - 3
    assert found.comparison == "below"
    assert found.witness is not None and found.witness.qi == {"a": "y"}
    assert found.witness.numbers == {"no_attack_k": 4, "population_count": 1, "classes_below_k": 3,
                                     "records_below_k": 6}
    # a class of 3 at G/C = 3 gives the adversary exactly 0: not below 0, and below ARX's k = 4
    assert adversary_payoff("no_attack_prosecutor", _classes(["z"] * 3), _costs(9, 3), "prosecutor").level.value == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 12), min_size=1, max_size=12), st.integers(0, 40), st.integers(0, 6))
def test_no_class_is_below_arxs_k_exactly_when_the_adversary_pays_below_0(sizes: list[int], gain: int,
                                                                            cost: int) -> None:
    values = [str(i) for i, size in enumerate(sizes) for _ in range(size)]
    costs = _costs(gain, cost)
    found = adversary_payoff("no_attack_prosecutor", _classes(values), costs, "prosecutor")
    assert found.witness is not None and found.level.value is not None
    safe = found.witness.numbers["records_below_k"] == 0
    # ARX takes k = 1 when the gain is 0, so a game with G = C = 0 is safe though the payoff is 0, not below it
    assert safe == (found.level.value < 0 or gain == 0)
    assert found.level.value == Fraction(gain, min(sizes)) - cost


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 12), min_size=1, max_size=12), st.integers(0, 40), st.integers(1, 6),
       st.integers(0, 50), st.integers(0, 400))
def test_the_release_payoff_is_the_sum_of_the_classes_payoffs(sizes: list[int], gain: int, cost: int,
                                                                benefit: int, loss: int) -> None:
    values = [str(i) for i, size in enumerate(sizes) for _ in range(size)]
    costs = _costs(gain, cost, benefit, loss)
    per_class = [benefit - (Fraction(loss, f) if Fraction(gain, f) > cost else 0) for f in sizes]
    found = publisher_payoff("profitability_prosecutor", _classes(values), costs, "prosecutor")
    assert found.witness is not None
    numbers = found.witness.numbers
    assert found.level.value == min(per_class)
    assert numbers["release_payoff"] == sum(f * p for f, p in zip(sizes, per_class, strict=True))
    assert numbers["profitable_payoff"] == sum(f * p for f, p in zip(sizes, per_class, strict=True) if p > 0)
    assert numbers["unprofitable_records"] == sum(f for f, p in zip(sizes, per_class, strict=True) if p <= 0)


def test_a_figure_below_0_or_inexact_is_refused() -> None:
    with pytest.raises(ValueError, match="adversary_cost: expected an exact number ≥ 0, found -1"):
        CostBenefit(Fraction(1), Fraction(1), Fraction(1), Fraction(-1))
    with pytest.raises(ValueError, match="publisher_benefit: expected an exact number ≥ 0, found 0.5"):
        CostBenefit(0.5, Fraction(1), Fraction(1), Fraction(1))  # type: ignore[arg-type]


def test_the_models_measure_arxs_defaults_and_each_set_a_requirement_declares() -> None:
    frame = pd.DataFrame({"a": _RELEASE})
    report = measure(frame, Question.of(["a"], [], kinds=["risk"], requested={
        "no_attack_prosecutor": ({"adversary_gain": Fraction(9), "adversary_cost": Fraction(3)},),
        "profitability_journalist": ({"publisher_benefit": Fraction(100)},)}))
    levels = {(m.model, tuple(sorted(m.parameters.items()))): m.level.value for m in report.measurements
              if "attack" in m.model or "profitability" in m.model}
    defaults = tuple(sorted(ARX_COSTS.parameters().items()))
    adversary = (("adversary_cost", 4), ("adversary_gain", 300))
    assert levels == {
        ("profitability_prosecutor", defaults): 900,
        ("profitability_journalist", defaults): 900,
        ("profitability_journalist", tuple(sorted({**ARX_COSTS.parameters(), "publisher_benefit": 100}.items()))): -200,
        ("no_attack_prosecutor", adversary): 296,
        ("no_attack_prosecutor", (("adversary_cost", 3), ("adversary_gain", 9))): 6,
        ("no_attack_journalist", adversary): 296,
    }
    found = report.find("no_attack_prosecutor", adversary_gain=Fraction(9))
    assert found.level.value == 6


_POLICY = """[data]
path = "release.csv"
qi = ["zip"]

[sensitive.disease]

[[require]]
model = "no_attack_prosecutor"
threshold = 0
adversary_gain = 9
adversary_cost = {cost}

[[require]]
model = "profitability_prosecutor"
threshold = "1/3"
publisher_benefit = 100
publisher_loss = {loss}
"""


@pytest.mark.parametrize(("cost", "loss", "verdicts"), [("3", "300", ["fail", "fail"]),
                                                         ("\"301/100\"", "299", ["pass", "pass"])])
def test_a_policy_decides_the_game_exactly_and_the_certificate_carries_the_declared_figures(
        tmp_path: Path, cost: str, loss: str, verdicts: list[str]) -> None:
    # three classes of 3 records: at G = 9, C = 3 the adversary's payoff is exactly 0 (not below 0; ARX's k = 4),
    # at C = 301/100 it is -1/100; at B = 100, L = 300 the publisher's is exactly 0, at L = 299 exactly 1/3, the threshold
    (tmp_path / "release.csv").write_text("zip,disease\n" + "".join(f"{z},flu\n" for z in ("a", "b", "c") * 3))
    (tmp_path / "policy.toml").write_text(_POLICY.format(cost=cost, loss=loss))
    key = tmp_path / "key"
    assert runner.invoke(app, ["keygen", "--out", str(key)]).exit_code == 0
    done = runner.invoke(app, ["audit", str(tmp_path / "release.csv"), "--policy", str(tmp_path / "policy.toml"),
                               "--sign", str(key), "--certificate", str(tmp_path / "cert.json")])
    assert done.exit_code == (0 if verdicts == ["pass", "pass"] else 1), done.output
    predicate = json.loads(base64.b64decode(json.loads((tmp_path / "cert.json").read_text())["payload"]))["predicate"]
    found = [(m["model"], m["parameters"], m["exact"], m["verdict"]) for m in predicate["measurements"]]
    adversary = {"adversary_gain": 9, "adversary_cost": 3 if cost == "3" else "301/100"}
    publisher = {"adversary_gain": 300, "adversary_cost": 4, "publisher_benefit": 100, "publisher_loss": int(loss)}
    assert found == [("no_attack_prosecutor", adversary, "0" if cost == "3" else "-1/100", verdicts[0]),
                     ("profitability_prosecutor", publisher, "0" if loss == "300" else "1/3", verdicts[1])]
    checked = runner.invoke(app, ["verify", str(tmp_path / "cert.json"), "--public-key", str(key) + ".pub",
                                  "--allow-fail"])
    assert checked.exit_code == 0, checked.output
    assert "measurements: holds (2 item(s), re-derived and identical)" in checked.output


def test_the_journalist_plays_against_the_population_counts() -> None:
    from verifier.risk.population_table import ClassPopulations

    classes = _classes(_RELEASE)  # x (2 records), y (1), z (3), in the order of their values
    order = {classes.describe(i)["a"]: i for i in range(classes.count)}
    counts = np.zeros(classes.count, dtype=object)
    for value, people in {"x": 100, "y": 4, "z": 9}.items():
        counts[order[value]] = people
    populations = ClassPopulations(counts, 113, 0, "population.csv", "0" * 64)
    adversary = adversary_payoff("no_attack_journalist", classes, _costs(9, 3), "journalist", populations)
    assert adversary.level.value == Fraction(9, 4) - 3
    assert adversary.witness is not None and adversary.witness.qi == {"a": "y"}
    assert adversary.witness.numbers["records_below_k"] == 0 and adversary.notes == ()  # 4 people ≥ k = 4
    publisher = publisher_payoff("profitability_journalist", classes, _costs(300, 4), "journalist", populations)
    # attacked: y (300/4 - 4 > 0) and z (300/9 - 4 > 0), not x (300/100 - 4 < 0)
    assert publisher.level.value == 1200 - Fraction(300, 4)
    assert publisher.witness is not None
    assert publisher.witness.numbers["release_payoff"] == 6 * 1200 - 300 * (Fraction(1, 4) + Fraction(3, 9))
