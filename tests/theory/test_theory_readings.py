"""Answers that are never wrong: no proof by skipping a case, one reading per answer, checked parameters."""

from __future__ import annotations

import json
from itertools import product

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from _theory_bruteforce import tables
from privcert.cli import app
from theory.answers.audit_levels import AuditLevels, MeasuredLevel
from theory.answers.explain import explain
from theory.answers.graph import SIZED, Graph, build_graph
from theory.claims.catalog import claim
from theory.search.refute import refute_claim
from theory.status_cache import cached_statuses
from theory.tables.levels import classwise_k_eps_dp_ratio, eps_of, is_ratio_definition, level
from theory.tables.probability_table import ProbabilityTable
from verifier.errors import DataError
from verifier.exact_grammar import read_exact

runner = CliRunner()


@pytest.fixture(scope="module")
def graph() -> Graph:
    return build_graph(cached_statuses())


def test_thm5_is_proven_only_where_it_is_not_vacuous() -> None:
    """With k_DP >= N - k no class holds more than k_DP records: the class-wise level is 1 for every table, so
    the printed Thm. 5 fails there (N = 3, k = 1, k_DP = 2); its scope k_DP < N - k is witnessed."""
    outcome = refute_claim(claim("ekenstedt2022:thm5"))
    assert outcome.status == "corrected"
    assert outcome.counterexample["implication_holds"][0].startswith(
        "N=3, k_0=1, k_1=2, k_premise=1, k_conclusion=2: no witness: no class can hold more than N - k = 2")
    assert "corrected: premise level fixed, conclusion beyond every bound, in all 18 case(s) searched; " \
           "2 case(s) admit no table of these sizes" in outcome.detail
    assert cached_statuses()["ekenstedt2022:thm5"].status == "corrected"


