"""The optimum over every mechanism (:mod:`theory.mechanism_selection.optimal`) and the plans that write it.

Oracles, none sharing code with the planner: an exhaustive search over a grid of small row-stochastic
matrices (n ≤ 3) with the targets checked from their definitions in Fractions (ε-LDP: every column within
ratio e^ε; (k, t)-closeness: the k records of largest and of smallest entry in every column, with the
original's multiplicities), eq. (4) recomputed from the matrix, and the documented flow run end to end.
"""

from __future__ import annotations

import base64
import itertools
import json
import random
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from privcert.cli import app
from theory.mechanism_selection.optimal import optimal_mechanism
from theory.mechanism_selection.release_plan import plan_release
from verifier.randomized.mechanism import mechanism_csv

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "randomized"
COUNTS = {"asthma": 384, "cold": 593, "flu": 819, "hiv": 204}
runner = CliRunner()
Matrix = Sequence[Sequence[Fraction]]


def _utility(matrix: Matrix, counts: Sequence[int]) -> Fraction:
    total = sum(counts)
    return sum((max(Fraction(c, total) * row[z] for c, row in zip(counts, matrix)) for z in range(len(matrix[0]))),
               Fraction(0))


def _ldp(matrix: Matrix) -> Fraction | None:
    """e^ε over every row (None: infinite)."""
    worst = Fraction(1)
    for z in range(len(matrix[0])):
        column = [row[z] for row in matrix]
        if max(column) == 0:
            continue
        if min(column) == 0:
            return None
        worst = max(worst, max(column) / min(column))
    return worst


def _kt(matrix: Matrix, counts: Sequence[int], k: int) -> Fraction | None:
    """(k, t)-closeness from Def. 7: the k records of largest and of smallest entry of every column."""
    total, worst = sum(counts), Fraction(1)
    for z in range(len(matrix[0])):
        records = sorted(value for row, c in zip(matrix, counts) for value in [row[z]] * c)
        share = sum(records, Fraction(0)) / total
        if share == 0:
            continue
        low, high = sum(records[:k], Fraction(0)) / k, sum(records[-k:], Fraction(0)) / k
        if low == 0:
            return None
        worst = max(worst, high / share, share / low)
    return worst


def _meets(matrix: Matrix, counts: Sequence[int], t0: Fraction, ratio: Fraction | None, k: int, reading: str) -> bool:
    records = sum(counts)
    bound = ratio
    if reading == "auditor":
        implied = (t0 * records - k) / (records - k)
        bound = implied if ratio is None else min(ratio, implied)
    level = _ldp(matrix)
    if bound is not None and (level is None or level > bound):
        return False
    if reading == "publisher":
        t = _kt(matrix, counts, k)
        return t is not None and t <= t0
    return True


def _rows(n: int, grid: int) -> list[tuple[Fraction, ...]]:
    return [tuple(Fraction(c, grid) for c in parts) for parts in itertools.product(range(grid + 1), repeat=n)
            if sum(parts) == grid]


def _brute_force(counts: Sequence[int], t0: Fraction, ratio: Fraction | None, k: int, reading: str, grid: int) -> Fraction:
    rows = _rows(len(counts), grid)
    return max(_utility(m, counts) for m in itertools.product(rows, repeat=len(counts))
               if _meets(m, counts, t0, ratio, k, reading))


CASES = [
    ((30, 70), Fraction(2), Fraction(3), 5),
    ((10, 90), Fraction(3), None, 1),
    ((50, 50), Fraction(3, 2), Fraction(5), 20),
    ((3, 4, 5), Fraction(2), Fraction(4), 2),
    ((1, 2, 9), Fraction(3), None, 1),
]


@pytest.mark.parametrize(("counts", "t0", "ratio", "k"), CASES)
@pytest.mark.parametrize("reading", ["auditor", "publisher"])
def test_no_grid_matrix_beats_the_optimum(counts: tuple[int, ...], t0: Fraction, ratio: Fraction | None, k: int,
                                          reading: str) -> None:
    best = optimal_mechanism(counts, t0, ratio, k, reading, "data")  # type: ignore[arg-type]
    oracle = _brute_force(counts, t0, ratio, k, reading, 40 if len(counts) == 2 else 6)
    assert best.utility >= oracle
    assert best.objective <= best.utility <= best.bound and best.gap < Fraction(1, 10**6)
    assert _meets(best.matrix, counts, t0, ratio, k, reading)
    assert all(sum(row) == 1 and min(row) >= 0 for row in best.matrix)
    assert best.utility == _utility(best.matrix, counts)


