"""``privcert plan`` and :mod:`theory.mechanism_selection.release_plan`: a mechanism from the targets.

Oracles: the utility of the written mechanism recomputed with Fractions from the CSV and the
counts (eq. (4), no sympy), and the levels of the written mechanism measured by the verifier
(ε-LDP from the matrix, (k, t)-closeness on the original's per-record table).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from privcert.cli import app
from theory.mechanism_selection.release_plan import InfeasibleTargets, plan_release, rational_ratio_below
from verifier.errors import PolicyError
from verifier.literal import parse_exact
from verifier.randomized.mechanism import load_mechanism

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "randomized"
runner = CliRunner()
COUNTS = {"asthma": 384, "cold": 593, "flu": 819, "hiv": 204}  # examples/randomized/original.csv


def _utility(matrix: tuple[tuple[Fraction, ...], ...], counts: list[int]) -> Fraction:
    """eq. (4) from scratch: sum over released values of the largest joint probability."""
    total = sum(counts)
    return sum((max(Fraction(counts[y], total) * matrix[y][z] for y in range(len(counts)))
                for z in range(len(matrix[0]))), Fraction(0))


def _plan(*args: str) -> dict:
    result = runner.invoke(app, ["plan", str(EXAMPLE / "original.csv"), "--sensitive", "disease", *args, "--json", "-"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_plan_on_the_bundled_original(tmp_path: Path) -> None:
    out = tmp_path / "planned.csv"
    document = _plan("--t", "4", "--eps", "ln(5)", "--k", "50", "--mechanism-out", str(out))
    assert document["N"] == 2000
    assert [(v["value"], v["count"]) for v in document["values"]] == list(COUNTS.items())
    assert document["targets"] == {"t0": "4", "eps0": "ln(5)", "k": 50}
    # Thm. 3 corrected: e^ε_t = (t0 N - k)/(N - k) = (8000 - 50)/1950 = 53/13 < e^ε0 = 5.
    assert document["exp_epsilon_t"]["exact"] == "53/13"
    mechanisms = {m["name"]: m for m in document["mechanisms"]}
    ldp = mechanisms["ldp"]
    # p_LDP = (e^ε - 1)/(e^ε - 1 + n) = (40/13)/(40/13 + 4) = 10/23; keep 10/23 + 13/92 = 53/92, change 13/92.
    assert (ldp["p_ldp"]["exact"], ldp["exp_epsilon"]["exact"], ldp["certified_by"]) == ("10/23", "53/13", "auditor")
    # (k, t) exact on the original: column asthma, T = 2000·13/92 + 384·40/92, the 50 records of largest entry keep it.
    assert (ldp["t"]["exact"], ldp["auditor_t"]["exact"]) == ("1325/427", "4")
    # eq. (2) corrected: p_t = min(1 - 1/t0, (t0 - 1) f_min/(1 - f_min)) = min(3/4, 3·204/1796) = 153/449.
    assert mechanisms["tclo"]["p_t"]["exact"] == "153/449"
    assert mechanisms["tclo"]["exp_epsilon"]["exact"] == "449/74" and not mechanisms["tclo"]["meets_epsilon"]
    assert mechanisms["tclo"]["data"] == "histogram" and mechanisms["tclo"]["certified_by"] == "neither"
    assert mechanisms["tclo+ldp"]["p_ldp"]["exact"] == "1/2" and mechanisms["tclo+ldp"]["certified_by"] == "auditor"
    assert (document["paper_chosen"], document["chosen"], document["for"]) == ("ldp", "optimal", "auditor")
    # The data-independent optimum over every matrix under e^ε ≤ 53/13 is randomized response (Fig. 4) itself;
    # the optima from the counts gain: the auditor's 23797/39500, the publisher's (exact t on the original) 449/700.
    assert mechanisms["optimal"]["utility"]["exact"] == "53/92" and mechanisms["optimal"]["data"] == "independent"
    assert mechanisms["optimal-auditor"]["utility"]["exact"] == "23797/39500"
    assert (mechanisms["optimal-publisher"]["utility"]["exact"], mechanisms["optimal-publisher"]["certified_by"]) == (
        "449/700", "publisher")
    assert [r["auditor"] for r in document["requirements"]] == [True, True]
    written = load_mechanism(out)
    assert written.values == written.buckets == tuple(COUNTS)
    assert written.matrix[0] == (Fraction(53, 92), Fraction(13, 92), Fraction(13, 92), Fraction(13, 92))
    assert _utility(written.matrix, list(COUNTS.values())) == Fraction(53, 92)
    assert ldp["utility"] == {"exact": "53/92", "decimal": pytest.approx(53 / 92)}


def test_every_utility_is_eq4_of_its_matrix() -> None:
    result = plan_release(COUNTS, 4, sympy.log(5), 50)
    for choice in result.plan.choices:
        matrix = result.mechanism(choice).matrix
        assert _utility(matrix, list(COUNTS.values())) == Fraction(str(choice.utility)), choice.name
    for row in result.rows:
        assert _utility(result.mechanism(row).matrix, list(COUNTS.values())) == Fraction(str(row.utility)), row.name


def test_targets_from_a_policy_are_the_explicit_ones(tmp_path: Path) -> None:
    explicit = _plan("--t", "4", "--eps", "ln(5)", "--k", "50")
    result = runner.invoke(app, ["plan", str(EXAMPLE / "original.csv"), "--policy", str(EXAMPLE / "planned.toml"),
                                 "--json", "-"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == explicit


def test_stochastic_t_closeness_takes_the_smallest_class(tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text('[data]\nqi = ["age", "zip"]\n[sensitive.disease]\nkind = "categorical"\n'
                      '[[require]]\nmodel = "stochastic_t_closeness"\nattribute = "disease"\nthreshold = 3\n', encoding="utf-8")
    result = runner.invoke(app, ["plan", str(EXAMPLE / "original.csv"), "--policy", str(policy), "--json", "-"])
    assert result.exit_code == 0, result.output
    smallest = int(pd.read_csv(EXAMPLE / "original.csv").groupby(["age", "zip"]).size().min())
    document = json.loads(result.stdout)
    assert document["targets"] == {"t0": "3", "eps0": "inf", "k": smallest}
    # No ε target: mechanism 3 (no LDP stage) is allowed and the LDP mechanism runs at ε_t.
    assert document["exp_epsilon_t"]["exact"] == str(Fraction(3 * 2000 - smallest, 2000 - smallest))


def test_the_text_form(tmp_path: Path) -> None:
    result = runner.invoke(app, ["plan", str(EXAMPLE / "original.csv"), "--sensitive", "disease", "--t", "4",
                                 "--eps", "ln(5)", "--k", "50"])
    assert result.exit_code == 0, result.output
    assert "e^eps_t = (t0*N - k)/(N - k) = 53/13 ≈ 4.077" in result.stdout
    assert ("mechanism: tclo  p_t: 153/449  p_LDP: -  e^eps: 449/74 ≈ 6.068  t (exact): 4  t (from eps): 3517/592 ≈ 5.941"
            "  certified by: neither  matrix: histogram") in result.stdout
    assert "kt_closeness (k = 50) <= 4 (this mechanism: 4): an auditor-mode audit certifies it" in result.stdout
    assert "matrix: data-independent: a function of n, N, k and the targets only" in result.stdout
    assert result.stdout.rstrip().endswith("chosen: optimal")


@pytest.mark.parametrize(("options", "message"), [
    (["--t", "1"], "t0 = 1: ε-LDP implies it only at e^ε ≤ (t0·N − k)/(N − k) = 1"),
    (["--t", "2", "--eps", "0"], "eps0 = 0: the ε-LDP mechanism (Fig. 4) keeps a value with p_LDP"),
    (["--t", "2", "--k", "2000"], "k must satisfy 1 <= k < N = 2000 records"),
    (["--t", "1/2"], "--t"),
    (["--t", "2", "--eps", "-1"], "--eps"),
    (["--eps", "1"], "expected the attribute to randomize and the target t0"),
])
def test_targets_no_release_can_meet_exit_2(options: list[str], message: str) -> None:
    result = runner.invoke(app, ["plan", str(EXAMPLE / "original.csv"), "--sensitive", "disease", *options])
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert result.stdout == ""


def test_a_missing_column_and_a_clobbered_input_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["plan", str(EXAMPLE / "original.csv"), "--sensitive", "illness", "--t", "2"])
    assert result.exit_code == 2 and "column 'illness' not found" in result.stderr
    result = runner.invoke(app, ["plan", str(EXAMPLE / "original.csv"), "--sensitive", "disease", "--t", "2",
                                 "--mechanism-out", str(EXAMPLE / "original.csv")])
    assert result.exit_code == 2


def test_an_irrational_e_eps0_is_met_by_a_rational_below_it() -> None:
    below = rational_ratio_below(sympy.Rational(1, 2))
    assert below == sympy.Rational(1648721, 10**6)
    assert below < sympy.exp(sympy.Rational(1, 2)) < below + sympy.Rational(1, 10**6)
    result = plan_release(COUNTS, 4, sympy.Rational(1, 2), 50)
    assert result.rounded and result.paper_best.exp_epsilon == below == result.written.exp_epsilon
    assert plan_release(COUNTS, 4, sympy.log(5), 50).rounded is False


def test_a_single_value_needs_no_noise() -> None:
    result = plan_release({"flu": 10}, 2, sympy.log(2), 3)
    assert result.paper_best.utility == 1 == result.written.utility


def test_library_refusals_are_policy_errors() -> None:
    with pytest.raises(InfeasibleTargets, match="t0 = 1"):
        plan_release(COUNTS, 1, sympy.oo, 5)
    with pytest.raises(PolicyError, match="at least 2 records"):
        plan_release({"flu": 1}, 2, sympy.oo)


@settings(max_examples=20, deadline=None)
@given(counts=st.lists(st.integers(1, 40), min_size=2, max_size=4),
       t0=st.fractions(Fraction(11, 10), Fraction(6)).map(lambda f: f.limit_denominator(20)),
       ratio=st.one_of(st.none(), st.fractions(Fraction(11, 10), Fraction(8)).map(lambda f: f.limit_denominator(20))),
       k=st.integers(1, 5))
def test_the_chosen_mechanism_meets_the_targets_and_is_the_most_useful(
        counts: list[int], t0: Fraction, ratio: Fraction | None, k: int) -> None:
    if k >= sum(counts):
        k = 1
    eps0 = sympy.oo if ratio is None else sympy.log(sympy.Rational(ratio.numerator, ratio.denominator))
    result = plan_release({f"v{i}": c for i, c in enumerate(counts)}, t0, eps0, k)
    chosen = result.paper_best
    matrix = result.mechanism(chosen).matrix
    # ε-LDP from the matrix (largest ratio within a column), and the targets, with Fractions.
    ldp = max(max(row[z] for row in matrix) / min(row[z] for row in matrix) for z in range(len(matrix)))
    assert Fraction(str(chosen.exp_epsilon)) == ldp
    assert ratio is None or ldp <= ratio
    assert Fraction(str(chosen.t)) <= t0
    useful = [c for c in result.plan.choices if c.meets]
    assert all(c.utility <= chosen.utility for c in useful)
    assert len(set(matrix)) > 1  # the release depends on the data
    assert Fraction(str(chosen.utility)) == _utility(matrix, list(result.counts))
    # The written mechanism: the data-independent optimum, certified from ε alone, at least as useful as Fig. 4.
    written = result.mechanism().matrix
    assert written == result.row("optimal").matrix
    assert result.written.certified_by == "auditor" and result.written.data == "independent"
    assert result.written.utility >= result.row("ldp").utility
def test_anonymize_rr_samples_with_the_planned_mechanism(tmp_path: Path) -> None:
    planned = tmp_path / "planned.csv"
    _plan("--t", "4", "--eps", "ln(5)", "--k", "50", "--mechanism-out", str(planned))
    out = tmp_path / "release.csv"
    result = runner.invoke(app, ["anonymize", "rr", str(EXAMPLE / "original.csv"), "--sensitive", "disease",
                                 "--mechanism", str(planned), "--out", str(out), "--seed", "7"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "release.mechanism.csv").read_bytes() == planned.read_bytes()
    original, release = pd.read_csv(EXAMPLE / "original.csv"), pd.read_csv(out)
    assert set(release["disease"]) <= set(COUNTS)
    assert release[["age", "zip"]].equals(original[["age", "zip"]])
    kept = (release["disease"] == original["disease"]).mean()
    assert abs(kept - 53 / 92) < 0.05  # each record keeps its value with probability 53/92


@pytest.mark.parametrize(("options", "message"), [
    (["--keep", "1/2"], "give it without --keep and --mode"),
    (["--mode", "empirical"], "give it without --keep and --mode"),
    ([], None),
])
def test_anonymize_rr_mechanism_refusals(tmp_path: Path, options: list[str], message: str | None) -> None:
    partial = tmp_path / "partial.csv"
    partial.write_text("value,flu,cold\nflu,1/2,1/2\ncold,1/2,1/2\n", encoding="utf-8")
    result = runner.invoke(app, ["anonymize", "rr", str(EXAMPLE / "original.csv"), "--sensitive", "disease",
                                 "--mechanism", str(partial), "--out", str(tmp_path / "r.csv"), *options])
    assert result.exit_code == 2, result.output
    assert (message or "which is not a row of mechanism") in result.stderr
    assert not (tmp_path / "r.csv").exists()


def test_anonymize_rr_needs_keep_or_mechanism(tmp_path: Path) -> None:
    result = runner.invoke(app, ["anonymize", "rr", str(EXAMPLE / "original.csv"), "--sensitive", "disease",
                                 "--out", str(tmp_path / "r.csv")])
    assert result.exit_code == 2 and "expected --keep P" in result.stderr


def test_the_library_plans_like_the_command_line() -> None:
    import dataclasses

    import privcert
    from privcert.api import plan

    frame = pd.read_csv(EXAMPLE / "original.csv", dtype=str)
    result = plan(frame, "disease", t0="4", eps0="ln(5)", k=50)
    assert result.to_json() | {"schema_version": "1"} == _plan("--t", "4", "--eps", "ln(5)", "--k", "50")
    assert plan(EXAMPLE / "original.csv", policy=privcert.load_policy(EXAMPLE / "planned.toml")) == result
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.attribute = "other"  # type: ignore[misc]
    with pytest.raises(PolicyError, match="not both"):
        plan(frame, "disease", t0=2, policy=EXAMPLE / "planned.toml")
    assert "plan" in privcert.api.__all__


def test_from_targets_to_a_verified_certificate(tmp_path: Path) -> None:
    """plan -> anonymize rr --mechanism -> audit (auditor mode, declared mechanism) --sign -> verify."""
    import base64

    policy = EXAMPLE / "planned.toml"
    planned, release, cert = tmp_path / "planned.csv", tmp_path / "release.csv", tmp_path / "release.cert.json"
    key = tmp_path / "publisher.key"
    steps = [
        ["plan", str(EXAMPLE / "original.csv"), "--policy", str(policy), "--mechanism-out", str(planned)],
        ["anonymize", "rr", str(EXAMPLE / "original.csv"), "--sensitive", "disease", "--mechanism", str(planned),
         "--out", str(release), "--seed", "7"],
        ["keygen", "--out", str(key)],
        ["audit", str(release), "--policy", str(policy), "--mechanism", str(planned), "--mode", "auditor",
         "--sign", str(key), "--certificate", str(cert)],
        ["verify", str(cert), "--public-key", f"{key}.pub", "--data", str(release)],
        ["verify", str(cert), "--public-key", f"{key}.pub"],  # from the embedded count tables alone
    ]
    for argv in steps:
        result = runner.invoke(app, argv)
        assert result.exit_code == 0, (argv, result.output)
    assert "VALID: every re-checkable statement holds; certified verdict PASS" in result.stdout
    predicate = json.loads(base64.b64decode(json.loads(cert.read_text())["payload"]))["predicate"]
    assert predicate["verdict"] == "pass" and predicate["randomized"]["mode"] == "auditor"
    levels = {(m["model"], m["parameters"].get("k")): m for m in predicate["randomized"]["measurements"]}
    ldp, kt = levels[("ldp", None)], levels[("kt_closeness", 50)]
    assert ldp["exact"] == "ln(53/13)" and not ldp.get("implied")  # measured on the declared mechanism
    assert kt["exact"] == "4" and kt["implied"] is True  # t = (50 + 1950·53/13)/2000 = t0
    targets = {(r["model"], r["parameters"].get("k")): parse_exact(r["threshold"], r["model"]) for r in predicate["measurements"]}
    assert bool(parse_exact(ldp["exact"], "ldp") <= targets[("ldp", None)])  # ε = ln(53/13) ≤ ε0 = ln(5)
    assert bool(parse_exact(kt["exact"], "kt") <= targets[("kt_closeness", 50)])
    assert predicate["mechanism"]["text"] == planned.read_text(encoding="utf-8")


SETTING = ROOT / "examples" / "theory_utility" / "setting.csv"


def test_the_worked_setting_of_section_VD_through_the_command_line() -> None:
    """Ekenstedt et al. 2022, Sec. V.D: t0 = 2, n = 2, N = 100, k = 5, uniform p_y, ε0 = ε_t (paper: 0.7).

    Exact values, derived by hand: e^ε_t = (2·100 − 5)/(100 − 5) = 39/19 (Thm. 3 corrected; the
    printed N − k − 1 gives 195/94); p_LDP = (20/19)/(20/19 + 2) = 10/29, U = p + (1 − p)/2 = 39/58;
    p_t = min(1 − 1/2, 1·(1/2)/(1/2)) = 1/2, Fig. 5 = [[3/4, 1/4], [1/4, 3/4]]: e^ε = 3, t = 2, U = 3/4;
    composed: [[17/29, 12/29], [12/29, 17/29]]: e^ε = 17/12, t = (1/2)/(12/29) = 29/24, U = 17/29.
    """
    result = runner.invoke(app, ["plan", str(SETTING), "--sensitive", "value", "--t", "2", "--eps", "ln(39/19)",
                                 "--k", "5", "--json", "-"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert (document["N"], document["targets"]) == (100, {"t0": "2", "eps0": "ln(39/19)", "k": 5})
    assert document["exp_epsilon_t"]["exact"] == "39/19"
    assert round(document["epsilon_t"]["decimal"], 1) == 0.7  # the paper's rounded ε_t
    found = {m["name"]: tuple(None if m[f] is None else m[f]["exact"] for f in ("p_t", "p_ldp", "exp_epsilon", "t", "utility"))
             + (m["certified_by"],) for m in document["mechanisms"][:3]}
    assert found == {
        "ldp": (None, "10/29", "39/19", "29/19", "39/58", "auditor"),
        "tclo+ldp": ("1/2", "10/29", "17/12", "29/24", "17/29", "auditor"),
        "tclo": ("1/2", None, "3", "2", "3/4", "neither"),  # e^ε = 3 > e^ε0 = 39/19
    }
    assert (document["paper_chosen"], document["chosen"]) == ("ldp", "optimal")
    # Two values, uniform: randomized response at e^ε0 is the optimum of every reading (the merging argument
    # leaves a 2×2 matrix; its column ratios bound both diagonals: a ≤ e^ε (1 − b), b ≤ e^ε (1 − a)).
    optima = {m["name"]: m["utility"]["exact"] for m in document["mechanisms"][3:]}
    assert optima == {"optimal": "39/58", "optimal-auditor": "39/58", "optimal-publisher": "39/58"}


def test_the_printed_theorem_3_would_miss_the_worked_target() -> None:
    """The printed Thm. 3 gives e^ε_t = 195/94; at that ε the (5, t)-closeness guaranteed (and attained) is above 2."""
    from theory.mechanism_selection.planner import implied_t

    assert implied_t(sympy.Rational(39, 19), 100, 5) == 2
    assert implied_t(sympy.Rational(195, 94), 100, 5) == sympy.Rational(18995, 9400)  # > t0 = 2


def test_figure_points_are_the_papers_setting_exactly() -> None:
    from theory.mechanism_selection.figures import figure6_points, figure7_points

    six = figure6_points(steps=4)
    assert [p.x for p in six] == [Fraction(i, 4) for i in range(5)]
    middle = six[2]
    assert (middle.utility("ldp"), middle.utility("tclo+ldp"), middle.utility("tclo")) == (
        sympy.Rational(39, 58), sympy.Rational(17, 29), sympy.Rational(3, 4))
    assert all(p.utility(name) == 1 for p in (six[0], six[-1]) for name in ("ldp", "tclo+ldp", "tclo"))
    seven = figure7_points(sizes=(4,), t0s=(Fraction(1), Fraction(2)))
    assert [(p.values, p.x) for p in seven] == [(4, 1), (4, 2)]
    assert all(p.utility(name) == Fraction(1, 4) for name in ("ldp", "tclo+ldp", "tclo") for p in seven[:1])
    # examples/theory_utility/README.md, Fig. 7 at t0 = 2, n = 4: 0.4062, 0.3021, 0.5000.
    assert [round(float(seven[1].utility(name)), 4) for name in ("ldp", "tclo+ldp", "tclo")] == [0.4062, 0.3021, 0.5]
    # Mechanism 1 is at least as useful as mechanism 2 at every point (Ekenstedt et al. 2022, Sec. V.D).
    assert all(p.utility("ldp") >= p.utility("tclo+ldp") for p in (*six, *seven))


def test_figures_are_drawn_as_png_and_svg(tmp_path: Path) -> None:
    from theory.mechanism_selection.figures import (
        figure6_points,
        figure7_points,
        plot_figure6,
        plot_figure7,
        save_figure,
    )

    written = [*save_figure(plot_figure6(figure6_points(steps=2), "six"), tmp_path / "out", "fig6"),
               *save_figure(plot_figure7(figure7_points(sizes=(2, 4), t0s=(Fraction(2), Fraction(3))), "seven"),
                            tmp_path / "out", "fig7")]
    assert [path.name for path in written] == ["fig6.png", "fig6.svg", "fig7.png", "fig7.svg"]
    assert all(path.read_bytes().startswith(b"\x89PNG") for path in written[::2])
    assert all(b"<svg" in path.read_bytes()[:1000] for path in written[1::2])


def test_figures_without_an_original_refuse_plan_options(tmp_path: Path) -> None:
    result = runner.invoke(app, ["plan", "--figures", str(tmp_path), "--eps", "1"])
    assert result.exit_code == 2 and "without ORIGINAL only --figures DIR" in result.stderr
    result = runner.invoke(app, ["plan"])
    assert result.exit_code == 2 and "expected ORIGINAL" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_plan_figures_draws_the_papers_figures(tmp_path: Path) -> None:
    result = runner.invoke(app, ["plan", "--figures", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["fig6.png", "fig6.svg", "fig7.png", "fig7.svg"]


def test_too_many_values_are_refused() -> None:
    from theory.mechanism_selection.release_plan import MAX_VALUES

    with pytest.raises(PolicyError, match=f"{MAX_VALUES + 1} distinct values"):
        plan_release({f"v{i}": 1 for i in range(MAX_VALUES + 1)}, 2, sympy.oo)
