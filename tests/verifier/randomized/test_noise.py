"""Additive Laplace and Gaussian noise: interval matrices, levels as sound bounds, seeded releases.

Soundness is checked three ways: entries against mpmath's own functions at 600 bits
(independent of the series used by verifier.randomized.noise); a closed form (Laplace with one
boundary: e^ε = e exactly, inside the bounds); and, on hypothesis-generated exact
mechanisms widened into intervals, every exact level (itself checked against an
all-subsets brute force in tests/verifier/randomized/test_randomized.py) inside the interval levels.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from _releases import releases
from privcert.cli import app
from verifier.errors import MechanismError
from verifier.randomized import levels as randomized
from verifier.randomized.levels import Extreme, sufficient_table
from verifier.randomized.mechanism import IntervalMechanism, Mechanism
from verifier.randomized.noise import GRID_BITS, NoiseSpec, load_noise_spec, noise_mechanism
from verifier.tables.counts import CountTable

F = Fraction
runner = CliRunner()


def contains(extreme: Extreme, value: Callable[[], mpmath.mpf]) -> bool:
    """lower ≤ value ≤ upper, with value computed at 1200 bits (the bounds are ~2^-380 apart)."""
    assert extreme.ratio is not None and extreme.lower is not None
    with mpmath.workprec(1200):
        return bool(mpmath.mpf(extreme.lower.numerator) / extreme.lower.denominator < value()
                    < mpmath.mpf(extreme.ratio.numerator) / extreme.ratio.denominator)


def test_laplace_closed_form_one_boundary() -> None:
    """Values 0 and 1, b = 1, boundary 0: rows (1/2, 1/2) and (e^-1/2, 1 - e^-1/2).

    Bucket (-inf, 0): (1/2)/(e^-1/2) = e; bucket [0, inf): (1 - e^-1/2)/(1/2) = 2 - 1/e < e.
    So e^ε = e (ε = 1 = Δ/b: the Laplace mechanism's own level, Dwork et al. 2006).
    """
    mechanism = noise_mechanism("laplace", F(1), [F(0)], [F(0), F(1)])
    assert not mechanism.exact and mechanism.buckets == ("(-inf, 0)", "[0, inf)")
    assert mechanism.low[0] == mechanism.high[0] == (F(1, 2), F(1, 2))
    found = randomized.ldp(mechanism)
    assert not found.exact and found.bucket == 0 and contains(found, lambda: mpmath.e + 0)
    assert found.ratio - found.lower < F(1, 2 ** (GRID_BITS - 10))


@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
def test_entries_enclose_mpmath_at_600_bits(noise: str) -> None:
    values = [F(0), F(7, 3), F(-5, 2), F(40)]
    edges = [F(-3), F(1, 2), F(2), F(9)]
    scale = F(3, 2)
    mechanism = noise_mechanism(noise, scale, edges, values)  # type: ignore[arg-type]
    mpmath.mp.prec = 600
    try:
        def cdf(x: Fraction) -> mpmath.mpf:
            z = mpmath.mpf(x.numerator) / x.denominator / (mpmath.mpf(scale.numerator) / scale.denominator)
            if noise == "laplace":
                return mpmath.exp(z) / 2 if z < 0 else 1 - mpmath.exp(-z) / 2
            return mpmath.ncdf(z)

        for row, v in enumerate(values):
            cuts = [mpmath.mpf(0), *(cdf(e - v) for e in edges), mpmath.mpf(1)]
            for b in range(len(edges) + 1):
                reference = cuts[b + 1] - cuts[b]
                low, high = mechanism.low[row][b], mechanism.high[row][b]
                assert mpmath.mpf(low.numerator) / low.denominator <= reference <= mpmath.mpf(high.numerator) / high.denominator
                assert high - low <= F(2, 2 ** GRID_BITS)
    finally:
        mpmath.mp.prec = 53


def widened(mechanism: Mechanism, draw: st.DrawFn) -> IntervalMechanism:
    """An interval mechanism containing ``mechanism``: each entry widened by random amounts."""
    low, high = [], []
    for row in mechanism.matrix:
        low.append(tuple(max(F(0), p - F(draw(st.integers(0, 3)), 1000)) for p in row))
        high.append(tuple(min(F(1), p + F(draw(st.integers(0, 3)), 1000)) for p in row))
    return IntervalMechanism(mechanism.values, mechanism.buckets, tuple(low), tuple(high), "widened")


def inside(bounds: Extreme, exact: Extreme) -> bool:
    if bounds.ratio is not None and exact.ratio is None:
        return False
    lower_ok = bounds.lower is not None and (exact.ratio is None or bounds.lower <= exact.ratio)
    return (bounds.ratio is None or (exact.ratio is not None and exact.ratio <= bounds.ratio)) and (
        lower_ok or bounds.lower is None and exact.ratio is None)


@settings(max_examples=50, deadline=None)
@given(releases(max_n=8), st.data())
def test_interval_levels_enclose_the_exact_levels(release: tuple[CountTable, Mechanism, list[int], list[int]],
                                                  data: st.DataObject) -> None:
    table, mechanism, _, _ = release
    wide = widened(mechanism, data.draw)
    assert inside(randomized.ldp(wide), randomized.ldp(mechanism))
    assert inside(randomized.ldp(wide, table), randomized.ldp(mechanism, table))
    assert inside(randomized.multiplicative_t(table, wide), randomized.multiplicative_t(table, mechanism))
    for k in range(1, table.n):
        assert inside(randomized.kt_closeness(table, wide, k), randomized.kt_closeness(table, mechanism, k))
        assert inside(randomized.k_eps_dp(table, wide, k), randomized.k_eps_dp(table, mechanism, k))


def test_degenerate_intervals_give_the_exact_level() -> None:
    mechanism = Mechanism(("a", "b"), ("x", "y"), (("3/4", "1/4"), ("1/4", "3/4")))
    same = IntervalMechanism(mechanism.values, mechanism.buckets, mechanism.matrix, mechanism.matrix)
    table = sufficient_table([0, 0, 1], [0, 1, 1], [3, 1, 2], mechanism.values, 2)
    for measure in (lambda m: randomized.kt_closeness(table, m, 2), lambda m: randomized.multiplicative_t(table, m)):
        exact, bounded = measure(mechanism), measure(same)
        assert bounded.lower == bounded.ratio == exact.ratio and not bounded.exact


@pytest.mark.parametrize(
    ("low", "high", "message"),
    [
        (((F(1, 2), F(1, 2)),), ((F(1, 4), F(1, 2)),), "expected Fraction bounds 0 ≤ low ≤ high ≤ 1"),
        (((F(1, 4), F(1, 4)),), ((F(1, 3), F(1, 3)),), "the bounds cannot sum to 1"),
        (((F(1, 2),),), ((F(1, 2),),), "expected 2 bounds per side"),
    ],
)
def test_interval_mechanism_checks_its_bounds(low: tuple, high: tuple, message: str) -> None:
    with pytest.raises(MechanismError, match=message):
        IntervalMechanism(("a",), ("x", "y"), low, high)


def test_seeded_sampling_follows_the_matrix() -> None:
    mechanism = noise_mechanism("gaussian", F(2), [F(-1), F(1)], [F(0), F(3)])
    column = [F(0)] * 20000 + [F(3)] * 20000
    first = mechanism.sample(column, np.random.default_rng(5))
    assert (first == mechanism.sample(column, np.random.default_rng(5))).all()
    share = float(np.mean(first[:20000] == "[-1, 1)"))
    expected = float(mechanism.low[0][1])  # Φ(1/2) - Φ(-1/2) ≈ 0.3829
    assert abs(share - expected) < 4 * (expected * (1 - expected) / 20000) ** 0.5


def test_spec_round_trip_and_errors(tmp_path: Path) -> None:
    spec = NoiseSpec("laplace", F(5, 2), (F(10), F(45, 2)), (F(1), F(33, 2)))
    (tmp_path / "m.toml").write_text(spec.to_toml(), encoding="utf-8")
    assert 'scale = "2.5"' in (tmp_path / "m.toml").read_text()
    assert load_noise_spec(tmp_path / "m.toml") == spec
    (tmp_path / "bad.toml").write_text('noise = "laplace"\nscale = "-1"\nboundaries = ["1"]\nvalues = ["0"]\n')
    with pytest.raises(MechanismError, match="bad.toml: scale: expected a number > 0"):
        load_noise_spec(tmp_path / "bad.toml")
    (tmp_path / "bad.toml").write_text('noise = "cauchy"\nscale = "1"\nboundaries = ["1"]\nvalues = ["0"]\n')
    with pytest.raises(MechanismError, match="noise: expected one of laplace, gaussian, found 'cauchy'"):
        load_noise_spec(tmp_path / "bad.toml")
    (tmp_path / "bad.toml").write_text('noise = "laplace"\nscale = "1"\nboundaries = ["2", "1"]\nvalues = ["0"]\n')
    with pytest.raises(MechanismError, match="boundaries: expected strictly increasing"):
        load_noise_spec(tmp_path / "bad.toml")


def test_cli_noise_release_measures_with_bounds(tmp_path: Path) -> None:
    data = tmp_path / "original.csv"
    data.write_text("zip,age\n" + "".join(f"{'ab'[i % 2]},{20 + i % 7}\n" for i in range(40)))
    out = tmp_path / "release.csv"
    args = ["anonymize", "noise", str(data), "--sensitive", "age", "--scale", "5", "--buckets", "22,25",
            "--out", str(out), "--seed", "1"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    first = out.read_text()
    assert runner.invoke(app, args).exit_code == 0 and out.read_text() == first
    measured = runner.invoke(app, ["measure", str(data), "--qi", "zip", "--sensitive", "age", "--numerical", "age",
                                   "--mechanism", str(tmp_path / "release.mechanism.toml"), "--k", "3", "--json", "-"])
    assert measured.exit_code == 0, measured.output
    levels = json.loads(measured.stdout)["randomized"]["measurements"]
    assert [m["model"] for m in levels] == ["stochastic_t_closeness", "ldp", "dp", "kt_closeness", "k_eps_dp"]
    for m in levels:
        assert m["bounds"]["exact"] is False and m["bounds"]["upper"] == m["exact"]
        assert any(note.startswith("not exact") for note in m["notes"])
    # ε-LDP of Laplace with b = 5 over values 20..26 (Δ = 6) is at most Δ/b (post-processing).
    assert levels[1]["level"] <= 6 / 5 + 1e-12
    text = runner.invoke(app, ["measure", str(data), "--qi", "zip", "--sensitive", "age", "--numerical", "age",
                               "--mechanism", str(tmp_path / "release.mechanism.toml")], env={"COLUMNS": "400"})
    assert "(not exact; exact bounds with --json)" in text.stdout
    bad = runner.invoke(app, ["anonymize", "noise", str(data), "--sensitive", "zip", "--scale", "5", "--buckets", "1",
                              "--out", str(out)])
    assert bad.exit_code == 2 and "numerical" in bad.stderr
