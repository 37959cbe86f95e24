"""privcert against pyCANON: agreement where pyCANON is right, and each difference explained.

pyCANON (PyPI ``pycanon``, see tests/peers/pycanon_env.py) runs in its own virtual
environment, in a subprocess, on a CSV copy of each release. Its defects, confirmed in
its source (pycanon 1.3.6, ``pycanon/anonymity``; docs/peers.md quotes the lines):

1. *Labels read as positions.* Classes come from ``groupby(...).groups`` (index
   **labels**) and their rows are read with ``data.iloc[labels]`` (**positions**). On a
   frame whose labels are a permutation of ``0..n-1`` it silently measures another table:
   the quasi-identifiers of row ``i`` paired with the sensitive value at position
   ``label[i]``. Other labels raise.
2. *Missing quasi-identifiers dropped.* ``groupby`` drops rows with a missing
   quasi-identifier from every class, while the overall distribution still counts them.
   With the pandas pyCANON pins (2.3.3) this happens with ONE quasi-identifier only:
   ``.groups`` of a groupby on several keys keeps the keys holding NaN (and groups them
   as privcert does: a missing value is a value of its own).
3. *Recursive (c,l) from the wrong end.* Counts are sorted increasingly and the
   *smallest* count is divided by the sum of the largest ones.
4. *Entropy l truncated.* ``int(e ** H)``: a class uniform over 3 values reports 2.
5. *Enhanced β-likeness* is ``min(β_basic, −ln p_min)``, not Cao & Karras' definition.
6. *δ-disclosure* skips the cells with ``q = 0`` instead of reporting ``δ = ∞``.

So every release is compared twice. The *view* is the count table pyCANON actually
measures (defects 1 and 2 applied to the data, built with privcert's own count tables);
pyCANON must agree with privcert's exact measures of the view for k, (α,k), distinct l,
t-closeness (ordered and equal) and basic β, and with the published formulas' *defective*
variants (3–6), computed here independently from the view's dense counts. On a release
with a RangeIndex and no missing quasi-identifier the view is the release itself, so
there pyCANON and privcert agree outright on every measure pyCANON gets right.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import sympy

from peers.pycanon_env import FUNCTIONS as ALL_FUNCTIONS
from peers.pycanon_env import PycanonEnv, pycanon_env
from verifier.measure import MeasureResult, measure
from verifier.privacy.anonymity import alpha_k_anonymity
from verifier.privacy.diversity import distinct_l_diversity, entropy_l_diversity, recursive_cl_diversity
from verifier.privacy.likeness import (
    basic_beta_likeness,
    delta_disclosure,
    delta_disclosure_present,
    enhanced_beta_likeness,
)
from verifier.privacy.t_closeness import t_closeness
from verifier.question import Question
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec, CountTable

QI = ["age", "zip", "sex"]
SPECS = {"disease": AttributeSpec(("disease",), "categorical"), "salary": AttributeSpec(("salary",), "numerical")}
DISTANCE = {"disease": "equal", "salary": "ordered"}
FUNCTIONS = ALL_FUNCTIONS[1:]
REL = 1e-9


@pytest.fixture(scope="module")
def pycanon() -> PycanonEnv:
    env = pycanon_env()
    if not env.available:
        pytest.skip(f"pyCANON's virtual environment could not be built: {env.reason}")
    return env


def run_pycanon(
    env: PycanonEnv, frame: pd.DataFrame, folder: Path, calls: list[dict[str, Any]], qi: list[str] = QI
) -> dict[str, Any]:
    """pyCANON's answers by ``function`` or ``function/attribute`` (index labels kept)."""
    path = folder / "release.csv"
    frame.to_csv(path, index=True, index_label="label")
    answer = env.run({"csv": str(path), "index_col": True, "qi": qi, "calls": calls}, timeout=300)
    return {
        r["function"] if r["sensitive"] is None else f"{r['function']}/{r['sensitive']}": r for r in answer["results"]
    }


def all_calls() -> list[dict[str, Any]]:
    return [{"function": "k_anonymity"}] + [
        {"function": f, "sensitive": s} for s in SPECS for f in FUNCTIONS
    ]


