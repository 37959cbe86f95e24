"""Reproduce Ekenstedt et al. 2022, Sec. V.D: the worked setting and Figs. 6-7, derived independently.

Run ``python examples/theory_utility/reproduce.py``. It prints the numbers and writes
``fig6.{png,svg}``, ``fig7.{png,svg}`` (corrected formulas, via :mod:`theory.mechanism_selection.figures`,
which ``privcert plan --figures DIR`` also draws)
and ``fig6_printed.{png,svg}``, ``fig7_printed.{png,svg}`` (the paper's printed parameter
formulas: eq. (1) with N = 100 records, eq. (2) as printed, Thm. 3 with N - k - 1), both with
utilities computed exactly by eq. (4) on the mechanisms' matrices. See README.md.

Source: Ekenstedt et al. 2022, Sec. V.C-D, Figs. 6-7.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import sympy

from theory.mechanism_selection.figures import (
    UtilityPoint,
    corrected,
    figure6_points,
    figure7_points,
    plot_figure6,
    plot_figure7,
    save_figure,
)
from theory.mechanism_selection.matrices import compose, ldp_matrix, tclo_matrix
from theory.mechanism_selection.planner import exp_epsilon_for_t, plan
from theory.mechanism_selection.utility import utility

HERE = Path(__file__).resolve().parent
T0, N, K = 2, 100, 5


def printed(t0: Fraction, f: Sequence[Fraction], records: int, k: int) -> dict[str, sympy.Expr]:
    """Utilities with the paper's printed formulas for the design parameters.

    e^eps_t from Thm. 3 as printed, (t0 N - k)/(N - k - 1); p_LDP from eq. (1) as printed with
    N records, p/(N(1-p)) = e^eps - 1; p_t from eq. (2) as printed, t = 1/(1 - p_t).
    """
    ratio = (sympy.Rational(t0) * records - k) / (records - k - 1)
    keep_ldp = records * (ratio - 1) / (1 + records * (ratio - 1))
    keep_t = 1 - 1 / sympy.Rational(t0)
    size = len(f)
    return {
        "ldp": utility(ldp_matrix(size, keep_ldp), f),
        "tclo+ldp": utility(compose(tclo_matrix(f, keep_t), ldp_matrix(size, keep_ldp)), f),
        "tclo": utility(tclo_matrix(f, keep_t), f),
    }


def _row(label: object, point: UtilityPoint) -> str:
    u = {name: float(point.utility(name)) for name in ("ldp", "tclo+ldp", "tclo")}
    return f"{str(label):>8} | {u['ldp']:.4f} | {u['tclo+ldp']:.4f} | {u['tclo']:.4f}"


def main() -> None:
    ratio = exp_epsilon_for_t(T0, N, K)
    printed_ratio = sympy.Rational(T0 * N - K, N - K - 1)
    print(f"worked setting t0={T0}, n=2, N={N}, k={K} (paper: eps_t = 0.7)")
    print(f"  eps_t = ln({ratio}) = {float(sympy.log(ratio)):.4f}   (Thm. 3 as printed: ln({printed_ratio}) = "
          f"{float(sympy.log(printed_ratio)):.4f})")
    setting = plan(T0, sympy.log(ratio), N, K, [Fraction(1, 2)] * 2)
    for c in setting.choices:
        print(f"  {c.name:9} p_t={c.p_t} p_LDP={c.p_ldp} e^eps={c.exp_epsilon} t<={c.t} "
              f"meets={c.meets} U={c.utility} = {float(c.utility):.4f}")
    print(f"  best: {setting.best.name if setting.best else None}")
    header = "         |  U_LDP | U_tClo+LDP | U_tClo"
    for method, suffix, kind in ((corrected, "", "corrected formulas"), (printed, "_printed", "printed formulas")):
        rows6 = figure6_points(T0, N, K, method=method)
        save_figure(plot_figure6(rows6, f"Fig. 6 ({kind}): t0=2, n=2, N=100, k=5, eps0=eps_t"), HERE, f"fig6{suffix}")
        print(f"\nFig. 6, {kind}\n  p_y(a1){header[8:]}")
        for point in rows6[::10]:
            print("  " + _row(point.x, point))
        rows7 = figure7_points(N, K, method=method)
        save_figure(plot_figure7(rows7, f"Fig. 7 ({kind}): uniform p_y, N=100, k=5, eps0=eps_t"), HERE, f"fig7{suffix}")
        print(f"\nFig. 7, {kind}\n  t0 / n {header[8:]}")
        for size in (2, 4, 6):
            for point in [p for p in rows7 if p.values == size][::4]:
                print("  " + _row(f"{point.x}/{size}", point))


if __name__ == "__main__":
    main()
