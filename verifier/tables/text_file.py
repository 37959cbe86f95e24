"""Reading user-supplied text files with a decode error that names the line and column.

Policies, hierarchies and mechanisms are small text files written by a third party; a
wrong encoding must be an error that says where, not a traceback.
"""

from __future__ import annotations

from pathlib import Path

from verifier.errors import DataError

__all__ = ["read_text", "decode_error"]


def decode_error(path: Path, data: bytes, encoding: str, error: UnicodeDecodeError) -> str:
    """Describe a decode error by line and column (1-based) of the first undecodable byte."""
    line = data.count(b"\n", 0, error.start) + 1
    column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
    return (f"{path}: line {line}, column {column}: byte 0x{data[error.start]:02x} is not valid {encoding} "
            f"(save the file as UTF-8, or name its encoding)")


def read_text(path: Path, encoding: str = "utf-8", kind: type[Exception] = DataError) -> str:
    """The file's text; a UTF-8 byte-order mark is dropped. Decode errors raise ``kind`` naming the place."""
    data = path.read_bytes()
    codec = "utf-8-sig" if encoding.replace("_", "-").lower() in ("utf-8", "utf8") else encoding
    try:
        return data.decode(codec)
    except UnicodeDecodeError as error:
        raise kind(decode_error(path, data, encoding, error)) from error
    except LookupError as error:
        raise kind(f"{path}: unknown encoding {encoding!r}") from error
