"""Loading a released table from a file (CSV or Parquet), every value as written.

Loading is kept apart from measuring (docs/design.md, "Values are read as text, then parsed only where declared"): this
module turns a file into a :class:`pandas.DataFrame` and nothing else; the measures
never see a path.

Values as written
-----------------
* The format is chosen by the file name's suffix: ``.csv``, ``.csv.gz`` (CSV, gzip
  compressed), ``.parquet`` or ``.pq``.
* Every CSV column is read as text (Apache Arrow's CSV reader, no type inference, no
  index inference): ``02138``, ``2138``, ``2138.0`` and ``+2138`` are four values, and a
  ``1`` stays ``1`` when another cell of its column is empty. Only an *empty* cell is
  missing; ``NA``, ``null`` or ``None`` are values. Whitespace is data (never stripped).
  Only attributes declared numerical are parsed as numbers, exactly
  (:func:`verifier.tables.values.exact_number`).
* A row with more or fewer fields than the header, a repeated or empty header name, or a
  byte that is not valid in the file's encoding (UTF-8 by default, with or without a
  byte-order mark) is an error naming the line. The encoding is a character encoding
  that decodes one-to-one (:func:`verifier.tables.encodings.text_encoding`); LF, CRLF and
  mixed line endings read alike.
* Parquet columns keep their types; integer columns with missing values stay integers
  (never floats), and list, struct or map columns are an error naming the column. A
  float NaN is an error naming the column and row: it is neither a value nor a missing
  cell (a null is).
* A directory is a Parquet dataset: every ``.parquet``/``.pq`` file under it, in path
  order (files whose name starts with ``_`` or ``.`` are skipped); Hive-style folders
  ``name=value`` add a column ``name`` whose values are text, as written in the folder
  names; a file holding a column of the same name is an error.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import BinaryIO

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from verifier.errors import DataError, InputFileNotFoundError, PolicyError
from verifier.named_inputs import Said, text_of
from verifier.tables.encodings import text_encoding
from verifier.tables.text_file import decode_error

__all__ = ["load_table", "SUFFIXES", "dictionary_columns", "parquet_files", "hive_columns", "parquet_dataset", "check_schema",
           "release_format", "csv_header", "check_csv", "refuse_nan", "open_bytes"]

csv.field_size_limit((1 << 31) - 1)  # a cell may be as long as the file (Python's csv stops at 128 KiB by default)

SUFFIXES: tuple[str, ...] = (".csv", ".csv.gz", ".parquet", ".pq")
"""The file name endings :func:`load_table` accepts."""


def release_format(path: Path) -> str:
    """``csv`` or ``parquet``, by the file name's suffix; a directory is a Parquet dataset.

    Raises
    ------
    InputFileNotFoundError
        The path does not exist.
    DataError
        The suffix is not one of :data:`SUFFIXES`.
    """
    if not path.exists():
        raise InputFileNotFoundError(f"{path}: data file not found")
    if path.is_dir():
        return "parquet"
    name = path.name.lower()
    if name.endswith((".csv", ".csv.gz")):
        return "csv"
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    raise DataError(
        f"{path}: unsupported file type; expected a name ending in {', '.join(SUFFIXES)}, "
        f"found {''.join(path.suffixes) or 'no suffix'!r}"
    )


def _check_header(path: Path, names: list[str]) -> None:
    if not names or names == [""]:
        raise DataError(f"{path}: line 1: expected a header row naming the columns, found an empty line")
    for position, name in enumerate(names, start=1):
        if name == "":
            raise DataError(f"{path}: line 1, column {position}: expected a column name, found an empty header cell")
    seen: dict[str, int] = {}
    for position, name in enumerate(names, start=1):
        if name in seen:
            raise DataError(f"{path}: line 1: the column name {name!r} appears twice (columns {seen[name]} and "
                            f"{position}); every column needs its own name")
        seen[name] = position


def _read_csv(path: Path, encoding: str) -> pd.DataFrame:
    raw = path.read_bytes()
    if path.name.lower().endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as error:
            raise DataError(f"{path}: cannot read the file as CSV: not a complete gzip file ({error})") from error
    codec = _codec(path, encoding)
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as error:
        raise DataError(decode_error(path, raw, encoding, error)) from error
    # the header is the first record, which may span lines (a quoted line break in a name)
    header = next(csv.reader(io.StringIO(text, newline="")), [])
    _check_header(path, header)
    invalid: list[pacsv.InvalidRow] = []

    def keep_first(row: pacsv.InvalidRow) -> str:
        invalid.append(row)
        return "skip"

    # UTF-8 input, once validated by the decode, is handed to Arrow as it is (no re-encoding)
    data = raw.removeprefix(codecs.BOM_UTF8) if codec == "utf-8-sig" else text.encode("utf-8")

    def read(block_size: int) -> pa.Table:
        return pacsv.read_csv(
            io.BytesIO(data),
            read_options=pacsv.ReadOptions(use_threads=True, block_size=block_size),
            # in a file of one column an empty line is a row whose cell is empty (missing), as DuckDB and Spark read it
            parse_options=pacsv.ParseOptions(newlines_in_values=True, invalid_row_handler=keep_first,
                                             ignore_empty_lines=len(header) > 1),
            convert_options=pacsv.ConvertOptions(
                column_types={name: pa.string() for name in header},
                null_values=[""], strings_can_be_null=True, quoted_strings_can_be_null=True,
            ),
        )

    try:
        try:
            table = read(1 << 24)
        except pa.ArrowInvalid as error:
            if "straddling" not in str(error):
                raise
            invalid.clear()
            table = read(min(len(data) + 1, (1 << 31) - 1))  # a row longer than a block: one block for the file
    except pa.ArrowInvalid as error:
        raise DataError(f"{path}: cannot read the file as CSV: {error}") from error
    if invalid:
        reader = csv.reader(io.StringIO(text, newline=""))
        line, fields = next(((reader.line_num, len(row)) for row in reader if row and len(row) != len(header)),
                            (0, invalid[0].actual_columns))
        raise DataError(f"{path}: line {line}: expected {len(header)} fields as in the header, found {fields}; "
                        f"{len(invalid)} such row(s) in all")
    return table.to_pandas()


def _codec(path: Path, encoding: str) -> str:
    """The Python codec of ``encoding`` (:func:`verifier.tables.encodings.text_encoding`); refused naming the file."""
    try:
        return text_encoding(encoding).codec
    except PolicyError as error:
        raise DataError(Said(f"{path}: ", text_of(error))) from None


def open_bytes(path: Path) -> BinaryIO:
    """The file's bytes, decompressed when its name ends in ``.gz``."""
    return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else path.open("rb")  # type: ignore[return-value]


