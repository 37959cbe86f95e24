"""The audit page's policy form, built from the model registry, and its round trip to the policy file (TOML).

The form lists the release's columns (each a quasi-identifier, a sensitive attribute or
left out) and the requirements, one per row: a model of the registry, the attribute it is
measured on (for a model measured per attribute), its threshold (the registry's
:class:`~verifier.literal.Domain` says which are allowed) and the parameters the model
declares (a word among its choices, or a number in its domain). A model registered
later appears in the form without any change here.

The form and the policy file are the same thing: :func:`policy_from_form` turns the posted
fields into the policy's tables, :func:`policy_toml` writes them as the TOML file
``privcert audit --policy`` reads, and :func:`form_from_policy` reads an imported file
back into the form. Keys of an imported policy the form does not show (hierarchies,
orders, joint attributes, risk inputs) are kept as they were.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from verifier.identifier_names import looks_like_identifier

__all__ = ["ModelField", "ParameterField", "Column", "FormState", "model_fields", "suggest_roles", "policy_from_form",
           "policy_toml", "form_from_policy", "ROLES"]

ROLES = ("quasi-identifier", "sensitive", "left out")
MAX_REQUIREMENTS = 200
"""The most requirement rows a posted form is read for."""
KINDS = ("categorical", "numerical")
_SENSITIVE = re.compile(r"diagnos|disease|illness|condition|salary|income|wage|religion|health|stay|treatment|drug",
                        re.IGNORECASE)


@dataclass(frozen=True)
class ParameterField:
    """One parameter of a model as a form field: a select of ``choices`` or a text field of ``domain``."""

    name: str
    description: str
    choices: tuple[str, ...]
    domain: str | None
    required: bool


@dataclass(frozen=True)
class ModelField:
    """A registered model as the form offers it."""

    id: str
    name: str
    kind: str
    per_attribute: bool
    threshold: str
    stronger: str
    parameters: tuple[ParameterField, ...]
    needs: tuple[str, ...]
    source: str


def model_fields() -> tuple[ModelField, ...]:
    """Every model a policy may require, from :func:`verifier.registry.models` (utility models are measured against
    an original, not required)."""
    from verifier.registry import models

    found = []
    for item in models():
        if item.kind == "utility":
            continue
        threshold = item.threshold.describe() + (" (or ln(q), e^x)" if item.closed_forms else "")
        parameters = tuple(ParameterField(p.name, p.description, p.choices,
                                          None if p.domain is None else p.domain.describe(), p.required)
                           for p in item.parameters)
        stronger = ("smaller is stronger" if item.stronger == "smaller" else "larger is stronger") + \
            (", strictly below" if item.strict else "")
        found.append(ModelField(item.id, item.name, item.kind, item.scope == "attribute", threshold, stronger,
                                parameters, tuple(sorted(item.needs)), str(item.source)))
    return tuple(found)


@dataclass(frozen=True)
class Column:
    """A column of the release: its name, role, kind (for a sensitive one) and why that role was suggested."""

    name: str
    role: str
    kind: str = "categorical"
    note: str = ""


@dataclass
class FormState:
    """What the policy form shows: the columns with their roles, and the requirements (dicts as in the TOML)."""

    columns: list[Column]
    requirements: list[dict[str, Any]]
    extra: dict[str, Any] = field(default_factory=dict)
    """Tables of the policy the form does not show, kept for the file (``joint``, ``risk``, ...)."""
    sensitive_extra: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Keys of each sensitive table besides ``kind`` (``hierarchy``, ``order``, ``missing``)."""

    @property
    def sensitive(self) -> list[str]:
        return [c.name for c in self.columns if c.role == "sensitive"]


def suggest_roles(names: Sequence[str], rows: int, distinct: Mapping[str, int], numeric: Mapping[str, bool]
                  ) -> FormState:
    """Roles for a release's columns: an identifier is left out (unique on every row read, or named like ``id``,
    ``email``); a column named like a diagnosis or a salary is sensitive; the others are quasi-identifiers. The
    suggested requirements: 2-anonymity, and distinct 2-diversity on each sensitive column."""
    columns = []
    for name in names:
        if rows > 1 and distinct.get(name) == rows:
            columns.append(Column(name, "left out", note=f"identifier: unique on every one of the {rows:,} rows read"))
        elif looks_like_identifier(name):
            columns.append(Column(name, "left out", note="identifier: named like one"))
        elif _SENSITIVE.search(name):
            columns.append(Column(name, "sensitive", "numerical" if numeric.get(name) else "categorical",
                                  note="named like a sensitive attribute"))
        else:
            columns.append(Column(name, "quasi-identifier"))
    requirements: list[dict[str, Any]] = [{"model": "k_anonymity", "threshold": "2"}]
    requirements += [{"model": "distinct_l_diversity", "attribute": c.name, "threshold": "2"}
                     for c in columns if c.role == "sensitive"]
    return FormState(columns, requirements)


def _number(text: str) -> int | str:
    """A threshold or parameter as the TOML writes it: an integer as one, anything else as typed (a string
    the policy reads exactly: ``1/3``, ``0.2``, ``ln(2)``)."""
    text = text.strip()
    return int(text) if re.fullmatch(r"[+-]?[0-9]+", text) else text


