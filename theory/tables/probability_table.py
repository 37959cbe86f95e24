"""Probability tables: the object every theory level is measured on.

A probability table is what a privacy mechanism Z does to a data set, seen the way the
definitions of Ekenstedt et al. 2022 see it: one row per record i, one column per bucket B_l, entry
``Pr(Z(c_i) ∈ B_l)``, plus the partition of the records into equivalence classes (the
quasi-identifier groups of multiplicative t-closeness). Every privacy level of
:mod:`theory.tables.levels` is a function of this table only.

Public API (stable; used by ``privcert theory`` and :mod:`theory.checks`)::

    ProbabilityTable(probs, classes)          # frozen, validated, exact Fractions
    ProbabilityTable.from_rows(rows, classes=None)
    ProbabilityTable.from_json(data) / .to_json()
    table.n, table.p, table.column(l), table.restrict(records)

References
----------
Ekenstedt et al. 2022, Sec. III.B and Table I (records r_i, buckets B_l, classes E_m);
Appendix (the tables give ``Pr(c_i = a_1)`` per record, two buckets {a_1}, {a_2}).
Domingo-Ferrer & Soria-Comas 2015, Sec. 3, Definition 3 (``Pr_{Z(c_i)}(B)``).
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

__all__ = ["ProbabilityTable"]


def _exact(value: object, where: str) -> Fraction:
    """Convert an int, Fraction or ``"p/q"`` string to a Fraction; floats are refused."""
    if isinstance(value, bool) or isinstance(value, float):
        raise ValueError(
            f"{where}: expected an exact probability (int, Fraction or 'p/q' string), "
            f"found {type(value).__name__} {value!r}"
        )
    if isinstance(value, int | Fraction):
        return Fraction(value)
    if isinstance(value, str):
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{where}: expected a 'p/q' string, found {value!r}") from None
    refused = f"{where}: expected an exact probability, found {type(value).__name__} {value!r}"
    if not isinstance(value, numbers.Rational | Decimal):  # all Fraction accepts beyond the above
        raise ValueError(refused)
    try:
        return Fraction(value)  # sympy Rational registers as numbers.Rational
    except (TypeError, ValueError):
        raise ValueError(refused) from None


def _exact_rows(rows: Iterable[Iterable[object]]) -> tuple[tuple[Fraction, ...], ...]:
    """Every entry through :func:`_exact`, named by its row and bucket."""
    return tuple(
        tuple(_exact(v, f"row {i}, bucket {l}") for l, v in enumerate(row))
        for i, row in enumerate(rows)
    )


@dataclass(frozen=True)
class ProbabilityTable:
    """Per-record bucket probabilities ``Pr(Z(c_i) ∈ B_l)`` and an equivalence-class partition.

    Parameters
    ----------
    probs
        N rows (records) of p exact probabilities (buckets); every row sums to exactly 1
        (the buckets partition range(Z), Ekenstedt et al. 2022, Def. 4). Entries are converted to
        :class:`fractions.Fraction`; floats are refused.
    classes
        A partition of ``range(N)`` into non-empty equivalence classes (Ekenstedt et al. 2022, Def. 4,
        ``E_1, ..., E_M``). Each class is stored sorted, classes ordered by first record.

    Raises
    ------
    ValueError
        A ragged or empty table, a probability outside [0, 1], a row that does not sum to 1,
        or classes that are not a partition of ``range(N)``; the message names the row/class.

    Examples
    --------
    >>> table = ProbabilityTable.from_rows([["1/2", "1/2"], [1, 0]])
    >>> table.n, table.p, table.classes
    (2, 2, ((0, 1),))
    >>> table.to_json()["probs"]
    [['1/2', '1/2'], ['1', '0']]
    """

    probs: tuple[tuple[Fraction, ...], ...]
    classes: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        rows = _exact_rows(self.probs)
        if not rows:
            raise ValueError("probability table: expected at least one record (row), found none")
        width = len(rows[0])
        if width == 0:
            raise ValueError("probability table: expected at least one bucket (column), found none")
        for i, row in enumerate(rows):
            if len(row) != width:
                raise ValueError(
                    f"row {i}: expected {width} bucket probabilities (as row 0), found {len(row)}"
                )
            for l, value in enumerate(row):
                if not 0 <= value <= 1:
                    raise ValueError(f"row {i}, bucket {l}: expected a probability in [0, 1], found {value}")
            total = sum(row, Fraction(0))
            if total != 1:
                raise ValueError(f"row {i}: expected bucket probabilities summing to 1, found sum {total}")
        object.__setattr__(self, "probs", rows)
        object.__setattr__(self, "classes", _validated_classes(self.classes, len(rows)))

    @classmethod
    def from_rows(
        cls,
        rows: Iterable[Iterable[object]],
        classes: Iterable[Iterable[int]] | None = None,
    ) -> ProbabilityTable:
        """Build a table from rows of ints, Fractions or ``"p/q"`` strings.

        ``classes`` defaults to a single class holding every record (no quasi-identifier
        grouping, as in Tables IV, VI and VII of Ekenstedt et al. 2022).
        """
        listed = tuple(tuple(row) for row in rows)
        groups = ((tuple(range(len(listed))),) if classes is None else tuple(tuple(c) for c in classes))
        return cls(_exact_rows(listed), groups)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ProbabilityTable:
        """Inverse of :meth:`to_json`: ``{"probs": [["p/q", ...], ...], "classes": [[0, 1], ...]}``."""
        if "probs" not in data:
            raise ValueError(f"probability table JSON: expected key 'probs', found keys {sorted(data)}")
        classes = data.get("classes")
        return cls.from_rows(data["probs"], classes)

    def to_json(self) -> dict[str, Any]:
        """JSON-able form; probabilities as exact ``"p/q"`` strings (``"1"``, ``"0"`` for integers)."""
        return {
            "probs": [[str(v) for v in row] for row in self.probs],
            "classes": [list(c) for c in self.classes],
        }

    @property
    def n(self) -> int:
        """Number of records N."""
        return len(self.probs)

    @property
    def p(self) -> int:
        """Number of buckets p."""
        return len(self.probs[0])

    def column(self, bucket: int) -> tuple[Fraction, ...]:
        """``Pr(Z(c_i) ∈ B_bucket)`` for every record i."""
        return tuple(row[bucket] for row in self.probs)

    def restrict(self, records: Sequence[int]) -> ProbabilityTable:
        """The sub-table of the given records (renumbered 0..len-1), as a single class.

        Used to measure a level *within* one equivalence class (Ekenstedt et al. 2022, proof of Theorem 5).
        """
        return ProbabilityTable.from_rows([self.probs[i] for i in records])


def _validated_classes(classes: Iterable[Iterable[int]], n: int) -> tuple[tuple[int, ...], ...]:
    groups = [tuple(sorted(int(i) for i in c)) for c in classes]
    seen: dict[int, int] = {}
    for m, group in enumerate(groups):
        if not group:
            raise ValueError(f"class {m}: expected a non-empty equivalence class, found an empty one")
        for i in group:
            if not 0 <= i < n:
                raise ValueError(f"class {m}: expected record indices in range({n}), found {i}")
            if i in seen:
                raise ValueError(f"class {m}: record {i} is already in class {seen[i]}; classes must be disjoint")
            seen[i] = m
    missing = sorted(set(range(n)) - set(seen))
    if missing:
        raise ValueError(f"classes: expected a partition of range({n}), records {missing} are in no class")
    return tuple(sorted(groups))
