r"""Stochastic t-closeness with the Earth Mover's Distance over the mechanism's buckets.

Domingo-Ferrer & Soria-Comas 2015, Def. 3 measures, for each equivalence class ``E``, the
distance between the distributions the mechanism induces on the buckets,

.. math::
    \Pr\nolimits_D(B_b) = \frac{1}{N} \sum_v N_v\, M[v, b], \qquad
    \Pr\nolimits_E(B_b) = \frac{1}{|E|} \sum_v n[E, v]\, M[v, b],

and leaves the distance open; with the EMD of Li et al. 2007 (equal, ordered or
hierarchical ground distance, :mod:`verifier.privacy.t_closeness`) the level is
``t = max_E EMD(Pr_E, Pr_D)``. Both distributions are exact: with ``L`` the common
denominator of ``M``, ``|E| L Pr_E(B_b)`` and ``N L Pr_D(B_b)`` are integers, so the class ×
bucket table of these masses is a count table whose classes have the distributions
``Pr_E`` and whose totals have ``Pr_D``, and :func:`verifier.privacy.t_closeness.t_closeness` measures it
exactly. The ordered distance takes the buckets in the mechanism's column order, the
hierarchical one a hierarchy whose leaves are the buckets.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from verifier._exact_max import INT64_SAFE
from verifier.errors import MechanismError
from verifier.privacy.t_closeness import Distance, t_closeness
from verifier.randomized.levels import mechanism_rows
from verifier.randomized.mechanism import AnyMechanism
from verifier.results import Measurement, Witness
from verifier.tables.counts import AttributeKind, AttributeSpec, CountTable
from verifier.tables.hierarchy import Hierarchy

__all__ = ["stochastic_emd"]


def stochastic_emd(
    table: CountTable, mechanism: AnyMechanism, distance: Distance, hierarchy: Hierarchy | None = None
) -> Measurement:
    """Optimal t of stochastic t-closeness with the EMD: ``max_E EMD(Pr_E, Pr_D)``, exact.

    Parameters
    ----------
    table
        The original data's count table ``n[class, true value]``.
    mechanism
        An exact mechanism (the EMD is not monotone in the entries, so interval bounds of
        ``M`` do not bound it simply: refused for an :class:`~verifier.randomized.mechanism.IntervalMechanism`).
    distance
        ``equal``, ``ordered`` (buckets in column order) or ``hierarchical``.
    hierarchy
        For ``hierarchical``: a hierarchy whose leaves are the buckets.

    Returns
    -------
    Measurement
        Model ``stochastic_t_closeness`` with ``distance`` set; the witness is the class
        that attains the level, with its EMD.

    Raises
    ------
    MechanismError
        An interval mechanism, or masses beyond 64-bit integers (``N L ≥ 2^62``).

    References
    ----------
    Domingo-Ferrer & Soria-Comas 2015, Definition 3; Li et al. 2007, "Earth Mover Distance".
    """
    if not mechanism.exact:
        raise MechanismError(f"stochastic t-closeness with the {distance} EMD needs an exact mechanism; "
                             f"{mechanism.name} is known only between bounds")
    numerators, denominators = mechanism.scaled  # type: ignore[union-attr]
    common = math.lcm(*denominators)
    if table.n * common >= INT64_SAFE:
        raise MechanismError(f"stochastic t-closeness with the EMD: N·L = {table.n}·{common} is beyond 64-bit "
                             f"integers (L, the common denominator of {mechanism.name}, is too large)")
    weights = (numerators * np.array([common // d for d in denominators], dtype=object)).astype(np.int64)
    # Masses n[E, ·] @ W are integers ≤ |E| L: below 2^53 every float64 partial sum is exact (BLAS).
    dtype = np.float64 if table.n * common < 2**53 else np.int64
    rows = weights[mechanism_rows(table, mechanism)].astype(dtype)  # table value code × bucket, rows sum to L
    cls, buckets, masses = [], [], []
    for start, _, block in table.blocks(max(1, (1 << 20) // max(table.m, 1)) * table.m):
        mass = (np.asarray(block, dtype=dtype) @ rows).astype(np.int64)
        where = np.nonzero(mass)
        cls.append(where[0] + start)
        buckets.append(where[1])
        masses.append(mass[where])
    class_index, value_index, count = (np.concatenate(parts) for parts in (cls, buckets, masses))
    totals = np.zeros(len(mechanism.buckets), dtype=np.int64)
    np.add.at(totals, value_index, count)
    kind: AttributeKind = "ordinal" if distance == "ordered" else "categorical"
    scaled = CountTable(
        spec=AttributeSpec(table.spec.columns, kind=kind, order=tuple(mechanism.buckets)),
        classes=table.classes,
        values=tuple(mechanism.buckets),
        class_index=class_index,
        value_index=value_index,
        count=count,
        sizes=np.asarray(table.sizes, dtype=np.int64) * common,
        totals=totals,
    )
    measured = t_closeness(scaled, distance, hierarchy)
    found = measured.witness
    assert found is not None and found.qi is not None
    witness = Witness(qi=found.qi, size=int(found.size // common) if found.size is not None else None,
                      numbers={"emd": found.numbers["emd"]})
    return replace(measured, model="stochastic_t_closeness", witness=witness,
                   parameters={**measured.parameters, "k": int(table.classes.sizes.min()), "domain": "buckets"})
