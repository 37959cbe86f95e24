"""Build the hospital-style release that ``privcert demo`` audits.

A synthetic admissions table (seeded, so the release is reproducible byte for byte) is
anonymized by t-closeness-first microaggregation (Soria-Comas et al. 2015, Algorithm 3):
clusters of at least ``k = 5`` patients whose length-of-stay distribution is within
``t = 1/5`` (ordered EMD) of the whole table; each patient's age and ZIP code are
replaced by the cluster's centroid (age to one decimal, ZIP to the nearest integer).
Rounding can only merge clusters, and a merged cluster stays ``k``-anonymous and, the
EMD being convex, ``t``-close. The diagnosis is released as it is.

Run from the repository root::

    python examples/hospital/build.py        # writes privcert/data/hospital/release.csv

The original table is bundled too, as ``examples/hospital/admissions.csv`` (``--original
FILE`` writes it elsewhere), for the documentation's ``privcert anonymize`` examples.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from mechanisms.microaggregation import microaggregate

TARGET = Path(__file__).resolve().parents[2] / "privcert" / "data" / "hospital" / "release.csv"
ORIGINAL = Path(__file__).resolve().parent / "admissions.csv"
PATIENTS = 300
SEED = 2026
DIAGNOSES = ("appendicitis", "asthma", "bronchitis", "diabetes", "fracture", "heart failure", "influenza", "pneumonia")


def admissions(patients: int = PATIENTS, seed: int = SEED) -> pd.DataFrame:
    """The synthetic original table: age, ZIP code, diagnosis and length of stay (days)."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 91, patients)
    zip_code = rng.choice([47601, 47605, 47677, 47678, 47901, 47905, 47909], patients)
    diagnosis = rng.choice(DIAGNOSES, patients)
    stay = np.clip(np.round(rng.gamma(2.0, 2.5, patients) + (age > 65) * 2), 1, 30).astype(int)
    return pd.DataFrame({"age": age, "zip": zip_code, "diagnosis": diagnosis, "stay_days": stay})


def release(original: pd.DataFrame) -> pd.DataFrame:
    """The anonymized release (k = 5, t = 1/5 on the length of stay)."""
    made = microaggregate(original, ["age", "zip"], "stay_days", k=5, t=Fraction(1, 5), seed=SEED,
                          keep=["diagnosis"])
    out = made.release.copy()
    out["age"] = [f"{value:.1f}" for value in out["age"]]
    out["zip"] = [f"{value:.0f}" for value in out["zip"]]
    return out[["age", "zip", "diagnosis", "stay_days"]]


def main(target: Path = TARGET, original: Path = ORIGINAL) -> int:
    table = admissions()
    for path, frame in ((original, table), (target, release(table))):
        path.parent.mkdir(parents=True, exist_ok=True)
        frame.to_csv(path, index=False, lineterminator="\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", nargs="?", type=Path, default=TARGET, help="where to write the release")
    parser.add_argument("--original", type=Path, default=ORIGINAL, help="where to write the original table")
    arguments = parser.parse_args()
    sys.exit(main(arguments.target, arguments.original))
