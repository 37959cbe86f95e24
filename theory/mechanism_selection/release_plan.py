"""Plan a randomized-response release of one attribute from its targets: Ekenstedt et al. 2022, Sec. V.C-D on data.

:func:`theory.mechanism_selection.planner.plan` compares the three mechanisms of Sec. V.C on a
frequency vector. :func:`plan_release` applies it to the counts of an attribute in an original
table and turns the chosen mechanism into the exact matrix a release is sampled from
(:class:`verifier.randomized.mechanism.Mechanism`, written as the CSV that ``anonymize rr --mechanism`` and
a policy's ``[mechanism]`` read).

The targets are a multiplicative t-closeness level ``t0`` for every subset of at least ``k``
records ((k, t)-closeness, Ekenstedt et al. 2022, Def. 7, which implies Def. 4 for every
partition whose smallest class has ``k`` records or more) and an ε-LDP level ``ε0`` (Def. 6).

Two things are decided here beyond the planner:

* **A rational e^ε.** A mechanism file holds rationals, and ``p_LDP = (e^ε - 1)/(e^ε - 1 + n)``
  is rational only when ``e^ε`` is. When ``e^ε0`` is irrational (ε0 a rational ≠ 0), the
  mechanisms are built for the largest multiple of ``10^-6`` below it, decided by sympy's
  certified evaluation; the release then meets ``ε0`` with a margin below ``10^-6 e^-ε0``.
* **What the matrix reads.** The written mechanism is the data-independent optimum by default; with
  ``data_dependent`` the audience's optimum on the counts (its file says it may disclose them); with
  ``estimate_epsilon`` the auditor's optimum on a differentially private estimate of the counts
  (:mod:`theory.mechanism_selection.estimate`), whose ε composes with the mechanism's
  (:attr:`ReleasePlan.composed_epsilon`). The file's data mark says which
  (:mod:`verifier.randomized.data_mark`).
* **Refusal.** Every (t0, ε0) is met by a mechanism that releases noise independent of the
  data (keep-probability 0), which is no release at all. When that is the only mechanism that
  meets the targets, :func:`plan_release` raises :class:`InfeasibleTargets` naming the bound
  that forces it: ``t0 = 1`` (Thm. 3 corrected gives ``e^ε_t = 1`` and eq. (2) corrected
  ``p_t = 0``) or ``ε0 = 0`` (eq. (1) corrected gives ``p_LDP = 0``).

References
----------
Ekenstedt et al. 2022, Sec. V.C-D, Defs. 4, 6, 7, Thm. 3 (corrected), eqs. (1), (2), (4).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import sympy

from theory.mechanism_selection.estimate import Draws, HistogramEstimate, estimate_histogram
from theory.mechanism_selection.matrices import Exact, exact
from theory.mechanism_selection.optimal import Optimum, Prior, Reading, measure, optimal_mechanism
from theory.mechanism_selection.planner import Choice, Plan, at_most, implied_t, plan
from verifier.display import exact_text, readable
from verifier.errors import PolicyError
from verifier.escape import safe
from verifier.named_inputs import Input, Said
from verifier.policy import Requirement
from verifier.randomized.data_mark import DataKind, DataMark
from verifier.randomized.mechanism import Mechanism

__all__ = ["Targets", "Data", "DISCLOSURE", "HEADER", "PlanRow", "Certification", "ReleasePlan", "InfeasibleTargets", "PAPER_DATA", "plan_release", "estimate_optimum", "rational_ratio_below", "targets_of",
           "RATIO_DIGITS", "RATIO_CAP", "MAX_VALUES"]

RATIO_DIGITS = 6
"""An irrational ``e^ε0`` (ε0 ≥ 1/10) is replaced by the largest multiple of ``10^-RATIO_DIGITS`` below it."""
RATIO_CAP = 10**12
"""The largest ``e^ε`` planned for: ε0 above ``ln(RATIO_CAP)`` is planned as ``e^ε = RATIO_CAP``."""
RATIO_CAP_EPSILON = sympy.log(RATIO_CAP)
MAX_VALUES = 100
"""The most values a plan is made for: each mechanism is an exact n×n sympy matrix (40 values take about 10 s), and
the three optima are linear programs of about 3n² variables (100 values take about 40 s)."""


class InfeasibleTargets(PolicyError):
    """No mechanism of Ekenstedt et al. 2022, Sec. V.C meets the targets with a release that depends on the data."""


@dataclass(frozen=True)
class Targets:
    """What a release must guarantee.

    Attributes
    ----------
    t0
        Multiplicative t-closeness for every subset of at least ``k`` records (Def. 7), ``>= 1``.
    eps0
        ε-LDP (Def. 6), ``>= 0``: a ``Rational``, ``log(Rational)`` or ``oo`` (no requirement).
    k
        The smallest subset (or class) size ``t0`` is required for, ``1 <= k < N``.
    """

    t0: sympy.Expr
    eps0: sympy.Expr
    k: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"t0": exact_text(self.t0), "eps0": exact_text(self.eps0), "k": self.k}


Data = DataKind
"""What a mechanism's matrix is computed from besides ``n``, ``N``, ``k`` and the targets: nothing, the original's
value frequencies written into it (Fig. 5), or the original's counts through an optimization; the written
mechanism's file carries it as its data mark (:mod:`verifier.randomized.data_mark`)."""
PAPER_DATA: dict[str, Data] = {"ldp": "independent", "tclo+ldp": "histogram", "tclo": "histogram"}
"""What each of the paper's mechanisms is computed from: Fig. 5 draws from the original's empirical distribution."""

