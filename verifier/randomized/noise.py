"""Additive Laplace and Gaussian noise on a numerical attribute, released as declared buckets.

Each record's true value ``v`` becomes ``v + X`` with ``X`` Laplace(0, b) (density
``e^{-|x|/b} / 2b``; Dwork et al. 2006) or Gaussian N(0, σ²); the release holds the bucket
where the noisy value falls. With declared boundaries ``e_1 < ... < e_m`` the buckets are
``(-inf, e_1)``, ``[e_1, e_2)``, ..., ``[e_m, inf)`` (continuous noise never lands on a
boundary, so the ends' openness does not matter), and

.. math:: M[v, B] = F(\\mathrm{hi}_B - v) - F(\\mathrm{lo}_B - v)

with ``F`` the noise's distribution function: Laplace ``F(x) = e^{x/b}/2`` for ``x < 0``,
``1 - e^{-x/b}/2`` otherwise; Gaussian ``F(x) = Φ(x/σ) = (1 + erf(x/(σ√2)))/2``. These are
transcendental, so the matrix is an :class:`~verifier.randomized.mechanism.IntervalMechanism`: every
entry is computed with mpmath's outward-rounded interval arithmetic at ``WORKING_BITS`` bits
and rounded outward to the grid ``2^-GRID_BITS``, so every level measured on it is an
interval that contains the true level. ``erf`` is summed from the positive series

.. math:: \\mathrm{erf}(x) = \\frac{2}{\\sqrt{\\pi}} e^{-x^2} \\sum_{n \\ge 0} \\frac{2^n x^{2n+1}}{1 \\cdot 3 \\cdots (2n+1)}

(Abramowitz & Stegun 1964, 7.1.6), whose tail after a term ``t`` with ratio ``≤ 1/2`` is at
most ``2t``; beyond ``x² ≥ 280`` only ``0 ≤ erfc(x) ≤ e^{-x²} < 2^{-400}`` is used. The
parameters (b, σ, boundaries, values) stay exact rationals.

A noise mechanism is published as a small TOML file (:meth:`NoiseSpec.to_toml`), which
``privcert measure --mechanism`` reads like a matrix CSV.
"""

from __future__ import annotations

import tomllib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Literal

from mpmath import iv
from mpmath.libmp import to_rational

from verifier.errors import InputFileNotFoundError, MechanismError
from verifier.literal import Domain, LiteralError, parse_exact
from verifier.randomized.data_mark import MARK_KEYS, DataMark, mark_of
from verifier.randomized.mechanism import IntervalMechanism

__all__ = ["Noise", "NoiseSpec", "GRID_BITS", "WORKING_BITS", "noise_mechanism", "bucket_labels",
           "load_noise_spec", "parse_noise_spec", "parse_rational"]

Noise = Literal["laplace", "gaussian"]
NOISES: tuple[str, ...] = ("laplace", "gaussian")

GRID_BITS = 384
"""Entries are rounded outward to multiples of ``2^-GRID_BITS``."""

WORKING_BITS = 448
"""Precision of the interval arithmetic (absolute error far below the grid)."""

_ERFC_CUT = 280
"""For ``x² ≥ 280``, ``erfc(x) ≤ e^{-x²} < 2^-400``: the series is not needed."""


def parse_rational(text: object, name: str, positive: bool = False) -> Fraction:
    """A rational parameter written by the user (``2``, ``0.5``, ``1/3``), never a float.

    Raises
    ------
    MechanismError
        Not a rational number (naming ``name``), or not positive when required.
    """
    try:
        value = parse_exact(text, name, Domain(lower=Fraction(0), lower_open=True) if positive else None)
    except LiteralError as error:
        raise MechanismError(str(error)) from None
    if not value.is_Rational:
        raise MechanismError(f"{name}: expected a rational number (decimal or p/q), found {text!r}")
    return Fraction(int(value.p), int(value.q))


def _text(value: Fraction) -> str:
    """``3``, ``2.5`` or ``1/3``: a terminating decimal when there is one."""
    if value.denominator == 1:
        return str(value.numerator)
    scaled, digits = value, 0
    while scaled.denominator != 1 and digits < 30:
        scaled, digits = scaled * 10, digits + 1
    if scaled.denominator != 1:
        return str(value)
    sign, magnitude = ("-" if scaled < 0 else ""), str(abs(scaled.numerator)).rjust(digits + 1, "0")
    return f"{sign}{magnitude[:-digits]}.{magnitude[-digits:]}"


def bucket_labels(boundaries: Sequence[Fraction]) -> tuple[str, ...]:
    """``(-inf, e1)``, ``[e1, e2)``, ..., ``[em, inf)``."""
    ends = ["-inf", *map(_text, boundaries), "inf"]
    return tuple(f"{'(' if i == 0 else '['}{ends[i]}, {ends[i + 1]})" for i in range(len(ends) - 1))


