"""The grid of ``theory implies`` queries at N <= 5 in four readings (tests/_theory_grid.py): how many answers
are unknown, and every "no" has a witness in its reading, found by brute force (slow)."""

from __future__ import annotations

from collections import Counter

import pytest

from _theory_grid import queries, witness
from theory.answers.graph import Graph, build_graph
from theory.status_cache import cached_statuses


@pytest.fixture(scope="module")
def answers() -> list[tuple[str, str, dict[str, object], str]]:
    graph: Graph = build_graph(cached_statuses())
    found = []
    for premise, conclusion, params in queries():
        try:
            holds = graph.implies(premise, conclusion, params).holds
        except ValueError:  # a definition undefined at N = 1
            holds = "undefined"
        found.append((premise, conclusion, params, holds))
    return found


def _reading(params: dict[str, object]) -> str:
    return "+".join(name for name in ("dp_within_classes", "singleton_classes") if params.get(name)) or "global"


@pytest.mark.slow
def test_unknown_answers_on_the_grid(answers: list[tuple[str, str, dict[str, object], str]]) -> None:
    """The answers of the 17,340 queries, by reading (docs/theory.md, "Queries")."""
    assert len(answers) == 17_340
    found = Counter((holds, _reading(params)) for _, _, params, holds in answers)
    assert found == EXPECTED


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_every_no_on_the_grid_has_a_witness_in_its_reading(answers: list[tuple[str, str, dict[str, object], str]]
                                                          ) -> None:
    """A release of the query's reading, N, smallest class and flags: the premise finite, the conclusion at its
    weakest level."""
    missing = [(premise, conclusion, params) for premise, conclusion, params, holds in answers
               if holds == "no" and witness(premise, conclusion, params) is None]
    assert missing == []


EXPECTED: Counter[tuple[str, str]] = Counter({
    ("yes", "global"): 2373, ("no", "global"): 2412, ("unknown", "global"): 1279, ("undefined", "global"): 36,
    ("yes", "dp_within_classes"): 2192, ("no", "dp_within_classes"): 2112, ("unknown", "dp_within_classes"): 1760,
    ("undefined", "dp_within_classes"): 36,
    ("yes", "singleton_classes"): 637, ("no", "singleton_classes"): 1103, ("unknown", "singleton_classes"): 794,
    ("undefined", "singleton_classes"): 36,
    ("yes", "dp_within_classes+singleton_classes"): 820, ("no", "dp_within_classes+singleton_classes"): 883,
    ("unknown", "dp_within_classes+singleton_classes"): 831, ("undefined", "dp_within_classes+singleton_classes"): 36})
"""4,664 unknown of 17,340; "undefined": ε-DP at N = 1. Before the releases of one and of two values
(privcert:forcing_levels, privcert:deterministic_subsets) 8,205: global 2,480, dp_within_classes 2,908,
singleton_classes 1,401, both 1,416, the "yes" unchanged; before the corners and the textbook relations: see
docs/theory.md."""
