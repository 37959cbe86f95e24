"""The shape of a predicate of each schema, at every depth: a key nobody checks makes a certificate invalid.

``verify`` compares the re-derived sections in canonical JSON, where a key more differs; the other sections
(the publisher's statements, the implied levels, which are checked for soundness, the policy, the count
tables without ``--data``, the catalog, the tool) are read for some of their keys only, so a key more there
would be signed and shown by no one. :func:`unknown_key` walks a predicate against :data:`SHAPES` and names
the first key its schema does not have. Values that are data rather than fields (a witness's numbers, a
class's quasi-identifier values, a count table's cells, a model's parameters) are free in their keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["SHAPES", "unknown_key"]

ANY = "any"
"""Any JSON value (data, not fields)."""


def _object(*keys: str, **nested: Any) -> dict[str, Any]:
    return {**dict.fromkeys(keys, ANY), **nested}


def _items(shape: Any) -> list[Any]:
    return [shape]


class _Map:
    """An object whose keys are data (attribute names), each value of one shape."""

    def __init__(self, shape: Any) -> None:
        self.shape = shape


_SENTENCES_2 = ("reason", "notes", "note", "readable", "nothing")
_WITNESS = _object("size", "value", "qi", "numbers")
_MEASUREMENT = _object("requirement", "model", "attribute", "distance", "parameters", "level", "exact", "threshold",
                       "passed", "verdict", "status", "reason", "notes", "estimate",
                       direction=_object("stronger", "strict"), witness=_WITNESS,
                       bounds=_object("exact", "lower", "upper"))
_HIERARCHY = _object("paths", "sha256")
_TABLES = _object("qi", "classes", "attributes")
_COUNTS = _object("sha256", tables=_TABLES)


def _implied(schema: str) -> list[Any]:
    step = _object("claim", "status", "from", "to", *(("bounds",) if schema != "2" else ()))
    return _items(_object("definition", "implied", "level", *(_SENTENCES_2 if schema == "2" else ()),
                          derivation=_items(step), **{"from": _object("model", "attribute", "level", "k")}))


def _randomized(schema: str) -> dict[str, Any]:
    step = _object("claim", "premise", "conclusion", "level", "exact", "status")
    entry = {**_MEASUREMENT, **_object("implied", "requirement", premise=_object("model", "exact"),
                                       derivation=_items(step))}
    return _object("mode", "mechanism", measurements=_items(entry))


def _shape(schema: str) -> dict[str, Any]:
    release = _object("rows", "classes", "quasi_identifiers", *(("encoding",) if schema != "2" else ()),
                      *(("columns",) if schema not in ("2", "3") else ()))
    utility = _object("original", "key", "mark", "qi", "rows", "suppressed", "figures",
                      hierarchies=_Map(_HIERARCHY))
    shape = _object("schema_version", "time", "verdict", "measurements", tool=_object("name", "version", "engine"),
                    policy=_object("source", "text", "sha256"), release=release, hierarchies=_Map(_HIERARCHY),
                    mechanism=_object("name", "text", "sha256"), counts=_COUNTS, implied=_implied(schema),
                    randomized=_randomized(schema), publisher_statements=_object(measurements=_items(_MEASUREMENT)),
                    utility=utility)
    if schema == "2":
        shape["failures"] = ANY
    else:
        shape["catalog"] = _object("sha256", "privcert")
    return shape


SHAPES: Mapping[str, dict[str, Any]] = {schema: _shape(schema) for schema in ("2", "3", "4")}
"""The keys a predicate of each schema may have, at every depth (``measurements`` and ``utility.figures`` are
compared whole with the re-derived ones, so any key more there fails that comparison)."""


def unknown_key(value: Any, shape: Any, path: str = "predicate") -> str | None:
    """The path of the first key of ``value`` that ``shape`` does not have (``None``: none)."""
    if shape == ANY:
        return None
    if isinstance(shape, _Map):
        if not isinstance(value, Mapping):
            return None
        return next((found for key, item in value.items()
                     if (found := unknown_key(item, shape.shape, f"{path}.{key}")) is not None), None)
    if isinstance(shape, list):
        if not isinstance(value, list):
            return None
        return next((found for number, item in enumerate(value, start=1)
                     if (found := unknown_key(item, shape[0], f"{path}[{number}]")) is not None), None)
    if not isinstance(value, Mapping):
        return None
    for key, item in value.items():
        if key not in shape:
            return f"{path}.{key}"
        found = unknown_key(item, shape[key], f"{path}.{key}")
        if found is not None:
            return found
    return None
