"""Attribute disclosure relative to the overall distribution: β-likeness and δ-disclosure.

For a class ``E`` and a value ``s``: ``q = n[E,s]/|E|`` (the in-class frequency) and
``p = N_s/N`` (the overall frequency in the table, over the rows counted for the
attribute). Every level is an extreme over cells ``(E, s)`` of a ratio of integers:

* the relative gain ``(q − p)/p = (n[E,s]·N − |E|·N_s) / (|E|·N_s)``;
* the likelihood ratio ``q/p = n[E,s]·N / (|E|·N_s)``.

References
----------
Cao & Karras, "Publishing microdata with a robust privacy guarantee", PVLDB 5(11), 2012:
Definition 2 (basic β-likeness), Definition 3 (enhanced β-likeness).
Brickell & Shmatikov, "The cost of privacy: destruction of data-mining utility in
anonymized data publishing", KDD 2008, Definition 4 (δ-disclosure privacy).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy

from verifier._exact_max import screen_margin
from verifier.privacy._ratios import ratio_extreme, ratio_terms
from verifier.privacy._screen import (
    CHUNK_CELLS,
    ClassCells,
    cells_of,
    class_witness,
    excluded_notes,
    first_cell_by_qi,
    screened_max,
    undefined,
)
from verifier.results import Level, Measurement, Witness
from verifier.tables.counts import CountTable

__all__ = ["basic_beta_likeness", "enhanced_beta_likeness", "delta_disclosure", "delta_disclosure_present"]

_NO_GAIN = "no class raises the frequency of any value above its overall frequency: β* = 0"


@dataclass(frozen=True)
class _Gains:
    """Relative gains of the cells with ``q > p``: ``num/den`` at ``positions`` of ``cells``."""

    cells: ClassCells
    positions: np.ndarray
    num: np.ndarray
    den: np.ndarray


def _gains(table: CountTable, cells: ClassCells) -> _Gains:
    """The gains of ``table`` (``cells`` are its own), built once for basic and enhanced β-likeness."""
    def build() -> _Gains:
        own, expected = ratio_terms(table)
        positions = np.flatnonzero(own > expected)  # no temporary the size of the table but this mask
        den = expected[positions]
        num = own[positions]
        num -= den
        return _Gains(cells, positions, num, den)

    return table.derived("gains", build)


def _value_witness(table: CountTable, index: int, code: int) -> Witness:
    """Class ``index`` and value ``code`` with ``n[E,s]``, ``N_s``, ``q`` and ``p``."""
    count, total = int(table.row(index)[code]), int(table.totals[code])
    return class_witness(table, index, table.values[code], class_count=count, total_count=total,
                         q=Fraction(count, int(table.sizes[index])), p=Fraction(total, table.n))


def _cell_witness(table: CountTable, cells: ClassCells, cell: int) -> Witness:
    return _value_witness(table, int(cells.cls[cell]), int(cells.value[cell]))


def _max_gain(table: CountTable, gains: _Gains) -> tuple[Level, Witness | None, tuple[str, ...]]:
    if gains.positions.size == 0:
        return Level.of(0), None, (_NO_GAIN,)
    beta, where = screened_max(gains.num, gains.den)
    cell = first_cell_by_qi(table.classes, gains.cells, gains.positions[where])
    return Level.of(beta), _cell_witness(table, gains.cells, cell), ()


def basic_beta_likeness(table: CountTable) -> Measurement:
    """The optimal β of basic β-likeness: the largest relative gain of any value in any class.

    .. math:: \\beta^* = \\max\\Big(0, \\max_{E,s:\\,q>p} \\frac{q-p}{p}\\Big)

    References
    ----------
    Cao & Karras, PVLDB 2012, Definition 2 (basic β-likeness: D(p_i, q_i) ≤ β for q_i > p_i).
    """
    cells = cells_of(table)
    if cells.present.size == 0:
        return undefined("basic_beta_likeness", table, "at_most")
    level, witness, notes = _max_gain(table, _gains(table, cells))
    return Measurement("basic_beta_likeness", table.attribute, level, witness, "at_most",
                       notes=notes + excluded_notes(table))


def _exceeds_log_bound(table: CountTable, gains: _Gains) -> np.ndarray:
    """Positions (into ``gains``) whose gain ``g`` exceeds ``−ln p``, decided exactly.

    ``g ≤ −ln p ⟺ p·e^g ≤ 1``. Equality is impossible for a rational ``g > 0``
    (Lindemann: ``e^g`` is transcendental), so sympy's certified evaluation always
    decides the cells the float screen leaves within its margin. The cells are screened
    :data:`~verifier.privacy._screen.CHUNK_CELLS` at a time, so the float temporaries stay small.
    """
    rows = table.n
    totals = np.asarray(table.totals, dtype=np.int64)
    with np.errstate(divide="ignore"):  # a declared value no row holds has no cell here
        bounds = -np.log1p(-(rows - totals) / rows)  # once per value
    over = np.empty(gains.positions.size, dtype=bool)
    for start in range(0, over.size, CHUNK_CELLS):
        chunk = slice(start, start + CHUNK_CELLS)
        values = gains.cells.value[gains.positions[chunk]]
        gain = gains.num[chunk].astype(np.float64) / gains.den[chunk].astype(np.float64)
        bound = bounds[values]
        slack = screen_margin(1.0, 1) * np.maximum(gain, bound)
        over[chunk] = gain > bound + slack
        for i in np.flatnonzero(~over[chunk] & (gain >= bound - slack)):
            exact = Fraction(int(gains.num[start + i]), int(gains.den[start + i]))
            ln_p = -sympy.log(sympy.Rational(int(totals[values[i]]), rows))
            over[start + i] = not Level.of(exact).satisfies(ln_p, "at_most")
    return np.flatnonzero(over)


def enhanced_beta_likeness(table: CountTable) -> Measurement:
    """The optimal β of enhanced β-likeness, or "unattainable".

    As published, a class satisfies enhanced β-likeness iff every value's relative gain
    obeys ``(q − p)/p ≤ min(β, −ln p)``. The bound ``−ln p`` does not depend on β: if
    some gain exceeds it, no β works and the level is infinite ("unattainable"), with
    that class and value as witness. Otherwise ``β*`` equals the basic β*.

    .. math:: \\beta^* = \\max_{E,s:\\,q>p} \\frac{q-p}{p}
              \\quad\\text{if}\\quad \\forall E,s:\\ \\frac{q-p}{p} \\le -\\ln p

    pyCANON instead reports ``max_s min(β_basic, −ln p_s)``, which is not a level of this
    definition (it is finite even when the definition cannot be met).

    References
    ----------
    Cao & Karras, PVLDB 2012, Definition 3 (enhanced β-likeness).
    """
    cells = cells_of(table)
    if cells.present.size == 0:
        return undefined("enhanced_beta_likeness", table, "at_most")
    gains = _gains(table, cells)
    over = _exceeds_log_bound(table, gains)
    if over.size:
        cell = first_cell_by_qi(table.classes, cells, gains.positions[over])
        offender = _cell_witness(table, cells, cell)
        gain = (offender.numbers["q"] - offender.numbers["p"]) / offender.numbers["p"]
        reason = (f"unattainable: value {offender.value!r} has relative gain (q-p)/p = {gain} > -ln p "
                  f"with p = {offender.numbers['p']}, so no β satisfies (q-p)/p <= min(β, -ln p)")
        return Measurement("enhanced_beta_likeness", table.attribute, Level.infinite(reason), offender, "at_most",
                           notes=("unattainable",) + excluded_notes(table))
    level, witness, notes = _max_gain(table, gains)
    return Measurement("enhanced_beta_likeness", table.attribute, level, witness, "at_most",
                       notes=notes + excluded_notes(table))


def delta_disclosure(table: CountTable) -> Measurement:
    """The optimal δ of δ-disclosure privacy: the largest ``|ln(q/p)|`` over classes and values.

    .. math:: \\delta^* = \\max_{E,\\,s:\\,N_s>0} \\Big|\\ln\\frac{q}{p}\\Big|
              = \\ln \\max\\Big(\\max \\frac{q}{p},\\ \\max\\frac{p}{q}\\Big)

    The definition is strict (``|ln(q/p)| < δ``), so the table is δ-disclosure-private
    exactly for ``δ > δ*`` (comparison ``below``). A class that lacks a value present in
    the table has ``q = 0`` and ``δ* = ∞`` (ARX and pyCANON skip such cells and report a
    finite δ: :func:`delta_disclosure_present`). Natural logarithm. Both extremes of
    ``q/p`` are found exactly as fractions; the level is the closed form ``ln(a/b)``.

    References
    ----------
    Brickell & Shmatikov, KDD 2008, Definition 4 (δ-disclosure privacy).
    """
    return _delta(table, "delta_disclosure", present_only=False)


def delta_disclosure_present(table: CountTable) -> Measurement:
    """δ-disclosure over the values present in each class: the largest ``|ln(q/p)|`` with ``q > 0``.

    .. math:: \\delta^*_{present} = \\max_{E,\\,s:\\,n_{E,s}>0} \\Big|\\ln\\frac{q}{p}\\Big|

    This is what ARX and pyCANON report as δ-disclosure: the cells a class lacks
    (``q = 0``, where Brickell & Shmatikov's ``|ln(q/p)|`` is infinite) are left out, so
    the level is finite and never above :func:`delta_disclosure`'s; the two agree when no
    class lacks a value of the table. It is not the definition's guarantee: a class that
    lacks a value discloses that its records do not hold it. Comparison ``below``, as for
    the definition; the note counts the classes that lack a value.

    References
    ----------
    Brickell & Shmatikov, KDD 2008, Definition 4 (the definition this variant relaxes).
    """
    return _delta(table, "delta_disclosure_present", present_only=True)


def _delta(table: CountTable, model: str, *, present_only: bool) -> Measurement:
    """δ-disclosure over every value of the table, or over the values present in each class."""
    cells = cells_of(table)
    if cells.present.size == 0:
        return undefined(model, table, "below", notes=("natural logarithm",))
    notes = ("natural logarithm",) + excluded_notes(table)
    extreme = ratio_extreme(table, cells, present_only=present_only)
    witness = _value_witness(table, extreme.index, extreme.code)
    if extreme.ratio is None:
        reason = (f"a class lacks value {witness.value!r}, present in the table: q = 0 and |ln(q/p)| is infinite")
        return Measurement(model, table.attribute, Level.infinite(reason), witness, "below", notes=notes)
    if present_only:
        notes += (f"over the values present in each class (q > 0); {extreme.lacking} class(es) lack a value "
                  "of the table, where the definition's δ is infinite",)
    level = Level.of(sympy.log(sympy.Rational(extreme.ratio.numerator, extreme.ratio.denominator)))
    return Measurement(model, table.attribute, level, witness, "below", notes=notes)
