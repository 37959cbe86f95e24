"""Audit a release against a policy: measure once, then decide every requirement exactly.

An audit is the policy's requirements run over one set of count tables
(docs/design.md, "One place per model"). The levels come from
:func:`~verifier.measure.measure`; a threshold only turns a level into pass/fail and
never changes it. Every decision is exact: :meth:`~verifier.results.Level.satisfies`
compares rationals as rationals and closed forms by certified evaluation. Entropy
l-diversity is decided on integers (:func:`~verifier.privacy.diversity.entropy_l_satisfied`:
``n^n·b^n ≥ a^n·Π c_i^{c_i}`` for ``l = a/b``), and the closed-form decision, when sympy
can take it, must agree.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
import sympy

from verifier.certified import at_most
from verifier.display import approximate, exact_text
from verifier.engines import Engine, EngineName
from verifier.errors import PolicyError
from verifier.measure import MeasureResult, ProgressCallback, measure, measure_tables
from verifier.models.t_closeness import DISTANCES
from verifier.named_inputs import Input, Said
from verifier.policy import Policy, Requirement
from verifier.randomized.modes import (
    Implications,
    MechanismChoice,
    RandomizedLevels,
    mechanism_settings,
    randomized_levels,
)
from verifier.randomized.publisher import trivial_level
from verifier.registry import UnknownModelError, model
from verifier.results import Level, Measurement
from verifier.risk.histogram import SamplingFrameError
from verifier.tables.counts import Classes, CountTable, qi_order

Verdict = Literal["pass", "fail", "undecided"]

__all__ = ["Check", "AuditResult", "Verdict", "SENTENCES", "audit", "audit_tables", "decide", "decide_bounds", "facts",
           "offending_classes", "reason_text"]


@dataclass(frozen=True)
class Check:
    """One requirement, the measurement it was decided on, and the verdict."""

    requirement: Requirement
    measurement: Measurement
    passed: bool
    undecided: bool = False

    @property
    def verdict(self) -> Verdict:
        """``pass``, ``fail``, or ``undecided`` (a level known only between bounds that straddle the threshold)."""
        return "pass" if self.passed else "undecided" if self.undecided else "fail"

    @property
    def threshold_text(self) -> str:
        """The threshold as written exactly (``3/20``, ``ln(5)``)."""
        threshold = self.requirement.threshold
        return str(threshold) if isinstance(threshold, (int, Fraction)) else exact_text(threshold)

    @property
    def reason(self) -> str:
        """One plain sentence: why the requirement fails (or that it holds) (:func:`reason_text`)."""
        return reason_text({**self.measurement.to_json(), "threshold": self.threshold_text, "passed": self.passed})

    def to_json(self) -> dict[str, Any]:
        """The measurement's JSON plus ``requirement``, ``threshold`` (exact), ``passed`` and ``reason``."""
        return {
            **self.measurement.to_json(),
            "requirement": self.requirement.key,
            "threshold": self.threshold_text,
            "passed": self.passed,
            "verdict": self.verdict,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class AuditResult:
    """The result of :func:`audit`: the full report, one :class:`Check` per requirement and,
    for a randomized release, its randomized levels."""

    policy: Policy
    report: MeasureResult
    checks: tuple[Check, ...]
    randomized: RandomizedLevels | None = None

    @property
    def passed(self) -> bool:
        """Whether every requirement holds."""
        return all(check.passed for check in self.checks)

    def _repr_html_(self) -> str:
        """An HTML table for Jupyter (:mod:`verifier.notebook`; the certificate's page is
        :func:`reports.html.notebook_html`)."""
        from verifier.notebook import audit_html

        return audit_html(self)

    def to_json(self) -> dict[str, Any]:
        """The report's JSON with ``measurements`` = one entry per requirement, ``passed``, ``policy``
        and, for a randomized release, ``randomized``."""
        document = {
            **self.report.to_json(),
            "policy": self.policy.source,
            "measurements": [check.to_json() for check in self.checks],
            "passed": self.passed,
        }
        if self.randomized is not None:
            document["randomized"] = self.randomized.to_json()
        return document


SENTENCES = frozenset({"reason", "notes", "note", "readable", "nothing"})
"""The keys of a measurement's or a guarantee's JSON that hold sentences, not facts: generated from the facts
by each reader (:func:`reason_text`), so that rewording one never changes what a certificate states."""


def facts(document: Any) -> Any:
    """``document`` without its sentences (:data:`SENTENCES`), at every depth: what a certificate states."""
    if isinstance(document, Mapping):
        return {key: facts(value) for key, value in document.items() if key not in SENTENCES}
    if isinstance(document, list):
        return [facts(item) for item in document]
    return document


_SIGN = {("larger", False): "≥", ("smaller", False): "≤", ("smaller", True): "<"}


def reason_text(check: Mapping[str, Any]) -> str:
    """One plain sentence from a requirement's facts (:meth:`Check.to_json` without sentences): why it fails, or
    that it holds.

    For example ``class {zip: 476**, age: 2*} has 2 records; the policy requires k_anonymity ≥ 5``. A level's
    own explanation (``reason`` of the measurement, when given) is added where the facts say nothing more.
    """
    name, exact = check["model"], check["exact"]
    direction = check.get("direction") or {}
    sign = _SIGN.get((str(direction.get("stronger")), bool(direction.get("strict"))), "≤")
    required = f"the policy requires {name} {sign} {check['threshold']}"
    if check.get("passed"):
        return f"{name} is {exact}; {required}"
    bounds = check.get("bounds")
    if isinstance(bounds, Mapping) and bounds.get("exact") is False:
        return (f"{name} is not known exactly, only between {_short(bounds.get('lower'))} and "
                f"{_short(bounds.get('upper'))} (exact bounds in the JSON); {required}")
    witness = check.get("witness")
    witness = witness if isinstance(witness, Mapping) else {}
    qi = witness.get("qi")
    if isinstance(qi, Mapping) and _smallest_class(name):
        return f"class {_class_text(qi)} has {witness.get('size')} records; {required}"
    if isinstance(qi, Mapping) and qi:
        where = f"class {_class_text(qi)} ({witness.get('size')} records)"
        value = "" if witness.get("value") is None else f", value {witness['value']!r}"
        return f"{where}{value} attains {name} = {exact}; {required}"
    why = check.get("reason")
    return f"{name} is {exact}" + (f" ({why})" if isinstance(why, str) and why else "") + f"; {required}"


def _smallest_class(model_id: str) -> bool:
    """Whether ``model_id``'s level is the size of its witness class (:attr:`verifier.registry.Model.smallest_class`);
    a model this install does not know (a certificate's) is not."""
    try:
        return model(model_id).smallest_class
    except UnknownModelError:
        return False


def _short(text: Any) -> str:
    """A bound as its exact form when short, else ``≈`` 12 significant digits."""
    from verifier.exact_grammar import GrammarError, read_exact

    written = str(text)
    if len(written) <= 24:
        return written
    try:
        return f"≈ {approximate(read_exact(written, 'bound'), 12)}"
    except (GrammarError, TypeError, ValueError):
        return written


def _class_text(qi: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k}: {'(missing)' if v is None else v}" for k, v in qi.items()) + "}"


