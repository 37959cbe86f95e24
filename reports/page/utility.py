"""What the release cost, on a page: one row per utility figure that applies (:mod:`reports.utility_section`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["section"]


def _number(value: Any) -> str:
    """A utility figure's value as :func:`verifier.utility.figure.value_json` wrote it: ``3/8 ≈ 0.375``, ``0.4512``."""
    if not isinstance(value, Mapping):
        return "—"
    exact, number = value.get("exact"), value.get("value")
    approximate = f"{number:.4g}" if isinstance(number, (int, float)) and not isinstance(number, bool) else ""
    if isinstance(exact, str):
        return f"{exact} ≈ {approximate}" if "/" in exact and approximate else exact
    return approximate or "—"


def _utility(section: Mapping[str, Any]) -> dict[str, Any]:
    """The utility section (:mod:`reports.utility_section`): one row per figure that applies."""
    from verifier.utility.figure import MODEL_NAMES

    rows = [{"model": MODEL_NAMES.get(str(f.get("metric")), f.get("metric")),
             "attribute": "all" if f.get("attribute") is None else f.get("attribute"),
             "raw": _number(f.get("raw")) + (f" {f.get('units')}" if f.get("units") else ""),
             "quality": _number(f.get("quality"))}
            for f in section.get("figures") or () if isinstance(f, Mapping) and f.get("raw") is not None]
    return {"original": section.get("original"), "rows": rows, "records": section.get("rows"),
            "suppressed": section.get("suppressed")}


def section(utility: Any) -> dict[str, Any] | None:
    """The predicate's ``utility`` section as the page shows it (``None``: none was measured)."""
    return _utility(utility) if isinstance(utility, Mapping) else None
