"""Exact ordered EMD of clusters of records, for the constructions' own decisions.

The verifier measures a finished release from its count tables; the microaggregation
algorithms need the EMD of many small candidate clusters while they build one, so this
module computes it from the records' value ranks without building count tables. It is
the same quantity as :func:`verifier.privacy.t_closeness.emd` with the ``ordered`` distance (the tests
check the two agree), written as an exact integer numerator over
``|C| · N · (m - 1)``:

.. math::

    \\mathrm{EMD}(C, T) = \\frac{\\sum_{x=0}^{m-2} |N\\,c(x) - |C|\\,Q(x)|}{|C|\\,N\\,(m-1)},

with ``c(x)`` the cluster's records of rank at most ``x`` and ``Q(x)`` the table's
(Soria-Comas et al. 2015, §2.2). ``c`` is constant between consecutive cluster values and
``Q`` increases, so each constant stretch splits at one point into a part where the
term is ``N c - |C| Q(x)`` and one where it is ``|C| Q(x) - N c``; prefix sums of ``Q``
give each part in O(1), so a cluster costs O(|C| log m), not O(m).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

__all__ = ["RankedValues"]


@dataclass(frozen=True)
class RankedValues:
    """The confidential attribute of a table as value ranks, with the table's margins.

    Parameters
    ----------
    codes
        The rank of each record's value among the table's distinct values (``0..m-1``).
    totals
        Records per distinct value.
    """

    codes: np.ndarray
    totals: np.ndarray

    @classmethod
    def of(cls, values: np.ndarray) -> RankedValues:
        """Rank ``values`` (any sortable numpy array)."""
        _, codes, totals = np.unique(values, return_inverse=True, return_counts=True)
        return cls(codes.astype(np.int64), totals.astype(np.int64))

    @property
    def n(self) -> int:
        return int(self.codes.size)

    @property
    def m(self) -> int:
        return int(self.totals.size)

    @property
    def _cumulative(self) -> tuple[np.ndarray, np.ndarray]:
        # Q(x) for x = 0..m-1, and P(x) = Σ_{y<x} Q(y) for x = 0..m.
        q = np.cumsum(self.totals)
        return q, np.concatenate([[0], np.cumsum(q)])

    def numerators(self, members: np.ndarray, groups: np.ndarray, count: int) -> np.ndarray:
        """``Σ_x |N c(x) - |C| Q(x)|`` for each group of records (exact, Python ints).

        Parameters
        ----------
        members
            Record indices.
        groups
            The group (``0..count-1``) of each member.
        count
            Number of groups; every group must have a member.
        """
        n, m = self.n, self.m
        q, prefix = self._cumulative
        exact = n * n * max(m, 1) < 1 << 62
        dtype = np.int64 if exact else object
        codes = self.codes[members]
        order = np.lexsort((codes, groups))
        g, v = groups[order], codes[order]
        sizes = np.bincount(g, minlength=count).astype(dtype)
        run_start = np.flatnonzero(np.r_[True, (g[1:] != g[:-1]) | (v[1:] != v[:-1])])
        run_group, run_value = g[run_start], v[run_start]
        first_of_group = np.r_[True, run_group[1:] != run_group[:-1]]
        last_of_group = np.r_[run_group[1:] != run_group[:-1], True]
        # c after each run: the records of the group with value at most the run's.
        counts = np.diff(np.r_[run_start, g.size]).astype(dtype)
        running = np.cumsum(counts)
        first = np.flatnonzero(first_of_group)
        c_after = running - np.repeat((running - counts)[first], np.diff(np.r_[first, run_group.size]))
        next_value = np.where(last_of_group, m, np.r_[run_value[1:], m])
        # Stretches: [0, first value) with c = 0, then [value, next value) with c_after.
        starts = np.concatenate([np.zeros(count, dtype=np.int64), run_value])
        stops = np.concatenate([run_value[first_of_group], next_value])
        c = np.concatenate([np.zeros(count, dtype=dtype), c_after])
        owner = np.concatenate([np.arange(count), run_group])
        size = sizes[owner]
        # First x with |C| Q(x) > N c, clipped to the stretch.
        limit = (n * c) // size
        split = np.clip(np.searchsorted(q, np.asarray(limit, dtype=np.int64), side="right"), starts, stops)
        below = (split - starts).astype(dtype) * n * c - size * (prefix[split] - prefix[starts]).astype(dtype)
        above = size * (prefix[stops] - prefix[split]).astype(dtype) - (stops - split).astype(dtype) * n * c
        terms = below + above
        out = np.zeros(count, dtype=dtype)
        np.add.at(out, owner, terms)
        return out

    @cached_property
    def _lists(self) -> tuple[list[int], list[int]]:
        q, prefix = self._cumulative
        return [int(x) for x in q], [int(x) for x in prefix]

    def numerator_of(self, codes: list[int]) -> int:
        """The numerator of one small cluster given its value ranks, in Python integers.

        The same sum as :meth:`numerators` (which pays numpy's per-call cost); used for
        the many tiny candidate clusters of Algorithm 2's swaps.
        """
        q, prefix = self._lists
        n, m, size = self.n, self.m, len(codes)
        total, c, start = 0, 0, 0
        for value in sorted(codes) + [m]:
            if value > start:
                split = min(max(bisect_right(q, (n * c) // size), start), value)
                total += (split - start) * n * c - size * (prefix[split] - prefix[start])
                total += size * (prefix[value] - prefix[split]) - (value - split) * n * c
                start = value
            c += 1
        return total

    def scale(self, size: int) -> int:
        """The denominator ``|C| · N · (m - 1)`` (1 when ``m = 1``: every EMD is then 0)."""
        return size * self.n * max(self.m - 1, 1)

    def emd(self, members: np.ndarray) -> Fraction:
        """The exact EMD of one cluster."""
        numerator = self.numerators(np.asarray(members), np.zeros(len(members), dtype=np.int64), 1)[0]
        return Fraction(int(numerator), self.scale(len(members)))

    def within(self, numerators: Sequence[int] | np.ndarray, sizes: np.ndarray, t: Fraction) -> np.ndarray:
        """``EMD ≤ t`` for each cluster, decided on integers."""
        scale = [self.scale(int(s)) for s in sizes]
        return np.array([int(a) * t.denominator <= t.numerator * b for a, b in zip(numerators, scale)], dtype=bool)
