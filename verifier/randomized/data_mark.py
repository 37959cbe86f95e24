"""What a mechanism's matrix was computed from, as its file declares it: the data mark.

A mechanism file is published, and a certificate carries it by content. A matrix computed from the
original's records can disclose them through the file itself, whatever its ε-LDP level: Fig. 5 of
Ekenstedt et al. 2022 (and Fig. 5 then Fig. 4) writes the original's value frequencies into its entries,
so two releases before and after one record is added reveal that record's value. A mechanism CSV may
therefore begin with lines that say what its matrix depends on:

.. code-block:: text

    # data: estimate
    # estimate_epsilon: ln(4)
    value,asthma,cold,...

``data`` is one of :data:`DATA_KINDS`; ``estimate_epsilon`` (with ``data: estimate`` only, and required
there) is the ε of the differentially private estimate of the original's histogram the matrix was
computed from, in the exact grammar of :mod:`verifier.literal`. A noise mechanism's TOML file gives the same
fields as its keys (``data = "independent"``, :func:`verifier.randomized.noise.parse_noise_spec`), read by
:func:`mark_of` as the CSV's lines are. A file without them states
nothing (every mechanism file written before the mark existed): the mark is ``None``, read "not stated".
The mark is the publisher's declaration: nothing in the release can check it.

References
----------
Ekenstedt et al. 2022, Sec. V.C (Figs. 4-5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, cast, get_args

import sympy

from verifier.display import exact_text
from verifier.errors import MechanismError
from verifier.literal import Domain, LiteralError, parse_exact

__all__ = ["DataKind", "DATA_KINDS", "DataMark", "NOT_STATED", "MARK_KEYS", "read_mark", "mark_of", "mark_sentence"]

DataKind = Literal["independent", "histogram", "counts", "estimate"]
"""What a matrix is computed from besides the number of values, the number of records and the targets: nothing,
the original's value frequencies written into it, the original's counts through an optimization, or a
differentially private estimate of the original's histogram."""
DATA_KINDS: tuple[str, ...] = get_args(DataKind)

_SENTENCES: dict[DataKind, str] = {
    "independent": "data-independent: computed without the original's records",
    "histogram": "publishes the original's histogram: the matrix holds its value frequencies",
    "counts": "computed from the original's value counts: the matrix may disclose them",
    "estimate": "computed from a differentially private estimate of the original's histogram",
}
NOT_STATED = "not stated (the mechanism file carries no data mark)"
"""How a mechanism without a mark reads (a file written by hand, or before the mark existed)."""
MARK_KEYS = ("data", "estimate_epsilon")
"""The data mark's fields, in the order a file gives them."""
_EPSILON = Domain(lower=Fraction(0))


@dataclass(frozen=True)
class DataMark:
    """A mechanism file's data mark.

    Attributes
    ----------
    kind
        What the matrix was computed from (:data:`DATA_KINDS`).
    estimate_epsilon
        For ``estimate``: the estimate's ε (exact, finite, ``> 0``); ``None`` otherwise.

    Raises
    ------
    MechanismError
        An unknown kind, or an ``estimate_epsilon`` missing for ``estimate``, given for another kind, or not a
        finite number ``> 0``.
    """

    kind: DataKind
    estimate_epsilon: sympy.Expr | None = None

    def __post_init__(self) -> None:
        if self.kind not in DATA_KINDS:
            raise MechanismError(f"data mark: expected one of {list(DATA_KINDS)}, found {self.kind!r}")
        if (self.kind == "estimate") != (self.estimate_epsilon is not None):
            raise MechanismError("data mark: expected estimate_epsilon with data: estimate and only then, found "
                                 f"data: {self.kind} and estimate_epsilon {self.estimate_epsilon}")
        if self.estimate_epsilon is not None and not (self.estimate_epsilon.is_finite
                                                      and bool(self.estimate_epsilon > 0)):
            raise MechanismError(f"data mark: expected a finite estimate_epsilon > 0, found {self.estimate_epsilon}")

    @property
    def data_dependent(self) -> bool:
        """Whether the matrix depends on the original's records (every kind but ``independent``)."""
        return self.kind != "independent"

    def sentence(self, mechanism_epsilon: sympy.Expr | None = None) -> str:
        """What the matrix was computed from, in words; for an estimate, with the composed ε at the mechanism's
        measured ε-LDP level ``mechanism_epsilon`` when it is given (the claim ``privcert:estimate_composition``)."""
        if self.estimate_epsilon is None:
            return _SENTENCES[self.kind]
        spent = exact_text(self.estimate_epsilon)
        if mechanism_epsilon is None:
            return (f"{_SENTENCES[self.kind]} (ε = {spent}): the release with its mechanism is (ε + {spent})-"
                    "differentially private for each of the original's records, ε the mechanism's ε-LDP level "
                    "(sequential composition)")
        composed = sympy.logcombine(mechanism_epsilon + self.estimate_epsilon, force=True)
        return (f"{_SENTENCES[self.kind]} (ε = {spent}): with this mechanism's ε-LDP {exact_text(mechanism_epsilon)}, "
                f"each of the original's records loses at most {exact_text(composed)} through the release and its "
                "mechanism together (sequential composition)")

    def fields(self) -> dict[str, str]:
        """The mark's fields as a file gives them (:data:`MARK_KEYS`: ``data``, and ``estimate_epsilon`` for an
        estimate)."""
        return {"data": self.kind} | ({} if self.estimate_epsilon is None else
                                      {"estimate_epsilon": exact_text(self.estimate_epsilon)})

    def lines(self) -> tuple[str, ...]:
        """The mark as a mechanism CSV's leading lines (without line ends)."""
        return tuple(f"# {key}: {value}" for key, value in self.fields().items())

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "estimate_epsilon": None if self.estimate_epsilon is None
                else exact_text(self.estimate_epsilon), "sentence": self.sentence()}


