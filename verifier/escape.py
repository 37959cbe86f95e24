"""Third-party text made safe to print: control characters and bidirectional overrides escaped.

Column names and values come from the release, a third party's file. Before any of them is
written to a terminal, a log or a figure, :func:`safe` escapes what would act instead of
show: control characters (``\\x1b`` starts a terminal escape sequence), the line and
paragraph separators, and the bidirectional marks and overrides (U+202E reverses the
text after it). Imports nothing, so error messages cost nothing to print.
"""

from __future__ import annotations

__all__ = ["safe"]


def safe(text: object) -> str:
    """``text`` with control characters escaped (``\\x1b[31m`` prints as the six characters ``\\x1b[31m``).

    Examples
    --------
    >>> safe("flu\\x1b[2J"), safe("tab\\there")
    ('flu\\\\x1b[2J', 'tab\\\\there')
    """
    out = []
    for char in str(text):
        code = ord(char)
        if code < 0x20 or 0x7F <= code < 0xA0 or char in "\u2028\u2029\u200e\u200f\u202a\u202b\u202c\u202d\u202e":
            out.append(char.encode("unicode_escape").decode("ascii"))
        else:
            out.append(char)
    return "".join(out)
