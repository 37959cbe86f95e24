"""Closed-form levels printed in the captions and proofs of Ekenstedt et al. (2022)'s appendix Tables III-VII.

Each table gives ``Pr(c_i = a_1)`` per record; the other bucket {a_2} gets the complement
(the appendix: "the confidential attribute is limited to two values a_1 and a_2"). The
printed levels look at bucket a_1 only; the corrected forms take the maximum over both
buckets (and the right extreme subsets), and say when the printed one is right.

References
----------
Ekenstedt et al. 2022, Appendix A (Table III), B (Tables IV, V), D (Table VI), E (Table VII).
"""

from __future__ import annotations

import sympy

from theory.claims.claim import Claim, equation
from theory.definitions import N, eps, k, t
from verifier.references import Source

__all__ = ["CLAIMS", "mu", "sigma", "alpha"]

_P = "Ekenstedt et al. 2022"
mu = sympy.Symbol("mu", positive=True)
"""The probability μ of the tables."""
sigma = sympy.Symbol("sigma", positive=True)
"""The moving probability σ (Tables III, V, VI)."""
alpha = sympy.Symbol("alpha", positive=True)
"""The moving probability α (Table VII)."""

_lo = sympy.Min(k, N - k + 1)
_d2 = 1 - (N - k + 1) * mu / N
_v = 1 - k * mu / N  # Table VII: Pr_D(a_2)

CLAIMS: tuple[Claim, ...] = (
    Claim(
        "ekenstedt2022:table3",
        Source(_P, "Appendix A", "Table III caption: local ln((2μ-σ)/σ)-DP"),
        "bound",
        None,
        "ldp",
        equation(eps, sympy.log((2 * mu - sigma) / sigma)),
        (sympy.Lt(sigma, mu), sympy.Le(2 * mu - sigma, 1)),
        corrected=equation(eps, sympy.log(sympy.Max((2 * mu - sigma) / sigma, (1 - sigma) / (1 - 2 * mu + sigma)))),
        note="Bucket a_2 (1-μ, 1-μ, 1-σ, 1-2μ+σ) adds (1-σ)/(1-2μ+σ), larger when μ > 1/2; the "
        "printed form holds iff μ <= 1/2. Multiplicative 1-closeness holds for every σ.",
    ),
    Claim(
        "ekenstedt2022:table4",
        Source(_P, "Appendix B", "Table IV caption and proof of Lemma 2(2): t = N - k + 1"),
        "bound",
        None,
        "kt_closeness",
        equation(t, N - k + 1),
        (sympy.Gt(mu, 0), sympy.Lt(mu, 1), sympy.Ge(k, 2), sympy.Lt(k, N)),
        corrected=equation(
            t,
            sympy.Max(
                k * (N - k + 1) / N,
                _lo * N / (k * (N - k + 1)),
                (1 - mu / k) / _d2,
                _d2 / (1 - _lo * mu / k),
            ),
        ),
        note="The proof divides sums, not averages: (N-k+1)μ/μ. With averages, bucket a_1 gives "
        "k(N-k+1)/N (Pr_D/Pr_K with k-1 zeros in K) and the a_2 bucket adds two more ratios. "
        "The non-implication (Lemma 2(2)) is unaffected: smaller subsets still see only zeros.",
    ),
    Claim(
        "ekenstedt2022:table5",
        Source(_P, "Appendix B", "Table V / proof of Lemma 2(3): (2, t_0)-closeness with t_0 = μ/σ"),
        "bound",
        None,
        "kt_closeness",
        equation(t, mu / sigma),
        (sympy.Lt(sigma, mu), sympy.Le(2 * mu - sigma, 1)),
        corrected=equation(
            t, sympy.Max(mu / sigma, (2 * mu - sigma) / mu, (1 - sigma) / (1 - mu), (1 - mu) / (1 - 2 * mu + sigma))
        ),
        note="Pairs of 2μ-σ and of σ give (2μ-σ)/μ <= μ/σ always, but bucket a_2 adds "
        "(1-μ)/(1-2μ+σ), which exceeds μ/σ iff μ > 1/2.",
    ),
    Claim(
        "ekenstedt2022:table6",
        Source(_P, "Appendix D", "Table VI / proof of Theorem 3: (2,2)-closeness and ε = ln(2μ/σ)"),
        "bound",
        None,
        "ldp",
        equation(eps, sympy.log(2 * mu / sigma)),
        (sympy.Lt(sigma, mu), sympy.Le(2 * mu, 1)),
        corrected=equation(
            eps,
            sympy.log(sympy.Max(2 * mu / sympy.Min(sigma, mu - sigma), sympy.Max(1 - sigma, 1 - mu + sigma) / (1 - 2 * mu))),
        ),
        note="(2,2)-closeness holds exactly for every σ < μ <= 1/2. The LDP ratio's smallest a_1 "
        "probability is min(σ, μ-σ), not σ, and bucket a_2 adds max(1-σ, 1-μ+σ)/(1-2μ).",
    ),
    Claim(
        "ekenstedt2022:table7",
        Source(_P, "Appendix E", "Table VII caption: ε = max(N/(N-1), (N-1)k/((k-1)N))"),
        "bound",
        None,
        "dp",
        equation(eps, sympy.Max(N / (N - 1), (N - 1) * k / ((k - 1) * N))),
        (sympy.Ge(k, 2), sympy.Ge(N, k + 2), sympy.Le(alpha, mu), sympy.Le(mu, 1)),
        corrected=equation(
            sympy.exp(eps),
            sympy.Max(
                N / (N - 1),
                (N - 1) * k / ((k - 1) * N),
                _v * (N - 1) / (N * _v - 1),
                (N * _v - 1 + mu) / ((N - 1) * _v),
            ),
        ),
        note="The printed maximum is a probability ratio, e^ε, not ε; bucket a_2 adds two more "
        "ratios (removing a zero record, or a μ record). The caption's ε_k = (N-k)μk/(Nα) is "
        "likewise e^{ε_k} and needs α <= μ/2; it grows without bound as α -> 0 either way.",
    ),
)