def test_two_values_the_optimum_is_known_in_closed_form() -> None:
    """n = 2 under ε-LDP alone (auditor, no t binding): randomized response at e^ε is optimal for every prior
    whose best guess follows the release, U = (f_1 e^ε + f_2 e^ε)/(1 + e^ε) = e^ε/(1 + e^ε) with e^ε = 3: 3/4."""
    best = optimal_mechanism((50, 50), Fraction(100), Fraction(3), 1, "auditor", "data")
    assert best.utility == Fraction(3, 4) and best.matrix == ((Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4)))
    assert best.exp_epsilon == 3 and best.mixed == 0


def _paper_rows(plan: object) -> dict[str, object]:
    return {row.name: row for row in plan.rows}  # type: ignore[attr-defined]


def _check_plan(counts: dict[str, int], t0: Fraction, eps0: sympy.Expr, k: int) -> dict[str, Fraction]:
    result = plan_release(counts, t0, eps0, k)
    numbers, ratio = list(result.counts), None if result.exp_epsilon_bound == sympy.oo else Fraction(str(result.exp_epsilon_bound))
    rows = _paper_rows(result)
    for row in result.rows:
        assert _utility(row.matrix, numbers) == Fraction(str(row.utility)), row.name
        certified = row.certified_by
        assert (certified == "auditor") == _meets(row.matrix, numbers, t0, ratio, k, "auditor"), row.name
        assert (certified != "neither") == _meets(row.matrix, numbers, t0, ratio, k, "publisher"), row.name
    paper = [rows[name] for name in ("ldp", "tclo+ldp", "tclo")]
    publisher = rows["optimal-publisher"]
    auditor = rows["optimal-auditor"]
    independent = rows["optimal"]
    assert publisher.certified_by != "neither" and auditor.certified_by == independent.certified_by == "auditor"
    assert publisher.utility >= max(r.utility for r in paper if r.certified_by != "neither")
    assert auditor.utility >= max(r.utility for r in paper if r.certified_by == "auditor")
    assert independent.utility >= rows["ldp"].utility
    for optimum in result.optima:
        assert optimum.objective <= optimum.bound and optimum.gap < Fraction(1, 10**6)
    best_paper = max(r.utility for r in paper if r.certified_by != "neither")
    return {"publisher": Fraction(str(publisher.utility / best_paper)),
            "auditor": Fraction(str(auditor.utility / max(r.utility for r in paper if r.certified_by == "auditor")))}


def _random_targets(seed: int) -> tuple[dict[str, int], Fraction, sympy.Expr, int]:
    rng = random.Random(seed)
    n = rng.randint(2, 8)
    counts = {f"v{i}": rng.randint(1, 60) * (rng.choice([1, 1, 5])) for i in range(n)}
    records = sum(counts.values())
    t0 = rng.choice([Fraction(3, 2), Fraction(2), Fraction(3), Fraction(5)])
    eps0 = rng.choice([sympy.oo, sympy.log(2), sympy.log(5), sympy.Rational(1, 2)])
    return counts, t0, eps0, rng.randint(1, max(1, records // 4))


def test_the_bundled_example_gains_over_the_papers_best() -> None:
    ratios = _check_plan(COUNTS, Fraction(4), sympy.log(5), 50)
    # publisher 449/700 against Fig. 4's 53/92; the auditor's 23797/39500 against the same
    assert ratios == {"publisher": Fraction(449, 700) / Fraction(53, 92), "auditor": Fraction(23797, 39500) / Fraction(53, 92)}


@pytest.mark.parametrize("seed", range(6))
def test_random_originals_the_optimum_is_at_least_the_papers(seed: int) -> None:
    assert min(_check_plan(*_random_targets(seed)).values()) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6, 46))
def test_forty_more_random_originals(seed: int) -> None:
    assert min(_check_plan(*_random_targets(seed)).values()) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("reading", ["auditor", "publisher"])
def test_a_finer_grid_for_three_values(reading: str) -> None:
    counts, t0, ratio, k = (2, 3, 7), Fraction(2), Fraction(3), 2
    best = optimal_mechanism(counts, t0, ratio, k, reading, "data")  # type: ignore[arg-type]
    assert best.utility >= _brute_force(counts, t0, ratio, k, reading, 12)


