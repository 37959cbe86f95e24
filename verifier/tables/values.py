"""A sensitive attribute's values as written: columns checked, numbers read exactly, values coded.

Each distinct value is read once: a numerical cell is parsed from its text exactly
(:func:`exact_number`, no float), an ordinal or a declared domain is matched value by
value, and the values are coded in sorted (or declared) order, a missing one under the
attribute's ``missing`` policy (:func:`value_codes`). Errors name the file, the column
and the first offending row (:data:`Locate`).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd

from verifier.errors import DataError, ExcludedRowsWarning, PolicyError, listing
from verifier.results import jsonable
from verifier.tables.counts import AttributeSpec, WeightsSpec

__all__ = ["refuse_complex", "Locate", "first_row", "mixed_as_text", "check_columns", "exact_number", "INTEGER_DIGITS", "value_codes"]


def _row_label(frame: pd.DataFrame, position: int) -> str:
    label = frame.index[position]
    return f"row {position + 1} (index label {jsonable(label)!r})"


Locate = Callable[[pd.DataFrame, Sequence[str], np.ndarray], tuple[int, str]]
"""Where the first offending row is: ``locate(frame, columns, mask)`` takes the rows of
``frame`` flagged by ``mask`` (their values of ``columns`` are at fault) and returns the
position in ``frame`` of the offending row that comes first in the release, and how an
error message names that row."""


def first_row(frame: pd.DataFrame, columns: Sequence[str], mask: np.ndarray) -> tuple[int, str]:
    """:data:`Locate` for a frame that is the release itself: the first flagged row."""
    position = int(np.flatnonzero(mask)[0])
    return position, _row_label(frame, position)


def refuse_complex(frame: pd.DataFrame, columns: Iterable[str], source: str) -> None:
    """Refuse a named column of complex numbers: a release's cell is text, a real number or a boolean.

    >>> refuse_complex(pd.DataFrame({"q": [1j]}), ["q"], "data")
    Traceback (most recent call last):
    ...
    verifier.errors.DataError: data: column 'q' holds complex numbers (complex128), such as 1j at row 1; expected text, real numbers or booleans
    """
    for column in dict.fromkeys(columns):
        series = frame[column]
        if series.dtype.kind == "c" or (series.dtype == object
                                        and pd.api.types.infer_dtype(series, skipna=True) == "complex"):
            found = [(row, value) for row, value in enumerate(series.tolist(), start=1) if isinstance(value, complex)]
            if found:
                row, value = found[0]
                kind = series.dtype.name if series.dtype.kind == "c" else "object"
                raise DataError(f"{source}: column {column!r} holds complex numbers ({kind}), such as {value!r} at "
                                f"row {row}; expected text, real numbers or booleans")


def mixed_as_text(frame: pd.DataFrame, columns: Iterable[str]) -> pd.DataFrame:
    """The frame with each named column of mixed Python values read as text, as a CSV file reads it.

    An object column holding ``1``, ``1.0`` and ``True`` would group them as one value
    (Python counts them equal); written to a CSV they are three. A column of text, of one
    numeric type or of booleans is left as it is (numbers keep their type); missing cells
    stay missing.

    >>> mixed_as_text(pd.DataFrame({"q": [1, 1.0, True]}, dtype=object), ["q"])["q"].tolist()
    ['1', '1.0', 'True']
    """
    changed = {}
    for column in dict.fromkeys(columns):
        series = frame[column]
        if series.dtype == object and pd.api.types.infer_dtype(series, skipna=True).startswith("mixed"):
            changed[column] = series.map(lambda v: v if isinstance(v, str) or v is None or v is pd.NA
                                         or (isinstance(v, float) and math.isnan(v)) else str(v))
    return frame.assign(**changed) if changed else frame


def check_columns(names: Sequence[Any], qi: Sequence[str], attributes: Sequence[AttributeSpec], source: str) -> None:
    """Require at least one quasi-identifier and every named column among the table's ``names``, once, by text.

    Raises
    ------
    PolicyError
        No quasi-identifier.
    DataError
        A column is absent (the message lists the table's columns), a named column's name
        is not text or two columns have the name of a named one.
    """
    if not tuple(qi):
        raise PolicyError(f"{source}: at least one quasi-identifier column is needed")
    wanted = tuple(dict.fromkeys(tuple(qi) + tuple(c for a in attributes for c in a.columns)))
    odd = next((name for name in wanted if not isinstance(name, str)), None)
    if odd is not None:
        raise DataError(f"{source}: column name {odd!r} is of type {type(odd).__name__}; expected text, as a CSV header is "
                        "(rename the columns: frame.columns = frame.columns.astype(str))")
    names = list(names)
    repeated = next((name for name in wanted if names.count(name) > 1), None)
    if repeated is not None:
        raise DataError(f"{source}: {names.count(repeated)} columns are named {repeated!r}; expected each named "
                        "column once")
    present = set(names)
    missing = [c for c in dict.fromkeys(tuple(qi) + tuple(c for a in attributes for c in a.columns)) if c not in present]
    if missing:
        spaced = [f"{name!r} (the table has {name.strip()!r}; names are read as written, spaces included)"
                  for name in missing if isinstance(name, str) and name.strip() != name and name.strip() in present]
        hint = f"; {', '.join(spaced)}" if spaced else ""
        raise DataError(f"{source}: column(s) {missing} not found; the table has columns {listing(map(str, names), 50)}{hint}")


def _codes(frame: pd.DataFrame, spec: AttributeSpec, source: str,
           locate: Locate = first_row) -> tuple[np.ndarray, tuple[Any, ...]]:
    """Code the attribute's values: ``-1`` marks a missing value."""
    if len(spec.columns) > 1:
        parts = [_codes(frame, AttributeSpec((c,), missing=spec.missing), source, locate) for c in spec.columns]
        missing = np.zeros(len(frame), dtype=bool)
        combined = np.zeros(len(frame), dtype=np.int64)
        for codes, uniques in parts:
            missing |= codes < 0
            # mixed radix, renumbered densely after every column: the key stays below N·(values + 1),
            # so no product of the columns' cardinalities can overflow int64
            combined = np.unique(combined * (len(uniques) + 1) + (codes + 1), return_inverse=True)[1].reshape(-1)
        _, first, inverse = np.unique(combined[~missing], return_index=True, return_inverse=True)
        out = np.full(len(frame), -1, dtype=np.int64)
        out[~missing] = inverse.reshape(-1)
        rows = np.flatnonzero(~missing)[first]
        return out, tuple(tuple(uniques[codes[row]] for codes, uniques in parts) for row in rows.tolist())

    column = spec.columns[0]
    series = frame[column]
    if spec.kind == "numerical":
        series = _exact_numbers(frame, series, column, source, locate, weights=isinstance(spec, WeightsSpec))
    if spec.order is not None:
        domain = spec.order if spec.kind == "ordinal" else tuple(sorted(spec.order))
        # an order is matched by text (a Parquet integer 3 is the declared "3"), a domain by exact value
        ordinal = spec.kind == "ordinal"
        index = pd.Index([str(v) if ordinal else v for v in domain], dtype=object)
        if index.has_duplicates:
            raise PolicyError(f"sensitive attribute {column!r}: the declared order/domain repeats a value")
        present, uniques = pd.factorize(series, use_na_sentinel=True)
        keys = pd.Index([str(v) if ordinal else v for v in uniques.tolist()], dtype=object)
        positions = np.append(index.get_indexer(keys).astype(np.int64), -1)
        codes = positions[present]
        outside = (codes < 0) & (present >= 0)
        if outside.any():
            position, where = locate(frame, (column,), outside)
            raise DataError(
                f"{source}: column {column!r}, {where}: value "
                f"{jsonable(series.iloc[position])!r} is not in the declared {'order' if spec.kind == 'ordinal' else 'domain'} "
                f"{listing(domain)}"
            )
        return codes, tuple(domain)
    try:
        if isinstance(series.dtype, pd.CategoricalDtype):
            series = series.cat.remove_unused_categories()
            series = series.cat.reorder_categories(sorted(series.cat.categories))
        codes, uniques = pd.factorize(series, sort=True)
    except TypeError:
        codes, uniques = pd.factorize(series.astype(str).where(series.notna()), sort=True)
    return codes.astype(np.int64), tuple(uniques.tolist())


_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def exact_number(text: str) -> int | Decimal | None:
    """A numerical cell's exact value: an ``int`` or an exact ``Decimal``, at any length.

    Text is parsed as written (no float rounding: ``9007199254740993`` and
    ``9007199254740992`` stay distinct; no context rounding either:
    ``1.00000000000000000000000000001`` is not ``1`` and ``1e-1000030`` is not ``0``);
    ``None`` when the text is not a finite decimal number (``inf``, ``nan``, ``1,5``,
    ``12 kg``). Whitespace is data, so `` 5`` is not a number. Trailing zeros are dropped
    (``2.50`` is ``2.5``); an integral value is an ``int`` unless it has more than
    :data:`INTEGER_DIGITS` digits (``1e999999999`` stays a ``Decimal``: no such integer is
    ever built).

    Examples
    --------
    >>> exact_number("02138"), exact_number("2.50"), exact_number("1e3"), exact_number("inf")
    (2138, Decimal('2.5'), 1000, None)
    >>> exact_number("1.00000000000000000000000000001"), exact_number("1e999999999")
    (Decimal('1.00000000000000000000000000001'), Decimal('1E+999999999'))
    """
    if _NUMBER.fullmatch(text) is None:
        return None
    sign, digits, exponent = Decimal(text).as_tuple()
    assert isinstance(exponent, int)
    coefficient = "".join(map(str, digits)).lstrip("0")
    significant = coefficient.rstrip("0")
    if not significant:
        return 0
    exponent += len(coefficient) - len(significant)
    if exponent >= 0 and len(significant) + exponent <= INTEGER_DIGITS:
        return (-1) ** sign * int(significant) * 10 ** exponent
    return Decimal((sign, tuple(map(int, significant)), exponent))


INTEGER_DIGITS = 4000
"""The most digits a numerical cell's value has as an ``int``; longer integers stay exact ``Decimal`` values."""


def _exact_cell(cell: Any) -> int | Decimal | None:
    """A numerical cell of a text or object column (CSV text, Parquet decimal or big integer), exactly."""
    if isinstance(cell, str):
        return exact_number(cell)
    if isinstance(cell, Decimal):
        return exact_number(str(cell)) if cell.is_finite() else None
    return int(cell) if isinstance(cell, int) and not isinstance(cell, bool) else None


_WEIGHT = "expected a weight: a positive decimal number of people the record stands for, such as 12 or 1.5"


def _exact_numbers(frame: pd.DataFrame, series: pd.Series, column: str, source: str,
                   locate: Locate = first_row, *, weights: bool = False) -> pd.Series:
    """A numerical column's values, exact: text parsed by :func:`exact_number`, numbers checked finite.

    Each distinct value is parsed once; ``weights``: the column is the release's sampling weights.
    """
    said = f"the weights column {column!r}:" if weights else f"column {column!r} is declared numerical but"
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        finite = np.isfinite(series.to_numpy(dtype=float, na_value=0.0))
        if not finite.all():
            position, where = locate(frame, (column,), ~finite)
            raise DataError(f"{source}: {said} {where} holds {series.iloc[position]!r}; "
                            f"{_WEIGHT if weights else 'expected a finite number'}")
        return series
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    parsed = [_exact_cell(cell) for cell in uniques.tolist()]
    bad = [index for index, value in enumerate(parsed) if value is None]
    if bad:
        position, where = locate(frame, (column,), np.isin(codes, bad))
        raise DataError(f"{source}: {said} {where} holds {series.iloc[position]!r}; "
                        f"{_WEIGHT if weights else 'expected a finite decimal number such as 12, -3.5 or 1e6'}")
    values = np.empty(len(parsed) + 1, dtype=object)
    values[:-1] = parsed
    values[-1] = None
    return pd.Series(values[codes], index=series.index, dtype=object)


def value_codes(frame: pd.DataFrame, spec: AttributeSpec, source: str, locate: Locate,
                 absent: Callable[[np.ndarray], int]) -> tuple[np.ndarray, tuple[Any, ...], int]:
    """The attribute's code of each row of ``frame`` under its ``missing`` policy (``-1``: excluded), its values
    in code order, and the rows excluded; ``absent(mask)`` is the number of release rows the rows ``mask`` stand for.
    """
    codes, values = _codes(frame, spec, source, locate)
    missing = codes < 0
    excluded = 0
    if missing.any():
        name = spec.name if isinstance(spec.name, str) else list(spec.name)
        count = absent(missing)
        if isinstance(spec, WeightsSpec):
            _, where = locate(frame, spec.columns, missing)
            raise DataError(f"{source}: the weights column {name!r} has {count} empty cell(s), the first at {where}; "
                            "expected a weight on every row (the number of people the record stands for)")
        if spec.missing == "error":
            _, where = locate(frame, spec.columns, missing)
            raise DataError(
                f"{source}: sensitive attribute {name!r} has {count} missing value(s), "
                f"the first at {where}; set missing = \"value\" (a category of "
                "its own) or missing = \"exclude\" for this attribute in the policy"
            )
        if spec.missing == "value":
            codes = np.where(missing, len(values), codes)
            values = values + (None,)
        else:
            excluded = count
            warnings.warn(
                f"{source}: {excluded} row(s) with a missing value of {name!r} excluded from its measures "
                "(missing = \"exclude\")",
                ExcludedRowsWarning,
                stacklevel=4,
            )
    if not values:
        raise DataError(f"{source}: sensitive attribute {spec.name!r} has no non-missing value")
    return codes, values, excluded