def mark_sentence(mark: DataMark | None, mechanism_epsilon: sympy.Expr | None = None) -> str:
    """What a mechanism's matrix was computed from (:meth:`DataMark.sentence`), or :data:`NOT_STATED`."""
    return NOT_STATED if mark is None else mark.sentence(mechanism_epsilon)


def read_mark(rows: Sequence[Sequence[str]], source: str) -> tuple[DataMark | None, int]:
    """The data mark of a mechanism CSV's rows and how many leading rows it takes (``(None, 0)``: none).

    A mark line is a row of one cell ``# key: value`` before the header; each key once.

    Raises
    ------
    MechanismError
        A ``#`` line of another form, an unknown or repeated key, or a mark :class:`DataMark` refuses; the
        message names ``source`` and the line.
    """
    found: dict[str, str] = {}
    taken = 0
    for line, row in enumerate(rows, start=1):
        if not row or not row[0].startswith("#"):
            break
        key, colon, value = row[0][1:].partition(":")
        key = key.strip()
        if len(row) != 1 or not colon or key not in MARK_KEYS:
            raise MechanismError(f"{source}, line {line}: expected a data mark '# data: <kind>' or "
                                 f"'# estimate_epsilon: <ε>', found {','.join(row)!r}")
        if key in found:
            raise MechanismError(f"{source}, line {line}: the data mark's {key} is given twice")
        found[key] = value.strip()
        taken = line
    return mark_of(found, source), taken


def mark_of(found: Mapping[str, str], source: str) -> DataMark | None:
    """The data mark of its fields as a file gives them (``data``, ``estimate_epsilon``; ``None`` when there are
    none): a mechanism CSV's leading ``#`` lines (:func:`read_mark`), a noise mechanism TOML's keys
    (:func:`verifier.randomized.noise.parse_noise_spec`).

    Raises
    ------
    MechanismError
        An ``estimate_epsilon`` without ``data``, an unknown kind, or a mark :class:`DataMark` refuses; the
        message names ``source``.
    """
    if not found:
        return None
    if "data" not in found:
        raise MechanismError(f"{source}: the data mark has estimate_epsilon but no '# data: <kind>' line")
    epsilon = None
    if "estimate_epsilon" in found:
        try:
            epsilon = parse_exact(found["estimate_epsilon"], f"{source}: estimate_epsilon", _EPSILON)
        except LiteralError as error:
            raise MechanismError(str(error)) from None
    if found["data"] not in DATA_KINDS:
        raise MechanismError(f"{source}: data mark: expected one of {list(DATA_KINDS)}, found {found['data']!r}")
    try:
        return DataMark(cast(DataKind, found["data"]), epsilon)
    except MechanismError as error:
        raise MechanismError(f"{source}: {error}") from None