def offending_classes(result: AuditResult, check: Check, limit: int) -> list[str]:
    """The first ``limit`` classes (in the order of their QI values) that break a failed requirement on a model
    whose level is the smallest class (:attr:`verifier.registry.Model.smallest_class`: k-anonymity).

    Other models list their witness (the class that attains the level) in the audit itself.
    """
    if limit <= 0 or check.passed or not model(check.requirement.model).smallest_class or not result.report.tables:
        return []
    classes = next(iter(result.report.tables.values())).classes
    small = np.flatnonzero(classes.sizes < int(check.requirement.threshold))
    small = small[qi_order(classes.keys.iloc[small], classes.qi)][:limit]
    return [f"class {_class_text(classes.describe(int(i)))}: {int(classes.sizes[i])} records" for i in small]


def _randomized_measurement(requirement: Requirement, found: Sequence[Measurement]) -> Measurement:
    """The randomized measurement a requirement is about (model, attribute, distance, k)."""
    for m in found:
        distance = m.distance or m.parameters.get("distance")
        if (m.model == requirement.model and m.attribute == requirement.attribute
                and (requirement.distance is None or distance == requirement.distance)
                and (requirement.k is None or m.parameters.get("k") == requirement.k)):
            return m
    if not found:
        raise PolicyError(Said(f"{requirement.key}: {requirement.model} is a level of a randomized release: "
                               "give the mechanism ([mechanism] in the policy, or ", Input("mechanism", asked=True), ")"))
    if requirement.attribute != found[0].attribute:
        raise PolicyError(f"{requirement.key}: the mechanism randomizes {found[0].attribute!r}, "
                          f"not {requirement.attribute!r}")
    if not any(m.parameters.get("data_independent") for m in found):
        raise PolicyError(f"{requirement.key}: no {requirement.model} level was measured for this requirement")
    # Auditor mode: the theory implies no level of this model (for this k or distance) from ε-LDP.
    return Measurement(requirement.model, requirement.attribute,
                       Level.infinite(f"auditor mode: the implication map gives no {requirement.model} level "
                                      "from the measured ε-LDP"),
                       None, "at_most", distance=requirement.distance if requirement.distance in DISTANCES else None,
                       parameters={"k": requirement.k} if requirement.k is not None else {},
                       lower=trivial_level(requirement.model, requirement.distance))


