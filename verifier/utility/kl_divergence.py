"""KL divergence between the original and the distribution a user rebuilds from the release (Kifer & Gehrke 2006, Sec. 3).

Over the domain of quasi-identifier tuples, ``p`` is the original's distribution and ``q``
the maximum-entropy reconstruction from the release: each released record spreads its
weight ``1/N`` evenly over the tuples its cells cover (``c_1 ⋯ c_m`` of them; a suppressed
record over the whole domain). ``raw = Σ_x p(x) log2(p(x) / q(x))`` over the original's
distinct tuples, in bits; it needs every quasi-identifier generalized.

ARX (``MetricSDNMKLDivergence``, an optimization metric; ``StatisticsQuality`` has no KL
model) uses ``min = 0`` and ``max`` the divergence from the uniform distribution over the
domain (every record suppressed); the quality here is ``1 - raw / max`` with both computed
as above. Two differences from ARX's code, both where the paper is clear: ARX sums over
the original's rows rather than its distinct tuples (weighting a tuple of ``n`` records
``n`` times) and gives each tuple only its own class's reconstruction, where a tuple
covered by several released classes (local recoding) receives weight from each.
Logarithms: floats.

>>> import pandas as pd
>>> from verifier.utility.pair import align
>>> pair = align(pd.DataFrame({"a": ["x", "y"]}), pd.DataFrame({"a": ["*", "*"]}), ["a"])
>>> kl_divergence(pair)[0].raw     # p = q = uniform over {x, y}
0.0
"""

from __future__ import annotations

import math
from fractions import Fraction

from verifier.utility.figure import Figure, arx_quality
from verifier.utility.non_uniform_entropy import log2
from verifier.utility.pair import Pair

__all__ = ["kl_divergence"]

SOURCE = "Kifer & Gehrke 2006"


def kl_divergence(pair: Pair) -> tuple[Figure]:
    """The release's KL divergence from the original, in bits."""
    problem = pair.generalization_problem
    if problem is not None:
        return (Figure("kl_divergence", None, None, None, "bits", f"not applicable: {problem}"),)
    n, columns = pair.rows, pair.columns
    domain = math.prod(column.domain.size for column in columns)
    released = pair.release_classes
    weight = {y: Fraction(size, n * math.prod(c.domain.leaf_count(v) for c, v in zip(columns, y, strict=True)))
              for y, size in released.items()}
    background = Fraction(sum(pair.suppressed), n * domain)
    holders: list[dict[str | None, set[int]]] = [{} for _ in columns]
    ids = list(weight)
    for index, y in enumerate(ids):
        for j, value in enumerate(y):
            holders[j].setdefault(value, set()).add(index)
    divergence = most = 0.0
    for x, count in pair.original_classes.items():
        p = Fraction(count, n)
        candidates: set[int] | None = None
        for j, leaf in enumerate(x):
            covering = set(holders[j].get(None, ()))
            for node in columns[j].domain.ancestors(leaf):
                covering |= holders[j].get(node, set())
            candidates = covering if candidates is None else candidates & covering
        q = background + sum((weight[ids[i]] for i in candidates or ()), Fraction(0))
        divergence += float(p) * log2(p / q)
        most += float(p) * log2(p * domain)
    divergence = max(divergence, 0.0)  # rounding of terms that cancel exactly
    return (Figure("kl_divergence", None, divergence, arx_quality(divergence, 0.0, most), "bits"),)
