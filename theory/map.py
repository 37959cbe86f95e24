"""Draw the implication map (Ekenstedt et al. 2022, Figs. 1-2) as SVG with matplotlib.

Nodes are the definitions; every implication or equivalence claim is an arrow labelled
with its level map f and its claim id. Styles say how the claim fared when checked:
solid for proven, solid with "(corrected)" for corrected (the corrected f is shown),
dashed grey for refuted printed forms, red with a cross for non-implications, dotted for
unknown. Text is kept as SVG text (not paths), so the file is searchable.

References
----------
Ekenstedt et al. 2022, Figs. 1-2 (the implication map), Def. 3.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import sympy  # noqa: E402

from theory.definitions import DEFINITIONS  # noqa: E402
from theory.graph import Edge, Graph  # noqa: E402

__all__ = ["POSITIONS", "edge_style", "edge_label", "render_map"]

POSITIONS: dict[str, tuple[float, float]] = {
    "k_anonymity": (-2.5, 2.0),
    "t_closeness": (-2.5, -1.0),
    "stochastic_t_closeness": (1.0, 9.0),
    "multiplicative_t_closeness": (1.0, 5.0),
    "kt_closeness": (6.5, 5.0),
    "ldp": (12.0, 9.0),
    "k_eps_dp": (12.0, 1.0),
    "dp": (17.0, 1.0),
}
"""Node positions: t-closeness family on the left, DP family on the right (as Ekenstedt et al. 2022, Fig. 2)."""


def edge_style(edge: Edge) -> dict[str, object]:
    """matplotlib arrow properties for an edge's kind and checked status."""
    if edge.f is None:
        colour = "#c0392b" if edge.status in ("proven", "corrected") else "#999999"
        return {"color": colour, "linestyle": "-" if edge.status != "refuted" else "--", "linewidth": 1.4}
    if edge.status == "refuted":
        return {"color": "#999999", "linestyle": "--", "linewidth": 1.2}
    if edge.status == "unknown":
        return {"color": "#7f8c8d", "linestyle": ":", "linewidth": 1.2}
    colour = "#d35400" if edge.status == "corrected" else "#1f4e79"
    return {"color": colour, "linestyle": "-", "linewidth": 1.6}


def edge_label(edge: Edge) -> str:
    """``f = ...  [claim id]`` with a status mark: ✗ non-implication, (corrected), (refuted)."""
    if edge.f is None:
        text = f"⇏ [{edge.claim_id}]"
    else:
        text = f"{sympy.sstr(edge.f)}  [{edge.claim_id}{' rev' if edge.reverse else ''}]"
    if edge.status == "corrected" and edge.f is not None:
        text += " (corrected)"
    elif edge.status in ("refuted", "unknown"):
        text += f" ({edge.status})"
    return text


def render_map(graph: Graph, out: Path | str, bounds: Mapping[str, tuple[str, ...]] | None = None) -> Path:
    """Write the map of ``graph`` to ``out`` (SVG; the suffix picks another format) and return the path.

    ``bounds`` maps a definition id to lines about its closed-form bound claims, written
    under nodes that have no arrows (EMD t-closeness: Soria-Comas et al. 2015, Props. 1-2).
    """
    out = Path(out)
    groups: dict[tuple[str, str], list[Edge]] = defaultdict(list)
    for edge in graph.edges:
        groups[(edge.premise, edge.conclusion)].append(edge)
    with plt.rc_context({"svg.fonttype": "none", "font.size": 7}):
        figure, axes = plt.subplots(figsize=(19, 12))
        for item in DEFINITIONS:
            x, y = POSITIONS[item.id]
            axes.annotate(
                item.name, (x, y), ha="center", va="center", fontsize=9, zorder=3,
                bbox={"boxstyle": "round,pad=0.4", "facecolor": "#f4f6f7", "edgecolor": "#2c3e50"},
            )
        _bound_notes(axes, graph, bounds)
        for (premise, conclusion), edges in groups.items():
            start, end = POSITIONS[premise], POSITIONS[conclusion]
            for index, edge in enumerate(edges):
                _draw(axes, edge, start, end, index)
        axes.set_xlim(-4.5, 19.5)
        axes.set_ylim(-2.5, 10.5)
        axes.axis("off")
        axes.set_title("Implication map (Ekenstedt et al. 2022, Figs. 1-2), statuses from checking each claim")
        _legend(axes)
        figure.savefig(out, format=out.suffix.lstrip(".") or "svg", bbox_inches="tight")
        plt.close(figure)
    return out


def _draw(axes: plt.Axes, edge: Edge, start: tuple[float, float], end: tuple[float, float], index: int) -> None:
    style = edge_style(edge)
    if start == end:
        x, y = start
        label_at = (x, y - 0.9 - 0.35 * index)
        axes.annotate("", (x + 0.4, y - 0.3), (x - 0.4, y - 0.3), zorder=1,
                      arrowprops={"arrowstyle": "->", "connectionstyle": "arc3,rad=1.4", **style})
    else:
        bend = 0.12 + 0.14 * index
        axes.annotate("", end, start, zorder=1,
                      arrowprops={"arrowstyle": "->", "connectionstyle": f"arc3,rad={bend}",
                                  "shrinkA": 22, "shrinkB": 22, **style})
        mid_x, mid_y = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
        normal = (end[1] - start[1], start[0] - end[0])  # matplotlib's arc3 bends towards +rad (dy, -dx)
        apex = (mid_x + bend * normal[0] / 2, mid_y + bend * normal[1] / 2)
        label_at = (apex[0], apex[1] + (-0.3 if edge.reverse else 0.22))
        if edge.f is None:
            axes.plot(*apex, marker="x", markersize=9, markeredgewidth=2, color=style["color"], zorder=5)
    axes.annotate(edge_label(edge), label_at, ha="center", va="center", color=style["color"], fontsize=6.5,
                  zorder=4, bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.8})


def _bound_notes(axes: plt.Axes, graph: Graph, bounds: Mapping[str, tuple[str, ...]] | None) -> None:
    connected = {e.premise for e in graph.edges} | {e.conclusion for e in graph.edges}
    for definition_id, lines in (bounds or {}).items():
        if definition_id not in connected and lines:
            x, y = POSITIONS[definition_id]
            axes.annotate("\n".join(lines), (x, y - 0.5), ha="center", va="top", fontsize=6.5, color="#34495e")


def _legend(axes: plt.Axes) -> None:
    entries = [
        ("proven implication (f)", "#1f4e79", "-"),
        ("corrected implication (corrected f)", "#d35400", "-"),
        ("refuted printed claim", "#999999", "--"),
        ("non-implication (x)", "#c0392b", "-"),
        ("unknown", "#7f8c8d", ":"),
    ]
    for label, color, linestyle in entries:
        axes.plot([], [], label=label, color=color, linestyle=linestyle)
    axes.legend(loc="lower right", fontsize=7, frameon=False)