DISCLOSURE: dict[Data, str] = {
    "independent": "data-independent: a function of n, N, k and the targets only",
    "histogram": "publishes the original's histogram: the matrix holds the value frequencies p_y (Fig. 5)",
    "counts": "computed from the original's value counts: the matrix may disclose them",
    "estimate": "computed from a differentially private estimate of the original's histogram: the estimate's ε adds "
                "to the release's",
}
"""What each kind of mechanism discloses through its matrix (which the certificate carries)."""

HEADER = ("mechanism", "p_t", "p_LDP", "e^eps", "t (exact)", "t (from eps)", "certified by", "matrix", "utility")
"""The columns of :meth:`PlanRow.cells`."""


@dataclass(frozen=True)
class PlanRow:
    """One mechanism of a plan: what it achieves, exactly, and who can certify it.

    Attributes
    ----------
    name
        ``ldp``, ``tclo+ldp``, ``tclo`` (Ekenstedt et al. 2022, Sec. V.C) or an optimum's name
        (:attr:`theory.mechanism_selection.optimal.Optimum.name`).
    p_t, p_ldp
        The paper's keep-probabilities (``None`` for an optimum or a stage not used).
    matrix
        The exact mechanism over the attribute's values.
    exp_epsilon
        ε-LDP over every row (Def. 6), exact: what an auditor measures on the mechanism.
    t
        The exact (k, t)-closeness level on the original (Def. 7): what a publisher-mode audit measures.
    auditor_t
        The (k, t) level ε-LDP guarantees, ``(k + (N − k) e^ε)/N`` (Thm. 3 corrected): what an
        auditor-mode audit certifies from the mechanism alone.
    meets_epsilon, meets_t, meets_auditor_t
        ``e^ε ≤ e^ε0``, ``t ≤ t0`` and ``auditor_t ≤ t0``, decided exactly.
    data
        What the matrix is computed from (:data:`DISCLOSURE`).
    utility
        eq. (4) on the original's frequencies.
    gap
        For an optimum, the proven gap to the best objective of its linear program; ``None`` otherwise.
    """

    name: str
    p_t: sympy.Expr | None
    p_ldp: sympy.Expr | None
    matrix: tuple[tuple[Fraction, ...], ...]
    exp_epsilon: sympy.Expr
    t: sympy.Expr
    auditor_t: sympy.Expr
    meets_epsilon: bool
    meets_t: bool
    meets_auditor_t: bool
    data: Data
    utility: sympy.Expr
    gap: Fraction | None = None

    @property
    def certified_by(self) -> Literal["auditor", "publisher", "neither"]:
        """``auditor`` when an auditor-mode audit certifies both targets (then a publisher-mode one does too),
        ``publisher`` when only a publisher-mode audit (with the original) can, ``neither`` otherwise."""
        if not self.meets_epsilon:
            return "neither"
        return "auditor" if self.meets_auditor_t else "publisher" if self.meets_t else "neither"

    def cells(self) -> tuple[str, ...]:
        """The row as text, one cell per column of :data:`HEADER`."""
        return (self.name, "-" if self.p_t is None else exact_text(self.p_t),
                "-" if self.p_ldp is None else exact_text(self.p_ldp), readable(self.exp_epsilon), readable(self.t),
                readable(self.auditor_t), self.certified_by, self.data, readable(self.utility))

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "p_t": _number(self.p_t), "p_ldp": _number(self.p_ldp),
                "exp_epsilon": _number(self.exp_epsilon), "epsilon": _number(sympy.log(self.exp_epsilon)),
                "t": _number(self.t), "auditor_t": _number(self.auditor_t), "meets_epsilon": self.meets_epsilon,
                "meets_t": self.meets_t, "meets_auditor_t": self.meets_auditor_t, "certified_by": self.certified_by,
                "data": self.data, "discloses": DISCLOSURE[self.data], "utility": _number(self.utility),
                "gap": None if self.gap is None else {"exact": str(self.gap), "decimal": float(self.gap)},
                "matrix": [[str(entry) for entry in row] for row in self.matrix]}


