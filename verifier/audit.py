"""Audit a release against a policy: measure once, then decide every requirement exactly.

An audit is the policy's requirements run over one set of count tables
(ARCHITECTURE.md, "Data flow of an audit", step 5). The levels come from
:func:`~verifier.measure.measure`; a threshold only turns a level into pass/fail and
never changes it. Every decision is exact: :meth:`~verifier.results.Level.satisfies`
compares rationals as rationals and closed forms by certified evaluation. Entropy
l-diversity is decided on integers (:func:`~verifier.diversity.entropy_l_satisfied`:
``n^n·b^n ≥ a^n·Π c_i^{c_i}`` for ``l = a/b``), and the closed-form decision, when sympy
can take it, must agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from verifier.diversity import entropy_l_satisfied
from verifier.measure import Report, measure
from verifier.policy import Policy, Requirement
from verifier.results import Measurement

__all__ = ["Check", "AuditResult", "audit", "decide"]


@dataclass(frozen=True)
class Check:
    """One requirement, the measurement it was decided on, and the verdict."""

    requirement: Requirement
    measurement: Measurement
    passed: bool

    def to_json(self) -> dict[str, Any]:
        """The measurement's JSON plus ``requirement``, ``threshold`` (exact) and ``passed``."""
        return {
            **self.measurement.to_json(),
            "requirement": self.requirement.key,
            "threshold": str(self.requirement.threshold),
            "passed": self.passed,
        }


@dataclass(frozen=True)
class AuditResult:
    """The result of :func:`audit`: the full report and one :class:`Check` per requirement."""

    policy: Policy
    report: Report
    checks: tuple[Check, ...]

    @property
    def passed(self) -> bool:
        """Whether every requirement holds."""
        return all(check.passed for check in self.checks)

    def to_json(self) -> dict[str, Any]:
        """The report's JSON with ``measurements`` = one entry per requirement, ``passed`` and ``policy``."""
        return {
            **self.report.to_json(),
            "policy": self.policy.source,
            "measurements": [check.to_json() for check in self.checks],
            "passed": self.passed,
        }


def decide(report: Report, requirement: Requirement) -> Check:
    """Decide one requirement on a report, exactly.

    Raises
    ------
    KeyError
        The report holds no measurement for the requirement (the policy and the
        measured attributes disagree).
    RuntimeError
        The closed-form decision and the integer decision of entropy l-diversity
        disagree (a defect, never expected).
    """
    measurement = report.find(requirement.model, requirement.attribute, distance=requirement.distance, l=requirement.l)
    threshold = requirement.threshold
    if requirement.model == "entropy_l_diversity":
        assert requirement.attribute is not None
        passed = entropy_l_satisfied(report.tables[requirement.attribute], threshold)
        try:
            closed_form = measurement.level.satisfies(threshold, measurement.comparison)
        except ArithmeticError:
            closed_form = passed
        if closed_form != passed:
            raise RuntimeError(
                f"{requirement.key}: entropy l-diversity level {measurement.level.exact} decided "
                f"{closed_form} against l = {threshold} but the integer test says {passed}"
            )
    else:
        passed = measurement.level.satisfies(threshold, measurement.comparison)
    return Check(requirement, measurement, passed)


def audit(frame: pd.DataFrame, policy: Policy, *, source: str | None = None, progress: bool | None = None) -> AuditResult:
    """Measure ``frame`` once under ``policy`` and decide each of its requirements.

    Parameters
    ----------
    frame
        The released table.
    policy
        The parsed policy (:func:`~verifier.policy.load_policy`).
    source
        The file the table came from (default: the policy's ``data.path``).
    progress
        Passed to :func:`~verifier.measure.measure`.
    """
    report = measure(
        frame,
        policy.qi,
        policy.attributes,
        hierarchies=policy.hierarchies,
        buckets=policy.buckets,
        l=policy.l,
        risk_threshold=policy.risk_threshold,
        source=source or (str(policy.data) if policy.data else "data"),
        progress=progress,
    )
    return AuditResult(policy, report, tuple(decide(report, r) for r in policy.requirements))
