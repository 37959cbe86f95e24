"""Value hierarchies of categorical attributes, for the hierarchical ground distance.

A hierarchy file is a CSV file without a header: one row per leaf, the columns from
the leaf up to the root, every row with the same number of columns. Its height is
``H = columns - 1``; all leaves lie at height 0 and the root at height ``H``. The
ground distance between two leaves is the height of their lowest common ancestor
divided by ``H`` (Li et al. 2007, "Hierarchical Distance"; Li, Li &
Venkatasubramanian, ICDE 2007, §4.2).

A node is identified by its height and its name, so the same name may appear at two
heights (for example a leaf that is also its own category). Whitespace is data, as in
the release (cells are never stripped); blank lines are skipped. A data value is matched
to a leaf by its text form ``str(value)``.

>>> h = Hierarchy.from_rows([["flu", "infection", "all"], ["cold", "infection", "all"],
...                          ["ulcer", "stomach", "all"]])
>>> h.height, h.distance("flu", "cold"), h.distance("flu", "ulcer")
(2, Fraction(1, 2), Fraction(1, 1))
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from verifier.errors import HierarchyError, InputFileNotFoundError, listing
from verifier.tables.text_file import read_text

__all__ = ["Hierarchy", "load_hierarchy"]


@dataclass(frozen=True)
class Hierarchy:
    """A rooted tree whose leaves all lie at the same depth.

    Attributes
    ----------
    paths
        One tuple per leaf: the leaf, its parent, ..., the root.
    source
        Where the hierarchy came from (a file name), used in error messages only: two
        hierarchies with the same paths are equal wherever they were read.
    """

    paths: tuple[tuple[str, ...], ...]
    source: str = field(default="<rows>", compare=False)
    _leaf: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_leaf", {path[0]: i for i, path in enumerate(self.paths)})

    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[str]], source: str = "<rows>") -> Hierarchy:
        """Build and validate a hierarchy from rows (leaf first, root last).

        Rows are numbered from 1 in error messages.

        Raises
        ------
        HierarchyError
            No rows; a row with fewer than 2 columns or a different number of columns
            than the first; an empty name; a leaf listed twice; a node with two
            different parents; two different roots.
        """
        return _build(enumerate(rows, start=1), source)

    @property
    def digest(self) -> str:
        """SHA-256 (hex) of the hierarchy's content: its leaf-to-root paths sorted by leaf, as compact JSON.

        Results and certificates name a hierarchy by this digest, never by the path of a
        file on the publisher's machine.
        """
        text = json.dumps(sorted(list(path) for path in self.paths), ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    @property
    def height(self) -> int:
        """``H``: the number of edges from a leaf to the root."""
        return len(self.paths[0]) - 1

    @property
    def leaves(self) -> tuple[str, ...]:
        return tuple(path[0] for path in self.paths)

    def distance(self, a: Any, b: Any) -> Fraction:
        """Ground distance ``height(lowest common ancestor) / H`` between two leaves."""
        pa, pb = self.paths[self._index(a, "<distance>")], self.paths[self._index(b, "<distance>")]
        level = next(h for h in range(self.height + 1) if pa[h] == pb[h])
        return Fraction(level, self.height)

    def node_runs(self, values: Sequence[Any], column: Any) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """Arrange an attribute's values so that every node's leaves are contiguous.

        Parameters
        ----------
        values
            The attribute's values in code order (``CountTable.values``).
        column
            The attribute's name, for error messages.

        Returns
        -------
        (order, starts)
            ``order`` permutes value codes so that the leaves under each node are
            adjacent at every height; ``starts[h]`` (for ``h = 0 .. H-1``) holds the
            offsets in ``order`` where each height-``h`` node's run begins, ready for
            ``np.add.reduceat``.

        Raises
        ------
        HierarchyError
            A value is not a leaf of the hierarchy.
        """
        rows = [self._index(value, column) for value in values]
        reversed_paths = [self.paths[r][::-1] for r in rows]
        order = np.array(sorted(range(len(rows)), key=reversed_paths.__getitem__), dtype=np.int64)
        starts = []
        for h in range(self.height):
            nodes = [reversed_paths[i][self.height - h] for i in order]
            starts.append(np.array([i for i in range(len(nodes)) if i == 0 or nodes[i] != nodes[i - 1]], dtype=np.int64))
        return order, tuple(starts)

    def _index(self, value: Any, column: Any) -> int:
        row = None if value is None else self._leaf.get(str(value))
        if row is None:
            raise HierarchyError(
                f"{self.source}: value {value!r} of column {column!r} is not a leaf of the hierarchy "
                f"(leaves: {listing(sorted(self._leaf))})"
            )
        return row


def load_hierarchy(path: str | Path) -> Hierarchy:
    """Read a hierarchy CSV file (no header; one row per leaf, columns leaf to root).

    Rows are numbered by their line in the file in error messages.

    Raises
    ------
    InputFileNotFoundError
        The file does not exist.
    HierarchyError
        The file is malformed (see :meth:`Hierarchy.from_rows`).
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileNotFoundError(f"hierarchy file {str(path)!r} not found")
    try:
        text = read_text(path, kind=HierarchyError)
    except OSError as error:
        raise HierarchyError(f"hierarchy file {str(path)!r} cannot be read: {error.strerror or error}") from error
    reader = csv.reader(io.StringIO(text, newline=""))
    rows = [(reader.line_num, row) for row in reader if any(cell.strip() for cell in row)]
    return _build(rows, str(path))


def _build(rows: Iterable[tuple[int, Sequence[str]]], source: str) -> Hierarchy:
    paths: list[tuple[str, ...]] = []
    leaf_row: dict[str, int] = {}
    parent: dict[tuple[int, str], tuple[str, int]] = {}
    width = first = 0
    for number, raw in rows:
        row = tuple(str(cell) for cell in raw)
        where = f"{source}, row {number}"
        if not paths:
            width, first = len(row), number
            if width < 2:
                raise HierarchyError(f"{where}: expected at least 2 columns (a leaf and the root), found {width}")
        elif len(row) != width:
            raise HierarchyError(f"{where}: expected {width} columns (as in row {first}), found {len(row)}")
        if "" in row:
            raise HierarchyError(f"{where}, column {row.index('') + 1}: expected a node name, found an empty cell")
        if row[0] in leaf_row:
            raise HierarchyError(f"{where}: leaf {row[0]!r} is already listed in row {leaf_row[row[0]]}")
        if paths and row[-1] != paths[0][-1]:
            raise HierarchyError(
                f"{where}: expected the root {paths[0][-1]!r} (as in row {first}), found {row[-1]!r}; "
                "a hierarchy has one root"
            )
        for height in range(width - 1):
            known = parent.setdefault((height, row[height]), (row[height + 1], number))
            if known[0] != row[height + 1]:
                raise HierarchyError(
                    f"{where}: node {row[height]!r} (height {height}) has parent {row[height + 1]!r}, "
                    f"but parent {known[0]!r} in row {known[1]}"
                )
        leaf_row[row[0]] = number
        paths.append(row)
    if not paths:
        raise HierarchyError(f"{source}: expected one row per leaf (columns from leaf to root), found no rows")
    return Hierarchy(tuple(paths), source)
