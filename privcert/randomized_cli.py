"""CLI helpers for randomized releases: ``--mechanism``, ``--k``, ``--mode`` on measure and audit.

Thin: reads the options or the policy's ``[mechanism]`` table, calls
:func:`verifier.randomized_release.publisher_measurements` (publisher mode) or
:func:`theory.implied.audit_release` (auditor mode), and prints or serializes the result.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from privcert.output import level_text
from verifier._mechanism_policy import MODES, MechanismPolicy, Mode
from verifier.display import readable
from verifier.errors import PolicyError
from verifier.mechanism import AnyMechanism, load_mechanism
from verifier.measure import Report
from verifier.policy import Policy
from verifier.randomized_release import publisher_measurements
from verifier.results import Measurement

if TYPE_CHECKING:
    from theory.implied import ImpliedLevel

__all__ = ["RandomizedRun", "RandomizedSection", "parse_ks", "randomized_section", "read_mechanism"]



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

    @property
    def decidable(self) -> tuple[Measurement, ...]:
        """What requirements are decided on: the measured levels, then the implied ones (as upper bounds)."""
        attribute = self.measurements[0].attribute if self.measurements else None
        return self.measurements + tuple(item.as_measurement(attribute) for item in self.implied)

    def print(self, console: Console) -> None:
        table = Table(title=f"randomized release ({self.mode} mode, {escape(self.mechanism)})", title_justify="left")
        for column in ("model", "k", "level", "how"):
            table.add_column(column, overflow="fold")
        for m in self.measurements:
            how = m.level.reason or str(m.witness.numbers.get("subset", "") if m.witness else "")
            level = level_text(m)
            table.add_row(m.model, str(m.parameters.get("k", "")), level, escape(how or "measured"))
        for item in self.implied:
            path = " → ".join(f"{s.claim_id} ({s.status})" for s in item.derivation)
            table.add_row(item.model, str(item.parameters.get("k", "")), readable(item.level.value),
                          escape(f"implied: {path}"))
        console.print(table)


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
    command line, ``mechanism.attribute`` in a policy). The subset sizes are the options'
    (or the policy's ``mechanism.k``) and every ``k`` a requirement names.
    """
    settings = _settings(policy, mechanism, ks, mode, attribute)
    if settings is None:
        return None
    required = tuple(r.k for r in (policy.requirements if policy is not None else ()) if r.k is not None)
    settings = replace(settings, ks=tuple(dict.fromkeys(settings.ks + required)))
    loaded = read_mechanism(settings.file)
    if settings.attribute not in report.tables:
        raise PolicyError(f"mechanism attribute {settings.attribute!r} is not a measured sensitive attribute")
    table = report.tables[settings.attribute]
    if settings.mode == "auditor":
        from theory.implied import audit_release

        measured, implied = audit_release(table, loaded, settings.ks)
        return RandomizedSection("auditor", str(settings.file), (measured,), implied)
    named = dict.fromkeys(r.distance for r in (policy.requirements if policy is not None else ())
                          if r.model == "stochastic_t_closeness" and r.distance not in (None, "multiplicative"))
    hierarchy = policy.hierarchies.get(settings.attribute) if policy is not None else None
    distances = tuple((d, hierarchy if d == "hierarchical" else None) for d in named)
    return RandomizedSection("publisher", str(settings.file),
                             publisher_measurements(table, loaded, settings.ks, distances))  # type: ignore[arg-type]


@dataclass
class RandomizedRun:
    """The randomized levels of one audit, measured once: :func:`verifier.audit.audit` calls it
    with the report (its ``randomized`` hook) and the section stays here for the output."""

    policy: Policy
    mechanism: Path | None = None
    ks: str | None = None
    mode: str | None = None
    section: RandomizedSection | None = None

    def __call__(self, report: Report) -> tuple[Measurement, ...]:
        self.section = randomized_section(report, policy=self.policy, mechanism=self.mechanism, ks=self.ks,
                                          mode=self.mode, attribute=self.policy.sensitive[0].name)
        return () if self.section is None else self.section.decidable
