"""The measurement table of a page: one row per measured level (or publisher's statement), and the sentence a
certificate's facts make."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from verifier.audit import reason_text
from verifier.display import attribute_label
from verifier.lookalike import shown

__all__ = ["row", "in_policy_order", "failures", "sentence"]

_SIGNS = {("larger", False): "≥", ("smaller", False): "≤", ("smaller", True): "<", ("larger", True): ">"}


def _attribute(value: Any) -> str:
    if isinstance(value, list):
        return attribute_label(tuple(shown(part) for part in value))
    return attribute_label(None if value is None else shown(value))


def _detail(measurement: Mapping[str, Any]) -> str:
    parts = [f"{measurement['distance']} distance"] if measurement.get("distance") else []
    if "l" in (measurement.get("parameters") or {}):
        parts.append(f"l = {measurement['parameters']['l']}")
    return ", ".join(parts)


def row(measurement: Mapping[str, Any]) -> dict[str, Any]:
    from reports.reading import interval, model_words, number

    direction = measurement.get("direction") or {}
    return {
        "requirement": measurement.get("requirement"),
        "model": measurement.get("model"),
        "words": model_words(measurement.get("model")),
        "level": number(measurement.get("exact")),
        "bounds": interval(measurement),
        "limit": number(measurement.get("threshold")),
        "detail": _detail(measurement),
        "attribute": _attribute(measurement.get("attribute")),
        "exact": measurement.get("exact"),
        "threshold": measurement.get("threshold"),
        "sign": _SIGNS.get((str(direction.get("stronger")), bool(direction.get("strict"))), ""),
        "passed": measurement.get("passed"),
        "reason": None if measurement.get("passed") is not False else sentence(reason_text, measurement),
    }


def in_policy_order(measurement: Any, order: Sequence[Any]) -> Any:
    """A measurement whose witness names its quasi-identifiers in the policy's order: a signed predicate is
    canonical JSON (RFC 8785), whose objects come back with their keys sorted."""
    if not isinstance(measurement, Mapping) or not isinstance(measurement.get("witness"), Mapping):
        return measurement
    qi = measurement["witness"].get("qi")
    if not isinstance(qi, Mapping):
        return measurement
    rank = {name: index for index, name in enumerate(order) if isinstance(name, str)}
    ordered = dict(sorted(qi.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0])))
    return {**measurement, "witness": {**measurement["witness"], "qi": ordered}}


def failures(measurements: Sequence[Any]) -> list[str]:
    """The sentence of each failed requirement (measured, or the publisher's statement), in order."""
    from reports.statement import failure_sentence

    return [text for m in measurements
            if isinstance(m, Mapping) and m.get("passed") is False
            and (text := sentence(failure_sentence, m)) is not None]


def sentence(make: Any, facts: Mapping[str, Any]) -> str | None:
    """A sentence generated from a certificate's facts, or ``None`` when the facts lack what it needs (a forged
    or partial certificate rendered unverified)."""
    try:
        return str(make(facts))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