def _iv(value: Fraction) -> iv.mpf:
    return iv.mpf(value.numerator) / iv.mpf(value.denominator)


_TINY = Fraction(1, 2 ** (4 * WORKING_BITS))
"""Endpoints smaller in magnitude are widened to 0 or ±_TINY: the enclosure stays true, and no
Fraction with a denominator of 2^(10^30) is built (``exp(-x/b)`` for ``x/b = 10^30``)."""


def _bounds(interval: iv.mpf) -> tuple[Fraction, Fraction]:
    (low_sign, low_man, low_exp, low_bits), (high_sign, high_man, high_exp, high_bits) = interval._mpi_
    tiny_low = low_man != 0 and low_exp + low_bits < -4 * WORKING_BITS
    tiny_high = high_man != 0 and high_exp + high_bits < -4 * WORKING_BITS
    low = (-_TINY if low_sign else Fraction(0)) if tiny_low else Fraction(*to_rational(interval._mpi_[0]))
    high = (Fraction(0) if high_sign else _TINY) if tiny_high else Fraction(*to_rational(interval._mpi_[1]))
    return low, high


def _laplace_cdf(x: Fraction, scale: Fraction) -> iv.mpf:
    if x < 0:
        return iv.exp(_iv(x / scale)) / 2
    return 1 - iv.exp(_iv(-x / scale)) / 2


def _erf(square: Fraction) -> iv.mpf:
    """``erf(x)`` for ``x = √square ≥ 0`` (``square = x²`` exact), as an enclosing interval."""
    if square >= _ERFC_CUT:
        tail = iv.exp(-_iv(square))
        return 1 - iv.mpf([0, tail.b])
    root = iv.sqrt(_iv(square))
    term, total, n = root, root, 0
    cutoff = iv.mpf(2) ** (-WORKING_BITS)
    while True:
        ratio = 2 * square / (2 * n + 3)
        term = term * _iv(ratio)
        n += 1
        total = total + term
        if ratio <= Fraction(1, 2) and term.b < cutoff.a:
            break
    total = total + iv.mpf([0, (2 * term).b])
    return 2 / iv.sqrt(iv.pi) * iv.exp(-_iv(square)) * total


def _gaussian_cdf(x: Fraction, sigma: Fraction) -> iv.mpf:
    half_square = (x / sigma) ** 2 / 2  # (x / (σ√2))²
    value = _erf(half_square)
    return (1 + value) / 2 if x >= 0 else (1 - value) / 2


