"""Seeded synthetic stand-ins for the data sets of Soria-Comas et al. 2015, §8.

* :func:`census_like`: 1,080 records, two quasi-identifiers (``taxinc``, ``pothval``)
  and two confidential attributes whose correlation with ``taxinc`` is about 0.52
  (``fedtax``, like the paper's MCD) and about 0.92 (``fica``, like HCD).
* :func:`discharge_like`: 23,435 records, seven numerical quasi-identifiers and one
  confidential attribute (``charge``) with correlation about 0.129 to them (the paper's
  Patient Discharge subset).

Values are whole numbers (like amounts in dollars), so ties occur as in real data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _correlated(rng: np.random.Generator, base: np.ndarray, rho: float) -> np.ndarray:
    return rho * base + np.sqrt(1 - rho**2) * rng.normal(size=base.size)


def census_like(seed: int = 2015, n: int = 1080) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    return pd.DataFrame({
        "taxinc": np.round(30_000 + 12_000 * z),
        "pothval": np.round(8_000 + 3_000 * _correlated(rng, z, 0.4)),
        "fedtax": np.round(5_000 + 2_000 * _correlated(rng, z, 0.52)),
        "fica": np.round(2_500 + 900 * _correlated(rng, z, 0.92)),
    })


def discharge_like(seed: int = 2010, n: int = 23_435) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 7))
    score = q.sum(axis=1) / np.sqrt(7)
    frame = pd.DataFrame({
        "age": np.clip(np.round(50 + 18 * q[:, 0]), 0, 100),
        "zip": np.round(90_000 + 400 * q[:, 1]),
        "admission_day": np.round(180 + 100 * q[:, 2]),
        "length_of_stay": np.clip(np.round(5 + 3 * q[:, 3]), 1, None),
        "severity": np.round(3 + q[:, 4]),
        "procedures": np.clip(np.round(4 + 2 * q[:, 5]), 0, None),
        "diagnoses": np.clip(np.round(8 + 3 * q[:, 6]), 1, None),
    })
    frame["charge"] = np.round(40_000 + 15_000 * _correlated(rng, score, 0.129))
    return frame
