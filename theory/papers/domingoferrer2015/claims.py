"""Claims of Domingo-Ferrer & Soria-Comas (Domingo-Ferrer & Soria-Comas 2015), Secs. 3-6.

Props. 1-3, the optimal bucketization of Sec. 6.1, the construction of Sec. 6.2 and its
Table 1, and the algorithm of Sec. 6.3.

References
----------
Domingo-Ferrer & Soria-Comas 2015, Secs. 3-6.
"""

from __future__ import annotations

import sympy

from theory.claims.claim import Assumption, Claim, equation
from theory.definitions import N, eps, k, t
from verifier.references import Source

__all__ = ["CLAIMS", "b", "e", "l", "p", "count", "d", "d_points"]

_P = "Domingo-Ferrer & Soria-Comas 2015"
_T = sympy.exp(eps)

b = sympy.Symbol("b", positive=True)
"""Bucket size (records per bucket), Sec. 6.1; in Sec. 6.3 the number of buckets."""
e = sympy.Symbol("e", positive=True, integer=True)
"""Size e_i of an equivalence class, Sec. 6.2."""
l = sympy.Symbol("l", positive=True, integer=True)
"""Number of classes emphasising each bucket, Sec. 6.2."""
p = sympy.Symbol("p", positive=True)
"""Probability p_i = b_i/N of a bucket, Sec. 6.2."""
count = sympy.Symbol("c", nonnegative=True, integer=True)
"""Number of records of a class whose value is in a given bucket, Sec. 6.2."""
d = sympy.Symbol("d", positive=True)
"""The multiplicative distance of Def. 4 (max over all sets S)."""
d_points = sympy.Symbol("d_points", positive=True)
"""The same maximum taken over single values only (Prop. 2)."""


def _src(section: str, item: str) -> Source:
    return Source(_P, section, item)


