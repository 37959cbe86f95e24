"""Soria-Comas et al. 2015, Tables 1-3 and Fig. 6, on the paper's own Census data (CASC).

The paper's §8.1 data set is the CASC reference microdata (1,080 records, ``data/casc.csv``,
see ``data/PROVENANCE.md``): quasi-identifiers TAXINC and POTHVAL, confidential FEDTAX
("MCD") or FICA ("HCD"). For every cell the script runs privcert's construction
(:func:`mechanisms.microaggregation.microaggregate`, seed 0), checks the release with the
verifier (k and t exact) and prints the paper's minimum/average cluster size beside the
measured one for both confidential attributes. Fig. 6 (normalized SSE against t, k = 2)
is drawn for HCD, MCD and, in place of the paper's Patient Discharge data (not public),
the CASC EIA data (``data/eia.csv``). ``--quick`` runs the k ∈ {2, 5, 10}, t ∈ {0.05,
0.13, 0.25} cells of Table 3 and the data checks only.

    .venv/bin/python examples/microaggregation/reproduce_casc.py [--quick] [--out DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
from fractions import Fraction
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from mechanisms._cluster_emd import RankedValues  # noqa: E402
from mechanisms.mdav import qi_matrix  # noqa: E402
from mechanisms.microaggregation import microaggregate  # noqa: E402
from mechanisms.t_closeness_microaggregation import proposition2_bound  # noqa: E402

HERE = Path(__file__).resolve().parent
CASC = HERE / "data" / "casc.csv"
EIA = HERE / "data" / "eia.csv"
SHA256 = {
    "casc.csv": "40fb91564d4379274610e941161fd38729adb471bddb9c71d7c01ef142fd0f5b",
    "eia.csv": "4df54e21b3451e3c0b6081fa1c9ef5dbd8f09d484925ed2ade759b78b4869d1b",
}
QI = ["TAXINC", "POTHVAL"]
# The paper's names: MCD takes FEDTAX, HCD takes FICA (§8.1).
DATASETS = {"MCD": "FEDTAX", "HCD": "FICA"}
EIA_QI = ["RESSALES", "COMSALES", "INDSALES"]
EIA_SENSITIVE = "OTHREVENUE"
ALGORITHMS = {1: "merge", 2: "k-anonymity-first", 3: "t-closeness-first"}
KS = [2, 5, 10, 15, 20, 25, 30]
TS = ["0.01", "0.05", "0.09", "0.13", "0.17", "0.21", "0.25"]

# Tables 1-3 as printed: one row per k, cells "minimum/average" for t = 0.01 MCD, t = 0.01
# HCD, t = 0.05 MCD, ... t = 0.25 HCD.
PRINTED_TEXT = {
    1: """
2   1080/1080 1080/1080 56/120    36/98     20/42     16/31     8/20      8/52      4/10      4/9       4/7       4/7       2/8       2/5
5   1080/1080 1080/1080 385/540   200/216   40/154    40/60     20/47     20/80     10/24     10/21     10/17     10/15     5/12      5/11
10  1080/1080 1080/1080 1080/1080 1080/1080 110/270   180/216   40/108    40/190    20/57     20/47     20/35     20/31     10/24     10/20
15  1080/1080 1080/1080 1080/1080 495/540   135/360   195/270   45/90     60/270    30/64     30/68     30/45     30/54     15/33     15/33
20  1080/1080 1080/1080 380/540   240/360   160/216   180/216   80/154    60/140    40/83     40/72     40/54     40/60     20/37     20/40
25  1080/1080 1080/1080 1080/1080 1080/1080 1080/1080 230/360   455/540   50/250    50/180    50/98     50/90     50/72     25/72     25/48
30  1080/1080 1080/1080 540/540   1080/1080 270/360   330/540   120/180   150/390   60/98     60/108    60/77     60/90     30/57     30/57
""",
    2: """
2   164/216   156/360   8/10      8/11      4/7       4/7       4/6       4/4       2/3       2/3       2/3       2/3       2/3       2/3
5   40/64     80/154    10/16     10/10     5/7       5/8       5/7       5/8       5/7       5/7       5/7       5/8       5/6       5/7
10  40/108    80/135    10/17     10/17     10/17     10/17     10/15     10/16     10/15     10/14     10/13     10/14     10/12     10/12
15  30/57     30/60     15/28     15/30     15/25     15/26     15/23     15/23     15/23     15/22     15/19     15/21     15/16     15/17
20  40/54     40/49     20/37     20/43     20/35     20/36     20/32     20/32     20/31     20/29     20/26     20/28     20/22     20/23
25  50/51     50/51     25/51     25/51     25/43     25/43     25/39     25/39     25/40     25/37     25/32     25/35     25/28     25/26
30  30/57     60/64     30/68     30/64     30/54     30/54     30/49     30/47     30/47     30/43     30/37     30/42     30/34     30/34
""",
    3: """
