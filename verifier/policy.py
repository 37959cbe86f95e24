"""Audit policies: which columns to read, how, and which levels a release must reach.

A policy is a TOML file (schema and every key: ``docs/policy.md``). Parsing is strict:
an unknown key, a wrong type, an unknown model or an undeclared attribute is a
:class:`~verifier.errors.PolicyError` that names the file, the key path
(``require[2].threshold``, counting ``[[require]]`` tables from 1), what was expected
and what was found. A typo must never be silently ignored.

Thresholds are exact: a TOML float such as ``0.15`` is read from its decimal text
(``tomllib`` with ``parse_float=decimal.Decimal``) and becomes ``Fraction(3, 20)``,
never the binary float ``0.1499999...``; strings such as ``"1/6"`` are read as
fractions.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, cast

import sympy

from verifier._policy_reader import PATH_KEYS, Locate, Reader, describe
from verifier._risk_policy import RiskInputs, check_risk_requirement, parse_risk_section
from verifier.errors import HierarchyError, InputFileNotFoundError, PolicyError
from verifier.literal import Domain
from verifier.question import Question
from verifier.randomized.mechanism_policy import MechanismPolicy, parse_mechanism_section
from verifier.registry import Parameter, RequirementError, model, model_ids
from verifier.tables.buckets import Bucketing, EqualFrequency, Groups, Ranges
from verifier.tables.counts import AttributeKind, AttributeSpec, Missing
from verifier.tables.hierarchy import Hierarchy, load_hierarchy
from verifier.tables.text_file import read_text

__all__ = ["Policy", "Requirement", "Sensitive", "load_policy", "parse_policy", "joint_spec", "schema_keys",
           "PATH_KEYS", "Locate"]

@dataclass(frozen=True)
class Sensitive:
    """One declared sensitive attribute: how it is read, its hierarchy and buckets."""

    spec: AttributeSpec
    hierarchy: Hierarchy | None = None
    buckets: Bucketing | None = None

    @property
    def name(self) -> str:
        return self.spec.columns[0]


@dataclass(frozen=True)
class Requirement:
    """One ``[[require]]`` table: a model's level must reach ``threshold``.

    Attributes
    ----------
    model
        A model id of the registry (:func:`verifier.registry.model_ids`).
    threshold
        The exact threshold (``k``, ``l``, ``t``, ``c``, ``α``, ``β``, ``δ``, risk, ``ε``):
        a Fraction, or for models with closed-form levels a sympy number (``ln(5)``,
        ``e^(1/2)``).
    attribute
        The sensitive attribute, the tuple of a declared joint attribute, or ``None``
        for models of the quasi-identifiers only.
    parameters
        The model's parameters the requirement names, checked against the model's
        declaration (:attr:`verifier.registry.Model.parameters`), defaults filled in:
        ``distance`` for ``t_closeness``, ``l`` for ``recursive_cl_diversity`` (the
        threshold is then ``c``), ``k`` for ``kt_closeness`` and ``k_eps_dp``.
    key
        Where the requirement is in the policy (``require[2]``), for messages.
    """

    model: str
    threshold: Fraction | sympy.Expr
    attribute: str | tuple[str, ...] | None = None
    parameters: Mapping[str, Any] = field(default_factory=dict)
    key: str = "require"

    def __post_init__(self) -> None:
        """Checked against the model's declaration: a registered model, an exact threshold among those it
        admits, its parameters declared and in their domains, the required ones named.

        Raises
        ------
        PolicyError
            What is wrong, with where (:attr:`key`), what was expected and what was found.
        """
        from verifier.registry import UnknownModelError

        try:
            declared = model(self.model)
        except UnknownModelError as error:
            raise PolicyError(f"{self.key}.model: {error}") from None
        threshold = self.threshold
        if isinstance(threshold, (bool, float)) or not isinstance(threshold, (int, Fraction, sympy.Expr)):
            raise PolicyError(f"{self.key}.threshold: expected an exact number (int, Fraction or sympy), "
                              f"found {threshold!r}")
        exact = sympy.sympify(threshold) if not isinstance(threshold, Fraction) else \
            sympy.Rational(threshold.numerator, threshold.denominator)
        if not exact.is_number or not declared.threshold.contains(exact):
            raise PolicyError(f"{self.key}.threshold: expected {declared.threshold.describe()} for {declared.id}, "
                              f"found {threshold}")
        for name, value in self.parameters.items():
            if name == "attribute":
                continue
            parameter = declared.parameter(name)
            if parameter is None:
                raise PolicyError(f"{self.key}.{name}: {declared.id} takes no parameter {name!r}; expected one of: "
                                  f"{', '.join(p.name for p in declared.parameters) or 'none'}")
            if not parameter.admits(value):
                raise PolicyError(f"{self.key}.{name}: expected {parameter.values()}, found {value!r}")
        missing = [p.name for p in declared.parameters if p.required and p.name not in self.parameters]
        if missing:
            raise PolicyError(f"{self.key}: {declared.id} requires {', '.join(missing)}")

    @property
    def distance(self) -> str | None:
        """The ground distance named (or defaulted) for ``t_closeness`` and ``stochastic_t_closeness``."""
        return self.parameters.get("distance")

    @property
    def l(self) -> int | None:
        """The ``l`` of a ``recursive_cl_diversity`` requirement."""
        return self.parameters.get("l")

    @property
    def k(self) -> int | None:
        """The subset size of a ``kt_closeness`` or ``k_eps_dp`` requirement."""
        return self.parameters.get("k")

    @property
    def randomized(self) -> bool:
        """Whether the model is a level of a randomized mechanism (decided on bounds)."""
        return model(self.model).kind == "randomized"


@dataclass(frozen=True)
class Policy:
    """A parsed policy file.

    Attributes
    ----------
    source
        The policy file (for messages), or ``"<command line>"``.
    qi
        The quasi-identifier columns.
    sensitive
        The declared sensitive attributes, in file order.
    joint
        The joint attributes (each a categorical :class:`AttributeSpec` over several
        declared sensitive columns).
    requirements
        The ``[[require]]`` tables, in file order.
    data
        The release file named by ``[data] path`` (resolved against the policy's
        folder), if any.
    l
        The values of ``l`` for which recursive (c, l)-diversity is measured (``[measure] l``;
        the ``l`` of each requirement is measured too).
    risk_threshold
        The prosecutor-risk level above which a record counts as at risk.
    text
        The policy exactly as it was read (``None`` for a policy built from command-line options): the text a
        certificate embeds, so that what is signed is what was audited, never the file read again.
    """

    source: str
    qi: tuple[str, ...]
    sensitive: tuple[Sensitive, ...]
    joint: tuple[AttributeSpec, ...] = ()
    requirements: tuple[Requirement, ...] = ()
    data: Path | None = None
    l: tuple[int, ...] = (2,)
    risk_threshold: Fraction = Fraction(1, 5)
    mechanism: MechanismPolicy | None = None
    risk: RiskInputs = RiskInputs()
    text: str | None = None

    @property
    def sha256(self) -> str | None:
        """The SHA-256 of :attr:`text` in UTF-8 (``None`` without a text)."""
        import hashlib

        return None if self.text is None else hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def attributes(self) -> tuple[AttributeSpec, ...]:
        """Every attribute to measure: each sensitive one alone, then the joint ones."""
        return tuple(s.spec for s in self.sensitive) + self.joint

    @property
    def hierarchies(self) -> dict[str, Hierarchy]:
        return {s.name: s.hierarchy for s in self.sensitive if s.hierarchy is not None}

    @property
    def buckets(self) -> dict[str, Bucketing]:
        return {s.name: s.buckets for s in self.sensitive if s.buckets is not None}

    @property
    def requested(self) -> dict[str, tuple[dict[str, Any], ...]]:
        """The parameters each model's requirements name, with their attribute
        (:attr:`verifier.registry.MeasureOptions.requested`)."""
        found: dict[str, list[dict[str, Any]]] = {}
        for item in self.requirements:
            found.setdefault(item.model, []).append({**item.parameters, "attribute": item.attribute})
        return {key: tuple(value) for key, value in found.items()}

    @property
    def question(self) -> Question:
        """What an audit measures: the quasi-identifiers, every attribute and the options the policy
        gives (:meth:`verifier.question.Question.of`; the ``[risk]`` inputs and the parameters its
        requirements name)."""
        return Question.of(self.qi, self.attributes, hierarchies=self.hierarchies, buckets=self.buckets, l=self.l,
                           risk_threshold=self.risk_threshold, inputs=self.risk.inputs, requested=self.requested,
                           source=self.source)


_TOP = ("data", "sensitive", "joint", "measure", "require", "mechanism", "risk")
_DATA_KEYS = ("qi", "path")
_SENSITIVE_KEYS = ("kind", "missing", "order", "domain", "hierarchy", "buckets")
_BUCKET_KEYS = ("edges", "ranges", "groups", "equal_frequency")
_MEASURE_KEYS = ("l", "risk_threshold")
_JOINT_KEYS = ("attributes",)
_REQUIRE_KEYS = ("model", "threshold", "attribute")


def schema_keys() -> tuple[str, ...]:
    """Every key the policy's schema has, as the reader checks them: ``data.qi``, ``sensitive.*.domain`` (``*``
    for a table's own name), ``sensitive.*.buckets.edges``, ``require.k`` (each parameter of each registered
    model), ... (:mod:`verifier.declarations` classifies each)."""
    from verifier._risk_policy import RISK_KEYS
    from verifier.randomized.mechanism_policy import MECHANISM_KEYS

    parameters = dict.fromkeys(p.name for m in model_ids() for p in model(m).parameters)
    return (*(f"data.{k}" for k in _DATA_KEYS), "sensitive.*", *(f"sensitive.*.{k}" for k in _SENSITIVE_KEYS),
            *(f"sensitive.*.buckets.{k}" for k in _BUCKET_KEYS), *(f"joint.{k}" for k in _JOINT_KEYS),
            *(f"measure.{k}" for k in _MEASURE_KEYS), *(f"require.{k}" for k in (*_REQUIRE_KEYS, *parameters)),
            *(f"mechanism.{k}" for k in MECHANISM_KEYS), *(f"risk.{k}" for k in RISK_KEYS))
_MISSING_ORDER = ("error", "value", "exclude")


def load_policy(path: str | Path, files: Locate | None = None, *, encoding: str = "utf-8") -> Policy:
    """Read and check a policy file; ``files`` locates the files it names (default: relative to its folder), a
    population table it names is read in the release's ``encoding`` (the policy itself is UTF-8).

    Raises
    ------
    InputFileNotFoundError
        The policy file, or a hierarchy file it names, does not exist.
    PolicyError
        The file is not valid TOML or breaks the schema of ``docs/policy.md``.
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileNotFoundError(f"{path}: policy file not found")
    return parse_policy(read_text(path, kind=PolicyError), source=str(path), base=path.parent, files=files,
                        encoding=encoding)


