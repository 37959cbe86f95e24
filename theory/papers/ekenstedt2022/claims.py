"""Claims of Ekenstedt et al. (Ekenstedt et al. 2022): Lemmas 1-3, Theorems 1-5, Sec. III.B, Def. 4.

Each Lemma item and Theorem item is its own claim. Where the extraction's arrow glyph is
the "generalisation" arrow of Def. 3 (it renders as "⇏", see papers/README.md) the proof
says which relation is meant; a generalisation "A gen B" (A ⇒ B but B ⇏ A) is registered
as two claims, ``...a`` (the implication) and ``...b`` (the non-implication).

A claim's ``sizes = (premise size, conclusion size)`` gives the subset/class size each
side of an implication is taken at (``None`` for definitions without one); it is how the
implication graph (:mod:`theory.answers.graph`) matches parameters along a path.

References
----------
Ekenstedt et al. 2022, Sec. III-IV and Appendix A-G.
"""

from __future__ import annotations

import sympy

from theory.claims.claim import Assumption, Claim, NotImplies, equation
from theory.definitions import N, eps, eps1, k, k0, k1, k_dp, k_t, t, t1
from verifier.references import Source

__all__ = ["CLAIMS"]

_P = "Ekenstedt et al. 2022"

_f = sympy.Function("f")
_T = sympy.exp(eps)


def _sym(name: str) -> sympy.Symbol:
    return sympy.Symbol(name)


def _src(section: str, item: str) -> Source:
    return Source(_P, section, item)