def csv_header(path: Path, encoding: str = "utf-8") -> list[str]:
    """The column names of a CSV release, read from its first line and checked (no empty or repeated name)."""
    codec = _codec(path, encoding)
    try:
        with open_bytes(path) as raw, io.TextIOWrapper(raw, encoding=codec, newline="") as text:
            header = next(csv.reader(text), [])
    except UnicodeDecodeError:
        check_csv(path, encoding, fields=False)
        raise
    except (OSError, EOFError) as error:
        raise DataError(f"{path}: cannot read the file as CSV: {error}") from error
    _check_header(path, header)
    return header


def release_columns(path: Path, encoding: str = "utf-8") -> tuple[str, ...]:
    """The release's column names in their order: a CSV file's header; a Parquet file's schema; a dataset's
    first file's schema, then its Hive partition columns.

    Raises
    ------
    DataError
        The file cannot be read as its format, or its header is empty or repeats a name.
    """
    if release_format(path) == "csv":
        return tuple(csv_header(path, encoding))
    try:
        if path.is_dir():
            files = parquet_files(path)
            return (*pq.read_schema(files[0]).names, *hive_columns(path, files))
        return tuple(pq.read_schema(path).names)
    except (OSError, pa.ArrowInvalid) as error:
        raise DataError(f"{path}: cannot read the file as Parquet: {error}") from error


