"""Attribute disclosure by diversity: distinct, entropy and recursive (c,l)-diversity.

Each is a minimum (or maximum) over equivalence classes of a function of the class's
counts ``n[E,s]``; classes with no row in the attribute's table are skipped.

References
----------
Li et al. 2007, "l-diversity" (Table 4 is a 3-diverse version of Table 3);
Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam, "l-Diversity: Privacy beyond
k-anonymity", ACM TKDD 2007, Definitions 4.1 (distinct), 4.2 (entropy), 4.3 (recursive).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cmp_to_key
from typing import Any

import numpy as np
import sympy

from verifier._exact_max import first_by_qi, screen_margin
from verifier.errors import PolicyError
from verifier.privacy._screen import (
    ClassCells,
    as_fraction,
    cells_of,
    class_witness,
    excluded_notes,
    log_form_sign,
    prime_exponents,
    screened_max,
    undefined,
)
from verifier.results import Level, Measurement
from verifier.tables.counts import CountTable
from verifier.tables.distinct import distinct, key_groups

__all__ = ["distinct_l_diversity", "entropy_l_diversity", "entropy_l_satisfied", "recursive_cl_diversity"]

Profile = tuple[int, ...]
"""A class's counts divided by their gcd, sorted: the entropy depends on nothing else."""


def distinct_l_diversity(table: CountTable) -> Measurement:
    """The optimal l of distinct l-diversity: the fewest distinct values in a class.

    .. math:: l^* = \\min_E |\\{s : n[E,s] > 0\\}|

    References
    ----------
    Li et al. 2007, "l-diversity", Definition; Machanavajjhala et al., TKDD 2007.
    """
    cells = cells_of(table)
    if cells.present.size == 0:
        return undefined("distinct_l_diversity", table, "at_least")
    distinct = cells.distinct
    l_star = int(distinct.min())
    index = first_by_qi(table.classes, cells.present[distinct == l_star])
    witness = class_witness(table, index, distinct_values=l_star)
    return Measurement("distinct_l_diversity", table.attribute, Level.of(l_star), witness, "at_least",
                       notes=excluded_notes(table))


def _entropy_screen(cells: ClassCells) -> tuple[np.ndarray, float]:
    """Float64 entropies ``H(E) = ln|E| − Σ c ln c / |E|`` of the present classes, and a
    margin that bounds the rounding error of any difference of two of them.

    A class with ``m`` values sums ``m`` terms ``c ln c`` of total at most ``|E| ln|E|``,
    so its entropy is off by at most about ``(m + 4)·eps·(ln|E| + 1)``; the margin is
    :func:`~verifier._exact_max.screen_margin` of that many terms, times ``ln|E| + 1``.
    """
    counts = cells.count.astype(np.float64)
    sizes = cells.sizes.astype(np.float64)
    entropy = np.log(sizes) - np.add.reduceat(counts * np.log(counts), cells.starts) / sizes
    scale = math.log(float(sizes.max())) + 1
    return entropy, screen_margin(1.0, int(cells.distinct.max()) + 4) * scale


