"""An original table and its release, record by record: what every utility model is measured on.

The release lists the original's records in the same order (row-aligned), or carries a key
column that names each record's original row; a record of the original that the release
leaves out (matched by key) counts as suppressed. Every cell is text, as written
(:mod:`verifier.tables.load`); numbers are parsed only where a model needs them
(:func:`verifier.tables.values.exact_number`).

Each quasi-identifier has a :class:`GeneralizationDomain`: its hierarchy (:mod:`verifier.tables.hierarchy`) or,
without one, the original's distinct values under one root ``*`` (ARX's default hierarchy,
``StatisticsQuality.getHierarchies``); when the release holds labels that generalize the
original's values (``30-39``, ``[30,40)``, ``478**``, :func:`label_members`), the hierarchy
value → label → ``*`` is read from them, and :attr:`Pair.inferred` says so. Without a key,
rows pair by position unless a column both tables share holds the original's values in
another order (the rows were reordered): then the tables are refused. A release cell is *suppressed* when it is missing,
the suppression mark (``*`` by default) or the hierarchy's root; a record is suppressed
when all its quasi-identifier cells are (ARX, ``QualityModel.isSuppressed``).

>>> import pandas as pd
>>> pair = align(pd.DataFrame({"age": ["21", "22", "35"]}), pd.DataFrame({"age": ["2*", "2*", "*"]}), ["age"],
...              hierarchies={"age": Hierarchy.from_rows([["21", "2*", "*"], ["22", "2*", "*"], ["35", "3*", "*"]])})
>>> pair.rows, pair.columns[0].release, pair.suppressed
(3, ('2*', '2*', None), (False, False, True))
>>> pair.columns[0].domain.leaf_count("2*"), pair.columns[0].domain.level("2*")
(2, 1)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any

from verifier.errors import DataError
from verifier.named_inputs import Input, Said
from verifier.tables.hierarchy import Hierarchy
from verifier.tables.values import exact_number

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["GeneralizationDomain", "Column", "Pair", "align", "label_members", "SUPPRESSED"]

SUPPRESSED = "*"
"""The default suppression mark (ARX's ``QualityConfiguration`` default)."""


@dataclass(frozen=True)
class GeneralizationDomain:
    """A quasi-identifier's generalization domain: the leaves, and every node with the leaves under it.

    Attributes
    ----------
    hierarchy
        The hierarchy (leaf to root), given or built from the original's distinct values.
    """

    hierarchy: Hierarchy
    _nodes: dict[str, tuple[int, int]] = field(init=False, repr=False, compare=False)
    _paths: dict[str, frozenset[str]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        nodes: dict[str, tuple[int, int]] = {}
        counts: dict[tuple[int, str], int] = {}
        for path in self.hierarchy.paths:
            for height, name in enumerate(path):
                counts[height, name] = counts.get((height, name), 0) + 1
        for (height, name), count in sorted(counts.items()):
            nodes.setdefault(name, (height, count))  # a name at two heights is its lowest node (as in ARX)
        object.__setattr__(self, "_nodes", nodes)
        object.__setattr__(self, "_paths", {path[0]: frozenset(path) for path in self.hierarchy.paths})

    @property
    def size(self) -> int:
        """``M``: the number of leaves."""
        return len(self.hierarchy.paths)

    @property
    def height(self) -> int:
        """``H``: the number of edges from a leaf to the root."""
        return self.hierarchy.height

    @property
    def root(self) -> str:
        return self.hierarchy.paths[0][-1]

    def is_leaf(self, value: str) -> bool:
        return value in self._paths

    def covers(self, node: str, leaf: str) -> bool:
        """Whether ``node`` is ``leaf`` or one of its ancestors."""
        return node in self._paths[leaf]

    def ancestors(self, leaf: str) -> frozenset[str]:
        """The names on ``leaf``'s path to the root, itself included."""
        return self._paths[leaf]

    def leaf_count(self, node: str | None) -> int:
        """The number of leaves under ``node`` (``None``, suppressed: every leaf)."""
        return self.size if node is None else self._nodes[node][1]

    def level(self, node: str | None) -> int:
        """The height of ``node`` (``None``, suppressed: the root's)."""
        return self.height if node is None else self._nodes[node][0]


@dataclass(frozen=True)
class Column:
    """One quasi-identifier, record by record.

    Attributes
    ----------
    name
        The column's name.
    original
        The original value of every record (text).
    release
        The released value of every record (text), ``None`` where suppressed.
    domain
        Its generalization domain.
    """

    name: str
    original: tuple[str, ...]
    release: tuple[str | None, ...]
    domain: GeneralizationDomain

    def generalization_problem(self, where: Pair) -> str | None:
        """``None`` when every released cell is its original value or an ancestor of it (or suppressed); else
        where the first cell that is not is (the release perturbs this column: generalization models do not apply)."""
        for index, (value, released) in enumerate(zip(self.original, self.release, strict=True)):
            if released is not None and not self.domain.covers(released, value):
                return (f"{where.release_source}, {where.release_row(index)}, column {self.name!r}: {released!r} is "
                        f"neither {value!r} nor a generalization of it in the hierarchy")
        return None

    @cached_property
    def numbers(self) -> tuple[Fraction, ...] | None:
        """The original values as exact numbers, or ``None`` when one is not a number (parsed once)."""
        out = []
        for value in self.original:
            number = exact_number(value)
            if number is None:
                return None
            out.append(Fraction(number))
        return tuple(out)


@dataclass(frozen=True)
class Pair:
    """An original and its release, aligned record by record over the quasi-identifiers.

    Attributes
    ----------
    columns
        One :class:`Column` per quasi-identifier, in the order given.
    suppressed
        Per record: every quasi-identifier cell suppressed, or the record left out of the release.
    release_rows
        Per record: its row in the release (1-based), ``None`` when left out.
    original_source, release_source
        Names of the two tables, for messages.
    pairing
        How the records were paired (by key, or row by row and why that was accepted).
    inferred
        Per quasi-identifier whose hierarchy was read from the release's labels, what was read.
    """

    columns: tuple[Column, ...]
    suppressed: tuple[bool, ...]
    release_rows: tuple[int | None, ...]
    original_source: str = "original"
    release_source: str = "release"
    pairing: str = "row by row"
    inferred: tuple[str, ...] = ()

    @property
    def rows(self) -> int:
        """``N``: the number of records of the original."""
        return len(self.suppressed)

    @property
    def qi(self) -> tuple[str, ...]:
        return tuple(column.name for column in self.columns)

    def release_row(self, index: int) -> str:
        row = self.release_rows[index]
        return f"row {row}" if row is not None else f"record of original row {index + 1} (left out)"

    def release_tuple(self, index: int) -> tuple[str | None, ...]:
        return tuple(column.release[index] for column in self.columns)

    @cached_property
    def problems(self) -> tuple[str | None, ...]:
        """Per quasi-identifier, why the generalization models do not apply to it
        (:meth:`Column.generalization_problem`), or ``None``; each column is read once for every model."""
        return tuple(column.generalization_problem(self) for column in self.columns)

    @property
    def generalization_problem(self) -> str | None:
        """Why a model over whole records does not apply (a perturbed column), or ``None``."""
        return next((problem for problem in self.problems if problem is not None), None)

    @cached_property
    def release_classes(self) -> Counter[tuple[str | None, ...]]:
        """The release's classes (released quasi-identifier tuples of the records not suppressed) and their sizes."""
        return Counter(self.release_tuple(i) for i in range(self.rows) if not self.suppressed[i])

    @cached_property
    def original_classes(self) -> Counter[tuple[str, ...]]:
        """The original's classes (equal original quasi-identifier tuples) and their sizes."""
        return Counter(zip(*(column.original for column in self.columns), strict=True))


def _text(value: Any) -> str | None:
    """A cell as text (``None`` when missing): CSV cells are text already; Parquet numbers as written by ``str``."""
    import pandas as pd

    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    return value if isinstance(value, str) else str(value)


def _column(frame: pd.DataFrame, name: str, source: str) -> list[str | None]:
    if name not in frame.columns:
        raise DataError(f"{source}: column {name!r} not found; the table has {list(map(str, frame.columns))}")
    return [_text(value) for value in frame[name].tolist()]


LARGEST_EXPONENT = 300
"""A quasi-identifier's number is at most 10^300 in magnitude and, unless 0, at least 10^-300: its squares and
intervals are computed exactly, and ``1e9999999`` would be an integer of ten million digits."""


def _refuse_huge(cells: Sequence[str | None], name: str, source: str, row: Callable[[int], str]) -> None:
    """Refuse a cell that reads as a number past 10^±300 (:data:`LARGEST_EXPONENT`), naming its row."""
    for index, cell in enumerate(cells):
        if cell is None or not any(digit in cell for digit in "eE") and len(cell) <= LARGEST_EXPONENT:
            continue  # short plain numbers (and text) are in range
        number = exact_number(cell)
        if number is None or number == 0:
            continue
        exponent = number.adjusted() if isinstance(number, Decimal) else len(str(abs(number))) - 1
        if abs(exponent) > LARGEST_EXPONENT:
            raise DataError(f"{source}, {row(index)}, column {name!r}: {_short(cell)} is a number of magnitude "
                            f"10^{exponent}; expected numbers between 10^-{LARGEST_EXPONENT} and "
                            f"10^{LARGEST_EXPONENT} in magnitude (or 0)")


def _short(cell: str) -> str:
    return repr(cell) if len(cell) <= 40 else f"{cell[:18]!r}…{cell[-18:]!r} ({len(cell):,} characters)"


def _positions(original: pd.DataFrame, release: pd.DataFrame, key: str | None, sources: tuple[str, str]) -> list[int | None]:
    """For each original record, its position in the release (``None``: left out)."""
    if key is None:
        if len(original) != len(release):
            raise DataError(Said(f"{sources[1]}: expected the {len(original)} records of {sources[0]} in the same "
                                 "order (or a key column, ", Input("record_key"), f"), found {len(release)} rows"))
        return list(range(len(original)))
    at: dict[str, int] = {}
    for index, value in enumerate(_column(original, key, sources[0])):
        if value is None or value in at:
            found = "an empty cell" if value is None else f"{value!r}, also in row {at[value] + 1}"
            raise DataError(f"{sources[0]}, row {index + 1}, column {key!r}: expected a unique key, found {found}")
        at[value] = index
    positions: list[int | None] = [None] * len(original)
    for index, value in enumerate(_column(release, key, sources[1])):
        if value is None or value not in at:
            found = "an empty cell" if value is None else f"{value!r}, which is not a key of {sources[0]}"
            raise DataError(f"{sources[1]}, row {index + 1}, column {key!r}: expected a key of the original, found {found}")
        if positions[at[value]] is not None:
            raise DataError(f"{sources[1]}, row {index + 1}, column {key!r}: key {value!r} is also in row "
                            f"{positions[at[value]] + 1}")  # type: ignore[operator]
        positions[at[value]] = index
    return positions


def _default_hierarchy(name: str, values: Sequence[str], mark: str) -> Hierarchy:
    return Hierarchy.from_rows([[value, mark] for value in sorted(set(values))], source=f"<values of {name}>")


_NUMBER = r"\s*(-?\d+(?:\.\d+)?)\s*"
_DASHED = re.compile(f"^{_NUMBER}-{_NUMBER}$")
_BRACKETED = re.compile(f"^([\\[(]){_NUMBER},{_NUMBER}([\\])])$")
_MASKED = re.compile(r"^([^*]+)(\*+)$")


def label_members(label: str, values: Sequence[str]) -> frozenset[str] | None:
    """The original values a release label stands for, read from the label itself (``None``: not a label).

    ``30-39`` and ``[30,40)`` (any brackets) are intervals of numbers, ends as the brackets
    say (``a-b`` includes both); ``478**`` is every value of the same length that begins with
    ``478``.

    >>> sorted(label_members("30-39", ["29", "30", "39", "40"])), sorted(label_members("[30,40)", ["30", "40"]))
    (['30', '39'], ['30'])
    >>> sorted(label_members("478**", ["47801", "47899", "4780", "47901"]))
    ['47801', '47899']
    """
    if (dashed := _DASHED.match(label)) is not None:
        low, high, closed = Fraction(dashed[1]), Fraction(dashed[2]), (True, True)
    elif (bracketed := _BRACKETED.match(label)) is not None:
        low, high = Fraction(bracketed[2]), Fraction(bracketed[3])
        closed = (bracketed[1] == "[", bracketed[4] == "]")
    elif (masked := _MASKED.match(label)) is not None:
        prefix = masked[1]
        return frozenset(v for v in values if len(v) == len(label) and v.startswith(prefix))
    else:
        return None
    members = set()
    for value in values:
        number = exact_number(value)
        if number is None:
            continue
        x = Fraction(number)
        if (low < x or (closed[0] and x == low)) and (x < high or (closed[1] and x == high)):
            members.add(value)
    return frozenset(members)


def _inferred_hierarchy(name: str, values: Sequence[str], released: Sequence[str | None],
                        mark: str) -> tuple[Hierarchy, str] | None:
    """A hierarchy value → label → ``mark`` read from the release's own labels, and its description; ``None`` when
    the release has no label, or its labels overlap (a value under two labels: no single hierarchy)."""
    leaves = sorted(set(values))
    labels = sorted({cell for cell in released if cell is not None and cell != mark} - set(leaves))
    parent: dict[str, str] = {}
    read = []
    for label in labels:
        members = label_members(label, leaves)
        if not members:
            continue
        if any(member in parent for member in members):
            return None
        parent.update(dict.fromkeys(members, label))
        read.append(f"{label} ({len(members)} value{'s' if len(members) > 1 else ''})")
    if not read:
        return None
    hierarchy = Hierarchy.from_rows([[leaf, parent.get(leaf, leaf), mark] for leaf in leaves],
                                    source=f"<labels of {name} in the release>")
    shown = ", ".join(read[:5]) + (f", … ({len(read)} labels)" if len(read) > 5 else "")
    return hierarchy, (f"{name}: no hierarchy given; the release's labels read as generalizations of the original's "
                       f"values: {shown}; hierarchy value → label → {mark}")


def _pairing(original: pd.DataFrame, release: pd.DataFrame, sources: tuple[str, str]) -> str:
    """How the rows pair without a key, or why they do not: a column both tables share that holds the same values
    in another order shows the rows were reordered (a change of values would not keep them all)."""
    shared = [name for name in original.columns if name in release.columns]
    for name in shared:
        before, after = _column(original, name, sources[0]), _column(release, name, sources[1])
        if before != after and Counter(before) == Counter(after):
            row = next(i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b)
            raise DataError(Said(f"{sources[1]}, row {row + 1}, column {name!r}: the column holds the original's "
                                 f"values in another order ({after[row]!r} where {sources[0]} has {before[row]!r}), so "
                                 f"the rows do not pair with {sources[0]} row by row; give ",
                                 Input("record_key", asked=True), " naming each record"))
    return ("row by row: the same number of rows, and no column the two tables share holds the original's values "
            "in another order")


def align(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    key: str | None = None,
    suppressed: str = SUPPRESSED,
    sources: tuple[str, str] = ("original", "release"),
) -> Pair:
    """Align ``release`` with ``original`` over the quasi-identifiers ``qi``.

    Parameters
    ----------
    original, release
        The two tables (as read by :func:`verifier.tables.load.load_table`).
    qi
        The quasi-identifier columns (in both tables).
    hierarchies
        A hierarchy per quasi-identifier (others get the distinct original values under ``suppressed``).
    key
        A column of both tables naming each record; without it the rows are aligned by position.
    suppressed
        The suppression mark.
    sources
        Names of the two tables in messages (their files).

    Raises
    ------
    DataError
        A column is missing, the row counts differ (no key), a key is repeated or unknown, an original
        cell is empty or is not a leaf of its hierarchy; every message names the file, row and column.
    """
    if not qi:
        raise DataError(Said(Input("qi"), ": expected at least one quasi-identifier column"))
    hierarchies = hierarchies or {}
    unknown = sorted(set(hierarchies) - set(qi))
    if unknown:
        raise DataError(Said(Input("hierarchy", unknown[0]), f": expected one of the quasi-identifiers {list(qi)}"))
    positions = _positions(original, release, key, sources)
    pairing = f"by the key column {key!r}" if key is not None else _pairing(original, release, sources)
    columns = []
    inferred = []
    for name in qi:
        before = _column(original, name, sources[0])
        for index, value in enumerate(before):
            if value is None:
                raise DataError(f"{sources[0]}, row {index + 1}, column {name!r}: expected a value, found an empty "
                                "cell (the original must be complete)")
        values: list[str] = before  # type: ignore[assignment]
        after = _column(release, name, sources[1])
        _refuse_huge(values, name, sources[0], lambda index: f"row {index + 1}")
        _refuse_huge(after, name, sources[1], lambda index: f"row {index + 1}")
        if name in hierarchies:
            domain = GeneralizationDomain(hierarchies[name])
        elif (found := _inferred_hierarchy(name, values, [None if p is None else after[p] for p in positions],
                                           suppressed)) is not None:
            domain = GeneralizationDomain(found[0])
            inferred.append(found[1])
        else:
            domain = GeneralizationDomain(_default_hierarchy(name, values, suppressed))
        for index, value in enumerate(values):
            if not domain.is_leaf(value):
                raise DataError(f"{sources[0]}, row {index + 1}, column {name!r}: {value!r} is not a leaf of the "
                                f"hierarchy {domain.hierarchy.source}")
        cells = tuple(None if p is None or after[p] in (None, suppressed, domain.root) else after[p] for p in positions)
        columns.append(Column(name, tuple(values), cells, domain))
    rows = len(positions)
    flags = tuple(all(column.release[i] is None for column in columns) for i in range(rows))
    return Pair(tuple(columns), flags, tuple(None if p is None else p + 1 for p in positions), *sources,
                pairing=pairing, inferred=tuple(inferred))
