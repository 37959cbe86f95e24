"""The randomized levels of one run: publisher mode measured here, auditor mode with implied levels.

A release made by a randomized mechanism is audited in one of two modes (Ekenstedt et al.
2022, Sec. IV; docs/randomized.md):

* **publisher**: the data are the original records; every level of the release is measured
  from their count table and the mechanism's matrix
  (:func:`verifier.randomized.publisher.publisher_measurements`);
* **auditor**: the data are the release; only the data-independent ε-LDP is measured from
  the matrix (:func:`verifier.randomized.publisher.auditor_ldp`), and the implication map
  gives the levels it guarantees. The map lives in :mod:`theory`, which the verifier does
  not import: the caller passes it as an :class:`Implications` function
  (:func:`theory.answers.auditor_mode.implications`; :func:`privcert.api.audit` does).

The mechanism comes from the policy's ``[mechanism]`` table, or from the caller's
overrides (the command line's ``--mechanism``, ``--mode`` and ``--k``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from verifier.errors import PolicyError
from verifier.named_inputs import Input, Said
from verifier.randomized.mechanism import AnyMechanism, load_mechanism, parse_mechanism
from verifier.randomized.mechanism_policy import MODES, MechanismPolicy, Mode
from verifier.randomized.publisher import publisher_measurements, trivial_level
from verifier.registry import model
from verifier.results import Level, Measurement, jsonable
from verifier.tables.counts import CountTable

if TYPE_CHECKING:
    from verifier.policy import Policy

__all__ = ["DerivationStep", "ImpliedLevel", "Implications", "RandomizedLevels", "MechanismChoice", "read_mechanism",
           "mechanism_from_text",
           "mechanism_settings", "randomized_levels"]


@dataclass(frozen=True)
class DerivationStep:
    """One step of a derivation: the claim used, its checked status and the level it gives."""

    claim_id: str
    status: str
    premise: str
    conclusion: str
    level: Level

    def to_json(self) -> dict[str, Any]:
        return {"claim": self.claim_id, "status": self.status, "premise": self.premise,
                "conclusion": self.conclusion, "exact": self.level.exact, "level": self.level.number}


@dataclass(frozen=True)
class ImpliedLevel:
    """A level guaranteed (not measured) by the theory from a measured premise level."""

    model: str
    level: Level
    premise: str
    premise_level: Level
    derivation: tuple[DerivationStep, ...]
    parameters: Mapping[str, Any] = field(default_factory=dict)

    def as_measurement(self, attribute: str | tuple[str, ...] | None) -> Measurement:
        """The implied level as a measurement known between bounds: the trivial lower bound
        (t ≥ 1, ε ≥ 0) and the implied level as the upper bound, so that a requirement passes
        on it only when the guarantee meets the threshold."""
        parameters = {**self.parameters, **dict(model(self.model).implied_at), "implied": True}
        path = " → ".join(f"{step.claim_id} ({step.status})" for step in self.derivation)
        return Measurement(self.model, attribute, self.level, None, "at_most", parameters=parameters,
                           notes=(f"implied from the measured {self.premise} by {path}",),
                           lower=trivial_level(self.model))

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "parameters": jsonable(self.parameters),
            "level": self.level.number,
            "exact": self.level.exact,
            "implied": True,
            "premise": {"model": self.premise, "exact": self.premise_level.exact},
            "derivation": [step.to_json() for step in self.derivation],
        }


class Implications(Protocol):
    """Auditor mode's theory: ε-LDP measured from the mechanism, and the levels it implies.

    Given the release's count table, the mechanism and the requested subset sizes, returns
    the measured ε-LDP and the implied levels (:func:`theory.answers.auditor_mode.audit_release`).
    """

    def __call__(self, release: CountTable, mechanism: AnyMechanism,
                 ks: Sequence[int]) -> tuple[Measurement, tuple[ImpliedLevel, ...]]: ...


@dataclass(frozen=True)
class MechanismChoice:
    """The caller's overrides of a policy's ``[mechanism]`` table (the command line's options).

    Attributes
    ----------
    file
        The mechanism file (a matrix CSV or a noise TOML), instead of ``mechanism.file``.
    mode
        ``publisher`` or ``auditor``, instead of ``mechanism.mode``.
    ks
        Subset sizes for ``kt_closeness`` and ``k_eps_dp``, instead of ``mechanism.k``.
    attribute
        The randomized attribute when the policy declares no ``[mechanism]`` (default: the
        first sensitive attribute).
    given
        The mechanism itself, instead of reading its file (a certificate carries it).
    """

    file: Path | None = None
    mode: str | None = None
    ks: tuple[int, ...] = ()
    attribute: str | None = None
    given: AnyMechanism | None = None


@dataclass(frozen=True)
class RandomizedLevels:
    """The randomized levels of one run: measured (publisher or auditor) and implied (auditor)."""

    mode: Mode
    mechanism: str
    measurements: tuple[Measurement, ...]
    implied: tuple[ImpliedLevel, ...] = ()
    file: Path | None = field(default=None, compare=False)
    """The mechanism file read (``None`` when the mechanism was given): not in the JSON, which names the file only."""

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


def read_mechanism(path: Path) -> AnyMechanism:
    """A mechanism file: a matrix CSV (:func:`verifier.randomized.mechanism.load_mechanism`) or, for
    ``.toml``, a noise mechanism (:func:`verifier.randomized.noise.load_noise_spec`)."""
    if path.suffix.lower() == ".toml":
        from verifier.randomized.noise import load_noise_spec

        return load_noise_spec(path).mechanism()
    return load_mechanism(path)


def mechanism_from_text(name: str, text: str) -> AnyMechanism:
    """A mechanism from the text of its file (a certificate carries it): CSV, or noise TOML for ``.toml``."""
    if name.lower().endswith(".toml"):
        from verifier.randomized.noise import parse_noise_spec

        return parse_noise_spec(text, source=name).mechanism()
    return parse_mechanism(list(csv.reader(io.StringIO(text, newline=""))), source=name)


def mechanism_settings(policy: Policy | None, choice: MechanismChoice) -> MechanismPolicy | None:
    """The mechanism of a run: the policy's ``[mechanism]`` with ``choice``'s overrides (``None``: no mechanism).

    The subset sizes are the chosen (or declared) ones and every ``k`` a requirement names.

    Raises
    ------
    PolicyError
        A mode or subset size without a mechanism, or an unknown mode.
    """
    declared = policy.mechanism if policy is not None else None
    if choice.file is None and declared is None:
        if choice.ks or choice.mode is not None:
            raise PolicyError(Said(Input("k"), " and ", Input("mode"), " apply to randomized releases: give ",
                                   Input("mechanism", asked=True), " (or [mechanism] in the policy)"))
        return None
    if choice.mode is not None and choice.mode not in MODES:
        raise PolicyError(Said(Input("mode"), f": expected one of {', '.join(MODES)}, found {choice.mode!r}"))
    mode: Mode = choice.mode if choice.mode is not None else declared.mode if declared else "publisher"  # type: ignore[assignment]
    if declared is not None:
        settings = MechanismPolicy(choice.file or declared.file, declared.attribute, mode, choice.ks or declared.ks)
    else:
        attribute = choice.attribute or (policy.sensitive[0].name if policy is not None else None)
        if attribute is None or choice.file is None:
            raise PolicyError("a randomized release needs the attribute its mechanism randomizes")
        settings = MechanismPolicy(choice.file, attribute, mode, choice.ks)
    required = tuple(r.k for r in (policy.requirements if policy is not None else ()) if r.k is not None)
    return replace(settings, ks=tuple(dict.fromkeys(settings.ks + required)))


def randomized_levels(tables: Mapping[Any, CountTable], settings: MechanismPolicy, *, policy: Policy | None = None,
                      implications: Implications | None = None,
                      given: AnyMechanism | None = None) -> RandomizedLevels:
    """Every randomized level of a run (publisher mode), or ε-LDP and what it implies (auditor mode).

    Parameters
    ----------
    tables
        The count tables by attribute (:attr:`verifier.measure.MeasureResult.tables`).
    settings
        The mechanism, its attribute, the mode and the subset sizes (:func:`mechanism_settings`).
    policy
        The policy: the EMD distances its requirements on randomized models name (``stochastic_t_closeness``)
        are measured too (with the attribute's hierarchy for ``hierarchical``).
    implications
        Auditor mode's implication map (:class:`Implications`); required in auditor mode.
    given
        The mechanism, instead of reading ``settings.file``.

    Raises
    ------
    PolicyError
        The mechanism's attribute was not measured, or auditor mode without ``implications``.
    """
    loaded = given if given is not None else read_mechanism(settings.file)
    file = None if given is not None else settings.file
    if settings.attribute not in tables:
        raise PolicyError(f"mechanism attribute {settings.attribute!r} is not a measured sensitive attribute")
    table = tables[settings.attribute]
    if settings.mode == "auditor":
        if implications is None:
            raise PolicyError("auditor mode needs the implication map: use privcert.api.audit, or pass "
                              "implications=theory.answers.auditor_mode.audit_release")
        measured, implied = implications(table, loaded, settings.ks)
        return RandomizedLevels("auditor", settings.file.name, (measured,), implied, file)
    requirements = policy.requirements if policy is not None else ()
    named = dict.fromkeys(r.distance for r in requirements
                          if model(r.model).kind == "randomized" and r.distance not in (None, "multiplicative"))
    hierarchy = policy.hierarchies.get(settings.attribute) if policy is not None else None
    distances = tuple((d, hierarchy if d == "hierarchical" else None) for d in named)
    return RandomizedLevels("publisher", settings.file.name,
                            publisher_measurements(table, loaded, settings.ks, distances), (), file)  # type: ignore[arg-type]
