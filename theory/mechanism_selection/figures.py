"""Figs. 6-7 of Ekenstedt et al. 2022, Sec. V.D: the utility of the three mechanisms, exactly, and their plots.

Fig. 6: two values (``n = 2``), ``p_y(a_1)`` from 0 to 1, fixed ``t0``, ``N``, ``k``. Fig. 7:
uniform ``p_y`` over ``n = 2, 4, 6`` values, ``t0`` from 1 to 10. Both with ``ε0 = ε_t`` (the
paper's choice: the ε whose LDP implies ``t0``), so that mechanism 1 and the ε-LDP stage of
mechanism 2 run at the same ε. Every utility is exact (eq. (4) on the mechanism's matrix, through
:func:`theory.mechanism_selection.planner.plan`, with the corrected eqs. (1)-(2) and Thm. 3); the
plots draw their float values. The paper's own parameter formulas can be plotted by passing
another ``method`` (``examples/theory_utility/reproduce.py`` does, for comparison).

References
----------
Ekenstedt et al. 2022, Sec. V.D, Figs. 6-7.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import sympy

from theory.mechanism_selection.planner import ChoiceName, exp_epsilon_for_t, plan

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["UtilityPoint", "Method", "CURVES", "corrected", "figure6_points", "figure7_points", "plot_figure6",
           "plot_figure7", "save_figure", "draw_figures"]

CURVES: tuple[tuple[ChoiceName, str, str], ...] = (
    ("ldp", "ε-LDP (mechanism 1)", "-"),
    ("tclo+ldp", "t-closeness + ε-LDP (mechanism 2)", "--"),
    ("tclo", "t-closeness (mechanism 3)", "-."),
)
"""Each mechanism's name, legend and line style (the paper's: solid, dashed, dash-dotted)."""

Method = Callable[[Fraction, Sequence[Fraction], int, int], dict[str, sympy.Expr]]
"""``(t0, frequencies, N, k) -> {mechanism name: utility}``."""


@dataclass(frozen=True)
class UtilityPoint:
    """The three mechanisms' utilities at one abscissa of a figure.

    Attributes
    ----------
    x
        ``p_y(a_1)`` (Fig. 6) or ``t0`` (Fig. 7).
    values
        ``n``, the number of values.
    utilities
        ``(mechanism name, exact utility)`` for ``ldp``, ``tclo+ldp``, ``tclo``.
    """

    x: Fraction
    values: int
    utilities: tuple[tuple[str, sympy.Expr], ...]

    def utility(self, name: str) -> sympy.Expr:
        """The utility of the mechanism called ``name``."""
        return dict(self.utilities)[name]


def corrected(t0: Fraction, frequencies: Sequence[Fraction], records: int, k: int) -> dict[str, sympy.Expr]:
    """The three utilities with ``ε0 = ε_t`` (corrected eqs. (1)-(2), Thm. 3)."""
    result = plan(t0, sympy.log(exp_epsilon_for_t(t0, records, k)), records, k, frequencies)
    return {choice.name: choice.utility for choice in result.choices}


def _point(x: Fraction, frequencies: Sequence[Fraction], t0: Fraction, records: int, k: int,
           method: Method) -> UtilityPoint:
    utilities = method(t0, frequencies, records, k)
    return UtilityPoint(x, len(frequencies), tuple((name, utilities[name]) for name, _, _ in CURVES))


def figure6_points(t0: Fraction | int = 2, records: int = 100, k: int = 5, *, steps: int = 100,
                   method: Method = corrected) -> tuple[UtilityPoint, ...]:
    """Fig. 6: ``n = 2``, ``p_y(a_1) = i/steps`` for ``i = 0..steps`` (the paper: t0 = 2, N = 100, k = 5)."""
    target = Fraction(t0)
    return tuple(_point(Fraction(i, steps), [Fraction(i, steps), 1 - Fraction(i, steps)], target, records, k, method)
                 for i in range(steps + 1))


def figure7_points(records: int = 100, k: int = 5, *, sizes: Sequence[int] = (2, 4, 6),
                   t0s: Sequence[Fraction] | None = None,
                   method: Method = corrected) -> tuple[UtilityPoint, ...]:
    """Fig. 7: uniform ``p_y`` over ``n`` in ``sizes``, ``t0`` over ``t0s`` (default 1 to 10 in steps of 1/4, as
    the paper's 1 to 10; N = 100, k = 5)."""
    grid = [1 + Fraction(i, 4) for i in range(37)] if t0s is None else t0s
    return tuple(_point(t0, [Fraction(1, n)] * n, t0, records, k, method) for n in sizes for t0 in grid)


def plot_figure6(points: Sequence[UtilityPoint], title: str) -> Figure:
    """Fig. 6 as a matplotlib figure: utility against ``p_y(a_1)``, one line per mechanism."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6.4, 4.8))
    ax = figure.subplots()
    for name, label, style in CURVES:
        ax.plot([float(p.x) for p in points], [float(p.utility(name)) for p in points], style, label=label)
    ax.set(xlabel="$p_y(a_1)$", ylabel="utility, eq. (4)", title=title, ylim=(0.45, 1.02))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=8)
    ax.grid(alpha=0.3)
    figure.tight_layout()
    return figure


def plot_figure7(points: Sequence[UtilityPoint], title: str) -> Figure:
    """Fig. 7 as a matplotlib figure: utility against ``t0``, one panel per ``n``."""
    from matplotlib.figure import Figure

    sizes = sorted({p.values for p in points})
    figure = Figure(figsize=(11, 3.8))
    axes = figure.subplots(1, len(sizes), sharey=True, squeeze=False)[0]
    for ax, size in zip(axes, sizes):
        mine = [p for p in points if p.values == size]
        for name, label, style in CURVES:
            ax.plot([float(p.x) for p in mine], [float(p.utility(name)) for p in mine], style, label=label)
        ax.set(xlabel="$t_0$", title=f"n = {size}")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("utility, eq. (4)")
    axes[0].legend(fontsize=7, loc="lower right")
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return figure


def save_figure(figure: Figure, directory: Path, name: str) -> tuple[Path, Path]:
    """Write ``name.png`` and ``name.svg`` (reproducible: no date, a fixed SVG hash salt)."""
    import matplotlib

    directory.mkdir(parents=True, exist_ok=True)
    png, svg = directory / f"{name}.png", directory / f"{name}.svg"
    with matplotlib.rc_context({"svg.hashsalt": "privcert"}):
        figure.savefig(png, dpi=110)
        figure.savefig(svg, metadata={"Date": None})
    return png, svg


def draw_figures(directory: str | Path, t0: Fraction | int = 2, records: int = 100, k: int = 5, *,
                 steps: int = 100) -> tuple[Path, ...]:
    """Compute Figs. 6-7 exactly and write ``fig6.{png,svg}`` and ``fig7.{png,svg}`` into ``directory``.

    The defaults are the paper's setting (``t0 = 2`` for Fig. 6, ``N = 100``, ``k = 5``). Returns the
    files written.
    """
    target = Path(directory)
    six = plot_figure6(figure6_points(t0, records, k, steps=steps),
                       f"Fig. 6: t0={Fraction(t0)}, n=2, N={records}, k={k}, eps0=eps_t")
    seven = plot_figure7(figure7_points(records, k), f"Fig. 7: uniform p_y, N={records}, k={k}, eps0=eps_t")
    return (*save_figure(six, target, "fig6"), *save_figure(seven, target, "fig7"))
