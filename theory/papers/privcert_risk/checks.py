"""Checks of the risk relations (:mod:`theory.papers.privcert_risk.claims`): every small release, measured.

Every release of one to three classes of one to three records is measured with the
verifier's own functions, without a population table and with every population that
gives each class up to two more people than records (the population counts ``F_E`` the
verifier's population table yields); each claim's bound is compared exactly (fractions) with the
measured levels, and the release that attains it is named.

References
----------
El Emam & Dankar 2008, Sec. 3 (prosecutor, journalist and marketer risk, k-map);
Dankar, El Emam, Neisa & Roffey 2012, Sec. 2 (sample uniques).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement, product
from typing import TYPE_CHECKING

import sympy

from theory.claims.catalog import claim
from theory.claims.claim import CheckResult
from theory.papers.check_steps import result
from verifier.symbols import journalist, k, risk, uniques

if TYPE_CHECKING:
    from verifier.tables.counts import Classes

__all__ = ["CHECKS", "Levels", "small_releases"]

Levels = dict[str, Fraction]
"""The measured levels of one release by model id, with ``sizes`` and ``population`` kept beside them."""
_SIZES = (1, 2, 3)
_EXTRA = (0, 1, 2)


def small_releases() -> Iterator[tuple[tuple[int, ...], tuple[int, ...] | None]]:
    """Every (class sizes, population counts or ``None``) of the check: sizes 1-3, 1-3 classes, F - f in 0-2."""
    for classes in (1, 2, 3):
        for sizes in combinations_with_replacement(_SIZES, classes):
            yield sizes, None
            for extra in product(_EXTRA, repeat=classes):
                yield sizes, tuple(f + e for f, e in zip(sizes, extra))


@cache
def _classes(sizes: tuple[int, ...]) -> Classes:
    """The classes of a release of one quasi-identifier whose classes hold ``sizes`` records."""
    import pandas as pd

    from verifier.tables.counting import count_tables

    frame = pd.DataFrame({"q": [f"c{i}" for i, size in enumerate(sizes) for _ in range(size)]})
    with warnings.catch_warnings():  # a release of singletons is meant here, not a record identifier
        warnings.simplefilter("ignore")
        return count_tables(frame, ["q"], [])[0]


def _measure(sizes: tuple[int, ...], population: tuple[int, ...] | None) -> Levels:
    """The levels the verifier measures on the release of classes ``sizes`` with population counts ``population``."""
    import numpy as np

    from verifier.privacy.anonymity import k_anonymity, prosecutor_risk
    from verifier.risk.population_table import ClassPopulations, k_map
    from verifier.risk.sample import journalist_risk, marketer_risk, sample_uniqueness

    classes = _classes(sizes)
    populations = None
    if population is not None:
        counts = np.array([population[int(key[1:])] for key in classes.keys["q"]], dtype=np.int64)
        populations = ClassPopulations(counts, sum(population), 0, "brute force", "")
    measured = {"k_anonymity": k_anonymity(classes), "prosecutor_risk": prosecutor_risk(classes),
                "journalist_risk": journalist_risk(classes, Fraction(1, 5), populations),
                "marketer_risk": marketer_risk(classes, populations), "sample_uniqueness": sample_uniqueness(classes)}
    if populations is not None:
        measured["k_map"] = k_map(classes, populations)
    return {model: Fraction(str(m.level.value)) for model, m in measured.items()}


@cache
def _all_cases() -> tuple[tuple[str, Levels], ...]:
    return tuple(_cases())


def _cases() -> Iterator[tuple[str, Levels]]:
    for sizes, population in small_releases():
        yield f"classes {list(sizes)}, population {'none' if population is None else list(population)}", _measure(
            sizes, population)


def _bound(claim_id: str, symbol: sympy.Symbol, level: Fraction) -> Fraction:
    """The conclusion level the claim guarantees at the premise level ``level``."""
    value = claim(claim_id).effective.rhs.subs(symbol, sympy.Rational(level.numerator, level.denominator))
    return Fraction(str(sympy.nsimplify(value)))


def _implication(claim_id: str, premise: str, symbol: sympy.Symbol, conclusion: str, larger: bool) -> CheckResult:
    """``conclusion`` measured no weaker than the claim's bound at the measured ``premise`` on every case; tight once."""
    cases = [(name, found) for name, found in _all_cases() if premise in found and conclusion in found]
    tight = None
    for name, found in cases:
        bound = _bound(claim_id, symbol, found[premise])
        level = found[conclusion]
        if (level < bound) if larger else (level > bound):
            return result("refuted", ["verifier: brute force"], f"{name}: {premise} = {found[premise]}, "
                          f"{conclusion} = {level}, bound {bound}", {"case": name})
        if level == bound and tight is None:
            tight = name
    if tight is None:
        return result("unknown", ["verifier: brute force"], f"the bound holds on {len(cases)} releases, none attains it")
    return result("proven", ["definition (see the proof in the claims module)",
                             f"verifier: brute force on {len(cases)} releases and populations"],
                  f"holds on every release; attained by {tight}")


def _journalist_k_map() -> CheckResult:
    """K = 1/R_J on every release measured with a population table (both directions of the equivalence)."""
    cases = [(name, found) for name, found in _all_cases() if "k_map" in found]
    for name, found in cases:
        if found["k_map"] * found["journalist_risk"] != 1:
            return result("refuted", ["verifier: brute force"], f"{name}: R_J = {found['journalist_risk']}, "
                          f"K = {found['k_map']}", {"case": name})
    return result("proven", ["definition: R_J = 1/min F_E, K = min F_E",
                             f"verifier: brute force on {len(cases)} releases with populations"],
                  "K = 1/R_J on every release (tight both ways)")


CHECKS: dict[str, Callable[[], CheckResult]] = {
    "privcert:prosecutor_to_journalist": lambda: _implication("privcert:prosecutor_to_journalist", "prosecutor_risk",
                                                              risk, "journalist_risk", larger=False),
    "privcert:journalist_to_marketer": lambda: _implication("privcert:journalist_to_marketer", "journalist_risk",
                                                            journalist, "marketer_risk", larger=False),
    "privcert:k_to_k_map": lambda: _implication("privcert:k_to_k_map", "k_anonymity", k, "k_map", larger=True),
    "privcert:k_to_uniqueness": lambda: _implication("privcert:k_to_uniqueness", "k_anonymity", k,
                                                     "sample_uniqueness", larger=False),
    "privcert:uniqueness_to_k": lambda: _implication("privcert:uniqueness_to_k", "sample_uniqueness", uniques,
                                                     "k_anonymity", larger=True),
    "privcert:journalist_k_map": _journalist_k_map,
}