def parse_policy(text: str, *, source: str = "<policy>", base: Path | None = None,
                 hierarchies: Mapping[str, Hierarchy] | None = None, read_files: bool = True,
                 files: Locate | None = None, encoding: str = "utf-8") -> Policy:
    """Parse policy text; relative file names are resolved against ``base``, or located by ``files``; a
    population table is read in the release's ``encoding`` (hierarchies are UTF-8).

    Every file name is read by :meth:`~verifier._policy_reader.Reader.file` (the keys: :data:`PATH_KEYS`), so
    ``files`` decides every file a policy can make its reader open: a server confines them to the files its
    user uploaded.

    ``hierarchies`` gives an attribute's hierarchy instead of reading the file the policy
    names for it (a certificate carries the hierarchies it was measured with). With
    ``read_files=False`` no file the policy names is read (a certificate's policy: its
    hierarchies must be given, a population table is left out), so a signed policy can
    never make a reader's machine open a file of its choosing.

    Raises
    ------
    PolicyError
        The text breaks the schema, or (``read_files=False``) a hierarchy is not given.
    """
    try:
        document = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as error:
        raise PolicyError(f"{source}: not valid TOML: {error}") from error
    except RecursionError:
        raise PolicyError(f"{source}: arrays or tables nested too deeply to read; a policy nests a few levels") from None
    folder = base if base is not None else Path.cwd()
    read = Reader(source, files if files is not None else lambda _key, name: folder / name)
    read.keys(document, "", allowed=_TOP, required=("data", "sensitive", "require"))

    data = read.table(document["data"], "data")
    read.keys(data, "data", allowed=_DATA_KEYS, required=("qi",))
    qi = read.names(data["qi"], "data.qi")
    path = read.file(data["path"], "data.path") if "path" in data else None

    declared = read.table(document["sensitive"], "sensitive")
    if not declared:
        read.fail("sensitive", "at least one [sensitive.NAME] table", "an empty table")
    sensitive = tuple(_sensitive(read, name, body, qi, (hierarchies or {}).get(name), read_files)
                      for name, body in declared.items())
    by_name = {s.name: s for s in sensitive}
    joint = _joint(read, document.get("joint"), by_name)

    measure = read.table(document.get("measure", {}), "measure")
    read.keys(measure, "measure", allowed=_MEASURE_KEYS)
    l_values = _l_values(read, measure.get("l", 2))
    risk = (
        read.fraction(measure["risk_threshold"], "measure.risk_threshold", Fraction(0), Fraction(1), lower_open=True)
        if "risk_threshold" in measure
        else Fraction(1, 5)
    )

    risk_inputs = parse_risk_section(read, document.get("risk"), qi, read_files, encoding)
    tables = document["require"]
    if not isinstance(tables, list) or not tables:
        read.fail("require", "one or more [[require]] tables", describe(tables))
    requirements = tuple(
        _requirement(read, body, f"require[{number}]", by_name, joint) for number, body in enumerate(tables, start=1)
    )
    for item in requirements:
        check_risk_requirement(read, risk_inputs, model(item.model), item.parameters, item.key)
    return Policy(
        source=source,
        qi=qi,
        sensitive=sensitive,
        joint=joint,
        requirements=requirements,
        data=path,
        l=l_values,
        risk_threshold=risk,
        mechanism=parse_mechanism_section(read, document.get("mechanism"), tuple(by_name)),
        risk=risk_inputs,
        text=text,
    )


