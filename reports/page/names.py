"""The names on a page that need a word: those that look like others, and the columns no requirement audits."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from verifier.lookalike import shown

__all__ = ["lookalikes", "lookalike_names", "unaudited"]


def lookalikes(predicate: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each name that looks like another (:func:`reports.declared.lookalikes`): its role and what it resembles."""
    from reports.declared import lookalikes as found

    return [{"role": role, "text": name.text()} for role, name in found(predicate)]


def lookalike_names(predicate: Mapping[str, Any]) -> list[str]:
    """The names that look like others, as written (the page writes each escaped wherever it appears)."""
    from reports.declared import lookalikes as found

    return [name.name for _, name in found(predicate)]


def unaudited(predicate: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The columns no requirement audits (:func:`reports.declared.unaudited`), each shown, and whether it is flagged
    as an identifier."""
    from reports.declared import unaudited as found

    return [{"name": shown(name), "identifier": flagged} for name, flagged in found(predicate)]
