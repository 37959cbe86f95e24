"""CLI helpers for randomized releases: the ``--mechanism``, ``--k`` and ``--mode`` options, and the
printed table of randomized levels.

Thin: the options become a :class:`verifier.randomized_levels.MechanismChoice` (overrides of
a policy's ``[mechanism]``); the levels are measured by :func:`privcert.api.measure` and
:func:`privcert.api.audit`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from verifier.errors import PolicyError

if TYPE_CHECKING:
    from rich.console import Console

    from verifier.randomized_levels import MechanismChoice, RandomizedLevels

__all__ = ["parse_ks", "mechanism_choice", "print_randomized"]


def parse_ks(text: str | None, option: str = "--k") -> tuple[int, ...]:
    """``2,5,10`` → ``(2, 5, 10)``; every item an integer ≥ 1."""
    if text is None:
        return ()
    items = [item.strip() for item in text.split(",")]
    if not all(item.isdigit() and int(item) >= 1 for item in items):
        raise PolicyError(f"{option}: expected integers ≥ 1 separated by ',', found {text!r}")
    return tuple(dict.fromkeys(int(item) for item in items))


def mechanism_choice(mechanism: Path | None, ks: str | None, mode: str | None,
                     attribute: str | None = None) -> MechanismChoice:
    """The ``--mechanism``, ``--k`` and ``--mode`` options as overrides of a policy's ``[mechanism]``."""
    from verifier.randomized_levels import MechanismChoice

    return MechanismChoice(mechanism, mode, parse_ks(ks), attribute)


def print_randomized(console: Console, levels: RandomizedLevels) -> None:
    """The randomized levels as a table: measured (with their witness) and implied (with their path)."""
    from rich.markup import escape
    from rich.table import Table

    from verifier.display import measurement_level, readable

    table = Table(title=f"randomized release ({levels.mode} mode, {escape(levels.mechanism)})", title_justify="left")
    for column in ("model", "k", "level", "how"):
        table.add_column(column, overflow="fold")
    for m in levels.measurements:
        how = m.level.reason or str(m.witness.numbers.get("subset", "") if m.witness else "")
        table.add_row(m.model, str(m.parameters.get("k", "")), measurement_level(m), escape(how or "measured"))
    for item in levels.implied:
        path = " → ".join(f"{s.claim_id} ({s.status})" for s in item.derivation)
        table.add_row(item.model, str(item.parameters.get("k", "")), readable(item.level.value),
                      escape(f"implied: {path}"))
    console.print(table)