@dataclass(frozen=True)
class Certification:
    """One target of the written mechanism, and which audit mode certifies it."""

    model: str
    threshold: sympy.Expr
    level: sympy.Expr
    auditor: bool
    publisher: bool

    def line(self) -> str:
        """The requirement and who can certify it, as text."""
        who = ("an auditor-mode audit certifies it from the mechanism alone" if self.auditor else
               "only a publisher-mode audit (with the original) can certify it" if self.publisher else "not met")
        return f"{self.model} <= {exact_text(self.threshold)} (this mechanism: {readable(self.level)}): {who}"

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "threshold": exact_text(self.threshold), "level": _number(self.level),
                "auditor": self.auditor, "publisher": self.publisher}


@dataclass(frozen=True)
class ReleasePlan:
    """The mechanisms for one attribute of an original table, and the one to write.

    Attributes
    ----------
    attribute
        The attribute's name (the column to randomize).
    values, counts
        The attribute's values present in the original (sorted as text) and their counts.
    targets
        What the release must guarantee.
    exp_epsilon_bound
        The ``e^ε`` the mechanisms are built not to exceed: ``e^ε0`` when it is rational, a rational
        just below it otherwise (:func:`rational_ratio_below`), ``oo`` with no ε requirement.
    plan
        The planner's outcome on the frequencies ``counts / N`` (the paper's three mechanisms).
    audience
        Who is to certify the release: ``auditor`` (from the published mechanism alone) or ``publisher``.
    data_dependent
        Whether the written mechanism may be computed from the original's counts.
    optima
        The linear programs' optima: ``optimal`` (data-independent), ``optimal-auditor`` and
        ``optimal-publisher`` (from the counts), and with an estimate ``optimal-estimate`` (the auditor's
        optimum on the estimated frequencies), each exact and re-measured.
    rows
        The paper's three mechanisms, then the optima, as compared in the table.
    estimate
        The differentially private estimate of the counts the written mechanism is computed from (``None``: none).
    """

    attribute: str
    values: tuple[Hashable, ...]
    counts: tuple[int, ...]
    targets: Targets
    exp_epsilon_bound: sympy.Expr
    plan: Plan
    audience: Reading
    data_dependent: bool
    optima: tuple[Optimum, ...]
    rows: tuple[PlanRow, ...]
    estimate: HistogramEstimate | None = None

    @property
    def records(self) -> int:
        """``N``: the number of records."""
        return sum(self.counts)

    @property
    def header(self) -> tuple[str, ...]:
        """The table's columns (:data:`HEADER`), one per cell of :meth:`PlanRow.cells`."""
        return HEADER

    @property
    def rounded(self) -> bool:
        """Whether ``e^ε0`` is irrational and the mechanisms are built for a rational below it."""
        return self.exp_epsilon_bound != sympy.oo and self.exp_epsilon_bound != sympy.exp(self.targets.eps0)

    @property
    def disclosure(self) -> str:
        """What the written mechanism's matrix discloses (:data:`DISCLOSURE`)."""
        return DISCLOSURE[self.written.data]

    @property
    def solver_seconds(self) -> float:
        """The LP solver's time over the three optima."""
        return sum(optimum.seconds for optimum in self.optima)

    @property
    def paper_best(self) -> Choice:
        """The most useful of the paper's choices that meets both targets (:func:`plan_release` guarantees one)."""
        assert self.plan.best is not None
        return self.plan.best

    @property
    def written(self) -> PlanRow:
        """The mechanism the plan writes: the audience's optimum, data-independent unless :attr:`data_dependent`;
        with an :attr:`estimate`, the optimum computed from it."""
        if self.estimate is not None:
            return self.row("optimal-estimate")
        name = "optimal" if not self.data_dependent else f"optimal-{self.audience}"
        return self.row(name)

    @property
    def estimate_bound(self) -> Fraction | None:
        """With an :attr:`estimate`: ``e^ε_M``, the ε-LDP bound every mechanism the estimate can give meets (the
        auditor's ``min(e^ε0, e^ε_t)``: the constraints of its program do not depend on the estimate)."""
        return next((optimum.ratio for optimum in self.optima if optimum.prior == "estimate"), None)

    @property
    def composed_epsilon(self) -> sympy.Expr | None:
        """With an :attr:`estimate`: the release's ε against the original, ``ε_M + ε_E`` (sequential composition,
        ``privcert:estimate_composition``; :attr:`estimate_bound` is ``e^ε_M``); ``None`` without one."""
        bound = self.estimate_bound
        if self.estimate is None or bound is None:
            return None
        return sympy.logcombine(sympy.log(sympy.Rational(bound.numerator, bound.denominator)) + self.estimate.epsilon,
                                force=True)

    def row(self, name: str) -> PlanRow:
        """The row called ``name``."""
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(f"no mechanism {name!r}; the plan has {[row.name for row in self.rows]}")

    def requirements(self) -> tuple[Certification, ...]:
        """The targets of the written mechanism and which audit mode certifies each."""
        written, out = self.written, []
        if self.targets.eps0 != sympy.oo:
            out.append(Certification("ldp", self.targets.eps0, sympy.log(written.exp_epsilon), written.meets_epsilon,
                                    written.meets_epsilon))
        out.append(Certification(f"kt_closeness (k = {self.targets.k})", self.targets.t0,
                                written.auditor_t if written.meets_auditor_t else written.t, written.meets_auditor_t,
                                written.meets_t))
        return tuple(out)

    def lines(self) -> tuple[str, ...]:
        """The plan's summary as text: the data, the targets, the bounds used, who the plan is for."""
        targets = self.targets
        values = ", ".join(f"{safe(str(value))} {count}" for value, count in zip(self.values, self.counts))
        lines = [
            f"plan for {safe(self.attribute)}: N = {self.records} records, values {values}",
            f"targets: t0 = {exact_text(targets.t0)} for every subset of >= {targets.k} records, "
            f"eps0 = {readable(targets.eps0)}",
            f"e^eps_t = (t0*N - k)/(N - k) = {readable(self.plan.exp_epsilon_t)}: the e^eps whose LDP implies t0 "
            "(Ekenstedt et al. 2022, Thm. 3 corrected)",
        ]
        if self.rounded:
            lines.append(f"e^eps0 is irrational: the mechanisms are built for e^eps <= {readable(self.exp_epsilon_bound)}")
        lines.append(f"for: {self.audience}" + (" (certifies from the published mechanism alone)"
                                                if self.audience == "auditor" else " (audits with the original)"))
        if self.estimate is not None:
            noisy = ", ".join(f"{safe(str(value))} {count}" for value, count in zip(self.values, self.estimate.counts))
            lines.append(f"estimate: eps_E = {readable(self.estimate.epsilon)} spent on the counts (two-sided geometric "
                         f"noise, ratio {self.estimate.alpha}, clamped to [0, N]): {noisy}")
            lines.append(f"the release with its mechanism: eps = {readable(self.composed_epsilon)} for each of the "
                         f"original's records (eps_M + eps_E, eps_M = ln({self.estimate_bound}) the bound of every "
                         "mechanism the estimate can give; sequential composition, privcert:estimate_composition)")
        return tuple(lines)

    def mechanism(self, choice: Choice | PlanRow | None = None) -> Mechanism:
        """The exact matrix of ``choice`` (default: the written one) over the attribute's values."""
        if isinstance(choice, Choice):
            rows = tuple(tuple(_fraction(entry) for entry in choice.matrix.row(i)) for i in range(choice.matrix.rows))
            parameters = ", ".join(f"{name}={exact_text(value)}" for name, value in (("p_t", choice.p_t),
                                                                                   ("p_LDP", choice.p_ldp))
                                   if value is not None)
            return Mechanism(self.values, self.values, rows, f"planned {choice.name} randomized response ({parameters})",
                             DataMark(PAPER_DATA[choice.name]))
        picked = self.written if choice is None else choice
        mark = DataMark("estimate", self.estimate.epsilon) if picked.data == "estimate" and self.estimate is not None \
            else DataMark(picked.data)
        return Mechanism(self.values, self.values, picked.matrix,
                         f"planned {picked.name} mechanism ({DISCLOSURE[picked.data]})", mark)

    def to_json(self) -> dict[str, Any]:
        """The plan as JSON: exact values as text (``exact_text``) beside their decimals."""
        return {
            "attribute": self.attribute,
            "N": self.records,
            "values": [{"value": str(v), "count": c} for v, c in zip(self.values, self.counts)],
            "targets": self.targets.to_json(),
            "for": self.audience,
            "data_dependent": self.data_dependent,
            "exp_epsilon_bound": _number(self.exp_epsilon_bound),
            "exp_epsilon_t": _number(self.plan.exp_epsilon_t),
            "epsilon_t": _number(self.plan.epsilon_t),
            "mechanisms": [row.to_json() for row in self.rows],
            "paper_chosen": self.paper_best.name,
            "chosen": self.written.name,
            "requirements": [item.to_json() for item in self.requirements()],
            "optima": [optimum.to_json() for optimum in self.optima],
            "estimate": None if self.estimate is None else {**self.estimate.to_json(),
                                                            "composed_epsilon": _number(self.composed_epsilon)},
        }


