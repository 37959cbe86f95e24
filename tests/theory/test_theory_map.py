"""The implication map: readable (no two texts overlap in the rendered SVG), every node related or marked, fast."""

from __future__ import annotations

from pathlib import Path

import pytest

from _svg_text import clashes, text_boxes
from theory.answers.graph import Graph, build_graph
from theory.answers.map import ISOLATED, render_map
from theory.definitions import definitions
from theory.status_cache import cached_statuses


@pytest.fixture(scope="module")
def graph() -> Graph:
    return build_graph(cached_statuses())


@pytest.fixture(scope="module")
def svg(graph: Graph, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("map") / "map.svg"
    render_map(graph, out)
    return out


def test_no_two_texts_overlap(svg: Path) -> None:
    boxes = text_boxes(svg)
    assert len(boxes) > 2 * len(definitions())
    assert not clashes(boxes)


def test_the_overlap_check_sees_an_overlap(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    with plt.rc_context({"svg.fonttype": "none"}):
        figure = plt.figure(figsize=(3, 2))
        figure.text(0.5, 0.5, "multiplicative t-closeness", ha="center")
        figure.text(0.55, 0.52, "(k,t)-closeness", ha="center")
        figure.text(0.1, 0.1, "apart")
        figure.savefig(tmp_path / "clash.svg")
        plt.close(figure)
    assert clashes(text_boxes(tmp_path / "clash.svg")) == [("multiplicative t-closeness", "(k,t)-closeness")]


def test_every_node_is_related_or_marked_isolated(svg: Path, graph: Graph) -> None:
    texts = [text for text, _ in text_boxes(svg)]
    related = {e.premise for e in graph.edges} | {e.conclusion for e in graph.edges}
    for item in definitions():
        assert item.name in texts
        assert item.id in related or texts.count(ISOLATED) >= 1
    assert related == {item.id for item in definitions()}


def test_every_arrow_is_numbered_and_listed(svg: Path, graph: Graph) -> None:
    texts = [text for text, _ in text_boxes(svg)]
    for number, edge in enumerate(graph.edges, start=1):
        assert str(number) in texts
        assert any(text.startswith(f"{number:>3}  [{edge.claim_id}") for text in texts), edge.claim_id
    assert not any("log(" in text or "oo" in text.split() or "**" in text for text in texts)


def test_isolated_node_is_marked(tmp_path: Path, graph: Graph) -> None:
    alone = Graph(tuple(e for e in graph.edges if "prosecutor_risk" not in (e.premise, e.conclusion)))
    texts = [text for text, _ in text_boxes(render_map(alone, tmp_path / "alone.svg"))]
    assert texts.count(ISOLATED) == 1
