"""SUDA2 on a generated release of 10^5 records and 13 quasi-identifiers: privcert against sdcMicro.

Run from the repository root::

    .venv/bin/python benchmarks/suda.py --rows 100000 --qi 13

The release is generated (seeded): 13 categorical columns with 2 to 14 values, each drawn
from a Zipf-like law, so that there are sample uniques of every MSU size. privcert's
``verifier.risk.suda.suda2`` runs with its progress shown on stderr. When R with the
sdcMicro package is installed (``Rscript -e 'library(sdcMicro)'``), sdcMicro's
``suda2`` (its C++ code) runs on the same CSV and both times are printed, with the
largest difference of the SUDA scores; otherwise only privcert's time is. privcert's time
covers the group-by and the search, as wall-clock and CPU seconds (the CPU time is the
one to compare on a machine shared with other work).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
from rich.progress import Progress

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifier.risk.suda import suda2  # noqa: E402
from verifier.tables.counting import count_tables  # noqa: E402

R_SCRIPT = """
suppressMessages(library(sdcMicro))
d <- read.csv(commandArgs(TRUE)[1], colClasses = "character")
for (c in names(d)) d[[c]] <- as.numeric(factor(d[[c]]))
t <- system.time(s <- suda2(d, DisFraction = 0.01))[["elapsed"]]
cat(t, "\\n")
write.csv(data.frame(score = s$score), commandArgs(TRUE)[2], row.names = FALSE)
"""


def release(rows: int, columns: int, seed: int) -> pd.DataFrame:
    """The generated release: column ``q{i}`` has ``2 + i`` values with probabilities ∝ 1/rank."""
    rng = np.random.default_rng(seed)
    data = {}
    for i in range(columns):
        values = 2 + i
        p = 1 / np.arange(1, values + 1)
        data[f"q{i}"] = rng.choice(values, size=rows, p=p / p.sum()).astype(str)
    return pd.DataFrame(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--qi", type=int, default=13)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    frame = release(args.rows, args.qi, args.seed)
    qi = list(frame.columns)
    start, cpu = time.perf_counter(), time.process_time()
    classes, _ = count_tables(frame, qi, [])
    with Progress(transient=True) as bar:
        task = bar.add_task("SUDA2", total=args.qi)
        result = suda2(classes, dis_fraction=Fraction(1, 100),
                       progress=lambda done, total: bar.update(task, completed=done, total=total))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"privcert: {seconds:.2f} s ({cpu:.2f} s CPU; {args.rows} records, {len(qi)} quasi-identifiers, {classes.count} classes, "
          f"{result.msu_records.size} MSUs, {result.special_uniques()} special uniques)")
    if shutil.which("Rscript") is None or subprocess.run(["Rscript", "-e", "library(sdcMicro)"],
                                                         capture_output=True).returncode != 0:
        print("sdcMicro: not installed (R with the sdcMicro package is needed to compare)")
        return
    with tempfile.TemporaryDirectory() as folder:
        data, scores = Path(folder) / "release.csv", Path(folder) / "scores.csv"
        frame.to_csv(data, index=False)
        script = Path(folder) / "suda.R"
        script.write_text(R_SCRIPT)
        done = subprocess.run(["Rscript", str(script), str(data), str(scores)], capture_output=True, text=True,
                              check=True)
        key = frame.astype(str).agg("\r".join, axis=1)
        first = {k: i for i, k in enumerate(pd.unique(key))}
        ours = np.array([int(result.scores[first[k]]) for k in key], dtype=float)
        theirs = pd.read_csv(scores)["score"].to_numpy()
        print(f"sdcMicro suda2: {float(done.stdout.split()[0]):.2f} s; largest SUDA score difference "
              f"{float(np.abs(ours - theirs).max()):g}")


if __name__ == "__main__":
    main()
