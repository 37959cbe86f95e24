"""Draw the implication map (Ekenstedt et al. 2022, Figs. 1-2) as SVG with matplotlib.

Nodes are the definitions; every implication, equivalence or non-implication claim is an
arrow carrying a short number, and the list under the map gives, for each number, the
claim id, its level map f (readable: ``ln``, ``ε``, ``∞``) and its checked status. Styles say
how the claim fared when checked: solid blue for proven and tested (marked so in the list), solid
orange for corrected (the corrected f is listed), dashed grey for refuted printed forms, red with a
cross for non-implications, dotted for unknown and unchecked. A definition no claim relates is marked
"isolated". Every label is placed where its box (measured by matplotlib's renderer)
overlaps no other label or node, so the map stays readable. Text is kept as SVG text
(not paths), so the file is searchable.

References
----------
Ekenstedt et al. 2022, Figs. 1-2 (the implication map), Def. 3.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from theory.answers.graph import Edge, Graph
from theory.answers.layout import layout
from theory.claims.claim import USABLE
from theory.definitions import definitions

if TYPE_CHECKING:
    from matplotlib import pyplot as plt
    from matplotlib.backend_bases import RendererBase
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

__all__ = ["ISOLATED", "UNITS_PER_INCH", "edge_style", "edge_label", "positions", "render_map"]

ISOLATED = "isolated: no claim relates it"
"""The mark under a definition no claim relates to another."""

_LIST_COLUMNS = 2
UNITS_PER_INCH = 1.5
"""The map's scale: map units per inch of the figure (the figure widens with the layout)."""
_MAP_HEIGHT = 13
_SEARCH = [(dx * 0.35, dy * 0.3) for radius in range(9) for dx in range(-radius, radius + 1)
           for dy in range(-radius, radius + 1) if max(abs(dx), abs(dy)) == radius]
"""Offsets (data units) tried, nearest first, until a label overlaps nothing placed."""


def edge_style(edge: Edge) -> dict[str, object]:
    """matplotlib arrow properties for an edge's kind and checked status."""
    if edge.f is None:
        colour = "#c0392b" if edge.status in USABLE else "#999999"
        return {"color": colour, "linestyle": "-" if edge.status != "refuted" else "--", "linewidth": 1.4}
    if edge.status == "refuted":
        return {"color": "#999999", "linestyle": "--", "linewidth": 1.2}
    if edge.status not in USABLE:  # unknown, or unchecked (its check did not decide)
        return {"color": "#7f8c8d", "linestyle": ":", "linewidth": 1.2}
    colour = "#d35400" if edge.status == "corrected" else "#1f4e79"
    return {"color": colour, "linestyle": "-", "linewidth": 1.6}


def edge_label(edge: Edge) -> str:
    """``claim id: premise → conclusion, f`` with a status mark: ⇏, (corrected), (tested), (refuted), (unknown),
    (unchecked)."""
    from verifier.display import formula

    if edge.f is None:
        text = f"[{edge.claim_id}] {edge.premise} ⇏ {edge.conclusion}"
    else:
        reverse = " (reverse)" if edge.reverse else ""
        text = f"[{edge.claim_id}{reverse}] {edge.premise} → {edge.conclusion}: {formula(edge.f)}"
    if edge.status == "corrected" and edge.f is not None:
        text += " (corrected)"
    elif edge.status != "proven" and edge.status != "corrected":
        text += f" ({edge.status})"
    return text


def positions(graph: Graph) -> dict[str, tuple[float, float]]:
    """Where the map draws each definition: by the layers of ``graph``'s usable implications
    (:func:`theory.answers.layout.layout`)."""
    return layout({item.id: item.name for item in definitions()},
                  ((edge.premise, edge.conclusion) for edge in graph.usable()))


