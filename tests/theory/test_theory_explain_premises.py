"""Each measured level is read as what it is: its distance, its subset size k, its counted rows.

Small releases of 7 records (classes {a, b, b} and {b, b, b, b}) randomized by randomized response
keeping the value with probability 1/2 (rows 3/4, 1/4), audited in publisher mode, where every level of
the release is measured: an implied level is never stronger than the measured one (Ekenstedt et al.
2022, Def. 2), and the levels read at the wrong distance or size are absent.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import sympy

import privcert
from reports.certify import implied_section
from theory.answers.audit_levels import AuditLevels
from theory.answers.explain import DEF5_READING, Explanation, explain
from verifier.literal import parse_exact

ROWS = [("x", "a"), ("x", "b"), ("x", "b"), ("y", "b"), ("y", "b"), ("y", "b"), ("y", "b")]
RR = {"a": ("3/4", "1/4"), "b": ("1/4", "3/4")}


def _audit(tmp_path: Path, requirements: Sequence[dict[str, Any]], *, mode: str = "publisher",
           ks: Sequence[int] = (1, 6), rows: Sequence[tuple[str, str]] = ROWS, missing: str | None = None,
           mechanism: bool = True) -> Any:
    (tmp_path / "data.csv").write_text("q,s\n" + "".join(f"{q},{s}\n" for q, s in rows))
    (tmp_path / "m.csv").write_text("value,a,b\n" + "".join(f"{v},{','.join(RR[v])}\n" for v in RR))
    text = '[data]\nqi = ["q"]\npath = "data.csv"\n[sensitive.s]\nkind = "categorical"\n'
    text += f'missing = "{missing}"\n' if missing else ""
    for requirement in requirements:
        text += "[[require]]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in requirement.items())
    if mechanism:
        text += f'[mechanism]\nfile = "m.csv"\nattribute = "s"\nmode = "{mode}"\nk = {list(ks)}\n'
    (tmp_path / "policy.toml").write_text(text)
    return privcert.audit(None, tmp_path / "policy.toml")


def _ratio(definition_id: str, level: sympy.Expr) -> sympy.Expr:
    return sympy.exp(level) if definition_id in ("dp", "ldp", "k_eps_dp") else level


def _truth(document: dict[str, Any]) -> dict[tuple[str, int | None], sympy.Expr]:
    """The publisher's measured levels of the release, by (definition, subset size), in ratio space."""
    found = {}
    for row in document["randomized"]["measurements"]:
        distance = row["parameters"].get("distance", row.get("distance"))
        if row["model"] == "stochastic_t_closeness" and distance != "multiplicative":
            continue
        size = row["parameters"].get("k") if row["model"] in ("kt_closeness", "k_eps_dp") else None
        found[(row["model"], size)] = _ratio(row["model"], parse_exact(row["exact"], "exact"))
    found[("multiplicative_t_closeness", None)] = found[("stochastic_t_closeness", None)]
    return found


def _sound(found: Explanation, truth: dict[tuple[str, int | None], sympy.Expr]) -> None:
    for item in found.implied:
        key = (item.definition, item.size)
        if key in truth:
            assert truth[key] <= _ratio(item.definition, item.level), (key, item.level, truth[key])


def test_emd_stochastic_closeness_feeds_no_multiplicative_claim(tmp_path: Path) -> None:
    """EMD (equal distance) 2/21 read as multiplicative t gave t = 2/21 (true 35/27), (6,t) = 7/6 and
    e^ε = 7/6 (true 9/7): an EMD level is no premise of the map."""
    result = _audit(tmp_path, [{"model": "k_anonymity", "threshold": 1},
                               {"model": "stochastic_t_closeness", "attribute": "s", "distance": "equal", "threshold": "1"}])
    document = result.to_json()
    assert [row["exact"] for row in document["measurements"]] == ["3", "2/21"]
    found = explain(AuditLevels.from_json(document))
    # from k-anonymity alone: prosecutor risk and the risk models it bounds; nothing from the EMD level
    assert {item.definition for item in found.implied} == {"prosecutor_risk", "journalist_risk", "marketer_risk",
                                                            "k_map", "sample_uniqueness"}
    nothing = {item.definition: item.reason for item in found.nothing}
    assert nothing["stochastic_t_closeness"].startswith("nothing: measured with the EMD (equal distance)")
    assert "deterministic" not in nothing["ldp"]  # a randomized release: its ε-LDP here is ln(3)
    assert _truth(document)[("multiplicative_t_closeness", None)] == sympy.Rational(35, 27)


