"""The model registry: every privacy, risk and utility model declared once.

A :class:`Model` holds everything the rest of privcert needs to know about one model: its
id (the JSON ``model``), name, kind, source (paper and equation), what it is measured on
(the quasi-identifiers or a sensitive attribute), how a threshold turns its level into
pass/fail (:data:`Comparison`: the direction of strength and strictness), the thresholds a
policy may give (:class:`~verifier.literal.Domain`), its units, the parameters a
requirement on it may name, the inputs it needs besides the count tables, how ``verify``
re-checks it, its definition on the implication map (:class:`MapDefinition`: level symbol, domain, what
it is relative to and what its k is) and the function that measures it.

Each model is declared in one module of the package :mod:`verifier.models` (one module per
model or family of models, listed in :data:`verifier.models.MODULES` in report order; a
test fails when a module is not listed). Everything else reads the registry: the
measurement (:mod:`verifier.measure`), the policy (:mod:`verifier.policy`), the theory's
definitions, ``explain`` and the map, the certificate and its views, and the docs' table
of models. The declaration modules import nothing heavy (the measure functions import
their numerical code when called), so the theory can read the registry without numpy or
pandas.

:func:`register` adds a model at run time (a plug-in, or a test's toy model);
:func:`registered` does so for the duration of a ``with`` block.

References
----------
Ekenstedt et al. 2022, Defs. 1-3 (a definition's level and the direction of its strength).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import import_module
from typing import TYPE_CHECKING, Any, Literal

import sympy

from verifier.inputs import Inputs, inputs_of
from verifier.literal import Domain
from verifier.references import Source

if TYPE_CHECKING:
    from verifier.results import Measurement
    from verifier.tables.buckets import Bucketing
    from verifier.tables.counts import AttributeSpec, Classes, CountTable
    from verifier.tables.hierarchy import Hierarchy

__all__ = [
    "Comparison",
    "ModelKind",
    "Scope",
    "Recheck",
    "Parameter",
    "MapDefinition",
    "RELATIVE_TO",
    "Model",
    "MeasureOptions",
    "Subject",
    "UnknownModelError",
    "RequirementError",
    "register",
    "registered",
    "models",
    "model",
    "model_ids",
    "version",
    "requested_parameters",
    "shorthands",
    "subset_sizes",
    "models_table",
]

Comparison = Literal["at_least", "at_most", "below"]
"""How a policy threshold turns a level into pass/fail.

