"""The class-to-table frequency ratios ``q/p`` shared by δ-disclosure and multiplicative t.

For a cell ``(E, s)`` with ``q = n[E,s]/|E|`` and ``p = N_s/N``, the ratio is
``q/p = n[E,s]·N / (|E|·N_s)``, an exact rational of two integers. δ-disclosure's level is
``ln`` of the largest of ``q/p`` and ``p/q`` over the cells (Brickell & Shmatikov, KDD
2008, Definition 4), and multiplicative t-closeness's level is that largest ratio itself
over the buckets (Domingo-Ferrer & Soria-Comas 2015, Definition 4 and Proposition 2). Both are
infinite as soon as a class lacks a value (bucket) the table holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from verifier._exact_max import exact_ints, first_by_qi
from verifier.privacy._screen import ClassCells, cells_of, first_cell_by_qi, screened_max
from verifier.tables.counts import CountTable

__all__ = ["ratio_terms", "RatioExtreme", "ratio_extreme"]


def ratio_terms(table: CountTable) -> tuple[np.ndarray, np.ndarray]:
    """``(n[E,s]·N, |E|·N_s)`` per cell of :func:`~verifier.privacy._screen.cells_of`, exact (int64, or Python ints
    past int64); built once per table."""
    def build() -> tuple[np.ndarray, np.ndarray]:
        cells = cells_of(table)
        bound = table.n * table.n
        expected = exact_ints(bound, cells.per_cell(cells.sizes))  # a fresh array: multiplied in place
        expected *= exact_ints(bound, np.asarray(table.totals)[cells.value])
        return exact_ints(bound, cells.count) * table.n, expected

    return table.derived("ratio_terms", build)


@dataclass(frozen=True)
class RatioExtreme:
    """Where ``max(q/p, p/q)`` over a table's cells is largest.

    Attributes
    ----------
    ratio
        The exact maximum, or ``None`` when some class lacks a value the table holds
        (``q = 0``: the maximum is infinite).
    index
        The class attaining it (the first by its QI values among those that do).
    code
        The value code: the attaining cell's, or the first value the class lacks.
    class_over_table
        ``True`` when ``q/p`` attains the maximum, ``False`` when ``p/q`` does.
    lacking
        How many classes lack some value of the table.
    """

    ratio: Fraction | None
    index: int
    code: int
    class_over_table: bool
    lacking: int


def ratio_extreme(table: CountTable, cells: ClassCells, *, present_only: bool = False) -> RatioExtreme:
    """The largest ``max(q/p, p/q)`` over the cells of ``table`` (at least one present class).

    With ``present_only`` the cells with ``q = 0`` (a value a class lacks) are left out,
    so the maximum is finite; ``lacking`` still counts the classes that lack a value.
    Every cell is screened in float64 and the candidates are decided exactly
    (:func:`~verifier.privacy._screen.screened_max`); ties go to the class whose QI values sort
    first, then the smallest value code.
    """
    present_values = np.asarray(table.totals) > 0
    lacking = cells.present[cells.distinct < int(present_values.sum())]
    if lacking.size and not present_only:
        index = first_by_qi(table.classes, lacking)
        code = int(np.flatnonzero((table.row(index) == 0) & present_values)[0])
        return RatioExtreme(None, index, code, False, int(lacking.size))
    own, expected = ratio_terms(table)
    up, up_at = screened_max(own, expected)  # the largest q/p, then the largest p/q: no max/min arrays
    down, down_at = screened_max(expected, own)
    best = max(up, down)
    positions = np.union1d(up_at, down_at) if up == down else up_at if up > down else down_at
    cell = first_cell_by_qi(table.classes, cells, positions)
    return RatioExtreme(best, int(cells.cls[cell]), int(cells.value[cell]), bool(own[cell] >= expected[cell]), int(lacking.size))