def release(seed: int, rows: int, index: str, missing: bool) -> pd.DataFrame:
    """A small release: 3 QIs (one numeric), a categorical and a numerical attribute.

    ``index``: ``range`` (RangeIndex), ``permuted`` (a permutation of 0..n-1) or
    ``offset`` (labels 1000..). ``missing``: about 8% of QI cells missing.
    """
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "age": rng.choice([20, 30, 40], rows).astype(float),
        "zip": rng.choice(["476**", "479**"], rows).astype(object),
        "sex": rng.choice(["F", "M"], rows, p=[0.6, 0.4]).astype(object),
        "disease": rng.choice(["cancer", "flu", "gastritis", "ulcer"], rows, p=[0.1, 0.4, 0.3, 0.2]).astype(object),
        "salary": rng.choice(np.arange(3, 12), rows) * 1000,
    })
    if missing:
        for column in QI:
            frame.loc[rng.random(rows) < 0.08, column] = np.nan if column == "age" else None
    if index == "permuted":
        frame.index = rng.permutation(rows)
    elif index == "offset":
        frame.index = np.arange(1000, 1000 + rows)
    return frame


def pycanon_view(frame: pd.DataFrame, attribute: str, qi: list[str] = QI) -> CountTable:
    """The count table pyCANON measures on ``frame`` (defects 1 and 2 applied).

    Row ``i``'s class is read from its quasi-identifiers, its sensitive value from
    position ``label[i]``; with a single quasi-identifier, classes with a missing value
    get size 0 (privcert's measures skip them) while the overall counts keep every row.
    """
    seen = frame.reset_index(drop=True)
    seen[attribute] = frame[attribute].to_numpy()[frame.index.to_numpy()]
    classes, (table,) = count_tables(seen, qi, [SPECS[attribute]])
    dropped = classes.keys[qi].isna().any(axis=1).to_numpy() & (len(qi) == 1)
    keep = ~dropped[table.class_index]
    return dataclasses.replace(
        table,
        class_index=table.class_index[keep],
        value_index=table.value_index[keep],
        count=table.count[keep],
        sizes=np.where(dropped, 0, table.sizes),
    )


def dense(table: CountTable) -> Iterator[np.ndarray]:
    """The counts of each class that has rows, over all values (int64)."""
    for _, _, block in table.blocks():
        yield from (row for row in block if row.sum() > 0)


def assert_close(ours: float | None, theirs: float | None, what: str) -> None:
    assert ours is not None and theirs is not None, f"{what}: privcert {ours}, pyCANON {theirs}"
    assert math.isclose(ours, theirs, rel_tol=REL, abs_tol=1e-12), f"{what}: privcert {ours}, pyCANON {theirs}"