def test_subset_sizes_are_the_requirements(tmp_path: Path) -> None:
    """(6,t) = 9/7 read at the smallest class k = 3 gave multiplicative t = 9/7 (true 35/27); read at k = 6
    it gives (1,ε)-DP e^ε = 9/7 (Thm. 4(1)), the measured level, and no multiplicative t (classes of 3)."""
    result = _audit(tmp_path, [{"model": "k_anonymity", "threshold": 1},
                               {"model": "kt_closeness", "attribute": "s", "k": 6, "threshold": "100"},
                               {"model": "k_eps_dp", "attribute": "s", "k": 1, "threshold": "100"}])
    document = result.to_json()
    found = explain(AuditLevels.from_json(document))
    levels = {item.definition: item for item in found.implied}
    assert "multiplicative_t_closeness" not in levels and "stochastic_t_closeness" not in levels
    assert levels["k_eps_dp"].level == sympy.log(sympy.Rational(9, 7)) and levels["k_eps_dp"].size == 1
    assert levels["k_eps_dp"].source.to_json() == {"model": "kt_closeness", "attribute": "s", "level": "9/7", "k": 6}
    assert "  from kt_closeness (k = 6) on s = 9/7 ≈ 1.286" in found.text().splitlines()
    _sound(found, _truth(document))


def test_auditor_mode_reads_each_implied_level_at_its_k(tmp_path: Path) -> None:
    """The auditor's implied (6,t) = 9/7 was read at k = 3 as multiplicative t = 9/7, below the publisher's
    35/27 for this very original; the guarantee is the one ε-LDP = ln 3 gives at smallest class 3:
    t = (3 + 4·3)/7 = 15/7 (Thm. 3 corrected, Lemma 2(3))."""
    publisher = _audit(tmp_path, [{"model": "k_anonymity", "threshold": 1}]).to_json()
    result = _audit(tmp_path, [{"model": "k_anonymity", "threshold": 1},
                               {"model": "ldp", "attribute": "s", "threshold": "ln(3)"},
                               {"model": "kt_closeness", "attribute": "s", "k": 6, "threshold": "100"},
                               {"model": "k_eps_dp", "attribute": "s", "k": 1, "threshold": "100"}], mode="auditor")
    found = explain(AuditLevels.from_json(result.to_json()))
    levels = {item.definition: item.level for item in found.implied}
    assert levels["multiplicative_t_closeness"] == sympy.Rational(15, 7)
    assert levels["stochastic_t_closeness"] == sympy.Rational(15, 7)
    _sound(found, _truth(publisher))


@pytest.mark.parametrize("ks", [(1,), (2,), (3,)])
def test_auditor_mode_sizes_are_subset_sizes(tmp_path: Path, ks: tuple[int, ...]) -> None:
    """Auditor mode asks (k,t)-closeness at the subset size k and keeps the smallest class apart:
    t = (k + (N-k) e^ε)/N (Ekenstedt et al. 2022, Thm. 3 corrected), e^ε = 3, N = 7; and every implied level
    is at least the publisher's measured one for this original."""
    publisher = _audit(tmp_path, [{"model": "k_anonymity", "threshold": 1}], ks=ks)
    auditor = _audit(tmp_path, [{"model": "k_anonymity", "threshold": 1}], mode="auditor", ks=ks)
    implied = {(item.model, item.parameters.get("k")): _ratio(item.model, item.level.value)
               for item in auditor.randomized.implied}
    (k,) = ks
    assert implied[("kt_closeness", k)] == sympy.Rational(k + (7 - k) * 3, 7)
    truth = _truth(publisher.to_json())
    for key, level in implied.items():
        assert truth[key if key[0] != "stochastic_t_closeness" else (key[0], None)] <= level, key


def test_excluded_rows_change_n_and_k(tmp_path: Path) -> None:
    """Class x's values are missing and excluded: s is counted on 3 rows in one class {a, a, b}. Multiplicative
    t = 1 there; read at N = 6, k = 3 it gave ε-DP ln(5/3) and (5,t)-closeness, where the value b held once
    makes Def. 5's ε-DP infinite. Read at N = 3 with one class, nothing about ε-DP follows."""
    rows = [("x", "")] * 3 + [("y", "a"), ("y", "a"), ("y", "b")]
    with pytest.warns(UserWarning, match="excluded"):
        result = _audit(tmp_path, [{"model": "k_anonymity", "threshold": 1},
                                   {"model": "multiplicative_t_closeness", "attribute": "s", "threshold": "10"}],
                        rows=rows, missing="exclude", mechanism=False)
    document = result.to_json()
    assert document["excluded"] == {"s": 3}
    from_json = {item.definition for item in explain(AuditLevels.from_json(document)).implied}
    from_tables = {item["definition"] for item in implied_section(result) if item["implied"]}
    for found in (from_json, from_tables):
        assert not found & {"dp", "kt_closeness", "k_eps_dp"}, found
    assert "stochastic_t_closeness" in from_tables and "stochastic_t_closeness" not in from_json


