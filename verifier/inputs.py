"""The inputs some models need besides the count tables, typed and checked when they are given.

:class:`Inputs` is what :attr:`verifier.registry.MeasureOptions.inputs` holds: the sampling
frame (a sampling fraction or a population size; Dankar et al. 2012), a population table
(k-map, δ-presence; :class:`PopulationTable`), a column of sampling weights (individual risk;
Franconi & Polettini 2004) and their sums per class (:class:`ClassWeights`), the mechanism a
randomized release was made with and what its levels are measured at, and SUDA's largest
minimal sample unique. Each is validated on construction, so a
measure reads a value of the declared type; an unknown name is refused with the valid
ones (a misspelt ``sampling_fractoin`` would otherwise be ignored). It reads as a mapping of
the inputs given (``"mechanism" in inputs``, ``inputs.get("population")``), which is what
:attr:`verifier.registry.Model.needs` is checked against. The types of the inputs live here,
not beside the measures that read them, so that the registry (which imports this module)
stays below every measure.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from verifier.errors import PolicyError

if TYPE_CHECKING:
    import pandas as pd

    from verifier.privacy.t_closeness import Distance
    from verifier.randomized.mechanism import AnyMechanism
    from verifier.tables.hierarchy import Hierarchy

__all__ = ["COUNT_COLUMN", "PopulationTable", "ClassWeights", "Inputs", "inputs_of"]

COUNT_COLUMN = "count"
"""The population table's column of counts."""


@dataclass(frozen=True)
class PopulationTable:
    """A population table as read: one row per quasi-identifier combination, with its count.

    Attributes
    ----------
    frame
        The quasi-identifier columns (text, missing as NaN) and ``count`` (int).
    source
        The file it came from.
    sha256
        The SHA-256 of the file's bytes (a measurement names the table it used).
    """

    frame: pd.DataFrame
    source: str
    sha256: str

    @property
    def total(self) -> int:
        """The population size: the sum of the counts."""
        return sum(int(count) for count in self.frame[COUNT_COLUMN].tolist())


@dataclass(frozen=True)
class ClassWeights:
    """The sum of the sampling weights of each class (``F̂_k``, exact), and where the weights came from.

    Attributes
    ----------
    sums
        One exact sum (``int`` or ``Fraction``) per class, aligned with the classes.
    source
        ``column NAME`` or ``uniform N/n``.
    """

    sums: tuple[Fraction, ...]
    source: str


def _positive_integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


