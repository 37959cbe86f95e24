"""Statuses of the registered claims, earned by checking them.

A claim's status is never copied from its paper: :func:`check` runs the claim's check
(symbolic derivation with sympy, exact levels of tables from :mod:`theory.tables.levels`, witness
families from :mod:`theory.tables.witnesses`, exhaustive enumeration of small cases) and returns a
:class:`theory.claims.claim.CheckResult`. Nothing is cached between calls of :func:`check_all`.

With ``deep=True`` an implication with a closed-form f is also searched with Z3
(:mod:`theory.search.refute`) for every N up to ``max_n``: ``unsat`` for all of them is
added to ``checked_by``; ``sat`` on the form used for queries turns the status into
``refuted`` with Z3's (exactly re-measured) table; a timeout adds a note and never proves.

Checking is total: a check that raises (an ``ArithmeticError`` when a bound cannot be
decided exactly, or any defect of the check) gives its claim the status ``unchecked``
with the error in the detail (:func:`unchecked`), and the other claims are checked as
before. An unchecked claim draws no usable edge, so nothing is implied by it.

References
----------
Ekenstedt et al. 2022, Def. 2 (implication), Def. 3 (combined implications).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

import sympy

from theory.claims.catalog import all_claims, claim
from theory.claims.claim import USABLE, CheckResult, Claim
from theory.papers.derived.checks import CHECKS as _CHECKS_PRIVCERT
from theory.papers.domingoferrer2015.checks import CHECKS as _CHECKS_DOMINGOFERRER2015
from theory.papers.ekenstedt2022.checks import CHECKS as _CHECKS_EKENSTEDT2022
from theory.papers.ekenstedt2022.mechanism_checks import CHECKS as _CHECKS_MECHANISMS
from theory.papers.ekenstedt2022.table_checks import CHECKS as _CHECKS_TABLES
from theory.papers.privcert_estimate.checks import CHECKS as _CHECKS_ESTIMATE
from theory.papers.privcert_risk.checks import CHECKS as _CHECKS_RISK
from theory.papers.soriacomas2015.checks import CHECKS as _CHECKS_SORIACOMAS2015
from verifier.errors import PrivcertWarning

__all__ = ["CHECKS", "check", "check_all", "deep_search", "unchecked"]


CHECKS: dict[str, Callable[[], CheckResult]] = {**_CHECKS_EKENSTEDT2022, **_CHECKS_TABLES, **_CHECKS_DOMINGOFERRER2015, **_CHECKS_SORIACOMAS2015, **_CHECKS_MECHANISMS, **_CHECKS_PRIVCERT,
                                              **_CHECKS_RISK, **_CHECKS_ESTIMATE}
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


def unchecked(claim_id: str, error: Exception) -> CheckResult:
    """The outcome of a claim whose check raised ``error``: ``unchecked``, the error in the detail."""
    return CheckResult("unchecked", None, (f"check of {claim_id}: raised {type(error).__name__}",),
                       f"its check did not decide: {type(error).__name__}: {error}")


@contextmanager
def _quiet() -> Iterator[None]:
    """A check, or its search, measures releases the theory builds: what privcert warns of a release's data (a
    column that looks like an identifier, say) is for a user's release, never these."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivcertWarning)
        yield


def _run(claim_id: str) -> CheckResult:
    """The claim's check, total (:func:`unchecked` when it raises or there is none; a ``MemoryError`` is not
    caught)."""
    if claim_id not in CHECKS:
        return unchecked(claim_id, LookupError("no check is registered for it"))
    try:
        with _quiet():
            return CHECKS[claim_id]()
    except MemoryError:
        raise
    except Exception as error:  # noqa: BLE001 - one claim's defect must not stop the others' checks
        return unchecked(claim_id, error)


def check(claim_id: str, *, deep: bool = False, max_n: int = 4, timeout_s: float = 10.0) -> CheckResult:
    """Check one claim (see the module docstring for ``deep``); a check that raises gives ``unchecked``.

    Raises
    ------
    UnknownClaimError
        When ``claim_id`` is not registered.
    ValueError
        With ``deep``, unless ``timeout_s`` is a positive, finite number of seconds.
    """
    item = claim(claim_id)
    if not deep:
        return _run(claim_id)
    from theory.search.solver import timeout_ms

    timeout_ms(timeout_s)
    outcome = _run(claim_id)
    if outcome.status == "unchecked":
        return outcome
    try:
        with _quiet():
            summary, table = deep_search(item, max_n=max_n, timeout_s=timeout_s)
    except MemoryError:
        raise
    except Exception as error:  # noqa: BLE001 - as _run: the search's defect leaves the check's outcome
        summary, table = f"z3: raised {type(error).__name__}: {error}", None
    if table is not None and outcome.status in USABLE:
        return CheckResult("refuted", table, (*outcome.checked_by, summary), f"z3 contradicts: {summary}")
    return replace(outcome, checked_by=(*outcome.checked_by, summary))


def check_all(*, deep: bool = False, max_n: int = 4, timeout_s: float = 10.0) -> dict[str, CheckResult]:
    """Check every registered claim; ``{claim id: CheckResult}`` in registry order (``ValueError`` as :func:`check`).

    Total: a claim whose check raises, or that has none, is ``unchecked`` (:func:`unchecked`) and the others are
    checked."""
    if deep:
        from theory.search.solver import timeout_ms

        timeout_ms(timeout_s)
    return {c.id: check(c.id, deep=deep, max_n=max_n, timeout_s=timeout_s) for c in all_claims()}
