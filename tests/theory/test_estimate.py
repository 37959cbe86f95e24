"""A mechanism computed from a differentially private estimate of the original's histogram.

Oracles: the clamped two-sided geometric distribution written out here from its definition (a sum over the
noise values that land on each clamped count), the exact enumeration of every noisy histogram of small
originals, and the verifier's ε-LDP of each mechanism.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
import sympy
from typer.testing import CliRunner

from privcert.cli import app
from theory.checks import check
from theory.mechanism_selection.estimate import HistogramEstimate, clamped_probability, estimate_histogram
from theory.mechanism_selection.optimal import implied_ratio, optimal_mechanism
from theory.mechanism_selection.release_plan import estimate_optimum, plan_release
from verifier.errors import PolicyError
from verifier.randomized.data_mark import DataMark
from verifier.randomized.mechanism import load_mechanism

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "randomized"
runner = CliRunner()
T0, RATIO, K = Fraction(2), Fraction(3), 1


def _clamped(count: int, noisy: int, records: int, alpha: Fraction) -> Fraction:
    """Pr(min(N, max(0, c + Z)) = noisy), Z two-sided geometric: the noise values landing there, the tails summed
    as geometric series (Σ_{j ≥ J} α^j = α^J/(1 − α))."""
    weight = (1 - alpha) / (1 + alpha)
    if noisy == 0:  # c + Z ≤ 0: Z = -c, -c-1, ...
        return weight * alpha**count / (1 - alpha)
    if noisy == records:  # c + Z ≥ N
        return weight * alpha ** (records - count) / (1 - alpha)
    return weight * alpha ** abs(noisy - count)


def _distribution(counts: tuple[int, ...], alpha: Fraction) -> dict[tuple[tuple[Fraction, ...], ...], Fraction]:
    """Pr(mechanism) over every noisy histogram, with the mechanism built as the plan builds it from ``counts``."""
    records, found = sum(counts), {}
    for noisy in product(range(records + 1), repeat=len(counts)):
        probability = Fraction(1)
        for count, value in zip(counts, noisy):
            probability *= _clamped(count, value, records, alpha)
        matrix = estimate_optimum(counts, HistogramEstimate(sympy.log(4), alpha, records, noisy), T0, RATIO, K).matrix
        found[matrix] = found.get(matrix, Fraction(0)) + probability
    return found


def test_the_clamped_noise_is_a_distribution_and_the_modules_closed_form() -> None:
    for count, records, alpha in ((0, 3, Fraction(1, 2)), (2, 3, Fraction(2, 3)), (4, 4, Fraction(1, 3))):
        assert sum(_clamped(count, m, records, alpha) for m in range(records + 1)) == 1
        assert [clamped_probability(count, m, records, alpha) for m in range(records + 1)] == \
            [_clamped(count, m, records, alpha) for m in range(records + 1)]


@pytest.mark.parametrize(("before", "after"), [((2, 1, 1), (1, 2, 1)), ((1, 3), (2, 2)), ((3, 1), (2, 2))])
def test_two_originals_differing_in_one_record_give_mechanisms_within_e_to_the_estimates_epsilon(
        before: tuple[int, ...], after: tuple[int, ...]) -> None:
    """ε_E = ln(4): α = 1/2 and α^-2 = 4 = e^ε_E exactly. Every mechanism the estimate can give has probabilities
    within a factor 4 under the two originals (and the factor is not 1 everywhere: the mechanism does depend on the
    estimate); each is ε-LDP within the auditor's bound min(3, e^ε_t)."""
    alpha = Fraction(1, 2)
    first, second = _distribution(before, alpha), _distribution(after, alpha)
    assert set(first) == set(second) and sum(first.values()) == sum(second.values()) == 1
    ratios = [max(first[m] / second[m], second[m] / first[m]) for m in first]
    assert max(ratios) <= 4 and max(ratios) > 1
    bound = min(RATIO, implied_ratio(T0, sum(before), K))
    assert all(estimate_optimum(before, HistogramEstimate(sympy.log(4), alpha, sum(before), m), T0, RATIO, K)
               .exp_epsilon <= bound for m in product(range(sum(before) + 1), repeat=len(before)))


def test_the_counts_optimum_tells_the_two_originals_apart() -> None:
    """The contrast: the auditor's optimum on the original's own counts is one matrix per original, so its file
    names which of the two it came from (ratio ∞)."""
    one, two = (optimal_mechanism(c, T0, RATIO, K, "auditor", "data").matrix for c in ((3, 1), (2, 2)))
    assert one != two


def test_the_composition_claim_is_checked_and_a_builder_reading_the_counts_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    found = check("privcert:estimate_composition")
    assert found.status == "proven", found.detail
    from theory.papers.privcert_estimate import checks

    def leaking(counts: tuple[int, ...], noisy: tuple[int, ...]):  # type: ignore[no-untyped-def]
        return optimal_mechanism(counts, T0, RATIO, K, "auditor", "data")

    monkeypatch.setattr(checks, "_optimum", leaking)
    refuted = check("privcert:estimate_composition")
    assert refuted.status == "refuted" and "depend on the original's counts" in refuted.detail


class _Script:
    """Integer draws from a list, in order (Bernoulli(α) succeeds when the draw is below α's numerator)."""

    def __init__(self, draws: list[int]) -> None:
        self.draws = draws

    def randrange(self, stop: int, /) -> int:
        value = self.draws.pop(0)
        assert 0 <= value < stop
        return value


