r"""Exact levels of a randomized release, from ``n[class, true value]`` and ``M[true value, bucket]``.

A release made by applying a mechanism Z to every record's sensitive value is measured
on the mechanism, not on one realization (Domingo-Ferrer & Soria-Comas 2015, §3, Def. 3;
Ekenstedt et al. 2022, Defs. 4-8). Every record ``i`` with true value ``v`` has
``Pr(Z(c_i) ∈ B_b) = M[v, b]``, so every level is a function of the count table
``n[E, v]`` (classes × true values, :class:`verifier.tables.counts.CountTable`, with
multiplicities: a class of 10^4 records holding 3 true values is 3 cells) and of the
matrix ``M`` (:class:`verifier.randomized.mechanism.Mechanism`).

With ``N_v`` records of true value ``v``, ``N = Σ N_v`` and ``T_b = Σ_v N_v M[v, b]``
(``Pr_D(B_b) = T_b / N``), the levels are exact ratios ``≥ 1`` (``None`` stands for ∞;
a quotient ``0/0`` is ignored, ``x/0`` with ``x > 0`` is infinite: Domingo-Ferrer &
Soria-Comas 2015, Def. 4):

* multiplicative t-closeness (Ekenstedt et al. 2022, Def. 4), equal to stochastic
  t-closeness with the distance of Domingo-Ferrer & Soria-Comas 2015, Def. 4 (single
  buckets suffice, their Prop. 2): ``max_{E,b} max(Pr_E/Pr_D, Pr_D/Pr_E)``;
* (k, t)-closeness (Ekenstedt et al. 2022, Def. 7): per bucket, the extreme k-subsets
  are the k records with the smallest and the largest ``M[v, b]`` (their Appendix B,
  ``E^k_min``, ``E^k_max``), taken from the true values sorted by ``M[v, b]`` with their
  multiplicities ``N_v``, ``O(V log V)`` per bucket and never an enumeration of subsets;
* (k, ε)-DP (Ekenstedt et al. 2022, Def. 8, with ``Q`` returning the record
  distribution, their Appendix F): removing the k largest or the k smallest;
  ε-DP (Def. 5) is k = 1 (their Lemma 3(3));
* ε-LDP (Ekenstedt et al. 2022, Def. 6): ``max_b max_{v,w} M[v,b] / M[w,b]`` over the true
  values present (publisher mode) or over every row of ``M`` (data-independent).

Every ratio is decided on integers: column ``b`` of ``M`` is scaled to integers ``A[v, b]``
over the common denominator ``L_b`` (:meth:`~verifier.randomized.mechanism.Mechanism.scaled`),
which cancels in every ratio. Screens run in float64; candidates within the rounding
margin are recomputed exactly (docs/design.md, "Screen in float64, decide exactly").

A mechanism known only between bounds (:class:`~verifier.randomized.mechanism.IntervalMechanism`:
``A_low ≤ A ≤ A_high`` over one denominator per column) is measured twice. Every ratio is a
quotient of two non-negative combinations of one column's entries (for (k,ε)-DP,
``T_b - high_b(k)`` is the sum over the other ``N - k`` records), so taking numerators from
``A_high`` and denominators from ``A_low`` gives an upper bound of each ratio and of their
maximum, and the converse a lower bound; the result carries both (``Extreme.lower``,
``Extreme.exact = False``).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Literal

import numpy as np
import pandas as pd

from verifier._exact_max import INT64_SAFE, first_by_qi, screen_margin
from verifier.errors import DataError, PolicyError
from verifier.randomized.mechanism import AnyMechanism
from verifier.tables.counts import AttributeSpec, Classes, CountTable

__all__ = [
    "Extreme",
    "Subset",
    "sufficient_table",
    "mechanism_rows",
    "multiplicative_t",
    "kt_closeness",
    "kt_curve",
    "k_eps_dp",
    "dp",
    "ldp",
]

_BLOCK_CELLS = 1 << 20

Subset = tuple[tuple[int, int], ...]
"""A multiset of records as ``(mechanism row, multiplicity)`` pairs."""

Side = Literal["class/table", "table/class", "subset/table", "table/subset", "highest/lowest"]


@dataclass(frozen=True)
class Extreme:
    """An exact ratio level ``≥ 1`` of a randomized release and what attains it.

    Attributes
    ----------
    ratio
        The level (``t``, or ``e^ε`` for the DP family) as a Fraction; ``None`` when infinite.
    bucket
        The bucket (column of ``M``) attaining it.
    side
        Which quotient attains it: ``class/table`` (``Pr_E/Pr_D``), ``table/class``,
        ``subset/table`` (``Pr_K/Pr_D``, or ``Pr_{D-K}/Pr_D`` for (k,ε)-DP),
        ``table/subset``, or ``highest/lowest`` (ε-LDP).
    cls
        The class attaining it (multiplicative t only; chosen by QI values among ties).
    subset
        The records involved, as ``(mechanism row, multiplicity)``: the k-subset of
        (k,t)-closeness, the k removed records of (k,ε)-DP, the two rows of ε-LDP.
    exact
        ``False`` for a mechanism known between bounds (:class:`~verifier.randomized.mechanism.IntervalMechanism`):
        then ``ratio`` is an upper bound of the level, ``lower`` a lower bound, and the
        witness is the one of the upper bound.
    lower
        The lower bound (``None`` = ∞); equal to ``ratio`` when ``exact``.
    """

    ratio: Fraction | None
    bucket: int
    side: Side
    cls: int | None = None
    subset: Subset = ()
    exact: bool = True
    lower: Fraction | None = None

    def __post_init__(self) -> None:
        if self.exact:
            object.__setattr__(self, "lower", self.ratio)

    @property
    def infinite(self) -> bool:
        return self.ratio is None


def sufficient_table(
    class_index: Sequence[int] | np.ndarray,
    value_index: Sequence[int] | np.ndarray,
    count: Sequence[int] | np.ndarray,
    values: Sequence[object],
    classes: int,
) -> CountTable:
    """A count table ``n[class, value]`` built directly from its cells (no rows).

    Classes are numbered ``0..classes-1`` and described by that number (column
    ``class``); cells with the same ``(class, value)`` are added. Used where the counts
    do not come from a released file (the theory package's probability tables).
    """
    m = len(values)
    keys = np.asarray(class_index, dtype=np.int64) * m + np.asarray(value_index, dtype=np.int64)
    cells, inverse = np.unique(keys, return_inverse=True)
    counts = np.bincount(inverse.ravel(), weights=np.asarray(count, dtype=np.int64)).astype(np.int64)
    keep = counts > 0
    cells, counts = cells[keep], counts[keep]
    group = Classes(
        qi=("class",),
        keys=pd.DataFrame({"class": np.arange(classes, dtype=np.int64)}),
        sizes=np.bincount(cells // m, weights=counts, minlength=classes).astype(np.int64),
    )
    return CountTable(
        spec=AttributeSpec(("value",)),
        classes=group,
        values=tuple(values),
        class_index=cells // m,
        value_index=cells % m,
        count=counts,
        sizes=group.sizes,
        totals=np.bincount(cells % m, weights=counts, minlength=m).astype(np.int64),
    )


def mechanism_rows(table: CountTable, mechanism: AnyMechanism) -> np.ndarray:
    """The row of ``M`` of each of the table's values (in the table's value order).

    Values are matched as written, with ``str`` as a fallback so that a value read as a
    number (``1``) matches a mechanism row ``"1"``.

    Raises
    ------
    DataError
        A value of the attribute is not a row of the mechanism.
    """
    index = {value: row for row, value in enumerate(mechanism.values)}
    text = {str(value): row for row, value in enumerate(mechanism.values)}
    rows = np.empty(table.m, dtype=np.int64)
    for code, value in enumerate(table.values):
        row = index.get(value, text.get(str(value)))
        if row is None:
            raise DataError(
                f"attribute {table.attribute!r}: true value {value!r} (held by {int(table.totals[code])} record(s)) "
                f"is not a row of {mechanism.name}; expected one of {list(mechanism.values)}"
            )
        rows[code] = row
    return rows


@dataclass(frozen=True)
class _Columns:
    """The data's view of ``M``: the per-row totals ``N_v`` and the scaled columns.

    ``num`` feeds the numerators of every ratio and ``den`` its denominators: both are
    ``A`` for an exact mechanism; for an interval mechanism ``(A_high, A_low)`` gives each
    ratio's upper bound and ``(A_low, A_high)`` its lower bound.
    """

    num: np.ndarray  # A[v, b], Python ints (object array), rows of M
    den: np.ndarray
    totals: np.ndarray  # N_v per row of M (int64)
    n: int
    num_totals: tuple[int, ...]  # T_b · L_b from num, exact
    den_totals: tuple[int, ...]

    @classmethod
    def of(cls, table: CountTable, mechanism: AnyMechanism, num: np.ndarray, den: np.ndarray) -> _Columns:
        rows = mechanism_rows(table, mechanism)
        totals = np.bincount(rows, weights=table.totals, minlength=len(mechanism.values)).astype(np.int64)
        weights = totals.astype(object)
        return cls(num, den, totals, int(totals.sum()),
                   tuple(int(t) for t in weights @ num), tuple(int(t) for t in weights @ den))

    @property
    def present(self) -> np.ndarray:
        return np.flatnonzero(self.totals)


_Measure = Callable[[np.ndarray, np.ndarray], Extreme]


def _bounded(mechanism: AnyMechanism, measure: _Measure) -> Extreme:
    """``measure(num, den)`` once for an exact mechanism; the upper and the lower bound otherwise."""
    low, high = mechanism.scaled_bounds
    if mechanism.exact:
        return measure(low, low)
    upper, lower = measure(high, low), measure(low, high)
    floor = None if lower.ratio is None else max(lower.ratio, Fraction(1))
    return replace(upper, lower=floor, exact=False)


def _worst(candidates: Sequence[tuple[Fraction | None, int, Side]]) -> tuple[Fraction | None, int, Side]:
    """The largest ratio (``None`` = ∞ first), ties to the smallest bucket; at least 1."""
    for ratio, bucket, side in candidates:
        if ratio is None:
            return ratio, bucket, side
    return max(candidates, key=lambda item: (item[0], -item[1]))


def _quotient(num: int, den: int) -> Fraction | None:
    """``num/den`` (``None`` = ∞ when ``den = 0``)."""
    return None if den == 0 else Fraction(num, den)


def _ratio_key(num: int, den: int) -> tuple[int, Fraction]:
    """An order on ``num/den`` with ``den = 0`` (∞) above every finite ratio, and ``0/0`` as 0 (no bucket released)."""
    if num == 0:
        return (0, Fraction(0))
    return (1, Fraction(0)) if den == 0 else (0, Fraction(num, den))


def ldp(mechanism: AnyMechanism, table: CountTable | None = None) -> Extreme:
    r"""Optimal ``e^ε`` of ε-LDP: the largest ratio of two rows' probabilities of one bucket.

    .. math:: e^{\varepsilon} = \max_b \max_{v, w} M[v, b] / M[w, b]

    over the true values present in ``table`` (publisher mode), or over every row of ``M``
    when ``table`` is ``None`` (the data-independent level an auditor can compute).

    References
    ----------
    Ekenstedt et al. 2022, Definition 6.
    """
    def measure(num: np.ndarray, den: np.ndarray) -> Extreme:
        rows = (range(len(mechanism.values)) if table is None
                else _Columns.of(table, mechanism, num, den).present.tolist())
        found: list[tuple[Fraction | None, int, Side]] = []
        subsets: dict[int, Subset] = {}
        for b in range(len(mechanism.buckets)):
            # the two largest numerators and the two smallest denominators: a row's ratio to itself is 1,
            # so the largest ratio of two different rows is among their four pairings (with bounds, the
            # same row's upper over its own lower bound would only widen the interval)
            highs = heapq.nsmallest(2, ((-int(num[v, b]), v) for v in rows))
            lows = heapq.nsmallest(2, ((int(den[v, b]), v) for v in rows))
            pairs = [(-h, hv, low, lv) for h, hv in highs for low, lv in lows if hv != lv] or \
                [(-highs[0][0], highs[0][1], lows[0][0], lows[0][1])]
            high, high_row, low, low_row = max(pairs, key=lambda p: (_ratio_key(p[0], p[2]), -p[1], -p[3]))
            if high == 0:
                continue
            found.append((_quotient(high, low), b, "highest/lowest"))
            subsets[b] = ((high_row, 1), (low_row, 1))
        ratio, bucket, side = _worst(found)
        return Extreme(ratio, bucket, side, subset=subsets[bucket])

    return _bounded(mechanism, measure)


def multiplicative_t(table: CountTable, mechanism: AnyMechanism) -> Extreme:
    r"""Optimal t of multiplicative (= stochastic) t-closeness over the table's classes.

    .. math::
        t = \max_{E,\,b:\,T_b > 0} \max\left(\frac{S_{E,b}\,N}{|E|\,T_b}, \frac{|E|\,T_b}{S_{E,b}\,N}\right),
        \qquad S_{E,b} = \sum_v n[E, v]\,A[v, b]

    Screened per block of classes in float64 (``n`` block times ``A``), decided exactly on
    the classes within the rounding margin; ties go to the class whose QI values sort first.

    References
    ----------
    Ekenstedt et al. 2022, Definition 4; Domingo-Ferrer & Soria-Comas 2015, Definitions 3-4, Proposition 2.
    """
    return _bounded(mechanism, lambda num, den: _multiplicative(table, _Columns.of(table, mechanism, num, den),
                                                                mechanism_rows(table, mechanism)))


def _multiplicative(table: CountTable, columns: _Columns, rows: np.ndarray) -> Extreme:
    reachable = np.array([t > 0 for t in columns.num_totals])
    buckets = np.flatnonzero(reachable)
    num, den = columns.num[rows][:, reachable], columns.den[rows][:, reachable]  # table value code × reachable bucket
    t_num = np.array([columns.num_totals[b] for b in buckets], dtype=object)
    t_den = np.array([columns.den_totals[b] for b in buckets], dtype=object)
    same = columns.num is columns.den  # an exact mechanism: one product per block, not two
    num_f, t_num_f, t_den_f = (a.astype(np.float64) for a in (num, t_num, t_den))
    den_f = num_f if same else den.astype(np.float64)
    sizes = np.asarray(table.sizes)
    n = columns.n

    def levels(s_num: np.ndarray, s_den: np.ndarray, size: np.ndarray | float) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            above = np.where(t_den_f > 0, s_num * n / (size * t_den_f), np.inf)
            below = np.where(s_den > 0, size * t_num_f / (s_den * n), np.inf)
        return np.maximum(above, below)

    per_class = np.full(table.classes.count, -1.0)
    width = max(table.m, int(reachable.sum()), 1)
    for start, stop, block in table.blocks(max(_BLOCK_CELLS // width, 1) * table.m):
        block_f = block.astype(np.float64)
        size = sizes[start:stop].astype(np.float64)[:, None]
        s_num = block_f @ num_f
        level = levels(s_num, s_num if same else block_f @ den_f, size)
        per_class[start:stop] = np.where(sizes[start:stop] > 0, level.max(axis=1), -1.0)
    top = float(per_class.max())
    if top < 0:
        raise DataError(f"attribute {table.attribute!r}: the table has no class with rows")
    threshold = top if np.isinf(top) else top - screen_margin(top, table.m + 4)
    close = np.flatnonzero(per_class >= threshold)
    found: list[tuple[Fraction | None, int, Side, int]] = []
    for cls, row in zip(close.tolist(), (row for _, rows in table.rows(close) for row in rows)):
        held = np.flatnonzero(row)
        counts = row[held].astype(np.float64)
        level_f = levels(counts @ num_f[held], counts @ den_f[held], float(sizes[cls]))
        for position in np.flatnonzero(level_f >= threshold).tolist():
            s_num = sum(int(row[v]) * num[v, position] for v in held)
            s_den = sum(int(row[v]) * den[v, position] for v in held)
            size_ = int(sizes[cls])
            above = _quotient(s_num * n, size_ * t_den[position])
            below = _quotient(size_ * t_num[position], s_den * n)
            b = int(buckets[position])
            if below is None or (above is not None and above < below):
                found.append((below, b, "table/class", cls))
            else:
                found.append((above, b, "class/table", cls))
    best = _worst([(r, b, side) for r, b, side, _ in found])[0]
    tied = [item for item in found if item[0] == best]
    chosen = first_by_qi(table.classes, sorted({item[3] for item in tied}))
    ratio, bucket, side, _ = min((item for item in tied if item[3] == chosen), key=lambda item: item[1])
    return Extreme(ratio, bucket, side, cls=chosen)


_KT = "(k,t)-closeness (Ekenstedt et al. 2022, Def. 7)"
_KEPS = "(k,ε)-DP (Ekenstedt et al. 2022, Def. 8)"


def _check_size(size: int, n: int, what: str) -> None:
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 1 <= size <= n - 1:
        raise PolicyError(f"{what}: expected an integer k in [1, N-1] = [1, {n - 1}], found {size!r}")


@dataclass(frozen=True)
class _Sorted:
    """One bucket's records sorted by ``A[v, b]``: rows, multiplicities, prefix counts and sums."""

    rows: np.ndarray
    weights: np.ndarray
    counts: np.ndarray  # cumulative multiplicities, int64
    sums: np.ndarray  # cumulative Σ N_v A[v, b], exact (int64 or object)

    @classmethod
    def of(cls, columns: _Columns, matrix: np.ndarray, bucket: int, descending: bool, exact: bool) -> _Sorted:
        present = columns.present
        weights = matrix[present, bucket]
        order = np.argsort(-weights if descending else weights, kind="stable")  # ties: smaller row first
        rows, weights = present[order], weights[order]
        dtype = np.int64 if exact else object
        multiplicities = columns.totals[rows]
        return cls(rows, weights.astype(dtype), np.cumsum(multiplicities),
                   np.cumsum(multiplicities.astype(dtype) * weights.astype(dtype)))

    def sum_of_first(self, ks: np.ndarray) -> np.ndarray:
        """``Σ`` of ``A[v, b]`` over the first ``k`` records in this order, for every ``k`` in ``ks``."""
        position = np.searchsorted(self.counts, ks, side="left")
        before = np.where(position > 0, self.counts[np.maximum(position - 1, 0)], 0)
        sums = np.where(position > 0, self.sums[np.maximum(position - 1, 0)], 0)
        return sums + (ks - before).astype(self.weights.dtype) * self.weights[position]

    def subset(self, k: int) -> Subset:
        """The first ``k`` records in this order, as ``(row, multiplicity)``."""
        position = int(np.searchsorted(self.counts, k, side="left"))
        taken = [(int(self.rows[i]), int(self.counts[i] - (self.counts[i - 1] if i else 0))) for i in range(position)]
        return tuple(taken + [(int(self.rows[position]), int(k - (self.counts[position - 1] if position else 0)))])