CLAIMS: tuple[Claim, ...] = (
    Claim(
        "domingoferrer2015:prop1",
        _src("4", "Proposition 1"),
        "implication",
        "ldp",
        "stochastic_t_closeness",
        equation(t, k / N * (1 + (N - k - 1) / k * _T)),
        (sympy.Ge(N, 2 * k),),
        corrected=equation(t, (k + (N - k) * _T) / N),
        note="Printed max_E |E|/N (1 + (N-|E|-1)/|E| e^ε); the expression decreases in |E|, so the "
        "max is at the smallest class |E| = k. The proof derives (N-|E|)/|E| and the final line "
        "drops a 1: the printed t is too small by e^ε/N, for every N, k, ε. The hypothesis 'the projection is "
        "ε-DP' is used as a per-record ratio bound e^-ε Pr_i <= Pr_j <= e^ε Pr_i, i.e. ε-LDP "
        "(Ekenstedt et al. 2022, Def. 6), which is what is encoded; with ε-DP (Ekenstedt et al. 2022, Def. 5) see domingoferrer2015:prop1_dp.",
    ),
    Claim(
        "domingoferrer2015:prop1_dp",
        _src("4", "Proposition 1, hypothesis read as ε-DP of Ekenstedt et al. 2022, Def. 5"),
        "implication",
        "dp",
        "stochastic_t_closeness",
        equation(t, k / N * (1 + (N - k - 1) / k * _T)),
        (sympy.Ge(N, 2 * k),),
        note="With neighbouring data sets (one record removed) the bound fails: k records with "
        "probability 0 in one class keep ε-DP finite while the class makes t infinite.",
    ),
    Claim(
        "domingoferrer2015:prop2",
        _src("5", "Proposition 2"),
        "bound",
        None,
        "stochastic_t_closeness",
        equation(d, d_points),
        (),
        note="For discrete distributions the max over sets S of the Def. 4 quotients is attained "
        "at single values (mediant inequality).",
    ),
    Claim(
        "domingoferrer2015:prop3",
        _src("5", "Proposition 3"),
        "implication",
        "stochastic_t_closeness",
        "ldp",
        equation(eps, 2 * sympy.log(t)),
        (Assumption(sympy.Symbol("classwise_views")),),
        note="exp(ε/2)-closeness ⇒ ε-DP of the view k_I, under t-closeness' assumption that the "
        "view of an individual is the distribution of its class: two views are within t of the "
        "table's distribution, hence within t^2 of each other.",
    ),
    Claim(
        "domingoferrer2015:sec61_bucket_size",
        _src("6.1", "optimal bucketization b_i = N/(t+1)"),
        "bound",
        None,
        "stochastic_t_closeness",
        equation(b, N / (t + 1)),
        (equation(t * b / N + (1 - b / N) / t, 1), sympy.Gt(t, 1)),
        note="Solves t b/N + (1 - b/N)/t = 1.",
    ),
    Claim(
        "domingoferrer2015:table1",
        _src("6.2", "Table 1"),
        "bound",
        None,
        "stochastic_t_closeness",
        equation(d, t),
        (sympy.Gt(t, 1),),
        note="Class E_i puts t/(t+1) on B_i and 1/(t(t+1)) on the t other buckets: a distribution "
        "at multiplicative distance exactly t from the uniform 1/(t+1).",
    ),
    Claim(
        "domingoferrer2015:sec62_k_lower",
        _src("6.2", "k >= t+1 and l in {1, ..., floor(N/(t+1)^2)}"),
        "bound",
        None,
        "stochastic_t_closeness",
        sympy.And(sympy.Ge(k, t + 1), sympy.Le(l, N / (t + 1) ** 2)),
        (equation(k, N / ((t + 1) * l)),),
        note="Every class must hold every one of the t+1 buckets (finite distance), so k >= t+1; "
        "with k = N/((t+1) l) this is l <= N/(t+1)^2. Table 1's exact masses need t(t+1) | k.",
    ),
    Claim(
        "domingoferrer2015:sec62_class_sizes",
        _src("6.2", "e_i = ceil(i N/((t+1)l)) - ceil((i-1) N/((t+1)l))"),
        "bound",
        None,
        None,
        equation(
            sympy.Sum(
                sympy.ceiling(sympy.Symbol("i") * N / ((t + 1) * l))
                - sympy.ceiling((sympy.Symbol("i") - 1) * N / ((t + 1) * l)),
                (sympy.Symbol("i"), 1, (t + 1) * l),
            ),
            N,
        ),
        (),
        note="The (t+1) l class sizes add up to N and differ by at most one.",
    ),
    Claim(
        "domingoferrer2015:sec62_counts",
        _src("6.2", "conditions (i)-(ii) on the records of B_i in E_i"),
        "bound",
        None,
        "stochastic_t_closeness",
        equation(count, sympy.ceiling(e * p * t)),
        (sympy.Gt(t, 1),),
        corrected=sympy.Le(count, sympy.floor(e * p * t)),
        note="Printed 'at most ceil(e_i p_i t)' and 'at least ceil(e_i p_i t)' records of B_i. A "
        "class with ceil(e p t) > e p t records of B_i has proportion above t p_i: distance > t. "
        "Corrected: at most floor(e_i p_i t) records of B_i, and at least ceil(e_i p_j / t) of "
        "every other bucket B_j. The printed rule is right exactly when e_i p_i t is an integer.",
    ),
    Claim(
        "domingoferrer2015:sec63_bucket_sizes",
        _src("6.3", "step 3(a): buckets of ceil(N/b) or ceil(N/b)+1 values"),
        "bound",
        None,
        None,
        equation(b * sympy.ceiling(N / b) + sympy.Mod(N, b), N),
        (sympy.Ge(b, 2),),
        corrected=equation(b * sympy.floor(N / b) + sympy.Mod(N, b), N),
        note="b buckets of at least ceil(N/b) values need more than N values when b does not "
        "divide N (the printed count is right iff b divides N). Corrected: N mod b buckets of "
        "floor(N/b)+1 values, the others floor(N/b).",
    ),
    Claim(
        "domingoferrer2015:sec63_proportions",
        _src("6.3", "step 4(b): proportions within [1/(t b), t/b]"),
        "bound",
        None,
        "stochastic_t_closeness",
        equation(d, t),
        (sympy.Ge(t, 1),),
        note="With a uniform bucketized distribution 1/b, a class is t-close (Def. 4) iff every "
        "bucket's proportion is in [1/(t b), t/b]; the extreme proportions attain distance t.",
    ),
)
