"""Benchmark: every randomized level of a 10^6-record release, against the floor.

Data: 10^6 records, 20,000 equivalence classes (two quasi-identifiers, 200 × 100
combinations), a sensitive attribute with 50 true values (Zipf-like frequencies), and
randomized response keeping the value with probability 1/2, else uniform over the 50
values (Ekenstedt et al. 2022, Fig. 4).

* floor: read the CSV + one group-by of the quasi-identifiers and the true value
  (:func:`verifier.counts.count_tables`), the least any exact measurement must do;
* whole process: read + count tables + all randomized levels (stochastic t-closeness with
  the multiplicative distance and with the equal-distance EMD, ε-LDP, ε-DP,
  (k,t)-closeness and (k,ε)-DP for k = 2, 5, 10, 100);
* the (k,t)-closeness curve for every k = 1..N-1 (exact per k).

Run: ``python benchmarks/randomized.py [records]`` (prints one line per figure).
"""

from __future__ import annotations

import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from mechanisms.randomized_response import ldp_randomized_response
from verifier.counts import AttributeSpec, count_tables
from verifier.load import load_table
from verifier.randomized import kt_curve
from verifier.randomized_release import publisher_measurements

KS = (2, 5, 10, 100)


def build(records: int, folder: Path) -> Path:
    rng = np.random.default_rng(2024)
    weights = 1 / np.arange(1, 51)
    frame = pd.DataFrame({
        "region": rng.integers(0, 200, records).astype(str),
        "age": rng.integers(0, 100, records),
        "diagnosis": np.char.add("d", rng.choice(50, records, p=weights / weights.sum()).astype(str)),
    })
    path = folder / "original.csv"
    frame.to_csv(path, index=False)
    return path


def main(records: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = build(records, Path(tmp))
        spec = AttributeSpec(("diagnosis",))
        start = time.perf_counter()
        frame = load_table(path)
        _, (table,) = count_tables(frame, ("region", "age"), (spec,))
        floor = time.perf_counter() - start

        mechanism = ldp_randomized_response(table.values, keep=Fraction(1, 2))
        start = time.perf_counter()
        frame = load_table(path)
        _, (table,) = count_tables(frame, ("region", "age"), (spec,))
        levels = publisher_measurements(table, mechanism, KS, (("equal", None),))
        whole = time.perf_counter() - start

        start = time.perf_counter()
        curve = kt_curve(table, mechanism)
        curve_seconds = time.perf_counter() - start
    print(f"records {records}, classes {table.classes.count}, true values {table.m}")
    print(f"floor (read + group-by): {floor:.2f} s")
    print(f"whole process (read + group-by + {len(levels)} randomized levels): {whole:.2f} s, ratio {whole / floor:.2f}")
    for m in levels:
        print(f"  {m.model} {m.distance or ''} {dict(m.parameters)}: {m.level.exact}")
    print(f"(k,t) curve for k = 1..{len(curve)}: {curve_seconds:.2f} s; t(1) = {curve[0].ratio}, t(N-1) = {curve[-1].ratio}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
