"""The certificate's figures as inline SVG: class sizes, worst classes against the table, the (k,t) curve.

Drawn with matplotlib's SVG backend on figures made without pyplot (so no interactive
backend is chosen and a notebook's settings are left alone), imported only when a
figure is drawn. Text stays text (``svg.fonttype = none``) so that a reader, a browser
and a test can read it; a third party's column names and values are labels, never
markup or mathtext (``$`` and control characters are escaped, long labels are
shortened, matplotlib escapes the XML). Plotted numbers are floats: the figures
illustrate, the exact levels are in the tables.

Figures
-------
* the distribution of equivalence-class sizes (how many classes have each size);
* when risk models were measured, the records per band of prosecutor risk ``1/|E|`` in
  ARX's bands (:mod:`verifier.risk.distribution`; El Emam & Dankar 2008);
* for each t-closeness requirement, the sensitive attribute's distribution in the class
  that attains the level (the witness) beside its distribution in the whole table
  (Li, Li & Venkatasubramanian 2007, Definition 2: the distance between the two is t);
* for a randomized release, the (k,t)-closeness level over the subset size k
  (Ekenstedt et al. 2022, Def. 7);
* for candidate releases of one original (:mod:`verifier.utility.comparison`), privacy
  against utility (:func:`privacy_utility`): k and the mean prosecutor risk over a
  utility model's raw value, one point per release;
* the part of the implication map the certificate's implied guarantees were derived on
  (:func:`implication_map`): the measured definitions, the implied ones and the claims
  between them.
"""

from __future__ import annotations

import hashlib
import io
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from verifier.display import attribute_label
from verifier.escape import safe
from verifier.results import jsonable
from verifier.tables.counts import Classes, CountTable

if TYPE_CHECKING:
    from verifier.utility.comparison import ReleaseComparison

__all__ = ["Figure", "figures", "implication_map", "privacy_utility"]

_LABEL = 32
_TICKS = 24
_TAG = re.compile(r"<[^>]*>")
"""A tag of SVG markup (its attribute values escape ``<``, ``>`` and quotes)."""
_REFERENCE = re.compile(r'(\bid="|="url\(#|href="#)([^")]+)')
"""An id attribute, or an attribute's reference to one (group 1: what precedes the name, group 2: the name)."""


@dataclass(frozen=True)
class Figure:
    """One figure: its caption (plain text) and its SVG markup (``<svg ...>...</svg>``)."""

    caption: str
    svg: str


def _label(value: Any, limit: int = _LABEL) -> str:
    text = "(missing)" if value is None else safe(jsonable(value))
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return text.replace("$", r"\$")


def _axes(height: float) -> tuple[Any, Any]:
    """A figure and its axes, made without pyplot: no backend is selected and no global state is touched."""
    from matplotlib.figure import Figure as Drawing

    figure = Drawing(figsize=(6, height))
    return figure, figure.subplots()


def _svg(figure: Any) -> str:
    """The figure's ``<svg>`` element, its ids scoped to it.

    matplotlib numbers the ids of every figure alike (``axes_1``, ``line2d_1``, clip paths),
    so two figures in one page would share ids and a reference could reach into the wrong
    one. Each id and each reference to it (``url(#…)``, ``href="#…"``) in a tag is prefixed
    with a digest of the figure's own markup: unique per figure, and the same bytes on every
    run. Text between tags (labels, which may be the release's values) is left as it is.
    """
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    scope = "f" + hashlib.sha256(text.encode()).hexdigest()[:10]
    return _TAG.sub(lambda tag: _REFERENCE.sub(lambda match: f"{match.group(1)}{scope}-{match.group(2)}", tag.group(0)),
                    text)