def _sensitive(read: Reader, name: str, body: Any, qi: tuple[str, ...], given: Hierarchy | None,
               read_files: bool) -> Sensitive:
    key = f"sensitive.{name}"
    body = read.table(body, key)
    read.keys(body, key, allowed=_SENSITIVE_KEYS)
    if name in qi:
        read.fail(key, "a column that is not a quasi-identifier", f"{name!r}, which is listed in data.qi")
    kind = cast(AttributeKind, read.choice(body.get("kind", "categorical"), f"{key}.kind", ("categorical", "numerical", "ordinal")))
    missing = cast(Missing, read.choice(body.get("missing", "error"), f"{key}.missing", _MISSING_ORDER))
    if missing == "value" and kind != "categorical":
        read.fail(f"{key}.missing", f"'error' or 'exclude' for a {kind} attribute ('value' is categorical only)", "'value'")
    for option, owner in (("order", "ordinal"), ("domain", "numerical")):
        if option in body and kind != owner:
            read.fail(f"{key}.{option}", f"no {option!r} key for a {kind} attribute ({option} is for {owner} ones)", option)
    order = None
    if "order" in body:
        order = read.values(body["order"], f"{key}.order")
    if "domain" in body:
        order = read.values(body["domain"], f"{key}.domain", numeric=True)
    hierarchy = None
    if "hierarchy" in body:
        if kind != "categorical":
            read.fail(f"{key}.hierarchy", "a hierarchy only for a categorical attribute", f"a {kind} attribute")
        file = read.file(body["hierarchy"], f"{key}.hierarchy")
        if given is None and not read_files:
            read.fail(f"{key}.hierarchy", "the hierarchy's content (a certificate carries it)", "none given")
        try:
            hierarchy = given if given is not None else load_hierarchy(file)
        except (HierarchyError, InputFileNotFoundError) as error:
            raise type(error)(f"{read.source}: {key}.hierarchy: {error}") from error
    buckets = _buckets(read, body["buckets"], f"{key}.buckets", kind) if "buckets" in body else None
    return Sensitive(AttributeSpec((name,), kind=kind, missing=missing, order=order), hierarchy, buckets)


