"""privcert's risk models against ARX and sdcMicro, built from their sources, on the same releases.

Usage (from the repository root, with the project's environment; see benchmarks/peers/README.md)::

    benchmarks/peers/build_arx.sh ARX_SOURCE            # javac: ARX's library and ArxRisk.java
    benchmarks/peers/install_sdcmicro.sh SDCMICRO_SOURCE # R, Rcpp and sdcMicro from Debian packages + source
    .venv/bin/python benchmarks/peers/compare.py --arx ARX_SOURCE --pycanon PYCANON_SOURCE \\
        --sdcmicro SDCMICRO_SOURCE --fixture tests/data/risk_peers.json

Each release is written once as a comma-separated file under ``benchmarks/peers/build/``
(ARX's ``adult.csv`` is semicolon-separated in its repository) and that same file is read
by all three tools with the same quasi-identifiers, at sampling fractions 1/100, 1/10 and
1/2 (population N = n/f, uniform sampling weights N/n):

* privcert: its risk models through the library (:mod:`verifier.risk`);
* ARX: ``ArxRisk.java`` (this folder), ARX's ``RiskEstimateBuilder`` on a ``DataHandle``
  and its estimators ``ModelPitman``/``ModelZayatz``/``ModelSNB`` (raw values, NaN kept,
  and the (θ, α) where ARX's Newton-Raphson solver stops);
* sdcMicro: ``sdcmicro_risk.R`` (this folder): ``measure_risk`` (individual risk,
  global risk), ``freqCalc`` (sample uniques) and ``suda2`` (DIS-SUDA).

It also runs ARX's estimators on the class-size histograms of ``HISTOGRAMS`` (small
releases where Pitman's likelihood has no maximum). The figures, with where each came
from (the tools' versions and commits, the commands), are written to ``--fixture``, the
file ``tests/verifier/risk/test_risk_peers.py`` checks privcert against; the tables of docs/risk.md
("Compared with ARX and sdcMicro") are printed.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import subprocess
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from verifier.privacy.anonymity import prosecutor_risk  # noqa: E402
from verifier.risk.histogram import sampling, size_histogram  # noqa: E402
from verifier.risk.individual import individual_risk, uniform_weights  # noqa: E402
from verifier.risk.population import ESTIMATORS, estimate  # noqa: E402
from verifier.risk.sample import marketer_risk, sample_uniqueness  # noqa: E402
from verifier.risk.suda import suda2  # noqa: E402
from verifier.tables.counting import count_tables  # noqa: E402
from verifier.tables.load import load_table  # noqa: E402

HERE = Path(__file__).resolve().parent
BUILD = HERE / "build"
FRACTIONS = ("1/100", "1/10", "1/2")
_ENVIRONMENT = {**os.environ, "R_LIBS": str(BUILD / "R")}


@dataclass(frozen=True)
class Release:
    """One release: where it is in a peer's repository, how it is read, its quasi-identifiers."""

    name: str
    repository: str
    path: str
    delimiter: str
    qi: tuple[str, ...]
    reading: str


ADULT_QI = ("age", "education", "occupation", "relationship", "sex", "native-country")
STROKE_QI = ("gender", "age", "hypertension", "heart_disease", "ever_married", "work_type", "Residence_type",
             "smoking_status")
STUDENT_QI = ("Teacher", "Gender", "Ethnic", "Freeredu", "wesson")
ARX_QI = ("age", "education", "marital-status", "native-country", "occupation", "race", "salary-class", "sex",
          "workclass")

RELEASES = (
    Release("adult_k3", "pycanon", "data/processed/adult_anonymized_3.csv", ",", ADULT_QI, "pyCANON's QIs"),
    Release("adult_k3_all", "pycanon", "data/processed/adult_anonymized_3.csv", ",", (*ADULT_QI, "salary-class"),
            "every column"),
    Release("adult_k10", "pycanon", "data/processed/adult_anonymized_10.csv", ",", ADULT_QI, "pyCANON's QIs"),
    Release("adult_k10_all", "pycanon", "data/processed/adult_anonymized_10.csv", ",", (*ADULT_QI, "salary-class"),
            "every column"),
    Release("stroke_k5", "pycanon", "data/processed/stroke_k5.csv", ",", STROKE_QI, "pyCANON's QIs"),
    Release("stroke_k5_all", "pycanon", "data/processed/stroke_k5.csv", ",", (*STROKE_QI, "stroke"),
            "every column but id"),
    Release("student_math", "pycanon", "data/processed/StudentsMath_Score.csv", ",", STUDENT_QI, "pyCANON's QIs"),
    Release("arx_adult", "arx", "data/adult.csv", ";", ARX_QI, "TestRiskMetrics' QIs"),
)

