"""The grid of ``theory implies`` queries at N <= 5, and a brute-force search for the witness of a "no".

The grid: every ordered pair of definitions (a sized one also with itself at another size), every
1 <= N <= 5, every smallest class a partition of N records can have (k = N or 2k <= N), every subset
size 1 <= k <= N - 1 of a sized side, in four readings: as measured (global), ``dp_within_classes``,
``singleton_classes`` (every class one record: k = 1) and both.

A witness of "A ⇏ B" at a query is a release of the query's reading (a deterministic release, one value
per record, when the query names a definition of the released values; else also a probability table), of
N records whose smallest class is k (every class one record under ``singleton_classes``), on which A holds
at a finite level and B fails every non-trivial level: B's level is its weakest (infinite t, ε, β, δ or c;
k = l = K = 1; α = R = 1). The releases searched: every deterministic release of N records (every partition,
every assignment of up to four values), and every table whose rows are (1, 0), (0, 1) or (1/2, 1/2) over every
partition; levels measured by the verifier (:func:`theory.papers.derived.checks.release_levels`) and
:mod:`theory.tables.levels`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from fractions import Fraction
from functools import cache
from itertools import product

import sympy

from theory.definitions import definition, definition_ids
from theory.tables import levels
from theory.tables.probability_table import ProbabilityTable

READINGS: tuple[tuple[str, ...], ...] = ((), ("dp_within_classes",), ("singleton_classes",),
                                         ("dp_within_classes", "singleton_classes"))
"""The four readings of the grid (the assumptions a query asserts)."""

Query = tuple[str, str, dict[str, object]]

OF_VALUES = frozenset({"alpha_k_anonymity", "distinct_l_diversity", "entropy_l_diversity", "recursive_cl_diversity",
                       "t_closeness", "basic_beta_likeness", "enhanced_beta_likeness", "delta_disclosure",
                       "delta_disclosure_present"})
"""Definitions of the released values: a query naming one is about deterministic releases."""
_WORST_ONE = frozenset({"alpha_k_anonymity", "prosecutor_risk", "journalist_risk", "marketer_risk", "sample_uniqueness",
                        "k_anonymity", "distinct_l_diversity", "entropy_l_diversity", "k_map"})
"""Definitions whose weakest level is 1 (the others': infinite; the EMD's, 1, is never reached)."""


def queries(max_n: int = 5, min_n: int = 1, readings: tuple[tuple[str, ...], ...] = READINGS) -> Iterator[Query]:
    """The grid (see the module docstring), in a fixed order; ``min_n``, ``max_n`` and ``readings`` select a part."""
    ids = definition_ids()
    sized = ("kt_closeness", "k_eps_dp")  # theory.answers.graph.SIZED
    for premise, conclusion in product(ids, ids):
        if premise == conclusion and premise not in sized:
            continue
        for records in range(min_n, max_n + 1):
            sizes = range(1, records)
            for smallest in (s for s in range(1, records + 1) if s == records or 2 * s <= records):
                for k_premise in sizes if premise in sized else (None,):
                    for k_conclusion in sizes if conclusion in sized else (None,):
                        if premise == conclusion and k_premise == k_conclusion:
                            continue
                        params: dict[str, object] = {"N": records, "k": smallest}
                        params.update({name: value for name, value in (("k_premise", k_premise),
                                       ("k_conclusion", k_conclusion)) if value is not None})
                        for reading in readings:
                            if "singleton_classes" in reading and smallest != 1:
                                continue
                            yield premise, conclusion, {**params, **dict.fromkeys(reading, True)}


def _partitions(records: int) -> Iterator[tuple[tuple[int, ...], ...]]:
    """Every set partition of range(records)."""
    def grow(index: int, blocks: list[list[int]]) -> Iterator[tuple[tuple[int, ...], ...]]:
        if index == records:
            yield tuple(tuple(block) for block in blocks)
            return
        for block in blocks:
            block.append(index)
            yield from grow(index + 1, blocks)
            block.pop()
        blocks.append([index])
        yield from grow(index + 1, blocks)
        blocks.pop()
    yield from grow(0, [])


def _labels(records: int) -> Iterator[tuple[int, ...]]:
    """Every assignment of up to four values (those of the verifier's sample hierarchy) to records up to renaming (restricted growth strings)."""
    def grow(prefix: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        if len(prefix) == records:
            yield prefix
            return
        for value in range(min(max(prefix, default=-1) + 2, 4)):
            yield from grow((*prefix, value))
    yield from grow(())


_ROWS = ((Fraction(1), Fraction(0)), (Fraction(0), Fraction(1)), (Fraction(1, 2), Fraction(1, 2)))


@cache
def releases(records: int, deterministic: bool) -> tuple[tuple[tuple[tuple[int, ...], ...], dict[str, object]], ...]:
    """Every release of the search with its levels (keys: definition ids, ``k_eps_dp@j``, ``kt_closeness@j``,
    ``classwise@j`` for (j,ε)-DP inside the classes); ratio levels in ratio form."""
    found = []
    for classes in _partitions(records):
        if deterministic:
            tables = [(labels, _zero_one(labels, classes)) for labels in _labels(records)]
        else:
            tables = [(None, ProbabilityTable.from_rows(rows, classes)) for rows in product(_ROWS, repeat=records)]
        for labels, table in tables:
            found.append((classes, _levels(table, classes, labels)))
    return tuple(found)


def _zero_one(labels: tuple[int, ...], classes: tuple[tuple[int, ...], ...]) -> ProbabilityTable:
    width = max(labels) + 1
    return ProbabilityTable.from_rows([[1 if j == v else 0 for j in range(width)] for v in labels], classes)


def _levels(table: ProbabilityTable, classes: tuple[tuple[int, ...], ...], labels: tuple[int, ...] | None
            ) -> dict[str, object]:
    records = table.n
    found: dict[str, object] = {
        "multiplicative_t_closeness": levels.multiplicative_t(table),
        "stochastic_t_closeness": levels.multiplicative_t(table),
        "ldp": levels.ldp_ratio(table), "k_anonymity": min(len(c) for c in classes)}
    smallest = found["k_anonymity"]
    found.update({"prosecutor_risk": Fraction(1, smallest), "journalist_risk": Fraction(1, smallest),
                  "k_map": smallest, "marketer_risk": Fraction(len(classes), records),
                  "sample_uniqueness": Fraction(sum(len(c) == 1 for c in classes), records)})
    for j in range(1, records):
        found[f"k_eps_dp@{j}"] = levels.k_eps_dp_ratio(table, j)
        found[f"kt_closeness@{j}"] = levels.kt_closeness_t(table, j)
        found[f"classwise@{j}"] = levels.classwise_k_eps_dp_ratio(table, j)
    if records > 1:
        found["dp"] = found["k_eps_dp@1"]
    if labels is not None:
        from theory.papers.derived.checks import release_levels

        counts = [{"abcd"[v]: sum(labels[i] == v for i in c) for v in {labels[i] for i in c}} for c in classes]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            measured = release_levels(counts)
        found.update(measured)
        found["t_closeness"] = max(measured[key] for key in ("t_closeness_equal", "t_closeness_ordered",
                                                            "t_closeness_hierarchical"))
    return found


def _level(found: dict[str, object], definition_id: str, size: object, classwise: bool) -> object:
    if definition_id == "dp":
        return found.get("classwise@1") if classwise else found.get("dp")
    if definition_id == "k_eps_dp":
        return found[f"{'classwise' if classwise else 'k_eps_dp'}@{size}"]
    if definition_id == "kt_closeness":
        return found[f"kt_closeness@{size}"]
    return found.get(definition_id)


def _weakest(definition_id: str, value: object) -> bool:
    if definition_id in _WORST_ONE:
        return value == 1
    return value is sympy.oo or value == sympy.oo


def witness(premise: str, conclusion: str, params: dict[str, object]) -> tuple[tuple[int, ...], ...] | None:
    """The classes of a release witnessing "premise ⇏ conclusion" at ``params`` (see the module docstring)."""
    records, smallest = int(params["N"]), int(params["k"])  # type: ignore[call-overload]
    singletons = bool(params.get("singleton_classes"))
    classwise = bool(params.get("dp_within_classes"))
    deterministic = bool({premise, conclusion} & OF_VALUES)
    searched = releases(records, True) + (() if deterministic else releases(records, False))
    for classes, found in searched:
        if min(len(c) for c in classes) != smallest or (singletons and len(classes) != records):
            continue
        a = _level(found, premise, params.get("k_premise"), classwise)
        b = _level(found, conclusion, params.get("k_conclusion"), classwise)
        if a is None or b is None:
            continue
        holds = not (definition(premise).direction == "smaller_is_stronger" and _weakest(premise, a)
                     and premise not in _WORST_ONE)
        if holds and _weakest(conclusion, b):
            return classes
    return None
