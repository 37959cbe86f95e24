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

With ``m`` real, the two branches meet along ``α = 0``: the finite-class region
``θ > (u-1)|α|`` tends to ``θ > 0`` as ``α → 0⁻``, so ``α = 0`` (Ewens' formula) is an
inner line of the parameter space, not an edge of it. A maximum is therefore a root of
the score equations with a negative-definite Hessian, on either branch. Candidates come
from Newton's method started at ARX's moment-based start and at the local maxima of the
profile likelihood ``max_θ L(θ, α)`` on a grid of ``α`` over both branches; each is then
checked against its own equations (:func:`pitman_score`, the sums evaluated term by term,
not through ψ).

The likelihood has two limits that are not points of the space. Towards ``α → 1`` (every
class a singleton, or nearly) it can keep rising. Towards ``α → -∞`` with ``θ = m|α|``
(``m`` fixed) it tends to

.. math::

    L_∞(m) = \\sum_{i=1}^{u-1}\\ln(m-i) - (n-1)\\ln m,

the log-likelihood of a multinomial with ``m`` equal class probabilities (the powers of
``|α|`` cancel: ``(u-1) - (n-1) + (n-u) = 0``), which is largest at the root of
``Σ_i m/(m-i) = n-1`` (:func:`multinomial_limit`). The fit is the highest root only when
no grid point and neither limit lies above it; when the supremum is a limit there is no
maximum-likelihood estimate and :func:`fit_pitman` says so (with ``m`` for the
``α → -∞`` limit, a model that predicts no population unique in a population much larger
than ``m``) instead of returning a point that is not the maximum.

References
----------
Pitman 1996 (the sampling formula and its parameter space); Hoshino 2001, Sec. 3
(maximum likelihood, the expected number of population uniques).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from verifier.risk.histogram import SizeHistogram
from verifier.risk.special import digamma, lgamma, psi, psi1, trigamma

__all__ = ["SCORE_TOLERANCE", "PitmanFit", "fit_pitman", "multinomial_limit", "pitman_loglikelihood",
           "pitman_score"]

SCORE_TOLERANCE = 1e-10
"""Each score equation holds when its two sides agree to this share of their size."""

Branch = Literal["infinite", "finite"]

_DIRECT = 10.0
_ITERATIONS = 200
_ALPHAS_INFINITE = (0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999)
_BETAS_FINITE = tuple(10.0 ** (k / 4) for k in range(-16, 17))
"""|α| on the finite branch's grid, up to 10^4: beyond, L's float64 rounding (~10^-8 at 10^7) exceeds the
differences the fit compares; the limit α → -∞ is taken exactly (:func:`multinomial_limit`)."""


@dataclass(frozen=True)
class PitmanFit:
    """The maximum-likelihood fit of Pitman's sampling formula to a class-size histogram.

    Attributes
    ----------
    theta, alpha
        The fitted parameters (``None`` without a fit).
    branch
        ``infinite`` (``0 ≤ α < 1``) or ``finite`` (``α < 0``, ``m = θ/|α|`` population classes).
    loglikelihood
        ``L`` at the fit.
    score
        ``(∂L/∂θ, ∂L/∂α)`` at the fit, evaluated term by term.
    converged
        Whether the score equations hold to :data:`SCORE_TOLERANCE`, checked after the fit
        (``False`` without a fit).
    iterations
        Newton iterations of the run that found the fit.
    reason
        Why there is no fit.
    limit_classes
        Without a fit because the likelihood rises towards ``α → -∞``: the ``m`` of the
        multinomial limit it tends to (:func:`multinomial_limit`).
    """

    theta: float | None
    alpha: float | None
    branch: Branch | None
    loglikelihood: float | None
    score: tuple[float, float] | None
    converged: bool
    iterations: int
    reason: str | None = None
    limit_classes: float | None = None

    @property
    def classes(self) -> float | None:
        """The finite-class branch's number of population classes ``m = θ/|α|``."""
        if self.branch != "finite" or self.theta is None or self.alpha is None:
            return None
        return self.theta / -self.alpha


_STIRLING = 1e4
"""From this argument on, :func:`_lgamma_step` uses Stirling's series instead of a difference of lgamma."""


def _lgamma_step(x: float, k: np.ndarray | float) -> np.ndarray | float:
    """``ln Γ(x+k) - ln Γ(x)`` for ``x > 0``, ``k ≥ 0``, accurate to float64 whatever the size of ``x``.

    Below :data:`_STIRLING` a difference of ``lgamma`` (absolute error about 10^-16·x·ln x,
    below 10^-11). Above, Stirling's series (Abramowitz & Stegun 1964, 6.1.41) with the
    large terms combined so that nothing cancels:
    ``(x-½)·log1p(k/x) + k·ln(x+k) - k + 1/(12(x+k)) - 1/(12x) - 1/(360(x+k)³) + 1/(360x³)``
    (the next term, 1/(1260 x⁵), is below 10^-23). A difference of ``lgamma`` near ``x = 10^7``
    loses about 3·10^-7, which is more than the likelihoods the fit compares differ by.
    """
    k = np.asarray(k, dtype=float)
    if x < _STIRLING:
        return math.lgamma(x + float(k)) - math.lgamma(x) if k.ndim == 0 else lgamma(x + k) - math.lgamma(x)
    y = x + k
    result = ((x - 0.5) * np.log1p(k / x) + k * np.log(y) - k + (1 / (12 * y) - 1 / (12 * x))
              - (1 / (360 * y**3) - 1 / (360 * x**3)))
    return float(result) if result.ndim == 0 else result


def _falling_root(slope: Callable[[float], float], low: float, high: float, tolerance: float) -> float:
    """The root of a function that falls through 0 once on ``(0, ∞)``, by bisection in logarithm.

    ``low`` is a point where it is positive; ``high`` is raised (×4) until it is not. Returns
    ``inf`` when it stays positive up to 10^300; else the root to ``tolerance`` relative.
    """
    while slope(high) > 0:
        high *= 4
        if high > 1e300:
            return math.inf
    for _ in range(200):
        middle = math.sqrt(low * high)
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
        if high / low - 1 < tolerance:
            break
    return math.sqrt(low * high)


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
        big = float(_lgamma_step(theta + 1, self.n - 1))
        classes = float(np.dot(self.counts, _lgamma_step(1 - alpha, self.sizes - 1)))
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

        return base + _falling_root(slope, gap_low, gap_high, 1e-9)

    @staticmethod
    def _closer(new: np.ndarray, old: np.ndarray, point: tuple[float, float], before: tuple[float, float]) -> bool:
        """Whether the score shrank (the test near the maximum, where ``L`` no longer moves in float64)."""
        return bool(abs(new[0]) * max(1.0, abs(point[0])) + abs(new[1]) * max(1.0, abs(point[1]))
                    < abs(old[0]) * max(1.0, abs(before[0])) + abs(old[1]) * max(1.0, abs(before[1])))

    def newton(self, theta: float, alpha: float) -> tuple[float, float, int]:
        """Newton's method with step halving inside the domain, each step raising ``L``."""
        value, gradient, hessian = self.derivatives(theta, alpha)
        iteration = 0
        for iteration in range(1, _ITERATIONS + 1):  # noqa: B007 (returned)
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
                                                and self._closer(candidate[1], gradient, (t, a), (theta, alpha))):
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


