"""Publisher mode: every level of a randomized release as a :class:`~verifier.results.Measurement`.

The publisher holds the original data and the mechanism. From the count table
``n[class, true value]`` of the sensitive attribute and the matrix ``M`` it measures
(:mod:`verifier.randomized.levels`):

========================  ======================================  ============================
model id                  definition                              level
========================  ======================================  ============================
``stochastic_t_closeness``  Domingo-Ferrer & Soria-Comas 2015,     t (multiplicative distance);
                          Def. 3 with Def. 4 = Ekenstedt et al.   ``parameters.k`` is the
                          2022, Def. 4                            smallest class (k-anonymity)
``ldp``                   Ekenstedt et al. 2022, Def. 6           ε = ln(...)
``dp``                    Ekenstedt et al. 2022, Def. 5           ε = ln(...)
``kt_closeness``          Ekenstedt et al. 2022, Def. 7           t, for each requested k
``k_eps_dp``              Ekenstedt et al. 2022, Def. 8           ε = ln(...), for each k
========================  ======================================  ============================

Witnesses name the class (QI values), the bucket and the subset in words, e.g. "the 5
records with the lowest Pr('flu'): 3 × 'cold', 2 × 'asthma'".
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import sympy

from verifier.errors import DataError
from verifier.privacy.t_closeness import Distance
from verifier.randomized.levels import Extreme, dp, k_eps_dp, kt_closeness, ldp, multiplicative_t
from verifier.randomized.mechanism import AnyMechanism, Mechanism
from verifier.randomized.stochastic_emd import stochastic_emd
from verifier.results import Level, Measurement, Witness
from verifier.tables.counts import CountTable
from verifier.tables.hierarchy import Hierarchy

__all__ = ["in_nats", "trivial_level", "publisher_measurements", "auditor_ldp", "describe_subset", "ratio_level",
           "stochastic_t_closeness_levels", "ldp_level", "dp_level", "subset_level"]

def in_nats(model_id: str) -> bool:
    """Whether a randomized model's level is an ε (natural logarithm, declared in ``nats``); the others' is a t."""
    from verifier.registry import model

    return model(model_id).units == "nats"


def trivial_level(model: str, distance: str | None = None) -> Level:
    """The bound every release meets: ε ≥ 0, t ≥ 1 (multiplicative distances), t ≥ 0 (EMD): the
    lower bound of a level known only from above."""
    return Level.of(0 if in_nats(model) or distance not in (None, "multiplicative") else 1)


def ratio_level(model: str, ratio: Fraction | None, reason: str) -> Level:
    """The level as reported: ``t`` itself, or ``ε = ln(e^ε)`` for the DP family; ∞ with ``reason``."""
    if ratio is None:
        return Level.infinite(reason)
    value = sympy.Rational(ratio.numerator, ratio.denominator)
    return Level.of(sympy.log(value) if in_nats(model) else value)


def _lower(model: str, extreme: Extreme, reason: str) -> Level | None:
    """The lower bound of a level measured on an interval mechanism (``None`` when exact)."""
    return None if extreme.exact else ratio_level(model, extreme.lower, reason)


def _label(value: object) -> str:
    """A true value in words: text quoted (``'flu'``), numbers as written (``5/2``)."""
    return repr(value) if isinstance(value, str) else str(value)


def describe_subset(extreme: Extreme, mechanism: AnyMechanism, removal: bool) -> str:
    """The witness subset in words: ``the 5 records with the lowest Pr('flu'): 3 × 'cold', 2 × 'asthma'``."""
    size = sum(count for _, count in extreme.subset)
    highest = extreme.side == ("table/subset" if removal else "subset/table")
    members = ", ".join(f"{count} × {_label(mechanism.values[row])}" for row, count in extreme.subset)
    what = "removing " if removal else ""
    return (f"{what}the {size} record{'s' if size != 1 else ''} with the {'highest' if highest else 'lowest'} "
            f"Pr({_label(mechanism.buckets[extreme.bucket])}): {members}")


_NOT_EXACT = ("not exact: the mechanism's probabilities are transcendental; the level lies between "
              "the bounds, computed with outward-rounded interval arithmetic")


def _measurement(model: str, table: CountTable, extreme: Extreme, reason: str, witness: Witness,
                 **parameters: Any) -> Measurement:
    notes = (("ε in natural logarithm",) if in_nats(model) else ()) + (() if extreme.exact else (_NOT_EXACT,))
    return Measurement(model, table.attribute, ratio_level(model, extreme.ratio, reason), witness, "at_most",
                       parameters=parameters, notes=notes, lower=_lower(model, extreme, reason))


def _sized(model: str, table: CountTable, mechanism: AnyMechanism, k: int, removal: bool) -> Measurement:
    extreme = (k_eps_dp if removal else kt_closeness)(table, mechanism, k)
    subset = describe_subset(extreme, mechanism, removal)
    witness = Witness(value=mechanism.buckets[extreme.bucket], numbers={"subset": subset, "direction": extreme.side})
    reason = f"{subset} gives Pr({mechanism.buckets[extreme.bucket]!r}) = 0 against a positive Pr_D"
    return _measurement(model, table, extreme, reason, witness, k=k)


def _ldp_measurement(table: CountTable, mechanism: AnyMechanism, local: Extreme, **parameters: Any) -> Measurement:
    (high, _), (low, _) = local.subset
    pair = {"highest": mechanism.values[high], "lowest": mechanism.values[low]}
    bucket = mechanism.buckets[local.bucket]
    numbers: dict[str, Any] = dict(pair)
    if isinstance(mechanism, Mechanism):
        numbers["probabilities"] = [mechanism.matrix[high][local.bucket], mechanism.matrix[low][local.bucket]]
    lowest, highest = (repr(v) if isinstance(v, str) else str(v) for v in (pair["lowest"], pair["highest"]))
    reason = (f"true value {lowest} never releases bucket {bucket!r}, {highest} can" if local.exact else
              f"true value {lowest} releases bucket {bucket!r} with a probability known only to lie between 0 and "
              f"a positive bound, so the ratio of {highest}'s probability to it has no finite upper bound")
    return _measurement("ldp", table, local, reason, Witness(value=bucket, numbers=numbers), **parameters)


def auditor_ldp(release: CountTable, mechanism: AnyMechanism) -> Measurement:
    """Auditor mode: ε-LDP of ``mechanism`` over every row of ``M`` (no original data needed).

    ``release`` is the count table of the released attribute; each of its values must be a
    bucket of the mechanism (otherwise the release was not made by it).

    Raises
    ------
    DataError
        A released value is not a bucket of the mechanism.
    """
    buckets = {str(bucket) for bucket in mechanism.buckets}
    for code, value in enumerate(release.values):
        if value not in mechanism.buckets and str(value) not in buckets:
            raise DataError(
                f"attribute {release.attribute!r}: released value {value!r} (held by {int(release.totals[code])} "
                f"record(s)) is not a bucket of {mechanism.name}; expected one of {list(mechanism.buckets)}"
            )
    return _ldp_measurement(release, mechanism, ldp(mechanism), data_independent=True)


def stochastic_t_closeness_levels(table: CountTable, mechanism: AnyMechanism,
                                  distances: Sequence[tuple[Distance, Hierarchy | None]] = ()) -> tuple[Measurement, ...]:
    """Stochastic t-closeness with the multiplicative distance, then with each EMD ``distance``.

    ``parameters.k`` of the multiplicative level is the smallest class (its k-anonymity);
    the EMD levels are :func:`verifier.randomized.stochastic_emd.stochastic_emd`'s.
    """
    found = multiplicative_t(table, mechanism)
    bucket = mechanism.buckets[found.bucket]
    assert found.cls is not None
    multiplicative = _measurement(
        "stochastic_t_closeness", table, found,
        f"class {table.classes.describe(found.cls)} cannot release bucket {bucket!r}, which others can",
        Witness(qi=table.classes.describe(found.cls), size=int(table.sizes[found.cls]), value=bucket,
                numbers={"direction": found.side}),
        k=int(table.classes.sizes.min()), distance="multiplicative",
    )
    return (multiplicative, *(stochastic_emd(table, mechanism, distance, hierarchy) for distance, hierarchy in distances))


def ldp_level(table: CountTable, mechanism: AnyMechanism) -> Measurement:
    """ε-LDP of ``mechanism`` over the rows of the values ``table`` holds (publisher mode)."""
    return _ldp_measurement(table, mechanism, ldp(mechanism, table))


def dp_level(table: CountTable, mechanism: AnyMechanism) -> Measurement | None:
    """ε-DP of the release of ``table`` (removing one record); ``None`` for a single record."""
    if table.n <= 1:
        return None
    one = dp(table, mechanism)
    subset = describe_subset(one, mechanism, removal=True)
    return _measurement("dp", table, one, f"{subset} empties a bucket",
                        Witness(value=mechanism.buckets[one.bucket], numbers={"subset": subset}))


def subset_level(model: str, table: CountTable, mechanism: AnyMechanism, k: int, removal: bool) -> Measurement:
    """``kt_closeness`` (``removal`` false: a subset of ``k`` records compared with the table) or ``k_eps_dp``
    (``removal``: a subset of ``k`` records removed), with the witness subset in words."""
    return _sized(model, table, mechanism, k, removal)


def publisher_measurements(
    table: CountTable, mechanism: AnyMechanism, ks: Sequence[int] = (),
    distances: Sequence[tuple[Distance, Hierarchy | None]] = (),
) -> tuple[Measurement, ...]:
    """Every randomized level of the release of ``table``'s attribute through ``mechanism``.

    Parameters
    ----------
    table
        The original data's count table ``n[class, true value]`` of the attribute the
        mechanism randomizes.
    mechanism
        The matrix ``M[true value, bucket]``; every value of the attribute must be a row.
    ks
        Subset sizes for ``kt_closeness`` and ``k_eps_dp`` (each in ``[1, N-1]``).
    distances
        EMD ground distances (with the hierarchy for ``hierarchical``) for which
        ``stochastic_t_closeness`` is also measured (:func:`verifier.randomized.stochastic_emd.stochastic_emd`).

    Returns
    -------
    tuple of Measurement
        The levels of the registry's randomized models (:mod:`verifier.models.randomized`),
        in registry order: ``stochastic_t_closeness`` (multiplicative, then each EMD
        distance), ``ldp``, ``dp``, ``kt_closeness`` and ``k_eps_dp`` for each k.
    """
    from verifier.inputs import Inputs
    from verifier.registry import MeasureOptions, Subject, models

    options = MeasureOptions(inputs=Inputs(mechanism=mechanism, subset_sizes=tuple(ks),
                                           stochastic_distances=tuple(distances)))
    subject = Subject(table.classes, table, options)
    return tuple(m for item in models("randomized") for m in item.measure(subject))