2   49/49     49/49     10/10     10/10     6/6       6/6       4/4       4/4       3/3       3/3       3/3       3/3       2/2       2/2
5   49/49     49/49     10/10     10/10     6/6       6/6       5/5       5/5       5/5       5/5       5/5       5/5       5/5       5/5
10  49/49     49/49     10/10     10/10     10/10     10/10     10/10     10/10     10/10     10/10     10/10     10/10     10/10     10/10
15  49/49     49/49     15/15     15/15     15/15     15/15     15/15     15/15     15/15     15/15     15/15     15/15     15/15     15/15
20  49/49     49/49     20/20     20/20     20/20     20/20     20/20     20/20     20/20     20/20     20/20     20/20     20/20     20/20
25  49/49     49/49     25/25     25/25     25/25     25/25     25/25     25/25     25/25     25/25     25/25     25/25     25/25     25/25
30  49/49     49/49     30/30     30/30     30/30     30/30     30/30     30/30     30/30     30/30     30/30     30/30     30/30     30/30
""",
}


def printed() -> dict[tuple[int, int, str, str], str]:
    """``(table, k, t, "MCD"|"HCD") -> "min/avg"`` as printed in Tables 1-3."""
    cells = {}
    for table, text in PRINTED_TEXT.items():
        for line in text.strip().splitlines():
            k, *values = line.split()
            for i, value in enumerate(values):
                cells[table, int(k), TS[i // 2], ("MCD", "HCD")[i % 2]] = value
    return cells


def inconsistent_averages(n: int = 1080) -> list[str]:
    """Printed cells whose average is not ``n / c`` (rounded, or rounded down or up) for
    any cluster count ``c``, or whose minimum exceeds the average."""
    bad = []
    for (table, k, t, name), cell in printed().items():
        low, mean = (int(x) for x in cell.split("/"))
        counts = range(1, n // max(low, 1) + 1)
        if low > mean or not any(mean in (round(n / c), n // c, -(-n // c)) for c in counts):
            bad.append(f"Table {table}, k = {k}, t = {t} {name}: {cell}")
    return bad


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def data_checks(casc: pd.DataFrame) -> list[str]:
    """What §8.1 says about the Census data set, against the file."""
    sums = casc["TAXINC"] + casc["POTHVAL"]
    lines = [f"records: {len(casc)} (paper: 1,080); missing values: {int(casc.isna().sum().sum())}"]
    for name, column in DATASETS.items():
        lines.append(
            f"{name} ({column}): correlation with TAXINC + POTHVAL {casc[column].corr(sums):.4f}, "
            f"with TAXINC {casc[column].corr(casc['TAXINC']):.4f}, with POTHVAL {casc[column].corr(casc['POTHVAL']):.4f}; "
            f"{casc[column].nunique()} distinct values (paper: {'0.52' if name == 'MCD' else '0.92'})"
        )
    bound = proposition2_bound(len(casc), 2)
    lines.append(f"Proposition 2 bound at k = 2: {bound} ≈ {float(bound):.4f} (paper: 0.25 is the upper bound of t)")
    lines.append("k values of Tables 1-3 not dividing 1,080 (paper: 'a multiple of the values of k'): "
                 + ", ".join(str(k) for k in KS if len(casc) % k) )
    return lines


def ball_emd(casc: pd.DataFrame, column: str, size: int) -> Fraction:
    """The smallest EMD (ordered distance, exact) of any record's ``size`` nearest records
    in the standardized quasi-identifiers (itself included): how t-close the most
    QI-compact clusters of that size can be."""
    points = qi_matrix(casc, QI)
    distances = ((points[:, None, :] - points[None]) ** 2).sum(axis=-1)
    nearest = np.argsort(distances, axis=1, kind="stable")[:, :size]
    ranked = RankedValues.of(casc[column].to_numpy())
    return min(ranked.emd(row) for row in nearest)


def balls(casc: pd.DataFrame) -> list[str]:
    """Markdown rows: the smallest EMD of a QI ball of the sizes Table 1 prints as smallest clusters."""
    rows = ["| records in the ball | " + " | ".join(DATASETS.values()) + " |", "|---|---|---|"]
    for size in (2, 4, 8, 16, 20, 36, 56):
        emds = [ball_emd(casc, column, size) for column in DATASETS.values()]
        rows.append(f"| {size} | " + " | ".join(f"{float(e):.4f}" for e in emds) + " |")
    return rows


def cell(frame: pd.DataFrame, qi: list[str], sensitive: str, k: int, t: str, algorithm: str):  # type: ignore[no-untyped-def]
    """One construction, checked by the verifier; returns the result."""
    result = microaggregate(frame, qi, sensitive, k=k, t=Fraction(t), algorithm=algorithm)  # type: ignore[arg-type]
    assert result.achieved.meets(k, Fraction(t)), (algorithm, sensitive, k, t)
    return result


def sizes(result) -> str:  # type: ignore[no-untyped-def]
    counts = np.bincount(result.partition.labels)
    return f"{counts.min()}/{round(counts.mean())}"


def table(casc: pd.DataFrame, number: int, ks: list[int], ts: list[str]) -> list[str]:
    """Markdown rows: for each (k, t), printed MCD | measured FEDTAX and printed HCD | measured FICA."""
    paper = printed()
    head = "| k | t | printed MCD | measured FEDTAX | printed HCD | measured FICA |"
    lines = [f"### Table {number}: Algorithm {number} ({ALGORITHMS[number]}), smallest/average cluster size", "",
             head, "|---|---|---|---|---|---|"]
    for k in ks:
        for t in ts:
            measured = {name: sizes(cell(casc, QI, column, k, t, ALGORITHMS[number])) for name, column in DATASETS.items()}
            lines.append(f"| {k} | {t} | {paper[number, k, t, 'MCD']} | {measured['MCD']} "
                         f"| {paper[number, k, t, 'HCD']} | {measured['HCD']} |")
            print(lines[-1], flush=True)
    return lines


def figure6(casc: pd.DataFrame, eia: pd.DataFrame, out: Path) -> list[str]:
    """Normalized SSE (eq. 5) against t for k = 2: CASC HCD and MCD at t = 0.02, 0.03, ...,
    0.25, EIA at t = 0.02, 0.05, ..., 0.23 and 0.25 (Algorithm 2 takes up to 2.5 minutes
    per run on its 4,092 records); table rows and the figure."""
    casc_ts = [f"{x / 100:.2f}" for x in range(2, 26)]
    eia_ts = [f"{x / 100:.2f}" for x in [*range(2, 26, 3), 25]]
    panels = {"HCD (FICA)": (casc, QI, "FICA", casc_ts), "MCD (FEDTAX)": (casc, QI, "FEDTAX", casc_ts),
              f"EIA ({EIA_SENSITIVE})": (eia, EIA_QI, EIA_SENSITIVE, eia_ts)}
    sse = {(p, a): {} for p in panels for a in ALGORITHMS}
    for p, (frame, qi, sensitive, ts) in panels.items():
        for t in ts:
            for a, algorithm in ALGORITHMS.items():
                sse[p, a][t] = cell(frame, qi, sensitive, 2, t, algorithm).achieved.sse
            print(f"fig6 {p} t = {t}: " + " ".join(f"{sse[p, a][t]:.4f}" for a in ALGORITHMS), flush=True)
    rows = ["| t | " + " | ".join(f"{p} Alg. {a}" for p in panels for a in ALGORITHMS) + " |",
            "|---" * (1 + len(sse)) + "|"]
    for t in casc_ts:
        rows.append(f"| {t} | " + " | ".join(f"{sse[key][t]:.4f}" if t in sse[key] else "" for key in sse) + " |")
    fig, axes = plt.subplots(len(panels), 1, figsize=(6, 8.4), sharex=True)
    for ax, p in zip(axes, panels):
        for a in ALGORITHMS:
            ax.plot([float(t) for t in sse[p, a]], list(sse[p, a].values()), marker="o", markersize=3,
                    label=f"Algorithm {a}")
        ax.set_title(p)
        ax.set_ylabel("normalized SSE")
        ax.legend()
    axes[-1].set_xlabel("t (k = 2)")
    fig.tight_layout()
    for suffix in (".svg", ".png"):
        fig.savefig((out / "fig6_casc").with_suffix(suffix))
    plt.close(fig)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="Table 3 at k ∈ {2,5,10}, t ∈ {0.05,0.13,0.25} and the data checks")
    parser.add_argument("--small", action="store_true", help="Tables 1-3 at k ∈ {2,5,10}, t ∈ {0.05,0.13,0.25}, no figure")
    parser.add_argument("--out", type=Path, default=None,
                        help="where to write casc_results.md and fig6_casc (default: this folder for a full run, "
                             "a new temporary folder otherwise)")
    args = parser.parse_args()
    partial = args.quick or args.small
    if args.out is None:
        args.out = Path(tempfile.mkdtemp(prefix="privcert-casc-")) if partial else HERE
    args.out.mkdir(parents=True, exist_ok=True)
    for path in (CASC, EIA):
        assert sha256(path) == SHA256[path.name], f"{path}: checksum differs from data/PROVENANCE.md"
    casc = pd.read_csv(CASC)
    report = ["# Soria-Comas et al. 2015 on the CASC Census data", "", "## The data against §8.1", ""]
    report += [f"* {line}" for line in data_checks(casc)]
    report += ["", "Printed cells whose average is not 1,080/c (rounded, down or up) for any whole number c of clusters:", ""]
    report += [f"* {line}" for line in inconsistent_averages()]
    report += ["", "Smallest EMD of the s records nearest to any record in the quasi-identifiers:", ""]
    report += balls(casc)
    for line in report:
        print(line)
    ks, ts = ([2, 5, 10], ["0.05", "0.13", "0.25"]) if partial else (KS, TS)
    for number in ([3] if args.quick else [1, 2, 3]):
        report += [""] + table(casc, number, ks, ts)
    if not partial:
        eia = pd.read_csv(EIA)
        report += ["", "## Fig. 6: normalized SSE, k = 2", ""]
        report += figure6(casc, eia, args.out)
    (args.out / "casc_results.md").write_text("\n".join(report) + "\n", encoding="utf-8")
    print(f"wrote {args.out / 'casc_results.md'}")


if __name__ == "__main__":
    main()
