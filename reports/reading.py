"""How a page presents a certificate's numbers and models to the person who receives it.

A compliance officer reads a model's name in words and what it guarantees in one line
(both from the registry: :attr:`verifier.registry.Model.name` and the summary of its
:class:`~verifier.registry.Definition`), a level as a decimal with its exact value beside
it (the exact value decides; the decimal is for reading), a level known only between two
exact bounds as the decimals of both, marked not exact, with both exact bounds beside them,
and among the implied guarantees only those that add something to the measurements: a
definition the certificate does not measure, or a level stronger than the one it measures.

Nothing here changes what is signed: the page reads the predicate as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy

__all__ = ["ModelWords", "Number", "Interval", "Implied", "ImpliedGroup", "model_words", "number", "interval",
           "implied_that_add"]


@dataclass(frozen=True)
class ModelWords:
    """A model as a reader sees it: its name in words and what a level of it guarantees."""

    id: str
    name: str
    meaning: str


@dataclass(frozen=True)
class Number:
    """A level or threshold for a reader: ``decimal`` to read (``≈`` when rounded), ``exact`` beside it.

    ``exact`` is ``None`` for an integer (nothing more to say) and for text that is not a
    number (``undefined``, a bound), which ``decimal`` then holds as written.
    """

    decimal: str
    exact: str | None

    @property
    def inline(self) -> str:
        """Both on one line: ``1/3 ≈ 0.3333``, ``1/2 = 0.5``, ``3``."""
        if self.exact is None:
            return self.decimal
        return f"{self.exact} {self.decimal}" if self.decimal.startswith("≈") else f"{self.exact} = {self.decimal}"


@dataclass(frozen=True)
class Interval:
    """A level known only between two exact bounds, for a reader: ``decimal`` to read, both exact bounds beside it.

    ``decimal`` reads ``between 1 and 4.9 (not exact)``, or ``≈ 10.45 (not exact)`` when both
    bounds round to the same decimal; ``lower`` and ``upper`` are the exact bounds as signed.
    """

    decimal: str
    lower: str
    upper: str


@dataclass(frozen=True)
class ImpliedGroup:
    """The implied guarantees that follow from one measured level (``source``: its model, attribute, level)."""

    source: ModelWords
    attribute: str
    level: Number
    guarantees: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True)
class Implied:
    """The implied guarantees worth showing, grouped; the definitions for which nothing follows."""

    groups: tuple[ImpliedGroup, ...]
    nothing: tuple[ModelWords, ...]

    @property
    def shown(self) -> tuple[Mapping[str, Any], ...]:
        """Every guarantee shown, in the predicate's order within each group."""
        return tuple(g for group in self.groups for g in group.guarantees)


def model_words(model_id: Any) -> ModelWords:
    """The registry's name and one-line meaning of ``model_id`` (the id itself when it is not registered).

    >>> model_words("k_anonymity").name
    'k-anonymity'
    >>> model_words("k_anonymity").meaning
    'every record shares its quasi-identifiers with at least k-1 others'
    """
    from verifier.registry import UnknownModelError, model

    text = str(model_id)
    try:
        found = model(text)
    except UnknownModelError:
        return ModelWords(text, text, "")
    meaning = found.definition.summary if found.definition is not None else f"as defined by {found.source}"
    return ModelWords(text, found.name, meaning)


def _value(text: Any) -> sympy.Expr | None:
    """A level or threshold as privcert writes it (:func:`verifier.exact_grammar.read_exact`: roots of any
    degree included), or ``None`` for text that is not one (``undefined``)."""
    from verifier.exact_grammar import GrammarError, read_exact

    try:
        return read_exact(str(text), "level")
    except (GrammarError, ValueError):
        return None


