"""The implication map: readable (no two texts overlap in the rendered SVG), every node related or marked, fast."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import combinations
from pathlib import Path

import pytest
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.font_manager import FontProperties

from theory.answers.graph import Graph, build_graph
from theory.answers.map import ISOLATED, render_map
from theory.definitions import definitions
from theory.status_cache import cached_statuses

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def graph() -> Graph:
    return build_graph(cached_statuses())


@pytest.fixture(scope="module")
def svg(graph: Graph, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("map") / "map.svg"
    render_map(graph, out)
    return out


def _boxes(path: Path) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Every <text> of the SVG with its box (x0, y0, x1, y1), measured with matplotlib's font metrics."""
    renderer = RendererAgg(10, 10, 72)
    found = []
    for element in ET.parse(path).iter(f"{SVG}text"):
        style = dict(part.split(":", 1) for part in element.get("style", "").split(";") if ":" in part)
        style = {key.strip(): value.strip() for key, value in style.items()}
        size = float(style["font-size"].removesuffix("px"))
        text = "".join(element.itertext())
        width, height, descent = renderer.get_text_width_height_descent(
            text, FontProperties(family="DejaVu Sans", size=size), ismath=False)
        x, y = float(element.get("x")), float(element.get("y"))
        anchor = style.get("text-anchor", "start")
        left = x - width / 2 if anchor == "middle" else x - width if anchor == "end" else x
        found.append((text, (left, y - (height - descent), left + width, y + descent)))
    return found


def _clashes(boxes: list[tuple[str, tuple[float, float, float, float]]]) -> list[tuple[str, str]]:
    return [(a, b) for (a, p), (b, q) in combinations(boxes, 2)
            if p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]]


def test_no_two_texts_overlap(svg: Path) -> None:
    boxes = _boxes(svg)
    assert len(boxes) > 2 * len(definitions())
    assert not _clashes(boxes)


def test_the_overlap_check_sees_an_overlap(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    with plt.rc_context({"svg.fonttype": "none"}):
        figure = plt.figure(figsize=(3, 2))
        figure.text(0.5, 0.5, "multiplicative t-closeness", ha="center")
        figure.text(0.55, 0.52, "(k,t)-closeness", ha="center")
        figure.text(0.1, 0.1, "apart")
        figure.savefig(tmp_path / "clash.svg")
        plt.close(figure)
    assert _clashes(_boxes(tmp_path / "clash.svg")) == [("multiplicative t-closeness", "(k,t)-closeness")]


def test_every_node_is_related_or_marked_isolated(svg: Path, graph: Graph) -> None:
    texts = [text for text, _ in _boxes(svg)]
    related = {e.premise for e in graph.edges} | {e.conclusion for e in graph.edges}
    for item in definitions():
        assert item.name in texts
        assert item.id in related or texts.count(ISOLATED) >= 1
    assert related == {item.id for item in definitions()}


def test_every_arrow_is_numbered_and_listed(svg: Path, graph: Graph) -> None:
    texts = [text for text, _ in _boxes(svg)]
    for number, edge in enumerate(graph.edges, start=1):
        assert str(number) in texts
        assert any(text.startswith(f"{number:>3}  [{edge.claim_id}") for text in texts), edge.claim_id
    assert not any("log(" in text or "oo" in text.split() or "**" in text for text in texts)


def test_isolated_node_is_marked(tmp_path: Path, graph: Graph) -> None:
    alone = Graph(tuple(e for e in graph.edges if "prosecutor_risk" not in (e.premise, e.conclusion)))
    texts = [text for text, _ in _boxes(render_map(alone, tmp_path / "alone.svg"))]
    assert texts.count(ISOLATED) == 1
