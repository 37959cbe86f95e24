"""The measured levels :func:`theory.answers.explain.explain` reads, typed and checked once.

An :class:`AuditLevels` holds what explain needs of a measurement or an audit: the release's
N, its number of classes, the rows each attribute left out, and every measured level of a
definition of the map (:class:`MeasuredLevel`) as an exact sympy value. Each is checked when
it is made: a model that is no definition of the map, or a level that is not exact (a float,
a text), is refused with the model and the value.

Two ways in, each read once:

* :meth:`AuditLevels.of` a :class:`~verifier.measure.MeasureResult` or an
  :class:`~verifier.audit.AuditResult`: the levels as measured, and for each attribute with
  rows left out (``missing = "exclude"``) its counted rows and smallest class from the count
  tables;
* :meth:`AuditLevels.from_json` a results document (``privcert measure --json``, ``privcert
  audit --json``; schema ``privcert/data/schema/results.schema.json``), whose levels are read
  by the grammar of :mod:`verifier.exact_grammar` (never evaluated as code); :func:`read_audit`
  reads its file. The document does not carry the smallest class of the counted rows.

A level known only between exact bounds is read at its weak bound (the upper one when smaller
is stronger), which the release certainly meets.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import sympy

from theory.definitions import definition, definition_ids
from verifier.display import attribute_label, exact_text
from verifier.errors import DataError, InputFileNotFoundError
from verifier.exact_grammar import GrammarError, read_exact

if TYPE_CHECKING:
    from verifier.audit import AuditResult
    from verifier.measure import MeasureResult
    from verifier.randomized.modes import RandomizedLevels
    from verifier.results import Measurement
    from verifier.tables.counts import CountTable

__all__ = ["MeasuredLevel", "AuditLevels", "Status", "load_audit", "read_audit"]

Status = Literal["finite", "infinite", "undefined", "estimate"]
"""A measured level's status, as the results document writes it: ``estimate`` (a statistical
estimate) and ``undefined`` levels are no premise."""

_STATUSES = ("finite", "infinite", "undefined", "estimate")


def _exact(value: object, model: str, label: str) -> sympy.Expr:
    """``value`` as an exact sympy number (an int, a Fraction, or a sympy expression without symbols or floats)."""
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, int) and not isinstance(value, bool):
        return sympy.Integer(value)
    if isinstance(value, sympy.Expr) and not value.free_symbols and not value.has(sympy.Float):
        return value
    raise DataError(f"{label}: the level of {model} must be exact (an int, a Fraction or an exact sympy expression; "
                    f"read a written level with verifier.exact_grammar.read_exact), found {value!r} "
                    f"({type(value).__name__})")


@dataclass(frozen=True)
class MeasuredLevel:
    """One measured level of a definition of the map.

    Attributes
    ----------
    model
        The definition measured (a model id of :mod:`theory.definitions`).
    attribute
        The attribute (joint attributes as ``S+T``), ``None`` for the quasi-identifier models.
    level
        The exact level (an ``int`` or ``Fraction`` is converted), ``sympy.oo`` when infinite;
        ``None`` when the status is ``undefined`` or ``estimate``.
    status
        :data:`Status`; by default ``infinite`` for ``sympy.oo``, else ``finite``.
    parameters
        The measurement's parameters (``k``, ``l``, ``bucketing``, ``groups``, ...) as plain values.
    distance
        The ground distance it was measured with (t-closeness, stochastic t-closeness).
    where
        Where it was read (``measurements[3]``), for messages; by default its model and attribute.

    Raises
    ------
    DataError
        The model is not a definition of the map, the status is unknown, or a finite or infinite
        level is not exact (the message names the model and the value).
    """

    model: str
    attribute: str | None
    level: sympy.Expr | int | Fraction | None
    status: Status | None = None
    parameters: Mapping[str, Any] = field(default_factory=dict)
    distance: str | None = None
    where: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.model not in definition_ids():
            raise DataError(f"{self.label}: {self.model!r} is not a definition of the map (privcert theory claims "
                            "lists them)")
        if self.status is not None and self.status not in _STATUSES:
            raise DataError(f"{self.label}: the status of {self.model} is one of {', '.join(_STATUSES)}, "
                            f"found {self.status!r}")
        status = self.status or ("infinite" if self.level == sympy.oo else "finite")
        if status in ("finite", "infinite"):
            object.__setattr__(self, "level", _exact(self.level, self.model, self.label))
        else:
            object.__setattr__(self, "level", None)
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "parameters", dict(self.parameters))

    @property
    def label(self) -> str:
        """Where it was read, else ``k_anonymity`` or ``t_closeness on disease``."""
        if self.where is not None:
            return self.where
        return self.model if self.attribute is None else f"{self.model} on {self.attribute}"

    def key(self) -> str:
        """What makes two rows one (the same level written twice: an audit's randomized levels)."""
        level = None if self.level is None else exact_text(cast(sympy.Expr, self.level))
        return json.dumps([self.model, self.attribute, self.distance, self.parameters, level, self.status],
                          sort_keys=True, default=str)


@dataclass(frozen=True)
class AuditLevels:
    """What explain reads of a measurement or an audit (see the module docstring).

    Attributes
    ----------
    records
        N: the release's rows.
    levels
        Every measured level of a definition of the map, each once, in the order measured.
    classes
        The release's number of classes (``None`` when not known).
    randomized
        Whether the release was made by a mechanism: then only the quasi-identifier models and the
        randomized levels are premises.
    excluded
        The rows each attribute left out (``missing = "exclude"``), by attribute (``S+T`` for a joint one).
    counted
        For attributes with rows left out: their counted rows and the smallest class among them.

    Raises
    ------
    DataError
        ``records`` is not an integer ≥ 0, a level is not a :class:`MeasuredLevel`, an excluded count
        is not an integer, or a counted pair is not two integers.
    """

    records: int
    levels: tuple[MeasuredLevel, ...]
    classes: int | None = None
    randomized: bool = False
    excluded: Mapping[str, int] = field(default_factory=dict)
    counted: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.records, bool) or not isinstance(self.records, int) or self.records < 0:
            raise DataError(f"records: expected the release's number of rows N, an integer ≥ 0, found {self.records!r}")
        levels = tuple(self.levels)
        for index, item in enumerate(levels):
            if not isinstance(item, MeasuredLevel):
                raise DataError(f"levels[{index}]: expected a MeasuredLevel, found {type(item).__name__} {item!r:.80}")
        object.__setattr__(self, "levels", levels)
        for name, count in self.excluded.items():
            if isinstance(count, bool) or not isinstance(count, int):
                raise DataError(f"excluded[{name!r}]: expected a number of rows, found {count!r}")
        for name, pair in self.counted.items():
            if len(pair) != 2 or not all(isinstance(n, int) and not isinstance(n, bool) for n in pair):
                raise DataError(f"counted[{name!r}]: expected (rows, smallest class), found {pair!r}")
        object.__setattr__(self, "excluded", dict(self.excluded))
        object.__setattr__(self, "counted", dict(self.counted))

    @property
    def singletons(self) -> bool:
        """Whether every class holds one row."""
        return self.classes == self.records

    @classmethod
    def of(cls, result: MeasureResult | AuditResult) -> AuditLevels:
        """The levels of a measurement or an audit, as measured; the counted rows from its count tables.

        An audit's premises are its requirements' levels (its randomized ones among them); a measurement's
        are its levels and, with a mechanism, every randomized level.
        """
        from verifier.audit import AuditResult

        if isinstance(result, AuditResult):
            report, rows = result.report, [check.measurement for check in result.checks]
            extra: Iterable[MeasuredLevel] = ()
        else:
            report, rows = result, list(result.measurements)
            extra = () if result.randomized is None else _randomized(result.randomized)
        known = set(definition_ids())
        levels = [_measured(row) for row in rows if row.model in known]
        return cls(report.rows, _once([*levels, *extra]), report.classes, result.randomized is not None,
                   dict(report.excluded), _counted(report.tables))

    @classmethod
    def from_json(cls, document: Mapping[str, Any], counted: Mapping[str, tuple[int, int]] | None = None
                  ) -> AuditLevels:
        """The levels of a results document (``privcert measure --json`` / ``privcert audit --json``).

        Parameters
        ----------
        document
            The parsed JSON: ``rows``, ``measurements`` and, as written, ``classes``, ``excluded``,
            ``randomized`` (whose ``measurements`` are read when the document has no ``policy``).
        counted
            The counted rows and smallest class of attributes with rows left out, when known besides
            the document (it does not carry the smallest counted class).

        Raises
        ------
        DataError
            Not a results document, a row without a ``model`` or an ``exact`` level, or a level outside
            the grammar (the message names the row, e.g. ``measurements[3].exact``).
        """
        if not isinstance(document, Mapping) or not isinstance(document.get("rows"), int) \
                or not isinstance(document.get("measurements"), list):
            found = sorted(document) if isinstance(document, Mapping) else type(document).__name__
            raise DataError(f"expected an audit with 'rows' (an integer) and 'measurements' (a list), found {found}")
        given = document.get("excluded")
        excluded = {str(name): count for name, count in (given.items() if isinstance(given, dict) else ())
                    if isinstance(count, int) and not isinstance(count, bool)}
        classes = document.get("classes")
        return cls(int(document["rows"]), _once(_json_rows(document)),
                   classes if isinstance(classes, int) and not isinstance(classes, bool) else None,
                   isinstance(document.get("randomized"), dict), excluded, dict(counted or {}))