def _number(value: sympy.Expr | None) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"exact": exact_text(value), "decimal": None if value == sympy.oo else float(value.evalf(17))}


def _fraction(entry: sympy.Expr) -> Fraction:
    if not entry.is_Rational:
        raise ArithmeticError(f"a planned mechanism entry is not rational: {entry}")
    return Fraction(int(entry.p), int(entry.q))


def rational_ratio_below(eps0: sympy.Expr) -> sympy.Expr:
    """The ``e^ε`` a mechanism file can hold for a target ε0: ``e^ε0`` itself when rational.

    Otherwise the largest multiple of ``10^-d`` below it, ``d = 6`` for ``ε0 ≥ 1/10`` and one more digit
    per decade below (``d = 6 + ⌈−log10 ε0⌉ − 1``), so that the ε built for is within a relative
    ``10^-5`` of ε0 however small ε0 is (sympy's ``floor`` evaluates with certified precision;
    ``e^ε0`` is irrational there, so never a multiple of ``10^-d``; a rational ε0 is evaluated as mpmath's
    outward-rounded interval, whose lower end is below ``e^ε0`` whatever its size). An ``e^ε0`` above
    :data:`RATIO_CAP` is planned as ``RATIO_CAP`` (a stricter target, which no release's utility can tell apart).

    >>> rational_ratio_below(sympy.log(5)), rational_ratio_below(sympy.Rational(1, 2))
    (5, 1648721/1000000)
    >>> rational_ratio_below(sympy.Rational(1, 10**7))
    10000001/10000000
    """
    if eps0 == sympy.oo:
        return sympy.oo
    if bool(eps0 > RATIO_CAP_EPSILON):
        return sympy.Integer(RATIO_CAP)
    ratio = sympy.simplify(sympy.exp(eps0))
    if ratio.is_Rational:
        return ratio
    digits = RATIO_DIGITS + max(0, int(sympy.ceiling(-sympy.log(eps0, 10))) - 1) if bool(eps0 > 0) else RATIO_DIGITS
    grid = 10**digits
    if eps0.is_Rational:
        return sympy.Rational(math.floor(_exp_lower(Fraction(int(eps0.p), int(eps0.q)), digits) * grid), grid)
    below = sympy.Rational(sympy.floor(ratio * grid), grid)
    if not bool(below < ratio):
        raise ArithmeticError(f"cannot place e^{exact_text(eps0)} above {below}")
    return below