def test_one_record_changed_leaves_the_data_independent_optimum_as_it_is() -> None:
    """Replacing one record's value (N and the values present unchanged): the data-independent optimum is the
    same matrix, so its file says nothing of the change; the data-dependent ones are marked as disclosing."""
    before = plan_release({"a": 30, "b": 50, "c": 20}, 3, sympy.log(4), 5)
    after = plan_release({"a": 29, "b": 50, "c": 21}, 3, sympy.log(4), 5)
    assert before.written.name == after.written.name == "optimal"
    assert before.mechanism() == after.mechanism()
    assert before.written.data == "independent" and "data-independent" in before.mechanism().name
    for result in (before, after):
        marks = {row.name: row.data for row in result.rows}
        assert marks == {"ldp": "independent", "tclo+ldp": "histogram", "tclo": "histogram", "optimal": "independent",
                         "optimal-auditor": "counts", "optimal-publisher": "counts"}
    # Fig. 5 holds the frequencies themselves: its file tells the two originals apart, and says so.
    assert before.row("tclo").matrix != after.row("tclo").matrix
    chosen = plan_release({"a": 30, "b": 50, "c": 20}, 3, sympy.log(4), 5, audience="publisher", data_dependent=True)
    assert chosen.written.name == "optimal-publisher"
    assert chosen.mechanism().name.endswith("(computed from the original's value counts: the matrix may disclose them)")
    # and the file it writes carries the mark (the certificate that carries the file, too)
    assert mechanism_csv(chosen.mechanism()).startswith("# data: counts\nvalue,a,b,c\n")
    assert mechanism_csv(before.mechanism()).startswith("# data: independent\nvalue,a,b,c\n")
    assert mechanism_csv(before.mechanism(before.plan.choice("tclo"))).startswith("# data: histogram\n")


@pytest.mark.parametrize("eps0", ["0.0000001", "1e-12", "0.000000000000000000000000000001", "40", "1000", "ln(1000000000000000000000000000000)"])
def test_every_decimal_eps0_is_planned(eps0: str, tmp_path: Path) -> None:
    out = tmp_path / "planned.csv"
    result = runner.invoke(app, ["plan", str(EXAMPLE / "original.csv"), "--sensitive", "disease", "--t", "4", "--k", "50",
                                 "--eps", eps0, "--mechanism-out", str(out), "--json", "-"])
    assert result.exit_code == 0, result.output
    from verifier.literal import Domain, parse_exact
    from verifier.randomized.mechanism import load_mechanism

    target = parse_exact(eps0, "--eps", Domain(lower=Fraction(0), infinite=True))
    level = _ldp(load_mechanism(out).matrix)
    assert level is not None and level > 1  # the release depends on the data
    assert bool(sympy.log(sympy.Rational(level.numerator, level.denominator)) <= target)  # decided exactly


def _write_original(path: Path) -> None:
    rows = [{"zip": f"z{i % 2}", "disease": "a" if i < 40 else "b"} for i in range(100)]
    pd.DataFrame(rows).to_csv(path, index=False)


def _policy(path: Path, t0: str, k: int) -> None:
    path.write_text('[data]\nqi = ["zip"]\n[sensitive.disease]\nkind = "categorical"\n'
                    f'[[require]]\nmodel = "kt_closeness"\nattribute = "disease"\nk = {k}\nthreshold = {t0}\n',
                    encoding="utf-8")


def _flow(tmp_path: Path, original: Path, policy: Path, plan: list[str], mode: str) -> tuple[dict, object]:
    planned, release, cert, key = (tmp_path / name for name in ("planned.csv", "release.csv", "cert.json", "p.key"))
    document = runner.invoke(app, ["plan", str(original), "--policy", str(policy), *plan, "--mechanism-out",
                                   str(planned), "--json", "-"])
    assert document.exit_code == 0, document.output
    steps = [["anonymize", "rr", str(original), "--sensitive", "disease", "--mechanism", str(planned),
              "--out", str(release), "--seed", "7"], ["keygen", "--out", str(key)]]
    for argv in steps:
        assert runner.invoke(app, argv).exit_code == 0
    audited = release if mode == "auditor" else original
    subject = [] if mode == "auditor" else ["--release", str(release)]  # the certificate names the release
    audit = runner.invoke(app, ["audit", str(audited), "--policy", str(policy), "--mechanism", str(planned), "--mode",
                                mode, *subject, "--sign", str(key), "--certificate", str(cert)])
    return json.loads(document.stdout), (audit, cert, key)


def test_the_flow_certifies_an_auditor_plan_where_the_paper_picked_fig5(tmp_path: Path) -> None:
    """40/60 records, t0 = 2 for every record: the paper's choice is Fig. 5, which only a publisher can certify;
    the auditor's plan writes the optimum an auditor-mode audit certifies, signed and verified."""
    original, policy = tmp_path / "original.csv", tmp_path / "policy.toml"
    _write_original(original)
    _policy(policy, "2", 1)
    document, (audit, cert, key) = _flow(tmp_path, original, policy, [], "auditor")
    assert (document["paper_chosen"], document["chosen"]) == ("tclo", "optimal")
    assert {m["name"]: m["certified_by"] for m in document["mechanisms"]}["tclo"] == "publisher"
    assert [r["auditor"] for r in document["requirements"]] == [True]
    assert audit.exit_code == 0, audit.output  # type: ignore[attr-defined]
    verified = runner.invoke(app, ["verify", str(cert), "--public-key", f"{key}.pub"])
    assert verified.exit_code == 0 and "certified verdict PASS" in verified.stdout
    predicate = json.loads(base64.b64decode(json.loads(cert.read_text())["payload"]))["predicate"]
    assert predicate["verdict"] == "pass" and predicate["randomized"]["mode"] == "auditor"


