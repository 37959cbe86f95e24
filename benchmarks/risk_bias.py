"""Bias and RMSE of the population-uniqueness estimators on samples of known populations.

Run from the repository root::

    .venv/bin/python benchmarks/risk_bias.py                      # the table of docs/risk.md (under a minute)
    .venv/bin/python benchmarks/risk_bias.py --people 500000 --replicates 200

Dankar, El Emam, Neisa & Roffey (2012) judged the estimators of population uniqueness by
drawing samples from populations whose uniques are known and comparing the estimates
with the truth. This script does the same on synthetic populations with known class
structure (seeded, so the table is reproducible):

* ``zipf``: class sizes drawn from a Zipf law with exponent 2 (a heavy tail, many uniques);
* ``snb``: class sizes ``1 + NegBin(1, 3/10)``, the shifted negative binomial that the SNB
  estimator assumes (Chen & Keller-McNulty 1998);
* ``pitman``: a Chinese restaurant process with θ = 1000 and α = 1/2, the two-parameter
  Pitman model that the Pitman estimator fits (Pitman 1996);
* ``poisson``: class sizes Poisson(3) conditioned on at least 1 (few uniques);
* ``microdata``: five independent categorical attributes with 2, 6, 12, 40 and 80 values
  and Zipf-like marginals, a class per combination present (a cross-classification, as
  the quasi-identifiers of a real release are).

From each population, ``--replicates`` simple random samples (without replacement: a
multivariate hypergeometric draw of the class sizes) are drawn at each sampling fraction;
each estimator privcert has (:data:`verifier.risk.population.ESTIMATORS`) estimates the
share of the population's records that are unique in the population, with the population
size known. The table gives, per population and fraction, the true share and, per
estimator, the bias (mean estimate - true share) and the root mean squared error, in
percentage points of the population; ``n/a k`` says that ``k`` samples had no estimate
(they are left out of that estimator's bias and RMSE).
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifier.risk.histogram import sampling, size_histogram  # noqa: E402
from verifier.risk.population import ESTIMATORS, estimate  # noqa: E402

FRACTIONS = (Fraction(1, 100), Fraction(1, 20), Fraction(1, 10), Fraction(3, 10))


def _filled(draw: np.ndarray, people: int) -> np.ndarray:
    """Class sizes from ``draw`` (positive) kept while their total is at most ``people``, the last one cut to fit."""
    total = np.cumsum(draw)
    kept = draw[total <= people].copy()
    rest = people - int(kept.sum())
    return np.append(kept, rest) if rest else kept


def _restaurant(people: int, theta: float, alpha: float, rng: np.random.Generator) -> np.ndarray:
    """Class sizes of the Pitman (two-parameter Chinese restaurant) process with ``θ`` and ``α`` (Pitman 1996).

    Record ``i + 1`` opens a new class with probability ``(θ + Kα) / (θ + i)`` (``K`` classes
    so far), else joins class ``j`` with probability ∝ ``n_j - α``: a uniformly chosen earlier
    record's class (∝ ``n_j``), kept with probability ``1 - α / n_j``.
    """
    uniform = rng.random
    owner: list[int] = []
    sizes: list[int] = []
    for i in range(people):
        if uniform() * (theta + i) < theta + len(sizes) * alpha:
            sizes.append(0)
            chosen = len(sizes) - 1
        else:
            while True:
                chosen = owner[int(uniform() * i)]
                if uniform() * sizes[chosen] >= alpha:
                    break
        sizes[chosen] += 1
        owner.append(chosen)
    return np.array(sizes, dtype=np.int64)


def population(name: str, people: int, rng: np.random.Generator) -> np.ndarray:
    """The class sizes of the population ``name`` (they sum to ``people``)."""
    if name == "zipf":
        return _filled(np.minimum(rng.zipf(2.0, size=people), people), people)
    if name == "snb":
        return _filled(1 + rng.negative_binomial(1, 0.3, size=people), people)
    if name == "pitman":
        return _restaurant(people, 1000.0, 0.5, rng)
    if name == "poisson":
        draw = rng.poisson(3.0, size=2 * people)
        return _filled(draw[draw > 0], people)
    if name == "microdata":
        codes = np.zeros(people, dtype=np.int64)
        for values in (2, 6, 12, 40, 80):
            weights = 1 / np.arange(1, values + 1)
            codes = codes * values + rng.choice(values, size=people, p=weights / weights.sum())
        return np.unique(codes, return_counts=True)[1]
    raise ValueError(f"unknown population {name!r}")


POPULATIONS = ("zipf", "snb", "pitman", "poisson", "microdata")


def errors(sizes: np.ndarray, fraction: Fraction, replicates: int,
           rng: np.random.Generator) -> tuple[float, dict[str, list[float]], dict[str, int]]:
    """The true share of population uniques; each estimator's errors (estimate - truth) and samples without one."""
    people = int(sizes.sum())
    truth = int((sizes == 1).sum()) / people
    rows = int(Fraction(people) * fraction)
    frame = sampling(rows, population=people)
    found: dict[str, list[float]] = {e: [] for e in ESTIMATORS}
    missing = dict.fromkeys(ESTIMATORS, 0)
    for _ in range(replicates):
        drawn = rng.multivariate_hypergeometric(sizes, rows, method="marginals")
        histogram = size_histogram(drawn[drawn > 0])
        for estimator in ESTIMATORS:
            share = estimate(estimator, histogram, frame).share
            if share is None:
                missing[estimator] += 1
            else:
                found[estimator].append(share - truth)
    return truth, found, missing


def _cell(errors: list[float], missing: int) -> str:
    if not errors:
        return f"n/a {missing}"
    values = np.array(errors) * 100
    text = f"{values.mean():+.2f} / {np.sqrt((values ** 2).mean()):.2f}"
    return text + (f" (n/a {missing})" if missing else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=50_000, help="records of each population (default 50,000)")
    parser.add_argument("--replicates", type=int, default=10, help="samples per population and fraction (default 10)")
    parser.add_argument("--seed", type=int, default=2012)
    arguments = parser.parse_args()
    rng = np.random.default_rng(arguments.seed)
    started = time.perf_counter()
    names = ", ".join(e.capitalize() if e != "snb" else "SNB" for e in ESTIMATORS)
    print(f"Bias / RMSE in percentage points of the population ({names}); "
          f"{arguments.people:,} people, {arguments.replicates} samples per row, seed {arguments.seed}")
    print()
    print("| population | fraction | true share (%) | " + " | ".join(ESTIMATORS) + " |")
    print("|---|---|---|" + "---|" * len(ESTIMATORS))
    for name in POPULATIONS:
        sizes = population(name, arguments.people, rng)
        for fraction in FRACTIONS:
            truth, found, missing = errors(sizes, fraction, arguments.replicates, rng)
            cells = " | ".join(_cell(found[e], missing[e]) for e in ESTIMATORS)
            print(f"| {name} | {fraction} | {truth * 100:.2f} | {cells} |")
    print(f"\n({time.perf_counter() - started:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