def _deterministic(tmp_path: Path, rows: Sequence[tuple[str, str]], buckets: str = "") -> Any:
    (tmp_path / "data.csv").write_text("q,s\n" + "".join(f"{q},{s}\n" for q, s in rows))
    (tmp_path / "policy.toml").write_text(
        '[data]\nqi = ["q"]\npath = "data.csv"\n[sensitive.s]\nkind = "categorical"\n' + buckets
        + '[[require]]\nmodel = "k_anonymity"\nthreshold = 1\n'
        '[[require]]\nmodel = "multiplicative_t_closeness"\nattribute = "s"\nthreshold = "10"\n')
    return AuditLevels.from_json(privcert.audit(None, tmp_path / "policy.toml").to_json())


def test_dp_over_policy_buckets_holds_over_those_buckets_only(tmp_path: Path) -> None:
    """Classes {a, a, b, c}, {a, a, c, c} with buckets ab = {a, b}, c = {c}: t = 3/2 over the buckets gives
    e^ε = 21/8 (Lemma 2(3) corrected, Thm. 4(1), Lemma 3(3)), true over the buckets (21/16), while the value b
    held once makes Def. 5's ε-DP per value infinite: the level says it holds over the buckets only."""
    from theory.papers.derived.checks import released
    from theory.tables.levels import dp_ratio

    rows = [("x", "a"), ("x", "a"), ("x", "b"), ("x", "c"), ("y", "a"), ("y", "a"), ("y", "c"), ("y", "c")]
    found = explain(_deterministic(tmp_path, rows, 'buckets = {groups = {ab = ["a", "b"], c = ["c"]}}\n'))
    levels = {item.definition: item for item in found.implied}
    dp = levels["dp"]
    assert dp.level == sympy.log(sympy.Rational(21, 8))
    assert dp_ratio(released([{"ab": 3, "c": 1}, {"ab": 2, "c": 2}])) == sympy.Rational(21, 16)
    assert dp_ratio(released([{"a": 2, "b": 1, "c": 1}, {"a": 2, "c": 2}])) == sympy.oo
    over = "over the buckets ab = {a, b}, c = {c} only"
    assert dp.readable == f"ε = ln(21/8) ≈ 0.9651 (e^ε = 21/8 ≈ 2.625); {over}, as measured (per value it can be " \
                          f"infinite); {DEF5_READING}"
    for name in ("kt_closeness", "k_eps_dp", "stochastic_t_closeness"):
        assert over in levels[name].readable and over in levels[name].to_json()["readable"], name
    assert over not in levels["k_anonymity"].readable and DEF5_READING not in levels["kt_closeness"].readable


def test_one_position_on_the_dp_of_a_deterministic_release(tmp_path: Path) -> None:
    """Per value (classes {a, a, b}, {a, b, b}: t = 3/2): the implied ε-DP states Def. 5's reading and is at least
    the true Def. 5 level (e^ε = 5/4 per value, implied 5/2); with no finite multiplicative t the "nothing"
    line states the same reading; docs/theory.md states it in the same words."""
    from theory.papers.derived.checks import released
    from theory.tables.levels import dp_ratio

    rows = [("x", "a"), ("x", "a"), ("x", "b"), ("y", "a"), ("y", "b"), ("y", "b")]
    found = explain(_deterministic(tmp_path, rows))
    dp = {item.definition: item for item in found.implied}["dp"]
    assert dp.readable.endswith(f"; {DEF5_READING}") and "buckets" not in dp.readable
    assert dp_ratio(released([{"a": 2, "b": 1}, {"a": 1, "b": 2}])) == sympy.Rational(5, 4) < sympy.exp(dp.level) == sympy.Rational(5, 2)
    assert "dp" not in {item.definition for item in found.nothing}
    alone = explain(AuditLevels.from_json({"rows": 6, "measurements": [{"model": "k_anonymity", "exact": "3", "status": "finite"}]}))
    assert DEF5_READING in {item.definition: item.reason for item in alone.nothing}["dp"]
    docs = (Path(__file__).resolve().parents[2] / "docs" / "theory.md").read_text(encoding="utf-8")
    assert DEF5_READING in " ".join(docs.split())


def test_rows_left_out_imply_nothing_about_the_quasi_identifiers(tmp_path: Path) -> None:
    """Class x's one value is missing and excluded; s is counted on class y = {a, b}. Its multiplicative t = 1
    at smallest counted class 2 implied k-anonymity 2 and prosecutor risk 1/2, where the release has k = 1."""
    rows = [("x", ""), ("y", "a"), ("y", "b")]
    with pytest.warns(UserWarning, match="excluded"):
        result = _audit(tmp_path, [{"model": "k_anonymity", "threshold": 1},
                                   {"model": "multiplicative_t_closeness", "attribute": "s", "threshold": "10"}],
                        rows=rows, missing="exclude", mechanism=False)
    implied = {item["definition"]: item for item in implied_section(result) if item["implied"]}
    assert "k_anonymity" not in implied
    assert implied["prosecutor_risk"]["level"] == "1" and implied["prosecutor_risk"]["from"]["model"] == "k_anonymity"