def check_csv(path: Path, encoding: str = "utf-8", *, fields: bool = True) -> None:
    """Check a CSV release by streaming it (never whole in memory), with the errors of :func:`load_table`.

    Every byte must be valid in ``encoding`` (the error names the line and column) and,
    when ``fields``, every row must have as many fields as the header (the error names
    the line). Engines that read CSV themselves call it to say exactly what is wrong.

    Raises
    ------
    DataError
        The first thing wrong with the file.
    """
    codec = _codec(path, encoding)
    decoder = codecs.getincrementaldecoder(codec)()
    line, line_start, offset = 1, 0, 0
    with open_bytes(path) as raw:
        for chunk in iter(lambda: raw.read(1 << 24), b""):
            pending = len(decoder.getstate()[0])
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as error:
                start = max(error.start - pending, 0)
                newline = chunk.rfind(b"\n", 0, start)
                column = start - newline if newline >= 0 else offset + start - line_start + 1
                where = line + chunk.count(b"\n", 0, start)
                raise DataError(f"{path}: line {where}, column {column}: byte "
                                f"0x{chunk[start]:02x} is not valid {encoding} (save the file as UTF-8, or name "
                                "its encoding)") from error
            line += chunk.count(b"\n")
            newline = chunk.rfind(b"\n")
            line_start = offset + newline + 1 if newline >= 0 else line_start
            offset += len(chunk)
    if not fields:
        return
    with open_bytes(path) as raw, io.TextIOWrapper(raw, encoding=codec, newline="") as text:
        reader = csv.reader(text)
        header = next(reader, [])
        _check_header(path, header)
        for row in reader:
            if row and len(row) != len(header):
                raise DataError(f"{path}: line {reader.line_num}: expected {len(header)} fields as in the header, "
                                f"found {len(row)}")


def check_schema(path: Path, schema: pa.Schema) -> None:
    """Refuse empty or repeated column names and list, struct or map columns (as for every Parquet release)."""
    _check_header(path, list(schema.names))
    for field in schema:
        if pa.types.is_nested(field.type):
            raise DataError(f"{path}: column {field.name!r} holds {field.type} values; expected scalar values "
                            "(text or numbers) in every column")


def parquet_files(path: Path) -> list[Path]:
    """The Parquet files of a dataset directory, in path order (``_*`` and ``.*`` names skipped)."""
    files = sorted(
        file for file in path.rglob("*")
        if file.is_file() and file.name.lower().endswith((".parquet", ".pq"))
        and not any(part.startswith(("_", ".")) for part in file.relative_to(path).parts)
    )
    if not files:
        raise DataError(f"{path}: expected a Parquet dataset (a directory of .parquet files), found no .parquet file")
    return files


def hive_columns(path: Path, files: list[Path]) -> tuple[str, ...]:
    """The Hive partition columns (``name=value`` folders) of a dataset directory.

    Raises
    ------
    DataError
        A partition column is also a column of one of the files (which one would be read is
        not defined).
    """
    names = tuple(part.partition("=")[0] for part in files[0].relative_to(path).parts[:-1] if "=" in part)
    for file in files if names else ():
        clash = [name for name in names if name in pq.read_schema(file).names]
        if clash:
            raise DataError(f"{path}: the folder names set column(s) {clash} (Hive partitions name=value) and "
                            f"{file.relative_to(path)} holds column(s) of the same name; expected each column in "
                            "one place")
    return names


def parquet_dataset(path: Path, dictionary_columns: Sequence[str] = ()) -> ds.Dataset:
    """A Parquet file or dataset directory; Hive partition values are read as text.

    ``dictionary_columns`` are read as Arrow dictionaries (pandas categoricals): the same
    values, each distinct value held once."""
    file_format = ds.ParquetFileFormat(read_options=ds.ParquetReadOptions(dictionary_columns=set(dictionary_columns))) \
        if dictionary_columns else "parquet"
    if not path.is_dir():
        return ds.dataset(path, format=file_format)
    files = parquet_files(path)
    partitions = hive_columns(path, files)
    partitioning = ds.partitioning(pa.schema([(name, pa.string()) for name in partitions]), flavor="hive") \
        if partitions else None
    return ds.dataset([str(file) for file in files], format=file_format, partitioning=partitioning,
                      partition_base_dir=str(path))


_DICTIONARY_SHARE = 10
"""A Parquet column has few values when its dictionary pages take at most 1/10 of its bytes."""


