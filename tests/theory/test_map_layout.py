"""Where the map draws the definitions: by the layers of the implication graph, never two on one another."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from theory.answers.graph import build_graph
from theory.answers.layout import CHARACTER, MARGIN, layers, layout
from theory.answers.map import positions
from theory.definitions import definitions
from theory.status_cache import cached_statuses


def test_layers_follow_the_implications() -> None:
    nodes = ["a", "b", "c", "d", "e", "lone"]
    arrows = [("a", "b"), ("b", "a"), ("b", "c"), ("a", "d"), ("d", "c"), ("c", "e")]
    # a and b imply each other (one group); c is below the longest chain a -> d -> c
    assert layers(nodes, arrows) == [["a", "b"], ["d"], ["c"], ["e"], ["lone"]]


def _apart(found: dict[str, tuple[float, float]], names: dict[str, str]) -> bool:
    """No two boxes of one row overlap: centres at least half of both widths apart."""
    for one, other in combinations(found, 2):
        (x1, y1), (x2, y2) = found[one], found[other]
        if y1 == y2 and abs(x1 - x2) < (CHARACTER * (len(names[one]) + len(names[other]))) / 2 + MARGIN - 1e-9:
            return False
    return True


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="abcdefgh -()", min_size=1, max_size=40), min_size=1, max_size=12),
       st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=30))
def test_no_two_definitions_overlap_on_any_graph(labels: list[str], pairs: list[tuple[int, int]]) -> None:
    names = {f"d{i}": label for i, label in enumerate(labels)}
    arrows = [(f"d{a}", f"d{b}") for a, b in pairs if a < len(labels) and b < len(labels)]
    found = layout(names, arrows)
    assert set(found) == set(names) and _apart(found, names)
    for premise, conclusion in arrows:  # every implication points down, unless the two imply each other
        assert found[premise][1] >= found[conclusion][1]


def test_the_shipped_map_places_every_definition_apart() -> None:
    found = positions(build_graph(cached_statuses()))
    names = {item.id: item.name for item in definitions()}
    assert set(found) == set(names) and len(set(found.values())) == len(found) and _apart(found, names)