def render_map(graph: Graph, out: Path | str, bounds: Mapping[str, tuple[str, ...]] | None = None, *,
               key: bool = True) -> Path:
    """Write the map of ``graph`` to ``out`` (SVG; the suffix picks another format) and return the path.

    ``bounds`` maps a definition id to lines about its closed-form bound claims, listed
    under the map (Soria-Comas et al. 2015, Props. 1-2 for EMD t-closeness). Without ``key``
    the title, the numbered list and the legend are left out (a page gives them as text) and the
margins cropped.
    matplotlib is imported here, on the first drawing, with the Agg backend.
    """
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    out = Path(out)
    groups: dict[tuple[str, ...], list[Edge]] = defaultdict(list)
    for edge in graph.edges:
        groups[tuple(sorted((edge.premise, edge.conclusion)))].append(edge)
    lines = [edge_label(edge) for edge in graph.edges]
    notes = [f"{name}: {line}" for name, found in (bounds or {}).items() for line in found]
    rows = -(-(len(lines) + len(notes)) // _LIST_COLUMNS) if key else 0
    where = positions(graph)
    xs, ys = zip(*where.values())
    width = max(26.0, (max(xs) - min(xs) + 12) / UNITS_PER_INCH)
    height = max(_MAP_HEIGHT, (max(ys) - min(ys) + 3) / UNITS_PER_INCH)
    with plt.rc_context({"svg.fonttype": "none", "font.size": 7}):
        figure = plt.figure(figsize=(width, height + 0.16 * rows))
        axes = figure.add_axes((0.01, 0.16 * rows / (height + 0.16 * rows) + 0.02, 0.98,
                                0.9 * height / (height + 0.16 * rows)))
        axes.set_xlim(min(xs) - 6, max(xs) + 6)
        axes.set_ylim(min(ys) - 1.5, max(ys) + 3)
        axes.axis("off")
        if key:
            axes.set_title("Implication map (Ekenstedt et al. 2022, Figs. 1-2, and the relations derived here); "
                           "statuses from checking each claim; numbers refer to the list below", fontsize=10)
        renderer = cast("FigureCanvasAgg", figure.canvas).get_renderer()
        placed: list[Bbox] = []
        connected = {e.premise for e in graph.edges} | {e.conclusion for e in graph.edges}
        for item in definitions():
            x, y = where[item.id]
            node = axes.text(x, y, item.name, ha="center", va="center", fontsize=9, zorder=3,
                             bbox={"boxstyle": "round,pad=0.4", "facecolor": "#f4f6f7", "edgecolor": "#2c3e50"})
            box = node.get_window_extent(renderer).expanded(1.05, 1.2)
            if _overlaps(box, placed):
                raise RuntimeError(f"the map's layout puts {item.name!r} over another definition")
            placed.append(box)
        for item in definitions():
            if item.id not in connected:
                x, y = where[item.id]
                _place(axes, renderer, placed, ISOLATED, (x, y - 0.7), color="#7f8c8d", fontsize=7)
        number = {id(edge): index for index, edge in enumerate(graph.edges, start=1)}
        for edges in groups.values():
            for index, edge in enumerate(edges):
                _draw(axes, renderer, placed, edge, index, number[id(edge)], where)
        if key:
            _list(figure, lines, notes, rows)
            _legend(axes)
        figure.savefig(out, format=out.suffix.lstrip(".") or "svg", bbox_inches=None if key else "tight")
        plt.close(figure)
    return out


def _overlaps(box: Bbox, placed: list[Bbox]) -> bool:
    return any(box.overlaps(other) for other in placed)


def _place(axes: plt.Axes, renderer: RendererBase, placed: list[Bbox], text: str, at: tuple[float, float],
           **style: Any) -> None:
    """Put ``text`` at ``at`` or the nearest offset where its box overlaps nothing placed."""
    label = axes.text(*at, text, ha="center", va="center", zorder=4, **style)
    for dx, dy in _SEARCH:
        label.set_position((at[0] + dx, at[1] + dy))
        box = label.get_window_extent(renderer).expanded(1.1, 1.2)
        if not _overlaps(box, placed):
            placed.append(box)
            return
    raise RuntimeError(f"no free place for the map label {text!r} near {at}")


def _curve_points(start: tuple[float, float], end: tuple[float, float], bend: float) -> Iterator[tuple[float, float]]:
    """Points along matplotlib's ``arc3`` curve (a quadratic Bézier), from the middle outwards."""
    mid_x, mid_y = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
    control = (mid_x + bend * (end[1] - start[1]), mid_y - bend * (end[0] - start[0]))
    for u in (0.5, 0.4, 0.6, 0.3, 0.7):
        yield ((1 - u) ** 2 * start[0] + 2 * u * (1 - u) * control[0] + u**2 * end[0],
               (1 - u) ** 2 * start[1] + 2 * u * (1 - u) * control[1] + u**2 * end[1])


def _draw(axes: plt.Axes, renderer: RendererBase, placed: list[Bbox], edge: Edge, index: int, number: int,
          where: Mapping[str, tuple[float, float]]) -> None:
    style = edge_style(edge)
    start, end = where[edge.premise], where[edge.conclusion]
    if start == end:
        x, y = start
        axes.annotate("", (x + 0.8, y - 0.35), (x - 0.8, y - 0.35), zorder=1,
                      arrowprops={"arrowstyle": "->", "connectionstyle": f"arc3,rad={1.2 + 0.25 * index}", **style})
        anchors: list[tuple[float, float]] = [(x, y - 1.1 - 0.3 * index)]
    else:
        bend = (0.08 + 0.09 * index) * (-1 if edge.reverse else 1)
        axes.annotate("", end, start, zorder=1,
                      arrowprops={"arrowstyle": "->", "connectionstyle": f"arc3,rad={bend}",
                                  "shrinkA": 24, "shrinkB": 24, **style})
        anchors = list(_curve_points(start, end, bend))
        if edge.f is None:
            axes.plot(*anchors[0], marker="x", markersize=9, markeredgewidth=2, color=style["color"], zorder=5)
    label = axes.text(*anchors[0], str(number), ha="center", va="center", color=style["color"], fontsize=7,
                      zorder=4, bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"})
    for anchor in anchors:
        for dx, dy in _SEARCH:
            label.set_position((anchor[0] + dx, anchor[1] + dy))
            box = label.get_window_extent(renderer).expanded(1.1, 1.2)
            if not _overlaps(box, placed):
                placed.append(box)
                return
    raise RuntimeError(f"no free place for the number of {edge.claim_id}")


def _list(figure: plt.Figure, lines: list[str], notes: list[str], rows: int) -> None:
    """The numbered list of arrows, then the bound claims, in columns under the map."""
    entries = [f"{i:>3}  {line}" for i, line in enumerate(lines, start=1)] + [f"  •  {note}" for note in notes]
    height = figure.get_figheight()
    for column in range(_LIST_COLUMNS):
        chunk = entries[column * rows:(column + 1) * rows]
        for row, entry in enumerate(chunk):
            figure.text(0.01 + column / _LIST_COLUMNS, (0.16 * (rows - row)) / height, entry,
                        fontsize=7, family="DejaVu Sans", va="center", ha="left")


def _legend(axes: plt.Axes) -> None:
    entries = [
        ("proven implication", "#1f4e79", "-"),
        ("corrected implication (corrected f)", "#d35400", "-"),
        ("refuted printed claim", "#999999", "--"),
        ("non-implication (x)", "#c0392b", "-"),
        ("unknown", "#7f8c8d", ":"),
    ]
    for label, color, linestyle in entries:
        axes.plot([], [], label=label, color=color, linestyle=linestyle)
    axes.legend(loc="upper left", fontsize=7, frameon=False)
