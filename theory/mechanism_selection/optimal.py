r"""The most useful mechanism over every row-stochastic matrix that meets the targets: a linear program.

Ekenstedt et al. 2022, Sec. V compares three hand-picked mechanisms (Figs. 4-5 and their
composition). A mechanism on ``n`` values is any row-stochastic ``n × n`` matrix ``M[x, z]``, and
both targets are linear in its entries:

* **ε-LDP** (Def. 6): in every column ``z``, ``M[x, z] ≤ e^ε0 · M[w, z]``; with the column's
  largest and smallest entries as two more variables ``h_z, l_z``: ``M[x, z] ≤ h_z``,
  ``l_z ≤ M[x, z]``, ``h_z ≤ e^ε0 l_z``;
* **(k, t)-closeness** (Def. 7), as :func:`verifier.randomized.levels.kt_closeness` measures it
  on the original's ``N_x`` records of each value: with ``T_z = Σ_x N_x M[x, z]``, ``high_z(k)``
  and ``low_z(k)`` the sums of ``M[·, z]`` over the k records with the largest and the smallest
  entries, ``t ≤ t0`` iff for every column ``N high_z(k) ≤ t0 k T_z`` and ``k T_z ≤ t0 N low_z(k)``.
  ``high_z(k)`` is convex in the column and bounded above, ``low_z(k)`` concave and bounded below,
  both in the standard linear form (the dual of choosing ``k`` records with multiplicities):
  ``high_z(k) = min_τ k τ + Σ_x N_x (M[x, z] − τ)^+`` and
  ``low_z(k) = max_σ k σ − Σ_x N_x (σ − M[x, z])^+``; so ``high_z(k) ≤ b`` iff some
  ``τ, u_x ≥ 0`` have ``u_x ≥ M[x, z] − τ`` and ``k τ + Σ N_x u_x ≤ b``, and ``low_z(k) ≥ c``
  iff some ``σ, w_x ≥ 0`` have ``w_x ≥ σ − M[x, z]`` and ``k σ − Σ N_x w_x ≥ c``. The optimal
  ``τ`` and ``σ`` are entries of the column and every ``u``, ``w`` is at most 1, so all the
  variables lie in ``[0, 1]``.

**The utility** (eq. (4)) ``U(M) = Σ_z max_x f_x M[x, z]`` is convex, not linear, but its
maximum over the feasible set is the LP's: label each released value by its best guess and
merge the columns that share one. Merging adds columns; a sum of columns within ratio ``e^ε0``
is within it, ``T`` is additive, the sum of the k largest entries of a sum of columns is at most
the sum of each column's k largest and the sum of the k smallest at least the sum of each
column's k smallest, so the merged ``n × n`` matrix meets every constraint, and its diagonal
``Σ_x f_x M'[x, x]`` is ``U(M)``. Hence ``max U = max Σ_x f_x M[x, x]`` over the feasible
``n × n`` matrices (a linear objective, never above ``U``), over mechanisms with any number of
released values.

**Two readings** of the t target: the *auditor* certifies it from the mechanism alone, through the
bound ε-LDP implies (Ekenstedt et al. 2022, Thm. 3 corrected: ``t ≤ (k + (N − k) e^ε)/N``), so
the LP is ε-LDP at ``min(e^ε0, e^ε_t)`` alone; the *publisher* measures it exactly on the
original, so the LP carries both constraint families. The auditor's LP does not depend on the
data; its objective does (the original's ``f``) unless the uniform ``f`` is asked for
(``prior="uniform"``: the data-independent optimum, a function of ``n``, ``N``, ``k`` and the
targets only).

**Exactness.** The LP is solved in floating point by HiGHS (:func:`scipy.optimize.linprog`); the
solution is then made exact: every entry rationalized with a bounded denominator, each row
repaired to sum to exactly 1, and the matrix re-measured with the verifier's own exact levels
(:func:`verifier.randomized.levels.ldp`, :func:`verifier.randomized.levels.kt_closeness`); when rounding
crosses a target the solution is first mixed with the uniform mechanism (``e^ε = 1``, ``t = 1``, strictly
inside every constraint) by the smallest weight of ``0, 2^-30, 2^-20, 2^-10, 2^-4, 1`` that re-measures
within the targets; a known mechanism that meets them exactly (the paper's) is taken instead when its
objective is larger than the rounded one's. A bound above ``10^6`` is left to the exact check (the LP
without it is a relaxation). The solver's
dual values give an exact upper bound on the objective over every feasible mechanism
(Lagrangian duality, evaluated in rationals: ``Σ_x y_x − Σ_j min(0, d_j)`` with ``y`` the row-sum
duals, ``d`` the reduced costs computed exactly, every variable in ``[0, 1]``), so
``bound − objective`` is a proven optimality gap.

References
----------
Ekenstedt et al. 2022, Sec. V (Defs. 6-7, eq. (4), Thm. 3); Kairouz, Oh and Viswanath 2016 (optimal
mechanisms under LDP are linear programs); Holohan et al. 2017 (optimal randomized response).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from verifier.randomized.levels import kt_closeness, ldp, sufficient_table
from verifier.randomized.mechanism import Mechanism

__all__ = ["Reading", "Prior", "Optimum", "optimal_mechanism", "implied_ratio", "measure"]

Reading = Literal["auditor", "publisher"]
Prior = Literal["data", "uniform", "estimate"]
"""The frequencies the objective weighs the diagonal by: the original's, uniform ones, or a differentially private
estimate of the original's (:mod:`theory.mechanism_selection.estimate`)."""

