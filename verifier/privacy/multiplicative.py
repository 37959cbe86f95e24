"""Multiplicative t-closeness: the largest ratio between class and table probabilities.

Domingo-Ferrer & Soria-Comas 2015, Definition 4 measures two distributions by
``max_S max(Pr_1(S)/Pr_2(S), Pr_2(S)/Pr_1(S))`` over all sets ``S`` (``0/0 = 0``,
``x/0 = ∞``); for discrete distributions the maximum over single points suffices
(Domingo-Ferrer & Soria-Comas 2015, Proposition 2, eq. (4)): a ratio of sums ``Σa_i / Σb_i`` never exceeds the
largest ``a_i / b_i`` (mediant inequality). Ekenstedt et al. 2022, Definition 4
states the same model. On a count table, with buckets ``b`` of the sensitive
attribute,

.. math::

    t = \\max_{E,\\,b:\\,N_b > 0} \\max\\left(\\frac{n_{E,b}\\,N}{|E|\\,N_b},
        \\frac{|E|\\,N_b}{n_{E,b}\\,N}\\right) \\ge 1,

an exact rational, and infinite when some class has no record in a bucket that the
table holds (Domingo-Ferrer & Soria-Comas 2015, §6). ``t >= 1`` because both distributions sum to 1, so some bucket
has ``P_E(b) >= P(b)``.
"""

from __future__ import annotations

from verifier.privacy._ratios import ratio_extreme
from verifier.privacy._screen import cells_of, class_witness, excluded_notes, undefined
from verifier.results import Level, Measurement, Witness
from verifier.tables.buckets import Bucketing, DistinctValues, bucketize
from verifier.tables.counts import CountTable

__all__ = ["multiplicative_t_closeness"]


def multiplicative_t_closeness(table: CountTable, buckets: Bucketing | None = None) -> Measurement:
    """The smallest ``t`` for which the table is multiplicatively t-close.

    Parameters
    ----------
    table
        Count table of the sensitive attribute. Classes with no counted row are skipped.
    buckets
        How values are grouped before measuring (:mod:`verifier.tables.buckets`); distinct
        values when ``None``.

    Returns
    -------
    Measurement
        Model ``multiplicative_t_closeness``, comparison ``at_most``. The witness is the
        class (ties broken by the ``repr`` of its QI values) and bucket attaining the
        level, with ``n[E,b]``, ``|E|``, ``N_b`` and ``N``. An infinite level names a class
        and a bucket it lacks.

    References
    ----------
    Domingo-Ferrer & Soria-Comas 2015, Definition 4, Proposition 2 (eq. 4), §6;
    Ekenstedt et al. 2022, Definition 4.
    """
    bucketing = DistinctValues() if buckets is None else buckets
    bucketed = bucketize(table, bucketing)
    parameters = {**bucketing.parameters, "bucket_count": bucketed.m}
    if not isinstance(bucketing, DistinctValues):
        parameters["buckets"] = list(bucketed.values)
    cells = cells_of(bucketed)
    if cells.present.size == 0:
        return undefined("multiplicative_t_closeness", bucketed, "at_most", parameters=parameters)
    extreme = ratio_extreme(bucketed, cells)
    label = bucketed.values[extreme.code]
    numbers = {
        "class_count": int(bucketed.row(extreme.index)[extreme.code]),
        "class_size": int(bucketed.sizes[extreme.index]),
        "bucket_count": int(bucketed.totals[extreme.code]),
        "table_size": bucketed.n,
    }
    if extreme.ratio is None:
        reason = (
            f"class {bucketed.classes.describe(extreme.index)} has no record in bucket {label!r}, which holds "
            f"{numbers['bucket_count']} of the table's {bucketed.n} records: the ratio P(b)/P_E(b) has a zero "
            "denominator (Domingo-Ferrer & Soria-Comas 2015, Definition 4)"
        )
        witness = class_witness(bucketed, extreme.index, label, **numbers, classes_lacking_a_bucket=extreme.lacking)
        return _measurement(bucketed, Level.infinite(reason), witness, parameters)
    direction = "class/table" if extreme.class_over_table else "table/class"
    witness = class_witness(bucketed, extreme.index, label, ratio=extreme.ratio, direction=direction, **numbers)
    return _measurement(bucketed, Level.of(extreme.ratio), witness, parameters)


def _measurement(table: CountTable, level: Level, witness: Witness, parameters: dict[str, object]) -> Measurement:
    return Measurement(
        model="multiplicative_t_closeness",
        attribute=table.attribute,
        level=level,
        witness=witness,
        comparison="at_most",
        parameters=parameters,
        notes=excluded_notes(table),
    )
