"""What the publisher declared: the inputs of a certificate that no reader can check against the release.

A hierarchy, a mechanism's matrix or noise, a population table, a weights column, a sampling
fraction and the release's encoding decide levels, yet come from the publisher alone: padding a
hierarchy with dummy levels lowers its hierarchical t-closeness, a milder matrix lowers ε-LDP, and
both re-measure identically. ``verify`` cannot catch that; a reader can, if the declarations are
in plain view. :func:`declared` gathers them from a predicate for the views (each hierarchy drawn
as its nodes with their leaves per level, the matrix printed), :func:`declared_lines` for
``verify``'s output, whose verdict then holds *given* these declarations.
"""

from __future__ import annotations

import csv
import io
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reports.verification import Line

__all__ = ["Declared", "declared", "declared_lines", "NODE_LIMIT"]

NODE_LIMIT = 200
"""Most hierarchy nodes and matrix rows a view draws (the whole content stays in the certificate's JSON)."""


@dataclass(frozen=True)
class Declared:
    """The declared inputs of one certificate, ready to show.

    Attributes
    ----------
    hierarchies
        Per attribute: its name, SHA-256, number of levels and leaves, and its nodes (``depth``, ``name``,
        ``leaves``) from the root down, at most :data:`NODE_LIMIT`.
    mechanism
        The mechanism file's name, SHA-256 and rows (the matrix as its CSV cells, or the noise file's lines).
    risk
        ``(what, value)`` pairs: population table, weights column, sampling fraction or population.
    encoding
        The text encoding the release was read in (``None``: not recorded, schema 2, UTF-8).
    """

    hierarchies: tuple[Mapping[str, Any], ...]
    mechanism: Mapping[str, Any] | None
    risk: tuple[tuple[str, str], ...]
    encoding: str | None

    @property
    def empty(self) -> bool:
        return not (self.hierarchies or self.mechanism or self.risk)


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


def _policy_risk(policy: Any) -> tuple[tuple[str, str], ...]:
    text = policy.get("text") if isinstance(policy, Mapping) else None
    try:
        risk = tomllib.loads(text).get("risk") if isinstance(text, str) else None
    except tomllib.TOMLDecodeError:
        return ()
    if not isinstance(risk, Mapping):
        return ()
    names = {"population_table": "population table", "weights": "weights column",
             "sampling_fraction": "sampling fraction", "population": "population"}
    return tuple((label, str(risk[key])) for key, label in names.items() if key in risk)


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


def declared(predicate: Mapping[str, Any]) -> Declared:
    """The publisher's declared inputs in ``predicate`` (see the module docstring)."""
    hierarchies = []
    for name, body in sorted((predicate.get("hierarchies") or {}).items()):
        paths = body.get("paths") if isinstance(body, Mapping) else None
        if not isinstance(paths, list):
            continue
        height, nodes = _tree([list(path) for path in paths if isinstance(path, list)])
        hierarchies.append({"attribute": str(name), "sha256": body.get("sha256"), "levels": height,
                            "leaves": len(paths), "nodes": nodes[:NODE_LIMIT], "more": max(0, len(nodes) - NODE_LIMIT)})
    given = predicate.get("mechanism")
    mechanism = None
    if isinstance(given, Mapping) and isinstance(given.get("text"), str):
        name = str(given.get("name"))
        rows = (list(csv.reader(io.StringIO(given["text"]))) if name.lower().endswith(".csv")
                else [[line] for line in given["text"].splitlines()])
        mechanism = {"name": name, "sha256": given.get("sha256"), "rows": rows[:NODE_LIMIT],
                     "more": max(0, len(rows) - NODE_LIMIT)}
    risk = list(_policy_risk(predicate.get("policy")))
    risk += [("population table stated", digest) for digest in _population_digests(predicate)]
    release = predicate.get("release")
    encoding = release.get("encoding") if isinstance(release, Mapping) else None
    return Declared(tuple(hierarchies), mechanism, tuple(risk), encoding if isinstance(encoding, str) else None)


def declared_lines(predicate: Mapping[str, Any]) -> list[Line]:
    """``verify``'s lines for the declared inputs: one per hierarchy (its levels and leaves per node), the
    mechanism (its matrix), the risk inputs and the encoding."""
    from reports.verification import Line

    found = declared(predicate)
    lines = []
    for item in found.hierarchies:
        by_level = "; ".join(
            f"level {depth}: " + ", ".join(f"{node['name']} ({node['leaves']})" for node in item["nodes"]
                                           if node["depth"] == depth)
            for depth in range(item["levels"]))
        lines.append(Line("declared inputs", "publisher's statement",
                          f"hierarchy of {item['attribute']}: {item['levels']} levels, {item['leaves']} leaves; "
                          f"leaves per node, root first: {_clip(by_level)}"))
    if found.mechanism is not None:
        rows = " / ".join(",".join(row) for row in found.mechanism["rows"])
        lines.append(Line("declared inputs", "publisher's statement",
                          f"mechanism {found.mechanism['name']}: {_clip(rows)}"))
    for what, value in found.risk:
        lines.append(Line("declared inputs", "publisher's statement", f"{what}: {_clip(value)}"))
    if found.encoding not in (None, "utf-8") or (found.encoding is not None and not found.empty):
        lines.append(Line("declared inputs", "publisher's statement", f"the release's encoding: {found.encoding}"))
    return lines


def _clip(text: str, limit: int = 2_000) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"