def decide_bounds(measurement: Measurement, threshold: Any) -> Verdict:
    """Decide ``level ≤ threshold`` for a level known between bounds (or exactly).

    ``pass`` only if the upper bound (the level) meets the threshold, ``fail`` only if the
    lower bound does not; otherwise ``undecided``. Exact (:func:`verifier.certified.at_most`).
    """
    assert measurement.comparison == "at_most"
    bound = threshold if not isinstance(threshold, Fraction) else sympy.Rational(threshold.numerator, threshold.denominator)
    lower = measurement.lower if measurement.lower is not None else measurement.level
    try:
        if measurement.level.value is not None and at_most(measurement.level.value, bound):
            return "pass"
        if lower.value is None or not at_most(lower.value, bound):
            return "fail"
    except ArithmeticError:
        pass
    return "undecided"


def decide(report: MeasureResult, requirement: Requirement, randomized: Sequence[Measurement] = ()) -> Check:
    """Decide one requirement on a report, exactly.

    The measurement is the one of the requirement's model, attribute and parameters
    (:meth:`verifier.measure.MeasureResult.find`); requirements on randomized models are
    decided on ``randomized`` (the levels of the mechanism, measured or implied). A model
    that decides for itself does (:attr:`verifier.registry.Model.decide`: entropy
    l-diversity on integers); a level known only between bounds is decided by
    :func:`decide_bounds`; any other level by :meth:`verifier.results.Level.satisfies`.

    Raises
    ------
    KeyError
        The report holds no measurement for the requirement (the policy and the
        measured attributes disagree).
    RuntimeError
        A model's two decisions disagree (entropy l-diversity; a defect, never expected).
    """
    declared = model(requirement.model)
    if requirement.randomized:
        measurement = _randomized_measurement(requirement, randomized)
    else:
        measurement = report.find(requirement.model, requirement.attribute, **requirement.parameters)
    if measurement.lower is not None or requirement.randomized:
        verdict = decide_bounds(measurement, requirement.threshold)
        return Check(requirement, measurement, verdict == "pass", undecided=verdict == "undecided")
    if declared.decide is not None:
        table = report.tables.get(requirement.attribute) if requirement.attribute is not None else None
        try:
            return Check(requirement, measurement, declared.decide(measurement, requirement.threshold, table))
        except RuntimeError as error:
            raise RuntimeError(f"{requirement.key}: {error}") from error
    return Check(requirement, measurement, measurement.level.satisfies(requirement.threshold, measurement.comparison))


def audit(
    data: pd.DataFrame | str | Path,
    policy: Policy,
    *,
    source: str | None = None,
    progress: bool | ProgressCallback | None = None,
    mechanism: MechanismChoice = MechanismChoice(),
    implications: Implications | None = None,
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
    mechanism
        Overrides of the policy's ``[mechanism]`` table (file, mode, subset sizes), or a
        mechanism for a policy without one: the randomized levels are measured
        (:func:`verifier.randomized.modes.randomized_levels`) and requirements on
        randomized models decided on them.
    implications
        The implication map for auditor mode (:func:`theory.answers.auditor_mode.audit_release`);
        :func:`privcert.api.audit` passes it.
    """
    if source is None and not isinstance(data, pd.DataFrame):
        source = str(data)
    with _risk_key(policy):
        report = measure(data, policy.question, source=source or (str(policy.data) if policy.data else "data"),
                         progress=progress, engine=engine, encoding=encoding)
    return _decided(policy, report, mechanism, implications)


@contextmanager
def _risk_key(policy: Policy) -> Iterator[None]:
    """A sampling frame that cannot hold the release, named by the policy's file and ``[risk]`` key."""
    try:
        yield
    except SamplingFrameError as error:
        raise SamplingFrameError(f"{policy.source}: risk.{error.key}: {error}", error.key) from None


def audit_tables(classes: Classes, tables: Sequence[CountTable], policy: Policy, *, source: str = "count tables",
                 mechanism: MechanismChoice = MechanismChoice(),
                 implications: Implications | None = None) -> AuditResult:
    """:func:`audit` on count tables already built (one per attribute of ``policy``, in its order).

    A certificate that carries its count tables is re-checked this way without the release.
    """
    with _risk_key(policy):
        report = measure_tables(classes, tables, policy.question, source=source)
    return _decided(policy, report, mechanism, implications)


def _decided(policy: Policy, report: MeasureResult, mechanism: MechanismChoice,
             implications: Implications | None) -> AuditResult:
    """Every requirement of ``policy`` decided on ``report`` and the randomized levels measured from it."""
    settings = mechanism_settings(policy, mechanism)
    levels = None if settings is None else randomized_levels(report.tables, settings, policy=policy,
                                                              implications=implications, given=mechanism.given)
    found = () if levels is None else levels.decidable
    return AuditResult(policy, report, tuple(decide(report, r, found) for r in policy.requirements), levels)
