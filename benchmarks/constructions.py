"""Time the constructions on the 23,435-record, 7-quasi-identifier synthetic table.

Soria-Comas et al. 2015, §8.2 (Fig. 5) runs its algorithms on 23,435 Patient Discharge
records with 7 quasi-identifiers and k = 2. This script times Algorithm 3
(t-closeness-first, t = 0.05 by default) and, with ``--all``, Algorithm 1 too, on the
seeded stand-in of examples/microaggregation/synthetic.py, and checks each release with
the verifier. Run from the repository root:

    .venv/bin/python benchmarks/constructions.py [--t 0.05] [--k 2] [--repeat 3] [--all]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "microaggregation"))

from synthetic import discharge_like  # noqa: E402

from mechanisms.microaggregation import microaggregate  # noqa: E402

QI = ["age", "zip", "admission_day", "length_of_stay", "severity", "procedures", "diagnoses"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t", default="0.05")
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--all", action="store_true", help="also time Algorithm 1 (merge)")
    args = parser.parse_args()
    frame = discharge_like()
    t = Fraction(args.t)
    print(f"{len(frame)} records, {len(QI)} quasi-identifiers, k = {args.k}, t = {args.t}; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    for algorithm in ["t-closeness-first"] + (["merge"] if args.all else []):
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = microaggregate(frame, QI, "charge", k=args.k, t=t, algorithm=algorithm)  # type: ignore[arg-type]
            times.append(time.perf_counter() - start)
        achieved = result.achieved
        print(f"{algorithm}: median {statistics.median(times):.2f} s of {args.repeat} "
              f"(min {min(times):.2f}); cluster size {result.partition.cluster_size}, "
              f"{result.partition.clusters} clusters, {result.partition.merges} merges; verifier: "
              f"k = {achieved.k.level.exact}, t = {achieved.t.level.number:.4f}, SSE = {achieved.sse:.4f}")


if __name__ == "__main__":
    main()