def _profile(cells: ClassCells, position: int) -> Profile:
    start = cells.starts[position]
    stop = cells.starts[position + 1] if position + 1 < cells.starts.size else cells.count.size
    counts = cells.count[start:stop].tolist()
    divisor = math.gcd(*counts)
    return tuple(sorted(c // divisor for c in counts))


_HASH_BASE = np.uint64(0x9E3779B97F4A7C15)


def _profile_groups(cells: ClassCells, positions: np.ndarray) -> dict[Profile, np.ndarray]:
    """Group the present classes at ``positions`` by profile: ``{profile: positions}``.

    Only the cells of those classes are read (usually a few, near the extreme entropy).
    Vectorized: each class's reduced, sorted counts are hashed (a polynomial mod 2**64),
    classes are grouped by (number of values, hash), and every class is then compared
    cell by cell with its group's first class, so a hash collision can never merge two
    profiles (it only sends the grouping to the per-class path).
    """
    chosen = distinct(positions)
    if chosen.size == 0:
        return {}
    keep = np.zeros(cells.present.size, dtype=bool)
    keep[chosen] = True
    cells = cells.subset(keep)
    reduced = cells.count // cells.per_cell(np.gcd.reduceat(cells.count, cells.starts))
    reduced = cells.sorted_within(reduced)
    rank = np.arange(reduced.size) - cells.per_cell(cells.starts)
    powers = np.cumprod(np.full(int(cells.distinct.max()), _HASH_BASE, dtype=np.uint64))
    hashes = np.add.reduceat(reduced.astype(np.uint64) * powers[rank], cells.starts)
    keys = np.stack([cells.distinct.astype(np.uint64), hashes])
    first, group = key_groups(keys)
    leader = first[group]
    owner = cells.per_cell(np.arange(cells.present.size))
    same = reduced == reduced[cells.starts[leader[owner]] + rank]
    if not same.all():
        profiles: dict[Profile, list[int]] = {}
        for position in range(cells.present.size):
            profiles.setdefault(_profile(cells, position), []).append(int(chosen[position]))
        return {profile: np.array(where) for profile, where in profiles.items()}
    return {_profile(cells, int(i)): chosen[group == g] for g, i in enumerate(first)}


def _nlogn_terms(profile: Profile, scale: int) -> dict[int, int]:
    """``scale · (n ln n − Σ c ln c)`` as ``{base: exponent}`` (``n·H(E)`` times ``scale``)."""
    n = sum(profile)
    terms: dict[int, int] = {n: scale * n}
    for c in profile:
        terms[c] = terms.get(c, 0) - scale * c
    return terms


def _compare_entropy(a: Profile, b: Profile) -> int:
    """Exact sign of ``H(a) − H(b)``: ``n_b·(n_a H_a) − n_a·(n_b H_b)``."""
    terms = _nlogn_terms(a, sum(b))
    for base, exponent in _nlogn_terms(b, sum(a)).items():
        terms[base] = terms.get(base, 0) - exponent
    return log_form_sign(terms)


def _entropy_level(profile: Profile) -> sympy.Expr:
    """``exp(H) = n / Π c^(c/n)``, exact (uniform over 3 values gives exactly 3).

    Built over primes (``Π p^E`` with rational ``E``), so that sympy never expands a
    power such as ``c^(c/n)`` of a large class into a huge integer.
    """
    n = sum(profile)
    terms: dict[int, int | Fraction] = {n: 1}
    for c in profile:
        terms[c] = terms.get(c, 0) - Fraction(c, n)
    factors = prime_exponents(terms)
    return sympy.Mul(*(sympy.Integer(p) ** sympy.Rational(e.numerator, e.denominator) for p, e in factors.items()))


def entropy_l_diversity(table: CountTable) -> Measurement:
    """The optimal l of entropy l-diversity: ``exp`` of the smallest class entropy.

    .. math::

        H(E) = -\\sum_s p(E,s) \\ln p(E,s), \\qquad
        l^* = \\exp\\big(\\min_E H(E)\\big) = \\frac{n}{\\prod_i c_i^{c_i/n}}

    for the minimizing class with counts ``c_i`` and size ``n``. All classes are screened
    in float64; the classes within the rounding margin of the minimum are compared
    exactly (:func:`verifier.privacy._screen.log_form_sign`), and the level is the exact closed
    form above: a class uniform over 3 values gives exactly 3 (pyCANON truncates
    ``exp(H)`` with ``int()`` and reports 2 for it).

    References
    ----------
    Machanavajjhala et al., TKDD 2007, Definition 4.2 (entropy l-diversity: H(E) ≥ log l);
    Li et al. 2007, "Experiment" (entropy l-diversity).
    """
    cells = cells_of(table)
    if cells.present.size == 0:
        return undefined("entropy_l_diversity", table, "at_least", notes=("natural logarithm",))
    entropy, margin = _entropy_screen(cells)
    near = np.flatnonzero(entropy <= entropy.min() + margin)
    groups = _profile_groups(cells, near)
    lowest = min(sorted(groups), key=cmp_to_key(_compare_entropy))
    tied = {profile: where for profile, where in groups.items() if _compare_entropy(profile, lowest) == 0}
    index = first_by_qi(table.classes, cells.present[np.concatenate(list(tied.values()))])
    position = cells.position(index)
    profile = next(profile for profile, where in tied.items() if position in where)
    witness = class_witness(table, index, distinct_values=int(cells.distinct[position]),
                            entropy=float(entropy[position]), profile=_describe_profile(profile))
    notes = ("natural logarithm",) + excluded_notes(table)
    return Measurement("entropy_l_diversity", table.attribute, Level.of(_entropy_level(profile)), witness,
                       "at_least", notes=notes)


def _describe_profile(profile: Profile) -> Any:
    """The reduced counts of the witness class, shortened when the class has many values."""
    return list(profile) if len(profile) <= 32 else f"{len(profile)} counts, largest {profile[-1]}"


def entropy_l_satisfied(table: CountTable, l: int | Fraction) -> bool:
    """Decide exactly whether every class satisfies entropy l-diversity at level ``l``.

    For ``l = a/b`` and a class with counts ``c_i`` summing to ``n``:

    .. math:: H(E) \\ge \\ln l \\iff n^n \\, b^n \\ge a^n \\prod_i c_i^{c_i}

    Classes far from the threshold are decided by the float64 screen; the rest exactly
    (big integers, or rigorous interval arithmetic for huge classes). Agrees with
    ``entropy_l_diversity(table).level.satisfies(l, "at_least")``; a table without a
    class with rows satisfies nothing (its level is undefined).

    Raises
    ------
    PolicyError
        ``l`` is not an exact positive number.
    """
    bound = as_fraction(l, "entropy l-diversity l")
    if bound <= 0:
        raise PolicyError(f"entropy l-diversity l: expected l > 0, found {bound}")
    cells = cells_of(table)
    if cells.present.size == 0:
        return False
    if bound <= 1:
        return True
    entropy, margin = _entropy_screen(cells)
    log_bound = math.log(bound.numerator) - math.log(bound.denominator)
    margin += screen_margin(log_bound, 1)
    if bool((entropy < log_bound - margin).any()):
        return False
    near = np.flatnonzero(entropy <= log_bound + margin)
    for profile in _profile_groups(cells, near):
        n = sum(profile)
        terms = _nlogn_terms(profile, 1)
        terms[bound.denominator] = terms.get(bound.denominator, 0) + n
        terms[bound.numerator] = terms.get(bound.numerator, 0) - n
        if log_form_sign(terms) < 0:
            return False
    return True


def recursive_cl_diversity(table: CountTable, l: int) -> Measurement:
    """The optimal c of recursive (c,l)-diversity for a given l.

    With a class's counts sorted in decreasing order ``r_1 ≥ r_2 ≥ … ≥ r_m``, the class
    is (c,l)-diverse iff ``r_1 < c·(r_l + r_{l+1} + … + r_m)``. So

    .. math:: c^* = \\max_E \\frac{r_1}{r_l + \\dots + r_m}

    and the table is (c,l)-diverse exactly for ``c > c*`` (comparison ``below``). A class
    with fewer than ``l`` distinct values has an empty tail: no c works, the level is
    infinite. pyCANON sorts the counts increasingly and divides the *smallest* count by
    the sum of the *largest* ones, and uses the table's distinct l instead of the given l.

    References
    ----------
    Machanavajjhala et al., TKDD 2007, Definition 4.3 (recursive (c,l)-diversity).

    Raises
    ------
    PolicyError
        ``l`` is not an integer ≥ 1.
    """
    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 1:
        raise PolicyError(f"recursive (c,l)-diversity: expected an integer l >= 1, found {l!r}")
    l = int(l)
    cells = cells_of(table)
    parameters = {"l": l}
    if cells.present.size == 0:
        return undefined("recursive_cl_diversity", table, "below", parameters=parameters)
    distinct = cells.distinct
    short = distinct < l
    if short.any():
        index = first_by_qi(table.classes, cells.present[short])
        found = int(distinct[cells.position(index)])
        reason = (f"a class has {found} distinct value(s), fewer than l = {l}: r_l + … + r_m is empty, "
                  "so no c satisfies r_1 < c·(r_l + … + r_m)")
        witness = class_witness(table, index, distinct_values=found)
        return Measurement("recursive_cl_diversity", table.attribute, Level.infinite(reason), witness, "below",
                           parameters=parameters, notes=excluded_notes(table))
    ordered = cells.sorted_within(cells.count, descending=True)
    rank = np.arange(ordered.size) - cells.per_cell(cells.starts)
    largest = ordered[cells.starts]
    tail = np.add.reduceat(np.where(rank >= l - 1, ordered, 0), cells.starts)
    c_star, where = screened_max(largest, tail)
    index = first_by_qi(table.classes, cells.present[where])
    position = cells.position(index)
    row = table.row(index)
    witness = class_witness(table, index, table.values[int(np.argmax(row))], r_1=int(largest[position]),
                            tail_sum=int(tail[position]), distinct_values=int(distinct[position]))
    return Measurement("recursive_cl_diversity", table.attribute, Level.of(c_star), witness, "below",
                       parameters=parameters, notes=excluded_notes(table))