def test_the_flow_for_a_publisher_certifies_in_publisher_mode_and_an_auditor_is_told(tmp_path: Path) -> None:
    original, policy = tmp_path / "original.csv", tmp_path / "policy.toml"
    _write_original(original)
    _policy(policy, "2", 1)
    document, (audit, cert, key) = _flow(tmp_path, original, policy, ["--for", "publisher", "--data-dependent"],
                                         "publisher")
    assert (document["for"], document["chosen"]) == ("publisher", "optimal-publisher")
    # announced: only a publisher-mode audit certifies t
    assert [(r["auditor"], r["publisher"]) for r in document["requirements"]] == [(False, True)]
    assert audit.exit_code == 0, audit.output  # type: ignore[attr-defined]
    verified = runner.invoke(app, ["verify", str(cert), "--public-key", f"{key}.pub", "--original", str(original),
                                   "--data", str(tmp_path / "release.csv")])
    assert verified.exit_code == 0 and "certified verdict PASS" in verified.stdout, verified.output
    # the auditor-mode audit of the same release does not certify t, as the plan said
    auditor = runner.invoke(app, ["audit", str(tmp_path / "release.csv"), "--policy", str(policy), "--mechanism",
                                  str(tmp_path / "planned.csv"), "--mode", "auditor"])
    assert auditor.exit_code == 1, auditor.output


@pytest.mark.parametrize(("t0", "eps0", "k"), [("4", "ln(5)", 50), ("2", None, 500), ("3/2", "0.7", 10)])
def test_the_auditor_flow_certifies_auditor_plans_on_the_bundled_original(t0: str, eps0: str | None, k: int,
                                                                          tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text('[data]\nqi = ["age", "zip"]\n[sensitive.disease]\nkind = "categorical"\n'
                      f'[[require]]\nmodel = "kt_closeness"\nattribute = "disease"\nk = {k}\nthreshold = "{t0}"\n'
                      + ("" if eps0 is None else f'[[require]]\nmodel = "ldp"\nattribute = "disease"\nthreshold = "{eps0}"\n'),
                      encoding="utf-8")
    for extra in ([], ["--data-dependent"]):
        folder = tmp_path / ("dependent" if extra else "independent")
        folder.mkdir()
        document, (audit, _, _) = _flow(folder, EXAMPLE / "original.csv", policy, extra, "auditor")
        assert all(r["auditor"] for r in document["requirements"])
        assert audit.exit_code == 0, (extra, audit.output)  # type: ignore[attr-defined]


@settings(max_examples=25, deadline=None)
@given(counts=st.lists(st.integers(1, 30), min_size=2, max_size=5),
       t0=st.fractions(Fraction(11, 10), Fraction(6)).map(lambda f: f.limit_denominator(12)),
       ratio=st.one_of(st.none(), st.fractions(Fraction(11, 10), Fraction(8)).map(lambda f: f.limit_denominator(12))),
       k=st.integers(1, 6), reading=st.sampled_from(["auditor", "publisher"]),
       prior=st.sampled_from(["data", "uniform"]))
def test_every_optimum_meets_its_targets_and_beats_randomized_response(
        counts: list[int], t0: Fraction, ratio: Fraction | None, k: int, reading: str, prior: str) -> None:
    k = min(k, sum(counts) - 1)
    best = optimal_mechanism(counts, t0, ratio, k, reading, prior)  # type: ignore[arg-type]
    assert _meets(best.matrix, counts, t0, ratio, k, reading)
    assert all(sum(row) == 1 and min(row) >= 0 for row in best.matrix)
    assert best.objective <= best.bound
    n, records = len(counts), sum(counts)
    weights = [Fraction(c, records) for c in counts] if prior == "data" else [Fraction(1, n)] * n
    # Fig. 4 at the auditor's e^ε is feasible in both readings (its exact t is at most the t its ε implies)
    bound = (t0 * records - k) / (records - k)
    r = bound if ratio is None else min(ratio, bound)
    keep = r / (r - 1 + n)
    assert best.objective >= sum(weights, Fraction(0)) * keep
