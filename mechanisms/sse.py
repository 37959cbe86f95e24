"""Normalized sum of squared errors of a microaggregated release (Soria-Comas et al. 2015, eq. 5).

.. math::

    \\mathrm{SSE} = \\frac{1}{n} \\sum_{j=1}^{n} \\frac{1}{m} \\sum_{i=1}^{m}
        \\mathrm{NED}(a^i_j, a'^i_j)^2,
    \\qquad \\mathrm{NED}(a, a') = \\frac{a - a'}{\\sigma_i}

over the ``m`` quasi-identifiers (the only attributes microaggregation changes; the
confidential attribute is released as it is and would add zeros), where ``σ_i`` is the
standard deviation of attribute ``i`` in the original table, so the measure depends
neither on the number of records and attributes nor on the attributes' ranges. The
paper does not spell out its normalization of the Euclidean distance; dividing by the
standard deviation is the one MDAV's standardization already uses. A categorical
quasi-identifier enters through its rank in the declared order.

>>> import pandas as pd
>>> original = pd.DataFrame({"x": [0.0, 2.0, 4.0, 6.0]})
>>> release = pd.DataFrame({"x": [1.0, 1.0, 5.0, 5.0]})
>>> round(normalized_sse(original, release, ["x"]), 12)   # each error is ±1, σ² = 5
0.2
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mechanisms.mdav import Orders, qi_columns

__all__ = ["normalized_sse"]


def normalized_sse(
    original: pd.DataFrame, release: pd.DataFrame, qi: Sequence[str], orders: Orders | None = None
) -> float:
    """Eq. (5) of Soria-Comas et al. 2015 between ``original`` and its ``release``.

    The two tables must list the same records in the same order. A constant attribute
    (``σ = 0``) contributes 0.
    """
    if len(original) != len(release):
        raise ValueError(f"expected the same records in both tables, found {len(original)} and {len(release)} rows")
    before = qi_columns(original, qi, orders, source="original")
    after = qi_columns(release, qi, orders, source="release")
    spread = before.std(axis=0)
    errors = np.where(spread > 0, (before - after) / np.where(spread > 0, spread, 1.0), 0.0)
    return float(np.mean(errors**2)) if errors.size else 0.0
