"""Count tables inside a certificate: a canonical JSON form, its SHA-256, and the way back.

Every level of a deterministic release is a function of its count tables: the classes
(quasi-identifier values and sizes) and, per sensitive attribute, the counts
``n[class, value]`` (:mod:`verifier.tables.counts`; docs/design.md, "Count tables are sparse").
A certificate that carries them can be re-measured by anyone who does not hold the
release, and their SHA-256 ties them to the release for anyone who does.

The JSON form (serialized with RFC 8785 for the digest)::

    {"qi": [...],
     "classes": {"keys": [[qi values of class 0], ...], "sizes": [|E_0|, ...]},
     "attributes": [{"columns": [...], "kind": ..., "missing": ..., "order": [...] | null,
                     "values": [...], "class_index": [...], "value_index": [...],
                     "count": [...], "excluded": n}, ...]}

The form is canonical: a function of the release's values alone, whatever the engine
that counted them and whatever the order of the rows. Classes are in the order of their
quasi-identifier values (:func:`verifier.tables.counts.qi_order`, the order witnesses are chosen
by), values in the attribute's order (sorted, or declared), and cells, the non-zero
counts, sorted by class then value (as in :class:`~verifier.tables.counts.CountTable`). Values keep their type: a string, ``null``, a
boolean or a JSON integer (up to 2^53) stand for themselves; ``{"int": "..."}``,
``{"decimal": "..."}`` and ``{"float": "..."}`` carry the other numbers exactly; a joint
attribute's value is the list of its parts; anything else is ``{"text": ...}``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from reports.statement import canonical
from verifier.display import attribute_label
from verifier.results import jsonable
from verifier.tables.counts import AttributeSpec, Classes, CountTable, qi_order

if TYPE_CHECKING:
    from verifier.audit import AuditResult

__all__ = ["EmbeddedCountsError", "encode_counts", "counts_sha256", "counts_section", "decode_counts", "release_counts"]

_SAFE_INTEGER = (1 << 53) - 1


class EmbeddedCountsError(ValueError):
    """Embedded count tables that are malformed or inconsistent (says what and where)."""


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        number = int(value)
        return number if abs(number) <= _SAFE_INTEGER else {"int": str(number)}
    if isinstance(value, Decimal):
        return {"decimal": str(value)}
    if isinstance(value, (float, np.floating)):
        return {"float": repr(float(value))}
    if isinstance(value, tuple):
        return [_encode(part) for part in value]
    return {"text": jsonable(value)}


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_decode(part) for part in value)
    if isinstance(value, Mapping):
        if len(value) != 1:
            raise EmbeddedCountsError(f"a value is one of int, decimal, float or text, found {sorted(value)}")
        ((tag, text),) = value.items()
        readers = {"int": int, "decimal": Decimal, "float": float, "text": str}
        if tag not in readers or not isinstance(text, str):
            raise EmbeddedCountsError(f"unknown value form {{{tag!r}: {text!r}}}")
        return readers[tag](text)
    return value


def encode_counts(classes: Classes, tables: Sequence[CountTable]) -> dict[str, Any]:
    """The count tables of one release as canonical JSON (the form in the module docstring)."""
    order = qi_order(classes.keys, classes.qi)
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    keys = classes.keys[list(classes.qi)].to_numpy(dtype=object)[order].tolist()
    return {
        "qi": list(classes.qi),
        "classes": {"keys": [[_encode(jsonable(v)) for v in row] for row in keys],
                    "sizes": classes.sizes[order].tolist()},
        "attributes": [_encode_table(table, rank) for table in tables],
    }


def _encode_table(table: CountTable, rank: np.ndarray) -> dict[str, Any]:
    """One attribute's cells with the classes renumbered by ``rank``, sorted by class then value."""
    class_index = rank[table.class_index]
    cells = np.lexsort((table.value_index, class_index))
    return {
        "columns": list(table.spec.columns),
        "kind": table.spec.kind,
        "missing": table.spec.missing,
        "order": None if table.spec.order is None else [_encode(v) for v in table.spec.order],
        "values": [_encode(v) for v in table.values],
        "class_index": class_index[cells].tolist(),
        "value_index": table.value_index[cells].tolist(),
        "count": table.count[cells].tolist(),
        "excluded": table.excluded,
    }


