"""What the publisher declared: the inputs of a certificate that no reader can check against the release.

Which inputs those are is decided once, by :mod:`verifier.declarations`: every key of the signed policy it
classifies as declared (or does not classify), the mechanism, the release's encoding and the utility section's
hierarchies and suppression mark. Each is summarized so that padding shows: a domain or an order by its count and
range against the release's values, a hierarchy by its levels and the leaves under each node, a mechanism by its
matrix and its ε. :func:`declared` gathers them from a predicate for the views, :func:`declared_lines` for
``verify``'s output, whose verdict then holds *given* these declarations.
"""

from __future__ import annotations

import csv
import io
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from verifier.declarations import present
from verifier.lookalike import Lookalike, lookalike, shown

if TYPE_CHECKING:
    from reports.verification import Line

__all__ = ["Declared", "DeclaredInput", "declared", "declared_lines", "lookalikes", "unaudited", "name_lines",
           "NODE_LIMIT"]

NODE_LIMIT = 200
"""Most hierarchy nodes and matrix rows a view draws (the whole content stays in the certificate's JSON)."""


@dataclass(frozen=True)
class DeclaredInput:
    """One declared input, ready to show.

    Attributes
    ----------
    what
        What it is, of what: ``domain of salary``, ``sampling fraction of require[5]``.
    summary
        One line that makes padding visible (counts and ranges against the release's).
    nodes
        A hierarchy's nodes (``depth``, ``name``, ``leaves``) from the root down, at most :data:`NODE_LIMIT`.
    rows
        A mechanism's matrix as its CSV cells (or the noise file's lines).
    more
        How many nodes or rows are not drawn.
    sha256
        The SHA-256 of a file given by content (a hierarchy, the mechanism).
    """

    what: str
    summary: str
    nodes: tuple[Mapping[str, Any], ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    more: int = 0
    sha256: str | None = None

    def text(self) -> str:
        return f"{self.what}: {self.summary}"


@dataclass(frozen=True)
class Declared:
    """The declared inputs of one certificate (:attr:`items`, in the order the views show them)."""

    items: tuple[DeclaredInput, ...] = field(default_factory=tuple)

    @property
    def empty(self) -> bool:
        return not self.items

    @property
    def count(self) -> int:
        return len(self.items)


def _tree(paths: list[list[Any]]) -> tuple[int, list[dict[str, Any]]]:
    """The hierarchy's levels and its nodes from the root down with the leaves under each."""
    height = max((len(path) for path in paths), default=0)
    leaves: dict[tuple[Any, ...], int] = {}
    for path in paths:
        reversed_path = tuple(reversed(path))
        for depth in range(1, len(reversed_path) + 1):
            leaves[reversed_path[:depth]] = leaves.get(reversed_path[:depth], 0) + 1
    nodes = [{"depth": len(key) - 1, "name": str(key[-1]), "leaves": count}
             for key, count in sorted(leaves.items(), key=lambda item: [str(part) for part in item[0]])]
    return height, nodes


def _hierarchy(what: str, body: Any) -> DeclaredInput | None:
    paths = body.get("paths") if isinstance(body, Mapping) else None
    if not isinstance(paths, list):
        return None
    height, nodes = _tree([list(path) for path in paths if isinstance(path, list)])
    by_level = "; ".join(f"level {depth}: " + ", ".join(f"{node['name']} ({node['leaves']})" for node in nodes
                                                          if node["depth"] == depth)
                         for depth in range(height))
    return DeclaredInput(what, f"{height} levels, {len(paths)} leaves; leaves per node, root first: {_clip(by_level)}",
                         nodes=tuple(nodes[:NODE_LIMIT]), more=max(0, len(nodes) - NODE_LIMIT),
                         sha256=str(body.get("sha256")))


def _release_values(predicate: Mapping[str, Any], name: str) -> list[Any] | None:
    """The values attribute ``name`` has in the release, by the embedded count tables (``None``: not embedded)."""
    counts = predicate.get("counts")
    tables = counts.get("tables") if isinstance(counts, Mapping) else None
    for attribute in (tables.get("attributes") or []) if isinstance(tables, Mapping) else []:
        if isinstance(attribute, Mapping) and attribute.get("columns") == [name]:
            values, cells = attribute.get("values"), attribute.get("value_index")
            if not isinstance(values, list) or not isinstance(cells, list):
                return None
            held = set(cells)  # the values of the cells (a declared domain lists values of no cell too)
            return [_plain(value) for index, value in enumerate(values) if index in held]
    return None


def _plain(value: Any) -> Any:
    """A count-table value as its text (``{"decimal": "1.5"}`` is ``1.5``)."""
    if isinstance(value, Mapping) and len(value) == 1:
        return str(next(iter(value.values())))
    return value


def _number(value: Any) -> Fraction | None:
    try:
        return Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        return None


def _span(values: Sequence[Any], numeric: bool) -> str:
    """``9, from 3000 to 11000`` (numbers by value; an order from its first to its last)."""
    if not values:
        return "0"
    if numeric:
        numbers = [n for n in map(_number, values) if n is not None]
        if len(numbers) == len(values):
            low, high = min(numbers), max(numbers)
            first = next(v for v in values if _number(v) == low)
            last = next(v for v in values if _number(v) == high)
            return f"{len(values)}, from {_clip(str(first), 80)} to {_clip(str(last), 80)}"
    return f"{len(values)}, from {_clip(str(values[0]), 80)} to {_clip(str(values[-1]), 80)}"


def _values(what: str, value: Any, release: list[Any] | None, numeric: bool) -> DeclaredInput:
    """A domain or an order: its count and range against the release's values."""
    given = [str(v) for v in value] if isinstance(value, list) else [str(value)]
    summary = f"{_span(given, numeric).replace(', from', ' values from', 1)}"
    if release is None:
        return DeclaredInput(what, f"{summary}; the release's values are not in the certificate")
    key = _number if numeric else str
    have = {key(v) for v in release}
    absent = sum(1 for v in given if key(v) not in have)
    ordered = sorted(release, key=lambda v: (_number(v) or 0)) if numeric else [str(v) for v in release]
    return DeclaredInput(what, f"{summary}; the release has {_span(ordered, numeric)}"
                               + (f" ({absent} declared values not in it)" if absent else ""))


def _mechanism(given: Mapping[str, Any], randomized: Any) -> DeclaredInput:
    """The mechanism by its matrix (or noise file), its ε and what its file says the matrix was computed from
    (:mod:`verifier.randomized.data_mark`; a file without a mark, as every one certified before the mark existed,
    states nothing)."""
    from verifier.errors import MechanismError
    from verifier.randomized.data_mark import mark_sentence, read_mark
    from verifier.randomized.noise import parse_noise_spec

    name = str(given.get("name"))
    text = str(given.get("text"))
    noise = name.lower().endswith(".toml")  # as verifier.randomized.modes.mechanism_from_text reads the file
    rows = [[line] for line in text.splitlines()] if noise else list(csv.reader(io.StringIO(text)))
    levels = randomized.get("measurements") if isinstance(randomized, Mapping) else None
    level = next((entry for entry in levels or () if isinstance(entry, Mapping)
                  and entry.get("model") == "ldp" and not entry.get("implied")), {})
    epsilon, shown = _epsilon(level)
    try:
        mark, skip = (parse_noise_spec(text, source=name).data, 0) if noise else read_mark(rows, name)
        data = mark_sentence(mark, epsilon)
    except MechanismError as error:
        skip, data = 0, f"unreadable ({error})"
    rows = rows[skip:]
    summary = " / ".join(",".join(row) for row in rows)
    return DeclaredInput(f"mechanism {_clip(name, 240)}", _clip(summary) + (
        f"; ε {shown}, from the declared mechanism" if shown is not None else "")
        + f"; data mark: {data}",
        rows=tuple(tuple(row) for row in rows[:NODE_LIMIT]), more=max(0, len(rows) - NODE_LIMIT),
        sha256=str(given.get("sha256")))


def _epsilon(level: Mapping[str, Any]) -> tuple[Any, str | None]:
    """A signed ε-LDP level: its exact value (``None`` when it is known only between exact bounds, as a noise
    mechanism's, or not finite) and how it reads: ``= ln(5)``, or for bounds the signed decimal value,
    ``≈ 10.4467272796 (not exact; ...)``, as the text report shows it."""
    from verifier.display import interval_text

    given, bounds = level.get("exact"), level.get("bounds")
    if given is None:
        return None, None
    if isinstance(bounds, Mapping) and bounds.get("exact") is False:
        try:
            number = float(level.get("level"))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return None, "not exact (exact bounds in the measurements)"
        return None, interval_text(number, number, "in the measurements")
    return _exact(given), f"= {given}"


def _exact(text: Any) -> Any:
    """A signed exact level (``ln(53/13)``) as sympy, ``None`` when it is not a finite one."""
    from verifier.literal import Domain, LiteralError, parse_exact

    try:
        return parse_exact(text, "level", Domain(lower=Fraction(0))) if isinstance(text, str) else None
    except LiteralError:
        return None


def _population_digests(predicate: Mapping[str, Any]) -> list[str]:
    """The population tables' SHA-256 and totals the measurements state (their witnesses' numbers)."""
    found = []
    section = predicate.get("publisher_statements")
    stated = section.get("measurements", []) if isinstance(section, Mapping) else []
    for item in [*(predicate.get("measurements") or []), *stated]:
        witness = item.get("witness") if isinstance(item, Mapping) else None
        numbers = witness.get("numbers") if isinstance(witness, Mapping) else None
        if isinstance(numbers, Mapping) and "population_table_sha256" in numbers:
            found.append(f"SHA-256 {numbers['population_table_sha256']}, {numbers.get('population')} people")
    return sorted(set(found))


def _policy(predicate: Mapping[str, Any]) -> dict[str, Any]:
    policy = predicate.get("policy")
    text = policy.get("text") if isinstance(policy, Mapping) else None
    try:
        return tomllib.loads(text, parse_float=Decimal) if isinstance(text, str) else {}
    except tomllib.TOMLDecodeError:
        return {}


def _from_policy(predicate: Mapping[str, Any], document: Mapping[str, Any], path: tuple[str, ...], what: str,
                 value: Any) -> DeclaredInput:
    """One declared key of the signed policy (``document``, parsed), summarized by what it is."""
    if path[0] == "sensitive":
        name = path[1]
        if what == "hierarchy":
            item = _hierarchy(f"hierarchy of {shown(name)}", (predicate.get("hierarchies") or {}).get(name))
            if item is not None:
                return item
        if what in ("domain", "order"):
            tables = document.get("sensitive")
            body = tables.get(name) if isinstance(tables, Mapping) else None
            numeric = isinstance(body, Mapping) and body.get("kind") == "numerical"
            return _values(f"{what} of {shown(name)}", value, _release_values(predicate, name), numeric)
        return DeclaredInput(f"{what} of {shown(name)}", _clip(_toml(value)))
    if path[0] == "require":
        return DeclaredInput(f"{what} of require[{path[1]}]", _clip(_toml(value)))
    if path[0] == "risk" and what == "population table":
        digests = _population_digests(predicate)
        return DeclaredInput(what, _clip(_toml(value)) + (f" (stated: {'; '.join(digests)})" if digests else ""))
    return DeclaredInput(what if what != path[-1] else ".".join(path), _clip(_toml(value)))


def _toml(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(map(_toml, value)) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{key} = {_toml(item)}" for key, item in value.items()) + "}"
    return str(value)


def declared(predicate: Mapping[str, Any]) -> Declared:
    """The publisher's declared inputs in ``predicate`` (see the module docstring)."""
    items = []
    mechanism = predicate.get("mechanism")
    document = _policy(predicate)
    for path, found in present(document):
        if found.source != "declared":
            continue
        if found.key == "mechanism.file" and isinstance(mechanism, Mapping):
            continue  # shown from its content below
        value: Any = document
        for part in path:
            value = value[int(part) - 1] if isinstance(value, list) else value[part]
        items.append(_from_policy(predicate, document, path, found.what, value))
    if isinstance(mechanism, Mapping) and isinstance(mechanism.get("text"), str):
        items.append(_mechanism(mechanism, predicate.get("randomized")))
    release = predicate.get("release")
    encoding = release.get("encoding") if isinstance(release, Mapping) else None
    items.append(DeclaredInput("the release's encoding", _clip(str(encoding), 80) if isinstance(encoding, str) else
                               "utf-8 (a certificate of schema 2 records none: its release is read as UTF-8)"))
    utility = predicate.get("utility")
    if isinstance(utility, Mapping):
        for name, body in sorted((utility.get("hierarchies") or {}).items()):
            item = _hierarchy(f"utility hierarchy of {shown(name)}", body)
            if item is not None:
                items.append(item)
        items.append(DeclaredInput("the utility section's suppression mark", repr(utility.get("mark"))))
    return Declared(tuple(items))


def declared_lines(predicate: Mapping[str, Any]) -> list[Line]:
    """``verify``'s lines for the declared inputs, one per input (:func:`declared`)."""
    from reports.verification import Line

    return [Line("declared inputs", "publisher's statement", item.text()) for item in declared(predicate).items]


def _audited(predicate: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The columns the signed policy reads, with their role: the quasi-identifiers, the sensitive attributes and
    the weights column."""
    release = predicate.get("release")
    qi = release.get("quasi_identifiers") if isinstance(release, Mapping) else None
    document = _policy(predicate)
    found = [("quasi-identifier", str(name)) for name in qi or ()]
    sensitive = document.get("sensitive")
    found += [("sensitive attribute", str(name)) for name in (sensitive if isinstance(sensitive, Mapping) else ())]
    risk = document.get("risk")
    weights = risk.get("weights") if isinstance(risk, Mapping) else None
    return [*found, *([("weights column", str(weights))] if isinstance(weights, str) else [])]


def unaudited(predicate: Mapping[str, Any]) -> tuple[tuple[str, bool], ...]:
    """The release's columns (schema 4 records its header) that the policy does not read, each with whether its
    name looks like a direct identifier's (:func:`verifier.identifier_names.looks_like_identifier`)."""
    from verifier.identifier_names import looks_like_identifier

    release = predicate.get("release")
    columns = release.get("columns") if isinstance(release, Mapping) else None
    read = {name for _, name in _audited(predicate)}
    return tuple((str(name), looks_like_identifier(str(name))) for name in columns or () if str(name) not in read)


def lookalikes(predicate: Mapping[str, Any]) -> tuple[tuple[str, Lookalike], ...]:
    """Every name of the certificate's columns that may pass for another (:func:`verifier.lookalike.lookalike`),
    with its role."""
    named = [*_audited(predicate), *(("column", name) for name, _ in unaudited(predicate))]
    return tuple((role, found) for role, name in dict.fromkeys(named) if (found := lookalike(name)) is not None)


def name_lines(predicate: Mapping[str, Any]) -> list[Line]:
    """``verify``'s lines for the names: each look-alike one, and the release's columns the policy does not read."""
    from reports.verification import Line

    lines = [Line("names", "look-alike", f"{role} {found.text()}") for role, found in lookalikes(predicate)]
    others = unaudited(predicate)
    if others:
        lines.append(Line("columns", "publisher's statement", "also in the release, not audited: " + ", ".join(
            shown(name) + (" (looks like a direct identifier)" if flagged else "") for name, flagged in others)))
    return lines


def _clip(text: str, limit: int = 2_000) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"
