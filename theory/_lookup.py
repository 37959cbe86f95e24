"""Look-up by id in the theory registries (claims, definitions) with a helpful error."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

__all__ = ["lookup"]

V = TypeVar("V")


def lookup(registry: Mapping[str, V], key: str, kind: str, error: type[KeyError]) -> V:
    """``registry[key]``, or ``error`` naming ``kind``, the unknown key and every valid id.

    >>> lookup({"a": 1}, "a", "claim", KeyError)
    1
    >>> lookup({"a": 1}, "b", "claim", KeyError)
    Traceback (most recent call last):
    ...
    KeyError: "unknown claim id 'b'; expected one of: a"
    """
    try:
        return registry[key]
    except KeyError:
        raise error(f"unknown {kind} id {key!r}; expected one of: {', '.join(registry)}") from None