def _bucket_bound(read: Reader, value: Any, key: str, kind: str) -> Any:
    """A range bound: a number, an ordinal value, or ``"inf"`` / ``"-inf"`` (unbounded, numerical)."""
    if kind == "numerical" and value in ("inf", "-inf"):
        return None
    return read.values([value], key, numeric=kind == "numerical")[0]


def _buckets(read: Reader, value: Any, key: str, kind: str) -> Bucketing:
    """``buckets = {edges = [...]}``, ``{ranges = [[lo, hi], ...]}``, ``{groups = {...}}`` or ``{equal_frequency = t}``."""
    body = read.table(value, key)
    options = _BUCKET_KEYS
    read.keys(body, key, allowed=options)
    if len(body) != 1:
        read.fail(key, f"exactly one of the keys {', '.join(options)}", f"{len(body)} of them")
    ((option, value),) = body.items()
    key = f"{key}.{option}"
    if option != "groups" and kind == "categorical":
        read.fail(key, f"groups for a categorical attribute ({option} needs an ordered attribute)", repr(option))
    if option == "edges":
        return _built(read, key, Ranges.from_edges, read.values(value, key, numeric=kind == "numerical"))
    if option == "ranges":
        if not isinstance(value, list) or not value:
            read.fail(key, "a non-empty array of [lo, hi] pairs", describe(value))
        pairs = []
        for number, pair in enumerate(value, start=1):
            if not isinstance(pair, list) or len(pair) != 2:
                read.fail(f"{key}[{number}]", "a pair [lo, hi]", describe(pair))
            pairs.append(tuple(_bucket_bound(read, bound, f"{key}[{number}]", kind) for bound in pair))
        return _built(read, key, Ranges, tuple(pairs))
    if option == "groups":
        table = read.table(value, key)
        if not table:
            read.fail(key, "at least one group NAME = [values]", "an empty table")
        return _built(read, key, Groups.from_mapping, {name: read.values(v, f"{key}.{name}", numeric=kind == "numerical")
                                                         for name, v in table.items()})
    return _built(read, key, EqualFrequency, read.integer(value, key, minimum=1))


