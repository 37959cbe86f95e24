"""Relations between the models the verifier measures, derived here (no paper states them).

Every level below is the *optimal* level the verifier measures on a count table: for a
class ``E`` and a value ``s`` of the sensitive attribute, ``q = n[E,s]/|E|`` and
``p = N_s/N`` (``N`` the counted rows). Each claim's proof is in its note; its check
(:mod:`theory.papers.derived.checks`) derives the closed form with sympy where there is one,
re-measures it with the verifier's exact measures on a seeded sample of random tables,
and measures the table that attains it (``tight``).

Proofs
------
* **δ-disclosure and multiplicative t** (``privcert:delta_to_mult``, ``privcert:mult_to_delta``).
  The verifier's δ* is ``ln max_{E, s: N_s > 0} max(q/p, p/q)`` and its multiplicative
  t over distinct values is ``max_{E, s: N_s > 0} max(q/p, p/q)``, infinite in both when
  a class lacks a value of the table: ``δ* = ln t*`` exactly. With coarser buckets the
  ratio of a bucket is a mediant of its values' ratios, so ``t*_buckets ≤ e^δ*``; the
  converse needs one bucket per value.
* **Multiplicative t and EMD** (``privcert:mult_to_emd``). Let ``A = {s : q_s ≥ p_s}``,
  ``a = P(A)`` under the table. The equal-distance EMD is the total variation
  ``TV = Q(A) - P(A) = P(A^c) - Q(A^c)``. With ``q ≤ t p`` on A: ``TV ≤ (t - 1) a``;
  with ``q ≥ p/t`` off A: ``TV ≤ (1 - a)(1 - 1/t)``. The minimum of the two is largest
  at ``a = 1/(t + 1)``: ``TV ≤ (t - 1)/(t + 1)``. Attained: table distribution
  ``(1/(t+1), t/(t+1))``, a class ``(t/(t+1), 1/(t+1))`` of weight ``≤ 1/(t+1)`` (t = 2:
  values a×3, b×6, classes {a,a,b} and {a,b×5}). The bound ``1 - 1/t`` (the minimum
  ``Σ min(p, q) ≥ Σ p/t``) also holds but is not tight for ``t > 1``.
* **EMD under the three ground distances** (``privcert:emd_le_tv``). Ordered:
  ``(1/(m-1)) Σ_{i<m} |F_Q(i) - F_P(i)|`` and each ``|F_Q(i) - F_P(i)| = |Q(S) - P(S)|`` for
  the set ``S`` of the i lowest values, at most TV: ordered EMD ≤ TV. Hierarchical
  (every leaf at height 0, the verifier's hierarchies): ``(1/(2H)) Σ_{h<H} Σ_{nodes n of
  height h} |Q(n) - P(n)|``; the nodes of one height partition the leaves, so each inner
  sum is at most ``Σ_s |q_s - p_s| = 2 TV``: hierarchical EMD ≤ TV. Both are equal to TV
  with two values (m = 2; H = 1).
* **β-likeness** (``privcert:mult_to_basic_beta``, ``privcert:enhanced_to_basic_beta``).
  β* = ``max(0, max (q - p)/p) = max(0, max q/p - 1) ≤ t - 1`` over distinct values,
  equal when the largest ratio is some ``q/p`` (not ``p/q``). Enhanced β* is the basic
  β* when finite, else infinite: basic ≤ enhanced.
* **δ over present values** (``privcert:delta_to_present``): a maximum over fewer cells.
* **Entropy and distinct l** (``privcert:entropy_to_distinct``): a distribution on
  ``d`` values has entropy at most ``ln d`` (Gibbs), so ``e^H(E) ≤ d(E)`` for every class
  and the minima obey ``l*_entropy ≤ l*_distinct``; uniform classes attain it.
* **(α,k)-anonymity and entropy** (``privcert:alpha_to_entropy``): ``H(E) = Σ q ln(1/q) ≥
  ln(1/max q) ≥ ln(1/α*)``, so ``l*_entropy ≥ 1/α*``; uniform classes attain it.
* **Recursive (c,l)-diversity and α** (``privcert:recursive_to_alpha``): for l ≥ 2 the
  tail ``r_l + … + r_m`` is at most ``|E| - r_1``, so ``r_1 ≤ c*(|E| - r_1)`` and
  ``r_1/|E| ≤ c*/(1 + c*)``: ``α* ≤ c*/(1 + c*)``, with equality for l = 2 (the tail is
  then exactly ``|E| - r_1`` and ``x ↦ x/(1+x)`` is increasing). For l = 1, ``c* = α*``.
* **k-anonymity and prosecutor risk** (``privcert:k_risk``): the verifier's risk is
  ``1/min|E|`` and k* = ``min|E|``: ``R = 1/k`` exactly.
* **Non-implications** (``privcert:emd_not_mult``, ``privcert:present_not_delta``):
  the family ``E_1 = {a×m}``, ``E_j = {a×(m-1), c}`` (j = 2..m) has EMD ≤ ``(m-1)/m²``
  and δ over present values ``ln(m/(m-1))``, both tending to 0, while ``E_1`` lacks the
  value c: multiplicative t and δ are infinite.
* **k-anonymity and EMD say nothing about DP** (``privcert:k_not_dp``, ``privcert:emd_not_dp``,
  ``privcert:k_not_ldp``, ``privcert:emd_not_ldp``): the release ``E_1 = {a×m}``,
  ``E_2 = {a×(m-1), c}`` is m-anonymous with EMD ``1/(2m)`` (the class distributions
  differ from the table's by ``1/(2m)`` on a and c), and the value c is held once:
  removing that record makes its share 0, so ε-DP (Def. 5 reading) is infinite, and
  ε-LDP is infinite on every deterministic release with two values.
* **Deterministic releases** (``privcert:deterministic_not_ldp``,
  ``privcert:deterministic_dp``). A release that publishes each record's (generalised)
  value is a probability table with 0/1 rows. Two records with different values give
  a bucket with probabilities 1 and 0: the ε-LDP ratio (Ekenstedt et al. 2022, Def. 6)
  is infinite. ε-DP in the reading of Ekenstedt et al. 2022, Def. 5 (the distribution
  of a record drawn from the release, one record removed) is not: removing one record
  of a value held ``n`` times moves its share from ``n/N`` to ``(n-1)/(N-1)``, any other
  removal from ``n/N`` to ``n/(N-1)``, so ``e^ε = max(N/(N-1), (N-1) n_min/(N (n_min-1)))``
  with two values or more (infinite when a value is held once), and ``e^ε = 1`` with one
  value (every share stays 1). The release of the records itself, as the
  output of a mechanism, differs with certainty between neighbouring data sets: that
  mechanism is not ε-DP for any finite ε.
* **Sizes** (``privcert:entropy_to_k``, ``privcert:alpha_to_k``). A class of entropy ``H``
  holds at least ``e^H`` distinct values (Gibbs), so at least ``⌈e^H⌉`` records: ``k* ≥
  ⌈l*_entropy⌉``. A class whose most frequent value has frequency ``q ≤ α`` holds at least
  ``1/q ≥ 1/α`` records: ``k* ≥ ⌈1/α*⌉``. Classes of distinct values attain both.
* **The homogeneity attack** (``machanavajjhala2007:homogeneity``; Machanavajjhala et al.
  2007, Sec. 3.1): a k-anonymous class whose records all hold one value discloses it. The
  release ``{a, a}`` (two rows, one class) is 2-anonymous with distinct l = 1; ``k`` records
  of one value are k-anonymous for every k: no k bounds l away from 1.
* **The skewness and similarity attacks** (``li2007:skewness``, ``li2007:skewness_mult``;
  Li et al. 2007, Sec. 2). l-diversity bounds how many values a class holds, not how far
  its distribution lies from the table's. Classes ``{b, c}`` and ``m`` classes ``{a×m, b}``
  are 2-diverse, and the EMD of ``{b, c}`` (every ground distance normalised to at most 1;
  equal distance: the total variation ``1 - p_b - p_c``) tends to 1 as m grows: no l bounds
  the EMD below 1 (the similarity attack: ``b`` and ``c`` may be semantically close, which
  the hierarchical distance sees and l-diversity does not). At a given N the EMD stays
  below 1, so this non-implication answers only queries without N. Classes ``{a, b}``,
  ``{a, c}`` are 2-diverse, and the first lacks ``c``: multiplicative t (and δ) is infinite
  at every N ≥ 2 with more than one class.
* **The corners** (``privcert:one_record``, ``privcert:one_class``,
  ``privcert:given_smallest_class``). With one class (k = N) every class distribution is
  the table's: multiplicative and stochastic t = 1, EMD = 0, β = 0, δ = 0 (over every value
  and over the present ones), and (k,ε)-DP measured inside the classes is measured on the
  whole table. With one record, moreover, ε-LDP compares the record with itself: ε = 0;
  ε-DP, (k,ε)-DP and (k,t)-closeness remove or choose 1 ≤ k ≤ N - 1 records and are
  undefined. The smallest class is ``k`` records on every release whose smallest class is
  ``k``: k-anonymity is k and the prosecutor risk 1/k.
"""

