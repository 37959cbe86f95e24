"""privcert's profitability models against ARX's own code, on ARX's adult and pyCANON's releases.

Usage (from the repository root, with the project's environment; see benchmarks/peers/README.md)::

    benchmarks/peers/build_arx.sh ARX_SOURCE            # javac: ARX's library and the drivers
    .venv/bin/python benchmarks/peers/compare_profitability.py --arx ARX_SOURCE --pycanon PYCANON_SOURCE \\
        --fixture tests/data/profitability_peers.json --markdown

Each release is written once as a comma-separated file under ``benchmarks/peers/build/``
(as ``compare.py`` writes it) and read by ``ArxProfitability.java`` (this folder) with the
same quasi-identifiers, at each set of cost/benefit figures of ``COSTS``: ARX's
no-attack k, and per criterion (``ProfitabilityProsecutor``, ``ProfitabilityJournalist``
and their no-attack variants) the records ARX suppresses and the publisher payout of the
records it keeps (its ``MetricSDNMPublisherPayout``), with 1-anonymity for the payout of
the whole release. The fixture holds ARX's figures and each release's class-size
histogram; ``tests/verifier/risk/test_profitability_peers.py`` computes privcert's figures
from the histogram and checks them against ARX's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from compare import ADULT_QI, ARX_QI, BUILD, ROOT, STROKE_QI, Release, _commit, _prepare, emit  # noqa: E402

from verifier.risk.histogram import size_histogram  # noqa: E402
from verifier.tables.counting import count_tables  # noqa: E402
from verifier.tables.load import load_table  # noqa: E402

RELEASES = (
    Release("arx_adult", "arx", "data/adult.csv", ";", ARX_QI, "TestRiskMetrics' QIs"),
    Release("arx_adult_3", "arx", "data/adult.csv", ";", ("sex", "age", "race"), "sex, age, race"),
    Release("adult_k3", "pycanon", "data/processed/adult_anonymized_3.csv", ",", ADULT_QI, "pyCANON's QIs"),
    Release("adult_k10", "pycanon", "data/processed/adult_anonymized_10.csv", ",", ADULT_QI, "pyCANON's QIs"),
    Release("stroke_k5", "pycanon", "data/processed/stroke_k5.csv", ",", STROKE_QI, "pyCANON's QIs"),
)

COSTS: dict[str, dict[str, str]] = {
    "arx_default": {"adversary_gain": "300", "adversary_cost": "4", "publisher_benefit": "1200", "publisher_loss": "300"},
    "cheap_attack": {"adversary_gain": "1200", "adversary_cost": "1", "publisher_benefit": "1200",
                     "publisher_loss": "300"},
    "fractional_k": {"adversary_gain": "250", "adversary_cost": "3", "publisher_benefit": "1200",
                     "publisher_loss": "300"},
    "small_benefit": {"adversary_gain": "300", "adversary_cost": "4", "publisher_benefit": "100",
                      "publisher_loss": "300"},
}
"""ARX's defaults (Wan et al. 2015's example), the cheapest of ARX's Example49, a G/C that is not
an integer (k = ⌈G/C⌉), and a benefit at which some attacked classes cost the publisher more
than they bring (a class of 3 records pays exactly 0)."""


def _arx(classpath: str, path: Path, qi: tuple[str, ...], costs: dict[str, str]) -> dict[str, Any]:
    command = ["java", "-cp", classpath, "ArxProfitability", str(path), ",", ",".join(qi),
               costs["adversary_gain"], costs["adversary_cost"], costs["publisher_benefit"], costs["publisher_loss"]]
    print("$", " ".join(command), file=sys.stderr)
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    found: dict[str, Any] = {}
    for line in out.splitlines():
        *keys, value = line.split(" ")
        found["_".join(keys) if len(keys) == 1 else f"{keys[0]}.{keys[1]}"] = value
    return found


def markdown(results: dict[str, Any]) -> str:
    """The table of docs/risk.md: ARX's figures beside privcert's (computed from each histogram).

    The journalist's figures are not columns of their own: with the whole release as ARX's
    research subset they equal the prosecutor's, in ARX as in privcert (the test checks both).
    """
    sys.path.insert(0, str(ROOT / "tests" / "verifier" / "risk"))
    from test_profitability_peers import privcert_figures

    def pair(ours: Any, theirs: str) -> str:
        return f"{float(ours):,.0f} / {float(theirs):,.0f}"

    lines = ["| release | figures | k | release payout | suppressed (payoff ≤ 0) | payout kept | "
             "suppressed (no attack) | payout kept (no attack) |", "|---|---|---|---|---|---|---|---|"]
    for name, release in results["releases"].items():
        for costs, arx in release["arx"].items():
            ours = privcert_figures(release["histogram"], results["costs"][costs])
            cells = [pair(ours[key], arx[key]) for key in (
                "release.publisher_payout", "prosecutor.suppressed", "prosecutor.publisher_payout",
                "no_attack_prosecutor.suppressed", "no_attack_prosecutor.publisher_payout")]
            lines.append(f"| {name} | {costs} | {ours['no_attack_k']} / {arx['no_attack_k']} | {' | '.join(cells)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--arx", type=Path, help="ARX's source tree (with data/adult.csv)")
    parser.add_argument("--pycanon", type=Path, help="pyCANON's source tree (with data/processed)")
    parser.add_argument("--fixture", type=Path, help="write the figures here (tests/data/profitability_peers.json)")
    parser.add_argument("--markdown", action="store_true", help="print the table of docs/risk.md")
    parser.add_argument("--from-fixture", type=Path, help="only print the table of docs/risk.md from this fixture")
    args = parser.parse_args()
    if args.from_fixture:
        print(markdown(json.loads(args.from_fixture.read_text())))
        return
    if args.arx is None or args.pycanon is None:
        parser.error("--arx and --pycanon are required (unless --from-fixture)")
    sources = {"arx": args.arx, "pycanon": args.pycanon}
    classpath = (BUILD / "arx" / "classpath").read_text().strip()
    pom = (args.arx / "pom.xml").read_text()
    results: dict[str, Any] = {
        "provenance": {
            "arx": {"version": pom[pom.index("<version>") + 9:pom.index("</version>")], "commit": _commit(args.arx),
                    "command": "java -cp BUILD ArxProfitability FILE , QI GAIN COST BENEFIT LOSS"},
            "pycanon": {"commit": _commit(args.pycanon)},
        },
        "costs": COSTS, "releases": {},
    }
    for release in RELEASES:
        path = _prepare(release, sources)
        classes, _ = count_tables(load_table(path), list(release.qi), [])
        histogram = size_histogram(classes.sizes)
        results["releases"][release.name] = {
            "file": f"{release.repository}:{release.path}", "qi": list(release.qi), "reading": release.reading,
            "sha256": hashlib.sha256((sources[release.repository] / release.path).read_bytes()).hexdigest(),
            "histogram": ",".join(f"{s}:{c}" for s, c in zip(histogram.sizes.tolist(), histogram.classes.tolist(),
                                                                strict=True)),
            "arx": {name: _arx(classpath, path, release.qi, costs) for name, costs in COSTS.items()},
        }
    emit(results, args.fixture, markdown(results) if args.markdown else None)


if __name__ == "__main__":
    main()
