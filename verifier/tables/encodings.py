"""Text encodings a release may be read in: character encodings that decode one-to-one, and each engine's name for them.

A CSV release is bytes; its encoding says which text they are. Every measure counts
rows by their text, so an encoding must never make two different byte strings the same
text: ``unicode_escape`` reads ``\\x41`` and ``A`` alike (three rows distinct under UTF-8
become one class), ``rot13``, ``base64`` or ``zlib`` are transformations of data, not
character encodings. The rule, checked from the codec itself (:func:`text_encoding`):

* **Unicode's encoding forms**: UTF-8 (with or without a byte-order mark), UTF-16 and
  UTF-32 (with a byte-order mark, or ``-le``/``-be``). Python's decoders refuse
  ill-formed sequences (overlong forms, lone surrogates), so each text has one form.
  UTF-7 is refused: it writes the same text in several ways (``a`` and ``+AGE-``).
* **ASCII.**
* **Single-byte tables** (Latin-n ``iso8859_*``, Windows and DOS code pages ``cp*``,
  ``mac_*``, ``koi8_*``, ...): a codec whose module holds a 256-entry
  ``decoding_table``, accepted when no two of its bytes decode to the same character
  (``cp875``, ``cp1006``, ``mac_arabic`` and ``mac_farsi`` map two bytes to one
  character and are refused).
* Everything else is refused: codecs that are not text encodings (``base64``, ``hex``,
  ``rot13``, ``zlib``, ``bz2``, ``uu``, ``quopri``), escape codecs (``unicode_escape``,
  ``raw_unicode_escape``), ``idna``, ``punycode``, the stateful ISO-2022 and HZ codecs
  (an escape sequence may be repeated) and the multi-byte East Asian codecs, which are
  not checked here (``cp932`` maps two byte pairs to U+2252): convert such a file to UTF-8.

Each engine reads some of them itself (:attr:`Encoding.duckdb`, :attr:`Encoding.spark`,
their spelling of the name); a release in another, or with carriage returns (CRLF or
mixed line endings, which DuckDB's and Spark's CSV readers take as one line ending per
file), is transcoded to UTF-8 with LF line endings first (:mod:`verifier.tables.transcode`).
"""

from __future__ import annotations

import codecs
import importlib
from dataclasses import dataclass
from functools import cache
from typing import Literal

from verifier.errors import PolicyError
from verifier.named_inputs import Input, Said

__all__ = ["Encoding", "text_encoding"]

_UNICODE = frozenset({"utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"})
"""Python's names (``CodecInfo.name``) of Unicode's encoding forms."""

_UNDEFINED = "\ufffe"
"""A single-byte table's entry for a byte that decodes to no character."""


@dataclass(frozen=True)
class Encoding:
    """A character encoding a release may be read in (:func:`text_encoding`).

    Attributes
    ----------
    name
        The name as given (shown in messages and recorded in certificates).
    codec
        The Python codec the file is decoded with (``utf-8-sig`` for UTF-8: a byte-order mark is dropped).
    family
        ``unicode``, ``ascii`` or ``single-byte``.
    duckdb
        DuckDB's name for it, when DuckDB's CSV reader reads it as pandas does; ``None``: transcoded first.
    spark
        Spark's (Java's) charset name, when Spark's CSV reader reads it as pandas does; ``None``: transcoded first.
    """

    name: str
    codec: str
    family: Literal["unicode", "ascii", "single-byte"]
    duckdb: str | None
    spark: str | None

    @property
    def utf8(self) -> bool:
        """Whether the file is UTF-8 (with or without a byte-order mark)."""
        return self.codec == "utf-8-sig"


def text_encoding(name: str) -> Encoding:
    """The encoding called ``name``, when it is a character encoding that decodes one-to-one (see the module).

    Raises
    ------
    PolicyError
        ``name`` is no codec, or one that is refused (the message says why).

    Examples
    --------
    >>> text_encoding("latin-1").codec, text_encoding("latin-1").spark
    ('iso8859-1', 'ISO-8859-1')
    >>> text_encoding("UTF_8").codec, text_encoding("UTF_8").duckdb
    ('utf-8-sig', 'utf-8')
    >>> text_encoding("unicode_escape")
    Traceback (most recent call last):
    ...
    verifier.errors.PolicyError: encoding 'unicode_escape': an escape codec (it reads \\x41 and A as the same text); expected a character encoding that decodes one-to-one: UTF-8, UTF-16, UTF-32, ASCII or a single-byte table such as latin-1, iso8859-15 or cp1252
    """
    return _classified(name)


def _named(name: str) -> Input:
    """The encoding asked for, as the input a message names (the command line says ``--encoding 'NAME'``)."""
    return Input("encoding", repr(name))


_EXPECTED = ("expected a character encoding that decodes one-to-one: UTF-8, UTF-16, UTF-32, ASCII or a single-byte "
             "table such as latin-1, iso8859-15 or cp1252")


@cache
def _classified(name: str) -> Encoding:
    try:
        info = codecs.lookup(name)
    except LookupError:
        raise PolicyError(Said(_named(name), f": no such encoding; {_EXPECTED}")) from None
    canonical = info.name
    if not getattr(info, "_is_text_encoding", True):
        raise PolicyError(Said(_named(name), f": {canonical} transforms bytes, it is not a character encoding; "
                                              f"{_EXPECTED}"))
    if canonical in _UNICODE:
        codec = "utf-8-sig" if canonical in ("utf-8", "utf-8-sig") else canonical
        utf8 = codec == "utf-8-sig"
        return Encoding(name, codec, "unicode", "utf-8" if utf8 else None, "UTF-8" if utf8 else None)
    if canonical == "ascii":
        return Encoding(name, canonical, "ascii", None, "US-ASCII")
    table = _decoding_table(canonical)
    if table is None:
        raise PolicyError(Said(_named(name), f": {_why_not(canonical)}; {_EXPECTED}"))
    defined = [char for char in table if char != _UNDEFINED]
    if len(set(defined)) != len(defined):
        twice = next(char for char in defined if defined.count(char) > 1)
        raise PolicyError(Said(_named(name), f": {canonical} decodes two bytes to the same character "
                                              f"(U+{ord(twice):04X}); {_EXPECTED}"))
    return Encoding(name, canonical, "single-byte", None, _java_name(canonical))


def _decoding_table(canonical: str) -> str | None:
    """The 256 characters a single-byte codec decodes its bytes to, or ``None`` for any other codec."""
    try:
        module = importlib.import_module("encodings." + canonical.replace("-", "_"))
    except ImportError:
        return None
    table = getattr(module, "decoding_table", None)
    return table if isinstance(table, str) and len(table) == 256 else None


def _why_not(canonical: str) -> str:
    if "escape" in canonical:
        return "an escape codec (it reads \\x41 and A as the same text)"
    if canonical == "utf-7":
        return "UTF-7 writes the same text in several ways (a and +AGE-)"
    if canonical.startswith(("iso2022", "hz")):
        return f"{canonical} is stateful (its escape sequences may be repeated, so one text has several forms)"
    if canonical in ("idna", "punycode"):
        return f"{canonical} encodes domain names, not files"
    return f"{canonical} is not checked to decode one-to-one (multi-byte tables are not; convert the file to UTF-8)"


_JAVA = {"iso8859-1": "ISO-8859-1"}
"""Spark's charset names of the single-byte tables it reads (Spark 4 takes iso-8859-1, us-ascii and Unicode's forms
alone), as Python decodes them."""


def _java_name(canonical: str) -> str | None:
    """Spark's name of a single-byte table it reads, else ``None``."""
    return _JAVA.get(canonical)