def _outward(interval: iv.mpf) -> tuple[Fraction, Fraction]:
    """Round an interval outward to the grid ``2^-GRID_BITS``, clipped to [0, 1]."""
    low, high = _bounds(interval)
    grid = 1 << GRID_BITS
    floor = (low.numerator * grid) // low.denominator
    ceiling = -((-high.numerator * grid) // high.denominator)
    return max(Fraction(floor, grid), Fraction(0)), min(Fraction(ceiling, grid), Fraction(1))


def noise_mechanism(
    noise: Noise, scale: Fraction, boundaries: Sequence[Fraction], values: Sequence[Fraction],
    labels: Sequence[Hashable] | None = None,
) -> IntervalMechanism:
    """The bucket matrix of additive noise: ``M[v, B] = Pr(v + X ∈ B)``, entries as exact bounds.

    Parameters
    ----------
    noise
        ``laplace`` (``scale`` = b) or ``gaussian`` (``scale`` = σ).
    scale
        The noise's scale, a positive rational.
    boundaries
        Strictly increasing rational bucket boundaries (at least one).
    values
        The true values (rows), distinct rationals.
    labels
        Row labels (default: ``values``).

    Examples
    --------
    >>> m = noise_mechanism("laplace", Fraction(1), [Fraction(0)], [Fraction(0)])
    >>> m.buckets, m.low[0][0] <= Fraction(1, 2) <= m.high[0][0], m.exact
    (('(-inf, 0)', '[0, inf)'), True, False)
    """
    if noise not in NOISES:
        raise MechanismError(f"noise: expected one of {', '.join(NOISES)}, found {noise!r}")
    if scale <= 0:
        raise MechanismError(f"{noise} noise: expected a positive scale, found {scale}")
    if not boundaries or any(b >= c for b, c in zip(boundaries, boundaries[1:])):
        raise MechanismError(f"{noise} noise: expected strictly increasing bucket boundaries, found {list(map(str, boundaries))}")
    cdf = _laplace_cdf if noise == "laplace" else _gaussian_cdf
    low_rows, high_rows = [], []
    previous = iv.prec
    iv.prec = WORKING_BITS
    try:
        for value in values:
            cuts = [iv.mpf(0), *(cdf(edge - value, scale) for edge in boundaries), iv.mpf(1)]
            row = [_outward(cuts[i + 1] - cuts[i]) for i in range(len(cuts) - 1)]
            low_rows.append(tuple(low for low, _ in row))
            high_rows.append(tuple(high for _, high in row))
    finally:
        iv.prec = previous
    name = f"{noise} noise ({'b' if noise == 'laplace' else 'σ'} = {_text(scale)}), not exact: entries within 2^-{GRID_BITS}"
    return IntervalMechanism(tuple(labels if labels is not None else values), bucket_labels(boundaries),
                             tuple(low_rows), tuple(high_rows), name)


@dataclass(frozen=True)
class NoiseSpec:
    """A published noise mechanism: what an auditor needs to rebuild its matrix.

    Attributes
    ----------
    noise
        ``laplace`` or ``gaussian``.
    scale
        b (Laplace) or σ (Gaussian), exact.
    boundaries
        The bucket boundaries, exact and strictly increasing.
    values
        The domain of true values (the matrix's rows), exact.
    data
        What the file says the matrix was computed from (:mod:`verifier.randomized.data_mark`; ``None``: not
        stated, a file without the ``data`` key).
    """

    noise: Noise
    scale: Fraction
    boundaries: tuple[Fraction, ...]
    values: tuple[Fraction, ...]
    data: DataMark | None = None

    def mechanism(self) -> IntervalMechanism:
        """The interval matrix of this mechanism (:func:`noise_mechanism`)."""
        return noise_mechanism(self.noise, self.scale, self.boundaries, self.values)

    def to_toml(self) -> str:
        """The spec as TOML, every number as exact text."""
        def strings(items: Sequence[Fraction]) -> str:
            return "[" + ", ".join(f'"{_text(item)}"' for item in items) + "]"

        mark = "" if self.data is None else "".join(
            f'{key} = "{value}"\n' for key, value in self.data.fields().items())
        return (f'{mark}noise = "{self.noise}"\nscale = "{_text(self.scale)}"\n'
                f"boundaries = {strings(self.boundaries)}\nvalues = {strings(self.values)}\n")


def load_noise_spec(path: str | Path) -> NoiseSpec:
    """Read a noise mechanism TOML file: ``noise``, ``scale``, ``boundaries``, ``values``, and the optional data
    mark's ``data`` and ``estimate_epsilon`` (:func:`verifier.randomized.data_mark.mark_of`).

    Raises
    ------
    InputFileNotFoundError
        The file does not exist.
    MechanismError
        A missing or unknown key, a number that is not an exact rational, boundaries not
        increasing or values repeated; the message names the file and the key.
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileNotFoundError(f"{path}: mechanism file not found")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise MechanismError(f"{path}: cannot read the noise mechanism: {error}") from error
    return parse_noise_spec(text, source=str(path))


def parse_noise_spec(text: str, *, source: str = "<noise mechanism>") -> NoiseSpec:
    """A noise mechanism from its TOML text (:func:`load_noise_spec`; errors name ``source``)."""
    path = source
    try:
        document = tomllib.loads(text, parse_float=str)
    except tomllib.TOMLDecodeError as error:
        raise MechanismError(f"{path}: cannot read the noise mechanism as TOML: {error}") from error
    except RecursionError:
        raise MechanismError(f"{path}: arrays or tables nested too deeply to read as a noise mechanism") from None
    keys = ("noise", "scale", "boundaries", "values")
    unknown = sorted(set(document) - set(keys) - set(MARK_KEYS))
    missing = [key for key in keys if key not in document]
    if unknown or missing:
        raise MechanismError(f"{path}: expected the keys {', '.join(keys)} (and the data mark's "
                             f"{', '.join(MARK_KEYS)}, optional); "
                             f"missing {missing or 'none'}, unknown {unknown or 'none'}")
    if document["noise"] not in NOISES:
        raise MechanismError(f"{path}: noise: expected one of {', '.join(NOISES)}, found {document['noise']!r}")

    def numbers(key: str) -> tuple[Fraction, ...]:
        items = document[key]
        if not isinstance(items, list) or not items:
            raise MechanismError(f"{path}: {key}: expected a non-empty array of numbers, found {items!r}")
        return tuple(parse_rational(item, f"{path}: {key}[{i}]") for i, item in enumerate(items, start=1))

    values = numbers("values")
    if len(set(values)) != len(values):
        raise MechanismError(f"{path}: values: expected distinct true values, found a repeated one")
    mark = {key: document[key] for key in MARK_KEYS if key in document}
    if any(not isinstance(value, str) for value in mark.values()):
        raise MechanismError(f"{path}: the data mark's keys {', '.join(mark)}: expected strings "
                             "(data = \"independent\", estimate_epsilon = \"ln(4)\")")
    spec = NoiseSpec(document["noise"], parse_rational(document["scale"], f"{path}: scale", positive=True),
                     numbers("boundaries"), values, mark_of(mark, path))
    if any(b >= c for b, c in zip(spec.boundaries, spec.boundaries[1:])):
        raise MechanismError(f"{path}: boundaries: expected strictly increasing numbers")
    return spec