_DENOMINATORS = (10**6, 10**9, 10**12)
"""Entries are rationalized with denominators up to one of these, times ``1/(e^ε0 − 1)`` and ``1/(t0 − 1)``."""
_MAX_DENOMINATOR = 10**15
_LOOSE = 10**6
"""A ratio (``e^ε0`` or ``t0``) above this is not given to the floating-point solver."""
_MIXES = (Fraction(0), Fraction(1, 2**30), Fraction(1, 2**20), Fraction(1, 2**10), Fraction(1, 2**4), Fraction(1))
"""The weights of the uniform mechanism tried, in order, to keep a rounded solution within the targets."""


def implied_ratio(t0: Fraction, records: int, k: int) -> Fraction:
    """``e^ε_t = (t0 N − k)/(N − k)``: the largest ``e^ε`` whose LDP implies ``t0`` for every k-subset (Thm. 3
    corrected; :func:`theory.mechanism_selection.planner.exp_epsilon_for_t` reads it from the claims registry)."""
    return (t0 * records - k) / (records - k)


@dataclass(frozen=True)
class Optimum:
    """The most useful mechanism for one reading of the targets, exact, with its proof of optimality.

    Attributes
    ----------
    reading
        ``auditor`` (t certified from ε alone) or ``publisher`` (t measured on the original).
    prior
        ``data``: the objective is eq. (4) on the original's frequencies; ``uniform``: on uniform
        frequencies (the mechanism then depends on ``n``, ``N``, ``k`` and the targets only); ``estimate``: on a
        differentially private estimate of them (auditor reading only: the mechanism then depends on ``n``,
        ``N``, ``k``, the targets and the estimate only).
    matrix
        The exact mechanism, rows the attribute's values, columns the released values (same order).
    ratio
        The ``e^ε`` the LP was bounded by (``None``: no ε constraint).
    exp_epsilon
        The mechanism's ε-LDP level over every row, measured exactly (Def. 6; ``None``: infinite).
    t
        Its exact (k, t)-closeness level on the original's records (Def. 7; ``None``: infinite).
    objective, bound
        The LP objective of ``matrix`` (``Σ_x f_x M[x, x]`` with the prior's ``f``) and the dual's
        exact upper bound on it over every feasible mechanism.
    utility
        eq. (4) on the original's frequencies, exact.
    mixed
        The weight of the uniform mechanism mixed in so that rounding crosses no target (0: none).
    seconds
        The solver's time (not compared, nor in the JSON form: it varies from run to run).
    """

    reading: Reading
    prior: Prior
    matrix: tuple[tuple[Fraction, ...], ...]
    ratio: Fraction | None
    exp_epsilon: Fraction | None
    t: Fraction | None
    objective: Fraction
    bound: Fraction
    utility: Fraction
    mixed: Fraction
    seconds: float = field(default=0.0, compare=False)

    @property
    def gap(self) -> Fraction:
        """``bound − objective``: no feasible mechanism beats this one's objective by more."""
        return self.bound - self.objective

    @property
    def data_dependent(self) -> bool:
        """Whether the matrix is computed from the original's value counts (and so may disclose them); one computed
        from a differentially private estimate of them is not."""
        return self.reading == "publisher" or self.prior == "data"

    @property
    def name(self) -> str:
        """``optimal`` (data-independent), ``optimal-auditor`` or ``optimal-publisher`` (from the counts), or
        ``optimal-estimate`` (from a differentially private estimate of them)."""
        if self.prior == "estimate":
            return "optimal-estimate"
        return "optimal" if not self.data_dependent else f"optimal-{self.reading}"

    def to_json(self) -> dict[str, Any]:
        def number(value: Fraction | None) -> dict[str, Any] | None:
            return None if value is None else {"exact": str(value), "decimal": float(value)}

        return {"name": self.name, "reading": self.reading, "prior": self.prior, "data_dependent": self.data_dependent,
                "matrix": [[str(entry) for entry in row] for row in self.matrix],
                "ratio": number(self.ratio), "exp_epsilon": number(self.exp_epsilon), "t": number(self.t),
                "objective": number(self.objective), "bound": number(self.bound), "gap": number(self.gap),
                "utility": number(self.utility), "mixed": number(self.mixed)}


