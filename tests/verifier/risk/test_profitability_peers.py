"""privcert's profitability models against ARX's own code, run from its source on the same releases.

``tests/data/profitability_peers.json`` holds what ARX computed (``ProfitabilityProsecutor``,
``ProfitabilityJournalist``, their no-attack variants and ``MetricSDNMPublisherPayout``,
through ``benchmarks/peers/ArxProfitability.java``) on ARX's adult and on releases pyCANON
bundles, at four sets of cost/benefit figures, with the class-size histogram of each
release (``benchmarks/peers/compare_profitability.py`` wrote it). privcert's figures are
computed here again from each histogram and must be equal to ARX's, every one exactly: the
counts (ARX's no-attack k, the records each criterion suppresses) and the payouts, which
ARX sums in doubles and prints as decimals (each a whole number of the figures' units on
these releases, so no rounding of ARX's sums shows).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from verifier.risk.profitability import CostBenefit, adversary_payoff, publisher_payoff
from verifier.tables.counting import count_tables
from verifier.tables.counts import Classes

FIXTURE: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "profitability_peers.json").read_text())
CASES = [(name, costs) for name, release in FIXTURE["releases"].items() for costs in release["arx"]]
_ARX_NO_CLASS = 2**31 - 1
"""ARX's k when no class is safe (``Integer.MAX_VALUE``)."""


def _classes(histogram: str) -> Classes:
    pairs = [tuple(int(x) for x in part.split(":")) for part in histogram.split(",")]
    sizes = np.repeat([s for s, _ in pairs], [c for _, c in pairs])
    frame = pd.DataFrame({"key": np.repeat(np.arange(sizes.size), sizes).astype(str)})
    return count_tables(frame, ["key"], [])[0]


def privcert_figures(histogram: str, figures: dict[str, str]) -> dict[str, int | Fraction]:
    """privcert's figures under the names ARX's driver prints them."""
    classes = _classes(histogram)
    costs = CostBenefit(**{name: Fraction(value) for name, value in figures.items()})
    found: dict[str, int | Fraction] = {"rows": classes.rows}
    for attacker in ("prosecutor", "journalist"):
        publisher = publisher_payoff(f"profitability_{attacker}", classes, costs, attacker)
        adversary = adversary_payoff(f"no_attack_{attacker}", classes, costs, attacker)
        assert publisher.witness is not None and adversary.witness is not None
        pub, adv = publisher.witness.numbers, adversary.witness.numbers
        k = adv["no_attack_k"]
        found["no_attack_k"] = _ARX_NO_CLASS if k is None else k
        found["release.publisher_payout"] = pub["release_payoff"]
        found["release.theoretical_maximum"] = pub["maximum_payoff"]
        found["release.suppressed"] = 0
        found[f"{attacker}.suppressed"] = pub["unprofitable_records"]
        found[f"{attacker}.publisher_payout"] = pub["profitable_payoff"]
        found[f"{attacker}.theoretical_maximum"] = pub["maximum_payoff"]
        found[f"no_attack_{attacker}.suppressed"] = adv["records_below_k"]
        found[f"no_attack_{attacker}.publisher_payout"] = costs.publisher_benefit * (classes.rows - adv["records_below_k"])
        found[f"no_attack_{attacker}.theoretical_maximum"] = pub["maximum_payoff"]
    return found


@pytest.mark.parametrize(("name", "costs"), CASES)
def test_every_arx_figure_is_privcerts(name: str, costs: str) -> None:
    release = FIXTURE["releases"][name]
    ours = privcert_figures(release["histogram"], FIXTURE["costs"][costs])
    arx = release["arx"][costs]
    assert set(arx) == set(ours)
    differ = {key: (ours[key], arx[key]) for key in arx if Fraction(arx[key]) != ours[key]}
    assert differ == {}


def test_the_fixture_covers_the_releases_and_figures_it_names() -> None:
    assert sorted(FIXTURE["releases"]) == ["adult_k10", "adult_k3", "arx_adult", "arx_adult_3", "stroke_k5"]
    assert sorted(FIXTURE["costs"]) == ["arx_default", "cheap_attack", "fractional_k", "small_benefit"]
    assert {release["arx"]["arx_default"]["no_attack_k"] for release in FIXTURE["releases"].values()} == {"76"}
    assert {release["arx"]["fractional_k"]["no_attack_k"] for release in FIXTURE["releases"].values()} == {"84"}
