"""The randomized levels of a page: each level and how it was found."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["section", "publisher"]


def _how(level: Mapping[str, Any], publisher: bool) -> str:
    """How a randomized level was found, from its facts: computed from the declared mechanism (on the original
    data in publisher mode), or implied from such a level by claims."""
    if level.get("reason") or level.get("notes"):
        return str(level.get("reason") or "; ".join(map(str, level.get("notes") or ())))
    premise = level.get("premise")
    source = "from the declared mechanism" + (", on the original data" if publisher else "")
    if not level.get("implied") or not isinstance(premise, Mapping):
        return source
    path = " → ".join(f"{step.get('claim')} ({step.get('status')})" for step in level.get("derivation") or ()
                      if isinstance(step, Mapping))
    return f"implied from {premise.get('model')} = {premise.get('exact')} ({source}) by {path}"


def _randomized(section: Mapping[str, Any]) -> dict[str, Any]:
    from reports.reading import interval

    publisher = section.get("mode") == "publisher"
    rows = [{"model": m.get("model"), "exact": m.get("exact"), "bounds": interval(m),
             "parameters": ", ".join(f"{k} = {v}" for k, v in (m.get("parameters") or {}).items()),
             "how": _how(m, publisher)}
            for m in section.get("measurements", []) if isinstance(m, Mapping)]
    return {"mode": section.get("mode"), "mechanism": section.get("mechanism"), "rows": rows}


def section(randomized: Any) -> dict[str, Any] | None:
    """The predicate's ``randomized`` section as the page shows it (``None``: the release is not randomized)."""
    return _randomized(randomized) if isinstance(randomized, Mapping) else None


def publisher(randomized: Any) -> bool:
    """Whether the predicate's ``randomized`` section was measured in publisher mode (on the original data)."""
    return isinstance(randomized, Mapping) and randomized.get("mode") == "publisher"
