"""Every engine reads every CSV the docs name as pandas does: each encoding, byte-order marks, LF, CRLF and mixed line endings.

The release holds text that only its encoding reads right (accented, Cyrillic or Greek
letters), a quoted value with a line break of its own and an empty (missing) cell; each
engine's JSON of the measurements must equal the pandas engine's, byte for byte. DuckDB
reads UTF-8 with LF line endings itself and a UTF-8 copy of anything else; Spark reads
UTF-8, latin-1 and ASCII with LF line endings itself and a copy of anything else (docs/engines.md, "Encodings and line endings").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verifier.engines.duckdb_engine import DuckDBEngine
from verifier.engines.spark_engine import SparkEngine
from verifier.errors import DataError, PolicyError
from verifier.measure import measure
from verifier.question import Question
from verifier.tables.counts import AttributeSpec
from verifier.tables.encodings import text_encoding
from verifier.tables.load import load_table
from verifier.tables.transcode import PAD, LineEndings, readable_csv

ENCODINGS = ("utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1", "cp1252", "iso8859-15",
             "ascii", "koi8-r", "cp1251", "iso8859-7", "mac-roman", "cp850")
"""The encodings the matrix reads: docs/engines.md names them (Unicode's forms, ASCII, single-byte tables)."""

ENDINGS = {"lf": ("\n", "\n"), "crlf": ("\r\n", "\r\n"), "mixed": ("\r\n", "\n")}
"""Each kind of file: the line ending of odd and even lines."""

WORDS = ("café", "naïve", "Zoë", "Ärzte", "мир", "Привет", "Ελλάς", "Αθήνα", "plain", "tab\there", "02138")
SPECS = (AttributeSpec(("disease",)), AttributeSpec(("note",), missing="value"))


def _words(encoding: str) -> list[str]:
    """The words ``encoding`` can write, the non-ASCII ones first (at least two of them outside ASCII but for ascii)."""
    fits = []
    for word in WORDS:
        try:
            word.encode(encoding)
        except UnicodeEncodeError:
            continue
        fits.append(word)
    assert encoding == "ascii" or sum(not word.isascii() for word in fits) >= 2, encoding
    return fits


def _release(folder: Path, encoding: str, ending: str) -> Path:
    """A release of 12 rows in ``encoding``: zips of the encoding's words, a quoted line break (the file's first
    line ending), quotes, an empty cell."""
    odd, even = ENDINGS[ending]
    words = _words(encoding)
    lines = ["zip,disease,note"]
    for row in range(12):
        note = f'"two{odd}lines"' if row == 3 else '"a ""quoted"" word"' if row == 5 else "" if row == 7 else words[row % 3]
        lines.append(f"{words[row % 2]},{('flu', 'hiv', 'cold')[row % 3]},{note}")
    text = "".join(line + (odd if number % 2 else even) for number, line in enumerate(lines, start=1))
    path = folder / f"release-{encoding}-{ending}.csv"
    path.write_bytes(text.encode(encoding))
    return path


def _json(path: Path, engine: Any, encoding: str, specs: tuple[AttributeSpec, ...] = SPECS) -> str:
    report = measure(path, Question.of(("zip",), specs, l=[2]), engine=engine, encoding=encoding, progress=False)
    return json.dumps(report.to_json(), sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize("ending", sorted(ENDINGS))
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_duckdb_reads_every_encoding_and_line_ending_as_pandas(encoding: str, ending: str, tmp_path: Path) -> None:
    path = _release(tmp_path, encoding, ending)
    frame = load_table(path, encoding=encoding)
    words = _words(encoding)
    assert frame["zip"].tolist() == [words[row % 2] for row in range(12)]
    assert frame["note"][3] == f"two{ENDINGS[ending][0]}lines" and frame["note"][5] == 'a "quoted" word' and frame["note"].isna()[7]
    expected = _json(path, "pandas", encoding)
    assert json.loads(expected)["classes"] == 2 and json.loads(expected)["rows"] == 12
    for engine in (DuckDBEngine(), DuckDBEngine(dense_cells=0)):
        assert _json(path, engine, encoding) == expected


@pytest.mark.parametrize(("encoding", "ending"), [
    *((encoding, "mixed") for encoding in ("utf-8", "utf-8-sig", "utf-16", "latin-1", "cp1252", "koi8-r")),
    *((encoding, "lf") for encoding in ("utf-8", "latin-1", "ascii", "iso8859-15")),  # the first three read by Spark itself
])
def test_spark_reads_every_encoding_and_line_ending_as_pandas(encoding: str, ending: str, spark: SparkEngine,
                                                              tmp_path: Path) -> None:
    path = _release(tmp_path, encoding, ending)
    assert _json(path, spark, encoding) == _json(path, "pandas", encoding)


def test_engines_read_a_file_as_it_is_only_in_their_own_encodings_with_lf(tmp_path: Path) -> None:
    latin = _release(tmp_path, "latin-1", "lf")
    with readable_csv(latin, text_encoding("latin-1"), "ISO-8859-1", engine="spark") as (read, spelling):
        assert (read, spelling) == (latin, "ISO-8859-1")
    with readable_csv(latin, text_encoding("latin-1"), None, engine="duckdb") as (read, spelling):
        assert read != latin and spelling == "utf-8"
        assert read.read_text(encoding="utf-8") == latin.read_bytes().decode("latin-1")
        copy = read
    assert not copy.exists(), "the copy is removed afterwards"
    mixed = _release(tmp_path, "utf-8", "mixed")
    with readable_csv(mixed, text_encoding("utf-8"), "utf-8", engine="duckdb") as (read, _):
        assert read.read_bytes() == mixed.read_bytes().replace(b"\r\n", b"\n").replace(b'"two\nlines"', b'"two\r\nlines"')
        assert b'"two\r\nlines"' in read.read_bytes()
    with pytest.raises(DataError, match=r"release-utf-8-mixed.csv: --engine spark on a cluster reads CSV in UTF-8 "
                                        r"with LF line endings .*; it holds carriage returns .*--encoding utf-8"):
        with readable_csv(mixed, text_encoding("utf-8"), "UTF-8", engine="spark", local=False):
            pass


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_line_endings_are_rewritten_the_same_whatever_the_chunks(size: int) -> None:
    text = 'a,b\r\n"x\r\ny",2\r\r\n"""q""",\r"\r"\n\r'
    endings = LineEndings()
    chunks = [text[start:start + size] for start in range(0, len(text), size)]
    assert "".join(endings(chunk) for chunk in chunks) + endings.end() == 'a,b\n"x\r\ny",2\n\n"""q""",\n"\r"\n\n'
    padded = LineEndings(PAD)
    assert "".join(padded(chunk) for chunk in chunks) + padded.end() == 'a,b,\n"x\r\ny",2,\n,\n"""q""",,\n"\r",\n,\n'
    unended = LineEndings(PAD)
    assert "".join(unended(chunk) for chunk in ["a\n", "", "b"]) + unended.end() == "a,\nb,\n"


def test_a_byte_not_in_the_encoding_is_named_by_line_on_a_transcoded_release(tmp_path: Path) -> None:
    path = tmp_path / "release.csv"
    path.write_bytes(b"zip,disease\r\n1,flu\r\n2,\x81\r\n")
    with pytest.raises(DataError, match=r"release.csv: line 3, column 3: byte 0x81 is not valid cp1252"):
        measure(path, Question.of(("zip",), SPECS[:1]), engine=DuckDBEngine(), encoding="cp1252", progress=False)


@pytest.mark.parametrize(("name", "why"), [
    ("unicode_escape", r"an escape codec"),
    ("raw_unicode_escape", r"an escape codec"),
    ("rot13", r"rot-13 transforms bytes, it is not a character encoding"),
    ("base64", r"base64 transforms bytes"),
    ("zlib", r"zlib transforms bytes"),
    ("hex", r"hex transforms bytes"),
    ("utf-7", r"UTF-7 writes the same text in several ways"),
    ("iso2022_jp", r"iso2022_jp is stateful"),
    ("idna", r"idna encodes domain names"),
    ("cp932", r"cp932 is not checked to decode one-to-one"),
    ("cp875", r"cp875 decodes two bytes to the same character \(U\+"),
    ("mac-arabic", r"mac-arabic decodes two bytes to the same character"),
    ("klingon", r"no such encoding"),
])
def test_only_character_encodings_that_decode_one_to_one_are_read(name: str, why: str, tmp_path: Path) -> None:
    # the library names the encoding as its parameter; the command line says it as --encoding 'NAME'
    from privcert.reporting import said

    with pytest.raises(PolicyError, match=rf"^encoding '{name}': {why}.*expected a character encoding") as refused:
        text_encoding(name)
    assert said(refused.value) == f"--{refused.value}"
    path = tmp_path / "release.csv"
    path.write_text("zip,disease\n\\x41,flu\nA,flu\n", encoding="ascii")
    for engine in ("pandas", DuckDBEngine()):
        with pytest.raises(PolicyError, match=rf"^encoding '{name}': {why}"):
            measure(path, Question.of(("zip",), SPECS[:1]), engine=engine, encoding=name, progress=False)
    with pytest.raises(DataError, match=rf"release.csv: encoding '{name}': {why}") as unread:
        load_table(path, encoding=name)
    assert said(unread.value) == str(unread.value).replace(": encoding", ": --encoding", 1)
    parquet = tmp_path / "release.parquet"
    load_table(path).to_parquet(parquet)
    with pytest.raises(PolicyError, match=rf"^encoding '{name}': {why}"):  # refused whatever the release's format
        measure(parquet, Question.of(("zip",), SPECS[:1]), encoding=name, progress=False)


def test_the_families_accepted() -> None:
    accepted = {name: text_encoding(name).family for name in ("UTF-8", "utf_16_le", "U32", "ascii", "latin_1",
                                                                 "iso8859_2", "cp1250", "cp037", "koi8_u", "mac_roman")}
    assert accepted == {"UTF-8": "unicode", "utf_16_le": "unicode", "U32": "unicode", "ascii": "ascii",
                        "latin_1": "single-byte", "iso8859_2": "single-byte", "cp1250": "single-byte",
                        "cp037": "single-byte", "koi8_u": "single-byte", "mac_roman": "single-byte"}
    assert [text_encoding(name).duckdb for name in ("utf8", "utf-8-sig", "utf-16", "latin-1")] == ["utf-8", "utf-8", None, None]
    assert [text_encoding(name).spark for name in ("utf8", "latin-1", "ascii", "iso8859-15", "cp1252", "utf-16")] == [
        "UTF-8", "ISO-8859-1", "US-ASCII", None, None, None]


def test_a_release_of_one_column_reads_an_empty_line_as_a_missing_cell_on_every_engine(spark: SparkEngine,
                                                                                        tmp_path: Path) -> None:
    """docs/cli.md: an empty cell is missing (a suppressed value); in a file of one column it is an empty line."""
    path = tmp_path / "release.csv"
    path.write_text("zip\n02138\n\n02139\n\n02138\n\n", encoding="utf-8")
    assert load_table(path)["zip"].fillna("-").tolist() == ["02138", "-", "02139", "-", "02138", "-"]
    expected = _json(path, "pandas", "utf-8", ())
    assert json.loads(expected)["rows"] == 6 and json.loads(expected)["classes"] == 3
    for engine in (DuckDBEngine(), DuckDBEngine(dense_cells=0), spark):
        assert _json(path, engine, "utf-8", ()) == expected
