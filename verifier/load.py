"""Loading a released table from a file (CSV or Parquet).

Loading is kept apart from measuring (ARCHITECTURE.md, "Data flow of an audit"): this
module turns a file into a :class:`pandas.DataFrame` and nothing else; the measures
never see a path.

Conventions
-----------
* The format is chosen by the file name's suffix: ``.csv``, ``.csv.gz`` (CSV, gzip
  compressed), ``.parquet`` or ``.pq``.
* CSV values are kept as read: pandas infers numeric columns, text stays text, and only
  an *empty* cell is missing. Strings such as ``NA``, ``null`` or ``None`` are values,
  not missing markers, so that no released value silently becomes "missing".
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from verifier.errors import DataError, InputFileNotFoundError

__all__ = ["load_table", "SUFFIXES"]

SUFFIXES: tuple[str, ...] = (".csv", ".csv.gz", ".parquet", ".pq")
"""The file name endings :func:`load_table` accepts."""


def _format(path: Path) -> str:
    name = path.name.lower()
    if name.endswith((".csv", ".csv.gz")):
        return "csv"
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    raise DataError(
        f"{path}: unsupported file type; expected a name ending in {', '.join(SUFFIXES)}, "
        f"found {''.join(path.suffixes) or 'no suffix'!r}"
    )


def load_table(path: str | Path) -> pd.DataFrame:
    """Read a released table from a CSV or Parquet file.

    Parameters
    ----------
    path
        The file; its suffix (one of :data:`SUFFIXES`) selects the reader.

    Returns
    -------
    pandas.DataFrame
        The table with a fresh ``RangeIndex``; for CSV, empty cells are missing (NaN)
        and every other cell keeps the value read.

    Raises
    ------
    InputFileNotFoundError
        The file does not exist.
    DataError
        The suffix is not supported, the path is a directory, or the file cannot be
        parsed (the message names the file and the parser's complaint).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "t.csv").write_text("zip,disease\\n476**,flu\\n476**,NA\\n,flu\\n")
    >>> load_table(folder / "t.csv").to_dict("list")
    {'zip': ['476**', '476**', nan], 'disease': ['flu', 'NA', 'flu']}
    """
    path = Path(path)
    kind = _format(path)
    if not path.exists():
        raise InputFileNotFoundError(f"{path}: data file not found")
    if path.is_dir():
        raise DataError(f"{path}: expected a data file, found a directory")
    try:
        if kind == "csv":
            frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
        else:
            frame = pd.read_parquet(path)
    except (ValueError, OSError, UnicodeDecodeError) as error:
        raise DataError(f"{path}: cannot read the file as {kind.upper()}: {error}") from error
    return frame.reset_index(drop=True)
