"""Regenerate Soria-Comas et al. 2015, Tables 1-3 and Figs. 5-6 on seeded synthetic data.

Tables 1-3: minimum/average cluster size of Algorithms 1, 2 (with the merge fallback)
and 3 on the 1,080-record MCD-like and HCD-like tables, for k in {2,5,10,15,20,25,30}
and t in {0.01, 0.05, ..., 0.25}. Fig. 6: normalized SSE (eq. 5) against t for k = 2.
Fig. 5: run time against t for k = 2 on the 23,435-record table (Algorithm 2 on a
``--fig5-alg2`` record sample: its swap loop is quadratic per cluster). Every release is
checked with the verifier (k and t exact) before it is counted.

    .venv/bin/python examples/microaggregation/reproduce.py [--quick] [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import census_like, discharge_like  # noqa: E402

from mechanisms.microaggregation import microaggregate  # noqa: E402

ALGORITHMS = {"merge": "Algorithm 1", "k-anonymity-first": "Algorithm 2", "t-closeness-first": "Algorithm 3"}
KS = [2, 5, 10, 15, 20, 25, 30]
TS = ["0.01", "0.05", "0.09", "0.13", "0.17", "0.21", "0.25"]
DATASETS = {"MCD": "fedtax", "HCD": "fica"}
QI = ["taxinc", "pothval"]
DISCHARGE_QI = ["age", "zip", "admission_day", "length_of_stay", "severity", "procedures", "diagnoses"]


def run(frame, qi, sensitive, k, t, algorithm):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = microaggregate(frame, qi, sensitive, k=k, t=Fraction(t), algorithm=algorithm)
    seconds = time.perf_counter() - start
    assert result.achieved.meets(k, Fraction(t)), (algorithm, k, t)
    return result, seconds


def tables(frame, ks, ts) -> str:  # type: ignore[no-untyped-def]
    out = []
    for number, algorithm in enumerate(ALGORITHMS, start=1):
        head = "| | " + " | ".join(f"t = {t} MCD | t = {t} HCD" for t in ts) + " |"
        lines = [f"### Table {number}: {ALGORITHMS[algorithm]} ({algorithm}), minimum/average cluster size", "",
                 head, "|---" * (1 + 2 * len(ts)) + "|"]
        for k in ks:
            cells = []
            for t in ts:
                for sensitive in DATASETS.values():
                    result, _ = run(frame, QI, sensitive, k, t, algorithm)
                    sizes = np.bincount(result.partition.labels)
                    cells.append(f"{sizes.min()}/{round(sizes.mean())}")
            lines.append(f"| k = {k} | " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
        out.append("\n".join(lines))
    return "\n\n".join(out)


def figure(xs, series, ylabel, title, path, log=False) -> None:  # type: ignore[no-untyped-def]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for label, ys in series.items():
        ax.plot(xs, ys, marker="o", label=label)
    ax.set_xlabel("t")
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    for suffix in (".svg", ".png"):
        fig.savefig(path.with_suffix(suffix))
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small smoke run (few k, t; 200 and 600 records)")
    parser.add_argument("--out", type=Path, default=None,
                        help="where to write results.md and the figures (default: this folder for the full run, "
                             "a new temporary folder for --quick, so a smoke run never replaces the results)")
    parser.add_argument("--fig5-alg2", type=int, default=2_000, help="records for Algorithm 2 in Fig. 5")
    args = parser.parse_args()
    if args.out is None:
        args.out = (Path(tempfile.mkdtemp(prefix="privcert-microaggregation-")) if args.quick
                    else Path(__file__).resolve().parent)
    args.out.mkdir(parents=True, exist_ok=True)
    census = census_like(n=200 if args.quick else 1080)
    ks, ts = ([2, 5], ["0.05", "0.25"]) if args.quick else (KS, TS)
    report = ["# Reproduction of Soria-Comas et al. 2015, Tables 1-3", "",
              f"{len(census)} synthetic records (examples/microaggregation/synthetic.py); every release passed the "
              "verifier's exact k-anonymity and t-closeness checks.", "", tables(census, ks, ts)]

    fig6_ts = [f"{x / 100:.2f}" for x in ([5, 25] if args.quick else range(2, 26))]
    report += ["", "## Fig. 6: normalized SSE, k = 2", "", "| t | " + " | ".join(
        f"{name} {ALGORITHMS[a]}" for name in DATASETS for a in ALGORITHMS) + " |",
        "|---" * (1 + len(DATASETS) * len(ALGORITHMS)) + "|"]
    sse = {(name, a): [] for name in DATASETS for a in ALGORITHMS}
    for t in fig6_ts:
        for name, sensitive in DATASETS.items():
            for a in ALGORITHMS:
                sse[name, a].append(run(census, QI, sensitive, 2, t, a)[0].achieved.sse)
        report.append(f"| {t} | " + " | ".join(f"{sse[key][-1]:.4f}" for key in sse) + " |")
    xs = [float(t) for t in fig6_ts]
    for name in DATASETS:
        figure(xs, {ALGORITHMS[a]: sse[name, a] for a in ALGORITHMS}, "normalized SSE",
               f"Fig. 6 ({name}-like, k = 2)", args.out / f"fig6_{name.lower()}")

    discharge = discharge_like(n=600 if args.quick else 23_435)
    sample = discharge.sample(n=min(args.fig5_alg2, len(discharge)), random_state=0).reset_index(drop=True)
    fig5_ts = ["0.05", "0.25"] if args.quick else ["0.02", "0.05", "0.10", "0.15", "0.20", "0.25"]
    seconds = {a: [] for a in ALGORITHMS}
    for t in fig5_ts:
        for a in ALGORITHMS:
            data = sample if a == "k-anonymity-first" else discharge
            seconds[a].append(run(data, DISCHARGE_QI, "charge", 2, t, a)[1])
            print(f"fig5 t={t} {a}: {seconds[a][-1]:.2f} s", flush=True)
    report += ["", f"## Fig. 5: run time (s), k = 2, {len(discharge)} records "
               f"(Algorithm 2: {len(sample)}-record sample)", "",
               "| t | " + " | ".join(ALGORITHMS.values()) + " |", "|---|---|---|---|"]
    report += [f"| {t} | " + " | ".join(f"{seconds[a][i]:.2f}" for a in ALGORITHMS) + " |"
               for i, t in enumerate(fig5_ts)]
    figure([float(t) for t in fig5_ts], {ALGORITHMS[a]: seconds[a] for a in ALGORITHMS}, "seconds (log scale)",
           "Fig. 5 (discharge-like, k = 2)", args.out / "fig5", log=True)
    (args.out / "results.md").write_text("\n".join(report) + "\n", encoding="utf-8")
    print(f"wrote {args.out / 'results.md'}")


if __name__ == "__main__":
    main()
