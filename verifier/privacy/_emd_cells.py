"""EMD numerators from the non-empty cells of a count table, exact.

With ``n_E`` a class's counts, ``s = |E|``, ``T`` the table's counts and ``N`` the table
size, each ground distance of :mod:`verifier.privacy.t_closeness` has the numerator
``Σ_f |N·F(n_E)_f - s·F(T)_f|`` over ``terms`` features ``f``. Computed densely it costs
classes × features; here it costs the non-empty cells (times the height for a hierarchy):

* ``equal``: an absent value ``v`` contributes ``s·T_v``, so the numerator is
  ``s·(N - Σ_present T_v) + Σ_present |N·n_v - s·T_v|``.
* ``ordered``: with ``Q_i = Σ_{j<=i} T_j`` (non-decreasing) and ``C`` the class's
  cumulative count, ``C`` is constant between two consecutive values present in the
  class, so a run ``a <= i < b`` contributes ``Σ |N·C - s·Q_i|``; the sign changes once,
  at the first ``i`` with ``Q_i >= ⌈N·C/s⌉`` (binary search), and each side is a
  difference of prefix sums of ``Q``.
* ``hierarchical``: per height, a node the class does not reach contributes
  ``s·T(node)``, so the numerator is ``s·N·H - Σ_reached s·T(node) + Σ_reached |N·n_E(node) - s·T(node)|``
  over the (class, node) pairs the class reaches.

Every term is at most ``N·s``, so a class's numerator and each intermediate sum are at
most ``terms·N·s``: classes below :data:`~verifier._exact_max.INT64_SAFE` are computed in
int64, the others with Python integers (:func:`~verifier._exact_max.exact_ints`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from verifier._exact_max import INT64_SAFE, exact_ints
from verifier.privacy._screen import CHUNK_CELLS, ClassCells

__all__ = ["Numerators", "equal_numerators", "ordered_numerators", "hierarchical_numerators", "class_numerators"]

Numerators = Callable[[ClassCells, np.ndarray, Callable[[np.ndarray], np.ndarray]], np.ndarray]
"""``(cells, totals, ints) -> numerator per present class``; ``ints`` gives the exact dtype."""


def class_numerators(cells: ClassCells, totals: np.ndarray, terms: int, numerators: Numerators) -> np.ndarray:
    """The numerator of every present class of ``cells``, exact.

    Classes with ``terms·N·s < 2**62`` are computed in int64, the rest with Python
    integers; the result is int64 when every class fits, an object array otherwise.
    Classes are taken in runs of about :data:`CHUNK_CELLS` cells (each a view of
    ``cells``), so memory does not grow with the number of cells.
    """
    if cells.cls.size > CHUNK_CELLS and cells.present.size > 1:
        firsts = np.searchsorted(cells.starts, np.arange(0, cells.cls.size, CHUNK_CELLS), "right") - 1
        edges = np.unique(np.r_[0, firsts, cells.present.size])
        return np.concatenate([_run_numerators(_run(cells, int(lo), int(hi)), totals, terms, numerators)
                               for lo, hi in zip(edges[:-1], edges[1:], strict=True)])
    return _run_numerators(cells, totals, terms, numerators)


def _run_numerators(cells: ClassCells, totals: np.ndarray, terms: int, numerators: Numerators) -> np.ndarray:
    n = int(np.asarray(totals).sum())
    small = cells.sizes <= (INT64_SAFE - 1) // max(terms * n, 1)
    if small.all():
        return numerators(cells, totals, partial(exact_ints, 0))
    out = np.zeros(cells.sizes.size, dtype=object)
    for group, bound in ((small, 0), (~small, INT64_SAFE)):
        if group.any():
            out[group] = numerators(cells.subset(group), totals, partial(exact_ints, bound))
    return out


def equal_numerators(cells: ClassCells, totals: np.ndarray, ints: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``Σ_v |N·n_v - s·T_v|`` per class (the total variation, ``equal`` distance)."""
    n = int(np.asarray(totals).sum())
    sizes = ints(cells.sizes)
    expected = ints(cells.per_cell(cells.sizes)) * ints(np.asarray(totals)[cells.value])
    terms = np.abs(ints(cells.count) * n - expected) - expected
    return sizes * n + np.add.reduceat(terms, cells.starts)


def ordered_numerators(cells: ClassCells, totals: np.ndarray, ints: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``Σ_i |N·C_i - s·Q_i|`` per class over the ``m`` values (``ordered`` distance)."""
    totals = np.asarray(totals, dtype=np.int64)
    n, m = int(totals.sum()), totals.size
    q = np.cumsum(totals)
    prefix = np.concatenate([ints(np.zeros(1)), np.cumsum(ints(q))])
    sizes = ints(cells.per_cell(cells.sizes))
    within = np.cumsum(ints(cells.count))
    before = np.repeat(within[cells.starts] - ints(cells.count[cells.starts]), cells.distinct)
    level = within - before
    start = cells.value
    stop = np.append(cells.value[1:], m)
    stop[np.append(cells.starts[1:], cells.value.size) - 1] = m
    target = np.asarray(-((-level * n) // sizes), dtype=np.int64)
    split = np.clip(np.searchsorted(q, target, side="left"), start, stop)
    scaled = level * n
    below = scaled * ints(split - start) - sizes * (prefix[split] - prefix[start])
    above = sizes * (prefix[stop] - prefix[split]) - scaled * ints(stop - split)
    leading = ints(cells.sizes) * prefix[cells.value[cells.starts]]
    return leading + np.add.reduceat(below + above, cells.starts)


def hierarchical_numerators(node_of: tuple[np.ndarray, ...]) -> Numerators:
    """The ``hierarchical`` numerator, given each value's node code at every height ``h < H``."""

    def numerators(cells: ClassCells, totals: np.ndarray, ints: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.int64)
        n = int(totals.sum())
        position = np.repeat(np.arange(cells.present.size), cells.distinct)
        out = ints(cells.sizes) * (n * len(node_of))
        for nodes in node_of:
            node_totals = np.zeros(int(nodes.max()) + 1, dtype=np.int64)
            np.add.at(node_totals, nodes, totals)
            node_totals = ints(node_totals)
            node = nodes[cells.value]
            order = np.lexsort((node, position))
            owner, node = position[order], node[order]
            first = np.flatnonzero(np.r_[True, (owner[1:] != owner[:-1]) | (node[1:] != node[:-1])])
            reached = np.add.reduceat(ints(cells.count[order]), first)
            expected = ints(cells.sizes[owner[first]]) * node_totals[node[first]]
            terms = np.abs(reached * n - expected) - expected
            out = out + np.add.reduceat(terms, np.flatnonzero(np.r_[True, owner[first][1:] != owner[first][:-1]]))
        return out

    return numerators


def _run(cells: ClassCells, lo: int, hi: int) -> ClassCells:
    """The cells of the present classes ``lo..hi-1`` (views, nothing copied)."""
    first = int(cells.starts[lo])
    last = int(cells.starts[hi]) if hi < cells.present.size else cells.cls.size
    return ClassCells(cls=cells.cls[first:last], value=cells.value[first:last], count=cells.count[first:last],
                 present=cells.present[lo:hi], starts=cells.starts[lo:hi] - first, sizes=cells.sizes[lo:hi])
