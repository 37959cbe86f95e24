"""Every proven or corrected claim between the randomized definitions, against measured levels.

For each edge of the implication map (theory.answers.graph) whose two ends are randomized
definitions and whose status is ``proven`` or ``corrected``, hypothesis draws mechanisms
and data sets (N ≤ 8), the verifier measures the premise's level, the edge's function
gives the level it guarantees, and the measured level of the conclusion must not exceed
it, for every assignment of the subset sizes that meets the edge's conditions. Edges
that rest on an assumption about the data (singleton classes, DP inside classes, the
class-wise views of Domingo-Ferrer & Soria-Comas 2015, Prop. 3) are not drawn: random
data do not meet them. Tightness is checked in tests/verifier/randomized/test_randomized.py.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings

from _releases import releases
from theory.answers.graph import Edge, build_graph
from theory.claims.claim import USABLE
from verifier.randomized import levels as randomized
from verifier.randomized.mechanism import Mechanism
from verifier.tables.counts import CountTable

RANDOMIZED = {"multiplicative_t_closeness", "stochastic_t_closeness", "kt_closeness", "ldp", "dp", "k_eps_dp"}
EPSILON = {"ldp", "dp", "k_eps_dp"}
CLASS_SIZED = {"multiplicative_t_closeness", "stochastic_t_closeness"}


def _checked_edges() -> list[Edge]:
    return [e for e in build_graph().edges
            if e.premise in RANDOMIZED and e.conclusion in RANDOMIZED and e.status in USABLE
            and e.f is not None and "Assumption" not in str(e.conditions)]


EDGES = _checked_edges()


def measured(definition: str, table: CountTable, mechanism: Mechanism, size: int | None) -> Fraction | None:
    """The ratio level (t, or e^ε) of ``definition``; ``None`` = ∞."""
    if definition in CLASS_SIZED:
        return randomized.multiplicative_t(table, mechanism).ratio
    if definition == "ldp":
        return randomized.ldp(mechanism, table).ratio
    if definition == "dp":
        return randomized.dp(table, mechanism).ratio
    assert size is not None
    if definition == "kt_closeness":
        return randomized.kt_closeness(table, mechanism, size).ratio
    return randomized.k_eps_dp(table, mechanism, size).ratio


def level(definition: str, ratio: Fraction) -> sympy.Expr:
    value = sympy.Rational(ratio.numerator, ratio.denominator)
    return sympy.log(value) if definition in EPSILON else value


def assignments(edge: Edge, n: int, smallest: int) -> list[dict[sympy.Symbol, int]]:
    """Every assignment of the edge's size symbols (in [1, N-1]) that meets its conditions."""
    free = set()
    for expr in (edge.premise_size, edge.conclusion_size, *edge.conditions):
        if isinstance(expr, sympy.Basic):
            free |= {s for s in expr.free_symbols if s.name not in ("N", "t", "epsilon")}
    fixed: dict[sympy.Symbol, int] = {}
    if edge.premise in CLASS_SIZED and isinstance(edge.premise_size, sympy.Symbol):
        fixed[edge.premise_size] = smallest
    if edge.conclusion in CLASS_SIZED and isinstance(edge.conclusion_size, sympy.Symbol):
        fixed[edge.conclusion_size] = smallest
    names = sorted(free - set(fixed), key=lambda s: s.name)
    out = []
    for values in itertools.product(range(1, n), repeat=len(names)):
        sub = {**fixed, **dict(zip(names, values))}
        by_name = {s.name: v for s, v in sub.items()} | {"N": n}
        if all(bool(c.subs({s: by_name[s.name] for s in c.free_symbols if s.name in by_name})) is True
               for c in edge.conditions):
            out.append(sub)
    return out


def size_of(expr: sympy.Expr | None, sub: dict[str, int]) -> int | None:
    if expr is None:
        return None
    value = sympy.sympify(expr).subs({s: sub[s.name] for s in sympy.sympify(expr).free_symbols})
    return int(value)


@pytest.mark.parametrize("edge", EDGES, ids=[f"{e.claim_id}:{e.premise}->{e.conclusion}" for e in EDGES])
@settings(max_examples=40, deadline=None)
@given(release=releases(max_n=8))
def test_measured_conclusion_never_exceeds_the_guarantee(edge: Edge, release: tuple) -> None:
    table, mechanism, _, _ = release
    n, smallest = table.n, int(table.classes.sizes.min())
    for sub in assignments(edge, n, smallest):
        by_name = {s.name: v for s, v in sub.items()} | {"N": n}
        premise_size = size_of(edge.premise_size, by_name)
        conclusion_size = size_of(edge.conclusion_size, by_name)
        if any(s is not None and not 1 <= s <= n - 1 for s in (premise_size, conclusion_size)):
            continue
        premise = measured(edge.premise, table, mechanism, premise_size)
        if premise is None:
            continue
        values = {s: (level(edge.premise, premise) if s.name in ("t", "epsilon") else by_name[s.name])
                  for s in edge.f.free_symbols}
        bound = sympy.simplify(edge.f.subs(values))
        conclusion = measured(edge.conclusion, table, mechanism, conclusion_size)
        assert conclusion is not None, (edge.claim_id, by_name)
        ratio_bound = sympy.simplify(sympy.exp(bound)) if edge.conclusion in EPSILON else bound
        assert sympy.Le(sympy.Rational(conclusion.numerator, conclusion.denominator), ratio_bound) == sympy.true, (
            edge.claim_id, by_name, conclusion, ratio_bound)


def test_every_checked_edge_has_sizes_meeting_its_conditions() -> None:
    """So that the property test above is never vacuous: N = 8, smallest class 2."""
    assert {e.claim_id for e in EDGES} >= {"ekenstedt2022:thm2b", "ekenstedt2022:thm3a", "ekenstedt2022:thm4_1",
                                           "domingoferrer2015:prop1", "ekenstedt2022:lemma2_1"}
    for edge in EDGES:
        assert assignments(edge, 8, 2), edge.claim_id