def number(exact: Any) -> Number:
    """A level or a threshold as a decimal (4 significant digits) with the exact value beside it.

    >>> number("199/1700"), number("3"), number("1/5"), number("ln(3)"), number("undefined")
    (Number(decimal='≈ 0.1171', exact='199/1700'), Number(decimal='3', exact=None), \
Number(decimal='0.2', exact='1/5'), Number(decimal='≈ 1.099', exact='ln(3)'), Number(decimal='undefined', exact=None))
    """
    from verifier.display import approximate

    value = _value(exact)
    if value is None or not value.is_finite:
        return Number("∞" if value is not None and value == sympy.oo else str(exact), None)
    if value.is_Integer:
        return Number(str(value), None)
    decimal = approximate(value)
    equal = bool(value.is_Rational) and sympy.Rational(decimal) == value
    return Number(decimal if equal else f"≈ {decimal}", str(exact))


def interval(measurement: Mapping[str, Any]) -> Interval | None:
    """A measurement's level as its two exact bounds when it is known only between them (its ``bounds`` say
    ``"exact": false``; its ``exact`` is then the upper bound), each bound's decimal as :func:`number` writes it;
    ``None`` for an exactly known level.

    >>> interval({"exact": "49/10", "bounds": {"exact": False, "lower": "1", "upper": "49/10"}})
    Interval(decimal='between 1 and 4.9 (not exact)', lower='1', upper='49/10')
    >>> interval({"bounds": {"exact": False, "lower": "ln(19999/10000)", "upper": "ln(2)"}}).decimal
    '≈ 0.6931 (not exact)'
    >>> interval({"exact": "ln(2)"}) is None
    True
    """
    from verifier.display import interval_text

    bounds = measurement.get("bounds")
    if not isinstance(bounds, Mapping) or bounds.get("exact") is not False:
        return None
    lower, upper = str(bounds.get("lower")), str(bounds.get("upper"))
    low, high = (number(bound).decimal.removeprefix("≈ ") for bound in (lower, upper))
    return Interval(interval_text(low, high, None), lower, upper)


def _stronger_or_equal(model_id: str, implied: sympy.Expr, measured: sympy.Expr) -> bool:
    """Whether ``measured`` is at least as strong as ``implied`` for ``model_id`` (exact comparison)."""
    from verifier.registry import model

    larger = model(model_id).stronger == "larger"
    return bool(measured >= implied) if larger else bool(measured <= implied)


def implied_that_add(implied: Iterable[Mapping[str, Any]], measurements: Sequence[Mapping[str, Any]]) -> Implied:
    """The implied guarantees that add something to ``measurements``, grouped, and those for which nothing follows.

    An implied level adds something when the certificate does not measure its definition on
    the same attribute, or measures a weaker level there (compared exactly; a level that
    cannot be read is kept). The groups are keyed by the measured level each follows from,
    in the order the predicate lists them.
    """
    from verifier.registry import UnknownModelError, model

    measured: dict[tuple[str, str], list[sympy.Expr | None]] = {}
    for m in measurements:
        measured.setdefault((str(m.get("model")), _attribute_key(m.get("attribute"))), []).append(_value(m.get("exact")))
    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    nothing: list[ModelWords] = []
    for entry in implied:
        definition = str(entry.get("definition"))
        if not entry.get("implied"):
            nothing.append(model_words(definition))
            continue
        source = entry.get("from") or {}
        try:
            scope = model(definition).scope
        except UnknownModelError:
            scope = "attribute"
        attribute = _attribute_key(source.get("attribute")) if scope == "attribute" else _attribute_key(None)
        level = _value(entry.get("level"))
        there = measured.get((definition, attribute), [])
        if level is not None and any(v is not None and _stronger_or_equal(definition, level, v) for v in there):
            continue
        key = (str(source.get("model")), _attribute_key(source.get("attribute")), str(source.get("level")))
        groups.setdefault(key, []).append({**entry, "words": model_words(definition)})
    return Implied(tuple(ImpliedGroup(model_words(key[0]), key[1], number(key[2]), tuple(members))
                         for key, members in groups.items()), tuple(nothing))


def _attribute_key(attribute: Any) -> str:
    from verifier.display import attribute_label

    return attribute_label(tuple(attribute) if isinstance(attribute, list) else attribute)
