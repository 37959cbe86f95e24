"""The cells of a count table (verifier/privacy/_screen.py): sorting within classes, and what models share."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from threading import Event

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.privacy._screen import ClassCells, cells_of
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec


def _cells(classes: list[list[int]]) -> ClassCells:
    """ClassCells whose class ``i`` holds the values ``classes[i]`` (empty classes have no cell)."""
    cls = np.repeat(np.arange(len(classes)), [len(values) for values in classes]).astype(np.int64)
    count = np.array([value for values in classes for value in values], dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]]) if cls.size else np.zeros(0, dtype=np.int64)
    return ClassCells(cls=cls, value=np.zeros_like(cls), count=count, present=cls[starts], starts=starts,
                 sizes=np.add.reduceat(count, starts) if count.size else count)


@settings(max_examples=200, deadline=None)
@given(classes=st.lists(st.lists(st.one_of(st.integers(0, 50), st.integers(0, 2**62)), max_size=6), max_size=8),
       descending=st.booleans())
def test_sorted_within_sorts_each_class_and_keeps_the_classes_in_order(classes: list[list[int]],
                                                                       descending: bool) -> None:
    cells = _cells(classes)
    expected = [value for values in classes for value in sorted(values, reverse=descending)]
    # large values take the two-key sort (position · bound would not fit in int64), small ones the single sort
    assert cells.sorted_within(cells.count, descending=descending).tolist() == expected


def test_the_cells_of_a_table_are_built_once_for_every_model_that_asks() -> None:
    frame = pd.DataFrame({"zip": ["a", "a", "b", "b", "c"], "disease": ["flu", "cold", "flu", "flu", "cold"]})
    _, (table,) = count_tables(frame, ["zip"], [AttributeSpec(("disease",))])
    built, release = [], Event()

    def build() -> str:
        release.wait()
        built.append(1)
        return "cells"

    with ThreadPoolExecutor(8) as pool:
        asked = [pool.submit(table.derived, "shared", build) for _ in range(8)]
        release.set()
        assert [future.result() for future in asked] == ["cells"] * 8
    assert built == [1]
    assert cells_of(table) is cells_of(table)
    assert cells_of(table).count.tolist() == [1, 1, 2, 1]
