"""Checks are total: a claim whose check raises, or whose bound cannot be decided, is ``unchecked``, implies
nothing, and every command that reads the statuses goes on and names it.

Two claims are added to the catalog for these tests: one whose check raises, stating a bound that is false
(k-anonymity ⇒ ε-LDP at ε = 0: were it used, ``implies k_anonymity ldp`` would say "yes"), and one checked by
the generic check of an argued implication whose bound depends on a symbol of no model (distinct l-diversity ⇒
k-anonymity ≥ k₀), which raises ``ArithmeticError: cannot decide 1 >= k_0 exactly``.
"""

from __future__ import annotations

import json
import shutil
import warnings
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
import sympy
from typer.testing import CliRunner

import theory.checks
from privcert.cli import app
from theory import status_cache
from theory.answers.graph import build_graph
from theory.checks import check, check_all
from theory.claims import catalog
from theory.claims.claim import CheckResult, Claim, equation
from theory.definitions import eps, k, k0
from theory.papers.derived.checks import _argued_check
from verifier.references import PRIVCERT, Source

runner = CliRunner()
TABLE4 = Path(__file__).resolve().parents[2] / "examples" / "table4"
RAISING = Claim("privcert:test_raising", Source(PRIVCERT, "tests", "a check that raises"), "implication",
                "k_anonymity", "ldp", equation(eps, sympy.Integer(0)))
UNDECIDED = Claim("privcert:test_undecided", Source(PRIVCERT, "tests", "a bound in a symbol of no model"),
                  "implication", "distinct_l_diversity", "k_anonymity", equation(k, k0))


def _raise() -> CheckResult:
    raise ZeroDivisionError("division by zero in the check")


@pytest.fixture(scope="module")
def injected() -> Iterator[dict[str, CheckResult]]:
    """The catalog with the two claims added, and every claim's outcome (:func:`check_all`)."""
    every = {**catalog._by_id(), RAISING.id: RAISING, UNDECIDED.id: UNDECIDED}
    on_map = {**catalog._map_by_id(), RAISING.id: RAISING, UNDECIDED.id: UNDECIDED}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(catalog, "_by_id", lambda: every)
        patch.setattr(catalog, "_map_by_id", lambda: on_map)
        patch.setitem(theory.checks.CHECKS, RAISING.id, _raise)
        patch.setitem(theory.checks.CHECKS, UNDECIDED.id, partial(_argued_check, UNDECIDED))
        yield check_all()


