"""Names that look like other names: mixed scripts, confusable letters, invisible or bidirectional characters.

A quasi-identifier named ``zіp`` (with U+0456, a Cyrillic і) beside the release's real ``zip`` reads the same on
any page, yet measures another column. Unicode TR39 (Security Mechanisms) calls such a name *mixed-script* and
*confusable*: :func:`lookalike` says which of these a name is, by the Unicode script of each character and the
TR39 confusables table (the ``confusable_homoglyphs`` package), and :func:`shown` writes such a name with every
character outside printable ASCII as its escape (``z\\u0456p``), so that no view shows it as the name it
resembles. Every view and ``verify`` use them for the names a certificate holds.

References
----------
Davis & Suignard, Unicode Technical Standard #39, Unicode Security Mechanisms (§4 confusable detection, §5
mixed-script detection).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

__all__ = ["Lookalike", "lookalike", "shown"]

_IGNORED_SCRIPTS = ("COMMON", "INHERITED")


@dataclass(frozen=True)
class Lookalike:
    """Why a name may pass for another: its escaped form, the code points outside ASCII, the reasons."""

    name: str
    escaped: str
    points: tuple[str, ...]
    reasons: tuple[str, ...]

    def text(self) -> str:
        """``'z\\u0456p' (U+0456 CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I): mixed scripts (Cyrillic,
        Latin), looks like 'zip'``."""
        return f"'{self.escaped}' ({', '.join(self.points)}): {', '.join(self.reasons)}"


def _escaped(name: str) -> str:
    """Each character outside printable ASCII, and the backslash, as its Python escape (so the form reads back)."""
    return "".join(char if " " <= char <= "~" and char != "\\" else char.encode("unicode_escape").decode("ascii")
                   for char in name)


def lookalike(name: str) -> Lookalike | None:
    r"""Why ``name`` may pass for another name, or ``None`` when it is plain.

    >>> lookalike("zip") is None, lookalike("âge") is None
    (True, True)
    >>> print(lookalike("z\u0456p").text())
    'z\u0456p' (U+0456 CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I): mixed scripts (Cyrillic, Latin), looks like 'zip'
    """
    if name.isascii() and name.isprintable():
        return None
    from confusable_homoglyphs import categories, confusables

    reasons = []
    scripts = sorted({categories.alias(char) for char in name} - set(_IGNORED_SCRIPTS))
    if len(scripts) > 1:
        reasons.append(f"mixed scripts ({', '.join(script.title() for script in scripts)})")
    hidden = [char for char in name if unicodedata.category(char) in ("Cf", "Cc", "Zl", "Zp")
              or (unicodedata.category(char) == "Zs" and char != " ")]
    if hidden:
        reasons.append("invisible or bidirectional characters")
    found = confusables.is_confusable(name, greedy=True, preferred_aliases=["latin"]) or []
    plain = {item["character"]: next((g["c"] for g in item["homoglyphs"] if g["c"].isascii()), None) for item in found}
    resembles = "".join(plain.get(char) or char for char in name if char not in hidden)
    if resembles != name and resembles.isascii():
        reasons.append(f"looks like '{resembles}'")
    if not reasons:
        return None
    points = tuple(dict.fromkeys(f"U+{ord(char):04X} {unicodedata.name(char, 'UNNAMED')}" for char in name
                                 if not " " <= char <= "~"))
    return Lookalike(name, _escaped(name), points, tuple(reasons))


def shown(name: object) -> str:
    """A name as every view writes it: itself, or escaped (``z\\u0456p``) when it may pass for another."""
    text = str(name)
    return text if lookalike(text) is None else _escaped(text)
