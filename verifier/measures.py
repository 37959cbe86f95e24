"""The kit for writing a model's measure: what every measure of privcert does the same way.

A measure (:data:`verifier.registry.Measure`) takes a :class:`~verifier.registry.Subject`
and yields :class:`~verifier.results.Measurement` s. Four things must come out the same in
every model, so that reports, certificates and ``verify`` agree whatever model wrote them:

* **the witness**: among the classes attaining the level, the one whose quasi-identifier
  values sort first (:func:`witness_class`), so the row order of the release never changes
  it; :func:`class_witness` names it (its quasi-identifier values and size);
* **undefined levels**: a table in which no class has a row has no level
  (:func:`undefined`, with :data:`EMPTY` as the reason, or the model's own reason);
  :func:`is_empty` tells;
* **excluded rows**: rows with a missing value left out of an attribute's count table are
  noted on every measurement of it (:func:`excluded_notes`; :func:`measurement` adds them);
* **the attribute**: an attribute-scope measure reads its count table with
  :func:`attribute_table`.

docs/models.md walks through a new model written with this kit. Like the declarations, this
module imports nothing heavy at module level (each function imports what it builds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from verifier.registry import Subject
    from verifier.results import Comparison, Level, Measurement, Witness
    from verifier.tables.counts import Classes, CountTable

__all__ = ["EMPTY", "witness_class", "class_witness", "excluded_notes", "undefined", "is_empty", "attribute_table",
           "measurement"]

EMPTY = "the table has no equivalence class with rows"
"""The reason a level is undefined on a table without rows."""


def witness_class(classes: Classes, indices: Sequence[int] | np.ndarray) -> int:
    """The class among ``indices`` (those attaining the level) that names the witness: the one whose
    quasi-identifier values sort first (:func:`verifier.tables.counts.qi_order`), whatever the rows' order."""
    from verifier._exact_max import first_by_qi

    return first_by_qi(classes, indices)


def class_witness(table: CountTable, index: int, value: object = None, **numbers: object) -> Witness:
    """A witness for class ``index`` of ``table`` (its QI values and its size in the table)."""
    from verifier.results import Witness

    return Witness(qi=table.classes.describe(index), size=int(table.sizes[index]), value=value, numbers=numbers)


def excluded_notes(table: CountTable | None) -> tuple[str, ...]:
    """The note every measurement of ``table`` carries when rows were excluded (none for ``None``)."""
    if table is not None and table.excluded:
        return (f"{table.excluded} row(s) with a missing value excluded (missing = \"exclude\")",)
    return ()


def is_empty(subject: Subject) -> bool:
    """Whether the subject has no class with rows (its attribute's, for an attribute-scope subject)."""
    if subject.table is None:
        return subject.classes.rows == 0
    return not bool((subject.table.sizes > 0).any())


def undefined(model: str, table: CountTable | None, comparison: Comparison, *, reason: str = EMPTY,
              parameters: Mapping[str, object] | None = None, notes: tuple[str, ...] = ()) -> Measurement:
    """A measurement whose level is undefined, with the ``reason`` (by default: the table has no rows);
    ``table`` is the attribute's count table, ``None`` for a release-scope model."""
    from verifier.results import Level, Measurement

    return Measurement(model, None if table is None else table.attribute, Level.undefined(reason), None, comparison,
                       parameters=parameters or {}, notes=notes + excluded_notes(table))


def attribute_table(subject: Subject) -> CountTable:
    """The count table of an attribute-scope subject.

    Raises
    ------
    TypeError
        The subject is release-scope (a defect of the declaration: its scope is ``release``).
    """
    if subject.table is None:
        raise TypeError("an attribute-scope measure was given a release-scope subject (declare scope='attribute')")
    return subject.table


def measurement(model: str, subject: Subject, level: Level, witness: Witness | None, comparison: Comparison, *,
                parameters: Mapping[str, Any] | None = None, notes: tuple[str, ...] = ()) -> Measurement:
    """A measurement of ``subject``: on its attribute (``None`` for a release-scope subject), with the
    excluded-row note of its count table added."""
    from verifier.results import Measurement

    table = subject.table
    return Measurement(model, None if table is None else table.attribute, level, witness, comparison,
                       parameters=parameters or {}, notes=notes + excluded_notes(table))
