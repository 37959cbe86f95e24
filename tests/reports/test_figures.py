"""The certificate's figures read without effort: whole-number count axes, legends that hide no bar, claim
numbers beside their arrows and off every crossing, captions in the policy's column order."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from reports import plots
from verifier.audit import audit
from verifier.policy import load_policy
from verifier.tables.load import load_table

DATA = Path(__file__).resolve().parents[2] / "privcert" / "data"


def certified(folder: Path) -> tuple[dict[str, Any], tuple[Any, ...]]:
    from reports.statement import build_predicate

    result = audit(load_table(folder / "release.csv"), load_policy(folder / "policy.toml"))
    return build_predicate(result, ""), tuple(result.report.tables.values())


@pytest.fixture(scope="module")
def hospital() -> tuple[dict[str, Any], tuple[Any, ...]]:
    return certified(DATA / "hospital")


def drawn(monkeypatch: pytest.MonkeyPatch, predicate: dict[str, Any], tables: tuple[Any, ...]) -> list[Any]:
    """The matplotlib figures :func:`reports.plots.figures` draws, before they become SVG."""
    kept: list[Any] = []
    svg = plots._svg

    def keep(figure: Any) -> str:
        kept.append(figure)
        return svg(figure)

    monkeypatch.setattr(plots, "_svg", keep)
    plots.figures(predicate, tables)
    return kept


def test_counts_are_ticked_at_whole_numbers(hospital, monkeypatch: pytest.MonkeyPatch) -> None:
    sizes = drawn(monkeypatch, *hospital)[0]  # 60 classes, all of 5 records
    ticks = [tick for tick in sizes.axes[0].get_yticks() if 0 <= tick <= 60]
    assert len(ticks) >= 3 and all(float(tick).is_integer() for tick in ticks)


def test_the_legend_hides_no_bar(hospital, monkeypatch: pytest.MonkeyPatch) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    closeness = drawn(monkeypatch, *hospital)[2]  # stay_days in the worst class beside the whole table
    renderer = FigureCanvasAgg(closeness).get_renderer()
    axes = closeness.axes[0]
    legend = axes.get_legend().get_window_extent(renderer)
    bars = [patch.get_window_extent(renderer) for patch in axes.patches if patch.get_height() > 0]
    assert len(bars) > 10
    assert not [bar for bar in bars if bar.overlaps(legend)]
    assert legend.y0 >= axes.get_window_extent(renderer).y1 - 1  # above the plotting area


def test_captions_follow_the_policy_s_column_order() -> None:
    predicate, tables = certified(DATA)  # Table 5: zip, age (the JSON's keys are sorted: age, zip)
    order = predicate["release"]["quasi_identifiers"]
    assert order == ["zip", "age"]
    caption = plots.figures(predicate, tables)[2].caption
    shown = re.search(r"worst class \{(.*?)\}", caption)
    assert shown is not None and [part.split(":")[0] for part in shown.group(1).split(", ")] == list(order)
    assert plots._label_qi({"age": "2*", "zip": "476**"}, ["zip", "age"]) == "{zip: 476**, age: 2*}"


def test_claim_numbers_sit_beside_their_arrows_and_off_every_crossing() -> None:
    """Two arrows crossing in their middles and a third beside them: each number is near its own arrow
    (within a number's width) and farther from every other arrow than from its own."""
    import numpy as np

    arrows = [((0.0, 0.0), (2.0, 1.0), 0.0), ((0.0, 1.0), (2.0, 0.0), 0.0), ((0.0, 1.5), (2.0, 1.5), 0.0)]
    spots = plots._number_spots(arrows, boxes=[])

    def distance(spot: tuple[float, float], arrow: Any) -> float:
        return min(float(np.hypot(spot[0] - x, spot[1] - y))
                   for x, y in (plots._arc(*arrow, share) for share in np.linspace(0, 1, 201)))

    for index, spot in enumerate(spots):
        own = distance(spot, arrows[index])
        assert 0.08 <= own <= 0.15  # beside its arrow, not on it
        assert all(distance(spot, other) > own for j, other in enumerate(arrows) if j != index)
    assert all(np.hypot(a[0] - b[0], a[1] - b[1]) > 0.2 for i, a in enumerate(spots) for b in spots[i + 1:])