def _exp_lower(value: Fraction, digits: int) -> Fraction:
    """A rational at most ``e^value`` and within ``10^-(digits+10)`` of it, relatively: the lower end of mpmath's
    interval evaluation (outward rounding at a precision covering ``e^value``'s integer digits and ``digits``)."""
    from mpmath import iv

    saved = iv.prec
    iv.prec = int(abs(value) * 2) + 4 * (digits + 10) + 64
    try:
        interval = iv.exp(iv.mpf(value.numerator) / iv.mpf(value.denominator))
    finally:
        iv.prec = saved
    sign, mantissa, exponent, _ = interval._mpi_[0]  # the lower end as mpmath's raw (sign, man, exp, bc)
    return (-1) ** int(sign) * Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def _targets(t0: Exact, eps0: Exact, k: int, records: int) -> Targets:
    target_t = exact(t0, "t0")
    target_eps = sympy.oo if eps0 is sympy.oo or eps0 == sympy.oo else exact(eps0, "eps0")
    if not target_t.is_finite or bool(target_t < 1):
        raise PolicyError(f"t0 must be a finite number >= 1 (multiplicative t-closeness), found {exact_text(target_t)}")
    if bool(target_eps < 0):
        raise PolicyError(f"eps0 must be >= 0 (ε-LDP), found {exact_text(target_eps)}")
    if not 1 <= k < records:
        raise PolicyError(f"k must satisfy 1 <= k < N = {records} records (Ekenstedt et al. 2022, Def. 7), found k = {k}")
    return Targets(target_t, target_eps, k)