def dictionary_columns(path: Path) -> set[str]:
    """The Parquet columns whose values the file stores as a small dictionary (in every row group of its first file).

    Parquet writers encode a column as a dictionary and fall back to plain values when the
    dictionary grows too large; reading a column of mostly distinct values as a dictionary
    costs more than it saves. Only the footer is read. A CSV release has none.
    """
    if release_format(path) != "parquet":
        return set()
    try:
        metadata = pq.ParquetFile(parquet_files(path)[0] if path.is_dir() else path).metadata
    except (OSError, pa.ArrowException):
        return set()  # the reader names what is wrong with the file
    few: set[str] | None = None
    for number in range(metadata.num_row_groups):
        group = metadata.row_group(number)
        small = set()
        for column in (group.column(index) for index in range(group.num_columns)):
            if column.has_dictionary_page and column.dictionary_page_offset is not None:
                size = column.data_page_offset - column.dictionary_page_offset
                if 0 < size * _DICTIONARY_SHARE <= column.total_compressed_size:
                    small.add(column.path_in_schema)
        few = small if few is None else few & small
    return few or set()


def _read_parquet(path: Path, categories: Collection[str]) -> pd.DataFrame:
    try:
        dataset = parquet_dataset(path)
        check_schema(path, dataset.schema)
        text = [field.name for field in dataset.schema if field.name in categories and (
            pa.types.is_string(field.type) or pa.types.is_large_string(field.type))]
        table = (parquet_dataset(path, text) if text else dataset).to_table()
    except (pa.ArrowException, OSError) as error:
        raise DataError(f"{path}: cannot read the file as Parquet: {error}") from error
    refuse_nan(str(path), table)
    # column by column, each freed once converted: the table and the frame are never whole at once
    frame = table.to_pandas(integer_object_nulls=True, split_blocks=True, self_destruct=True)
    del table
    # Arrow's allocator keeps the pages the table freed for its next allocations; none is coming, so give them back
    pa.default_memory_pool().release_unused()
    return frame


def refuse_nan(source: str, table: pa.Table | pa.RecordBatch, *, rows: bool = True) -> None:
    """Refuse a float NaN: it is neither a value nor a missing cell (a null is).

    The error names the column and, when ``rows`` (the table is the release, not its
    distinct values), the row.
    """
    for name, column in zip(table.column_names, table.columns):
        if pa.types.is_floating(column.type):
            nan = pc.fill_null(pc.is_nan(column), False)
            if pc.any(nan).as_py():
                where = f", row {int(pc.index(nan, True).as_py()) + 1}" if rows else ""
                raise DataError(f"{source}: column {name!r}{where}: holds the float NaN (not a number); expected a "
                                "number, or a null for a missing value")


def load_table(path: str | Path, *, encoding: str = "utf-8", categories: Collection[str] = ()) -> pd.DataFrame:
    """Read a released table from a CSV or Parquet file, every value as written.

    Parameters
    ----------
    path
        The file; its suffix (one of :data:`SUFFIXES`) selects the reader.
    encoding
        The CSV file's text encoding (default UTF-8, with or without a byte-order mark).
    categories
        Parquet text columns to read as pandas categoricals (Arrow dictionaries): the
        same values as written, each distinct value held once, coded without hashing a row.

    Returns
    -------
    pandas.DataFrame
        The table with a fresh ``RangeIndex``; for CSV, every column holds text, and
        empty cells are missing (NaN).

    Raises
    ------
    InputFileNotFoundError
        The file does not exist.
    DataError
        The suffix is not supported, a directory holds no Parquet file, or the file breaks one of
        the rules above (the message names the file, the line or column, what was
        expected and what was found).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "t.csv").write_text("zip,disease\\n02138,flu\\n2138,NA\\n,flu\\n")
    >>> load_table(folder / "t.csv").to_dict("list")
    {'zip': ['02138', '2138', nan], 'disease': ['flu', 'NA', 'flu']}
    """
    path = Path(path)
    kind = release_format(path)
    try:
        frame = _read_csv(path, encoding) if kind == "csv" else _read_parquet(path, categories)
    except OSError as error:
        raise DataError(f"{path}: cannot read the file: {error.strerror or error}") from error
    return frame.reset_index(drop=True)
