"""CLI helpers for randomized releases: ``--mechanism``, ``--k``, ``--mode`` on measure and audit.

Thin: reads the options or the policy's ``[mechanism]`` table, calls
:func:`verifier.randomized_release.publisher_measurements` (publisher mode) or
:func:`theory.implied.audit_release` (auditor mode), and prints or serializes the result.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from verifier._mechanism_policy import MODES, MechanismPolicy, Mode
from verifier.display import readable
from verifier.errors import PolicyError
from verifier.mechanism import AnyMechanism, load_mechanism
from verifier.measure import Report
from verifier.policy import Policy
from verifier.randomized_release import publisher_measurements
from verifier.results import Level, Measurement

if TYPE_CHECKING:
    from theory.implied import ImpliedLevel

__all__ = ["RandomizedSection", "parse_ks", "randomized_section", "read_mechanism"]



def parse_ks(text: str | None, option: str = "--k") -> tuple[int, ...]:
    """``2,5,10`` → ``(2, 5, 10)``; every item an integer ≥ 1."""
    if text is None:
        return ()
    items = [item.strip() for item in text.split(",")]
    if not all(item.isdigit() and int(item) >= 1 for item in items):
        raise PolicyError(f"{option}: expected integers ≥ 1 separated by ',', found {text!r}")
    return tuple(dict.fromkeys(int(item) for item in items))


@dataclass(frozen=True)
class RandomizedSection:
    """The randomized levels of one run: measured (publisher or auditor) and implied (auditor)."""

    mode: Mode
    mechanism: str
    measurements: tuple[Measurement, ...]
    implied: tuple[ImpliedLevel, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "mechanism": self.mechanism,
            "measurements": [m.to_json() for m in self.measurements] + [i.to_json() for i in self.implied],
        }

    def print(self, console: Console) -> None:
        table = Table(title=f"randomized release ({self.mode} mode, {escape(self.mechanism)})", title_justify="left")
        for column in ("model", "k", "level", "how"):
            table.add_column(column, overflow="fold")
        for m in self.measurements:
            how = m.level.reason or str(m.witness.numbers.get("subset", "") if m.witness else "")
            level = readable(m.level.value) if m.lower is None else _bounds_text(m.lower, m.level)
            table.add_row(m.model, str(m.parameters.get("k", "")), level, escape(how or "measured"))
        for item in self.implied:
            path = " → ".join(f"{s.claim_id} ({s.status})" for s in item.derivation)
            table.add_row(item.model, str(item.parameters.get("k", "")), readable(item.level.value),
                          escape(f"implied: {path}"))
        console.print(table)


def _bounds_text(lower: Level, upper: Level) -> str:
    """A level known between two bounds, for the eye (the exact bounds are in the JSON)."""
    if not upper.is_finite or not lower.is_finite:
        return f"between {readable(lower.value)} and {readable(upper.value)} (not exact)"
    low, high = f"{lower.number:.12g}", f"{upper.number:.12g}"
    if low == high:
        return f"≈ {low} (not exact; exact bounds with --json)"
    return f"between {low} and {high} (not exact; exact bounds with --json)"


def _settings(policy: Policy | None, mechanism: Path | None, ks: str | None, mode: str | None,
              attribute: str | None) -> MechanismPolicy | None:
    """The options, falling back on the policy's ``[mechanism]`` table."""
    declared = policy.mechanism if policy is not None else None
    if mechanism is None and declared is None:
        if ks is not None or mode is not None:
            raise PolicyError("--k and --mode apply to randomized releases: give --mechanism FILE (or [mechanism] in the policy)")
        return None
    if mode is not None and mode not in MODES:
        raise PolicyError(f"--mode: expected one of {', '.join(MODES)}, found {mode!r}")
    if declared is not None:
        return MechanismPolicy(mechanism or declared.file, declared.attribute,
                               mode or declared.mode, parse_ks(ks) or declared.ks)  # type: ignore[arg-type]
    assert mechanism is not None and attribute is not None
    return MechanismPolicy(mechanism, attribute, mode or "publisher", parse_ks(ks))  # type: ignore[arg-type]


def read_mechanism(path: Path) -> AnyMechanism:
    """A mechanism file: a matrix CSV (:func:`verifier.mechanism.load_mechanism`) or, for
    ``.toml``, a noise mechanism (:func:`mechanisms.noise.load_noise_spec`)."""
    if path.suffix.lower() == ".toml":
        from mechanisms.noise import load_noise_spec

        return load_noise_spec(path).mechanism()
    return load_mechanism(path)


def randomized_section(report: Report, *, policy: Policy | None = None, mechanism: Path | None = None,
                       ks: str | None = None, mode: str | None = None,
                       attribute: str | None = None) -> RandomizedSection | None:
    """The randomized levels for a measured report, or ``None`` when no mechanism is given.

    The mechanism randomizes ``attribute`` (the first ``--sensitive`` column on the
    command line, ``mechanism.attribute`` in a policy).
    """
    settings = _settings(policy, mechanism, ks, mode, attribute)
    if settings is None:
        return None
    loaded = read_mechanism(settings.file)
    if settings.attribute not in report.tables:
        raise PolicyError(f"mechanism attribute {settings.attribute!r} is not a measured sensitive attribute")
    table = report.tables[settings.attribute]
    if settings.mode == "auditor":
        from theory.implied import audit_release

        measured, implied = audit_release(table, loaded, settings.ks)
        return RandomizedSection("auditor", str(settings.file), (measured,), implied)
    return RandomizedSection("publisher", str(settings.file), publisher_measurements(table, loaded, settings.ks))