def _refusal(result: Plan, targets: Targets, ratio: sympy.Expr) -> str | None:
    """Why the targets admit only a release independent of the data, or ``None``."""
    if len(result.frequencies) < 2:
        return None
    best = result.best
    if best is not None and any(best.matrix.row(i) != best.matrix.row(0) for i in range(1, best.matrix.rows)):
        return None
    reasons = []
    if targets.t0 == 1:
        reasons.append(f"t0 = 1: ε-LDP implies it only at e^ε ≤ (t0·N − k)/(N − k) = {exact_text(result.exp_epsilon_t)} "
                       "(Ekenstedt et al. 2022, Thm. 3 corrected), and the t-closeness mechanism (Fig. 5) keeps "
                       "a value with p_t ≤ 1 − 1/t0 = 0 (eq. (2) corrected)")
    if ratio == 1:
        reasons.append(f"eps0 = {exact_text(targets.eps0)}: the ε-LDP mechanism (Fig. 4) keeps a value with "
                       "p_LDP = (e^ε − 1)/(e^ε − 1 + n) = 0 (eq. (1) corrected), and so does every mechanism it ends")
    if not reasons:
        reasons.append("no mechanism of Ekenstedt et al. 2022, Sec. V.C meets both targets: "
                       + "; ".join(f"{c.name}: t ≤ {readable(c.t)}, e^ε = {readable(c.exp_epsilon)}" for c in result.choices))
    return ("no release that depends on the data meets these targets; the only mechanisms that do release "
            "noise independent of the true values (utility max p_y, a guess of the commonest value): "
            + "; ".join(reasons))


