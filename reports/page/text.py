"""A value from a release made inert and bounded for a page: the ``cell``, ``block`` and ``breakable`` filters.

Control characters and bidirectional overrides are shown escaped (a U+202E in a value would otherwise reverse the
rest of its sentence, numbers included), and a value longer than :data:`CELL_LIMIT` characters is cut with an
ellipsis and its length (the whole value is in the certificate's JSON), so that no release can make a page
unreadable or its PDF layout take minutes (WeasyPrint lays out an unbreakable string in quadratic time).
"""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup, escape

__all__ = ["CELL_LIMIT", "BLOCK_LIMIT", "WORD", "cell", "block", "breakable"]

CELL_LIMIT = 240
"""Most characters of a value a table cell or sentence shows."""
BLOCK_LIMIT = 20_000
"""Most characters of a block of text (the policy) a page shows."""


def _clipped(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters; the whole text is in the certificate's JSON)"


def cell(value: Any, limit: int = CELL_LIMIT) -> str:
    r"""A value for one line of a page: control and bidirectional characters escaped, at most ``limit`` characters.

    >>> cell("flu\u202e0.5")
    'flu\\u202e0.5'
    >>> cell("x" * 300, 4)
    "xxxx… (300 characters; the whole text is in the certificate's JSON)"
    """
    from verifier.escape import safe

    return _clipped(safe("" if value is None else value), limit)


def block(value: Any, limit: int = BLOCK_LIMIT) -> str:
    """Text of several lines (a policy): each line as :func:`cell` would show it, line breaks kept."""
    from verifier.escape import safe

    text = "\n".join(safe(line) for line in str("" if value is None else value).split("\n"))
    return _clipped(text, limit)


_BREAK = re.compile(r"([_+])")
WORD = 24
"""Longest part of an id or a name (between ``_`` and ``+``) a page keeps on one line."""


def breakable(value: Any, limit: int = CELL_LIMIT) -> Markup:
    """A value as :func:`cell` shows it, breakable after each ``_`` and ``+`` (``<wbr>``) and only there.

    Each part up to :data:`WORD` characters is kept whole (``white-space: nowrap``): a layout
    engine that breaks ``overflow-wrap: anywhere`` text greedily (WeasyPrint) would otherwise cut
    ``disease`` into ``diseas``/``e``; a longer part stays breakable anywhere, so that no value can
    widen its column past the page.

    >>> str(breakable("salary+<b>")), str(breakable("a" * 30))[:5]
    ('<span class="word">salary+</span><wbr><span class="word">&lt;b&gt;</span>', 'aaaaa')
    """
    parts = [part for part in _BREAK.split(cell(value, limit)) if part]
    joined: list[str] = []
    for part in parts:
        if _BREAK.fullmatch(part) and joined:
            joined[-1] += part
        else:
            joined.append(part)
    return Markup("<wbr>").join(Markup('<span class="word">{}</span>').format(part) if len(part) <= WORD
                                else escape(part) for part in joined)
