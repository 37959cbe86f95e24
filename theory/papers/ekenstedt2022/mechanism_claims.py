"""Claims of Ekenstedt et al. 2022, Sec. V about the randomized-response mechanisms: eqs. (1), (2), (5), (6).

Each claim keeps the printed form and the corrected one, derived from the mechanism's
matrix in :mod:`theory.mechanism_selection.matrices` and :mod:`theory.mechanism_selection.utility`.
Their checks are beside them, in :mod:`theory.papers.ekenstedt2022.mechanism_checks`: they
derive the corrected form from the matrix (sympy), confirm it against the exact levels
measured on per-record probability tables (:mod:`theory.tables.levels`, an independent
computation), and exhibit a table on which the printed form is wrong.

``CLAIMS`` is merged into the catalog by :mod:`theory.claims.catalog`; this module imports no
check code (nor the exact measures and data-frame libraries behind it).

References
----------
Ekenstedt et al. 2022, Sec. V.A (eqs. (1)-(2)), Sec. V.B (eqs. (5)-(6)).
"""

from __future__ import annotations

import sympy

from theory.claims.claim import Claim, equation
from theory.definitions import N
from theory.mechanism_selection.matrices import (
    EQ1_DERIVED,
    EQ1_PRINTED,
    EQ2_DERIVED,
    EQ2_PRINTED,
    LDP_CHANGE,
    LDP_KEEP,
    S_i,
    f_i,
    f_j,
    n,
    p_ldp,
    p_t,
)
from theory.mechanism_selection.utility import F2_DERIVED, F2_PRINTED
from verifier.references import Source

__all__ = ["CLAIMS"]


_PAPER = "Ekenstedt et al. 2022"
_U = sympy.Symbol("U")
_f2 = sympy.Symbol("f_2")
_unit = (sympy.Ge(p_ldp, 0), sympy.Lt(p_ldp, 1), sympy.Ge(n, 2))

CLAIMS: tuple[Claim, ...] = (
    Claim(
        "ekenstedt2022:eq1",
        Source(_PAPER, "V.A", "eq. (1)"),
        "bound",
        None,
        None,
        EQ1_PRINTED,
        _unit,
        EQ1_DERIVED,
        "ε-LDP level of the randomized response of Fig. 4 (keep with p_LDP, else uniform over "
        "n values). Printed ln(1 + p/(N(1-p))); the largest column ratio of the matrix is "
        "(p + (1-p)/n)/((1-p)/n) = 1 + n p/(1-p). Attained when two values occur in the data.",
    ),
    Claim(
        "ekenstedt2022:eq2",
        Source(_PAPER, "V.A", "eq. (2)"),
        "bound",
        None,
        None,
        EQ2_PRINTED,
        (sympy.Ge(p_t, 0), sympy.Lt(p_t, 1), equation(S_i, 1 - f_i)),
        EQ2_DERIVED,
        "multiplicative t of the randomized response of Fig. 5 (keep with p_t, else draw from "
        "the data set's distribution), worst class = records sharing one value. Printed "
        "max_i max{mu_i/(p_t/f_i + 1 - p_t), mu_i/(f_i(1-p_t))} with mu_i = f_i: the first "
        "term is the ratio Pr_E/Pr_D inverted (always <= 1), so the printed form is 1/(1-p_t). "
        "Corrected: max(p_t/f_min + 1 - p_t, 1/(1-p_t)) over values present (two or more); "
        "equal to the (k,t)-closeness level when every value has >= k records and >= k records "
        "lie outside it; an upper bound on every partition otherwise.",
    ),
    Claim(
        "ekenstedt2022:eq5",
        Source(_PAPER, "V.B", "eq. (5)"),
        "bound",
        None,
        None,
        equation(_U, sympy.Max(f_j * (1 - p_ldp) / N, f_i * (p_ldp + (1 - p_ldp) / N))),
        _unit,
        equation(_U, sympy.Max(f_j * LDP_CHANGE, f_i * LDP_KEEP)),
        "utility (eq. (4)) of Fig. 4, one term of the sum over released values a_i, f_j the "
        "largest other frequency. Printed with N (the number of records, Table I) where the "
        "number of values n is meant; with n it equals eq. (4) on the matrix.",
    ),
    Claim(
        "ekenstedt2022:eq6",
        Source(_PAPER, "V.B", "eq. (6), f_2"),
        "bound",
        None,
        None,
        equation(_f2, F2_PRINTED.subs(n, N)),
        (sympy.Ge(p_t, 0), sympy.Le(p_t, 1)) + _unit[:2],
        equation(_f2, F2_DERIVED),
        "joint Pr(Y=a_i, Z=a_j), j != i, of Fig. 5 followed by Fig. 4, used in the utility "
        "eq. (6). Printed f_2 lacks f_i (1-p_t)(1-f_j)(1-p_LDP)/n (and writes N for n); the "
        "printed sum sum_j max_i max{f_1(a_i), f_2(a_i,a_j)} also takes f_1(a_i) for i != j "
        "(3/2 > 1 with no noise, f = (3/4, 1/4)). Corrected: sum_j max(f_1(a_j), "
        "max_{i != j} f_2(a_i, a_j)) with the derived f_2, equal to eq. (4) on the product matrix.",
    ),
)

