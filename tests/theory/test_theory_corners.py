"""No "no" without a witness in the query's own reading: the corners (one record, one class, singleton
classes, the query's own smallest class, deterministic queries) and the textbook relations.

Each case is the command that used to answer wrongly (or "unknown"), run as written, with the answer the
definitions give on every release of that size (tests/theory/test_theory_grid.py checks the grid by brute force).
"""

from __future__ import annotations

import json
import math

import pytest
import sympy
from typer.testing import CliRunner

from privcert.cli import app
from theory.answers.graph import Graph, build_graph
from theory.status_cache import cached_statuses

runner = CliRunner()


@pytest.fixture(scope="module")
def graph() -> Graph:
    return build_graph(cached_statuses())


def _implies(*args: str) -> dict:
    result = runner.invoke(app, ["theory", "implies", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("premise, conclusion, level", [
    ("t_closeness", "multiplicative_t_closeness", "1"),
    ("delta_disclosure_present", "delta_disclosure", "0"),
    ("ldp", "multiplicative_t_closeness", "1"),
    ("k_anonymity", "basic_beta_likeness", "0"),
])
def test_one_class_fixes_the_class_levels(premise: str, conclusion: str, level: str) -> None:
    """k = N: the one class has the table's distribution (t = 1, δ = 0, β = 0), whatever the premise."""
    found = _implies(premise, conclusion, "--param", "N=2", "--param", "k=2")
    assert (found["holds"], found["f"], found["path"][0]["claim"]) == ("yes", level, "privcert:one_class")


def test_one_class_reads_dp_within_classes_as_global() -> None:
    """With one class, (k,ε)-DP inside the classes is over the whole table: (2,t) ⇒ (1, ln t)-DP (Thm. 4(1))."""
    found = _implies("kt_closeness", "k_eps_dp", "--param", "N=3", "--param", "k=3", "--param", "k_premise=2",
                     "--param", "k_conclusion=1", "--param", "dp_within_classes=true")
    assert (found["holds"], found["f"], found["detail"]) == ("yes", "log(t)", "ekenstedt2022:thm4_1")


def test_one_record_fixes_ldp() -> None:
    """N = 1: the record is compared with itself, ε-LDP = 0 (it was "no" by privcert:k_not_ldp)."""
    found = _implies("k_anonymity", "ldp", "--param", "N=1")
    assert (found["holds"], found["f"], found["path"][0]["claim"]) == ("yes", "0", "privcert:one_record")


@pytest.mark.parametrize("args", [("dp", "ldp"), ("k_anonymity", "dp"), ("ldp", "dp")])
def test_dp_is_undefined_on_one_record(args: tuple[str, str]) -> None:
    result = runner.invoke(app, ["theory", "implies", *args, "--param", "N=1"])
    assert result.exit_code == 2
    assert "dp is undefined at N = 1" in result.output


def test_singleton_classes_do_not_use_a_theorem_they_contradict() -> None:
    """Thm. 1 (multiplicative t ⇏ ε-LDP) does not hold with singleton classes (its exception): no "no" from it."""
    found = _implies("ldp", "delta_disclosure", "--param", "N=3", "--param", "singleton_classes=true")
    assert found["holds"] != "no", found["detail"]


def test_deterministic_query_needs_a_deterministic_witness() -> None:
    """ε-DP ⇏ multiplicative t is witnessed by randomized tables only; δ-disclosure is about deterministic
    releases, on which a finite ε-DP at N = 3 leaves one value (every value held twice): δ = 0, not "no"."""
    found = _implies("dp", "delta_disclosure", "--param", "N=3", "--param", "k=1")
    assert found["holds"] != "no", found["detail"]
    # the same non-implication still answers the query on probability tables
    assert _implies("dp", "multiplicative_t_closeness", "--param", "N=3", "--param", "k=1")["holds"] == "no"


def test_classwise_no_only_at_the_querys_smallest_class(graph: Graph) -> None:
    """A class-based step is at the query's k: the derived "no" used to take a smaller smallest class."""
    answer = graph.implies("kt_closeness", "k_eps_dp", {"N": 3, "k": 3, "k_premise": 2, "k_conclusion": 1,
                                                        "dp_within_classes": True})
    assert answer.holds == "yes", answer.detail


def test_homogeneity_attack() -> None:
    """k-anonymity ⇏ distinct l-diversity (Machanavajjhala et al. 2007, Sec. 3.1): {a, a} is 2-anonymous, l = 1."""
    found = _implies("k_anonymity", "distinct_l_diversity")
    assert (found["holds"], found["evidence"]) == ("no", ["machanavajjhala2007:homogeneity"])
    derived = _implies("k_anonymity", "entropy_l_diversity", "--param", "N=4", "--param", "k=2")
    assert derived["holds"] == "no" and "machanavajjhala2007:homogeneity" in derived["evidence"]


def test_skewness_attack(graph: Graph) -> None:
    """l-diversity ⇏ t-closeness (Li et al. 2007, Sec. 2): answered without N, never at a given N (EMD < 1)."""
    assert graph.implies("distinct_l_diversity", "t_closeness").evidence == ("li2007:skewness",)
    assert graph.implies("distinct_l_diversity", "t_closeness", {"N": 4, "k": 2}).holds != "no"
    answer = graph.implies("distinct_l_diversity", "multiplicative_t_closeness", {"N": 4, "k": 2})
    assert (answer.holds, answer.evidence) == ("no", ("li2007:skewness_mult",))


@pytest.mark.parametrize("premise, level, value", [
    ("entropy_l_diversity", sympy.Rational(5, 2), 3), ("alpha_k_anonymity", sympy.Rational(1, 3), 3),
    ("alpha_k_anonymity", sympy.Rational(2, 5), 3)])
def test_size_relations(graph: Graph, premise: str, level: sympy.Expr, value: int) -> None:
    """k ≥ ⌈l_entropy⌉ and k ≥ ⌈1/α⌉ in one step (k is reached only from the premise itself)."""
    answer = graph.implies(premise, "k_anonymity", level=level)
    assert (answer.holds, answer.value) == ("yes", value), answer.detail


def test_journalist_risk_and_k_map_are_equivalent(graph: Graph) -> None:
    assert graph.relation("journalist_risk", "k_map") == "equivalent"
    assert graph.implies("journalist_risk", "k_map", level=sympy.Rational(1, 4)).value == 4


def test_given_smallest_class_is_k_anonymity(graph: Graph) -> None:
    answer = graph.implies("ldp", "k_anonymity", {"N": 6, "k": 3})
    assert (answer.holds, answer.f) == ("yes", 3)
    assert graph.implies("ldp", "prosecutor_risk", {"N": 6, "k": 3}).f == sympy.Rational(1, 3)


@pytest.mark.parametrize("claim_id, reason, status", [
    ("machanavajjhala2007:homogeneity", "no witness family of probability tables", "proven"),
    ("privcert:entropy_to_k", "not encodable for Z3", "tested"),
    ("privcert:journalist_k_map", "not encodable for Z3", "proven"),
    ("privcert:one_class", "relates no two definitions", "tested"),
])
def test_refute_answers_the_new_claims_with_the_reason(claim_id: str, reason: str, status: str) -> None:
    """Where the Z3 search or the witness families cannot decide a claim, its own check answers, and the reason
    the search could not comes first (it answered "unknown" for all of them)."""
    result = runner.invoke(app, ["theory", "refute", claim_id, "--max-n", "3", "--timeout", "2"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["status"] == status, found
    assert found["checked_by"][0].startswith("search: ") and reason in found["checked_by"][0]


def test_the_smallest_class_bounds_the_risk_models(graph: Graph) -> None:
    """Any premise with a given smallest class k: k-map K >= k, journalist risk <= 1/k, no sample unique (k >= 2);
    nothing at k = 1 (the weakest levels say nothing)."""
    answer = graph.implies("ldp", "k_map", {"N": 6, "k": 3})
    assert (answer.holds, answer.f) == ("yes", 3)
    assert [step.claim_id for step in answer.path] == ["privcert:given_smallest_class", "privcert:k_to_k_map"]
    assert graph.implies("t_closeness", "journalist_risk", {"N": 6, "k": 2}, level=sympy.Rational(1, 3)).value == \
        sympy.Rational(1, 2)
    assert graph.implies("ldp", "sample_uniqueness", {"N": 6, "k": 2}).f == 0
    assert graph.implies("ldp", "sample_uniqueness", {"N": 6, "k": 1}).holds != "yes"
    assert graph.implies("ldp", "k_anonymity", {"N": 6, "k": 1}).holds != "yes"


_FORCING_LEVELS = {"dp": "0", "ldp": "0", "k_eps_dp": "0", "kt_closeness": "1", "multiplicative_t_closeness": "1",
                   "stochastic_t_closeness": "1", "t_closeness": "0", "delta_disclosure": "0",
                   "delta_disclosure_present": "0", "basic_beta_likeness": "0", "enhanced_beta_likeness": "0"}


def test_a_forcing_level_gives_the_level_it_forces() -> None:
    """ε = 0 of ε-DP leaves every record with the same row: multiplicative t = 1 (it was "no", by
    privcert:dp_not_mult, whose witnesses are at ε > 0)."""
    found = _implies("dp", "multiplicative_t_closeness", "--param", "N=3", "--param", "k=1", "--level", "0")
    assert (found["holds"], found["value"], found["path"][0]["claim"]) == ("yes", "1", "privcert:forcing_levels")
    found = _implies("t_closeness", "delta_disclosure", "--param", "N=4", "--param", "k=2", "--level", "0")
    assert (found["holds"], found["value"]) == ("yes", "0")
    found = _implies("multiplicative_t_closeness", "distinct_l_diversity", "--level", "1")
    assert (found["holds"], found["evidence"]) == ("no", ["privcert:forcing_levels"])


def _at_level(definition_id: str, found: object, level: sympy.Expr) -> bool:
    """A level measured on a release of the grid (ratio form for ε) at least as strong as ``level`` (own units)."""
    from theory.definitions import definition
    from theory.tables.levels import is_ratio_definition

    if found is None:
        return False
    bound = sympy.exp(level) if is_ratio_definition(definition_id) else level
    measured = sympy.sympify(found)
    return bool(measured <= bound if definition(definition_id).direction == "smaller_is_stronger" else measured >= bound)


def _carries_its_witness(answer: object, params: dict[str, object]) -> bool:
    """The answer's witness, re-measured by brute force (tests/_theory_bruteforce.py): its premise at the forcing
    level (ratio 1), its conclusion beyond WITNESS_BOUND."""
    from _theory_bruteforce import k_eps_dp_ratio, kt_level, ldp_ratio, multiplicative_level
    from theory.answers.graph import WITNESS_BOUND
    from theory.tables.levels import classwise_k_eps_dp_ratio

    table = answer.witness  # type: ignore[attr-defined]
    rows = [list(row) for row in table.probs]

    def measured(definition_id: str, size: object) -> object:
        return {"multiplicative_t_closeness": lambda: multiplicative_level(rows, table.classes),
                "stochastic_t_closeness": lambda: multiplicative_level(rows, table.classes),
                "ldp": lambda: ldp_ratio(rows), "dp": lambda: k_eps_dp_ratio(rows, 1),
                "kt_closeness": lambda: kt_level(rows, int(str(size))),
                "k_eps_dp": lambda: classwise_k_eps_dp_ratio(table, int(str(size))) if params.get("dp_within_classes")
                else k_eps_dp_ratio(rows, int(str(size)))}[definition_id]()

    premise = measured(answer.premise, params.get("k_premise"))  # type: ignore[attr-defined]
    conclusion = measured(answer.conclusion, params.get("k_conclusion"))  # type: ignore[attr-defined]
    from theory.tables.levels import is_ratio_definition

    bound = sympy.exp(WITNESS_BOUND) if is_ratio_definition(answer.conclusion) else sympy.Integer(WITNESS_BOUND)  # type: ignore[attr-defined]
    return premise == 1 and (conclusion == math.inf or bool(sympy.Rational(conclusion) > bound)) and len(rows) == params["N"]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("max_n, expected", [
    (3, {"yes": 1534, "no": 1044, "unknown": 458}),
    pytest.param(4, {"yes": 3082, "no": 1855, "unknown": 979}, marks=pytest.mark.slow)])
def test_every_answer_at_a_forcing_level_holds_on_every_release(graph: Graph, max_n: int,
                                                                 expected: dict[str, int]) -> None:
    """Brute force over the grid's releases (tests/_theory_grid.py) at N <= 3 (4: slow), every smallest class (k = 1 to
    k = N) and reading: at ε = 0, t = 1, EMD = 0, δ = 0, β = 0 of the premise, a "yes" holds on every release of
    the query's reading with the premise at that level, and a "no" has a release at that level with the
    conclusion at its weakest."""
    from _theory_grid import OF_VALUES, _level, _weakest, queries, releases

    checked = {"yes": 0, "no": 0, "unknown": 0}
    for premise, conclusion, params in queries(max_n=max_n, min_n=2):
        if premise not in _FORCING_LEVELS:
            continue
        level = sympy.Integer(_FORCING_LEVELS[premise])
        answer = graph.implies(premise, conclusion, params, level)
        checked[answer.holds] += 1
        if answer.holds == "unknown":
            continue
        records, smallest = int(params["N"]), int(params["k"])
        classwise = bool(params.get("dp_within_classes"))
        searched = releases(records, True) + (() if {premise, conclusion} & OF_VALUES else releases(records, False))
        at = [found for classes, found in searched if min(len(c) for c in classes) == smallest
              and (not params.get("singleton_classes") or len(classes) == records)
              and _at_level(premise, _level(found, premise, params.get("k_premise"), classwise), level)]
        measured = [_level(found, conclusion, params.get("k_conclusion"), classwise) for found in at]
        if answer.holds == "yes":
            assert answer.value is not None
            assert all(_at_level(conclusion, value, answer.value) for value in measured if value is not None), (
                premise, conclusion, params, answer.value)
        elif answer.witness is not None:
            assert _carries_its_witness(answer, params), (premise, conclusion, params, answer.detail)
        else:
            assert any(value is not None and _weakest(conclusion, value) for value in measured), (
                premise, conclusion, params, answer.detail)
    assert checked == expected