_Order = tuple[int, bool, bool]  # (bucket, descending, from num)


def _sized(columns: _Columns, ks: np.ndarray, removal: bool) -> list[Extreme]:
    """(k,t)-closeness (``removal=False``) or (k,ε)-DP (``removal=True``) for every k in ``ks``."""
    n = columns.n
    largest = max(max(columns.num_totals), max(columns.den_totals), 1)
    exact = n * n * largest * 4 < INT64_SAFE
    dtype = np.int64 if exact else object
    kk = ks.astype(dtype)
    orders: dict[_Order, _Sorted] = {}

    def order_key(b: int, descending: bool, from_num: bool) -> _Order:
        """Orders by ``num`` and by ``den`` are one order when they are the same matrix."""
        return b, descending, from_num or columns.num is columns.den

    def first(b: int, descending: bool, from_num: bool) -> np.ndarray:
        order = order_key(b, descending, from_num)
        if order not in orders:
            orders[order] = _Sorted.of(columns, columns.num if order[2] else columns.den, b, descending, exact)
        return orders[order].sum_of_first(ks)

    def total(value: int) -> np.ndarray:
        return np.full(ks.size, value, dtype=dtype) if exact else np.array([value] * ks.size, dtype=object)

    ratios: list[tuple[np.ndarray, np.ndarray, int, Side, _Order]] = []
    for b, t_num in enumerate(columns.num_totals):
        if t_num == 0:
            continue
        top, bottom = total(t_num), total(columns.den_totals[b])
        if removal:
            # Pr_D / Pr_{D-K} with the k largest removed; Pr_{D-K} / Pr_D with the k smallest removed.
            rest = n - kk
            ratios.append((top * rest, (bottom - first(b, True, False)) * n, b, "table/subset", order_key(b, True, False)))
            ratios.append(((top - first(b, False, True)) * n, bottom * rest, b, "subset/table", order_key(b, False, True)))
        else:
            # Pr_D / Pr_K with the k smallest; Pr_K / Pr_D with the k largest.
            ratios.append((top * kk, first(b, False, False) * n, b, "table/subset", order_key(b, False, False)))
            ratios.append((first(b, True, True) * n, bottom * kk, b, "subset/table", order_key(b, True, True)))
    results = []
    nums = np.array([r[0].astype(np.float64) for r in ratios])
    dens = np.array([r[1].astype(np.float64) for r in ratios])
    with np.errstate(divide="ignore", invalid="ignore"):
        approx = np.where(dens > 0, nums / dens, np.inf)
    top_ratio = approx.max(axis=0)
    for j, k in enumerate(ks.tolist()):
        margin = 0.0 if np.isinf(top_ratio[j]) else screen_margin(float(top_ratio[j]), 8)
        found: list[tuple[Fraction | None, int, Side]] = []
        keys: dict[tuple[int, Side], _Order] = {}
        for i in np.flatnonzero(approx[:, j] >= top_ratio[j] - margin).tolist():
            num, den, b, side, key = ratios[i]
            ratio = _quotient(int(num[j]), int(den[j]))
            found.append((None if ratio is None else max(ratio, Fraction(1)), b, side))
            keys[(b, side)] = key
        ratio, bucket, side = _worst(found)
        results.append(Extreme(ratio, bucket, side, subset=orders[keys[(bucket, side)]].subset(int(k))))
    return results