def test_the_noise_is_drawn_exactly_and_clamped() -> None:
    # α = 2/3: a draw of 0 or 1 succeeds, 2 fails. Count 3: G1 = 2 (0, 1, 2), G2 = 0 (2): 3 + 2 = 5, clamped to N = 4.
    # Count 1: G1 = 0 (2), G2 = 3 (1, 0, 1, 2): 1 − 3 < 0, clamped to 0.
    estimate = estimate_histogram((3, 1), sympy.log(9), Fraction(2, 3), _Script([0, 1, 2, 2, 2, 1, 0, 1, 2]))
    assert estimate.counts == (4, 0) and estimate.frequencies == (1, 0)
    assert estimate_histogram((1, 1), sympy.log(9), Fraction(2, 3), _Script([2, 2, 2, 0, 2])).counts == (1, 0)
    assert HistogramEstimate(sympy.log(4), Fraction(1, 2), 2, (0, 0)).frequencies == (Fraction(1, 2), Fraction(1, 2))


def test_the_plan_writes_the_estimates_optimum_and_offers_the_data_independent_one() -> None:
    counts = {"a": 30, "b": 50, "c": 20}
    plain = plan_release(counts, 3, sympy.log(4), 5)
    result = plan_release(counts, 3, sympy.log(4), 5, estimate_epsilon=sympy.log(9))
    assert result.estimate is not None and result.estimate.alpha == Fraction(1, 3)  # α^-2 = 9 = e^ε_E
    assert result.written.name == "optimal-estimate" and result.written.data == "estimate"
    assert result.row("optimal") == plain.row("optimal") and result.row("optimal").data == "independent"
    assert result.written.matrix == estimate_optimum((30, 50, 20), result.estimate, Fraction(3), Fraction(4), 5,
                                                     [plain.row("ldp").matrix]).matrix
    # ε_M = ln(min(4, e^ε_t)), e^ε_t = (3·100 − 5)/95 = 59/19 < 4; composed: ln(59/19) + ln(9) = ln(531/19)
    assert result.estimate_bound == Fraction(59, 19) and result.composed_epsilon == sympy.log(sympy.Rational(531, 19))
    assert result.mechanism().data == DataMark("estimate", sympy.log(9))


@pytest.mark.parametrize(("epsilon", "dependent", "message"), [
    (0, False, "estimate eps must be a finite number > 0"),
    (sympy.oo, False, "estimate eps must be a finite number > 0"),
    (sympy.log(4), True, "estimate eps and data dependent exclude each other"),
])
def test_a_bad_estimate_epsilon_is_refused(epsilon: sympy.Expr, dependent: bool, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        plan_release({"a": 3, "b": 5}, 3, sympy.log(4), 1, estimate_epsilon=epsilon, data_dependent=dependent)


def test_the_flow_states_the_composed_epsilon_in_the_plan_the_file_and_the_certificate(tmp_path: Path) -> None:
    planned, release, key, cert = (tmp_path / name for name in ("planned.csv", "release.csv", "p.key", "c.json"))
    policy = EXAMPLE / "planned.toml"
    done = runner.invoke(app, ["plan", str(EXAMPLE / "original.csv"), "--policy", str(policy), "--estimate-eps",
                               "ln(4)", "--mechanism-out", str(planned), "--json", "-"])
    assert done.exit_code == 0, done.output
    document = json.loads(done.stdout)
    # e^ε_M = min(5, 53/13) = 53/13 whatever the noise: ln(53/13) + ln(4) = ln(212/13)
    assert document["chosen"] == "optimal-estimate" and document["estimate"]["composed_epsilon"]["exact"] == "ln(212/13)"
    assert document["estimate"]["alpha"] == "1/2" and document["estimate"]["epsilon"] == "ln(4)"
    assert {m["name"]: m["data"] for m in document["mechanisms"]}["optimal"] == "independent"
    assert planned.read_text(encoding="utf-8").startswith("# data: estimate\n# estimate_epsilon: ln(4)\nvalue,")
    assert load_mechanism(planned).data == DataMark("estimate", sympy.log(4))
    for argv in (["anonymize", "rr", str(EXAMPLE / "original.csv"), "--sensitive", "disease", "--mechanism",
                  str(planned), "--out", str(release), "--seed", "7"], ["keygen", "--out", str(key)],
                 ["audit", str(release), "--policy", str(policy), "--mechanism", str(planned), "--mode", "auditor",
                  "--sign", str(key), "--certificate", str(cert)]):
        ran = runner.invoke(app, argv)
        assert ran.exit_code == 0, ran.output
    verified = runner.invoke(app, ["verify", str(cert), "--public-key", f"{key}.pub", "--data", str(release)])
    assert verified.exit_code == 0, verified.output
    line = next(item for item in verified.stdout.splitlines() if "data mark:" in item)
    measured = sympy.log(sympy.Rational(*map(int, line.split("ε-LDP ln(")[1].split(")")[0].split("/"))))
    assert bool(measured <= sympy.log(sympy.Rational(53, 13)))
    assert ("data mark: computed from a differentially private estimate of the original's histogram (ε = ln(4)): "
            "with this mechanism's ε-LDP ln(") in line
    assert f"loses at most {sympy.sstr(sympy.logcombine(measured + sympy.log(4), force=True)).replace('log', 'ln')} " \
           "through the release and its mechanism together (sequential composition))" in line


def test_the_command_refuses_a_bad_estimate_epsilon() -> None:
    done = runner.invoke(app, ["plan", str(EXAMPLE / "original.csv"), "--sensitive", "disease", "--t", "4",
                               "--estimate-eps", "-1"])
    assert done.exit_code == 2 and "--estimate-eps" in done.output
    both = runner.invoke(app, ["plan", str(EXAMPLE / "original.csv"), "--sensitive", "disease", "--t", "4",
                               "--estimate-eps", "1", "--data-dependent"])
    assert both.exit_code == 2 and "--estimate-eps and --data-dependent exclude each other" in both.output