from __future__ import annotations

from typing import Literal

import sympy

from theory.claims.claim import Assumption, Claim, NotImplies, equation
from theory.definitions import N, alpha, beta, c, delta, ell, eps, k, k0, minimal_class_size, risk, t, t1
from verifier.references import PRIVCERT, Source

__all__ = ["CLAIMS", "emd_d", "tv", "n_min", "ONE_CLASS", "ONE_RECORD", "SINGLETON_CLASSWISE",
           "UNDEFINED_AT_ONE_RECORD", "FORCING", "IDENTICAL_RECORDS", "ONE_VALUE_WEAKEST", "Forced",
           "SINGLETONS_WEAKEST", "FINITE_WITH_A_SINGLE", "FINITE_WITH_TWO_PER_CLASS", "DETERMINISTIC_WITNESSES",
           "GROWING_N"]

emd_d = sympy.Symbol("EMD_d", nonnegative=True)
"""The EMD under the ordered or the hierarchical ground distance."""
tv = sympy.Symbol("TV", nonnegative=True)
"""The total variation distance: the EMD under the equal ground distance."""
n_min = sympy.Symbol("n_min", positive=True, integer=True)
"""The fewest records holding one value of a deterministic release."""
_l1 = sympy.Symbol("l_1", positive=True)
_beta1 = sympy.Symbol("beta_1", nonnegative=True)
_delta1 = sympy.Symbol("delta_1", nonnegative=True)
_smallest = sympy.Symbol("min|E|", positive=True, integer=True)
_DISTINCT = Assumption(sympy.Symbol("distinct_buckets"))
"""Multiplicative t measured with one bucket per value (the verifier's default)."""
_L_AT_LEAST_2 = Assumption(sympy.Symbol("recursive_l_at_least_2"))
"""Recursive (c,l)-diversity measured with l ≥ 2."""
_CLASSWISE = Assumption(sympy.Symbol("dp_within_classes"))
"""ε-DP measured inside each class (Ekenstedt et al. 2022, Sec. IV.C)."""