@dataclass
class _Program:
    """An LP ``max c·x`` s.t. ``A_ub x ≤ 0``, ``A_eq x = 1``, ``0 ≤ x ≤ 1``, with exact coefficients."""

    variables: int
    objective: list[tuple[int, Fraction]]
    upper: list[list[tuple[int, Fraction]]]
    rows: list[list[int]]

    def add(self, count: int) -> int:
        first = self.variables
        self.variables += count
        return first

    def sparse(self, part: list[list[tuple[int, Fraction]]]) -> Any:
        """The constraints ``part`` as a float CSR matrix (repeated entries added)."""
        from scipy.sparse import csr_matrix

        rows = [i for i, terms in enumerate(part) for _ in terms]
        columns = [j for terms in part for j, _ in terms]
        values = [float(value) for terms in part for _, value in terms]
        return csr_matrix((values, (rows, columns)), shape=(len(part), self.variables))

    def bound(self, upper_duals: np.ndarray, row_duals: np.ndarray) -> Fraction:
        """The exact Lagrangian bound from (float) duals: valid for any ``y_ub ≥ 0``."""
        y_ub = [Fraction(max(float(-y), 0.0)) for y in upper_duals]
        y_eq = [Fraction(float(-y)) for y in row_duals]
        reduced = [Fraction(0)] * self.variables
        for j, value in self.objective:
            reduced[j] += value
        for y, terms in zip(y_ub, self.upper):
            if y:
                for j, value in terms:
                    reduced[j] -= y * value
        for y, row in zip(y_eq, self.rows):
            for j in row:
                reduced[j] -= y
        return sum(y_eq, Fraction(0)) + sum((d for d in reduced if d > 0), Fraction(0))


def _build(counts: Sequence[int], prior: Sequence[Fraction], t0: Fraction, ratio: Fraction | None, k: int,
           reading: Reading) -> _Program:
    n, records = len(counts), sum(counts)
    program = _Program(n * n, [(x * n + x, prior[x]) for x in range(n)], [], [[x * n + z for z in range(n)] for x in range(n)])

    def entry(x: int, z: int) -> int:
        return x * n + z

    if ratio is not None:
        for z in range(n):
            high = program.add(2)
            low = high + 1
            program.upper += [[(entry(x, z), Fraction(1)), (high, Fraction(-1))] for x in range(n)]
            program.upper += [[(low, Fraction(1)), (entry(x, z), Fraction(-1))] for x in range(n)]
            program.upper.append([(high, Fraction(1)), (low, -ratio)])
    if reading == "publisher":
        for z in range(n):
            tau, u = program.add(1), program.add(n)
            sigma, w = program.add(1), program.add(n)
            column = [(entry(x, z), Fraction(counts[x])) for x in range(n)]
            # N·high_z(k) ≤ t0·k·T_z with high_z(k) ≤ k τ + Σ N_x u_x, u_x ≥ M[x, z] − τ
            program.upper += [[(entry(x, z), Fraction(1)), (tau, Fraction(-1)), (u + x, Fraction(-1))] for x in range(n)]
            program.upper.append([(tau, Fraction(records * k)), *((u + x, Fraction(records * counts[x])) for x in range(n)),
                                  *((j, -t0 * k * c) for j, c in column)])
            # k·T_z ≤ t0·N·low_z(k) with low_z(k) ≥ k σ − Σ N_x w_x, w_x ≥ σ − M[x, z]
            program.upper += [[(sigma, Fraction(1)), (entry(x, z), Fraction(-1)), (w + x, Fraction(-1))] for x in range(n)]
            program.upper.append([*((j, k * c) for j, c in column), (sigma, -t0 * records * k),
                                  *((w + x, t0 * records * counts[x]) for x in range(n))])
    return program


