"""Benchmark: every randomized level of a 10^6-record release, against the floor.

Data: 10^6 records, 20,000 equivalence classes (two quasi-identifiers, 200 × 100
combinations), a sensitive attribute with 50 true values (Zipf-like frequencies), and
randomized response keeping the value with probability 1/2, else uniform over the 50
values (Ekenstedt et al. 2022, Fig. 4).

* floor: read the CSV + one group-by of the quasi-identifiers and the true value
  (:func:`verifier.tables.counting.count_tables`), the least any exact measurement must do;
* whole process: read + count tables + all randomized levels (stochastic t-closeness with
  the multiplicative distance, ε-LDP, ε-DP, (k,t)-closeness and (k,ε)-DP for k = 2, 5, 10,
  100), and the same with stochastic t-closeness under the equal-distance EMD as well;
* the (k,t)-closeness curve for every k = 1..N-1 (exact per k).

Each time is the best of ``REPEAT`` runs (the machine is shared; the minimum is the least
disturbed measurement).

Run: ``python benchmarks/randomized.py [records] [--no-curve]`` (prints one line per figure).
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from mechanisms.randomized_response import ldp_randomized_response
from verifier.randomized.levels import kt_curve
from verifier.randomized.publisher import publisher_measurements
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec, CountTable
from verifier.tables.load import load_table

KS = (2, 5, 10, 100)
REPEAT = 3


def best(run: Callable[[], object]) -> tuple[float, object]:
    """The least time of ``REPEAT`` runs of ``run``, and its result."""
    times, result = [], None
    for _ in range(REPEAT):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


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


def main(records: int, curve: bool = True) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = build(records, Path(tmp))
        spec = AttributeSpec(("diagnosis",))

        def floor_run() -> CountTable:
            _, (counted,) = count_tables(load_table(path), ("region", "age"), (spec,))
            return counted

        floor, table = best(floor_run)
        mechanism = ldp_randomized_response(table.values, keep=Fraction(1, 2))
        whole, levels = best(lambda: publisher_measurements(floor_run(), mechanism, KS))
        whole_emd, with_emd = best(lambda: publisher_measurements(floor_run(), mechanism, KS, (("equal", None),)))
        if curve:
            start = time.perf_counter()
            ts = kt_curve(table, mechanism)
            curve_seconds = time.perf_counter() - start
    print(f"records {records}, classes {table.classes.count}, true values {table.m}; best of {REPEAT}")
    print(f"floor (read + group-by): {floor:.2f} s")
    print(f"whole process (read + group-by + {len(levels)} randomized levels): {whole:.2f} s, ratio {whole / floor:.2f}")
    print(f"  with the equal-distance EMD stochastic t-closeness too ({len(with_emd)} levels): {whole_emd:.2f} s, "
          f"ratio {whole_emd / floor:.2f}")
    for m in with_emd:
        print(f"  {m.model} {m.distance or ''} {dict(m.parameters)}: {m.level.exact}")
    if curve:
        print(f"(k,t) curve for k = 1..{len(ts)}: {curve_seconds:.2f} s; t(1) = {ts[0].ratio}, t(N-1) = {ts[-1].ratio}")


if __name__ == "__main__":
    numbers = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    main(int(numbers[0]) if numbers else 1_000_000, curve="--no-curve" not in sys.argv[1:])
