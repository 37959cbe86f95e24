"""Pitman's sampling formula fitted by maximum likelihood over its whole parameter space.

The likelihood of a sample's partition into ``u`` classes of sizes ``n_1..n_u`` (``n``
records, ``c_k`` classes of size ``k``) under Pitman's sampling formula is, up to a
constant,

.. math::

    L(θ, α) = \\sum_{i=1}^{u-1}\\ln(θ+iα) - \\sum_{i=1}^{n-1}\\ln(θ+i)
              + \\sum_k c_k \\sum_{j=1}^{k-1}\\ln(j-α)

(Pitman 1996, eq. 2; Hoshino 2001, Sec. 3). Its parameter space has two branches:

* the *infinite-class* branch ``0 ≤ α < 1``, ``θ > -α`` (the two-parameter
  Poisson-Dirichlet process; ``α = 0`` is Ewens' formula);
* the *finite-class* branch ``α < 0``, ``θ = m|α|``: a population of ``m`` classes with
  symmetric Dirichlet(|α|) class probabilities (the Dirichlet-multinomial). As ARX does,
  ``m`` is fitted as a real number, ``m > u - 1`` (every factor ``θ + iα`` positive).

The fit is the point of highest likelihood that is a maximum: a root of the score
equations with a negative-definite Hessian in either branch, or the maximum of the
infinite-class branch on its boundary ``α = 0`` (``θ`` optimized there; the
Karush-Kuhn-Tucker conditions ``∂L/∂θ = 0``, ``∂L/∂α ≤ 0``). Candidates come from
Newton's method started at ARX's moment-based start and at the local maxima of the
profile likelihood ``max_θ L(θ, α)`` on a grid of ``α`` over both branches; each is then
checked against its own equations (:func:`pitman_score`, the sums evaluated term by term,
not through ψ). Where the finite-class likelihood keeps rising towards ``α → -∞`` (the
limit is a multinomial with equal class probabilities, which predicts no population
unique at all), that branch has no maximum at finite parameters and the fit is the
infinite-class branch's maximum; where the likelihood keeps rising towards ``α → 1``
there is no fit.

References
----------
Pitman 1996 (the sampling formula and its parameter space); Hoshino 2001, Sec. 3
(maximum likelihood, the expected number of population uniques).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from verifier.risk.histogram import SizeHistogram
from verifier.risk.special import digamma, lgamma, psi, psi1, trigamma

__all__ = ["SCORE_TOLERANCE", "PitmanFit", "fit_pitman", "pitman_loglikelihood", "pitman_score"]

SCORE_TOLERANCE = 1e-10
"""Each score equation holds when its two sides agree to this share of their size."""

Branch = Literal["infinite", "finite", "boundary"]

_DIRECT = 10.0
_ITERATIONS = 200
_ALPHAS_INFINITE = (0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999)
_BETAS_FINITE = tuple(10.0 ** (k / 4) for k in range(-16, 29))


@dataclass(frozen=True)
class PitmanFit:
    """The maximum-likelihood fit of Pitman's sampling formula to a class-size histogram.

    Attributes
    ----------
    theta, alpha
        The fitted parameters (``None`` without a fit).
    branch
        ``infinite`` (``0 < α < 1``), ``finite`` (``α < 0``, ``m = θ/|α|`` population
        classes) or ``boundary`` (``α = 0``, the infinite-class branch's maximum on its edge).
    loglikelihood
        ``L`` at the fit.
    score
        ``(∂L/∂θ, ∂L/∂α)`` at the fit, evaluated term by term.
    converged
        Whether the score equations (at the boundary: the KKT conditions) hold to
        :data:`SCORE_TOLERANCE`, checked after the fit.
    iterations
        Newton iterations of the run that found the fit.
    reason
        Why there is no fit, or a note on the branch not taken.
    """

    theta: float | None
    alpha: float | None
    branch: Branch | None
    loglikelihood: float | None
    score: tuple[float, float] | None
    converged: bool
    iterations: int
    reason: str | None = None

    @property
    def classes(self) -> float | None:
        """The finite-class branch's number of population classes ``m = θ/|α|``."""
        if self.branch != "finite" or self.theta is None or self.alpha is None:
            return None
        return self.theta / -self.alpha


class _Likelihood:
    """``L`` with its gradient and Hessian in ``(θ, α)``; every sum over ``i`` in closed form through ψ, ψ'."""

    def __init__(self, histogram: SizeHistogram) -> None:
        self.u = histogram.count
        self.n = histogram.rows
        self.sizes = histogram.sizes.astype(float)
        self.counts = histogram.classes.astype(float)
        self.index = np.arange(1, self.u, dtype=float)

    def lower(self, alpha: float) -> float:
        """The smallest ``θ`` (excluded) at ``α``: every ``θ + iα`` positive, ``θ > -α``."""
        return -alpha if alpha >= 0 else -(self.u - 1) * alpha

    def inside(self, theta: float, alpha: float) -> bool:
        return alpha < 1 and math.isfinite(theta) and theta > self.lower(alpha) and theta > -1

    def _sums(self, theta: float, alpha: float, direct: bool) -> tuple[float, float, float, float, float, float]:
        """``Σ ln(θ+iα), Σ 1/(θ+iα), Σ 1/(θ+iα)², Σ i/(θ+iα), Σ i/(θ+iα)², Σ i²/(θ+iα)²`` over ``i < u``."""
        u = self.u
        if direct or alpha == 0 or abs(theta / alpha) > _DIRECT * u:
            i = self.index
            terms = theta + i * alpha
            inverse = 1 / terms
            return (float(np.log(terms).sum()), float(inverse.sum()), float((inverse**2).sum()),
                    float((i * inverse).sum()), float((i * inverse**2).sum()), float((i * i * inverse**2).sum()))
        if alpha > 0:
            x = theta / alpha
            log_sum = (u - 1) * math.log(alpha) + math.lgamma(x + u) - math.lgamma(x + 1)
            a1 = (psi(x + u) - psi(x + 1)) / alpha
            a2 = (psi1(x + 1) - psi1(x + u)) / alpha**2
        else:
            beta, m = -alpha, theta / -alpha
            log_sum = (u - 1) * math.log(beta) + math.lgamma(m) - math.lgamma(m - u + 1)
            a1 = (psi(m) - psi(m - u + 1)) / beta
            a2 = (psi1(m - u + 1) - psi1(m)) / beta**2
        w1 = ((u - 1) - theta * a1) / alpha
        w2 = (a1 - theta * a2) / alpha
        w3 = ((u - 1) - 2 * theta * a1 + theta**2 * a2) / alpha**2
        return log_sum, a1, a2, w1, w2, w3

    def value(self, theta: float, alpha: float) -> float:
        log_sum = self._sums(theta, alpha, False)[0]
        big = math.lgamma(theta + self.n) - math.lgamma(theta + 1)
        classes = float(np.dot(self.counts, lgamma(self.sizes - alpha) - math.lgamma(1 - alpha)))
        return log_sum - big + classes

    def derivatives(self, theta: float, alpha: float) -> tuple[float, np.ndarray, np.ndarray]:
        _, a1, a2, w1, w2, w3 = self._sums(theta, alpha, False)
        b1 = psi(theta + self.n) - psi(theta + 1)
        b2 = psi1(theta + 1) - psi1(theta + self.n)
        c1 = float(np.dot(self.counts, digamma(self.sizes - alpha) - psi(1 - alpha)))
        c2 = float(np.dot(self.counts, psi1(1 - alpha) - trigamma(self.sizes - alpha)))
        gradient = np.array([a1 - b1, w1 - c1])
        hessian = np.array([[-a2 + b2, -w2], [-w2, -w3 - c2]])
        return self.value(theta, alpha), gradient, hessian

    def score(self, theta: float, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        """The score and the size of each equation's sides, every sum evaluated term by term."""
        _, a1, _, w1, _, _ = self._sums(theta, alpha, True)
        b1 = float((1 / (theta + np.arange(1, self.n, dtype=float))).sum())
        largest = int(self.sizes.max())
        partial = np.concatenate(([0.0], np.cumsum(1 / (np.arange(1, largest, dtype=float) - alpha))))
        c1 = float(np.dot(self.counts, partial[self.sizes.astype(int) - 1]))
        return np.array([a1 - b1, w1 - c1]), np.array([abs(a1) + abs(b1), abs(w1) + abs(c1)])

    def profile(self, alpha: float) -> float:
        """``θ`` maximizing ``L`` at fixed ``α``: the root of ``∂L/∂θ`` (positive at the lower end, negative at ∞)."""
        base = self.lower(alpha)
        gap_low, gap_high = 1e-12 * max(1.0, abs(base)), max(1.0, abs(base))

        def slope(gap: float) -> float:
            theta = base + gap
            return self._sums(theta, alpha, False)[1] - (psi(theta + self.n) - psi(theta + 1))

        while slope(gap_high) > 0:
            gap_high *= 4
            if gap_high > 1e300:
                return math.inf
        for _ in range(200):
            middle = math.sqrt(gap_low * gap_high)
            if slope(middle) > 0:
                gap_low = middle
            else:
                gap_high = middle
            if gap_high / gap_low - 1 < 1e-9:
                break
        return base + math.sqrt(gap_low * gap_high)

    @staticmethod
    def _closer(new: np.ndarray, old: np.ndarray, point: tuple[float, float], before: tuple[float, float],
                fixed_alpha: bool) -> bool:
        """Whether the score shrank (the test near the maximum, where ``L`` no longer moves in float64)."""
        if fixed_alpha:
            return bool(abs(new[0]) < abs(old[0]))
        return bool(abs(new[0]) * max(1.0, abs(point[0])) + abs(new[1]) * max(1.0, abs(point[1]))
                    < abs(old[0]) * max(1.0, abs(before[0])) + abs(old[1]) * max(1.0, abs(before[1])))

    def newton(self, theta: float, alpha: float, *, fixed_alpha: bool = False) -> tuple[float, float, int]:
        """Newton's method with step halving inside the domain, each step raising ``L``."""
        value, gradient, hessian = self.derivatives(theta, alpha)
        iteration = 0
        for iteration in range(1, _ITERATIONS + 1):  # noqa: B007 (returned)
            if fixed_alpha:
                step = np.array([-gradient[0] / hessian[0, 0] if hessian[0, 0] < 0 else gradient[0], 0.0])
            else:
                try:
                    step = -np.linalg.solve(hessian, gradient)
                except np.linalg.LinAlgError:
                    step = gradient.copy()
                if float(step @ gradient) <= 0:
                    step = gradient / max(1.0, float(np.abs(gradient).max()))
            scale = 1.0
            while scale > 1e-30:
                t, a = theta + scale * step[0], alpha + scale * step[1]
                if self.inside(t, a):
                    candidate = self.derivatives(t, a)
                    if candidate[0] > value or (candidate[0] >= value - 1e-14 * abs(value)
                                                and self._closer(candidate[1], gradient, (t, a), (theta, alpha),
                                                                fixed_alpha)):
                        break
                scale /= 2
            else:
                break
            moved = np.abs(scale * step)
            theta, alpha = t, a
            value, gradient, hessian = candidate
            if moved[0] <= 1e-14 * max(1.0, abs(theta)) and moved[1] <= 1e-14:
                break
        return theta, alpha, iteration


def pitman_loglikelihood(histogram: SizeHistogram, theta: float, alpha: float) -> float:
    """``L(θ, α)`` of the histogram (``-inf`` outside the parameter space)."""
    likelihood = _Likelihood(histogram)
    return likelihood.value(theta, alpha) if likelihood.inside(theta, alpha) else -math.inf


def pitman_score(histogram: SizeHistogram, theta: float, alpha: float) -> tuple[float, float]:
    """``(∂L/∂θ, ∂L/∂α)``, every sum evaluated term by term (the check of a fit)."""
    score, _ = _Likelihood(histogram).score(theta, alpha)
    return float(score[0]), float(score[1])


def _holds(likelihood: _Likelihood, theta: float, alpha: float, boundary: bool) -> tuple[bool, tuple[float, float]]:
    score, size = likelihood.score(theta, alpha)
    theta_holds = abs(score[0]) <= SCORE_TOLERANCE * size[0]
    alpha_holds = score[1] <= SCORE_TOLERANCE * size[1] if boundary else abs(score[1]) <= SCORE_TOLERANCE * size[1]
    return bool(theta_holds and alpha_holds), (float(score[0]), float(score[1]))


def _is_maximum(likelihood: _Likelihood, theta: float, alpha: float) -> bool:
    _, _, hessian = likelihood.derivatives(theta, alpha)
    return bool(hessian[0, 0] < 0 and np.linalg.det(hessian) > 0)


def fit_pitman(histogram: SizeHistogram) -> PitmanFit:
    """The maximum-likelihood fit of Pitman's sampling formula over both branches (see the module).

    The histogram has at least one class of two or more records and at least two classes
    (else the likelihood has no maximum: it grows towards ``α = 1`` or has one class).
    """
    likelihood = _Likelihood(histogram)
    u, n = likelihood.u, likelihood.n
    c1, c2 = histogram.of_size(1), histogram.of_size(2)
    starts: list[tuple[float, float]] = []
    ratio = c1 * (c1 - 1) / (c2 if c2 else 1)
    denominator = 2 * c1 * u + c1 * ratio - n * ratio
    if denominator:
        theta = (n * u * ratio - c1 * (n - 1) * (2 * u + ratio)) / denominator
        alpha = (theta * (c1 - n) + (n - 1) * c1) / (n * u)
        if likelihood.inside(theta, alpha):
            starts.append((theta, alpha))
    profile = [(alpha, likelihood.profile(alpha)) for alpha in (*(-b for b in reversed(_BETAS_FINITE)),
                                                                  *_ALPHAS_INFINITE)]
    profile = [(alpha, theta) for alpha, theta in profile if math.isfinite(theta)]
    values = [likelihood.value(theta, alpha) for alpha, theta in profile]
    for index, (alpha, theta) in enumerate(profile):
        left = values[index - 1] if index else -math.inf
        right = values[index + 1] if index + 1 < len(values) else -math.inf
        if values[index] >= left and values[index] >= right:
            starts.append((theta, alpha))
    candidates: list[tuple[float, float, float, Branch, int, bool, tuple[float, float]]] = []
    for theta, alpha in starts:
        t, a, iterations = likelihood.newton(theta, alpha)
        if a > 1 - 1e-9:
            continue
        holds, score = _holds(likelihood, t, a, False)
        if holds and _is_maximum(likelihood, t, a):
            candidates.append((likelihood.value(t, a), t, a, "finite" if a < 0 else "infinite", iterations, True,
                               score))
    theta_zero, _, iterations = likelihood.newton(likelihood.profile(0.0), 0.0, fixed_alpha=True)
    holds, score = _holds(likelihood, theta_zero, 0.0, True)
    if holds:
        candidates.append((likelihood.value(theta_zero, 0.0), theta_zero, 0.0, "boundary", iterations, True, score))
    best_value = max(values)
    towards_one = values[-1] >= best_value and (not candidates or values[-1] > max(c[0] for c in candidates))
    if towards_one:
        return PitmanFit(None, None, None, None, None, False, 0, "the likelihood of the Pitman model has no maximum "
                         "inside α < 1 (it grows towards α = 1)")
    if not candidates:
        return PitmanFit(None, None, None, None, None, False, _ITERATIONS, "Newton's method found no point where the "
                         "score equations of the Pitman model hold")
    value, theta, alpha, branch, iterations, converged, score = max(candidates, key=lambda c: c[0])
    reason = None
    finite = values[:sum(1 for alpha, _ in profile if alpha < 0)]
    if branch == "boundary" and finite and int(np.argmax(finite)) < 3:
        reason = ("the maximum of the infinite-class branch lies on its boundary α = 0 (Ewens' formula); the "
                  "finite-class branch's likelihood rises towards α → -∞, a multinomial with equal class "
                  "probabilities that predicts no population unique, and has no maximum at finite parameters")
    return PitmanFit(theta, alpha, branch, value, score, converged, iterations, reason)