def _src(item: str) -> Source:
    return Source(PRIVCERT, "theory", item)


def _sym(name: str) -> sympy.Symbol:
    return sympy.Symbol(name)


ONE_CLASS: dict[str, sympy.Expr] = {
    "multiplicative_t_closeness": sympy.Integer(1), "stochastic_t_closeness": sympy.Integer(1),
    "t_closeness": sympy.Integer(0), "basic_beta_likeness": sympy.Integer(0), "enhanced_beta_likeness": sympy.Integer(0),
    "delta_disclosure": sympy.Integer(0), "delta_disclosure_present": sympy.Integer(0)}
"""The level of each definition that one class (k = N) fixes, in its own units (``privcert:one_class``)."""
ONE_RECORD: dict[str, sympy.Expr] = {**ONE_CLASS, "ldp": sympy.Integer(0)}
"""The levels one record fixes besides (``privcert:one_record``): ε-LDP compares the record with itself."""
SINGLETON_CLASSWISE: dict[str, sympy.Expr] = {"dp": sympy.Integer(0), "k_eps_dp": sympy.Integer(0)}
"""ε-DP and (k,ε)-DP measured inside classes of one record remove no record: ε = 0
(``privcert:singleton_classwise_dp``)."""
UNDEFINED_AT_ONE_RECORD: dict[str, str] = {
    "dp": "ε-DP removes one record (Ekenstedt et al. 2022, Def. 5): one record leaves no distribution",
    "k_eps_dp": "(k,ε)-DP removes 1 <= k <= N - 1 records (Ekenstedt et al. 2022, Def. 8): none with N = 1",
    "kt_closeness": "(k,t)-closeness takes subsets of 1 <= k <= N - 1 records (Ekenstedt et al. 2022, Def. 7): none with N = 1"}
