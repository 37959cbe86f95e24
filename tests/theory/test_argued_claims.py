"""An implication derived here with no check of its own is checked against every model's declared measure."""

from __future__ import annotations

import pytest
import sympy

from theory.claims.claim import Claim, equation
from theory.definitions import ell, k
from theory.papers.derived import checks
from verifier.references import PRIVCERT, Source


def _claim(f: sympy.Expr, premise: str, conclusion: str, tight: bool) -> Claim:
    return Claim("privcert:argued", Source(PRIVCERT, "tests", "an argued claim"), "implication", premise, conclusion,
                 f, (), note="stated for the test", tight=tight)


@pytest.mark.parametrize(("stated", "status", "detail"), [
    (_claim(equation(k, ell), "distinct_l_diversity", "k_anonymity", True), "tested", "attained"),
    (_claim(equation(k, ell - 1), "distinct_l_diversity", "k_anonymity", False), "tested", "bounded"),
    (_claim(equation(k, ell - 1), "distinct_l_diversity", "k_anonymity", True), "unknown", "no seeded release"),
    (_claim(equation(ell, k), "k_anonymity", "distinct_l_diversity", False), "refuted", "beyond the bound"),
])
def test_an_argued_implication_is_checked_on_the_seeded_releases(monkeypatch: pytest.MonkeyPatch, stated: Claim,
                                                                   status: str, detail: str) -> None:
    monkeypatch.setattr(checks, "claim", lambda _: stated)
    outcome = checks._argued(stated)()
    assert outcome.status == status and detail in outcome.detail, outcome
    assert outcome.status != "tested" or outcome.detail.startswith(
        "tested on 25 seeded releases (1-4 classes of 1-5 records over the values a, b, c, d): ")
    assert outcome.status == "unknown" or "argument: stated for the test" in outcome.checked_by


def test_only_an_implication_may_go_without_a_check() -> None:
    """Another claim without a check of its own is registered, and its check raises (theory.checks makes it
    unchecked, tests/theory/test_unchecked_claims.py)."""
    bound = Claim("privcert:argued", Source(PRIVCERT, "tests", "a bound"), "bound", None, "k_anonymity",
                  sympy.Ge(k, 1), ())
    with pytest.raises(LookupError, match="privcert:argued: a bound claim needs a check of its own"):
        checks._argued(bound)()
