"""A population table: how many people of the population share each quasi-identifier combination.

The table is a CSV (or Parquet) file with the release's quasi-identifier columns and a
column ``count``; values are matched to the release's classes as text (an empty cell is
a missing value, as in the release). Each class of the release must appear in it with a
count at least its own size, since the release is a sample of that population.

k-map and δ-presence are measured against it; marketer and journalist risk use it when
it is given.

References
----------
El Emam & Dankar 2008, Sec. 3 (k-map: every record of the release matches at least k
people of the population); Nergiz, Atzori & Clifton 2007, Def. 3 (δ-presence: for every
person t of the population, δ_min ≤ P(t ∈ release | generalized release) ≤ δ_max).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from verifier.errors import DataError, InputFileNotFoundError
from verifier.inputs import COUNT_COLUMN, PopulationTable
from verifier.results import Level, Measurement, Witness
from verifier.tables.counts import Classes
from verifier.tables.values import exact_number

__all__ = ["load_population_table", "class_populations", "k_map", "delta_presence"]

_MISSING = "\x00missing"


def load_population_table(path: str | Path, qi: tuple[str, ...] | None = None, *,
                          encoding: str = "utf-8") -> PopulationTable:
    """Read a population table (a CSV in ``encoding``, or Parquet); counts are non-negative integers, repeated
    combinations are summed.

    Raises
    ------
    InputFileNotFoundError
        No such file.
    DataError
        No ``count`` column, a count that is not a non-negative integer, or (when ``qi``
        is given) a quasi-identifier column missing (the message names file, column and row).
    """
    from verifier.tables.load import load_table

    path = Path(path)
    if not path.is_file():
        raise InputFileNotFoundError(f"{path}: population table not found")
    frame = load_table(path, encoding=encoding)
    if COUNT_COLUMN not in frame.columns:
        raise DataError(f"{path}: population table: expected a column {COUNT_COLUMN!r} with the number of people "
                        f"of each quasi-identifier combination, found the columns {list(frame.columns)}")
    if frame.empty:
        raise DataError(f"{path}: population table: a header and no rows; expected a row per quasi-identifier "
                        f"combination with its {COUNT_COLUMN!r} of people")
    if qi is not None and COUNT_COLUMN in qi:
        raise DataError(f"{path}: population table: the quasi-identifier {COUNT_COLUMN!r} has the name of the table's "
                        f"column of people per combination; rename the quasi-identifier in the release and the table")
    counts = []
    for row, text in enumerate(frame[COUNT_COLUMN].tolist(), start=2):
        value = exact_number(text) if isinstance(text, str) else None
        if not isinstance(value, int) or value < 0:
            raise DataError(f"{path}: population table line {row}, column {COUNT_COLUMN!r}: expected a non-negative "
                            f"integer, found {text!r}")
        counts.append(value)
    frame = frame.assign(**{COUNT_COLUMN: pd.Series(counts, index=frame.index, dtype=object)})
    if qi is not None:
        absent = [column for column in qi if column not in frame.columns]
        if absent:
            raise DataError(f"{path}: population table: expected the quasi-identifier columns {list(qi)}, "
                            f"{absent} absent")
        frame = frame.groupby(list(qi), dropna=False, sort=False, as_index=False)[COUNT_COLUMN].sum()
    return PopulationTable(frame, str(path), hashlib.sha256(path.read_bytes()).hexdigest())


def _text_keys(frame: pd.DataFrame, qi: tuple[str, ...]) -> pd.DataFrame:
    """The quasi-identifier values as text, a missing value as a marker no text can equal."""
    return pd.DataFrame({c: [(_MISSING if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA else str(v))
                             for v in frame[c].tolist()] for c in qi})


@dataclass(frozen=True)
class ClassPopulations:
    """The population count ``F_k`` of every class of a release, and the table's facts.

    Attributes
    ----------
    sizes
        ``F_k`` per class of the release (aligned with :attr:`verifier.tables.counts.Classes.sizes`).
    total
        The population size (all counts of the table).
    unmatched
        The table's combinations with a positive count and no record in the release.
    source, sha256
        The table's file and digest.
    """

    sizes: np.ndarray  # Python ints (dtype object): exact at any size
    total: int
    unmatched: int
    source: str
    sha256: str


def class_populations(table: PopulationTable, classes: Classes) -> ClassPopulations:
    """Match each class of the release to its population count.

    Raises
    ------
    DataError
        A quasi-identifier column is absent from the table, a class of the release is not
        in it, or a class has more records than its population count.
    """
    qi = classes.qi
    absent = [column for column in qi if column not in table.frame.columns]
    if absent:
        raise DataError(f"{table.source}: population table: expected the quasi-identifier columns {list(qi)}, "
                        f"{absent} absent")
    frame = table.frame.groupby(list(qi), dropna=False, sort=False, as_index=False)[COUNT_COLUMN].sum()
    population = _text_keys(frame, qi).assign(**{COUNT_COLUMN: frame[COUNT_COLUMN].to_numpy()})
    release = _text_keys(classes.keys, qi).assign(_class=np.arange(classes.count))
    joined = release.merge(population, on=list(qi), how="left", sort=False).sort_values("_class")
    found = joined[COUNT_COLUMN].to_numpy(dtype=object)
    missing = np.flatnonzero(pd.isna(found))
    if missing.size:
        raise DataError(f"{table.source}: population table: expected a row for every class of the release, found none "
                        f"for class {classes.describe(int(missing[0]))} ({missing.size} classes absent)")
    sizes = np.array([int(count) for count in found.tolist()], dtype=object)  # exact at any size, never float64
    short = np.flatnonzero(np.asarray(sizes < classes.sizes.astype(object), dtype=bool))
    if short.size:
        index = int(short[0])
        raise DataError(f"{table.source}: population table: class {classes.describe(index)} has "
                        f"{int(classes.sizes[index])} records in the release but a population count of "
                        f"{int(sizes[index])}; expected at least as many people as records")
    outside = population.merge(release[list(qi)], on=list(qi), how="left", indicator=True)["_merge"].eq("left_only")
    unmatched = int((outside & population[COUNT_COLUMN].map(lambda count: int(count) > 0)).sum())
    return ClassPopulations(sizes, table.total, unmatched, table.source, table.sha256)


def _table_numbers(populations: ClassPopulations) -> dict[str, object]:
    return {"population": populations.total, "population_table_sha256": populations.sha256}


def k_map(classes: Classes, populations: ClassPopulations) -> Measurement:
    """The optimal k of k-map: the smallest population count of a class present in the release.

    .. math:: k^* = \\min_{E \\in release} F_E

    References
    ----------
    El Emam & Dankar 2008, Sec. 3 (k-map).
    """
    from verifier._exact_max import first_by_qi

    if classes.count == 0:
        return Measurement("k_map", None, Level.undefined("the release has no records"), None, "at_least")
    smallest = int(populations.sizes.min())
    ties = np.flatnonzero(populations.sizes == smallest)
    index = first_by_qi(classes, ties)
    witness = Witness(qi=classes.describe(index), size=int(classes.sizes[index]),
                      numbers={"population_count": smallest, "classes_at_k": int(ties.size), **_table_numbers(populations)})
    return Measurement("k_map", None, Level.of(smallest), witness, "at_least")


def delta_presence(classes: Classes, populations: ClassPopulations) -> Measurement:
    """δ-presence: the largest probability ``f_E / F_E`` that a person of the population is in the release.

    The level is ``δ_max``; ``numbers.delta_min`` is the smallest such probability over
    the population's combinations (0 when the table has a combination the release does
    not hold).

    References
    ----------
    Nergiz, Atzori & Clifton 2007, Def. 3.
    """
    from verifier._exact_max import exact_argmax, first_by_qi

    if classes.count == 0:
        return Measurement("delta_presence", None, Level.undefined("the release has no records"), None, "at_most")
    nonzero = np.asarray(populations.sizes > 0, dtype=bool)
    top, where = exact_argmax(classes.sizes[nonzero], populations.sizes[nonzero])
    index = first_by_qi(classes, np.flatnonzero(nonzero)[where])
    low, _ = exact_argmax(-classes.sizes[nonzero], populations.sizes[nonzero])
    delta_min = Fraction(0) if populations.unmatched else -low
    witness = Witness(qi=classes.describe(index), size=int(classes.sizes[index]), numbers={
        "population_count": int(populations.sizes[index]), "delta_min": delta_min,
        "population_classes_not_in_release": populations.unmatched, **_table_numbers(populations)})
    return Measurement("delta_presence", None, Level.of(top), witness, "at_most")