def plan_release(
    counts: Mapping[Hashable, int], t0: Exact, eps0: Exact, k: int = 1, *, attribute: str = "",
    audience: Reading = "auditor", data_dependent: bool = False, estimate_epsilon: Exact | None = None,
    draws: Draws | None = None,
) -> ReleasePlan:
    """Choose the randomized-response mechanism for an attribute with these counts (Ekenstedt et al. 2022, Sec. V.C).

    Parameters
    ----------
    counts
        The number of records holding each value of the attribute in the original table
        (values with count 0 are dropped).
    t0
        Required (k, t)-closeness level, ``>= 1`` (Def. 7; it implies Def. 4 for classes of ``>= k``).
    eps0
        Required ε-LDP level (``Rational``, ``log(Rational)``, or ``sympy.oo`` for none).
    k
        The subset size ``t0`` is required for; 1 (every subset) by default.
    attribute
        The attribute's name, for messages and the JSON form.
    audience
        ``auditor`` (default): the written mechanism's targets are certified from the mechanism alone
        (auditor mode); ``publisher``: a publisher-mode audit, with the original, certifies them.
    data_dependent
        Let the written mechanism be computed from the original's counts (the audience's optimum on the
        original's frequencies; its matrix may disclose them). By default it is the data-independent optimum.
    estimate_epsilon
        Write instead the auditor's optimum on an ``estimate_epsilon``-differentially private estimate of the
        counts (:mod:`theory.mechanism_selection.estimate`): the release with its mechanism is then
        ``(ε_M + estimate_epsilon)``-DP for each of the original's records (:attr:`ReleasePlan.composed_epsilon`).
    draws
        The estimate's noise source (default: the operating system's randomness).

    Returns
    -------
    ReleasePlan
        The three mechanisms of the paper and the three optima (data-independent, auditor's and
        publisher's), each with its exact levels in both readings and its utility, and the one written.

    Raises
    ------
    PolicyError
        Bad targets (``t0 < 1``, ``eps0 < 0``, ``k`` outside ``[1, N)``), no records, or an ``estimate_epsilon``
        that is not finite and ``> 0`` or is given with ``data_dependent``.
    InfeasibleTargets
        Only a release independent of the data meets the targets; the message names the bound.

    Examples
    --------
    Ekenstedt et al. 2022, Sec. V.D's setting: ``t0 = 2``, ``N = 100``, ``k = 5``, two values of
    50 records each, ``ε0 = ε_t = ln(39/19)`` (the paper rounds it to 0.7):

    >>> result = plan_release({"a1": 50, "a2": 50}, 2, sympy.log(sympy.Rational(39, 19)), 5)
    >>> result.paper_best.name, result.paper_best.p_ldp, result.paper_best.utility
    ('ldp', 10/29, 39/58)
    >>> result.written.name, result.written.utility, result.row("optimal-publisher").utility
    ('optimal', 39/58, 39/58)
    """
    present = sorted(((value, int(count)) for value, count in counts.items() if count), key=lambda item: str(item[0]))
    if any(count < 0 for _, count in present):
        raise PolicyError(f"{attribute or 'the attribute'}: counts must be >= 0, found {dict(present)}")
    records = sum(count for _, count in present)
    if len(present) > MAX_VALUES:
        raise PolicyError(f"{attribute or 'the attribute'}: {len(present):,} distinct values; a plan compares exact "
                          f"{len(present)}×{len(present)} mechanisms and is made for at most {MAX_VALUES} values: "
                          "group the values into fewer categories first")
    if records < 2:
        raise PolicyError(f"{attribute or 'the attribute'}: a plan needs at least 2 records, found {records}")
    if audience not in ("auditor", "publisher"):
        raise PolicyError(f"the plan's audience must be 'auditor' or 'publisher', found {audience!r}")
    targets = _targets(t0, eps0, k, records)
    spent = _estimate_epsilon(estimate_epsilon, data_dependent)
    ratio = rational_ratio_below(targets.eps0)
    frequencies = [sympy.Rational(count, records) for _, count in present]
    result = plan(targets.t0, sympy.oo if ratio == sympy.oo else sympy.log(ratio), records, k, frequencies)
    refusal = _refusal(result, targets, ratio)
    if refusal is not None:
        raise InfeasibleTargets(f"{attribute or 'the attribute'}: {refusal}")
    values, numbers = tuple(v for v, _ in present), tuple(c for _, c in present)
    target_t = _rational_below(targets.t0)
    bound = None if ratio == sympy.oo else _rational(ratio)
    data = PAPER_DATA
    papers = {c.name: _matrix(c.matrix) for c in result.choices}
    readings: tuple[tuple[Reading, Prior], ...] = (("auditor", "uniform"), ("auditor", "data"), ("publisher", "data"))
    independent = [m for name, m in papers.items() if data[name] == "independent"]
    optima = tuple(optimal_mechanism(numbers, target_t, bound, k, reading, prior,
                                     list(papers.values()) if prior == "data" else independent)
                   for reading, prior in readings)
    estimate = None
    if spent is not None:
        # α = 1/r with r ≤ e^(ε_E/2) rational: one record replaced moves two counts, each by a factor ≤ 1/α
        half = _rational(rational_ratio_below(spent / 2))
        estimate = estimate_histogram(numbers, spent, 1 / half, draws)
        optima += (estimate_optimum(numbers, estimate, target_t, bound, k, independent),)
    rows = tuple(
        [_row(c.name, c.p_t, c.p_ldp, _matrix(c.matrix), data[c.name], None, numbers, targets) for c in result.choices]
        + [_row(o.name, None, None, o.matrix, "estimate" if o.prior == "estimate" else "counts" if o.data_dependent
                else "independent", o.gap, numbers, targets) for o in optima])
    return ReleasePlan(attribute, values, numbers, targets, ratio, result, audience, data_dependent, optima, rows,
                       estimate)


def estimate_optimum(counts: Sequence[int], estimate: HistogramEstimate, t0: Fraction, ratio: Fraction | None, k: int,
                     known: Sequence[Sequence[Sequence[Fraction]]] = ()) -> Optimum:
    """The auditor's optimum on an estimate's frequencies: its matrix reads ``counts`` for ``n`` and ``N`` only, so
    it is a function of the estimate (post-processing), ``n``, ``N``, ``k`` and the targets; ``known`` must be
    data-independent mechanisms too."""
    return optimal_mechanism(counts, t0, ratio, k, "auditor", "estimate", known, estimate=estimate.frequencies)


