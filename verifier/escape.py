"""Third-party text made safe to print: control characters and bidirectional overrides escaped.

Column names and values come from the release, a third party's file. Before any of them is
written to a terminal, a log or a figure, :func:`safe` escapes what would act instead of
show: control characters (``\\x1b`` starts a terminal escape sequence), the line and
paragraph separators, and the bidirectional marks and overrides (U+202E reverses the
text after it). Imports nothing, so error messages cost nothing to print.
"""

from __future__ import annotations

__all__ = ["safe"]

_INVISIBLE = "\u2028\u2029\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""The line and paragraph separators, the bidirectional marks, embeddings, overrides and isolates."""


def safe(text: object, lines: bool = False) -> str:
    """``text`` with control characters escaped (``\\x1b[31m`` prints as the six characters ``\\x1b[31m``);
    with ``lines``, its line breaks (``\\n``) kept.

    Examples
    --------
    >>> safe("flu\\x1b[2J"), safe("tab\\there"), safe("two\\nlines", lines=True)
    ('flu\\\\x1b[2J', 'tab\\\\there', 'two\\nlines')
    """
    out = []
    for char in str(text):
        code = ord(char)
        if char == "\n" and lines:
            out.append(char)
        elif code < 0x20 or 0x7F <= code < 0xA0 or char in _INVISIBLE:
            out.append(char.encode("unicode_escape").decode("ascii"))
        else:
            out.append(char)
    return "".join(out)
