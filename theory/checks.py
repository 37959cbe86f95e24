"""Statuses of the registered claims, earned by checking them.

A claim's status is never copied from its paper: :func:`check` runs the claim's check
(symbolic derivation with sympy, exact levels of tables from :mod:`theory.tables.levels`, witness
families from :mod:`theory.tables.witnesses`, exhaustive enumeration of small cases) and returns a
:class:`theory.claims.claim.CheckResult`. Nothing is cached between calls of :func:`check_all`.

With ``deep=True`` an implication with a closed-form f is also searched with Z3
(:mod:`theory.search.refute`) for every N up to ``max_n``: ``unsat`` for all of them is
added to ``checked_by``; ``sat`` on the form used for queries turns the status into
``refuted`` with Z3's (exactly re-measured) table; a timeout adds a note and never proves.

References
----------
Ekenstedt et al. 2022, Def. 2 (implication), Def. 3 (combined implications).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import sympy

from theory.claims.catalog import all_claims, claim
from theory.claims.claim import CheckResult, Claim
from theory.papers.derived.checks import CHECKS as _CHECKS_PRIVCERT
from theory.papers.domingoferrer2015.checks import CHECKS as _CHECKS_DOMINGOFERRER2015
from theory.papers.ekenstedt2022.checks import CHECKS as _CHECKS_EKENSTEDT2022
from theory.papers.ekenstedt2022.mechanism_checks import CHECKS as _CHECKS_MECHANISMS
from theory.papers.ekenstedt2022.table_checks import CHECKS as _CHECKS_TABLES
from theory.papers.privcert_risk.checks import CHECKS as _CHECKS_RISK
from theory.papers.soriacomas2015.checks import CHECKS as _CHECKS_SORIACOMAS2015

__all__ = ["CHECKS", "check", "check_all", "deep_search"]


CHECKS: dict[str, Callable[[], CheckResult]] = {**_CHECKS_EKENSTEDT2022, **_CHECKS_TABLES, **_CHECKS_DOMINGOFERRER2015, **_CHECKS_SORIACOMAS2015, **_CHECKS_MECHANISMS, **_CHECKS_PRIVCERT,
                                              **_CHECKS_RISK}
"""claim id -> zero-argument check."""


def deep_search(item: Claim, *, max_n: int = 4, timeout_s: float = 10.0) -> tuple[str, object | None]:
    """Z3 search (:func:`theory.search.refute.search_claim`) on the claim's query form.

    Returns a one-line summary and the confirmed counterexample table (``None`` when the
    search found none). Only implications and equivalences with a closed-form f are searched.
    """
    from theory.search.refute import search_claim
    from theory.search.solver import EncodingError

    statement = item.effective
    if item.kind not in ("implication", "equivalence") or statement.atoms(sympy.core.function.AppliedUndef):
        return "z3: not applicable (no closed-form f)", None
    try:
        found = search_claim(item, statement, max_n=max_n, timeout_s=timeout_s)
    except EncodingError as error:
        return f"z3: not encodable ({error})", None
    table = found.counterexample.table if found.status == "sat" and found.counterexample else None
    return f"z3 ({'corrected' if item.corrected is not None else 'printed'} form): {found.status}, {found.detail}", table


def check(claim_id: str, *, deep: bool = False, max_n: int = 4, timeout_s: float = 10.0) -> CheckResult:
    """Check one claim (see the module docstring for ``deep``).

    Raises
    ------
    UnknownClaimError
        When ``claim_id`` is not registered.
    ValueError
        With ``deep``, unless ``timeout_s`` is a positive, finite number of seconds.
    """
    item = claim(claim_id)
    if not deep:
        return CHECKS[claim_id]()
    from theory.search.solver import timeout_ms

    timeout_ms(timeout_s)
    outcome = CHECKS[claim_id]()
    summary, table = deep_search(item, max_n=max_n, timeout_s=timeout_s)
    if table is not None and outcome.status in ("proven", "corrected"):
        return CheckResult("refuted", table, (*outcome.checked_by, summary), f"z3 contradicts: {summary}")
    return replace(outcome, checked_by=(*outcome.checked_by, summary))


def check_all(*, deep: bool = False, max_n: int = 4, timeout_s: float = 10.0) -> dict[str, CheckResult]:
    """Check every registered claim; ``{claim id: CheckResult}`` in registry order (``ValueError`` as :func:`check`)."""
    if deep:
        from theory.search.solver import timeout_ms

        timeout_ms(timeout_s)
    missing = [c.id for c in all_claims() if c.id not in CHECKS]
    if missing:
        raise LookupError(f"claims without a check: {missing}; expected a check for every registered claim")
    return {c.id: check(c.id, deep=deep, max_n=max_n, timeout_s=timeout_s) for c in all_claims()}
