"""privcert's risk models against ARX and sdcMicro, run from their sources on the same releases.

``tests/data/risk_peers.json`` holds what ARX (its ``RiskEstimateBuilder`` and estimators,
through ``benchmarks/peers/ArxRisk.java``) and sdcMicro (``measure_risk``, ``freqCalc``,
``suda2``, through ``benchmarks/peers/sdcmicro_risk.R``) computed on the releases pyCANON
bundles and on ARX's adult, at sampling fractions 1/100, 1/10 and 1/2, with the class-size
histogram of each release and where every figure came from (the tools' commits, the
commands: ``benchmarks/peers/compare.py`` wrote it). privcert's figures are computed here
again from each histogram, so the tests fail when privcert's code changes what it computes.
Where privcert follows a peer, they must agree; where docs/risk.md ("Compared with ARX and
sdcMicro") says they differ, the difference must be the one it names.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from verifier.privacy.anonymity import prosecutor_risk
from verifier.risk.histogram import SizeHistogram, sampling
from verifier.risk.individual import individual_risk, uniform_weights
from verifier.risk.pitman import fit_pitman, pitman_score
from verifier.risk.population import estimate
from verifier.risk.sample import marketer_risk, sample_uniqueness
from verifier.tables.counting import count_tables
from verifier.tables.counts import Classes

FIXTURE: dict[str, Any] = json.loads((Path(__file__).resolve().parents[2] / "data" / "risk_peers.json").read_text())
CASES = [(name, fraction) for name, release in FIXTURE["releases"].items() for fraction in release["fractions"]]


def _histogram(text: str) -> SizeHistogram:
    pairs = sorted(tuple(int(x) for x in part.split(":")) for part in text.split(","))
    return SizeHistogram(np.array([s for s, _ in pairs], dtype=np.int64), np.array([c for _, c in pairs], dtype=np.int64))


def _classes(histogram: SizeHistogram) -> Classes:
    sizes = np.repeat(histogram.sizes, histogram.classes)
    frame = pd.DataFrame({"key": np.repeat(np.arange(sizes.size), sizes).astype(str)})
    return count_tables(frame, ["key"], [])[0]


def _row(name: str, fraction: str) -> tuple[SizeHistogram, dict[str, Any], dict[str, Any]]:
    release = FIXTURE["releases"][name]
    row = release["fractions"][fraction]
    return _histogram(release["histogram"]), row["arx"], row["sdcmicro"]


def _float(value: Any) -> float:
    return math.nan if value == "NaN" else float(value)


@pytest.mark.parametrize(("name", "fraction"), CASES)
def test_sample_figures_equal_arx_and_sdcmicro(name: str, fraction: str) -> None:
    """Sample uniqueness and the highest prosecutor risk equal ARX's doubles, sdcMicro's uniques equal privcert's
    count; ARX's average (marketer) risk sums the classes in double, so it lies within 10^-14 of the exact share."""
    histogram, arx, sdc = _row(name, fraction)
    classes = _classes(histogram)
    uniqueness = Fraction(sample_uniqueness(classes).level.exact)
    assert arx["rows"] == sdc["rows"] == classes.rows
    assert float(uniqueness) == arx["sample_uniqueness"]
    assert Fraction(sdc["sample_uniques"], sdc["rows"]) == uniqueness
    for average in (arx["average_risk"], arx["marketer"]):
        assert float(Fraction(marketer_risk(classes).level.exact)) == pytest.approx(average, rel=1e-14)
    assert float(Fraction(prosecutor_risk(classes).level.exact)) == arx["highest_risk"] == arx["prosecutor_highest"]


@pytest.mark.parametrize(("name", "fraction"), CASES)
def test_individual_risk_equals_sdcmicro(name: str, fraction: str) -> None:
    """Benedetti-Franconi's risk with uniform weights N/n (sdcMicro's indivRisk, "approx"): the maximum and the mean."""
    histogram, _, sdc = _row(name, fraction)
    classes = _classes(histogram)
    frame = sampling(classes.rows, fraction=Fraction(fraction))
    risk = individual_risk(classes, uniform_weights(classes, frame.population))
    assert risk.level.number == pytest.approx(sdc["individual_risk_max"], rel=1e-13)
    assert risk.witness is not None
    assert risk.witness.numbers["global_risk"] == pytest.approx(sdc["global_risk"], rel=1e-12)


@pytest.mark.parametrize(("name", "fraction"), CASES)
def test_zayatz_equals_arx(name: str, fraction: str) -> None:
    histogram, arx, _ = _row(name, fraction)
    found = estimate("zayatz", histogram, sampling(histogram.rows, fraction=Fraction(fraction)))
    assert found.share == pytest.approx(_float(arx.get("zayatz_raw", arx["zayatz"])), rel=1e-12, abs=1e-300)


