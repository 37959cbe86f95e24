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

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from verifier.counts import qi_order
from verifier.diversity import entropy_l_satisfied
from verifier.engines import Engine, EngineName
from verifier.measure import Report, measure
from verifier.policy import Policy, Requirement
from verifier.results import Measurement

__all__ = ["Check", "AuditResult", "audit", "decide", "offending_classes"]


@dataclass(frozen=True)
class Check:
    """One requirement, the measurement it was decided on, and the verdict."""

    requirement: Requirement
    measurement: Measurement
    passed: bool

    @property
    def reason(self) -> str:
        """One plain sentence: why the requirement fails (or that it holds).

        For example ``class {zip: 476**, age: 2*} has 2 records; the policy requires
        k_anonymity ≥ 5``.
        """
        m = self.measurement
        sign = {"at_least": "≥", "at_most": "≤", "below": "<"}[m.comparison]
        required = f"the policy requires {m.model} {sign} {self.requirement.threshold}"
        if self.passed:
            return f"{m.model} is {m.level.exact}; {required}"
        witness = m.witness
        if m.model == "k_anonymity" and witness is not None and witness.qi is not None:
            return f"class {_class_text(witness.qi)} has {witness.size} records; {required}"
        if witness is not None and witness.qi:
            where = f"class {_class_text(witness.qi)} ({witness.size} records)"
            value = "" if witness.value is None else f", value {witness.value!r}"
            return f"{where}{value} attains {m.model} = {m.level.exact}; {required}"
        return f"{m.model} is {m.level.exact}" + (f" ({m.level.reason})" if m.level.reason else "") + f"; {required}"

    def to_json(self) -> dict[str, Any]:
        """The measurement's JSON plus ``requirement``, ``threshold`` (exact), ``passed`` and ``reason``."""
        return {
            **self.measurement.to_json(),
            "requirement": self.requirement.key,
            "threshold": str(self.requirement.threshold),
            "passed": self.passed,
            "reason": self.reason,
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


def _class_text(qi: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k}: {'(missing)' if v is None else v}" for k, v in qi.items()) + "}"


def offending_classes(result: AuditResult, check: Check, limit: int) -> list[str]:
    """The first ``limit`` classes (in the order of their QI values) that break a failed k-anonymity requirement.

    Other models list their witness (the class that attains the level) in the audit itself.
    """
    if limit <= 0 or check.passed or check.requirement.model != "k_anonymity" or not result.report.tables:
        return []
    classes = next(iter(result.report.tables.values())).classes
    small = np.flatnonzero(classes.sizes < int(check.requirement.threshold))
    small = small[qi_order(classes.keys.iloc[small], classes.qi)][:limit]
    return [f"class {_class_text(classes.describe(int(i)))}: {int(classes.sizes[i])} records" for i in small]


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


def audit(
    data: pd.DataFrame | str | Path,
    policy: Policy,
    *,
    source: str | None = None,
    progress: bool | None = None,
    engine: EngineName | Engine = "pandas",
    encoding: str = "utf-8",
) -> AuditResult:
    """Measure the release once under ``policy`` and decide each of its requirements.

    Parameters
    ----------
    data
        The released table, or the path of its file or Parquet directory.
    policy
        The parsed policy (:func:`~verifier.policy.load_policy`).
    source
        The file the table came from (default: the path, else the policy's ``data.path``).
    progress, engine, encoding
        Passed to :func:`~verifier.measure.measure`: the engine builds the count tables.
    """
    if source is None and not isinstance(data, pd.DataFrame):
        source = str(data)
    report = measure(
        data,
        policy.qi,
        policy.attributes,
        hierarchies=policy.hierarchies,
        buckets=policy.buckets,
        l=policy.l,
        risk_threshold=policy.risk_threshold,
        source=source or (str(policy.data) if policy.data else "data"),
        progress=progress,
        engine=engine,
        encoding=encoding,
    )
    return AuditResult(policy, report, tuple(decide(report, r) for r in policy.requirements))
