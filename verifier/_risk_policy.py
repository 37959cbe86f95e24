"""The policy's ``[risk]`` table: what the population models measure the release against.

Keys (all optional, docs/policy.md): ``sampling_fraction`` (exact, in (0, 1]) or
``population`` (an integer ≥ 1, not both), ``population_table`` (a file of the
quasi-identifiers with a ``count`` column, relative to the policy, read in the release's
encoding) and ``weights`` (the
release's column of sampling weights). Requirements on models that need one of them are
checked against it, each error naming the requirement's key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verifier._policy_reader import Reader
from verifier.errors import DataError, InputFileNotFoundError
from verifier.inputs import PopulationTable
from verifier.registry import Model
from verifier.risk.population_table import load_population_table

__all__ = ["RiskInputs", "parse_risk_section", "check_risk_requirement", "RISK_KEYS"]

RISK_KEYS = ("sampling_fraction", "population", "population_table", "weights")


@dataclass(frozen=True)
class RiskInputs:
    """The ``[risk]`` table, parsed (every field ``None`` when not given)."""

    sampling_fraction: Fraction | None = None
    population: int | None = None
    population_table: PopulationTable | None = None
    weights: str | None = None
    population_table_named: bool = False

    @property
    def inputs(self) -> dict[str, Any]:
        """The named inputs of a measurement run (:attr:`verifier.registry.MeasureOptions.inputs`)."""
        found = {"sampling_fraction": self.sampling_fraction, "population": self.population,
                 "population_table": self.population_table, "weights": self.weights}
        return {name: value for name, value in found.items() if value is not None}

    @property
    def frame(self) -> bool:
        """Whether a sampling fraction or a population size is given."""
        return self.sampling_fraction is not None or self.population is not None


def parse_risk_section(read: Reader, section: Any, qi: tuple[str, ...], read_files: bool = True,
                       encoding: str = "utf-8") -> RiskInputs:
    """Read ``[risk]`` (absent: no inputs); the population table is read in the release's ``encoding``
    (``read_files=False``: named, not read)."""
    if section is None:
        return RiskInputs()
    body = read.table(section, "risk")
    read.keys(body, "risk", allowed=RISK_KEYS)
    if "sampling_fraction" in body and "population" in body:
        read.fail("risk", "sampling_fraction or population, not both", "both")
    fraction = (read.fraction(body["sampling_fraction"], "risk.sampling_fraction", Fraction(0), Fraction(1),
                              lower_open=True) if "sampling_fraction" in body else None)
    population = read.integer(body["population"], "risk.population", minimum=1) if "population" in body else None
    table = None
    if "population_table" in body and not read_files:
        read.string(body["population_table"], "risk.population_table")
    elif "population_table" in body:
        path = read.file(body["population_table"], "risk.population_table")
        try:
            table = load_population_table(path, qi, encoding=encoding)
        except (DataError, InputFileNotFoundError) as error:
            raise type(error)(f"{read.source}: risk.population_table: {error}") from error
    weights = read.string(body["weights"], "risk.weights") if "weights" in body else None
    if weights is not None and weights in qi:
        read.fail("risk.weights", "a column that is not a quasi-identifier", repr(weights))
    return RiskInputs(fraction, population, table, weights, population_table_named="population_table" in body)


def check_risk_requirement(read: Reader, risk: RiskInputs, model: Model, parameters: Mapping[str, Any],
                           key: str) -> None:
    """A requirement on a risk model must have what its model measures against (:attr:`Model.needs_one_of`,
    :attr:`Model.needs`)."""
    given = {name for name, value in (*risk.inputs.items(), *parameters.items()) if value is not None}
    if model.needs_one_of and not model.needs_one_of & given:
        here = [name for name in sorted(model.needs_one_of) if model.parameter(name) is not None]
        read.fail(key, f"[risk] {' or '.join(sorted(model.needs_one_of))}" + "".join(f", or {key}.{name}" for name in here)
                  + f" for {model.id}", "none of them")
    if "population_table" in model.needs and not risk.population_table_named:
        read.fail(key, f"[risk] population_table for {model.id}", "none")