def _sized_bounded(table: CountTable, mechanism: AnyMechanism, ks: np.ndarray, removal: bool) -> list[Extreme]:
    """:func:`_sized` for every k, with lower bounds when the mechanism is not exact."""
    for k in ks.tolist():
        _check_size(k, int(np.asarray(table.totals).sum()), _KEPS if removal else _KT)
    low, high = mechanism.scaled_bounds
    if mechanism.exact:
        return _sized(_Columns.of(table, mechanism, low, low), ks, removal)
    upper = _sized(_Columns.of(table, mechanism, high, low), ks, removal)
    lower = _sized(_Columns.of(table, mechanism, low, high), ks, removal)
    return [replace(u, lower=None if v.ratio is None else max(v.ratio, Fraction(1)), exact=False)
            for u, v in zip(upper, lower)]


def kt_closeness(table: CountTable, mechanism: AnyMechanism, k: int) -> Extreme:
    r"""Optimal t of (k, t)-closeness: every k-subset of records is t-close to the release.

    .. math::
        t = \max_{b:\,T_b > 0} \max\left(\frac{T_b\,k}{N\,\mathrm{low}_b(k)},
                                         \frac{N\,\mathrm{high}_b(k)}{T_b\,k}\right)

    with ``low_b(k)``, ``high_b(k)`` the sums of ``A[v, b]`` over the k records with the
    smallest and the largest ``M[v, b]`` (multiplicities ``N_v``). The witness subset is
    that extreme group.

    References
    ----------
    Ekenstedt et al. 2022, Definition 7; Appendix B (proof of Lemma 2, ``E^k_min``, ``E^k_max``).
    """
    _check_size(k, table.n, _KT)
    return _sized_bounded(table, mechanism, np.array([k], dtype=np.int64), removal=False)[0]