def _measured(row: Measurement) -> MeasuredLevel:
    """A measurement as a premise: its level, or its weak bound when it is known only between bounds."""
    from verifier.results import jsonable

    status: Status = "estimate" if row.estimate is not None and row.level.is_finite else row.level.status
    level = row.level.value
    if row.lower is not None and status == "finite" and definition(row.model).direction != "smaller_is_stronger":
        level = row.lower.value
    return MeasuredLevel(row.model, None if row.attribute is None else attribute_label(row.attribute), level, status,
                         jsonable(row.parameters), row.distance)


def _randomized(levels: RandomizedLevels) -> list[MeasuredLevel]:
    """The randomized levels of a measurement: measured, then implied (at no attribute, as the document writes them)."""
    from verifier.results import jsonable

    found = [_measured(row) for row in levels.measurements if row.model in definition_ids()]
    found += [MeasuredLevel(item.model, None, item.level.value, item.level.status, jsonable(item.parameters))
              for item in levels.implied if item.model in definition_ids()]
    return found


def _counted(tables: Mapping[Any, CountTable]) -> dict[str, tuple[int, int]]:
    """The counted rows and smallest class of each attribute with rows left out."""
    return {attribute_label(name): (table.n, int(table.sizes[table.sizes > 0].min()))
            for name, table in tables.items() if table.excluded and table.n}