@dataclass(frozen=True, eq=False)
class Inputs(Mapping[str, Any]):
    """The inputs of a measurement run besides the count tables (every field ``None`` or empty when not given).

    Attributes
    ----------
    sampling_fraction
        The share of the population in the release, exact, in (0, 1].
    population
        The population size (an integer ≥ 1), instead of ``sampling_fraction``.
    population_table
        The population's count of each quasi-identifier combination
        (:func:`verifier.risk.population_table.load_population_table`).
    weights
        The name of the release's column of sampling weights.
    class_weights
        The weights summed per class (filled in by the measurement from ``weights``).
    mechanism
        The mechanism of a randomized release (:data:`verifier.randomized.mechanism.AnyMechanism`).
    subset_sizes
        The subset sizes k of (k,t)-closeness and (k,ε)-DP (integers ≥ 1).
    stochastic_distances
        The EMD ground distances of stochastic t-closeness besides the multiplicative one,
        each with its hierarchy or ``None``.
    suda_max_size
        SUDA's largest minimal sample unique (an integer ≥ 1; ``None``: all quasi-identifiers).

    Raises
    ------
    PolicyError
        A value of the wrong type or outside its domain, or both a sampling fraction and a
        population size: the name, what was expected, what was found.
    """

    sampling_fraction: Fraction | None = None
    population: int | None = None
    population_table: PopulationTable | None = None
    weights: str | None = None
    class_weights: ClassWeights | None = None
    mechanism: AnyMechanism | None = None
    subset_sizes: tuple[int, ...] = ()
    stochastic_distances: tuple[tuple[Distance, Hierarchy | None], ...] = ()
    suda_max_size: int | None = None

    def __post_init__(self) -> None:
        fraction = self.sampling_fraction
        if fraction is not None:
            if isinstance(fraction, int) and not isinstance(fraction, bool):
                fraction = Fraction(fraction)
                object.__setattr__(self, "sampling_fraction", fraction)
            if not isinstance(fraction, Fraction) or not 0 < fraction <= 1:
                self._fail("sampling_fraction", "an exact number (int or Fraction) in (0, 1]", fraction)
        if self.population is not None and not _positive_integer(self.population):
            self._fail("population", "an integer ≥ 1", self.population)
        if fraction is not None and self.population is not None:
            raise PolicyError("inputs: expected sampling_fraction or population, found both")
        if self.weights is not None and not isinstance(self.weights, str):
            self._fail("weights", "the name of a column", self.weights)
        if self.suda_max_size is not None and not _positive_integer(self.suda_max_size):
            self._fail("suda_max_size", "an integer ≥ 1", self.suda_max_size)
        object.__setattr__(self, "subset_sizes", tuple(self.subset_sizes))
        if not all(_positive_integer(k) for k in self.subset_sizes):
            self._fail("subset_sizes", "integers ≥ 1", self.subset_sizes)
        object.__setattr__(self, "stochastic_distances", tuple(self.stochastic_distances))
        self._check_types()

    def _check_types(self) -> None:
        if self.population_table is not None and not isinstance(self.population_table, PopulationTable):
            self._fail("population_table", "a PopulationTable (load_population_table)", self.population_table)
        if self.class_weights is not None and not isinstance(self.class_weights, ClassWeights):
            self._fail("class_weights", "a ClassWeights", self.class_weights)
        if self.mechanism is not None:
            from verifier.randomized.mechanism import IntervalMechanism, Mechanism

            if not isinstance(self.mechanism, (Mechanism, IntervalMechanism)):
                self._fail("mechanism", "a Mechanism (verifier.randomized.mechanism)", self.mechanism)

    @staticmethod
    def _fail(name: str, expected: str, found: object) -> None:
        raise PolicyError(f"inputs.{name}: expected {expected}, found {found!r}")

    def _given(self) -> dict[str, Any]:
        return {item.name: getattr(self, item.name) for item in fields(self)
                if getattr(self, item.name) not in (None, ())}

    def __getitem__(self, name: str) -> Any:
        given = self._given()
        if name not in given:
            raise KeyError(name)
        return given[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._given())

    def __len__(self) -> int:
        return len(self._given())

    def describe(self) -> dict[str, str]:
        """The inputs given, for the trace of a run: ``{"sampling_fraction": "1/10", "weights": "column w"}``."""
        found = {}
        for name, value in self._given().items():
            if name == "population_table":
                found[name] = str(getattr(value, "source", "given"))
            elif name in ("mechanism", "class_weights", "stochastic_distances"):
                continue
            else:
                found[name] = ", ".join(map(str, value)) if isinstance(value, tuple) else str(value)
        return found

    def with_(self, **changes: Any) -> Inputs:
        """These inputs with some replaced (validated again)."""
        return inputs_of({**self._given(), **changes})


def inputs_of(given: Mapping[str, Any] | None) -> Inputs:
    """``given`` as :class:`Inputs` (an :class:`Inputs` as it is).

    Raises
    ------
    PolicyError
        A name that is no input, with the valid names, or a value :class:`Inputs` refuses.
    """
    if given is None:
        return Inputs()
    if isinstance(given, Inputs):
        return given
    names = [item.name for item in fields(Inputs)]
    unknown = [name for name in given if name not in names]
    if unknown:
        raise PolicyError(f"inputs: unknown name {unknown[0]!r}; expected one of: {', '.join(names)}")
    return Inputs(**{name: value for name, value in given.items() if value is not None})