def _counts(axis: Any) -> None:
    """Ticks of a count axis at whole numbers only (no 0.5 class)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _class_sizes(classes: Classes) -> Figure:
    sizes, number = np.unique(classes.sizes, return_counts=True)
    figure, axes = _axes(2.6)
    axes.bar([str(s) for s in sizes[:_TICKS * 2]], number[:_TICKS * 2], color="#3b6ea5")
    axes.set_xlabel("class size |E| (records)")
    axes.set_ylabel("classes")
    _counts(axes.yaxis)
    if sizes.size > _TICKS:
        axes.tick_params(axis="x", labelbottom=False)
    caption = (f"Sizes of the {classes.count} equivalence classes: smallest {int(sizes[0])}, largest {int(sizes[-1])}"
               + (f" (the {_TICKS * 2} smallest sizes shown)" if sizes.size > _TICKS * 2 else ""))
    return Figure(caption, _svg(figure))


def _asks_for_risk(predicate: Mapping[str, Any]) -> bool:
    """Whether risk models were measured: a requirement on one, or one measured on request (``--risk``)."""
    from verifier.registry import UnknownModelError, model

    statements = (predicate.get("publisher_statements") or {}).get("measurements", [])
    for measurement in [*predicate.get("measurements", []), *statements]:
        try:
            declared = model(str(measurement.get("model")))
        except UnknownModelError:
            continue
        if declared.kind == "risk" and ("requirement" in measurement or not declared.by_default):
            return True
    return False


def _risk_distribution(classes: Classes) -> Figure:
    from verifier.risk.distribution import risk_distribution
    from verifier.risk.histogram import size_histogram

    bands = risk_distribution(size_histogram(classes.sizes))
    figure, axes = _axes(3.0)
    axes.bar([band.label for band in bands], [float(band.share * 100) for band in bands], color="#c0392b")
    axes.tick_params(axis="x", labelrotation=90, labelsize=7)
    axes.set_xlabel("prosecutor re-identification risk 1/|E|")
    axes.set_ylabel("records (%)")
    present = "; ".join(f"{band.label}: {band.records} records ({band.share})" for band in reversed(bands)
                        if band.records)
    caption = (f"Records per band of prosecutor re-identification risk 1/|E| (the bands ARX shows), "
               f"of {classes.rows} records: {present or 'none'}")
    return Figure(caption, _svg(figure))


def _class_index(classes: Classes, qi: Mapping[str, Any]) -> int | None:
    """The class whose quasi-identifier values are ``qi`` (as the witness writes them)."""
    keys = classes.keys
    mask = np.ones(classes.count, dtype=bool)
    for column, value in qi.items():
        if column not in keys.columns:
            return None
        cells = keys[column]
        mask &= cells.isna().to_numpy() if value is None else np.array([jsonable(v) == value for v in cells])
    found = np.flatnonzero(mask)
    return int(found[0]) if found.size else None


def _closeness(table: CountTable, measurement: Mapping[str, Any], order: Sequence[str] = ()) -> Figure | None:
    witness = measurement.get("witness") or {}
    index = _class_index(table.classes, witness["qi"]) if witness.get("qi") else None
    if index is None:
        return None
    row = table.row(index)
    local, overall = row / max(int(row.sum()), 1), table.totals / max(table.n, 1)
    positions = np.arange(table.m)
    figure, axes = _axes(2.8)
    if table.m <= _TICKS:
        axes.bar(positions - 0.2, overall, width=0.4, label="whole table", color="#9aa5b1")
        axes.bar(positions + 0.2, local, width=0.4, label="worst class", color="#c0392b")
        axes.set_xticks(positions, [_label(v) for v in table.values], rotation=45, ha="right")
    else:  # many values: two step lines instead of thousands of bars
        axes.step(positions, overall, where="mid", label="whole table", color="#9aa5b1")
        axes.step(positions, local, where="mid", label="worst class", color="#c0392b")
        axes.set_xticks([])
        axes.set_xlabel(f"{table.m} values in code order")
    axes.set_ylabel("share of records")
    # above the plot, outside it: a legend inside would hide a bar
    axes.legend(frameon=False, loc="lower left", bbox_to_anchor=(0, 1.0), ncols=2, borderaxespad=0.2)
    name = attribute_label(table.attribute)
    caption = (f"{measurement.get('requirement', 't_closeness')}: {name} in the worst class "
               f"{_label_qi(witness['qi'], order)} ({witness.get('size')} records) beside the whole table; "
               f"{measurement.get('distance')} distance t = {measurement.get('exact')}")
    return Figure(caption, _svg(figure))


def _label_qi(qi: Mapping[str, Any], order: Sequence[str] = ()) -> str:
    """A class's quasi-identifier values, in the policy's column order (``order``; the JSON's keys are sorted).

    >>> _label_qi({"age": "2*", "zip": "476**"}, ["zip", "age"])
    '{zip: 476**, age: 2*}'
    """
    rank = {name: position for position, name in enumerate(order)}
    keys = sorted(qi, key=lambda name: (rank.get(name, len(rank)), name))
    return "{" + ", ".join(f"{_label(k)}: {_label(qi[k])}" for k in keys) + "}"


def _kt_curve(randomized: Mapping[str, Any]) -> Figure | None:
    points = sorted((m["parameters"]["k"], float(m["level"])) for m in randomized.get("measurements", [])
                    if m.get("model") == "kt_closeness" and isinstance(m.get("level"), (int, float))
                    and "k" in m.get("parameters", {}))
    if not points:
        return None
    figure, axes = _axes(2.6)
    axes.plot([k for k, _ in points], [t for _, t in points], marker="o", color="#3b6ea5")
    axes.set_xlabel("subset size k")
    axes.set_ylabel("t")
    _counts(axes.xaxis)
    return Figure("(k,t)-closeness of the randomized release over the subset size k", _svg(figure))


@contextmanager
def _style() -> Iterator[None]:
    """Text stays text in the SVG (and the reader's fonts draw it), hashes are salted for reproducible bytes."""
    import matplotlib

    style: dict[Any, Any] = {"svg.fonttype": "none", "svg.hashsalt": "privcert", "font.family": "DejaVu Sans",
                             "font.size": 9}
    with matplotlib.rc_context(style), warnings.catch_warnings():
        # A glyph missing from matplotlib's layout font (a script it lacks) does not matter.
        warnings.filterwarnings("ignore", message="Glyph .* missing from font", category=UserWarning)
        yield


def figures(predicate: Mapping[str, Any], tables: Sequence[CountTable]) -> tuple[Figure, ...]:
    """The figures of a certificate (or audit) whose count tables are ``tables`` (may be empty)."""
    by_attribute = {attribute_label(t.attribute): t for t in tables}
    out: list[Figure | None] = []
    with _style():
        if tables:
            out.append(_class_sizes(tables[0].classes))
            if _asks_for_risk(predicate):
                out.append(_risk_distribution(tables[0].classes))
        for measurement in predicate.get("measurements", []):
            attribute = measurement.get("attribute")
            table = by_attribute.get(attribute_label(tuple(attribute) if isinstance(attribute, list) else attribute))
            if measurement.get("model") == "t_closeness" and "requirement" in measurement and table is not None:
                out.append(_closeness(table, measurement, (predicate.get("release") or {}).get("quasi_identifiers") or ()))
        if isinstance(predicate.get("randomized"), Mapping):
            out.append(_kt_curve(predicate["randomized"]))
    return tuple(f for f in out if f is not None)


@dataclass(frozen=True)
class _Step:
    """One edge of the map: ``source`` implies ``target`` by ``claim`` (checked ``status``)."""

    source: str
    target: str
    claim: str
    status: str


def _layers(measured: Sequence[str], steps: Sequence[_Step]) -> dict[str, int]:
    """Each definition's distance in claims from the nearest measured one (0 for the measured).

    Every derivation starts at a measured definition and its steps are chained, so every
    definition of ``steps`` is reached.
    """
    layer = dict.fromkeys(measured, 0)
    frontier, depth = list(measured), 0
    while frontier:
        depth += 1
        frontier = sorted({s.target for s in steps if s.source in frontier and s.target not in layer})
        layer.update(dict.fromkeys(frontier, depth))
    return layer


def _arc(start: tuple[float, float], end: tuple[float, float], bend: float, share: float) -> tuple[float, float]:
    """The point at ``share`` along matplotlib's ``arc3`` arrow: a quadratic Bézier through the control point
    ``middle + bend·(dy, -dx)`` (a straight line when ``bend`` is 0)."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    control = ((start[0] + end[0]) / 2 + bend * dy, (start[1] + end[1]) / 2 - bend * dx)
    a, b, c = (1 - share) ** 2, 2 * share * (1 - share), share ** 2
    return (a * start[0] + b * control[0] + c * end[0], a * start[1] + b * control[1] + c * end[1])


_SHARES = tuple(share / 20 for share in range(4, 17))
"""Where along an arrow its number may go (from a fifth to four fifths of its length)."""


def _number_spots(arrows: Sequence[tuple[tuple[float, float], tuple[float, float], float]],
                  boxes: Sequence[tuple[float, float, float, float]], beside: float = 0.11) -> list[tuple[float, float]]:
    """Where each arrow's number goes: beside its arrow (``beside`` inches off it, on either side), at the
    spot farthest from every other arrow, every node box (x0, y0, x1, y1) and every number placed before,
    so that no number sits on a line, on a crossing of two arrows or on a node.
    """
    paths = [[_arc(*arrow, share) for share in np.linspace(0, 1, 41)] for arrow in arrows]

    def clearance(spot: tuple[float, float], own: int, placed: Sequence[tuple[float, float]]) -> float:
        lines = [((spot[0] - x) ** 2 + (spot[1] - y) ** 2) ** 0.5
                 for index, path in enumerate(paths) if index != own for x, y in path]
        nodes = [max(x0 - spot[0], spot[0] - x1, 0.0) + max(y0 - spot[1], spot[1] - y1, 0.0)
                 for x0, y0, x1, y1 in boxes]
        numbers = [((spot[0] - x) ** 2 + (spot[1] - y) ** 2) ** 0.5 for x, y in placed]
        return min([*lines, *nodes, *(n / 2 for n in numbers)], default=float("inf"))

    placed: list[tuple[float, float]] = []
    for index, (start, end, bend) in enumerate(arrows):
        candidates = []
        for share in _SHARES:
            (x, y), (x2, y2) = _arc(start, end, bend, share), _arc(start, end, bend, min(share + 0.02, 1.0))
            length = max(((x2 - x) ** 2 + (y2 - y) ** 2) ** 0.5, 1e-9)
            normal = ((y - y2) / length, (x2 - x) / length)
            candidates += [(x + side * beside * normal[0], y + side * beside * normal[1]) for side in (1, -1)]
        placed.append(max(candidates, key=lambda spot: clearance(spot, index, placed)))
    return placed


def implication_map(implied: Sequence[Mapping[str, Any]]) -> Figure | None:
    """The part of the implication map the implied guarantees were derived on, or ``None`` without a derivation.

    Nodes are the definitions in the derivation steps of ``implied`` (the predicate's
    ``implied`` list, :func:`theory.answers.explain.explain`): the measured ones (where a
    derivation starts) filled, the implied ones outlined, in columns by their distance in
    claims from a measured one, each column as wide as its longest name so that no two
    nodes touch. Each step is a numbered arrow (an arc between two nodes of one column);
    the legend under the drawing gives each number's claim id (with its status when not
    ``proven``) and its two ends, one line each, so no label lies on a line.
    """
    guarantees = [g for g in implied if g.get("implied") and g.get("derivation")]
    steps = tuple(dict.fromkeys(_Step(str(s["from"]), str(s["to"]), str(s["claim"]), str(s.get("status", "")))
                                for g in guarantees for s in g["derivation"]))
    if not steps:
        return None
    measured = sorted({str(g["derivation"][0]["from"]) for g in guarantees})
    layer = _layers(measured, steps)
    columns: dict[int, list[str]] = {}
    for node in sorted(layer, key=lambda name: (layer[name], name)):
        columns.setdefault(layer[node], []).append(node)
    char, row, gap = 0.075, 0.42, 1.1  # inches: a character at 9 pt, a node row, the room for arrows
    widths = {column: max(len(_label(n)) for n in nodes) * char + 0.3 for column, nodes in columns.items()}
    left, x = 0.0, {}
    for column in sorted(columns):
        x[column] = left + widths[column] / 2
        left += widths[column] + gap
    tallest = max(len(nodes) for nodes in columns.values())
    place = {node: (x[column], -row * (index + (tallest - len(nodes)) / 2) - row / 2)
             for column, nodes in columns.items() for index, node in enumerate(nodes)}
    legend = [_label(s.claim, 80) + ("" if s.status == "proven" else f" ({_label(s.status)})")
              + f": {_label(s.source)} → {_label(s.target)}" for s in steps]
    drawing_height = row * tallest
    total = drawing_height + 0.25 + 0.2 * len(legend)
    from matplotlib.figure import Figure as Drawing

    with _style():
        figure = Drawing(figsize=(max(left - gap, 3.0), total))
        axes = figure.add_axes((0, 0, 1, 1))
        axes.set_axis_off()
        axes.set_xlim(0, max(left - gap, 3.0))
        axes.set_ylim(-total, 0)
        arcs: dict[frozenset[str], int] = {}
        arrows = []
        for step in steps:
            (x0, y0), (x1, y1) = place[step.source], place[step.target]
            half0, half1 = widths[layer[step.source]] / 2, widths[layer[step.target]] / 2
            if layer[step.source] == layer[step.target]:  # an arc bulging out on the left of the column, wider for each
                pair = frozenset((step.source, step.target))  # arc between the same two
                arcs[pair] = arcs.get(pair, 0) + 1
                radius = 0.2 + 0.8 * arcs[pair]
                arrows.append(((x0 - half0, y0), (x1 - half1, y1), radius if y0 > y1 else -radius))
            else:
                ahead = x1 > x0
                arrows.append(((x0 + half0 if ahead else x0 - half0, y0),
                               (x1 - half1 if ahead else x1 + half1, y1), 0.0))
            axes.annotate("", xy=arrows[-1][1], xytext=arrows[-1][0],
                          arrowprops={"arrowstyle": "-|>", "color": "#56606b", "linewidth": 0.8,
                                      "linestyle": "-" if step.status == "proven" else "--", "shrinkA": 1,
                                      "shrinkB": 1, "connectionstyle": f"arc3,rad={arrows[-1][2]}"})
        boxes = [(x - len(_label(node)) * char / 2 - 0.1, y - 0.12, x + len(_label(node)) * char / 2 + 0.1, y + 0.12)
                 for node, (x, y) in place.items()]
        for number, spot in enumerate(_number_spots(arrows, boxes), start=1):
            axes.text(*spot, str(number), ha="center", va="center", fontsize=7, color="#1d232a",
                      bbox={"boxstyle": "circle,pad=0.15", "facecolor": "white", "edgecolor": "#56606b",
                            "linewidth": 0.6})
        for node, (column_x, y) in place.items():
            filled = node in measured
            axes.text(column_x, y, _label(node), ha="center", va="center",
                      color="white" if filled else "#1d232a", fontweight="bold" if filled else "normal",
                      bbox={"boxstyle": "round,pad=0.3", "facecolor": "#3b6ea5" if filled else "white",
                            "edgecolor": "#3b6ea5"})
        for number, line in enumerate(legend, start=1):
            axes.text(0, -drawing_height - 0.25 - 0.2 * (number - 1), f"{number}  {line}", ha="left", va="center",
                      fontsize=7.5, color="#1d232a")
        caption = ("The part of the implication map used: measured definitions (filled) imply the others (outlined) "
                   "along the numbered claims listed under it (a dashed arrow: a claim whose status is not proven)")
        return Figure(caption, _svg(figure))


def privacy_utility(comparison: ReleaseComparison, metric: str) -> Figure | None:
    """k (left) and the mean prosecutor risk (right) over ``metric``'s raw value, one labelled point per release.

    ``None`` when no release has a value of ``metric``; a release without one is named in the caption.
    """
    points = [(c.release, float(figure.raw), c.k, float(c.mean_risk)) for c in comparison.candidates
              if (figure := c.figure(metric)) is not None and figure.raw is not None and c.k is not None
              and c.mean_risk is not None]
    if not points:
        return None
    from matplotlib.figure import Figure as Drawing

    from verifier.utility.figure import MODEL_NAMES

    name = MODEL_NAMES.get(metric, metric)
    with _style():
        drawing = Drawing(figsize=(7.5, 3))
        left, right = drawing.subplots(1, 2)
        for axes, column, label in ((left, 2, "k (smallest class)"), (right, 3, "mean prosecutor risk")):
            axes.scatter([p[1] for p in points], [p[column] for p in points], color="#3b6ea5", zorder=3)
            for point in points:
                axes.annotate(_label(point[0]), (point[1], point[column]), textcoords="offset points",
                              xytext=(4, 4), fontsize=8)
            axes.set_xlabel(f"{name} (raw; {'higher' if metric.startswith(('accuracy_', 'auc_')) else 'lower'} "
                            "keeps more)")
            axes.set_ylabel(label)
            axes.grid(alpha=0.3)
        svg = _svg(drawing)
    plotted = {point[0] for point in points}
    missing = [c.release for c in comparison.candidates if c.release not in plotted]
    caption = (f"Privacy against utility of {len(points)} release(s) of {comparison.original}: k and the mean "
               f"prosecutor risk over the {name}" + (f"; not plotted (no {name} figure): {', '.join(missing)}"
                                                     if missing else ""))
    return Figure(caption, svg)