"""The definitions undefined on one record, and why."""
Forced = Literal["classes", "records"]
"""What a forcing level fixes: ``classes``, every class has the table's distribution (the levels of
:data:`ONE_CLASS`); ``records``, every record has the same row (those and :data:`IDENTICAL_RECORDS`)."""
FORCING: dict[str, tuple[sympy.Expr, Forced]] = {
    "multiplicative_t_closeness": (sympy.Integer(1), "classes"), "stochastic_t_closeness": (sympy.Integer(1), "classes"),
    "t_closeness": (sympy.Integer(0), "classes"), "delta_disclosure": (sympy.Integer(0), "classes"),
    "delta_disclosure_present": (sympy.Integer(0), "classes"), "basic_beta_likeness": (sympy.Integer(0), "classes"),
    "enhanced_beta_likeness": (sympy.Integer(0), "classes"),
    "ldp": (sympy.Integer(0), "records"), "dp": (sympy.Integer(0), "records"), "k_eps_dp": (sympy.Integer(0), "records"),
    "kt_closeness": (sympy.Integer(1), "records")}
"""The premise levels that fix the release's distributions, and what they fix (``privcert:forcing_levels``):
t = 1, EMD = 0, δ = 0, β = 0 leave every class with the table's distribution; ε = 0 of ε-LDP, ε-DP and (k,ε)-DP
over the whole table and (k,t)-closeness at t = 1 leave every record with the same row."""
IDENTICAL_RECORDS: dict[str, sympy.Expr] = {
    **ONE_CLASS, "ldp": sympy.Integer(0), "dp": sympy.Integer(0), "k_eps_dp": sympy.Integer(0),
    "kt_closeness": sympy.Integer(1)}
"""The levels a release of identical records has, in every reading (``privcert:forcing_levels``)."""
ONE_VALUE_WEAKEST = frozenset({"alpha_k_anonymity", "distinct_l_diversity", "entropy_l_diversity",
                               "recursive_cl_diversity"})
"""The definitions at their weakest level on a release whose records all hold one value (α = 1, l = 1, c
infinite), which meets every forcing level: the witness of a "no" at a forcing level (``privcert:forcing_levels``)."""
SINGLETONS_WEAKEST = frozenset({"k_anonymity", "prosecutor_risk", "journalist_risk", "marketer_risk",
                                "sample_uniqueness"})
"""The definitions of the partition at their weakest level on a release of classes of one record (k = 1, R = R_J =
R_M = 1, every record unique): with one value it meets every forcing level, the witness of a "no" from a forcing
premise at a smallest class k = 1 (``privcert:forcing_levels``)."""
FINITE_WITH_A_SINGLE = frozenset({"t_closeness", "basic_beta_likeness", "delta_disclosure_present"})
"""Definitions of the released values finite on a release of two values, one of them held by a single record in
any partition (``privcert:deterministic_subsets``)."""
FINITE_WITH_TWO_PER_CLASS = frozenset({"alpha_k_anonymity", "distinct_l_diversity", "entropy_l_diversity",
                                       "delta_disclosure"})
"""Definitions of the released values at a finite level other than their weakest on a release of two values
where every class (of two records or more) holds both, the second once (``privcert:deterministic_subsets``)."""
DETERMINISTIC_WITNESSES = frozenset({
    "privcert:present_not_delta", "privcert:emd_not_mult", "privcert:k_not_dp", "privcert:k_not_ldp",
    "privcert:emd_not_dp", "privcert:emd_not_ldp", "machanavajjhala2007:homogeneity", "li2007:skewness",
    "li2007:skewness_mult"})
"""The non-implications whose witnesses are deterministic releases (one value per record); the others are
witnessed by randomized tables only, and say nothing about a query on deterministic releases."""
GROWING_N = frozenset({"li2007:skewness"})
"""Non-implications into a level that is bounded at every N (EMD < 1): witnessed only as N grows, so they
answer queries without N only."""


_MACHANAVAJJHALA = "Machanavajjhala et al. 2007"
_LI = "Li et al. 2007"

