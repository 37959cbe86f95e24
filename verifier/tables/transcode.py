"""A CSV release as an engine can read it: the file itself, or a copy in UTF-8 with LF line endings, made as a stream.

DuckDB's and Spark's CSV readers read fewer files than pandas does (Arrow on Python's
decoding of the whole file): DuckDB's reader of UTF-16 and Latin-1 asks for 16 GiB with the
line size privcert allows, and both take one kind of line ending for a whole file, so a
file mixing CRLF and LF is refused or misread. :func:`readable_csv` hands an engine the
release itself when the engine reads its encoding (:class:`~verifier.tables.encodings.Encoding`)
and the file holds no carriage return, and otherwise a temporary copy: decoded and written
as UTF-8 chunk by chunk (never the whole file in memory), every line ending outside quotes
(CRLF, or a CR alone) written as LF, line endings inside a quoted value kept as they are,
the byte-order mark dropped: the text pandas reads, the same rows and values.
"""

from __future__ import annotations

import codecs
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from verifier.errors import DataError
from verifier.tables.encodings import Encoding
from verifier.tables.load import check_csv, open_bytes

__all__ = ["readable_csv", "LineEndings", "CHUNK", "PAD"]

CHUNK = 1 << 24
"""Bytes read at a time (16 MiB)."""


def _has_carriage_return(path: Path) -> bool:
    with open_bytes(path) as raw:
        return any(b"\r" in chunk for chunk in iter(lambda: raw.read(CHUNK), b""))


@dataclass
class LineEndings:
    """Writes every line ending outside a quoted value as ``record_end`` (LF), chunk by chunk (a CRLF may span two).

    Quotes are ``"``, a doubled quote inside a quoted value being one of its characters (RFC 4180): each
    quote turns the state over, so a doubled one leaves it as it was. A ``record_end`` of ``,\n`` gives every
    record an empty field more (:data:`PAD`).
    """

    record_end: str = "\n"
    quoted: bool = False
    carriage_return: bool = False
    ended: bool = True

    def __call__(self, text: str) -> str:
        """The chunk ``text`` with its line endings outside quotes rewritten (a CR at its end waits for the next chunk)."""
        if self.carriage_return:  # the last chunk ended with a CR outside quotes: CRLF, or a CR alone
            self.carriage_return = False
            return self.record_end + self(text[1:] if text.startswith("\n") else text)
        parts = text.split('"')
        out: list[str] = []
        for place, part in enumerate(parts):
            if place:
                out.append('"')
                self.quoted = not self.quoted
            if self.quoted:
                out.append(part)
                continue
            if place == len(parts) - 1 and part.endswith("\r"):
                part, self.carriage_return = part[:-1], True
            out.append(part.replace("\r\n", "\n").replace("\r", "\n").replace("\n", self.record_end))
        written = "".join(out)
        if written:
            self.ended = written.endswith("\n")
        return written

    def end(self) -> str:
        """What is left at the end of the file: a last CR as a line ending, and the last record's ending."""
        return self.record_end if self.carriage_return or not self.ended else ""


PAD = ",\n"
"""The record ending that gives every record of the copy an empty field more: a reader that skips empty lines
(Spark) then reads an empty line of a one-column release as a row with an empty (missing) cell."""


@contextmanager
def readable_csv(path: Path, encoding: Encoding, spelling: str | None, *, engine: str, local: bool = True,
                 pad: bool = False) -> Iterator[tuple[Path, str]]:
    """The file an engine reads for the CSV release ``path``, and the encoding to read it in (the engine's ``spelling``).

    Parameters
    ----------
    path
        The release (``.csv`` or ``.csv.gz``).
    encoding
        Its encoding.
    spelling
        The engine's name for ``encoding`` when the engine reads it as pandas does, else ``None``.
    engine
        The engine's name, for messages.
    local
        Whether the engine reads files of this machine (a cluster does not: a copy cannot be handed to it).
    pad
        Whether to give every record an empty last field (:data:`PAD`), in a copy, for an engine that skips
        empty lines, on a release of one column.

    Yields
    ------
    tuple[pathlib.Path, str]
        ``path`` and ``spelling`` when the engine reads ``path`` as it is; else a temporary UTF-8 copy
        (removed afterwards) and ``utf-8``.

    Raises
    ------
    DataError
        A byte is not valid in the encoding (the line and column named), or the release needs a copy and
        the engine runs on a cluster.
    """
    if spelling is not None and not pad and not _has_carriage_return(path):
        yield path, spelling
        return
    why = f"it is {encoding.name}" if spelling is None else "it is one column, whose empty lines are missing cells" \
        if pad else "it holds carriage returns (CRLF or mixed line endings)"
    if not local:
        raise DataError(f"{path}: --engine {engine} on a cluster reads CSV in UTF-8 with LF line endings (or "
                        f"latin-1, ASCII); {why} (--encoding {encoding.name}): save it as UTF-8 with LF "
                        "line endings, or use a local master")
    folder = Path(tempfile.mkdtemp(prefix="privcert-csv-"))
    try:
        copy = folder / "release.csv"
        _transcode(path, encoding, copy, PAD if pad else "\n")
        yield copy, "utf-8"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _transcode(path: Path, encoding: Encoding, copy: Path, record_end: str) -> None:
    """Write ``path`` to ``copy`` in UTF-8, each line ending outside quotes as ``record_end``, a chunk at a time."""
    decoder = codecs.getincrementaldecoder(encoding.codec)()
    endings = LineEndings(record_end)
    with open_bytes(path) as raw, copy.open("w", encoding="utf-8", newline="") as out:
        os.chmod(copy, 0o600)
        try:
            for chunk in iter(lambda: raw.read(CHUNK), b""):
                out.write(endings(decoder.decode(chunk)))
            out.write(endings(decoder.decode(b"", final=True)) + endings.end())
        except UnicodeDecodeError:
            check_csv(path, encoding.name, fields=False)  # names the line and column
            raise
