"""Claims of Soria-Comas et al. (Soria-Comas et al. 2015), Sec. 7: EMD bounds for t-closeness-first microaggregation.

EMD here is the ordered-distance EMD of t-closeness on a ranked attribute with n distinct
values (mass 1/n each in the data set T, 1/k each in a cluster C of k records).

References
----------
Soria-Comas et al. 2015, Sec. 7: Propositions 1-2, Expressions (3)-(4), Algorithm 3.
"""

from __future__ import annotations

import sympy

from theory.claims.claim import Claim, equation
from theory.definitions import k, t
from verifier.references import Source

__all__ = ["CLAIMS", "n", "emd_min", "emd_max", "k_adjusted"]

_P = "Soria-Comas et al. 2015"

n = sympy.Symbol("n", positive=True, integer=True)
"""Number of records of the data set T (Soria-Comas et al. (2015)'s n)."""
emd_min = sympy.Symbol("EMD_min", nonnegative=True)
"""The least EMD(C, T) over clusters C of k records."""
emd_max = sympy.Symbol("EMD_max", nonnegative=True)
"""The largest EMD(C, T) over clusters with one record from each of the k rank subsets."""
k_adjusted = sympy.Symbol("k'", positive=True, integer=True)
"""The cluster size after Expression (4)."""


def _src(item: str) -> Source:
    return Source(_P, "7", item)


_MOD = sympy.Mod(n, k)
_Q = sympy.floor(n / k)

CLAIMS: tuple[Claim, ...] = (
    Claim(
        "soriacomas2015:prop1",
        _src("Proposition 1"),
        "bound",
        None,
        "t_closeness",
        equation(emd_min, (n + k) * (n - k) / (4 * n * (n - 1) * k)),
        (equation(sympy.Mod(n, k), 0), sympy.Ge(n, 2)),
        corrected=equation(emd_min, k * sympy.floor((n / k) ** 2 / 4) / (n * (n - 1))),
        note="Printed: EMD >= (n+k)(n-k)/(4n(n-1)k), tight when k divides n. The lower bound holds, "
        "but the proof's 'in any case the EMD is the same as (1)' is wrong for even n/k: the "
        "median cost is (n/k)^2/4, not ((n/k)^2-1)/4. Corrected: for k | n the least EMD is "
        "k floor((n/k)^2/4)/(n(n-1)), equal to the printed bound iff n/k is odd.",
    ),
    Claim(
        "soriacomas2015:prop2",
        _src("Proposition 2"),
        "bound",
        None,
        "t_closeness",
        equation(emd_max, (n - k) / (2 * (n - 1) * k)),
        (equation(sympy.Mod(n, k), 0), sympy.Ge(n, 2)),
        note="Attained by taking the lowest (or highest) record of every subset S_i.",
    ),
    Claim(
        "soriacomas2015:expr3",
        _src("Expression (3)"),
        "bound",
        None,
        "t_closeness",
        equation(k_adjusted, sympy.Max(k, sympy.ceiling(n / (2 * (n - 1) * t + 1)))),
        (sympy.Ge(n, 2), sympy.Gt(t, 0)),
        note="The least cluster size whose Proposition 2 bound (n-k)/(2(n-1)k) is at most t.",
    ),
    Claim(
        "soriacomas2015:expr4",
        _src("Expression (4), as printed in the text"),
        "bound",
        None,
        None,
        equation(k_adjusted, k + sympy.floor(_MOD / _Q)),
        (sympy.Le(k, n),),
        note="After the adjustment the remainder n mod k' is below floor(n/k'), so the leftover "
        "records can go two-per-cluster.",
    ),
    Claim(
        "soriacomas2015:alg3_expr4",
        _src("Algorithm 3, second line (Expression (4) with a ceiling)"),
        "bound",
        None,
        None,
        equation(k_adjusted, k + sympy.ceiling(_MOD / _Q)),
        (sympy.Le(k, n),),
        corrected=equation(k_adjusted, k + sympy.floor(_MOD / _Q)),
        note="With the ceiling the remainder can exceed the number of clusters (n = 11, k = 4 gives "
        "k' = 6, 11 mod 6 = 5 > floor(11/6) = 1); the text's floor (soriacomas2015:expr4) is right. The "
        "two agree iff floor(n/k) divides n mod k.",
    ),
)
