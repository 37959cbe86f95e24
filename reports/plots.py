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
* for each t-closeness requirement, the sensitive attribute's distribution in the class
  that attains the level (the witness) beside its distribution in the whole table
  (Li, Li & Venkatasubramanian 2007, Definition 2: the distance between the two is t);
* for a randomized release, the (k,t)-closeness level over the subset size k
  (Ekenstedt et al. 2022, Def. 7).
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from privcert.output import safe
from verifier.counts import Classes, CountTable
from verifier.measure import attribute_label
from verifier.results import jsonable

__all__ = ["Figure", "figures"]

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


def figures(predicate: Mapping[str, Any], tables: Sequence[CountTable]) -> tuple[Figure, ...]:
    """The figures of a certificate (or audit) whose count tables are ``tables`` (may be empty)."""
    import matplotlib

    by_attribute = {attribute_label(t.attribute): t for t in tables}
    out: list[Figure | None] = []
    style: dict[Any, Any] = {"svg.fonttype": "none", "svg.hashsalt": "privcert", "font.family": "DejaVu Sans",
                             "font.size": 9}
    with matplotlib.rc_context(style), warnings.catch_warnings():
        # Text stays text in the SVG and the reader's fonts draw it: a glyph missing from
        # matplotlib's layout font (a script it lacks) does not matter.
        warnings.filterwarnings("ignore", message="Glyph .* missing from font", category=UserWarning)
        if tables:
            out.append(_class_sizes(tables[0].classes))
        for measurement in predicate.get("measurements", []):
            attribute = measurement.get("attribute")
            table = by_attribute.get(attribute_label(tuple(attribute) if isinstance(attribute, list) else attribute))
            if measurement.get("model") == "t_closeness" and "requirement" in measurement and table is not None:
                out.append(_closeness(table, measurement))
        if isinstance(predicate.get("randomized"), Mapping):
            out.append(_kt_curve(predicate["randomized"]))
    return tuple(f for f in out if f is not None)