def _estimate_epsilon(value: Exact | None, data_dependent: bool) -> sympy.Expr | None:
    if value is None:
        return None
    if data_dependent:
        raise PolicyError(Said(Input("estimate_eps"), " and ", Input("data_dependent"), " exclude each other: the "
                               "written mechanism is computed either from the counts or from their differentially "
                               "private estimate"))
    spent = exact(value, "estimate_epsilon")
    if not spent.is_finite or not bool(spent > 0):
        raise PolicyError(Said(Input("estimate_eps"), " must be a finite number > 0 (the ε the estimate spends), "
                               f"found {exact_text(spent)}"))
    return spent


def _rational(value: sympy.Expr) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def _rational_below(value: sympy.Expr) -> Fraction:
    """``value`` itself when rational, else a rational at most ``10^-12`` below it (decided with certified precision)."""
    if value.is_Rational:
        return _rational(value)
    below = sympy.Rational(sympy.floor(value * 10**12), 10**12)
    if not bool(below < value):
        raise ArithmeticError(f"cannot place {exact_text(value)} above {below}")
    return _rational(below)


def _matrix(matrix: sympy.ImmutableMatrix) -> tuple[tuple[Fraction, ...], ...]:
    return tuple(tuple(_fraction(entry) for entry in matrix.row(i)) for i in range(matrix.rows))


def _row(name: str, keep_t: sympy.Expr | None, keep_ldp: sympy.Expr | None, matrix: tuple[tuple[Fraction, ...], ...],
         data: Data, gap: Fraction | None, counts: tuple[int, ...], targets: Targets) -> PlanRow:
    """A mechanism re-measured exactly in both readings (the verifier's ε-LDP over every row and (k, t) on the
    original; the (k, t) level ε-LDP guarantees), and its utility (eq. (4))."""
    records = sum(counts)
    exp_epsilon, t = (sympy.oo if value is None else sympy.Rational(value.numerator, value.denominator)
                      for value in measure(matrix, counts, targets.k))
    auditor_t = implied_t(exp_epsilon, records, targets.k)
    utility = sum((max(Fraction(counts[y], records) * matrix[y][z] for y in range(len(counts)))
                   for z in range(len(counts))), Fraction(0))
    return PlanRow(name, keep_t, keep_ldp, matrix, exp_epsilon, t, auditor_t,
                   targets.eps0 == sympy.oo or at_most(exp_epsilon, sympy.exp(targets.eps0)), bool(t <= targets.t0),
                   bool(auditor_t <= targets.t0), data, sympy.Rational(utility.numerator, utility.denominator), gap)




def targets_of(requirements: Sequence[Requirement], attribute: str, smallest_class: Callable[[], int],
               source: str = "the policy") -> tuple[sympy.Expr, sympy.Expr, int]:
    """``(t0, eps0, k)`` read from a policy's requirements on ``attribute``.

    ``ldp`` gives ``eps0`` (none: ``oo``); ``kt_closeness`` gives ``t0`` and its ``k``, or
    ``stochastic_t_closeness`` (multiplicative distance) gives ``t0`` with ``k`` the smallest
    class, ``smallest_class()`` (randomized response leaves the quasi-identifiers, hence the
    classes, as they are). Exactly one t requirement and at most one ``ldp`` are accepted.

    Raises
    ------
    PolicyError
        No t requirement on ``attribute``, or several of one kind (the message names them).
    """
    mine = [item for item in requirements if item.attribute == attribute]
    epsilons = [item for item in mine if item.model == "ldp"]
    closeness = [item for item in mine if item.model == "kt_closeness"
                 or (item.model == "stochastic_t_closeness" and item.distance in (None, "multiplicative"))]
    if len(epsilons) > 1 or len(closeness) > 1:
        several = epsilons if len(epsilons) > 1 else closeness
        raise PolicyError(f"{source}: a plan takes one ldp and one t requirement on {attribute!r}, "
                          f"found {', '.join(item.key for item in several)}")
    if not closeness:
        raise PolicyError(f"{source}: expected a kt_closeness or stochastic_t_closeness requirement on {attribute!r} "
                          f"(the t0 to plan for), found {[item.key for item in mine] or 'none'}")
    (t_item,) = closeness
    k = t_item.k if t_item.model == "kt_closeness" and t_item.k is not None else smallest_class()
    eps0 = sympy.sympify(epsilons[0].threshold) if epsilons else sympy.oo
    return sympy.sympify(t_item.threshold), eps0, int(k)