CLAIMS: tuple[Claim, ...] = (
    Claim(
        "privcert:delta_to_mult", _src("δ-disclosure ⇒ multiplicative t"), "implication",
        "delta_disclosure", "multiplicative_t_closeness", equation(t, sympy.exp(delta)), (),
        note="δ* = ln t* over distinct values; coarser buckets only lower t (mediant). The table is "
        "δ-disclosure-private exactly for δ > δ* (strict), t-close for t ≥ t*.", tight=True),
    Claim(
        "privcert:mult_to_delta", _src("multiplicative t (one bucket per value) ⇒ δ-disclosure"), "implication",
        "multiplicative_t_closeness", "delta_disclosure", equation(delta, sympy.log(t)), (_DISTINCT,),
        note="Equality of the optimal levels when every value is its own bucket.", tight=True),
    Claim(
        "privcert:delta_to_present", _src("δ-disclosure ⇒ δ over present values"), "implication",
        "delta_disclosure", "delta_disclosure_present", equation(_delta1, delta), (),
        note="The same maximum over fewer cells; equal when no class lacks a value.", tight=True),
    Claim(
        "privcert:present_not_delta", _src("δ over present values ⇏ δ-disclosure"), "non_implication",
        "delta_disclosure_present", "delta_disclosure",
        NotImplies(_sym("delta_disclosure_present"), _sym("delta_disclosure")), (),
        note="Witness family: E_1 = {a×m}, E_j = {a×(m-1), c}: present δ = ln(m/(m-1)) -> 0, δ infinite."),
    Claim(
        "privcert:mult_to_emd", _src("multiplicative t ⇒ EMD t-closeness (every ground distance)"), "implication",
        "multiplicative_t_closeness", "t_closeness", equation(t1, (t - 1) / (t + 1)), (_DISTINCT,),
        note="TV <= min((t-1)a, (1-a)(1-1/t)) <= (t-1)/(t+1) (a = 1/(t+1)); the ordered and "
        "hierarchical EMD are at most TV (privcert:emd_le_tv). The bound 1 - 1/t is valid, not tight.",
        tight=True),
    Claim(
        "privcert:emd_le_tv", _src("ordered and hierarchical EMD ≤ equal-distance EMD"), "bound",
        None, "t_closeness", sympy.Le(emd_d, tv), (),
        note="Each cumulative or per-node difference is a set's difference, at most TV; equal with two values.",
        tight=True),
    Claim(
        "privcert:emd_not_mult", _src("EMD t-closeness ⇏ multiplicative t"), "non_implication",
        "t_closeness", "multiplicative_t_closeness",
        NotImplies(_sym("t_closeness"), _sym("multiplicative_t_closeness")), (),
        note="Witness family: E_1 = {a×m}, E_j = {a×(m-1), c}: EMD <= (m-1)/m^2 -> 0 under every "
        "ground distance, multiplicative t infinite (E_1 lacks c)."),
    Claim(
        "privcert:mult_to_basic_beta", _src("multiplicative t (one bucket per value) ⇒ basic β-likeness"),
        "implication", "multiplicative_t_closeness", "basic_beta_likeness", equation(beta, t - 1), (_DISTINCT,),
        note="(q - p)/p = q/p - 1 <= t - 1; equal when the largest ratio is a q/p.", tight=True),
    Claim(
        "privcert:enhanced_to_basic_beta", _src("enhanced β-likeness ⇒ basic β-likeness"), "implication",
        "enhanced_beta_likeness", "basic_beta_likeness", equation(_beta1, beta), (),
        note="A finite enhanced β* is the basic β*.", tight=True),
    Claim(
        "privcert:entropy_to_distinct", _src("entropy l-diversity ⇒ distinct l-diversity"), "implication",
        "entropy_l_diversity", "distinct_l_diversity", equation(_l1, sympy.ceiling(ell)), (),
        note="e^H(E) <= number of values of E (Gibbs); distinct l is an integer. Attained by uniform classes.",
        tight=True),
    Claim(
        "privcert:alpha_to_entropy", _src("(α,k)-anonymity ⇒ entropy l-diversity"), "implication",
        "alpha_k_anonymity", "entropy_l_diversity", equation(ell, 1 / alpha), (),
        note="H(E) >= ln(1/max q) >= ln(1/α*). Attained by uniform classes.", tight=True),
    Claim(
        "privcert:recursive_to_alpha", _src("recursive (c,l)-diversity, l ≥ 2 ⇒ (α,k)-anonymity"), "implication",
        "recursive_cl_diversity", "alpha_k_anonymity", equation(alpha, c / (1 + c)), (_L_AT_LEAST_2,),
        note="r_1 <= c*(|E| - r_1) since the tail is at most |E| - r_1; equality for l = 2.", tight=True),
    Claim(
        "privcert:k_risk", _src("k-anonymity ⇔ prosecutor risk"), "equivalence",
        "k_anonymity", "prosecutor_risk", equation(risk, 1 / k), (),
        note="The verifier's highest prosecutor risk is 1/(smallest class).", tight=True),
    *(Claim(
        f"privcert:{short}_not_{target}", _src(f"{name} ⇏ {label} (deterministic releases)"), "non_implication",
        premise, target, NotImplies(_sym(premise), _sym(target)), (),
        note="Witness family E_1 = {a×m}, E_2 = {a×(m-1), c}, released as it is: k = m and EMD = 1/(2m) "
        "under every ground distance, while the value c is held once: ε-DP (Def. 5 reading) and ε-LDP are infinite.")
      for short, premise, name in (("k", "k_anonymity", "k-anonymity"), ("emd", "t_closeness", "EMD t-closeness"))
      for target, label in (("dp", "ε-DP"), ("ldp", "ε-LDP"))),
    Claim(
        "privcert:distinct_to_k", _src("distinct l-diversity ⇒ k-anonymity"), "implication",
        "distinct_l_diversity", "k_anonymity", equation(k, minimal_class_size("distinct_l_diversity")), (),
        note="A class holding l distinct values holds at least l records: k* >= l*. Attained by classes of "
        "distinct values. Over the attribute's counted rows: a class whose values are all left out is in no class of the attribute.",
        tight=True),
    Claim(
        "privcert:delta_to_basic_beta", _src("δ-disclosure ⇒ basic β-likeness"), "implication",
        "delta_disclosure", "basic_beta_likeness", equation(beta, sympy.exp(delta) - 1), (),
        note="(q - p)/p = q/p - 1 <= e^δ - 1 on the same cells; equal when the largest ratio is a q/p.", tight=True),
    Claim(
        "privcert:basic_beta_to_emd", _src("basic β-likeness ⇒ EMD t-closeness (every ground distance)"),
        "implication", "basic_beta_likeness", "t_closeness", equation(t1, beta / (1 + beta)), (),
        note="With A = {s : q > p}: TV = Q(A) - P(A) <= min(1 - P(A), β P(A)) <= β/(1 + β) (P(A) = 1/(1 + β)); "
        "the ordered and hierarchical EMD are at most TV (privcert:emd_le_tv).", tight=True),
    Claim(
        "privcert:dp_not_mult", _src("ε-DP ⇏ multiplicative t (Ekenstedt et al. 2022, Def. 5)"), "non_implication",
        "dp", "multiplicative_t_closeness", NotImplies(_sym("dp"), _sym("multiplicative_t_closeness")),
        (sympy.Ge(N, 3), sympy.Le(2 * k, N)),
        note="Witness (the counterexample of domingoferrer2015:prop1_dp, generalised): a class of k records that "
        "never reach bucket 0 and N - k >= 2 records (1/2, 1/2): removing one record keeps every bucket reached, "
        "so ε-DP is finite, while the class makes t infinite. At N = 2 a finite ε-DP keeps both records in every "
        "reached bucket, and t is finite."),
    Claim(
        "privcert:classwise_dp_not_mult", _src("class-wise ε-DP ⇏ multiplicative t"), "non_implication",
        "dp", "multiplicative_t_closeness", NotImplies(_sym("dp"), _sym("multiplicative_t_closeness")),
        (_CLASSWISE, sympy.Le(2 * k, N)),
        note="Inside a class of equal records no removal moves the distribution: ε = 0 class-wise, for a class "
        "of k records (0, 1) beside N - k records (1/2, 1/2), while t is infinite."),
    Claim(
        "privcert:kt_not_mult_below", _src("(k₀,t)-closeness ⇏ multiplicative t with a smallest class below k₀"),
        "non_implication", "kt_closeness", "multiplicative_t_closeness",
        NotImplies(_sym("kt_closeness(k_0)"), _sym("multiplicative_t_closeness")),
        (sympy.Lt(k, k0), sympy.Le(2 * k, N)),
        note="Witness (Table IV of Ekenstedt et al. 2022, as in Lemma 2(2)): k₀ - 1 records with probability 0 "
        "and N - k₀ + 1 with 1/2; (k₀,t)-closeness is finite (every k₀ records hold a 1/2), a class of k < k₀ "
        "zeros makes t infinite. For k >= k₀, Lemma 2(3) gives t.", sizes=(k0, k)),
    Claim(
        "privcert:deterministic_not_ldp", _src("a deterministic release is never ε-LDP"), "bound",
        None, "ldp", equation(eps, sympy.oo), (),
        note="0/1 rows with two different values: a bucket with probabilities 1 and 0 (Ekenstedt et al. 2022, "
        "Def. 6). Holds whenever two records are released with different values."),
    Claim(
        "privcert:deterministic_dp", _src("a deterministic release is never ε-DP (Ekenstedt et al. 2022, Def. 5)"),
        "bound", None, "dp", equation(eps, sympy.oo), (),
        corrected=equation(sympy.exp(eps), sympy.Piecewise(
            (sympy.Integer(1), sympy.Eq(n_min, N)), (sympy.Max(N / (N - 1), (N - 1) * n_min / (N * (n_min - 1))), True))),
        note="False in the reading of Def. 5 (a record drawn from the release, one record removed): values "
        "a, a, b, b give e^ε = 3/2. Corrected: e^ε = max(N/(N-1), (N-1) n_min/(N (n_min - 1))) with two values or "
        "more, infinite when a value is held once; e^ε = 1 when every record holds one value (n_min = N: no removal "
        "moves a share). The release of the records itself, as a mechanism's output, is never ε-DP.",
        tight=True),
    Claim(
        "privcert:entropy_to_k", _src("entropy l-diversity ⇒ k-anonymity"), "implication",
        "entropy_l_diversity", "k_anonymity", equation(k, minimal_class_size("entropy_l_diversity")), (),
        note="A class of entropy H holds at least e^H distinct values (Gibbs), so at least ⌈e^H⌉ records. "
        "Attained by classes of distinct values. Over the attribute's counted rows.", tight=True),
    Claim(
        "privcert:alpha_to_k", _src("(α,k)-anonymity ⇒ k-anonymity"), "implication",
        "alpha_k_anonymity", "k_anonymity", equation(k, minimal_class_size("alpha_k_anonymity")), (),
        note="A class whose most frequent value has frequency q <= α holds at least 1/q >= 1/α records. "
        "Attained by classes of distinct values. Over the attribute's counted rows.", tight=True),
    Claim(
        "machanavajjhala2007:homogeneity", Source(_MACHANAVAJJHALA, "3.1", "homogeneity attack"), "non_implication",
        "k_anonymity", "distinct_l_diversity", NotImplies(_sym("k_anonymity"), _sym("distinct_l_diversity")), (),
        note="A k-anonymous class whose k records hold one value discloses it: {a, a} is 2-anonymous with "
        "distinct l = 1 (and entropy l = 1, α = 1, recursive c infinite)."),
    Claim(
        "li2007:skewness", Source(_LI, "2", "skewness and similarity attacks"), "non_implication",
        "distinct_l_diversity", "t_closeness", NotImplies(_sym("distinct_l_diversity"), _sym("t_closeness")), (),
        note="Classes {b, c} and m classes {a×m, b} are 2-diverse; the EMD of {b, c} tends to 1 as m grows "
        "(equal distance: 1 - p_b - p_c). At a given N the EMD stays below 1: a query with N is not answered by it."),
    Claim(
        "li2007:skewness_mult", Source(_LI, "2", "skewness attack, multiplicative"), "non_implication",
        "distinct_l_diversity", "multiplicative_t_closeness",
        NotImplies(_sym("distinct_l_diversity"), _sym("multiplicative_t_closeness")), (sympy.Lt(k, N),),
        note="Classes {a, b}, {a, c} are 2-diverse and the first lacks c: multiplicative t is infinite; with "
        "classes {v_1}, ..., {v_N} (k = 1) l = 1 and t infinite. One class (k = N) gives t = 1."),
    Claim(
        "privcert:one_class", _src("one class (k = N)"), "bound", None, None,
        sympy.And(*(equation(sympy.Symbol(f"level_{name}"), value) for name, value in ONE_CLASS.items())), (),
        note="With one class every class distribution is the table's: t = 1 (multiplicative, stochastic), "
        "EMD = 0, β = 0, δ = 0; (k,ε)-DP inside the classes is measured on the whole table.", tight=True),
    Claim(
        "privcert:one_record", _src("one record (N = 1)"), "bound", None, None,
        sympy.And(*(equation(sympy.Symbol(f"level_{name}"), value) for name, value in ONE_RECORD.items())), (),
        note="One record is one class, and ε-LDP compares it with itself (ε = 0); ε-DP, (k,ε)-DP and "
        "(k,t)-closeness are undefined.", tight=True),
    Claim(
        "privcert:singleton_classwise_dp", _src("class-wise (k,ε)-DP with classes of one record"), "bound", None,
        "k_eps_dp", equation(eps, 0), (_CLASSWISE, Assumption(sympy.Symbol("singleton_classes"))),
        note="Measured inside each class (Ekenstedt et al. 2022, Sec. IV.C), (k,ε)-DP removes k >= 1 records from "
        "a class; a class of one record admits no removal leaving a distribution, so every class-wise level is "
        "ε = 0 (Thm. 5 is vacuous there).", tight=True),
    Claim(
        "privcert:forcing_levels", _src("levels that fix the release's distributions"), "bound", None, None,
        sympy.And(*(equation(sympy.Symbol(f"level_{name}"), value) for name, value in IDENTICAL_RECORDS.items())), (),
        note="t = 1 (multiplicative, stochastic), EMD = 0, δ = 0 and β = 0 hold only when every class has the "
        "table's distribution (each is 0 or 1 exactly when q = p in every cell), which fixes the one-class levels; "
        "ε = 0 of ε-LDP, of ε-DP and of (k,ε)-DP over the whole table, and (k,t)-closeness at t = 1 (1 <= k <= N - 1), "
        "hold only when every record has the same row (a removal, a pair or a subset that leaves the mean unchanged, "
        "for every choice of it), which also fixes ε-LDP, ε-DP and (k,ε)-DP at 0 and (k,t) at 1. A release whose "
        "records hold one value meets every forcing level, with α = 1, distinct and entropy l = 1 and recursive c "
        "infinite: it witnesses that no forcing level bounds the diversity models. In classes of one record it also "
        "has k-anonymity 1, prosecutor, journalist and marketer risk 1 and every record unique: no forcing level "
        "bounds these where the smallest class is 1.", tight=True),
    Claim(
        "privcert:deterministic_subsets", _src("subsets of a release of values"), "bound", None, None,
        sympy.And(sympy.Equivalent(sympy.Eq(sympy.Symbol("level_kt_closeness"), sympy.oo), n_min <= N - k),
                  sympy.Equivalent(sympy.Eq(sympy.Symbol("level_k_eps_dp"), sympy.oo), n_min <= k)), (),
        note="On a release of values (0/1 rows) whose rarest value is held by n_min records, (k,t)-closeness "
        "(Ekenstedt et al. 2022, Def. 7) is infinite exactly when a subset of k records can miss that value "
        "(n_min <= N - k), and (k,ε)-DP (Def. 8, read as Def. 5) exactly when a removal of k records can take all "
        "of it (n_min <= k). With two values, the second held once, t-closeness, basic β-likeness and "
        "δ-disclosure over the present values are finite in any partition (enhanced β-likeness is not: a class "
        "{b} of two records a, b raises 1/2 to 1, above -ln(1/2)); with both values in every class of two "
        "records or more (the second once in each), α < 1, distinct l = 2, entropy l > 1 and δ are finite: the "
        "witnesses of the \"no\" these give to (k,t)-closeness, (k,ε)-DP, ε-DP and ε-LDP.", tight=True),
    Claim(
        "privcert:given_smallest_class", _src("the smallest class is k"), "bound", None, "k_anonymity",
        equation(k, _smallest), (),
        note="On every release whose smallest class holds k records, k-anonymity is k and the prosecutor risk "
        "1/k: a query's k is a fact of the release.", tight=True),
)
