"""Reproduce Ekenstedt et al. 2022, Sec. V.D: the worked setting and Figs. 6-7, derived independently.

Run ``python examples/theory_utility/reproduce.py``. It prints the numbers and writes
``fig6.{png,svg}``, ``fig7.{png,svg}`` (corrected formulas, via :func:`theory.mechanism_selection.planner.plan`)
and ``fig6_printed.{png,svg}``, ``fig7_printed.{png,svg}`` (the paper's printed parameter
formulas: eq. (1) with N = 100 records, eq. (2) as printed, Thm. 3 with N - k - 1), both with
utilities computed exactly by eq. (4) on the mechanisms' matrices. See README.md.

Source: Ekenstedt et al. 2022, Sec. V.C-D, Figs. 6-7.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import sympy  # noqa: E402

from theory.mechanism_selection.matrices import compose, ldp_matrix, tclo_matrix  # noqa: E402
from theory.mechanism_selection.planner import exp_epsilon_for_t, plan  # noqa: E402
from theory.mechanism_selection.utility import utility  # noqa: E402

HERE = Path(__file__).resolve().parent
T0, N, K = 2, 100, 5
CURVES = (("ldp", "ε-LDP (mechanism 1)", "-"), ("tclo+ldp", "t-closeness + ε-LDP (mechanism 2)", "--"),
          ("tclo", "t-closeness (mechanism 3)", "-."))
Utilities = dict[str, float]
Method = Callable[[sympy.Expr | Fraction | int, Sequence[Fraction]], Utilities]


def corrected(t0: sympy.Expr | Fraction | int, f: Sequence[Fraction]) -> Utilities:
    """Utilities of the three mechanisms with eps0 = eps_t, corrected eqs. (1)-(2) and Thm. 3."""
    result = plan(t0, sympy.log(exp_epsilon_for_t(t0, N, K)), N, K, f)
    return {c.name: float(c.utility) for c in result.choices}


def printed(t0: sympy.Expr | Fraction | int, f: Sequence[Fraction]) -> Utilities:
    """Utilities with the paper's printed formulas for the design parameters.

    e^eps_t from Thm. 3 as printed, (t0 N - k)/(N - k - 1); p_LDP from eq. (1) as printed with
    N = 100 records, p/(N(1-p)) = e^eps - 1; p_t from eq. (2) as printed, t = 1/(1 - p_t).
    """
    ratio = (sympy.Rational(t0) * N - K) / (N - K - 1)
    keep_ldp = N * (ratio - 1) / (1 + N * (ratio - 1))
    keep_t = 1 - 1 / sympy.Rational(t0)
    size = len(f)
    return {
        "ldp": float(utility(ldp_matrix(size, keep_ldp), f)),
        "tclo+ldp": float(utility(compose(tclo_matrix(f, keep_t), ldp_matrix(size, keep_ldp)), f)),
        "tclo": float(utility(tclo_matrix(f, keep_t), f)),
    }


def figure6(method: Method, name: str, title: str) -> list[tuple[Fraction, Utilities]]:
    grid = [Fraction(i, N) for i in range(N + 1)]
    rows = [(x, method(T0, [x, 1 - x])) for x in grid]
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    for key, label, style in CURVES:
        ax.plot([float(x) for x, _ in rows], [u[key] for _, u in rows], style, label=label)
    ax.set(xlabel="$p_y(a_1)$", ylabel="utility, eq. (4)", title=title, ylim=(0.45, 1.02))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=8)
    ax.grid(alpha=0.3)
    _save(fig, name)
    return rows


def figure7(method: Method, name: str, title: str) -> dict[int, list[tuple[Fraction, Utilities]]]:
    grid = [1 + Fraction(i, 4) for i in range(37)]
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.8), sharey=True)
    table: dict[int, list[tuple[Fraction, Utilities]]] = {}
    for ax, size in zip(axes, (2, 4, 6)):
        f = [Fraction(1, size)] * size
        rows = [(t0, method(t0, f)) for t0 in grid]
        table[size] = rows
        for key, label, style in CURVES:
            ax.plot([float(t0) for t0, _ in rows], [u[key] for _, u in rows], style, label=label)
        ax.set(xlabel="$t_0$", title=f"n = {size}")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("utility, eq. (4)")
    axes[0].legend(fontsize=7, loc="lower right")
    fig.suptitle(title, fontsize=10)
    _save(fig, name)
    return table


def _save(fig: plt.Figure, name: str) -> None:
    fig.tight_layout()
    fig.savefig(HERE / f"{name}.png", dpi=110)
    fig.savefig(HERE / f"{name}.svg", metadata={"Date": None})
    plt.close(fig)


def _row(label: object, u: Utilities) -> str:
    return f"{str(label):>8} | {u['ldp']:.4f} | {u['tclo+ldp']:.4f} | {u['tclo']:.4f}"


def main() -> None:
    plt.rcParams["svg.hashsalt"] = "privcert"
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
        rows6 = figure6(method, f"fig6{suffix}", f"Fig. 6 ({kind}): t0=2, n=2, N=100, k=5, eps0=eps_t")
        print(f"\nFig. 6, {kind}\n  p_y(a1){header[8:]}")
        for x, u in rows6[::10]:
            print("  " + _row(x, u))
        table7 = figure7(method, f"fig7{suffix}", f"Fig. 7 ({kind}): uniform p_y, N=100, k=5, eps0=eps_t")
        print(f"\nFig. 7, {kind}\n  t0 / n {header[8:]}")
        for size, rows in table7.items():
            for t0, u in rows[::4]:
                print("  " + _row(f"{t0}/{size}", u))


if __name__ == "__main__":
    main()