def _holds(likelihood: _Likelihood, theta: float, alpha: float) -> tuple[bool, tuple[float, float]]:
    score, size = likelihood.score(theta, alpha)
    holds = abs(score[0]) <= SCORE_TOLERANCE * size[0] and abs(score[1]) <= SCORE_TOLERANCE * size[1]
    return bool(holds), (float(score[0]), float(score[1]))


def _is_maximum(likelihood: _Likelihood, theta: float, alpha: float) -> bool:
    _, _, hessian = likelihood.derivatives(theta, alpha)
    return bool(hessian[0, 0] < 0 and np.linalg.det(hessian) > 0)


def multinomial_limit(histogram: SizeHistogram) -> tuple[float, float]:
    """The supremum of the finite-class branch's limit ``α → -∞`` (``θ = m|α|``, ``m`` fixed): ``(m, L_∞(m))``.

    ``L_∞(m) = Σ_{i=1}^{u-1} ln(m-i) - (n-1) ln m`` is the log-likelihood of a multinomial
    with ``m`` equal class probabilities, on the scale of :func:`pitman_loglikelihood`.
    ``m·L_∞'(m) = Σ_i m/(m-i) - (n-1)`` falls strictly from ``+∞`` (``m → u-1``) to
    ``u - n < 0`` (``m → ∞``), so the maximum is its one root, found by bisection in
    ``ln(m - (u-1))``. Needs ``2 ≤ u < n``.

    >>> m, _ = multinomial_limit(SizeHistogram(np.array([1, 2]), np.array([1, 2])))  # A, A, B, B, C
    >>> round(m, 10) == round((9 + 17 ** 0.5) / 4, 10)  # the root of m/(m-1) + m/(m-2) = 4
    True
    """
    u, n = histogram.count, histogram.rows
    index = np.arange(1, u, dtype=float)

    def slope(gap: float) -> float:
        m = u - 1 + gap
        return float((m / (m - index)).sum()) - (n - 1)

    m = u - 1 + _falling_root(slope, 1e-12, 1.0, 1e-15)
    return m, float(np.log(m - index).sum()) - (n - 1) * math.log(m)