def counts_sha256(document: Mapping[str, Any]) -> str:
    """Hex SHA-256 of the count tables' canonical (RFC 8785) bytes."""
    return hashlib.sha256(canonical(document)).hexdigest()


def release_counts(result: AuditResult) -> dict[str, Any]:
    """The count tables of an audited release, as JSON (the attributes in the policy's order)."""
    tables = tuple(result.report.tables.values())
    return encode_counts(tables[0].classes, tables)


def counts_section(result: AuditResult, *, embed: bool) -> dict[str, Any]:
    """The predicate's ``counts``: the SHA-256 of the canonical count tables, and the tables when ``embed``."""
    document = release_counts(result)
    return {"sha256": counts_sha256(document), **({"tables": document} if embed else {})}


def _integers(values: Any, where: str) -> np.ndarray:
    if not isinstance(values, list) or not all(type(v) is int for v in values):
        raise EmbeddedCountsError(f"{where}: expected a list of integers")
    return np.array(values, dtype=np.int64)


def _table(body: Mapping[str, Any], classes: Classes, number: int) -> CountTable:
    where = f"attributes[{number}]"
    order = body["order"]
    spec = AttributeSpec(tuple(body["columns"]), kind=body["kind"], missing=body["missing"],
                         order=None if order is None else tuple(_decode(v) for v in order))
    values = tuple(_decode(v) for v in body["values"])
    class_index, value_index, count = (_integers(body[k], f"{where}.{k}") for k in ("class_index", "value_index", "count"))
    excluded = body["excluded"]
    if not (class_index.size == value_index.size == count.size):
        raise EmbeddedCountsError(f"{where}: class_index, value_index and count differ in length")
    cells = class_index * max(len(values), 1) + value_index
    if (count.size and (class_index.min() < 0 or class_index.max() >= classes.count or value_index.min() < 0
                        or value_index.max() >= len(values) or count.min() < 1)) or np.any(np.diff(cells) <= 0):
        raise EmbeddedCountsError(f"{where}: cells must be distinct, sorted by class then value, inside the "
                                  f"{classes.count} classes and {len(values)} values, with counts ≥ 1")
    sizes = np.bincount(class_index, weights=count, minlength=classes.count).astype(np.int64)
    if not isinstance(excluded, int) or np.any(sizes > classes.sizes) or int((classes.sizes - sizes).sum()) != excluded:
        raise EmbeddedCountsError(f"{where} ({attribute_label(spec.name)}): the counts per class do not add up to "
                                  f"the class sizes less the {excluded!r} excluded rows")
    return CountTable(spec=spec, classes=classes, values=values, class_index=class_index, value_index=value_index,
                      count=count, sizes=sizes,
                      totals=np.bincount(value_index, weights=count, minlength=len(values)).astype(np.int64),
                      excluded=excluded)


def decode_counts(document: Mapping[str, Any]) -> tuple[Classes, tuple[CountTable, ...]]:
    """The classes and count tables of :func:`encode_counts`' JSON.

    Raises
    ------
    EmbeddedCountsError
        A field is missing or of the wrong type, a cell lies outside the tables, or the
        counts do not add up to the class sizes.
    """
    try:
        qi = tuple(document["qi"])
        keys = document["classes"]["keys"]
        if not isinstance(keys, list) or not all(isinstance(row, list) and len(row) == len(qi) for row in keys):
            raise EmbeddedCountsError(f"classes.keys: expected one list of {len(qi)} values per class")
        frame = pd.DataFrame([[_decode(v) for v in row] for row in keys], columns=list(qi), dtype=object)
        sizes = _integers(document["classes"]["sizes"], "classes.sizes")
        if sizes.size != len(keys) or (sizes.size and sizes.min() < 1):
            raise EmbeddedCountsError("classes.sizes: expected one size ≥ 1 per class")
        classes = Classes(qi=qi, keys=frame, sizes=sizes)
        tables = tuple(_table(body, classes, number) for number, body in enumerate(document["attributes"], start=1))
    except (KeyError, TypeError, AttributeError) as error:
        raise EmbeddedCountsError(f"malformed ({type(error).__name__}: {error})") from error
    except EmbeddedCountsError:
        raise
    except (ValueError, ArithmeticError) as error:
        raise EmbeddedCountsError(f"{type(error).__name__}: {error}") from error
    return classes, tables