HISTOGRAMS = {
    "A,A,B,B,C": "1:1,2:2",
    "A,B,C,C,C": "1:2,3:1",
    "A,B,B,C,C,D,D": "1:1,2:3",
    "A,B,C,C,D,D,D": "1:2,2:1,3:1",
}


def _run(command: list[str]) -> list[dict[str, Any]]:
    """Run a peer and read the JSON objects it prints, one a line (sdcMicro from ``build/R``)."""
    print("$", " ".join(command), file=sys.stderr)
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=_ENVIRONMENT)
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def _prepare(release: Release, sources: dict[str, Path]) -> Path:
    """The release as a comma-separated file under build/ (every field quoted as needed)."""
    original = sources[release.repository] / release.path
    target = BUILD / "releases" / f"{Path(release.path).stem}.csv"
    target.parent.mkdir(parents=True, exist_ok=True)
    with original.open(newline="", encoding="utf-8") as source, target.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        for row in csv.reader(source, delimiter=release.delimiter):
            writer.writerow(row)
    return target


def _privcert(path: Path, qi: tuple[str, ...], fraction: str) -> dict[str, Any]:
    frame = load_table(path)
    classes, _ = count_tables(frame, list(qi), [])
    histogram = size_histogram(classes.sizes)
    frame_ = sampling(classes.rows, fraction=Fraction(fraction))
    out: dict[str, Any] = {
        "rows": classes.rows, "classes": classes.count,
        "sample_uniqueness": str(sample_uniqueness(classes).level.exact),
        "marketer_risk": str(marketer_risk(classes).level.exact),
        "prosecutor_risk": str(prosecutor_risk(classes).level.exact),
    }
    for name in ESTIMATORS:
        found = estimate(name, histogram, frame_)
        out[name] = {"share": found.share, "branch": found.branch, "converged": found.converged,
                     "fitted": found.fitted, "chosen": found.chosen, "reason": found.reason}
    risk = individual_risk(classes, uniform_weights(classes, frame_.population))
    out["individual_risk_max"] = float(risk.level.number or 0.0)
    out["global_risk"] = risk.witness.numbers["global_risk"] if risk.witness else None
    result = suda2(classes, dis_fraction=Fraction(fraction))
    out["dis_suda_max"] = float(result.dis.max()) if result.dis.size else 0.0
    out["suda_score_max"] = float(result.scores.max()) if result.scores.size else 0.0
    return out


def _commit(tree: Path) -> str:
    """The commit a source tree was taken at: ``git rev-parse HEAD``, or the ``COMMIT`` file an export wrote."""
    if (tree / "COMMIT").exists():
        return (tree / "COMMIT").read_text().strip()
    return subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


def _provenance(args: argparse.Namespace, classpath: str) -> dict[str, Any]:
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    r = subprocess.run(["Rscript", "-e", 'cat(R.version.string, "; sdcMicro", as.character(packageVersion("sdcMicro")))'],
                       check=True, capture_output=True, text=True, env=_ENVIRONMENT).stdout.strip()
    pom = (args.arx / "pom.xml").read_text()
    version = pom[pom.index("<version>") + 9:pom.index("</version>")]
    return {
        "arx": {"version": version, "commit": _commit(args.arx), "java": java,
                "command": "java -cp BUILD org.deidentifier.arx.risk.ArxRisk data FILE , QI FRACTIONS"},
        "sdcmicro": {"version": r, "commit": _commit(args.sdcmicro),
                     "command": "Rscript benchmarks/peers/sdcmicro_risk.R FILE , QI FRACTIONS"},
        "pycanon": {"commit": _commit(args.pycanon)},
        "privcert": {"commit": _commit(ROOT), "command": "benchmarks/peers/compare.py (verifier.risk)"},
        "fractions": list(FRACTIONS),
    }


def _figure(value: Any) -> str:
    if value is None:
        return "—"
    if value == "NaN" or (isinstance(value, float) and math.isnan(value)):
        return "NaN"
    number = float(Fraction(value)) if isinstance(value, str) else float(value)
    return "0" if number == 0 else f"{number:.6g}"


