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
* the part of the implication map the certificate's implied guarantees were derived on
  (:func:`implication_map`): the measured definitions, the implied ones and the claims
  between them.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from verifier.escape import safe
from verifier.counts import Classes, CountTable
from verifier.measure import attribute_label
from verifier.results import jsonable

__all__ = ["Figure", "figures", "implication_map"]

_LABEL = 32
_TICKS = 24


@dataclass(frozen=True)
class Figure:
    """One figure: its caption (plain text) and its SVG markup (``<svg ...>...</svg>``)."""

    caption: str
    svg: str


def _label(value: Any) -> str:
    text = "(missing)" if value is None else safe(jsonable(value))
    text = text if len(text) <= _LABEL else text[: _LABEL - 1] + "…"
    return text.replace("$", r"\$")


def _axes(height: float) -> tuple[Any, Any]:
    """A figure and its axes, made without pyplot: no backend is selected and no global state is touched."""
    from matplotlib.figure import Figure as Drawing

    figure = Drawing(figsize=(6, height))
    return figure, figure.subplots()


def _svg(figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def _class_sizes(classes: Classes) -> Figure:
    sizes, number = np.unique(classes.sizes, return_counts=True)
    figure, axes = _axes(2.6)
    axes.bar([str(s) for s in sizes[:_TICKS * 2]], number[:_TICKS * 2], color="#3b6ea5")
    axes.set_xlabel("class size |E| (records)")
    axes.set_ylabel("classes")
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


def _closeness(table: CountTable, measurement: Mapping[str, Any]) -> Figure | None:
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
    axes.legend(frameon=False)
    name = attribute_label(table.attribute)
    caption = (f"{measurement.get('requirement', 't_closeness')}: {name} in the worst class "
               f"{_label_qi(witness['qi'])} ({witness.get('size')} records) beside the whole table; "
               f"{measurement.get('distance')} distance t = {measurement.get('exact')}")
    return Figure(caption, _svg(figure))


def _label_qi(qi: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{_label(k)}: {_label(v)}" for k, v in qi.items()) + "}"


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
                out.append(_closeness(table, measurement))
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


def implication_map(implied: Sequence[Mapping[str, Any]]) -> Figure | None:
    """The part of the implication map the implied guarantees were derived on, or ``None`` without a derivation.

    Nodes are the definitions in the derivation steps of ``implied`` (the predicate's
    ``implied`` list, :func:`theory.answers.explain.explain`): the measured ones (where a
    derivation starts) filled, the implied ones outlined, in columns by their distance
    in claims from a measured one. Each step is an arrow labelled with its claim id (and
    its status when not ``proven``). Every label has a row of its own, so none overlaps
    another; the arrow to a target passes through its claim's label.
    """
    guarantees = [g for g in implied if g.get("implied") and g.get("derivation")]
    steps = tuple(dict.fromkeys(_Step(str(s["from"]), str(s["to"]), str(s["claim"]), str(s.get("status", "")))
                                for g in guarantees for s in g["derivation"]))
    if not steps:
        return None
    measured = sorted({str(g["derivation"][0]["from"]) for g in guarantees})
    layer = _layers(measured, steps)
    items = sorted([(2 * layer[n], 0, n, None) for n in layer]
                   + [(layer[s.source] + layer[s.target], 1, s.claim, s) for s in steps],
                   key=lambda item: (item[0], item[1], item[2], str(item[3])))
    rows = {(kind, name if step is None else step): -index for index, (_, kind, name, step) in enumerate(items)}
    with _style():
        figure, axes = _axes(0.3 * len(items) + 0.3)
        axes.set_axis_off()
        axes.set_xlim(-0.8, max(layer.values()) + 0.8)
        axes.set_ylim(-len(items) + 0.5, 0.5)
        for step in steps:
            start, end = (layer[step.source], rows[(0, step.source)]), (layer[step.target], rows[(0, step.target)])
            middle = ((start[0] + end[0]) / 2, rows[(1, step)])
            dashed = "-" if step.status == "proven" else "--"
            axes.plot([start[0], middle[0]], [start[1], middle[1]], color="#56606b", linewidth=0.8, linestyle=dashed)
            axes.annotate("", xy=end, xytext=middle, arrowprops={"arrowstyle": "-|>", "color": "#56606b",
                                                                 "linewidth": 0.8, "linestyle": dashed,
                                                                 "shrinkA": 0, "shrinkB": 9})
            label = _label(step.claim) + ("" if step.status == "proven" else f" ({_label(step.status)})")
            axes.text(*middle, label, ha="center", va="center", fontsize=7.5, color="#1d232a",
                      bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"})
        for node, column in layer.items():
            filled = node in measured
            axes.text(column, rows[(0, node)], _label(node), ha="center", va="center",
                      color="white" if filled else "#1d232a", fontweight="bold" if filled else "normal",
                      bbox={"boxstyle": "round,pad=0.3", "facecolor": "#3b6ea5" if filled else "white",
                            "edgecolor": "#3b6ea5"})
        caption = ("The part of the implication map used: measured definitions (filled) imply the others (outlined) "
                   "along the claims on the arrows (dashed: a claim whose status is not proven)")
        return Figure(caption, _svg(figure))