def check_attribute(table: CountTable, answers: dict[str, Any], attribute: str) -> None:
    """pyCANON's answers on one attribute against privcert's exact measures of the view."""
    got = {f: answers[f"{f}/{attribute}"]["value"] for f in FUNCTIONS}
    rows = list(dense(table))
    p = table.totals / table.n

    alpha, k = got["alpha_k_anonymity"]
    assert_close(alpha_k_anonymity(table).level.number, alpha, "alpha")
    assert k == int(min(r.sum() for r in rows))
    l_star = distinct_l_diversity(table).level
    assert got["l_diversity"] == int(l_star.value)

    # Defect 4: pyCANON truncates its float e**H; privcert's level is the exact exp(min H).
    entropies = [-np.sum((r[r > 0] / r.sum()) * np.log(r[r > 0] / r.sum())) for r in rows]
    exact_l = entropy_l_diversity(table).level
    assert_close(exact_l.number, math.exp(min(entropies)), "entropy l (independent)")
    assert got["entropy_l_diversity"] == int(min(np.exp(1) ** np.array(entropies)))
    assert 0 <= float(exact_l.value) - got["entropy_l_diversity"] < 1 + 1e-9

    # Defect 3: pyCANON's c comes from the increasing sort; privcert's from the decreasing one.
    c_got, l_got = got["recursive_c_l_diversity"]
    assert l_got == int(l_star.value)
    if l_got == 1:
        assert c_got is None
    else:
        ordered = [np.sort(r[r > 0]) for r in rows]
        assert c_got == max(int(math.floor(o[0] / o[l_got - 1 :].sum() + 1)) for o in ordered)
        c_star = recursive_cl_diversity(table, l_got).level.value
        assert c_star == max(sympy.Rational(int(o[-1]), int(o[::-1][l_got - 1 :].sum())) for o in ordered)
        assert c_got <= math.floor(c_star) + 1, "pyCANON's c never exceeds the smallest integer c > c*"

    t = t_closeness(table, DISTANCE[attribute])
    assert_close(t.level.number, got["t_closeness"], f"t-closeness ({DISTANCE[attribute]})")

    basic = basic_beta_likeness(table).level
    assert_close(basic.number, got["basic_beta_likeness"], "basic beta")

    # Defect 5: pyCANON's "enhanced" value is min(basic, -ln p_min) whatever the gains.
    present = table.totals > 0
    assert_close(min(float(basic.value), float((-np.log(p[present])).max())), got["enhanced_beta_likeness"],
                 "enhanced beta (pyCANON's formula)")
    gains = [(r / r.sum() - p)[present] / p[present] for r in rows]
    unattainable = any((g > -np.log(p[present]) * (1 + 1e-9)).any() for g in gains)
    enhanced = enhanced_beta_likeness(table).level
    if unattainable:
        assert enhanced.value == sympy.oo
    else:
        assert enhanced.value == basic.value

    # Defect 6: pyCANON skips q = 0; privcert's δ is infinite as soon as a class lacks a value.
    ratios = [(r / r.sum())[present] / p[present] for r in rows]
    assert_close(max(float(np.abs(np.log(x[x > 0])).max()) for x in ratios), got["delta_disclosure"],
                 "delta over the cells with q > 0")
    assert_close(delta_disclosure_present(table).level.number, got["delta_disclosure"], "delta over present values")
    delta = delta_disclosure(table).level
    if any((x == 0).any() for x in ratios):
        assert delta.value == sympy.oo
    else:
        assert_close(delta.number, got["delta_disclosure"], "delta")


def truth(frame: pd.DataFrame, l: int) -> MeasureResult:
    return measure(frame, Question.of(QI, list(SPECS.values()), l=l))


CASES = [
    (seed, rows, index, missing, qi)
    for seed, rows in ((1, 40), (2, 90), (3, 200))
    for index, missing in (("range", False), ("permuted", False), ("range", True), ("permuted", True))
    for qi in ((QI, ["zip"]) if missing else (QI,))
]


@pytest.mark.parametrize(("seed", "rows", "index", "missing", "qi"), CASES)
def test_pycanon_measures_the_view(
    pycanon: PycanonEnv, tmp_path: Path, seed: int, rows: int, index: str, missing: bool, qi: list[str]
) -> None:
    frame = release(seed, rows, index, missing)
    answers = run_pycanon(pycanon, frame, tmp_path, all_calls(), qi)
    views = {attribute: pycanon_view(frame, attribute, qi) for attribute in SPECS}
    assert answers["k_anonymity"]["value"] == int(min(r.sum() for r in dense(views["disease"])))
    for attribute, table in views.items():
        check_attribute(table, answers, attribute)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_agreement_on_clean_releases(pycanon: PycanonEnv, tmp_path: Path, seed: int) -> None:
    """RangeIndex, no missing QI: the view is the release, so privcert's report itself agrees."""
    frame = release(seed, 120, "range", False)
    answers = run_pycanon(pycanon, frame, tmp_path, all_calls())
    report = truth(frame, 2)
    assert answers["k_anonymity"]["value"] == report.find("k_anonymity").level.value
    for attribute in SPECS:
        got = {f: answers[f"{f}/{attribute}"]["value"] for f in FUNCTIONS}
        assert got["alpha_k_anonymity"][0] == pytest.approx(
            report.find("alpha_k_anonymity", attribute).level.number, rel=REL
        )
        assert got["l_diversity"] == report.find("distinct_l_diversity", attribute).level.value
        assert got["t_closeness"] == pytest.approx(report.find("t_closeness", attribute).level.number, rel=REL)
        assert got["basic_beta_likeness"] == pytest.approx(
            report.find("basic_beta_likeness", attribute).level.number, rel=REL
        )