def fit_pitman(histogram: SizeHistogram) -> PitmanFit:
    """The maximum-likelihood fit of Pitman's sampling formula over both branches (see the module).

    The fit is the highest root of the score equations that is a maximum, provided no point
    of the profile grid and neither limit (``α → 1``, ``α → -∞``) lies above it; otherwise
    there is no fit and ``reason`` says which limit the likelihood rises to. The histogram
    has at least one class of two or more records and at least two classes.
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
    candidates: list[tuple[float, float, float, int, tuple[float, float]]] = []
    for theta, alpha in starts:
        t, a, iterations = likelihood.newton(theta, alpha)
        if a > 1 - 1e-9:
            continue
        holds, score = _holds(likelihood, t, a)
        if holds and _is_maximum(likelihood, t, a):
            candidates.append((likelihood.value(t, a), t, a, iterations, score))
    top = max(values)
    classes, limit = multinomial_limit(histogram)
    slack = 1e-9 * max(1.0, abs(top))
    best = max(candidates, key=lambda c: c[0]) if candidates else None
    if best is not None and best[0] >= max(top, limit) - slack:
        value, theta, alpha, iterations, score = best
        return PitmanFit(theta, alpha, "finite" if alpha < 0 else "infinite", value, score, True, iterations)
    if limit >= top - slack:
        return PitmanFit(None, None, None, None, None, False, 0, (
            f"the likelihood of the Pitman model has no maximum: it rises towards α → -∞ on the finite-class branch "
            f"(θ = m|α|), to a multinomial of m = {classes:.6g} equal classes (log-likelihood {limit:.10g}, above "
            f"every point of the parameter space), which predicts no population unique; a limit is not an estimate"),
            classes)
    if values[-1] >= top:
        return PitmanFit(None, None, None, None, None, False, 0, "the likelihood of the Pitman model has no maximum "
                         "inside α < 1 (it grows towards α = 1)")
    return PitmanFit(None, None, None, None, None, False, _ITERATIONS, "Newton's method found no point where the score "
                     "equations of the Pitman model hold and the likelihood is highest")