def test_a_search_below_the_smallest_n_searches_nothing() -> None:
    result = runner.invoke(app, ["theory", "refute", "ekenstedt2022:lemma2_3c", "--max-n", "2"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["status"] == "unknown"
    assert found["detail"].startswith("no case searched: no N with 2 <= N <= 2")
    assert "unsat" not in result.stdout and found["checked_by"] == ["z3 (printed): unknown over 0 case(s), N <= 2"]


@pytest.mark.parametrize("conclusion", ["kt_closeness", "ldp", "dp"])
def test_vacuous_classwise_dp_refuses_nothing(graph: Graph, conclusion: str) -> None:
    """N = 2, k = 1: both classes are singletons, multiplicative t-closeness is (1,t)-closeness; "no" was derived
    from Thm. 5 where it is vacuous, through global claims."""
    params = {"N": 2, "k": 1, "dp_within_classes": True, **({"k_conclusion": 1} if conclusion == "kt_closeness" else {})}
    assert graph.implies("multiplicative_t_closeness", conclusion, params).holds != "no"


@pytest.mark.parametrize("records", [3, 4, 5])
def test_classwise_reading_is_never_mixed_with_global_claims(graph: Graph, records: int) -> None:
    """With dp_within_classes no claim implies class-wise (k,ε)-DP: never "yes" (the global path
    lemma2_3c → thm4_1 answered yes); "no" exactly where Thm. 5 is not vacuous. With one class (k = N) the class-wise reading is the
    global one (t = 1 says nothing about (k,ε)-DP), never the vacuous class-wise level."""
    for smallest in [s for s in range(1, records + 1) if s == records or 2 * s <= records]:
        for size in range(1, records):
            answer = graph.implies("multiplicative_t_closeness", "k_eps_dp",
                                   {"N": records, "k": smallest, "k_conclusion": size, "dp_within_classes": True})
            assert answer.holds != "yes", (smallest, size, answer.detail)
            if smallest < records:
                assert (answer.holds == "no") == (size < records - smallest), (smallest, size, answer.detail)
            assert all(not step.claim_id.startswith("ekenstedt2022:thm4") for step in answer.path)


@pytest.mark.parametrize("params, message", [
    (["N=100", "k=500"], "parameter 'k': a size is 1 <= k <= N = 100, found 500"),
    (["N=0"], "parameter 'N': the number of records is at least 1, found 0"),
    (["N=-5"], "parameter 'N': the number of records is at least 1, found -5"),
    (["foo=3"], "parameter 'foo': unknown; expected one of N, k, k_premise"),
    (["N=6", "k=2", "singleton_classes=true"], "parameters 'singleton_classes' and 'k'"),
    (["N=6", "k_conclusion=6"], "kt_closeness as conclusion: a subset size k lies in [1, N - 1] = [1, 5]"),
    (["N=6", "dp_within_classes=2"], "parameter 'dp_within_classes': expected true or false, found 2"),
])
def test_implies_checks_its_parameters(params: list[str], message: str) -> None:
    args = ["theory", "implies", "multiplicative_t_closeness", "kt_closeness"]
    result = runner.invoke(app, [*args, *(item for pair in params for item in ("--param", pair))])
    assert result.exit_code == 2, result.output
    assert message in result.stderr


@pytest.mark.parametrize("model, exact, message", [
    ("k_anonymity", "ln(9/4)", "the k of k_anonymity lies in Range(1, ∞, 1), found ln(9/4)"),
    ("multiplicative_t_closeness", "1/2", "the t of multiplicative_t_closeness lies in [1, ∞), found 1/2"),
    ("prosecutor_risk", "3", "the R of prosecutor_risk lies in (0, 1], found 3"),
])
def test_explain_checks_each_level_against_its_domain(model: str, exact: str, message: str) -> None:
    with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        explain(AuditLevels(9, (MeasuredLevel(model, None if model != "multiplicative_t_closeness" else "s",
                                              read_exact(exact, model)),)))


_MAP = ("multiplicative_t_closeness", "stochastic_t_closeness", "kt_closeness", "k_eps_dp", "dp", "ldp")
"""The definitions measured on probability tables (:func:`theory.tables.levels.level`)."""


def _classwise_level(definition_id: str, table: ProbabilityTable, size: int | None) -> object:
    """The level in the class-wise reading: ε-DP and (k,ε)-DP inside each class (Ekenstedt et al. 2022, Sec. IV.C)."""
    if definition_id in ("dp", "k_eps_dp"):
        return classwise_k_eps_dp_ratio(table, size or 1)
    return level(definition_id, table, size)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(max_n=5, max_p=2), data=st.data())
def test_classwise_composed_bounds_hold_on_random_tables(graph: Graph, table: ProbabilityTable,
                                                          data: st.DataObject) -> None:
    """Every "yes" with ``dp_within_classes``, at the measured premise level, bounds the true class-wise level
    of the conclusion (Ekenstedt et al. 2022, Def. 2), for every pair of the map at the table's N and smallest
    class and drawn subset sizes."""
    records, smallest = table.n, min(len(group) for group in table.classes)
    for premise, conclusion in product(_MAP, _MAP):
        sizes = {role: data.draw(st.integers(1, records - 1)) if name in SIZED else None
                 for role, name in (("k_premise", premise), ("k_conclusion", conclusion))}
        if premise == conclusion and (premise not in SIZED or sizes["k_premise"] == sizes["k_conclusion"]):
            continue
        measured = _classwise_level(premise, table, sizes["k_premise"])
        if measured == sympy.oo:
            continue
        params = {"N": records, "k": smallest, "dp_within_classes": True,
                  **{role: size for role, size in sizes.items() if size is not None}}
        value = eps_of(measured) if is_ratio_definition(premise) else sympy.Rational(measured)
        answer = graph.implies(premise, conclusion, params, value, derive=False)
        if answer.holds != "yes" or answer.value is None or answer.value.free_symbols:
            continue
        bound = sympy.exp(answer.value) if is_ratio_definition(conclusion) else answer.value
        truth = _classwise_level(conclusion, table, sizes["k_conclusion"])
        assert truth != sympy.oo and sympy.Le(sympy.Rational(truth), bound) is sympy.true, \
            (premise, conclusion, params, measured, truth, bound, answer.detail)