@pytest.mark.parametrize("index", ["permuted", "offset"])
def test_privcert_ignores_labels_and_keeps_missing_qis(index: str) -> None:
    """privcert's report does not depend on labels and drops no row (unlike pyCANON's)."""
    frame = release(4, 150, index, True)
    report = truth(frame, 2)
    same = truth(frame.reset_index(drop=True), 2)
    assert [m.to_json() for m in report.measurements] == [m.to_json() for m in same.measurements]
    classes, _ = count_tables(frame, QI, [])
    assert report.find("k_anonymity").level.value == int(classes.sizes.min())
    assert report.rows == len(frame), "no row is dropped for a missing quasi-identifier"


def test_offset_labels_make_pycanon_fail(pycanon: PycanonEnv, tmp_path: Path) -> None:
    """Labels 1000.. are out of bounds as positions: every pyCANON call but k raises."""
    frame = release(5, 60, "offset", False)
    answers = run_pycanon(pycanon, frame, tmp_path, all_calls())
    assert answers["k_anonymity"]["value"] == truth(frame, 2).find("k_anonymity").level.value
    for key, answer in answers.items():
        if key != "k_anonymity":
            assert answer.get("error", "").startswith("IndexError"), key


def one_table(pycanon: PycanonEnv, folder: Path, frame: pd.DataFrame, function: str) -> Any:
    """pyCANON's answer on a minimal table (one quasi-identifier ``zip``, attribute ``disease``)."""
    if function == "k_anonymity":
        return run_pycanon(pycanon, frame, folder, [{"function": function}], ["zip"])[function]["value"]
    call = {"function": function, "sensitive": "disease"}
    return run_pycanon(pycanon, frame, folder, [call], ["zip"])[f"{function}/disease"]["value"]


def privcert_on(frame: pd.DataFrame) -> CountTable:
    _, (table,) = count_tables(frame, ["zip"], [SPECS["disease"]])
    return table


# The minimal tables of docs/peers.md, one per defect, with both tools' exact answers.


def test_minimal_permuted_labels(pycanon: PycanonEnv, tmp_path: Path) -> None:
    # zip a: {flu, cancer}, zip b: {flu, cancer} -> distinct l = 2. With labels 0,2,1,3 pyCANON
    # reads class a (labels 0, 2) at positions 0, 2: flu, flu -> l = 1.
    frame = pd.DataFrame({"zip": ["a", "a", "b", "b"], "disease": ["flu", "cancer", "flu", "cancer"]},
                         index=[0, 2, 1, 3])
    assert distinct_l_diversity(privcert_on(frame)).level.value == 2
    assert one_table(pycanon, tmp_path, frame, "l_diversity") == 1


def test_minimal_missing_qi(pycanon: PycanonEnv, tmp_path: Path) -> None:
    # The 4th row's zip is missing: it is a class of size 1 (k = 1, l = 1); pyCANON drops
    # it and reports k = 3 (and l = 3) from the one class left.
    frame = pd.DataFrame({"zip": ["a", "a", "a", None], "disease": ["flu", "cancer", "ulcer", "flu"]})
    table = privcert_on(frame)
    assert int(table.classes.sizes.min()) == 1
    assert distinct_l_diversity(table).level.value == 1
    assert one_table(pycanon, tmp_path, frame, "k_anonymity") == 3
    assert one_table(pycanon, tmp_path, frame, "l_diversity") == 3


def test_minimal_recursive(pycanon: PycanonEnv, tmp_path: Path) -> None:
    # l = 3 (distinct). Class a counts 3,2,1: r1 = 3, r3 = 1 -> c* = 3, smallest integer c = 4.
    # Class b counts 2,2,2: c* = 1. pyCANON: a -> floor(1/3 + 1) = 1, b -> floor(2/2 + 1) = 2.
    frame = pd.DataFrame({
        "zip": ["a"] * 6 + ["b"] * 6,
        "disease": ["flu"] * 3 + ["cancer"] * 2 + ["ulcer"] + ["flu", "flu", "cancer", "cancer", "ulcer", "ulcer"],
    })
    assert recursive_cl_diversity(privcert_on(frame), 3).level.value == 3
    assert one_table(pycanon, tmp_path, frame, "recursive_c_l_diversity") == [2, 3]