def _choice(value: Any, field: str, allowed: Sequence[str], default: str) -> str:
    """A select's posted value: ``default`` when absent, one of ``allowed``, else refused (posted by hand)."""
    from privcert.app.web import BadRequest

    chosen = default if value is None else str(value)
    if chosen not in allowed:
        raise BadRequest(f"{field}: expected one of {', '.join(allowed)}, found {chosen!r}")
    return chosen


def policy_from_form(form: Mapping[str, Any], columns: Sequence[str], base: FormState | None = None) -> FormState:
    """The form's state from the posted fields (``role-I``, ``kind-I`` for column I; ``req-N-model``,
    ``req-N-attribute``, ``req-N-threshold``, ``req-N-p-NAME`` for requirement N; ``remove`` and ``add``
    buttons).

    Raises
    ------
    privcert.app.web.BadRequest
        A role or kind not among the form's choices, or a number (a threshold, a numeric parameter) written with
        digits other than 0-9: the field named by its label.
    """
    from privcert.app.web import number_text, whole_number

    known = {m.id: m for m in model_fields()}
    state = FormState([], [], dict(base.extra) if base else {}, dict(base.sensitive_extra) if base else {})
    for index, name in enumerate(columns):
        role = _choice(form.get(f"role-{index}"), f"Role of {name}", ROLES, "left out")
        kind = _choice(form.get(f"kind-{index}"), f"Kind of {name}", KINDS, "categorical")
        state.columns.append(Column(name, role, kind))
    count = min(whole_number(str(form.get("requirements", "0")), "requirements"), MAX_REQUIREMENTS)
    removed = str(form.get("remove", ""))
    for n in range(count):
        if str(n) == removed:
            continue
        model_id = str(form.get(f"req-{n}-model", ""))
        threshold = number_text(str(form.get(f"req-{n}-threshold", "")).strip(), f"Requirement {n + 1}, threshold")
        requirement: dict[str, Any] = {"model": model_id, "threshold": threshold}
        declared = known.get(model_id)
        if declared is not None and declared.per_attribute:
            requirement["attribute"] = str(form.get(f"req-{n}-attribute", ""))
        for parameter in (declared.parameters if declared else ()):
            value = str(form.get(f"req-{n}-p-{parameter.name}", "")).strip()
            if value and parameter.domain is not None:
                number_text(value, f"Requirement {n + 1}, {parameter.name}")
            if value:
                requirement[parameter.name] = value
        state.requirements.append(requirement)
    if form.get("add"):
        state.requirements.append({"model": "k_anonymity", "threshold": "2"})
    return state


def policy_toml(state: FormState, release_name: str | None = None) -> str:
    """The policy file of the form (docs/policy.md): ``[data]`` with the quasi-identifiers (and ``path`` when
    ``release_name`` is given), a ``[sensitive.NAME]`` table per sensitive column, a ``[[require]]`` per row."""
    import tomli_w

    known = {m.id: m for m in model_fields()}
    data: dict[str, Any] = {}
    if release_name:
        data["path"] = release_name
    data["qi"] = [c.name for c in state.columns if c.role == "quasi-identifier"]
    document: dict[str, Any] = {"data": data}
    sensitive = {c.name: {"kind": c.kind, **state.sensitive_extra.get(c.name, {})}
                 for c in state.columns if c.role == "sensitive"}
    if sensitive:
        document["sensitive"] = sensitive
    document.update(state.extra)
    requirements = []
    for requirement in state.requirements:
        declared = known.get(requirement.get("model", ""))
        written: dict[str, Any] = {}
        for key, value in requirement.items():
            numeric = key == "threshold" or (declared is not None and any(
                p.name == key and p.domain is not None for p in declared.parameters))
            written[key] = _number(value) if numeric and isinstance(value, str) else value
        requirements.append(written)
    document["require"] = requirements
    return ("# Written by the privcert workbench (privcert serve); schema: docs/policy.md.\n"
            + tomli_w.dumps(document))


def form_from_policy(document: Mapping[str, Any], columns: Sequence[str]) -> FormState:
    """The form's state from a parsed policy file (``tomllib``): the release's columns get the policy's roles;
    the tables and keys the form does not show are kept."""
    data = document.get("data", {}) if isinstance(document.get("data"), dict) else {}
    qi = [str(c) for c in data.get("qi", [])] if isinstance(data.get("qi"), list) else []
    sensitive = document.get("sensitive", {}) if isinstance(document.get("sensitive"), dict) else {}
    state = FormState([], [])
    for name in columns:
        if name in qi:
            state.columns.append(Column(name, "quasi-identifier"))
        elif name in sensitive:
            body = sensitive[name] if isinstance(sensitive[name], dict) else {}
            kind = str(body.get("kind", "categorical"))
            state.columns.append(Column(name, "sensitive", kind if kind in KINDS else "categorical"))
            state.sensitive_extra[name] = {k: v for k, v in body.items() if k != "kind"}
        else:
            state.columns.append(Column(name, "left out"))
    for requirement in document.get("require", []) if isinstance(document.get("require"), list) else []:
        if isinstance(requirement, dict):
            state.requirements.append({k: v if isinstance(v, (str, list)) else str(v) for k, v in requirement.items()})
    state.extra = {k: v for k, v in document.items() if k not in ("data", "sensitive", "require")}
    return state