CLAIMS: tuple[Claim, ...] = (
    Claim(
        "ekenstedt2022:lemma1",
        _src("III.B", "Lemma 1"),
        "implication",
        "ldp",
        "multiplicative_t_closeness",
        equation(t, _f(eps, N, k)),
        (sympy.Ge(N, 2 * k),),
        note="Stated without f (cited from Domingo-Ferrer & Soria-Comas 2015). Existence is checked by exhibiting the tight f "
        "of Domingo-Ferrer & Soria-Comas 2015, Prop. 1 (corrected), t = (k + (N-k) e^ε)/N with k the smallest class size.",
        sizes=(None, k),
    ),
    Claim(
        "ekenstedt2022:thm1",
        _src("IV", "Theorem 1"),
        "non_implication",
        "multiplicative_t_closeness",
        "ldp",
        NotImplies(_sym("multiplicative_t_closeness"), _sym("ldp")),
        (sympy.Ge(N, 3),),
        note="Witness: Table III (classes {μ, μ}, {σ, 2μ-σ}); t = 1 for every σ while the LDP "
        "ratio grows like 2μ/σ. The paper's own exception (all classes singletons) is claim "
        "ekenstedt2022:thm1_exception.",
        sizes=(k, None),
    ),
    Claim(
        "ekenstedt2022:thm1_exception",
        _src("IV", "remark after Theorem 1"),
        "implication",
        "multiplicative_t_closeness",
        "ldp",
        equation(eps, sympy.log(t**2)),
        (Assumption(_sym("singleton_classes")),),
        note="With every class a single record, multiplicative t-closeness is (1,t)-closeness and "
        "Theorem 2 gives ln(t^2)-LDP.",
        sizes=(sympy.Integer(1), None),
    ),
    Claim(
        "ekenstedt2022:thm1_exception_kt",
        _src("IV", "remark after Theorem 1: singleton classes"),
        "implication",
        "multiplicative_t_closeness",
        "kt_closeness",
        equation(t1, t),
        (Assumption(_sym("singleton_classes")),),
        note="With every class a single record, multiplicative t-closeness is (1,t)-closeness at the same t "
        "(the class averages are the records' probabilities). At N = 2 a smallest class of 1 makes both classes "
        "singletons.",
        sizes=(sympy.Integer(1), sympy.Integer(1)),
    ),
    Claim(
        "ekenstedt2022:lemma2_1",
        _src("IV.A", "Lemma 2(1)"),
        "implication",
        "kt_closeness",
        "kt_closeness",
        equation(t1, t),
        (sympy.Ge(k1, k0),),
        note="The average of the k largest (smallest) probabilities does not increase (decrease) "
        "as k grows.",
        sizes=(k0, k1),
    ),
    Claim(
        "ekenstedt2022:lemma2_2",
        _src("IV.A", "Lemma 2(2)"),
        "non_implication",
        "kt_closeness",
        "kt_closeness",
        NotImplies(_sym("kt_closeness(k_0)"), _sym("kt_closeness(k_1)")),
        (sympy.Lt(k1, k0),),
        note="Witness: Table IV (k-1 zeros); every smaller subset can be all zeros. Table IV's "
        "caption t = N-k+1 is wrong (claim ekenstedt2022:table4).",
        sizes=(k0, k1),
    ),
    Claim(
        "ekenstedt2022:lemma2_3a",
        _src("IV.A", "Lemma 2(3), implication half (generalisation glyph; Appendix B)"),
        "implication",
        "kt_closeness",
        "multiplicative_t_closeness",
        equation(t1, t),
        (sympy.Ge(k1, k0),),
        note="(k_0,t)-closeness bounds every class of size >= k_0, so multiplicative t-closeness "
        "with smallest class k_1 >= k_0 holds at the same t.",
        sizes=(k0, k1),
    ),
    Claim(
        "ekenstedt2022:lemma2_3b",
        _src("IV.A", "Lemma 2(3), non-implication half (Appendix B, Table V)"),
        "non_implication",
        "multiplicative_t_closeness",
        "kt_closeness",
        NotImplies(_sym("multiplicative_t_closeness"), _sym("kt_closeness")),
        (),
        corrected=NotImplies(_sym("multiplicative_t_closeness"), _sym("kt_closeness"), sympy.Le(k1, N - 2)),
        note="Printed for every k; fails for k = N-1: with at least two classes each of average "
        ">= μ/t, removing one record keeps mass >= k_1 μ/t, so multiplicative t-closeness with "
        "smallest class k_1 implies (N-1, max((N-1)t/k_1, N/(N-1)))-closeness. Holds for k <= N-2.",
        sizes=(k0, k1),
    ),
    Claim(
        "ekenstedt2022:lemma2_3c",
        _src("IV.A", "Lemma 2(3) at k = N-1: the implication found when correcting ekenstedt2022:lemma2_3b"),
        "implication",
        "multiplicative_t_closeness",
        "kt_closeness",
        equation(t1, sympy.Max((N - 1) * t / k1, N / (N - 1))),
        (sympy.Ge(N, 3), sympy.Le(2 * k1, N)),
        note="Not printed in Ekenstedt et al. 2022 (derived here): every class has average >= μ/t and at least two "
        "classes exist, so removing one record leaves mass >= k_1 μ/t. Read through Theorem 4(1) "
        "and Lemma 3(3) it says multiplicative t-closeness implies (global) ε-DP.",
        sizes=(k1, N - 1),
    ),
    Claim(
        "ekenstedt2022:lemma2_4",
        _src("IV.A", "Lemma 2(4)"),
        "implication",
        "kt_closeness",
        "kt_closeness",
        equation(t1, t),
        (equation(k1, k0),),
        note="Monotonicity in t (Ekenstedt et al. 2022, Def. 1): a table (k,t_0)-close is (k,t_1)-close for t_1 >= t_0.",
        sizes=(k0, k1),
    ),
    Claim(
        "ekenstedt2022:thm2a",
        _src("IV.A", "Theorem 2, first item"),
        "implication",
        "kt_closeness",
        "ldp",
        equation(eps, sympy.log(t**2)),
        (),
        note="μ/t <= Pr(Z(c_i)) <= tμ for every record gives a ratio <= t^2 (Appendix C).",
        sizes=(sympy.Integer(1), None),
    ),
    Claim(
        "ekenstedt2022:thm2b",
        _src("IV.A", "Theorem 2, second item"),
        "implication",
        "ldp",
        "kt_closeness",
        equation(t, (_T * (N - 1) + 1) / N),
        (sympy.Ge(N, 2),),
        note="Tight: one record at the low end of the LDP range, the others at the high end.",
        sizes=(None, sympy.Integer(1)),
    ),
    Claim(
        "ekenstedt2022:thm3a",
        _src("IV.A", "Theorem 3, first item"),
        "implication",
        "ldp",
        "kt_closeness",
        equation(t, k / N * (1 + (N - k - 1) / k * _T)),
        (sympy.Gt(k, 1), sympy.Lt(k, N)),
        corrected=equation(t, (k + (N - k) * _T) / N),
        note="Printed (N-k-1)/k is too small by e^ε/N (with k = 1 it contradicts Theorem 2; with "
        "k = N-1 it gives t < 1); it fails for every N, k and ε, since the bound below is attained. Tight bound from the direction Pr_D/Pr_K with K at the low end "
        "of the LDP range and the other N-k records at the high end.",
        sizes=(None, k),
    ),
    Claim(
        "ekenstedt2022:thm3b",
        _src("IV.A", "Theorem 3, second item"),
        "non_implication",
        "kt_closeness",
        "ldp",
        NotImplies(_sym("kt_closeness"), _sym("ldp")),
        (sympy.Gt(k, 1),),
        note="Witness: Table VI (μ, 2μ, μ-σ, σ) is (2,2)-close for every small σ; LDP ratio 2μ/σ.",
        sizes=(k, None),
    ),
    Claim(
        "ekenstedt2022:lemma3_1",
        _src("IV.B", "Lemma 3(1)"),
        "implication",
        "k_eps_dp",
        "k_eps_dp",
        equation(eps1, eps),
        (sympy.Ge(k0, k1),),
        note="(k,ε)-DP is (N-k, e^ε)-closeness (Theorem 4(1)); then Lemma 2(1).",
        sizes=(k0, k1),
    ),
    Claim(
        "ekenstedt2022:lemma3_2",
        _src("IV.B", "Lemma 3(2)"),
        "non_implication",
        "k_eps_dp",
        "k_eps_dp",
        NotImplies(_sym("k_eps_dp(k_0)"), _sym("k_eps_dp(k_1)")),
        (sympy.Lt(k0, k1), sympy.Lt(k1, N)),
        note="Mirror of Lemma 2(2) through Theorem 4(1): N - k_1 zero records.",
        sizes=(k0, k1),
    ),
    Claim(
        "ekenstedt2022:lemma3_3",
        _src("IV.B", "Lemma 3(3)"),
        "equivalence",
        "k_eps_dp",
        "dp",
        equation(eps1, eps),
        (),
        note="Definition 8 with k = 1 is Definition 5.",
        sizes=(sympy.Integer(1), None),
    ),
    Claim(
        "ekenstedt2022:lemma3_4a",
        _src("IV.B", "Lemma 3(4), implication half (generalisation glyph; Appendix E)"),
        "implication",
        "k_eps_dp",
        "dp",
        equation(eps1, eps),
        (sympy.Ge(k, 1),),
        note="Printed '(k,ε)-DP ⇏ ε-DP' reads literally as a false non-implication; the proof "
        "shows the generalisation: (k,ε)-DP ⇒ ε-DP (Lemma 3(1)) and ε-DP ⇏ (k,ε)-DP.",
        sizes=(k, None),
    ),
    Claim(
        "ekenstedt2022:lemma3_4b",
        _src("IV.B", "Lemma 3(4), non-implication half (Appendix E, Table VII)"),
        "non_implication",
        "dp",
        "k_eps_dp",
        NotImplies(_sym("dp"), _sym("k_eps_dp")),
        (sympy.Gt(k, 1), sympy.Lt(k, N - 1)),
        note="Witness: Table VII. Its caption gives e^ε and e^ε_k (not ε, ε_k): claim ekenstedt2022:table7.",
        sizes=(None, k),
    ),
    Claim(
        "ekenstedt2022:lemma3_5",
        _src("IV.B", "Lemma 3(5)"),
        "implication",
        "k_eps_dp",
        "k_eps_dp",
        equation(eps1, eps),
        (equation(k1, k0),),
        note="Monotonicity in ε (Ekenstedt et al. 2022, Def. 1).",
        sizes=(k0, k1),
    ),
    Claim(
        "ekenstedt2022:thm4_1",
        _src("IV.C", "Theorem 4(1)"),
        "equivalence",
        "kt_closeness",
        "k_eps_dp",
        equation(eps, sympy.log(t)),
        (equation(k_dp, N - k_t),),
        note="D_{-K} ranges over all subsets of size N - k_DP: the two definitions coincide at t = e^ε.",
        sizes=(k_t, k_dp),
    ),
    Claim(
        "ekenstedt2022:thm4_2",
        _src("IV.C", "Theorem 4(2), the printed glyph read literally as ⇏"),
        "non_implication",
        "kt_closeness",
        "k_eps_dp",
        NotImplies(_sym("kt_closeness(k_t)"), _sym("k_eps_dp(k_DP)")),
        (sympy.Gt(k_dp, N - k_t),),
        note="True as printed: (k_DP,ε)-DP is (N-k_DP)-closeness with N-k_DP < k_t, and smaller "
        "subsets are not bounded (Lemma 2(2)); witness Table IV. The proof reads the item as a "
        "generalisation instead (ekenstedt2022:thm4_2a/b), which is backwards.",
        sizes=(k_t, k_dp),
    ),
    Claim(
        "ekenstedt2022:thm4_2a",
        _src("IV.C", "Theorem 4(2), implication half as read by the proof (Appendix F)"),
        "implication",
        "kt_closeness",
        "k_eps_dp",
        equation(eps, sympy.log(t)),
        (sympy.Gt(k_dp, N - k_t),),
        note="The proof reads item (2) as closeness ⇒ DP (f = ln t) and DP ⇏ closeness. Both halves "
        "are backwards: for k_DP > N - k_t, (k_DP,ε)-DP = (N-k_DP, e^ε)-closeness with "
        "N-k_DP < k_t, so DP ⇒ closeness (Lemma 2(1)) and closeness ⇏ DP (Lemma 2(2)). The "
        "literal '⇏' reading of the printed item is the true one.",
        sizes=(k_t, k_dp),
    ),
    Claim(
        "ekenstedt2022:thm4_2b",
        _src("IV.C", "Theorem 4(2), non-implication half as read by the proof (Appendix F)"),
        "non_implication",
        "k_eps_dp",
        "kt_closeness",
        NotImplies(_sym("k_eps_dp(k_DP)"), _sym("kt_closeness(k_t)")),
        (sympy.Gt(k_dp, N - k_t),),
        note="Refuted: (k_DP,ε)-DP ⇒ (k_t, e^ε)-closeness by Theorem 4(1) then Lemma 2(1).",
        sizes=(k_dp, k_t),
    ),
    Claim(
        "ekenstedt2022:thm4_3a",
        _src("IV.C", "Theorem 4(3), implication half (generalisation glyph)"),
        "implication",
        "kt_closeness",
        "k_eps_dp",
        equation(eps, sympy.log(t)),
        (sympy.Lt(k_dp, N - k_t),),
        note="Lemma 2(1) to size N - k_DP > k_t, then Theorem 4(1). The literal '⇏' reading is false.",
        sizes=(k_t, k_dp),
    ),
    Claim(
        "ekenstedt2022:thm4_3b",
        _src("IV.C", "Theorem 4(3), non-implication half"),
        "non_implication",
        "k_eps_dp",
        "kt_closeness",
        NotImplies(_sym("k_eps_dp(k_DP)"), _sym("kt_closeness(k_t)")),
        (sympy.Lt(k_dp, N - k_t),),
        note="(k_DP,ε)-DP is (N-k_DP)-closeness, which does not bound smaller subsets (Lemma 2(2)).",
        sizes=(k_dp, k_t),
    ),
    Claim(
        "ekenstedt2022:thm5",
        _src("IV.C", "Theorem 5"),
        "non_implication",
        "multiplicative_t_closeness",
        "k_eps_dp",
        NotImplies(_sym("multiplicative_t_closeness"), _sym("k_eps_dp")),
        (Assumption(_sym("dp_within_classes")),),
        corrected=NotImplies(_sym("multiplicative_t_closeness"), _sym("k_eps_dp"), sympy.Lt(k1, N - k0)),
        note="(k,ε)-DP measured inside each equivalence class, as the paper decides (Sec. IV.C). "
        "Witness: Table III, removing record 4 from E_2 leaves σ against μ. Printed for every k_DP; "
        "vacuous for k_DP >= N - k_0: no class holds more than N - k_0 records, so none can lose k_DP "
        "records and the class-wise level is 1 for every table. Holds for k_DP < N - k_0. Read globally it "
        "fails for k = 1: multiplicative t-closeness (smallest class k_1) gives e^ε <= "
        "max((N-1)t/k_1, N/(N-1)) (see ekenstedt2022:lemma2_3b).",
        sizes=(k0, k1),
    ),
    Claim(
        "ekenstedt2022:sec3b_equivalence",
        _src("III.B", "multiplicative t-closeness is stochastic t-closeness with the Def. 4 distance"),
        "equivalence",
        "stochastic_t_closeness",
        "multiplicative_t_closeness",
        equation(t1, t),
        (),
        note="Same averaged distributions; Domingo-Ferrer & Soria-Comas 2015, Prop. 2 reduces the max over all sets S to buckets.",
        sizes=(k, k),
    ),
    Claim(
        "ekenstedt2022:def4_k_anonymity",
        _src("III.B", "Definition 4 (min |E_i| = k)"),
        "implication",
        "multiplicative_t_closeness",
        "k_anonymity",
        equation(k1, k0),
        (),
        note="Multiplicative t-closeness is stated with k-anonymity: its classes have at least k records.",
        sizes=(k0, None),
    ),
)