def _built(read: Reader, key: str, factory: Callable[[Any], Bucketing], argument: Any) -> Bucketing:
    """Build a bucketing; its own checks' errors are prefixed with the file and key."""
    try:
        return factory(argument)
    except PolicyError as error:
        raise PolicyError(f"{read.source}: {key}: {error}") from error


def _joint(read: Reader, section: Any, by_name: Mapping[str, Sensitive]) -> tuple[AttributeSpec, ...]:
    if section is None:
        return ()
    section = read.table(section, "joint")
    read.keys(section, "joint", allowed=_JOINT_KEYS, required=("attributes",))
    groups = section["attributes"]
    if not isinstance(groups, list):
        read.fail("joint.attributes", "an array of arrays of sensitive attribute names", describe(groups))
    joint = []
    for number, group in enumerate(groups, start=1):
        key = f"joint.attributes[{number}]"
        names = read.names(group, key)
        if len(names) < 2:
            read.fail(key, "at least two sensitive attribute names", f"{list(names)}")
        for name in names:
            if name not in by_name:
                read.fail(key, f"names declared as [sensitive.NAME] ({', '.join(by_name)})", repr(name))
        joint.append(joint_spec([by_name[n].spec for n in names]))
    return tuple(joint)


def joint_spec(parts: Sequence[AttributeSpec]) -> AttributeSpec:
    """The joint attribute of several sensitive attributes (Domingo-Ferrer & Soria-Comas 2015, §4: one combined attribute).

    It is categorical, over the combinations present. A combination with a missing part
    is missing, and only a part whose own policy allows missing values can be missing
    (each part is also counted alone, where ``error`` stops the run). So the joint
    policy is ``exclude`` if any part excludes, else ``value`` if any part makes missing a
    value, else ``error``: rows a part leaves out never re-enter through the joint
    attribute.
    """
    missing = max((part.missing for part in parts), key=_MISSING_ORDER.index)
    return AttributeSpec(tuple(c for part in parts for c in part.columns), kind="categorical", missing=missing)


