"""Population uniqueness: how many people of the population are unique, estimated from a sample.

Each estimator works on the sample's class-size histogram (``c_i`` classes of size
``i``, ``u`` classes, ``n`` records) and the sampling frame (population size ``N``,
sampling fraction ``π = n/N``), in O(#distinct class sizes) per evaluation:

* **Zayatz** (1991): the share of sample uniques that are population uniques, with
  the population's class-size distribution taken as the sample's, under sampling
  without replacement (hypergeometric); a closed form.
* **Pitman** (1996), fitted by maximum likelihood as Hoshino (2001) does, over the whole
  parameter space of the sampling formula (:mod:`verifier.risk.pitman`: the
  infinite-class branch ``0 ≤ α < 1``, ``θ > -α``, with its boundary ``α = 0``, and the
  finite-class branch ``α < 0``, ``θ = m|α|``); the expected number of population
  uniques is ``Γ(θ+1)/Γ(θ+α) · N^α`` on both branches, as in ARX.
* **SNB**, the shifted negative binomial of Chen & Keller-McNulty (1998): population
  class sizes ``F`` with ``F - 1 ~ NegBin(α, β)``, so ``K·β^α`` population uniques
  among ``K`` non-empty classes. ``K``, ``α`` and ``β`` are fitted by matching the
  expected numbers of sample classes, of size-1 classes and of size-2 classes under
  Bernoulli sampling with probability π to ``u``, ``c_1`` and ``c_2`` (from the
  model's generating function ``G(s) = (β / (1 - (1-β)s))^α``).
* **Dankar** et al. (2012): the decision rule: Pitman when π ≤ 1/10 (Zayatz if Pitman
  has no estimate), else the smaller of Zayatz and SNB (Zayatz if SNB has none).

Every estimate is computed in float64 and reported with a tolerance relative to the share
(:func:`tolerance`: between 10^-9 and 10^-8 of it, :data:`TOLERANCE` for shares from 1/10 up): a share of 1.5·10^-6
is bounded within 10^-14, not 10^-9; the closed forms' relative rounding errors are below 10^-12,
SNB's solver stops when its equations hold to 10^-13, and Pitman's fit is ``converged``
only when its score equations hold to 10^-10 of their terms, checked after the fit. Where an estimator has
no estimate (the likelihood has no maximum inside its domain, the moment equations
have no solution) the result says why instead of a number.

References
----------
Zayatz 1991; Pitman 1996; Hoshino 2001, Sec. 3 (maximum likelihood for the Pitman
model, the number of population uniques); Chen & Keller-McNulty 1998 (SNB);
Dankar, El Emam, Neisa & Roffey 2012, Sec. 3 (the decision rule).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Literal

import numpy as np

from verifier.results import Estimate, Level, Measurement, Witness
from verifier.risk.estimated import decimal_exponent, estimated
from verifier.risk.histogram import Sampling, SizeHistogram
from verifier.risk.pitman import fit_pitman

__all__ = ["ESTIMATORS", "TOLERANCE", "tolerance", "DANKAR_FRACTION", "PopulationEstimate", "zayatz", "pitman", "snb", "dankar",
           "estimate", "population_uniqueness"]

Estimator = Literal["pitman", "zayatz", "snb", "dankar"]
ESTIMATORS: tuple[str, ...] = ("pitman", "zayatz", "snb", "dankar")
"""The estimators of population uniqueness, as a requirement names them."""

TOLERANCE = Fraction(1, 10**9)
"""The tolerance stated for an estimated share of population uniques of 1/10 or more; a smaller share has a smaller
one (:func:`tolerance`)."""


def tolerance(share: float) -> Fraction:
    """The tolerance stated for an estimated ``share`` (> 0): ``10^(e-8)`` for ``10^e ≤ share < 10^(e+1)``, between
    10^-9 and 10^-8 of the share.

    >>> tolerance(1.539108e-06), tolerance(0.35)
    (Fraction(1, 100000000000000), Fraction(1, 1000000000))
    """
    return min(TOLERANCE, Fraction(10) ** (decimal_exponent(Fraction(share)) - 8))

DANKAR_FRACTION = Fraction(1, 10)
"""Dankar et al. (2012): at sampling fractions up to this, Pitman; above it, min(Zayatz, SNB)."""

_MAX_ITERATIONS = 500


@dataclass(frozen=True)
class PopulationEstimate:
    """One estimator's estimate of the population uniques, or why there is none.

    Attributes
    ----------
    estimator
        ``pitman``, ``zayatz``, ``snb`` or ``dankar``.
    uniques
        The estimated number of population uniques (``None``: no estimate).
    share
        ``uniques / N`` (``None``: no estimate).
    fitted
        The estimator's fitted parameters (``theta``, ``alpha``; ``alpha``, ``beta``,
        ``classes``; the conditional uniqueness of Zayatz).
    method
        How it was computed.
    converged
        Whether the solver met its stopping rule.
    iterations
        The solver's iterations (``None`` for a closed form).
    reason
        Why there is no estimate (``None`` when there is one), or the convention used.
    chosen
        For ``dankar``: the estimator the rule chose.
    branch
        For ``pitman``: the branch of the parameter space fitted (``infinite``, ``finite``,
        ``boundary``; see :mod:`verifier.risk.pitman`).
    """

    estimator: str
    uniques: float | None
    share: float | None
    fitted: dict[str, float] = field(default_factory=dict)
    method: str = "closed form"
    converged: bool = True
    iterations: int | None = None
    reason: str | None = None
    chosen: str | None = None
    branch: str | None = None

    @property
    def available(self) -> bool:
        return self.share is not None


def _none(estimator: str, reason: str, **kwargs: object) -> PopulationEstimate:
    return PopulationEstimate(estimator, None, None, reason=reason, **kwargs)  # type: ignore[arg-type]


def _no_uniques(estimator: str, frame: Sampling) -> PopulationEstimate:
    return PopulationEstimate(estimator, 0.0, 0.0, reason="the sample has no unique record: the estimate is taken as "
                                                            "0, as ARX does")


def _checked(estimator: str, uniques: float, frame: Sampling, **kwargs: object) -> PopulationEstimate:
    """An estimate of ``uniques``, or none when it is not a number of people of the population."""
    if not math.isfinite(uniques) or uniques < 0 or uniques > frame.population:
        kwargs.pop("reason", None)
        said = "no number of population uniques (NaN)" if math.isnan(uniques) else \
            f"{_people(uniques)} population uniques, " + (
                f"more than the population of {frame.population:,} people" if uniques > frame.population
                else "fewer than none")
        return _none(estimator, f"the fitted model predicts {said}: not an estimate", **kwargs)
    return PopulationEstimate(estimator, uniques, uniques / frame.population, **kwargs)  # type: ignore[arg-type]


def _people(count: float) -> str:
    """A predicted number of people: ``1,607.9``; past 10^15 in six digits; ``more than 10^300`` past floats."""
    if math.isinf(count):
        return "more than 10^300"
    return f"{count:,.1f}" if abs(count) < 1e15 else f"{count:.6g}"


def zayatz(histogram: SizeHistogram, frame: Sampling) -> PopulationEstimate:
    """Zayatz's estimate: ``c_1 · P(F=1 | f=1) / π``.

    .. math::

        P(F=1 \\mid f=1) = \\frac{c_1 h(1)}{\\sum_i c_i h(i)}, \\qquad
        h(i) = P(\\text{a class of } i \\text{ people leaves exactly one in the sample})
             = i \\frac{\\binom{N-i}{n-1}}{\\binom{N}{n}}

    (sampling without replacement; the sample's class sizes stand for the population's,
    as in Zayatz 1991 and ARX). ``h(i)/h(1) = i·Π_{j=1}^{i-1}(N-n-j+1)/(N-j)``, summed in
    logarithms.

    References
    ----------
    Zayatz 1991, Sec. 2.
    """
    uniques = histogram.of_size(1)
    if uniques == 0:
        return _no_uniques("zayatz", frame)
    big_n, n = frame.population, frame.rows
    sizes = histogram.sizes.astype(float)
    largest = int(histogram.sizes.max())
    j = np.arange(1, largest, dtype=float)
    factor = (big_n - n - j + 1) / (big_n - j)
    with np.errstate(divide="ignore"):
        logs = np.concatenate(([0.0], np.cumsum(np.where(factor > 0, np.log(np.where(factor > 0, factor, 1.0)),
                                                         -np.inf))))
    ratios = sizes * np.exp(logs[histogram.sizes - 1])
    conditional = uniques / float(np.dot(histogram.classes.astype(float), ratios))
    found = uniques * conditional / float(frame.fraction)
    return _checked("zayatz", found, frame, fitted={"conditional_uniqueness": conditional})


def _pitman_share(theta: float, alpha: float, frame: Sampling) -> float:
    """``Γ(θ+1)/Γ(θ+α) · N^α / N`` (Hoshino 2001, the expected population uniques; ARX's formula on both branches)."""
    logarithm = math.lgamma(theta + 1) - math.lgamma(theta + alpha) + (alpha - 1) * math.log(frame.population)
    return math.exp(logarithm) if logarithm < 700 else math.inf  # exp overflows float64 past 709


def pitman(histogram: SizeHistogram, frame: Sampling) -> PopulationEstimate:
    """The Pitman model's estimate, fitted by maximum likelihood over both branches (:func:`fit_pitman`).

    ``fitted`` holds ``theta``, ``alpha``, the log-likelihood and, on the finite-class
    branch, the number of population classes ``m = θ/|α|``; ``branch`` names the branch.
    ``converged`` is true only when the score equations hold at the fit. When the likelihood
    has no maximum (every class a singleton, or it keeps rising towards ``α = 1`` or towards
    ``α → -∞``) there is no estimate: a limit of the likelihood is not a fit, and a
    requirement never passes on one. Towards ``α → -∞``, ``fitted`` holds the
    ``limit_classes`` ``m`` of the multinomial the likelihood tends to.

    References
    ----------
    Pitman 1996; Hoshino 2001, Sec. 3.
    """
    if histogram.of_size(1) == 0:
        return _no_uniques("pitman", frame)
    if histogram.count == histogram.rows:
        return _none("pitman", "every class of the sample is a singleton: the likelihood of the Pitman model has no "
                               "maximum (it grows towards α = 1)", method="newton")
    fit = fit_pitman(histogram)
    if fit.theta is None or fit.alpha is None:
        assert fit.reason is not None
        limit = {} if fit.limit_classes is None else {"limit_classes": fit.limit_classes}
        return _none("pitman", fit.reason, method="newton", converged=False, iterations=fit.iterations,
                     fitted=limit)
    fitted = {"theta": fit.theta, "alpha": fit.alpha, "loglikelihood": float(fit.loglikelihood or 0.0)}
    if fit.classes is not None:
        fitted["classes"] = fit.classes
    share = _pitman_share(fit.theta, fit.alpha, frame)
    return _checked("pitman", share * frame.population, frame, fitted=fitted, method="newton",
                    converged=fit.converged, iterations=fit.iterations, branch=fit.branch)


def _snb_moments(histogram: SizeHistogram, f: float) -> Callable[[float, float], tuple[float, float, float]]:
    """``(K, E[c_1], E[c_2])`` of the SNB model at ``(α, β)``, ``K`` fitted so that ``E[u] = u``.

    With ``d = (1-β)(1-f)`` and ``G = (β/(1-d))^α``:
    ``E[u] = K(1 - (1-f)G)``, ``E[c_1] = K f G (1 + αd/(1-d))``,
    ``E[c_2] = K f²/2 · G α(1-β)(2 - (1-α)d)/(1-d)²``.
    """
    u = histogram.count

    def moments(alpha: float, beta: float) -> tuple[float, float, float]:
        d = (1 - beta) * (1 - f)
        g = math.exp(alpha * (math.log(beta) - math.log1p(-d)))
        k = u / (1 - (1 - f) * g)
        e1 = k * f * g * (1 + alpha * d / (1 - d))
        e2 = k * f * f / 2 * g * alpha * (1 - beta) * (2 - (1 - alpha) * d) / (1 - d) ** 2
        return k, e1, e2

    return moments


def snb(histogram: SizeHistogram, frame: Sampling) -> PopulationEstimate:
    """The shifted negative binomial estimate (Chen & Keller-McNulty 1998), ``K·β^α``.

    The moment equations ``E[c_1] = c_1``, ``E[c_2] = c_2`` (``K`` from ``E[u] = u``) are
    solved by Newton's method in ``(ln α, logit β)`` with a finite-difference Jacobian,
    from a grid of starting points; no solution with ``α > 0``, ``0 < β < 1`` means no
    estimate.

    References
    ----------
    Chen & Keller-McNulty 1998, Sec. 3.
    """
    c1, c2 = histogram.of_size(1), histogram.of_size(2)
    if c1 == 0:
        return _no_uniques("snb", frame)
    f = float(frame.fraction)
    if f >= 1:
        return _checked("snb", float(c1), frame, fitted={"classes": float(histogram.count)})
    if c2 == 0:
        return _none("snb", "the sample has no class of size 2: the SNB model's equation for c_2 has no solution "
                            "with α > 0", method="newton")
    moments = _snb_moments(histogram, f)

    def residual(point: np.ndarray) -> np.ndarray:
        alpha, beta = math.exp(point[0]), 1 / (1 + math.exp(-point[1]))
        _, e1, e2 = moments(alpha, beta)
        return np.array([e1 / c1 - 1, e2 / c2 - 1])

    best: tuple[float, np.ndarray, int] | None = None
    for start in ((a, b) for a in (-2.0, 0.0, 2.0) for b in (-4.0, 0.0, 4.0)):
        point = np.array(start)
        try:
            found = _newton(residual, point)
        except (OverflowError, ValueError, ZeroDivisionError, np.linalg.LinAlgError):
            continue
        if found is not None and (best is None or found[0] < best[0]):
            best = found
    if best is None:
        return _none("snb", "the SNB moment equations have no solution with α > 0 and 0 < β < 1 (Newton's method "
                            "converged from none of 9 starting points)", method="newton", converged=False)
    _, point, iterations = best
    alpha, beta = math.exp(point[0]), 1 / (1 + math.exp(-point[1]))
    k, _, _ = moments(alpha, beta)
    return _checked("snb", k * beta**alpha, frame, fitted={"alpha": alpha, "beta": beta, "classes": k},
                    method="newton", iterations=iterations)


def _newton(residual: Callable[[np.ndarray], np.ndarray], point: np.ndarray) -> tuple[float, np.ndarray, int] | None:
    """Newton's method with a central-difference Jacobian and step halving on ``|residual|``; ``None`` if it fails."""
    current = residual(point)
    for iteration in range(1, _MAX_ITERATIONS + 1):
        norm = float(np.abs(current).max())
        if norm < 1e-13:
            return norm, point, iteration
        jacobian = np.empty((2, 2))
        for column in range(2):
            h = 1e-6 * max(1.0, abs(point[column]))
            shift = np.zeros(2)
            shift[column] = h
            jacobian[:, column] = (residual(point + shift) - residual(point - shift)) / (2 * h)
        step = -np.linalg.solve(jacobian, current)
        scale = 1.0
        while scale > 1e-12:
            candidate = point + scale * step
            try:
                value = residual(candidate)
            except (OverflowError, ValueError, ZeroDivisionError):
                value = None
            if value is not None and np.all(np.isfinite(value)) and float(np.abs(value).max()) < norm:
                break
            scale /= 2
        else:
            return None
        point, current = candidate, value
    return None


def dankar(histogram: SizeHistogram, frame: Sampling) -> PopulationEstimate:
    """The decision rule of Dankar et al. (2012): Pitman at π ≤ 1/10, else min(Zayatz, SNB).

    At π ≤ 1/10 Pitman's estimate, or Zayatz's when Pitman has none; above, the smaller of
    Zayatz's and SNB's, or Zayatz's when SNB has none. ``chosen`` names the estimator used.

    References
    ----------
    Dankar, El Emam, Neisa & Roffey 2012, Sec. 3 (Fig. 1, the decision rule).
    """
    if histogram.of_size(1) == 0:
        return PopulationEstimate("dankar", 0.0, 0.0, reason=_no_uniques("dankar", frame).reason, chosen="none")
    zayatz_estimate = zayatz(histogram, frame)
    if frame.fraction <= DANKAR_FRACTION:
        chosen = pitman(histogram, frame)
        if not chosen.available:
            fallback = f"Pitman has no estimate ({chosen.reason}): the rule takes Zayatz's, as ARX does"
            chosen = replace(zayatz_estimate, reason=fallback) if zayatz_estimate.available else zayatz_estimate
    else:
        other = snb(histogram, frame)
        chosen = zayatz_estimate
        if other.available and zayatz_estimate.available and other.share < zayatz_estimate.share:  # type: ignore[operator]
            chosen = other
    return PopulationEstimate("dankar", chosen.uniques, chosen.share, chosen.fitted, chosen.method, chosen.converged,
                              chosen.iterations, chosen.reason, chosen=chosen.estimator, branch=chosen.branch)


def estimate(estimator: str, histogram: SizeHistogram, frame: Sampling) -> PopulationEstimate:
    """The estimate of ``estimator`` (one of :data:`ESTIMATORS`)."""
    return {"pitman": pitman, "zayatz": zayatz, "snb": snb, "dankar": dankar}[estimator](histogram, frame)


def population_uniqueness(histogram: SizeHistogram, frame: Sampling, estimator: str) -> Measurement:
    """The ``population_uniqueness`` measurement of one estimator: the estimated share of the population's
    people who are unique in the population, as an estimate with exact bounds ± :func:`tolerance`.

    ``numbers`` holds the population size, the estimated number of population uniques,
    the fitted parameters and, for ``dankar``, the estimator chosen. Without an estimate
    the level is undefined and says why (never 0).
    """
    found = estimate(estimator, histogram, frame)
    parameters = {"estimator": estimator, "sampling_fraction": frame.given}
    numbers: dict[str, object] = {"population": frame.population, "rows": frame.rows,
                                  "sampling_fraction_used": frame.fraction,
                                  "fitted": {name: float(value) for name, value in found.fitted.items()}}
    if found.chosen is not None:
        numbers["chosen"] = found.chosen
    if found.branch is not None:
        numbers["branch"] = found.branch
    notes = () if found.reason is None or not found.available else (found.reason,)
    if not found.available:
        assert found.reason is not None
        return Measurement("population_uniqueness", None, Level.undefined(f"{estimator}: {found.reason}"),
                           Witness(numbers=numbers), "at_most", parameters=parameters)
    assert found.share is not None and found.uniques is not None
    numbers["population_uniques"] = found.uniques
    if found.share == 0:
        return Measurement("population_uniqueness", None, Level.of(0), Witness(numbers=numbers), "at_most",
                           parameters=parameters, notes=notes)
    return estimated("population_uniqueness", found.share,
                     Estimate(found.share, tolerance(found.share), found.method, found.converged, found.iterations),
                     witness=Witness(numbers=numbers), parameters=parameters, notes=notes)