def _pitman_difference(histogram: SizeHistogram, fraction: str, arx: dict[str, Any]) -> str:
    """How privcert's Pitman estimate stands to ARX's (the words of docs/risk.md's table)."""
    found = estimate("pitman", histogram, sampling(histogram.rows, fraction=Fraction(fraction)))
    if histogram.of_size(1) == 0:
        assert found.share == 0 and arx["pitman"] == 0
        return "no sample unique"
    theirs = _float(arx["pitman_raw"])
    if not found.available:
        return "privcert: no maximum" if math.isnan(theirs) else "ARX: a point that is not a maximum"
    if math.isnan(theirs):
        return "ARX: no root"
    score = pitman_score(histogram, arx["pitman_theta"], arx["pitman_alpha"])
    at_root = abs(score[0]) <= 1e-6 and abs(score[1]) <= 1e-6
    if at_root and math.isclose(arx["pitman_theta"], found.fitted["theta"], rel_tol=1e-6):
        assert found.share == pytest.approx(theirs, rel=1e-8)
        return "same root"
    return "ARX: not at a root" if not at_root else "ARX: another root"


# What docs/risk.md's table says of each row where ARX's Pitman figure is not privcert's: on adult k10 read with
# every column the score equations have a root on the finite-class branch (α = -2.5788), which ARX's Newton
# iteration misses (it runs towards α → -∞ and stops with NaN); on student math the likelihood has no maximum
# (it rises towards the multinomial limit), and neither tool has an estimate.
PITMAN_DIFFERENCES: dict[tuple[str, str], str] = {
    **{("adult_k10_all", fraction): "ARX: no root" for fraction in ("1/100", "1/10", "1/2")},
    **{("student_math", fraction): "privcert: no maximum" for fraction in ("1/100", "1/10", "1/2")},
}


@pytest.mark.parametrize(("name", "fraction"), CASES)
def test_pitman_against_arx(name: str, fraction: str) -> None:
    histogram, arx, _ = _row(name, fraction)
    expected = PITMAN_DIFFERENCES.get((name, fraction), "same root" if histogram.of_size(1) else "no sample unique")
    assert _pitman_difference(histogram, fraction, arx) == expected


@pytest.mark.parametrize("name", sorted(FIXTURE["histograms"]))
def test_where_the_likelihood_rises_to_a_limit_neither_has_a_pitman_estimate(name: str) -> None:
    """Small releases whose Pitman likelihood has no maximum: ARX's Newton iteration runs towards α → -∞ (on
    A, A, B, B, C it stops where θ/|α| is the multinomial limit's m) with no number of uniques (NaN, shown as 0);
    privcert has no estimate, and at fractions up to 1/10 both decision rules take Zayatz, whose figures agree."""
    entry = FIXTURE["histograms"][name]
    histogram = _histogram(entry["histogram"])
    fit = fit_pitman(histogram)
    for fraction, arx in entry["arx"].items():
        frame = sampling(histogram.rows, fraction=Fraction(fraction))
        found = estimate("pitman", histogram, frame)
        if fit.limit_classes is None:
            continue
        assert found.share is None and "α → -∞" in (found.reason or "")
        assert math.isnan(_float(arx["pitman_raw"])) and arx["pitman"] == 0
        assert arx["pitman_alpha"] < -1000
        if name == "A,A,B,B,C":
            assert arx["pitman_theta"] / -arx["pitman_alpha"] == pytest.approx(fit.limit_classes, rel=1e-3)
        if frame.fraction <= Fraction(1, 10):  # above 1/10 the rule does not look at Pitman
            rule = estimate("dankar", histogram, frame)
            assert arx["dankar_model"] == "ZAYATZ" and rule.chosen == "zayatz"
            assert rule.share == pytest.approx(arx["dankar"], rel=1e-12)


@pytest.mark.parametrize(("name", "fraction"), CASES)
def test_snb_and_the_decision_rule_against_arx(name: str, fraction: str) -> None:
    """ARX's SNB is NaN on every release with uniques (its second moment equation, see docs/risk.md), so its rule
    above 1/10 takes Zayatz; privcert's SNB has an estimate where its moment equations have a solution (not on
    student math), and its rule takes the smaller of Zayatz and SNB. At 1/10 and below both rules follow
    Pitman, or Zayatz where Pitman has no estimate (privcert) or gives NaN (ARX)."""
    histogram, arx, _ = _row(name, fraction)
    frame = sampling(histogram.rows, fraction=Fraction(fraction))
    rule = estimate("dankar", histogram, frame)
    if histogram.of_size(1) == 0:
        assert rule.share == 0 and arx["dankar"] == 0
        return
    snb = estimate("snb", histogram, frame)
    assert math.isnan(_float(arx["snb_raw"])) and arx["snb"] == 0
    assert snb.available == (name != "student_math")
    pitman = estimate("pitman", histogram, frame)
    arx_pitman = not math.isnan(_float(arx["pitman_raw"]))
    if frame.fraction <= Fraction(1, 10):
        assert rule.chosen == ("pitman" if pitman.available else "zayatz")
        assert arx["dankar_model"] == ("PITMAN" if arx_pitman else "ZAYATZ")
    else:
        zayatz = estimate("zayatz", histogram, frame)
        assert arx["dankar_model"] == "ZAYATZ" and arx["dankar"] == pytest.approx(zayatz.share, rel=1e-12)
        smaller = snb.available and snb.share < zayatz.share  # type: ignore[operator]
        assert rule.chosen == ("snb" if smaller else "zayatz")
    if rule.chosen == arx["dankar_model"].lower():
        assert rule.share == pytest.approx(arx["dankar"], rel=1e-8)