def kt_curve(table: CountTable, mechanism: AnyMechanism, ks: Sequence[int] | None = None) -> tuple[Extreme, ...]:
    """(k, t)-closeness for every k in ``ks`` (default ``1..N-1``) in one vectorized pass.

    Ratios are screened in float64 for all k together (in chunks), then decided exactly
    per k; the result is element-wise equal to :func:`kt_closeness`.
    """
    n = int(np.asarray(table.totals).sum())
    sizes = np.arange(1, n, dtype=np.int64) if ks is None else np.asarray(list(ks), dtype=np.int64)
    chunk = max(1, _BLOCK_CELLS // max(1, 2 * len(mechanism.buckets)))
    out: list[Extreme] = []
    for start in range(0, sizes.size, chunk):
        out.extend(_sized_bounded(table, mechanism, sizes[start:start + chunk], removal=False))
    return tuple(out)


def k_eps_dp(table: CountTable, mechanism: AnyMechanism, k: int) -> Extreme:
    r"""Optimal ``e^ε`` of (k, ε)-DP, with ``Q`` returning the record distribution.

    .. math::
        e^{\varepsilon} = \max_{b:\,T_b > 0} \max\left(
            \frac{T_b\,(N-k)}{N\,(T_b - \mathrm{high}_b(k))},
            \frac{N\,(T_b - \mathrm{low}_b(k))}{T_b\,(N-k)}\right)

    (removing the k records with the largest, or the smallest, ``M[v, b]``). The witness
    subset is the removed group.

    References
    ----------
    Ekenstedt et al. 2022, Definition 8; Appendix F (choice of Q).
    """
    _check_size(k, table.n, _KEPS)
    return _sized_bounded(table, mechanism, np.array([k], dtype=np.int64), removal=True)[0]


def dp(table: CountTable, mechanism: AnyMechanism) -> Extreme:
    """Optimal ``e^ε`` of ε-DP (one record removed): (1, ε)-DP.

    References
    ----------
    Ekenstedt et al. 2022, Definition 5, Lemma 3(3).
    """
    return k_eps_dp(table, mechanism, 1)