@pytest.mark.parametrize(("values", "level", "theirs"), [(3, 3, 2), (2, 2, 1), (4, 4, 3)])
def test_minimal_entropy(pycanon: PycanonEnv, tmp_path: Path, values: int, level: int, theirs: int) -> None:
    # One class uniform over `values` values: H = ln(values), exp(H) = values exactly;
    # pyCANON computes e**H = values - 1 ulp-ish and truncates.
    names = ["flu", "cancer", "ulcer", "gastritis"][:values]
    frame = pd.DataFrame({"zip": ["a"] * values, "disease": names})
    assert entropy_l_diversity(privcert_on(frame)).level.value == level
    assert one_table(pycanon, tmp_path, frame, "entropy_l_diversity") == theirs


def test_minimal_enhanced_beta(pycanon: PycanonEnv, tmp_path: Path) -> None:
    # p(flu) = p(cancer) = 1/2. Class a is all flu: gain (1 - 1/2)/(1/2) = 1 > -ln(1/2) = ln 2,
    # so no β satisfies gain <= min(β, -ln p): unattainable. pyCANON: min(1, ln 2) = ln 2.
    frame = pd.DataFrame({"zip": ["a", "a", "b", "b"], "disease": ["flu", "flu", "cancer", "cancer"]})
    table = privcert_on(frame)
    assert basic_beta_likeness(table).level.value == 1
    assert enhanced_beta_likeness(table).level.value == sympy.oo
    assert one_table(pycanon, tmp_path, frame, "enhanced_beta_likeness") == pytest.approx(math.log(2), rel=1e-15)


def test_minimal_enhanced_beta_attainable(pycanon: PycanonEnv, tmp_path: Path) -> None:
    # Gains of 1/5 <= ln 2: the definition holds from β = 1/5; both tools say 1/5.
    frame = pd.DataFrame({"zip": ["a"] * 5 + ["b"] * 5, "disease": ["flu"] * 3 + ["cancer"] * 4 + ["flu"] * 2 + ["cancer"]})
    assert enhanced_beta_likeness(privcert_on(frame)).level.value == sympy.Rational(1, 5)
    assert one_table(pycanon, tmp_path, frame, "enhanced_beta_likeness") == pytest.approx(0.2, rel=1e-15)


def test_minimal_delta(pycanon: PycanonEnv, tmp_path: Path) -> None:
    # Class b lacks flu (q = 0, |ln(q/p)| = ∞): δ* = ∞. pyCANON skips that cell and reports
    # class a's flu: |ln((1/2)/(1/4))| = ln 2.
    frame = pd.DataFrame({"zip": ["a", "a", "b", "b"], "disease": ["flu", "cancer", "cancer", "cancer"]})
    assert delta_disclosure(privcert_on(frame)).level.value == sympy.oo
    assert delta_disclosure_present(privcert_on(frame)).level.value == sympy.log(2)
    assert one_table(pycanon, tmp_path, frame, "delta_disclosure") == pytest.approx(math.log(2), rel=1e-15)


def test_view_of_a_clean_release_is_the_release() -> None:
    """The view's construction changes nothing when there is nothing to misread."""
    frame = release(6, 80, "range", False)
    for attribute, spec in SPECS.items():
        _, (table,) = count_tables(frame, QI, [spec])
        view = pycanon_view(frame, attribute)
        assert np.array_equal(view.count, table.count) and np.array_equal(view.sizes, table.sizes)
        assert view.n == len(frame)


def test_an_environment_that_cannot_be_built_says_why(tmp_path: Path) -> None:
    """The fixture's skip reason: a venv under a read-only place fails with pip's or venv's message."""
    env = pycanon_env(Path("/proc") / tmp_path.name)
    assert not env.available and env.python is None
    assert env.reason is not None and "-m venv" in env.reason and "exited with" in env.reason
    with pytest.raises(RuntimeError, match="pyCANON is unavailable"):
        env.run({"csv": "x.csv", "qi": ["zip"], "calls": []})
