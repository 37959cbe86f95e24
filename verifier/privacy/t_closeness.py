"""t-closeness with the Earth Mover's Distance (EMD), exactly.

An equivalence class ``E`` is t-close when ``EMD(P_E, Q) <= t``, where ``P_E`` is the
distribution of the sensitive attribute in ``E`` and ``Q`` its distribution in the
whole table; the table's level is the maximum over classes (Domingo-Ferrer & Soria-Comas 2015,
Definition 1; Li et al. 2007, "t-closeness definition").

All three ground distances of Li et al. 2007 ("Distance measurements") reduce to one shape. With
``n_E`` the class counts, ``|E|`` the class size, ``n_Q`` the table counts and ``N`` the
table size, and a linear map ``F`` from counts to non-negative "features",

.. math::

    \\mathrm{EMD}(P_E, Q) = \\frac{\\sum_f |N\\,F(n_E)_f - |E|\\,F(n_Q)_f|}{|E|\\,N\\,s}

* ``equal`` (categorical): ``F`` is the identity and ``s = 2``; the EMD is the total
  variation ``½ Σ |p_i - q_i|`` (Li et al. 2007, "Equal Distance").
* ``ordered`` (numerical, ordinal): ``F`` is the cumulative sum over the ``m`` values in
  code order and ``s = m - 1``, i.e. ``(1/(m-1)) Σ_i |Σ_{j<=i} (p_j - q_j)|`` (Li et al. 2007,
  "Ordered Distance"; Soria-Comas et al. 2015, §2.2). ``m`` is the number of values
  present in the table, or the size of a declared domain (``AttributeSpec.order``).
  With ``m = 1`` every class has the table's distribution and the EMD is 0.
* ``hierarchical`` (categorical with a :class:`~verifier.tables.hierarchy.Hierarchy` of height
  ``H``): ``F`` stacks, for each height ``h = 0 .. H-1``, the counts aggregated per node
  of that height, and ``s = 2H``. This is Li et al. (2007)'s recursion ("Hierarchical Distance")
  ``D = Σ_N height(N)/H · min(pos_extra(N), neg_extra(N))``, with ``pos_extra`` and
  ``neg_extra`` summed over the *children* of ``N``, rewritten: since
  ``min(pos, neg) = (Σ_children |extra| - |extra(N)|) / 2``, summing by parts over
  heights gives ``D = (1/(2H)) Σ_{h<H} Σ_{nodes at height h} |extra|``, the tree EMD
  with edge weight ``1/(2H)``. See docs/t_closeness.md for why "children", not "all
  leaves below" as the slides say, and for the slides' worked values, which the
  definition does not give.

The sums cost the non-empty cells of the count table, not classes × values: features a
class does not reach are summed in closed form (:mod:`verifier.privacy._emd_cells`). Each class's
numerator is an exact integer (int64, or Python integers past 2**62); the levels are
screened in float64 and those within the screening margin of the largest are compared
exactly, so the level is the exact maximum, a ``Fraction``.

>>> from fractions import Fraction
>>> emd([1, 1, 1, 0, 0, 0, 0, 0, 0], [1] * 9, "ordered")   # Li et al. 2007: D[P1, Q] = 3/8
Fraction(3, 8)
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from verifier._exact_max import first_by_qi
from verifier.errors import PolicyError
from verifier.privacy._emd_cells import (
    Numerators,
    class_numerators,
    equal_numerators,
    hierarchical_numerators,
    ordered_numerators,
)
from verifier.privacy._screen import ClassCells, cells_of, class_witness, excluded_notes, screened_max
from verifier.results import Level, Measurement
from verifier.tables.counts import CountTable
from verifier.tables.hierarchy import Hierarchy

__all__ = ["Distance", "t_closeness", "emd"]

Distance = Literal["equal", "ordered", "hierarchical"]

def t_closeness(table: CountTable, distance: Distance, hierarchy: Hierarchy | None = None) -> Measurement:
    """The smallest ``t`` for which the table is t-close: ``max_E EMD(P_E, Q)``.

    Parameters
    ----------
    table
        Count table of the sensitive attribute. Classes with no counted row (all
        excluded) are skipped.
    distance
        The ground distance: ``equal``, ``ordered`` (numerical or ordinal attributes)
        or ``hierarchical`` (needs ``hierarchy``).
    hierarchy
        The value hierarchy for ``hierarchical``.

    Returns
    -------
    Measurement
        Model ``t_closeness``, comparison ``at_most``; the witness is the class that
        attains the maximum (ties broken by the ``repr`` of its QI values), with the
        EMD as ``numerator / denominator`` in its numbers.

    Raises
    ------
    PolicyError
        Unknown distance; ``ordered`` on a categorical attribute; ``hierarchical``
        without a hierarchy, or a hierarchy with another distance.
    HierarchyError
        A value of the attribute is not a leaf of the hierarchy.

    References
    ----------
    Domingo-Ferrer & Soria-Comas 2015, Definition 1; Li et al. 2007, "Earth Mover
    Distance", "Ordered Distance", "Equal Distance", "Hierarchical Distance";
    Soria-Comas et al. 2015, §2.2.
    """
    numerators, terms, scale, parameters = _ground(table.values, table.spec.kind, table.attribute, distance, hierarchy)
    parameters = {**parameters, "domain": "declared" if table.spec.order is not None else "table"}
    notes = excluded_notes(table)
    if scale == 0:
        notes += ("the attribute takes a single value: every class has the table's distribution and the EMD is 0",)
        scale = 1
    n = table.n
    cells = cells_of(table)
    numerator = class_numerators(cells, table.totals, terms, numerators)
    level, positions = screened_max(numerator, cells.sizes)
    level /= n * scale
    winner = first_by_qi(table.classes, cells.present[positions])
    size = int(table.sizes[winner])
    witness = class_witness(
        table,
        winner,
        emd=level,
        numerator=int(numerator[cells.position(winner)]),
        denominator=size * n * scale,
        class_size=size,
        table_size=n,
    )
    return Measurement(
        model="t_closeness",
        attribute=table.attribute,
        level=Level.of(level),
        witness=witness,
        comparison="at_most",
        distance=distance,
        parameters=parameters,
        notes=notes,
    )


def emd(
    counts: Sequence[int],
    totals: Sequence[int],
    distance: Distance,
    *,
    hierarchy: Hierarchy | None = None,
    values: Sequence[Any] | None = None,
) -> Fraction:
    """Exact EMD between the distribution of ``counts`` and that of ``totals``.

    Parameters
    ----------
    counts, totals
        Non-negative integer counts over the same ``m`` values in code order (for
        ``ordered``, ascending). Neither may sum to 0.
    distance
        ``equal``, ``ordered`` or ``hierarchical``.
    hierarchy, values
        For ``hierarchical``: the hierarchy and the leaf name of each position.

    See :func:`t_closeness` for the formulas.
    """
    class_counts = np.asarray(counts, dtype=np.int64)[None, :]
    table_counts = np.asarray(totals, dtype=np.int64)
    size, n = int(class_counts.sum()), int(table_counts.sum())
    if size <= 0 or n <= 0 or class_counts.shape[1] != table_counts.size:
        raise ValueError(
            f"expected two count vectors of the same length with positive sums, found sums {size} and {n} "
            f"and lengths {class_counts.shape[1]} and {table_counts.size}"
        )
    kind = "numerical" if distance == "ordered" else "categorical"
    labels = tuple(range(table_counts.size)) if values is None else tuple(values)
    numerators, terms, scale, _ = _ground(labels, kind, "<emd>", distance, hierarchy)
    if scale == 0:
        return Fraction(0)
    present = np.flatnonzero(class_counts[0])
    cells = ClassCells(
        cls=np.zeros(present.size, dtype=np.int64), value=present, count=class_counts[0][present],
        present=np.zeros(1, dtype=np.int64), starts=np.zeros(1, dtype=np.int64), sizes=np.array([size]),
    )
    numerator = class_numerators(cells, table_counts, terms, numerators)[0]
    return Fraction(int(numerator), size * n * scale)


def _ground(
    values: Sequence[Any], kind: str, attribute: Any, distance: str, hierarchy: Hierarchy | None
) -> tuple[Numerators, int, int, dict[str, Any]]:
    """The numerators, the number of features, the scale ``s`` and the parameters of a ground distance."""
    if distance not in ("equal", "ordered", "hierarchical"):
        raise PolicyError(f"t-closeness distance: expected 'equal', 'ordered' or 'hierarchical', found {distance!r}")
    if hierarchy is not None and distance != "hierarchical":
        raise PolicyError(f"attribute {attribute!r}: a hierarchy applies to the hierarchical distance only, not {distance!r}")
    m = len(values)
    if distance == "equal":
        return equal_numerators, m, 2, {"values": m}
    if distance == "ordered":
        if kind not in ("numerical", "ordinal"):
            raise PolicyError(
                f"attribute {attribute!r}: the ordered distance needs a numerical or ordinal attribute, found {kind!r}"
            )
        return ordered_numerators, m, m - 1, {"values": m}
    if hierarchy is None:
        raise PolicyError(f"attribute {attribute!r}: the hierarchical distance needs a hierarchy file, none was given")
    order, starts = hierarchy.node_runs(values, attribute)
    node_of = []
    for runs in starts:
        node = np.empty(m, dtype=np.int64)
        node[order] = np.searchsorted(runs, np.arange(m), side="right") - 1
        node_of.append(node)
    terms = sum(runs.size for runs in starts)
    numerators = hierarchical_numerators(tuple(node_of))
    return numerators, terms, 2 * hierarchy.height, {"hierarchy": hierarchy.digest, "height": hierarchy.height, "values": m}
