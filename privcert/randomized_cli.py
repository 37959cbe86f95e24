"""CLI helpers for randomized releases: the ``--mechanism``, ``--k`` and ``--mode`` options, and the
printed table of randomized levels.

Thin: the options become a :class:`verifier.randomized.modes.MechanismChoice` (overrides of
a policy's ``[mechanism]``); the levels are measured by :func:`privcert.api.measure` and
:func:`privcert.api.audit`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.errors import PolicyError

if TYPE_CHECKING:
    from rich.console import Console

    from verifier.randomized.modes import MechanismChoice, RandomizedLevels

__all__ = ["parse_ks", "mechanism_choice", "print_randomized"]


def parse_ks(text: str | None, option: str = "--k") -> tuple[int, ...]:
    """``2,5,10`` → ``(2, 5, 10)``; every item an integer from 1 to 10^18 (ASCII digits)."""
    if text is None:
        return ()
    items = [item.strip() for item in text.split(",")]
    if not all(re.fullmatch(r"[0-9]{1,18}", item) and int(item) >= 1 for item in items):
        raise PolicyError(f"{option}: expected integers from 1 to 10^18 separated by ',', found {text[:80]!r}"
                          + (f" ({len(text):,} characters)" if len(text) > 80 else ""))
    return tuple(dict.fromkeys(int(item) for item in items))


def mechanism_choice(mechanism: Path | None, ks: str | None, mode: str | None,
                     attribute: str | None = None) -> MechanismChoice:
    """The ``--mechanism``, ``--k`` and ``--mode`` options as overrides of a policy's ``[mechanism]``."""
    from verifier.randomized.modes import MechanismChoice

    return MechanismChoice(mechanism, mode, parse_ks(ks), attribute)


def print_randomized(console: Console, levels: RandomizedLevels) -> None:
    """The randomized levels, measured (with their witness) and implied (with their path): a table
    on a terminal, plain lines otherwise (:func:`privcert.output.print_rows`)."""
    from privcert.output import print_rows
    from verifier.display import measurement_level, readable
    from verifier.escape import safe

    rows = []
    for m in levels.measurements:
        how = m.level.reason or str(m.witness.numbers.get("subset", "") if m.witness else "")
        rows.append((m.model, str(m.parameters.get("k", "")), measurement_level(m), safe(how or "measured")))
    for item in levels.implied:
        path = " → ".join(f"{s.claim_id} ({s.status})" for s in item.derivation)
        rows.append((item.model, str(item.parameters.get("k", "")), readable(item.level.value), f"implied: {path}"))
    print_rows(console, f"randomized release ({levels.mode} mode, {safe(levels.mechanism)})",
               ("model", "k", "level", "how"), rows, fold="how")
