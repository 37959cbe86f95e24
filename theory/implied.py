"""Auditor mode: the levels a measured, data-independent level guarantees, with their derivation.

An auditor holds the release and the published mechanism, not the original data. The
mechanism alone gives ε-LDP (:func:`verifier.randomized.ldp` over every row of ``M``);
the implication map then gives the strongest level of each other definition that ε-LDP
guarantees for the release's number of records N, its smallest class (k-anonymity) and
the requested subset sizes k (Ekenstedt et al. 2022, Thms. 2-4, Lemmas 2-3;
Domingo-Ferrer & Soria-Comas 2015, Prop. 1). Each result is labelled *implied*, carries
its derivation path and, per step, the claim id and its checked status.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy

from theory.graph import Graph, build_graph
from verifier.counts import CountTable
from verifier.mechanism import AnyMechanism
from verifier.randomized_release import auditor_ldp, trivial_level
from verifier.results import Level, Measurement, jsonable

__all__ = ["DerivationStep", "ImpliedLevel", "implied_levels", "audit_release"]


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
        parameters = {**self.parameters, "implied": True}
        if self.model == "stochastic_t_closeness":
            parameters["distance"] = "multiplicative"
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


def _targets(records: int, smallest_class: int, ks: Sequence[int]) -> list[tuple[str, dict[str, int]]]:
    # One class holding every record is trivially 1-close (each class average is the table's);
    # the map's class-based bounds divide by N - k there, so it is not asked.
    targets: list[tuple[str, dict[str, int]]] = []
    if smallest_class < records:
        targets.append(("stochastic_t_closeness", {"k": smallest_class}))
    if records > 1:
        targets.append(("dp", {}))
    for k in ks:
        targets += [("kt_closeness", {"k": k}), ("k_eps_dp", {"k": k})]
    return targets


def implied_levels(
    premise: str,
    level: sympy.Expr,
    records: int,
    smallest_class: int,
    ks: Sequence[int] = (),
    graph: Graph | None = None,
) -> tuple[ImpliedLevel, ...]:
    """The strongest levels the theory guarantees from ``premise`` at ``level``.

    Parameters
    ----------
    premise
        The measured definition (``ldp`` in auditor mode).
    level
        Its exact level (ε for ``ldp``).
    records
        N, the release's number of records.
    smallest_class
        The release's smallest equivalence class (the k of stochastic t-closeness).
    ks
        Subset sizes for ``kt_closeness`` and ``k_eps_dp``.
    graph
        The implication map (built, with every claim checked, when ``None``).

    Returns
    -------
    tuple of ImpliedLevel
        One per target the map reaches (definitions it cannot reach are left out).
    """
    graph = graph if graph is not None else build_graph()
    status = {edge.claim_id: edge.status for edge in graph.edges}
    out = []
    for model, sizes in _targets(records, smallest_class, ks):
        answer = graph.strongest_level(premise, level, model, {"N": records, **sizes})
        if answer.holds != "yes" or answer.value is None:
            continue
        steps = tuple(
            DerivationStep(s.claim_id, status[s.claim_id], s.premise, s.conclusion,
                           Level(s.value) if s.value is not None else Level.undefined("not evaluated"))
            for s in answer.path
        )
        out.append(ImpliedLevel(model, Level(answer.value), premise, Level(level), steps, sizes))
    return tuple(out)


def audit_release(
    release: CountTable, mechanism: AnyMechanism, ks: Sequence[int] = (), graph: Graph | None = None
) -> tuple[Measurement, tuple[ImpliedLevel, ...]]:
    """Auditor mode on a release: ε-LDP measured from ``M``, and the levels it implies.

    N is the release's number of records and the smallest class its k-anonymity.
    """
    measured = auditor_ldp(release, mechanism)
    if measured.level.value is None or not measured.level.is_finite:
        return measured, ()
    smallest = int(release.classes.sizes.min())
    return measured, implied_levels("ldp", measured.level.value, release.n, smallest, ks, graph)