def _rows(results: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(release, fraction, figures) for every release and fraction, in order."""
    return [(name, fraction, row) for name, release in results["releases"].items()
            for fraction, row in release["fractions"].items()]


def markdown(results: dict[str, Any]) -> str:
    """The tables of docs/risk.md: sample figures, population uniqueness (privcert / ARX), sdcMicro's models."""
    lines = ["| release | QIs | records | classes | sample uniques | sample uniqueness | average risk | highest risk |",
             "|---|---|---|---|---|---|---|---|"]
    for name, release in results["releases"].items():
        row = release["fractions"][FRACTIONS[0]]
        ours, sdc = row["privcert"], row["sdcmicro"]
        lines.append(f"| {name} | {release['reading']} | {ours['rows']:,} | {ours['classes']:,} | "
                     f"{sdc['sample_uniques']:,} | {_figure(ours['sample_uniqueness'])} | "
                     f"{_figure(ours['marketer_risk'])} | {_figure(ours['prosecutor_risk'])} |")
    lines += ["", "| release | f | Pitman | ARX | α, θ (privcert) | α, θ (ARX) | Zayatz (= ARX) | SNB | ARX | Dankar | ARX |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, fraction, row in _rows(results):
        ours, arx = row["privcert"], row["arx"]
        if not arx.get("pitman_raw"):
            continue
        fit = ours["pitman"]["fitted"]
        mine = f"{fit['alpha']:.5g}, {fit['theta']:.6g}" if "theta" in fit else "—"
        theirs = f"{arx['pitman_alpha']:.5g}, {arx['pitman_theta']:.6g}"
        lines.append(f"| {name} | {fraction} | {_figure(ours['pitman']['share'])} | {_figure(arx['pitman_raw'])} | "
                     f"{mine} | {theirs} | {_figure(ours['zayatz']['share'])} | {_figure(ours['snb']['share'])} | "
                     f"{_figure(arx['snb_raw'])} | {_figure(ours['dankar']['share'])} ({ours['dankar']['chosen']}) | "
                     f"{_figure(arx['dankar'])} ({arx['dankar_model'].lower()}) |")
    lines += ["", "| release | f | individual risk | sdcMicro | global risk | sdcMicro | DIS-SUDA | sdcMicro |",
              "|---|---|---|---|---|---|---|---|"]
    for name, fraction, row in _rows(results):
        ours, sdc = row["privcert"], row["sdcmicro"]
        lines.append(f"| {name} | {fraction} | {_figure(ours['individual_risk_max'])} | "
                     f"{_figure(sdc['individual_risk_max'])} | {_figure(ours['global_risk'])} | "
                     f"{_figure(sdc['global_risk'])} | {_figure(ours['dis_suda_max'])} | "
                     f"{_figure(sdc['dis_suda_max'])} |")
    return "\n".join(lines)


def emit(results: dict[str, Any], fixture: Path | None, table: str | None) -> None:
    """Write the figures to ``fixture`` (when given) and print ``table`` (when given)."""
    if fixture:
        fixture.write_text(json.dumps(results, indent=1, sort_keys=True, default=str) + "\n")
    if table is not None:
        print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--arx", type=Path, required=True, help="ARX's source tree (with data/adult.csv)")
    parser.add_argument("--sdcmicro", type=Path, required=True, help="sdcMicro's source tree (for its commit)")
    parser.add_argument("--pycanon", type=Path, required=True, help="pyCANON's source tree (with data/processed)")
    parser.add_argument("--fixture", type=Path, help="write the figures here (tests/data/risk_peers.json)")
    parser.add_argument("--markdown", action="store_true", help="print the tables of docs/risk.md")
    args = parser.parse_args()
    sources = {"arx": args.arx, "pycanon": args.pycanon}
    classpath = (BUILD / "arx" / "classpath").read_text().strip()
    java = ["java", "-cp", classpath, "org.deidentifier.arx.risk.ArxRisk"]
    fractions = ",".join(FRACTIONS)
    results: dict[str, Any] = {"provenance": _provenance(args, classpath), "releases": {}, "histograms": {}}
    for release in RELEASES:
        path = _prepare(release, sources)
        digest = hashlib.sha256((sources[release.repository] / release.path).read_bytes()).hexdigest()
        qi = ",".join(release.qi)
        arx = _run([*java, "data", str(path), ",", qi, fractions])
        sdc = _run(["Rscript", str(HERE / "sdcmicro_risk.R"), str(path), ",", qi, fractions])
        ours = {fraction: _privcert(path, release.qi, fraction) for fraction in FRACTIONS}
        results["releases"][release.name] = {
            "file": f"{release.repository}:{release.path}", "sha256": digest, "qi": list(release.qi),
            "reading": release.reading, "histogram": arx[0]["histogram"],
            "fractions": {fraction: {"privcert": ours[fraction], "arx": arx[i], "sdcmicro": sdc[i]}
                          for i, fraction in enumerate(FRACTIONS)},
        }
    for name, histogram in HISTOGRAMS.items():
        arx = _run([*java, "histogram", histogram, fractions])
        results["histograms"][name] = {"histogram": histogram, "arx": dict(zip(FRACTIONS, arx))}
    emit(results, args.fixture, markdown(results) if args.markdown else None)


if __name__ == "__main__":
    main()