def _l_values(read: Reader, value: Any) -> tuple[int, ...]:
    values = value if isinstance(value, list) else [value]
    if not values:
        read.fail("measure.l", "an integer ≥ 1 or a non-empty array of them", "an empty array")
    out = tuple(read.integer(v, "measure.l", minimum=1) for v in values)
    return tuple(dict.fromkeys(out))


def _requirement(
    read: Reader,
    body: Any,
    key: str,
    by_name: Mapping[str, Sensitive],
    joint: tuple[AttributeSpec, ...],
) -> Requirement:
    """A ``[[require]]`` table, read by the registry's declaration of its model."""
    body = read.table(body, key)
    declared = model(read.choice(body.get("model"), f"{key}.model", model_ids()))
    on_attribute = declared.scope == "attribute"
    named = tuple(p.name for p in declared.parameters)
    allowed = (*(k for k in _REQUIRE_KEYS if k != "attribute" or on_attribute), *named)
    required = ("model", "threshold", *(("attribute",) if on_attribute else ()),
                *(p.name for p in declared.parameters if p.required))
    read.keys(body, key, allowed=allowed, required=required, what=declared.id)
    attribute = _attribute(read, body["attribute"], f"{key}.attribute", by_name, joint) if on_attribute else None
    parameters = {p.name: _parameter(read, p, body[p.name], f"{key}.{p.name}") for p in declared.parameters
                  if p.name in body}
    domain = declared.threshold
    if declared.check_requirement is not None:
        spec, hierarchy = _attribute_facts(attribute, by_name, joint)
        try:
            domain = declared.check_requirement(parameters, spec, hierarchy) or domain
        except RequirementError as error:
            read.fail(f"{key}.{error.key}", error.expected, error.found)
    threshold = read.exact(body["threshold"], f"{key}.threshold", domain, closed_forms=declared.closed_forms)
    return Requirement(declared.id, threshold, attribute, parameters, key)


def _parameter(read: Reader, declared: Parameter, value: Any, key: str) -> Any:
    """A requirement's parameter: one of its words, or a number in its domain."""
    if declared.choices:
        return read.choice(value, key, declared.choices)
    domain = declared.domain or Domain()
    if domain.integer:
        return read.integer(value, key, minimum=int(domain.lower) if domain.lower is not None else 0)
    return read.exact(value, key, domain)


def _attribute_facts(attribute: str | tuple[str, ...] | None, by_name: Mapping[str, Sensitive],
                     joint: tuple[AttributeSpec, ...]) -> tuple[AttributeSpec | None, Hierarchy | None]:
    """The spec and hierarchy of a requirement's attribute (a joint attribute has no hierarchy)."""
    if isinstance(attribute, str):
        return by_name[attribute].spec, by_name[attribute].hierarchy
    return next((spec for spec in joint if spec.columns == attribute), None), None


def _attribute(
    read: Reader, value: Any, key: str, by_name: Mapping[str, Sensitive], joint: tuple[AttributeSpec, ...]
) -> str | tuple[str, ...]:
    if isinstance(value, str):
        if value not in by_name:
            read.fail(key, f"a declared sensitive attribute ({', '.join(by_name)})", repr(value))
        return value
    names = read.names(value, key)
    for spec in joint:
        if set(spec.columns) == set(names):
            return spec.columns
    declared = "; ".join(str(list(spec.columns)) for spec in joint) or "none declared"
    read.fail(key, f"a sensitive attribute name or a joint attribute declared in [joint] ({declared})", str(list(names)))