def _once(levels: Iterable[MeasuredLevel]) -> tuple[MeasuredLevel, ...]:
    """Each level once, where it first appears."""
    found: dict[str, MeasuredLevel] = {}
    for item in levels:
        found.setdefault(item.key(), item)
    return tuple(found.values())


def _json_rows(document: Mapping[str, Any]) -> list[MeasuredLevel]:
    """Every measurement row of a definition with where it was read: the ``measurements``, then, in the JSON of
    ``measure --mechanism --json`` (no ``policy``), the randomized levels under ``randomized.measurements``."""
    randomized = document.get("randomized")
    extra = randomized.get("measurements") if isinstance(randomized, dict) and "policy" not in document else None
    found = []
    known = set(definition_ids())
    for prefix, listed in (("measurements", document["measurements"]),
                           ("randomized.measurements", extra if isinstance(extra, list) else [])):
        for index, row in enumerate(listed):
            where = f"{prefix}[{index}]"
            if not isinstance(row, dict) or not isinstance(row.get("model"), str) or "exact" not in row:
                raise DataError(f"{where}: expected an object with 'model' and 'exact'")
            if row["model"] in known:
                found.append(_json_row(row, where))
    return found


def _json_row(row: Mapping[str, Any], where: str) -> MeasuredLevel:
    """A row of a definition as written; a status the document does not define reads as no level."""
    written = row.get("status", "finite")
    status: Status = written if written in _STATUSES else "undefined"
    parameters = row.get("parameters")
    distance = row.get("distance")
    level = _row_level(row, where) if status == "finite" else sympy.oo if status == "infinite" else None
    return MeasuredLevel(row["model"], _attribute_name(row.get("attribute")), level, status,
                         parameters if isinstance(parameters, dict) else {},
                         distance if isinstance(distance, str) else None, where)


def _attribute_name(attribute: object) -> str | None:
    if isinstance(attribute, list):
        return "+".join(str(a) for a in attribute)
    return None if attribute is None else str(attribute)


def _level(text: object, where: str) -> sympy.Expr:
    """A level as :func:`verifier.display.exact_text` writes it, read by the grammar of :mod:`verifier.exact_grammar`."""
    try:
        return read_exact(text, where)
    except GrammarError as error:
        raise DataError(str(error)) from None


def _row_level(row: Mapping[str, Any], where: str) -> sympy.Expr:
    """The level a row guarantees: its exact level, or for a level known only between exact bounds the
    bound on the weak side (the upper one when smaller is stronger)."""
    bounds = row.get("bounds")
    if isinstance(bounds, dict) and bounds.get("exact") is False:
        weak = "upper" if definition(row["model"]).direction == "smaller_is_stronger" else "lower"
        return _level(bounds.get(weak), f"{where}.bounds.{weak}")
    return _level(row["exact"], f"{where}.exact")


def load_audit(path: str | Path) -> dict[str, Any]:
    """Read a results document's JSON file.

    Raises
    ------
    InputFileNotFoundError
        The file does not exist.
    DataError
        It is not JSON, or not an audit (``rows`` and ``measurements`` expected).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputFileNotFoundError(f"{path}: no such audit file (write one with `privcert audit ... --json FILE`)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(f"{path}: cannot read the audit file ({error})") from None
    try:
        audit = json.loads(text)
    except ValueError as error:
        raise DataError(f"{path}: not JSON ({error}); expected the output of `privcert audit --json`") from None
    if not isinstance(audit, dict) or not isinstance(audit.get("rows"), int) or not isinstance(audit.get("measurements"), list):
        found = sorted(audit) if isinstance(audit, dict) else type(audit).__name__
        raise DataError(f"{path}: expected an audit with 'rows' (an integer) and 'measurements' (a list), found {found}")
    return audit


def read_audit(path: str | Path) -> AuditLevels:
    """The levels of a results document's file (:func:`load_audit`, :meth:`AuditLevels.from_json`)."""
    return AuditLevels.from_json(load_audit(path))