def _solve(program: _Program) -> tuple[np.ndarray, Fraction, float]:
    from scipy.optimize import linprog

    cost = np.zeros(program.variables)
    for j, value in program.objective:
        cost[j] -= float(value)
    a_eq = program.sparse([[(j, Fraction(1)) for j in row] for row in program.rows])
    a_ub = program.sparse(program.upper) if program.upper else None
    started = time.perf_counter()
    result = linprog(cost, A_ub=a_ub, b_ub=None if a_ub is None else np.zeros(len(program.upper)),
                     A_eq=a_eq, b_eq=np.ones(len(program.rows)), bounds=(0, 1), method="highs",
                     options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    seconds = time.perf_counter() - started
    if result.status != 0:
        raise ArithmeticError(f"the LP solver failed on a problem the uniform mechanism is feasible for: {result.message}")
    upper = result.ineqlin.marginals if a_ub is not None else np.zeros(0)
    return result.x, program.bound(upper, result.eqlin.marginals), seconds


def _rationalize(x: np.ndarray, n: int, denominator: int) -> list[list[Fraction]]:
    rows = []
    for i in range(n):
        row = [Fraction(max(float(v), 0.0)).limit_denominator(denominator) for v in x[i * n:(i + 1) * n]]
        largest = max(range(n), key=lambda z: row[z])
        row[largest] += 1 - sum(row, Fraction(0))
        if row[largest] < 0:
            row = [Fraction(1, n)] * n
        rows.append(row)
    return rows


def measure(rows: Sequence[Sequence[Fraction]], counts: Sequence[int], k: int) -> tuple[Fraction | None, Fraction | None]:
    """``(e^ε over every row, (k, t) on the original)``, exactly, by the verifier's measurements (∞ as ``None``)."""
    values = tuple(range(len(counts)))
    mechanism = Mechanism(values, values, tuple(tuple(row) for row in rows), name="planned")
    table = sufficient_table([0] * len(counts), list(values), list(counts), values, 1)
    return ldp(mechanism).ratio, kt_closeness(table, mechanism, k).ratio


def _within(level: Fraction | None, bound: Fraction | None) -> bool:
    return bound is None or (level is not None and level <= bound)


def optimal_mechanism(counts: Sequence[int], t0: Fraction, ratio: Fraction | None, k: int, reading: Reading = "auditor",
                      prior: Prior = "data", known: Sequence[Sequence[Sequence[Fraction]]] = (),
                      estimate: Sequence[Fraction] | None = None) -> Optimum:
    """Solve for the most useful mechanism meeting ``t0`` (k-subsets) and ``e^ε ≤ ratio`` in one reading.

    Parameters
    ----------
    counts
        Records of each value in the original (all ``> 0``; their order is the matrix's).
    t0
        The (k, t)-closeness target, ``> 1``... or 1 (then only identical rows meet it).
    ratio
        A rational ``e^ε`` not above ``e^ε0`` (``None``: no ε target).
    k
        The subset size, ``1 <= k < N``.
    reading
        ``auditor``: ε-LDP at ``min(ratio, e^ε_t)``; ``publisher``: ε-LDP at ``ratio`` and the exact (k, t) level.
    prior
        ``data`` (the original's frequencies), ``uniform`` or ``estimate`` (``estimate``'s) in the objective.
    known
        Exact mechanisms (rows and columns in the order of ``counts``) to fall back on when one of them meets
        the targets and has a larger objective than the rounded solution (e.g. the paper's, at the boundary).
    estimate
        With ``prior="estimate"``: frequencies summing to 1, in the order of ``counts`` (a differentially private
        estimate of the original's). The auditor's matrix then reads ``counts`` only for ``n`` and ``N``.

    Returns
    -------
    Optimum
        Exact, re-measured within the targets, with its proven bound.

    Examples
    --------
    >>> best = optimal_mechanism([384, 593, 819, 204], Fraction(4), Fraction(5), 50, "auditor", "uniform")
    >>> best.matrix[0], best.exp_epsilon, best.gap < Fraction(1, 10**15)
    ((Fraction(53, 92), Fraction(13, 92), Fraction(13, 92), Fraction(13, 92)), Fraction(53, 13), True)
    """
    n, records = len(counts), sum(counts)
    if n < 1 or any(c <= 0 for c in counts) or not 1 <= k < records:
        raise ValueError(f"expected positive counts and 1 <= k < N, found counts {list(counts)}, k = {k}")
    if (prior == "estimate") != (estimate is not None) or (prior == "estimate" and reading != "auditor"):
        raise ValueError(f"expected an estimate with prior 'estimate' in the auditor's reading and only then, found "
                         f"prior {prior!r}, reading {reading!r}, estimate {estimate}")
    if estimate is not None and (len(estimate) != n or sum(estimate, Fraction(0)) != 1 or min(estimate) < 0):
        raise ValueError(f"expected {n} estimated frequencies >= 0 summing to 1, found {list(estimate)}")
    bound_ratio = ratio
    if reading == "auditor":
        implied = implied_ratio(t0, records, k)
        bound_ratio = implied if ratio is None else min(ratio, implied)
    frequencies = [Fraction(c, records) for c in counts]
    weights = frequencies if prior == "data" else list(estimate) if estimate is not None else [Fraction(1, n)] * n
    # A bound beyond _LOOSE is left out of the LP (a relaxation: its dual bound stays valid) and enforced by the
    # exact check alone, which mixing with the uniform mechanism then meets (every entry ≥ weight/n).
    program = _build(counts, weights, t0, None if bound_ratio is None or bound_ratio > _LOOSE else bound_ratio, k,
                     "auditor" if t0 > _LOOSE else reading)
    x, bound, seconds = _solve(program)
    slack = min([s for s in ((bound_ratio - 1) if bound_ratio is not None else None, t0 - 1) if s is not None and s > 0],
                default=Fraction(1))
    scale = max(1, math.ceil(1 / slack))

    def meets(rows: Sequence[Sequence[Fraction]]) -> tuple[bool, Fraction | None, Fraction | None]:
        exp_epsilon, level = measure(rows, counts, k)
        return _within(exp_epsilon, bound_ratio) and (reading == "auditor" or _within(level, t0)), exp_epsilon, level

    # The LP's solution made exact: mixed with the uniform mechanism by the smallest weight in _MIXES (0 first),
    # rounded to the smallest denominators, that re-measures within the targets (a vertex with a small exact
    # form is recovered exactly; the uniform mechanism, the last weight, always meets them).
    uniform = Fraction(1, n)
    for mixed in _MIXES:
        blend = (1 - float(mixed)) * x[:n * n] + float(mixed) / n
        for denominator in _DENOMINATORS:
            rows = (_rationalize(blend, n, min(_MAX_DENOMINATOR, denominator * scale)) if mixed < 1
                    else [[uniform] * n for _ in range(n)])
            ok, exp_epsilon, level = meets(rows)
            if ok:
                break
        if ok:
            break
    # A known mechanism that meets the targets exactly and beats the rounding (by less than the rounding's loss)
    # is taken instead: the written optimum is never below a known feasible one.
    for candidate in known:
        value = sum((weights[i] * candidate[i][i] for i in range(n)), Fraction(0))
        if value > sum((weights[i] * rows[i][i] for i in range(n)), Fraction(0)):
            fits, ratio_found, level_found = meets(candidate)
            if fits:
                rows, exp_epsilon, level, mixed = [list(row) for row in candidate], ratio_found, level_found, Fraction(0)
    objective = sum((weights[i] * rows[i][i] for i in range(n)), Fraction(0))
    utility = sum((max(frequencies[i] * rows[i][z] for i in range(n)) for z in range(n)), Fraction(0))
    return Optimum(reading, prior, tuple(tuple(row) for row in rows), bound_ratio, exp_epsilon, level, objective,
                   bound, utility, mixed, seconds)