@pytest.fixture()
def cached(injected: dict[str, CheckResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The statuses every command reads are the injected catalog's (a fresh cache in ``tmp_path``), and the graph
    the library keeps for the process (:func:`privcert.api_claims.shared_graph`) is built from them, and dropped
    after."""
    from privcert.api_claims import shared_graph

    rows = [status_cache.claim_row(item, injected[item.id]) for item in catalog.all_claims()]
    monkeypatch.setenv(status_cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(status_cache, "_fresh_rows", lambda: json.loads(json.dumps(rows)))
    shared_graph.cache_clear()
    yield
    shared_graph.cache_clear()


def test_a_raising_check_is_unchecked_with_its_error(injected: dict[str, CheckResult]) -> None:
    assert injected[RAISING.id] == CheckResult(
        "unchecked", None, ("check of privcert:test_raising: raised ZeroDivisionError",),
        "its check did not decide: ZeroDivisionError: division by zero in the check")


def test_an_undecidable_bound_is_unchecked_with_its_error(injected: dict[str, CheckResult]) -> None:
    assert (injected[UNDECIDED.id].status, injected[UNDECIDED.id].detail) == (
        "unchecked", "its check did not decide: ArithmeticError: cannot decide 1 >= k_0 exactly")


def test_the_other_claims_are_checked(injected: dict[str, CheckResult]) -> None:
    assert list(injected) == [*catalog.claim_ids()]
    assert injected["privcert:distinct_to_k"].status == "tested"
    assert [claim_id for claim_id, outcome in injected.items() if outcome.status == "unchecked"] == [
        RAISING.id, UNDECIDED.id]


def test_check_of_one_claim_is_total(injected: dict[str, CheckResult]) -> None:
    assert check(RAISING.id).status == "unchecked"
    with pytest.MonkeyPatch.context() as patch:
        patch.delitem(theory.checks.CHECKS, RAISING.id)
        assert check(RAISING.id).detail == "its check did not decide: LookupError: no check is registered for it"


def test_an_unchecked_claim_implies_nothing(injected: dict[str, CheckResult]) -> None:
    graph = build_graph(injected)
    assert {edge.claim_id for edge in graph.usable()} & {RAISING.id, UNDECIDED.id} == set()
    answer = graph.implies("k_anonymity", "ldp")
    assert (answer.holds, answer.evidence) == ("no", ("privcert:k_not_ldp",))
    answer = graph.implies("distinct_l_diversity", "k_anonymity", level=3)
    assert (answer.holds, answer.value, answer.detail) == ("yes", 3, "privcert:distinct_to_k")


@pytest.mark.usefixtures("cached")
def test_theory_implies_goes_on_and_names_the_claims_left_out() -> None:
    done = runner.invoke(app, ["theory", "implies", "delta_disclosure", "multiplicative_t_closeness", "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["holds"] == "yes"
    assert done.stderr == (
        "warning: claims left out, nothing is implied by them: privcert:test_raising (its check did not decide: "
        "ZeroDivisionError: division by zero in the check); privcert:test_undecided (its check did not decide: "
        "ArithmeticError: cannot decide 1 >= k_0 exactly)\n")


@pytest.mark.usefixtures("cached")
def test_audit_still_signs_and_names_the_claims_left_out(tmp_path: Path) -> None:
    for name in ("release.csv", "policy.toml", "disease_hierarchy.csv"):
        shutil.copy(TABLE4 / name, tmp_path / name)
    key, certificate = tmp_path / "key", tmp_path / "cert.json"
    assert runner.invoke(app, ["keygen", "--out", str(key)]).exit_code == 0
    done = runner.invoke(app, ["audit", str(tmp_path / "release.csv"), "--policy", str(tmp_path / "policy.toml"),
                               "--sign", str(key), "--certificate", str(certificate)])
    assert done.exit_code in (0, 1), (done.output, done.exception)
    assert "claims left out, nothing is implied by them: privcert:test_raising" in done.stderr
    assert "privcert:test_undecided" in done.stderr
    assert done.stderr.count("claims left out") == 1
    verified = runner.invoke(app, ["verify", str(certificate), "--public-key", f"{key}.pub", "--allow-fail"])
    assert verified.exit_code == 0, verified.output
    assert verified.stderr.count("claims left out, nothing is implied by them: privcert:test_raising") == 1


def test_a_check_says_nothing_of_the_releases_it_measures(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, checking the claims on an empty status cache printed the data warnings of the checks' own releases
    (``privcert demo`` on a fresh machine: five "quasi-identifier 'q' ... looks like a record identifier")."""
    from verifier.errors import IdentifierColumnWarning

    def warning_check() -> CheckResult:
        warnings.warn("data: quasi-identifier 'q' looks like a record identifier", IdentifierColumnWarning,
                      stacklevel=1)
        return CheckResult("proven", None, (), "checked")

    def warning_search(item: object, **_: object) -> tuple[str, None]:
        warnings.warn("data: quasi-identifier 'q' looks like a record identifier", IdentifierColumnWarning,
                      stacklevel=1)
        return "z3: no counterexample", None

    monkeypatch.setitem(theory.checks.CHECKS, "privcert:k_not_dp", warning_check)
    monkeypatch.setattr(theory.checks, "deep_search", warning_search)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert theory.checks.check("privcert:k_not_dp").status == "proven"
        assert theory.checks.check("privcert:k_not_dp", deep=True).checked_by == ("z3: no counterexample",)
    assert said == []