``at_least``: passes when level ≥ threshold (k, l). ``at_most``: level ≤ threshold
(t, β, α, risk). ``below``: level < threshold, for models defined with a strict
inequality (δ-disclosure; recursive (c,l)-diversity, where r₁ < c·(r_l+…+r_m)).
"""

ModelKind = Literal["privacy", "randomized", "risk", "utility"]
"""``privacy``: a syntactic privacy model of the release; ``randomized``: a level of the
mechanism a randomized release was made with; ``risk``: a re-identification risk model;
``utility``: what the release cost, measured against the original."""

Scope = Literal["release", "attribute"]
"""``release``: a function of the quasi-identifiers' classes alone (one measurement per
release); ``attribute``: measured on each sensitive attribute (and each joint one)."""

Recheck = Literal["count_tables", "original", "statement"]
"""How ``verify`` re-checks a certified level: re-measured from the count tables (embedded,
or the release's with ``--data``); only with the original data (``--original``); or not
at all (``statement``: shown as the publisher's statement)."""


@dataclass(frozen=True)
class Parameter:
    """A parameter a ``[[require]]`` table may name besides ``model``, ``threshold`` and ``attribute``.

    Attributes
    ----------
    name
        The key (``l``, ``distance``, ``k``, ``estimator``).
    description
        What it is, one line.
    domain
        For a number: where it may lie (``Domain(lower=Fraction(1), integer=True)``).
    choices
        For a word: the words allowed.
    required
        Whether a requirement must name it (otherwise the model's measure picks the
        value(s) from the attribute and the options).
    shorthand
        Whether ``privcert measure`` also takes it as ``--NAME VALUES``: the shorthand of
        ``--param MODEL.NAME=VALUE`` for every model whose parameter ``NAME`` is one
        (:func:`shorthands`; ``--k 2`` is ``--param kt_closeness.k=2 --param k_eps_dp.k=2``).
    """

    name: str
    description: str
    domain: Domain | None = None
    choices: tuple[str, ...] = ()
    required: bool = False
    shorthand: bool = False

    def __post_init__(self) -> None:
        if (self.domain is None) == (not self.choices):
            raise ValueError(f"parameter {self.name!r}: declare either a domain (a number) or choices (a word)")

    def values(self) -> str:
        """The values it takes, in words: ``one of equal, ordered`` or ``an integer ≥ 1``."""
        return f"one of {', '.join(self.choices)}" if self.choices else (self.domain or Domain()).describe()

    def admits(self, value: object) -> bool:
        """Whether ``value`` is one of its words, or an exact number in its domain."""
        if self.choices:
            return value in self.choices
        if isinstance(value, (bool, float)) or not isinstance(value, (int, Fraction)):
            return False
        return (self.domain or Domain()).contains(sympy.Rational(value.numerator, value.denominator))

    def parse(self, text: str, where: str) -> str | int | Fraction:
        """A value of this parameter from text (a word, or an exact number such as ``3`` or ``1/10``).

        Raises
        ------
        RequirementError
            ``text`` is not one of its words, or not an exact rational in its domain (``where``
            names it, e.g. ``--param recursive_cl_diversity.l``).
        """
        from verifier.literal import LiteralError, parse_exact

        if self.choices:
            if text not in self.choices:
                raise RequirementError(where, self.values(), repr(text))
            return text
        try:
            value = parse_exact(text, where, self.domain)
        except LiteralError:
            raise RequirementError(where, self.values(), repr(text)) from None
        if not value.is_Rational:
            raise RequirementError(where, f"a rational number: {self.values()}", repr(text))
        found = Fraction(int(value.p), int(value.q))
        return int(found) if found.denominator == 1 else found

    def describe(self) -> str:
        """The description and the values: ``the subset size (an integer ≥ 1)``."""
        return f"{self.description} ({self.values()})"

    @property
    def symbol(self) -> sympy.Symbol:
        """The parameter as a claim names it: a sympy symbol of its name, positive and integer when its domain
        says so (``k`` of a domain of integers ≥ 1 is the symbol ``k`` of :mod:`verifier.symbols`). A claim whose
        bound names it is checked at the value each measurement was made at."""
        domain = self.domain or Domain()
        positive = domain.lower is not None and (domain.lower > 0 or (domain.lower == 0 and domain.lower_open))
        return sympy.Symbol(self.name, **({"positive": True} if positive else {}),
                            **({"integer": True} if domain.integer else {}))


RELATIVE_TO = ("N", "k", "buckets", "l")
"""What a definition may be relative to besides its level: the records N, a size k (what it is, the
definition's facts say: :attr:`MapDefinition.subset_size`, :attr:`MapDefinition.minimal_class_size`), the
buckets of the sensitive values, the l of recursive diversity."""


@dataclass(frozen=True)
class MapDefinition:
    """A model as a definition on the implication map (Ekenstedt et al. 2022, Def. 1).

    The map draws it where the implications put it (:mod:`theory.answers.map` places the
    definitions by the layers of the implication graph), so a declaration holds no position.

    Attributes
    ----------
    symbol
        The level symbol (``k``, ``t``, ``epsilon``; :mod:`verifier.symbols`).
    domain
        The admissible levels (a sympy Interval or Range).
    relative_to
        What the definition is relative to besides its level (:data:`RELATIVE_TO`), in
        that order: ``N`` (records), ``k`` (a size: which, its facts say), ``buckets``, ``l``.
    summary
        One line: what a release at this level guarantees.
    minimal_class_size
        A fact, as a function of the level and the parameters (sympy symbols of their names,
        :attr:`Parameter.symbol`): the fewest records a class of a release at this level holds (ARX's
        ``PrivacyCriterion.getMinimalClassSize()``); ``None`` when the definition guarantees none. The symbol
        ``k`` of a definition relative to ``k`` is the release's smallest class: ``minimal_class_size=k`` says
        that its ``k`` is that class (Ekenstedt et al. 2022, Def. 4; Domingo-Ferrer & Soria-Comas 2015, Def. 3).
    subset_size
        A fact, as a function of the parameters: the size of the subsets of records the definition removes or
        compares, in [1, N-1] (Ekenstedt et al. 2022, Defs. 7-8: the parameter ``k``); ``None`` when it compares
        none.

    Raises
    ------
    ValueError
        ``relative_to`` names something outside :data:`RELATIVE_TO`; names ``k`` while neither fact says what
        its k is; or a subset size is declared for a definition not relative to ``k``.
    """

    symbol: sympy.Symbol
    domain: sympy.Set
    relative_to: tuple[str, ...]
    summary: str
    minimal_class_size: sympy.Expr | None = None
    subset_size: sympy.Expr | None = None

    def __post_init__(self) -> None:
        unknown = [name for name in self.relative_to if name not in RELATIVE_TO]
        if unknown:
            raise ValueError(f"relative_to: expected names among {', '.join(RELATIVE_TO)}, found {unknown}")
        sized = self.subset_size is not None or self.is_class_sized
        if ("k" in self.relative_to) != sized:
            raise ValueError(f"relative_to {self.relative_to}, subset_size {self.subset_size!r} and "
                             f"minimal_class_size {self.minimal_class_size!r}: a definition relative to k says what "
                             "its k is (subset_size=k, or minimal_class_size=k: the smallest class), and only then")

    @property
    def is_class_sized(self) -> bool:
        """Whether the ``k`` this definition is relative to is the release's smallest class: it is relative to
        ``k`` and guarantees classes of ``k`` records (:attr:`minimal_class_size` is the symbol ``k``)."""
        return ("k" in self.relative_to and isinstance(self.minimal_class_size, sympy.Symbol)
                and self.minimal_class_size.name == "k")

    def fact_at(self, fact: sympy.Expr, parameters: Mapping[str, Any]) -> sympy.Expr:
        """A fact of this definition (:attr:`minimal_class_size`, :attr:`subset_size`) at the given parameters,
        each symbol replaced by the parameter of its name (symbols without a parameter are kept)."""
        return fact.subs({symbol: sympy.sympify(parameters[symbol.name]) for symbol in fact.free_symbols
                          if isinstance(symbol, sympy.Symbol) and symbol.name in parameters})


@dataclass(frozen=True)
class MeasureOptions:
    """The options of one measurement run, as every measure function sees them (a run's are
    built and checked with its quasi-identifiers and attributes by :meth:`verifier.question.Question.of`).

    Attributes
    ----------
    hierarchies
        A hierarchy per categorical attribute name (adds the hierarchical distance).
    buckets
        A bucketing per attribute name (multiplicative t-closeness).
    l
        The ``l`` values of recursive (c, l)-diversity.
    risk_threshold
        The prosecutor risk above which a record counts as at risk.
    kinds
        The kinds of model asked for besides those measured by default
        (:attr:`Model.by_default`), e.g. ``risk`` (``measure --risk``).
    inputs
        The inputs some models need (:attr:`Model.needs`), typed and validated
        (:class:`verifier.inputs.Inputs`; a mapping of names is converted, an unknown name
        refused). A model whose inputs are absent is not measured.
    requested
        The parameters requirements name, per model id: each model measures these values
        besides its defaults.
    """

    hierarchies: Mapping[str, Hierarchy] = field(default_factory=dict)
    buckets: Mapping[str, Bucketing] = field(default_factory=dict)
    l: tuple[int, ...] = (2,)
    risk_threshold: Fraction = Fraction(1, 5)
    kinds: frozenset[ModelKind] = frozenset()
    inputs: Inputs = field(default_factory=Inputs)
    requested: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", inputs_of(self.inputs))


@dataclass(frozen=True)
class Subject:
    """What a measure function is given: the classes, the attribute's count table (``None`` for a
    release-scope model) and the run's options."""

    classes: Classes
    table: CountTable | None
    options: MeasureOptions

    def requested(self, model_id: str) -> tuple[Mapping[str, Any], ...]:
        """The parameter sets requirements name for ``model_id`` on this subject's attribute."""
        attribute = None if self.table is None else self.table.attribute
        return tuple(p for p in self.options.requested.get(model_id, ())
                     if p.get("attribute", attribute) == attribute)


Measure = Callable[[Subject], Iterable["Measurement"]]
"""A model's measure: the optimal level(s) of the model on a subject (one per parameter value)."""

class RequirementError(ValueError):
    """A requirement's parameters do not fit the model or the attribute: the key, what was expected, what was found."""

    def __init__(self, key: str, expected: str, found: str) -> None:
        super().__init__(f"{key}: expected {expected}, found {found}")
        self.key, self.expected, self.found = key, expected, found


CheckRequirement = Callable[[dict[str, Any], "AttributeSpec | None", "Hierarchy | None"], "Domain | None"]
"""A model's check of a requirement's parameters against the attribute (its spec and hierarchy):
fills defaults into the parameters, raises :class:`RequirementError`, and returns the
thresholds' domain when it depends on a parameter (``None``: :attr:`Model.threshold`)."""

Decide = Callable[["Measurement", Any, "CountTable | None"], bool]
"""A model's own exact decision of ``level (comparison) threshold``, given the measurement, the
threshold and the attribute's count table (entropy l-diversity decides on integers)."""


@dataclass(frozen=True)
class Model:
    """One model, declared once (see the module docstring).

    Attributes
    ----------
    id
        The model id, in JSON, policies and certificates (``k_anonymity``). A published id
        never changes meaning; new semantics get a new id.
    name
        Human-readable name (``k-anonymity``).
    kind
        :data:`ModelKind`.
    scope
        :data:`Scope`.
    source
        The paper, section and equation that define it.
    comparison
        :data:`Comparison`: which way is stronger, and strictly or not.
    threshold
        The thresholds a policy may give.
    units
        What the level counts (``records``, ``probability``, ``EMD``, ``ratio``, ``nats``).
    measure
        The measure function (:data:`Measure`).
    parameters
        The parameters a requirement may name.
    needs
        Inputs besides the count tables (keys of :attr:`MeasureOptions.inputs`).
    reads
        Inputs it reads when they are given, without needing them (marketer risk and a population table): a
        certificate that does not carry such an input cannot have the level re-measured.
    recheck
        :data:`Recheck`.
    definition
        Its definition on the implication map (``None``: not on the map).
    closed_forms
        Thresholds may be written ``ln(q)`` or ``e^x`` (levels that are logarithms).
    by_default
        Measured in every run; otherwise only when its kind is asked for
        (:attr:`MeasureOptions.kinds`, e.g. ``measure --risk``) or a requirement names it.
    decide
        The model's own exact decision (:data:`Decide`); by default the level is compared
        with :meth:`verifier.results.Level.satisfies`, or on its bounds when it is known
        only between bounds.
    check_requirement
        The model's check of a requirement's parameters (:data:`CheckRequirement`).
    needs_one_of
        Inputs of which a policy must give one, in ``[risk]`` or as the requirement's own parameter
        (population uniqueness needs a sampling fraction or a population size).
    smallest_class
        The level is the size of the smallest class, the class its witness names (k-anonymity): a failed
        requirement lists the classes below its threshold.
    implied_at
        The parameters a level the theory implies for it (auditor mode) is at, as ``(name, value)`` pairs.
    """

    id: str
    name: str
    kind: ModelKind
    scope: Scope
    source: Source
    comparison: Comparison
    threshold: Domain
    units: str
    measure: Measure
    parameters: tuple[Parameter, ...] = ()
    needs: frozenset[str] = frozenset()
    reads: frozenset[str] = frozenset()
    recheck: Recheck = "count_tables"
    definition: MapDefinition | None = None
    closed_forms: bool = False
    by_default: bool = True
    decide: Decide | None = None
    check_requirement: CheckRequirement | None = None
    needs_one_of: frozenset[str] = frozenset()
    smallest_class: bool = False
    implied_at: tuple[tuple[str, str], ...] = ()

    @property
    def stronger(self) -> Literal["larger", "smaller"]:
        """Which levels are stronger (Ekenstedt et al. 2022, Def. 1)."""
        return "larger" if self.comparison == "at_least" else "smaller"

    @property
    def strict(self) -> bool:
        """Whether the definition uses a strict inequality (``level < threshold``)."""
        return self.comparison == "below"

    def measured(self, options: MeasureOptions) -> bool:
        """Whether a run with ``options`` measures this model: its kind is asked for (or it is
        measured by default, or a requirement names it) and every input it needs is given."""
        asked = self.by_default or self.kind in options.kinds or self.id in options.requested
        return asked and self.needs <= options.inputs.keys()

    def parameter(self, name: str) -> Parameter | None:
        """The declared parameter ``name``, if any."""
        return next((p for p in self.parameters if p.name == name), None)


class UnknownModelError(KeyError):
    """A model id that is not registered; the message lists the valid ids."""

    def __str__(self) -> str:
        return str(self.args[0])


_REGISTERED: dict[str, Model] = {}
_LOADED = False
_VERSION = [0]
"""Incremented whenever the registry changes, so that readers may cache what they derive from it."""


def _load() -> None:
    """Import the declaration modules of :mod:`verifier.models` once, in report order."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from verifier.models import MODULES

    for name in MODULES:
        import_module(f"verifier.models.{name}")


def register(*declared: Model) -> None:
    """Add models to the registry (each declaration module calls this once).

    Raises
    ------
    ValueError
        A model id is already registered (ids are global and never reused).
    """
    for item in declared:
        if item.id in _REGISTERED and _REGISTERED[item.id] is not item:
            raise ValueError(f"model id {item.id!r} is already registered ({_REGISTERED[item.id].name})")
        _REGISTERED[item.id] = item
    _VERSION[0] += 1


@contextmanager
def registered(*declared: Model) -> Iterator[None]:
    """Register ``declared`` for the duration of a ``with`` block (a test's toy model)."""
    _load()
    register(*declared)
    try:
        yield
    finally:
        for item in declared:
            _REGISTERED.pop(item.id, None)
        _VERSION[0] += 1


def version() -> int:
    """A number that changes whenever a model is registered or removed (for caches of derived data)."""
    _load()
    return _VERSION[0]


def models(kind: ModelKind | None = None) -> tuple[Model, ...]:
    """The registered models in report order (of one ``kind`` if given): by the position of their
    declaration module (the module of their measure function) in :data:`verifier.models.MODULES`,
    then in the order each module registers them; models declared elsewhere come last."""
    _load()
    from verifier.models import MODULES

    rank = {f"verifier.models.{name}": index for index, name in enumerate(MODULES)}
    found = sorted(enumerate(_REGISTERED.values()),
                   key=lambda pair: (rank.get(pair[1].measure.__module__, len(rank)), pair[0]))
    return tuple(m for _, m in found if kind is None or m.kind == kind)


def model_ids(kind: ModelKind | None = None) -> tuple[str, ...]:
    """The registered model ids in report order (of one ``kind`` if given)."""
    return tuple(m.id for m in models(kind))


def model(model_id: str) -> Model:
    """Look a model up by id.

    Raises
    ------
    UnknownModelError
        When ``model_id`` is not registered; the message lists the valid ids.
    """
    _load()
    try:
        return _REGISTERED[model_id]
    except KeyError:
        raise UnknownModelError(f"unknown model id {model_id!r}; expected one of: {', '.join(_REGISTERED)}") from None


def requested_parameters(texts: Iterable[str], where: str = "--param") -> dict[str, tuple[dict[str, Any], ...]]:
    """The parameter sets named as ``MODEL.NAME=VALUE`` (``measure --param``), per model id, each value
    checked against the model's declared parameter. Parameters of one model join one set, until a name
    comes again: ``kt_closeness.k=2``, ``kt_closeness.k=3`` are two sets, measured both.

    Raises
    ------
    RequirementError
        The text is not ``MODEL.NAME=VALUE``, the model is not registered, it declares no such
        parameter (the message lists those it declares), or the value is not one it takes.
    """
    found: dict[str, list[dict[str, Any]]] = {}
    for text in texts:
        named, equals, value = text.partition("=")
        model_id, dot, name = named.strip().rpartition(".")
        if not equals or not dot:
            raise RequirementError(where, "MODEL.NAME=VALUE, e.g. recursive_cl_diversity.l=3", repr(text))
        try:
            declared = model(model_id)
        except UnknownModelError as error:
            raise RequirementError(f"{where} {text}", "a registered model", str(error)) from None
        parameter = declared.parameter(name)
        if parameter is None:
            names = ", ".join(p.name for p in declared.parameters) or "none"
            raise RequirementError(f"{where} {text}", f"a parameter of {model_id} ({names})", repr(name))
        sets = found.setdefault(model_id, [{}])
        if name in sets[-1]:
            sets.append({})
        sets[-1][name] = parameter.parse(value.strip(), f"{where} {model_id}.{name}")
    return {model_id: tuple(sets) for model_id, sets in found.items()}


def shorthands() -> dict[str, tuple[Model, ...]]:
    """The parameters ``privcert measure`` takes as ``--NAME VALUES`` (:attr:`Parameter.shorthand`), by name, each
    with the models that declare it, in report order.

    Raises
    ------
    ValueError
        Two models declare a shorthand of one name with different values (a domain or words).
    """
    found: dict[str, list[Model]] = {}
    for item in models():
        for parameter in item.parameters:
            if parameter.shorthand:
                found.setdefault(parameter.name, []).append(item)
    for name, declaring in found.items():
        values = {declared.values() for declared in (m.parameter(name) for m in declaring) if declared is not None}
        if len(values) > 1:
            raise ValueError(f"shorthand --{name}: {', '.join(m.id for m in declaring)} declare it with different "
                             f"values ({'; '.join(sorted(values))})")
    return {name: tuple(declaring) for name, declaring in found.items()}


def subset_sizes(requested: Mapping[str, Iterable[Mapping[str, Any]]]) -> tuple[int, ...]:
    """The subset sizes requested of the models whose definition compares subsets of records (their
    :attr:`MapDefinition.subset_size` at each requested parameter set: (k,t)-closeness, (k,ε)-DP), each once, in
    the order named: the subset sizes a randomized release is measured at."""
    found: list[int] = []
    for model_id, sets in requested.items():
        declared = model(model_id).definition
        if declared is not None and declared.subset_size is not None:
            sizes = (declared.fact_at(declared.subset_size, parameters) for parameters in sets)
            found += [int(size) for size in sizes if size.is_Integer]
    return tuple(dict.fromkeys(found))


def models_table() -> str:
    """Every registered model as a Markdown table (docs/models.md holds it; a test keeps the two equal)."""
    header = ("model id", "name", "kind", "on", "stronger", "threshold", "units", "parameters", "re-checked from",
              "source")
    rows = []
    for item in models():
        stronger = item.stronger + (", strict" if item.strict else "")
        parameters = ", ".join(f"`{p.name}`" + ("" if p.required else " (optional)") for p in item.parameters) or "—"
        threshold = item.threshold.describe() + (" (or ln(q), e^x)" if item.closed_forms else "")
        recheck = {"count_tables": "count tables", "original": "the original data",
                   "statement": "not re-checked"}[item.recheck] + "".join(f" + {need}" for need in sorted(item.needs))
        on = "quasi-identifiers" if item.scope == "release" else "each attribute"
        rows.append((f"`{item.id}`", item.name, item.kind, on, stronger, threshold, item.units, parameters, recheck,
                     str(item.source)))
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
