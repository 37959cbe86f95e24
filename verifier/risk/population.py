"""Population uniqueness: how many people of the population are unique, estimated from a sample.

Each estimator works on the sample's class-size histogram (``c_i`` classes of size
``i``, ``u`` classes, ``n`` records) and the sampling frame (population size ``N``,
sampling fraction ``π = n/N``), in O(#distinct class sizes) per evaluation:

* **Zayatz** (1991): the share of sample uniques that are population uniques, with
  the population's class-size distribution taken as the sample's, under sampling
  without replacement (hypergeometric); a closed form.
* **Pitman** (1996), fitted by maximum likelihood as Hoshino (2001) does: the
  two-parameter Poisson-Dirichlet (Pitman sampling formula) with ``θ > -α``,
  ``0 ≤ α < 1``; the expected number of population uniques is
  ``Γ(θ+1)/Γ(θ+α) · N^α``. Solved by Newton's method with step halving.
* **SNB**, the shifted negative binomial of Chen & Keller-McNulty (1998): population
  class sizes ``F`` with ``F - 1 ~ NegBin(α, β)``, so ``K·β^α`` population uniques
  among ``K`` non-empty classes. ``K``, ``α`` and ``β`` are fitted by matching the
  expected numbers of sample classes, of size-1 classes and of size-2 classes under
  Bernoulli sampling with probability π to ``u``, ``c_1`` and ``c_2`` (from the
  model's generating function ``G(s) = (β / (1 - (1-β)s))^α``).
* **Dankar** et al. (2012): the decision rule: Pitman when π ≤ 1/10 (Zayatz if Pitman
  has no estimate), else the smaller of Zayatz and SNB (Zayatz if SNB has none).

Every estimate is computed in float64 and reported with the absolute tolerance
:data:`TOLERANCE` on the share: the solvers stop when the share moves by less than
10^-12 and the closed forms' rounding errors are below 10^-12. Where an estimator has
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
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

import numpy as np

from verifier.results import Estimate, Level, Measurement, Witness
from verifier.risk.estimated import estimated
from verifier.risk.histogram import Sampling, SizeHistogram
from verifier.risk.special import digamma, lgamma, trigamma

__all__ = ["ESTIMATORS", "TOLERANCE", "DANKAR_FRACTION", "PopulationEstimate", "zayatz", "pitman", "snb", "dankar",
           "estimate", "population_uniqueness"]

Estimator = Literal["pitman", "zayatz", "snb", "dankar"]
ESTIMATORS: tuple[str, ...] = ("pitman", "zayatz", "snb", "dankar")
"""The estimators of population uniqueness, as a requirement names them."""

TOLERANCE = Fraction(1, 10**9)
"""The absolute tolerance stated for every estimated share of population uniques."""

DANKAR_FRACTION = Fraction(1, 10)
"""Dankar et al. (2012): at sampling fractions up to this, Pitman; above it, min(Zayatz, SNB)."""

_STEP = 1e-12
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
        return _none(estimator, f"the fitted model predicts {uniques:.6g} population uniques, not a number between 0 "
                                f"and the population size {frame.population}", **kwargs)
    return PopulationEstimate(estimator, uniques, uniques / frame.population, **kwargs)  # type: ignore[arg-type]


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


def _pitman_terms(histogram: SizeHistogram, n: int) -> Callable[[float, float], tuple[float, np.ndarray, np.ndarray]]:
    """The log-likelihood of the Pitman sampling formula with its gradient and Hessian in (θ, α).

    .. math::

        L = \\sum_{i=1}^{u-1}\\ln(θ+iα) - \\sum_{i=1}^{n-1}\\ln(θ+i)
            + \\sum_i c_i \\sum_{j=1}^{i-1}\\ln(j-α)

    (Hoshino 2001, Sec. 3), with every sum in closed form through ln Γ, ψ and ψ'.
    """
    u = histogram.count
    sizes = histogram.sizes.astype(float)
    counts = histogram.classes.astype(float)

    def sums(theta: float, alpha: float) -> tuple[float, float, float]:
        """Σ ln(θ+iα), Σ 1/(θ+iα), Σ 1/(θ+iα)² over i = 1..u-1."""
        x = theta / alpha if alpha > 0 else math.inf
        if x > 1e5 * max(u, 1) or alpha <= 0:
            i = np.arange(1, u, dtype=float)
            terms = theta + i * alpha
            return float(np.log(terms).sum()), float((1 / terms).sum()), float((1 / terms**2).sum())
        log_sum = (u - 1) * math.log(alpha) + math.lgamma(x + u) - math.lgamma(x + 1)
        first = float(digamma(x + u)[0] - digamma(x + 1)[0]) / alpha
        second = float(trigamma(x + 1)[0] - trigamma(x + u)[0]) / alpha**2
        return log_sum, first, second

    def evaluate(theta: float, alpha: float) -> tuple[float, np.ndarray, np.ndarray]:
        log_sum, a1, a2 = sums(theta, alpha)
        big = float(lgamma(theta + n)[0] - lgamma(theta + 1)[0])
        b1 = float(digamma(theta + n)[0] - digamma(theta + 1)[0])
        b2 = float(trigamma(theta + 1)[0] - trigamma(theta + n)[0])
        c0 = float(np.dot(counts, lgamma(sizes - alpha) - lgamma(1 - alpha)))
        c1 = float(np.dot(counts, digamma(sizes - alpha) - digamma(1 - alpha)))
        c2 = float(np.dot(counts, trigamma(1 - alpha) - trigamma(sizes - alpha)))
        weighted = ((u - 1) - theta * a1) / alpha if alpha > 0 else float(np.arange(1, u) @ (
            1 / (theta + np.arange(1, u) * alpha)))
        gradient = np.array([a1 - b1, weighted - c1])
        cross = (a1 - theta * a2) / alpha if alpha > 0 else float(np.arange(1, u) @ (
            1 / (theta + np.arange(1, u) * alpha) ** 2))
        squares = ((u - 1) - 2 * theta * a1 + theta**2 * a2) / alpha**2 if alpha > 0 else float(
            (np.arange(1, u) ** 2) @ (1 / (theta + np.arange(1, u) * alpha) ** 2))
        hessian = np.array([[-a2 + b2, -cross], [-cross, -squares - c2]])
        return log_sum - big + c0, gradient, hessian

    return evaluate


def _pitman_share(theta: float, alpha: float, frame: Sampling) -> float:
    """``Γ(θ+1)/Γ(θ+α) · N^α / N`` (Hoshino 2001, eq. for the expected population uniques)."""
    return math.exp(math.lgamma(theta + 1) - math.lgamma(theta + alpha) + (alpha - 1) * math.log(frame.population))


def pitman(histogram: SizeHistogram, frame: Sampling) -> PopulationEstimate:
    """The Pitman model's estimate, fitted by maximum likelihood (Hoshino 2001).

    Newton's method on the log-likelihood from Hoshino's moment-based start (as ARX
    starts), each step halved until it stays in the domain (``θ > -α``, ``0 ≤ α < 1``)
    and raises the likelihood; it stops when the estimated share moves by less than
    10^-12. When every class is a singleton, or the likelihood keeps rising towards
    ``α = 1``, there is no maximum and no estimate.

    References
    ----------
    Pitman 1996; Hoshino 2001, Sec. 3.
    """
    c1, c2, u, n = histogram.of_size(1), histogram.of_size(2), histogram.count, histogram.rows
    if c1 == 0:
        return _no_uniques("pitman", frame)
    if u == n:
        return _none("pitman", "every class of the sample is a singleton: the likelihood of the Pitman model has no "
                               "maximum (it grows towards α = 1)", method="newton")
    evaluate = _pitman_terms(histogram, n)
    ratio = c1 * (c1 - 1) / (c2 if c2 else 1)
    denominator = 2 * c1 * u + c1 * ratio - n * ratio
    theta = (n * u * ratio - c1 * (n - 1) * (2 * u + ratio)) / denominator if denominator else 1.0
    alpha = (theta * (c1 - n) + (n - 1) * c1) / (n * u)
    if not (0 < alpha < 1 and theta > -alpha and math.isfinite(theta)):
        theta, alpha = 1.0, 0.5
    value, gradient, hessian = evaluate(theta, alpha)
    share = _pitman_share(theta, alpha, frame)
    for iteration in range(1, _MAX_ITERATIONS + 1):  # noqa: B007 (the count is reported after the loop)
        try:
            step = -np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            step = gradient
        if float(step @ gradient) <= 0:
            step = gradient / max(1.0, float(np.abs(gradient).max()))
        scale = 1.0
        while scale > 1e-30:
            t, a = theta + scale * step[0], alpha + scale * step[1]
            if 0 <= a < 1 and t > -a:
                candidate = evaluate(t, a)
                if candidate[0] >= value:
                    break
            scale /= 2
        else:
            break
        theta, alpha = t, a
        value, gradient, hessian = candidate
        moved = _pitman_share(theta, alpha, frame)
        if abs(moved - share) < _STEP and float(np.abs(scale * step).max()) < 1e-9:
            share = moved
            break
        share = moved
    else:
        return _none("pitman", f"Newton's method did not converge in {_MAX_ITERATIONS} iterations", method="newton",
                     converged=False, iterations=_MAX_ITERATIONS, fitted={"theta": theta, "alpha": alpha})
    fitted = {"theta": theta, "alpha": alpha}
    if alpha > 1 - 1e-9:
        return _none("pitman", "the likelihood of the Pitman model has no maximum inside 0 ≤ α < 1 (it grows "
                               "towards α = 1)", method="newton", iterations=iteration, fitted=fitted)
    return _checked("pitman", share * frame.population, frame, fitted=fitted, method="newton", iterations=iteration)


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
            chosen = zayatz_estimate
    else:
        other = snb(histogram, frame)
        chosen = zayatz_estimate
        if other.available and zayatz_estimate.available and other.share < zayatz_estimate.share:  # type: ignore[operator]
            chosen = other
    return PopulationEstimate("dankar", chosen.uniques, chosen.share, chosen.fitted, chosen.method, chosen.converged,
                              chosen.iterations, chosen.reason, chosen=chosen.estimator)


def estimate(estimator: str, histogram: SizeHistogram, frame: Sampling) -> PopulationEstimate:
    """The estimate of ``estimator`` (one of :data:`ESTIMATORS`)."""
    return {"pitman": pitman, "zayatz": zayatz, "snb": snb, "dankar": dankar}[estimator](histogram, frame)


def population_uniqueness(histogram: SizeHistogram, frame: Sampling, estimator: str) -> Measurement:
    """The ``population_uniqueness`` measurement of one estimator: the estimated share of the population's
    people who are unique in the population, as an estimate with exact bounds ± :data:`TOLERANCE`.

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
                     Estimate(found.share, TOLERANCE, found.method, found.converged, found.iterations),
                     witness=Witness(numbers=numbers), parameters=parameters, notes=notes)
