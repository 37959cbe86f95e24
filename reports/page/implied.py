"""The implied guarantees of a page: each with its readable level."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["readable"]


def readable(item: Mapping[str, Any]) -> dict[str, Any]:
    """An implied guarantee with its readable level, generated from its facts (a certificate signs none)."""
    from theory.answers.explain import level_text
    from verifier.exact_grammar import GrammarError, read_exact

    if not item.get("implied") or item.get("readable"):
        return dict(item)
    try:
        return {**item, "readable": level_text(str(item.get("definition")), read_exact(item.get("level"), "level"))}
    except (GrammarError, KeyError, ValueError, TypeError):
        return dict(item)
