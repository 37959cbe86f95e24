"""privcert's classification figures against ARX's own code, on ARX's adult and pyCANON's releases.

Usage (from the repository root, with the project's environment; see benchmarks/peers/README.md)::

    benchmarks/peers/build_arx.sh ARX_SOURCE            # javac: ARX's library and the drivers
    .venv/bin/python benchmarks/peers/compare_classification.py --arx ARX_SOURCE --pycanon PYCANON_SOURCE \\
        --fixture tests/data/classification_peers.json --markdown

Each table is written once as a comma-separated file under ``benchmarks/peers/build/`` (as
``compare.py`` writes it) and read by ``ArxClassification.java`` (this folder), which
prints ARX's cross-validated figures (``StatisticsClassification``, its default folds,
seed and classifier settings) of each classifier trained on the table and of ZeroR. ARX's
output is kept under ``build/classification/`` and read from there on a later run
(ARX's random forest takes about 10 minutes on ARX's adult here). ``ArxHashing.java``
prints the positions Mahout's encoders give each feature value in ARX's vectors. The
fixture holds, per table, ARX's figures, its hashed words, and the table itself: each
column's labels, the distinct rows as label codes and the sequence of rows (the folds are a shuffle of the row positions, so
the order is kept); ``tests/verifier/utility/test_classification_peers.py`` checks
privcert against it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from compare import ADULT_QI, BUILD, ROOT, Release, _commit, _prepare  # noqa: E402

CLASSIFIERS = ("logistic_regression", "naive_bayes", "random_forest")


@dataclass(frozen=True)
class Table:
    """A table ARX's classifiers are run on: where it is, its features and its target."""

    release: Release
    features: tuple[str, ...]
    target: str


TABLES = (
    Table(Release("arx_adult", "arx", "data/adult.csv", ";", (), "ARX's adult"), ("sex", "age", "race", "education"),
          "salary-class"),
    Table(Release("adult_k3", "pycanon", "data/processed/adult_anonymized_3.csv", ",", (), "pyCANON's k = 3"),
          ADULT_QI, "salary-class"),
    Table(Release("adult_k10", "pycanon", "data/processed/adult_anonymized_10.csv", ",", (), "pyCANON's k = 10"),
          ADULT_QI, "salary-class"),
)
"""ARX's adult with the features of ARX's own classification example, and two of pyCANON's k-anonymous
releases of adult with their quasi-identifiers as features; the target is the salary class throughout."""


def _parse(line: str) -> dict[str, Any]:
    """One line of ``ArxClassification``: ``NAME key value ... class VALUE key value ...``."""
    tokens = line.split(" ")
    found: dict[str, Any] = {"classes": {}}
    here = found
    for key, value in zip(tokens[1::2], tokens[2::2], strict=True):
        if key == "class":
            here = found["classes"].setdefault(value.replace("_", " "), {})
        else:
            here[key] = value
    return found


def _arx(classpath: str, path: Path, table: Table) -> dict[str, Any]:
    found = {}
    for name in CLASSIFIERS:
        cache = BUILD / "classification" / f"{table.release.name}.{name}.txt"
        if not cache.exists():
            command = ["java", "-cp", classpath, "ArxClassification", str(path), ",", ",".join(table.features),
                       table.target, name]
            print("$", " ".join(command), file=sys.stderr)
            cache.parent.mkdir(parents=True, exist_ok=True)
            cache.write_text(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
        line = next(line for line in cache.read_text().splitlines() if line.startswith(name + " "))
        found[name] = _parse(line)
    return found


def _hashing(classpath: str, columns: list[str], table: Table, labels: list[list[str]]) -> dict[str, Any]:
    """Each feature value's word (``Attribute-INDEX:VALUE``) and the positions ARX's encoders set for it."""
    words = sorted(f"Attribute-{columns.index(c)}:{v}" for i, c in enumerate(table.features) for v in labels[i])
    out = subprocess.run(["java", "-cp", classpath, "ArxHashing"], input="\n".join(words) + "\n", check=True,
                         capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        word, *cells = line.split("\t")
        found[word] = [[int(cell.split(":")[0]), float(cell.split(":")[1])] for cell in cells]
    return found


def _table(path: Path, table: Table) -> tuple[list[str], dict[str, Any]]:
    import csv

    with path.open(newline="", encoding="utf-8") as source:
        reader = csv.reader(source)
        columns = next(reader)
        wanted = [columns.index(c) for c in (*table.features, table.target)]
        records = [[row[i] for i in wanted] for row in reader]
    distinct = sorted({tuple(r) for r in records})
    index = {row: i for i, row in enumerate(distinct)}
    labels = [sorted({row[j] for row in distinct}) for j in range(len(wanted))]
    codes = [{label: code for code, label in enumerate(column)} for column in labels]
    return columns, {"labels": labels, "values": [[codes[j][v] for j, v in enumerate(row)] for row in distinct],
                     "rows": " ".join(str(index[tuple(r)]) for r in records)}


def markdown(results: dict[str, Any]) -> str:
    """The table of docs/utility.md: ARX's accuracy, Brier score and AUC beside privcert's, on each table."""
    sys.path.insert(0, str(ROOT / "tests" / "verifier" / "utility"))
    from test_classification_peers import noise, privcert_figures

    lines = ["| table | records | classifier | accuracy privcert | accuracy ARX | difference | noise | "
             "Brier privcert | Brier ARX | AUC privcert | AUC ARX |", "|" + "---|" * 11]
    for name, entry in results["tables"].items():
        ours = privcert_figures(entry)
        rows = len(entry["rows"].split(" "))
        for classifier in ("zero_r", *CLASSIFIERS):
            mine = ours[classifier]
            theirs = entry["arx"]["logistic_regression" if classifier == "zero_r" else classifier]
            prefix = "zero_r_" if classifier == "zero_r" else "original_"
            accuracy = float(theirs[prefix + "accuracy"])
            auc = theirs["classes"][min(theirs["classes"])]["zero_r_auc" if classifier == "zero_r" else "auc"]
            lines.append(f"| {name} | {rows} | {classifier} | {float(mine.accuracy):.4f} | {accuracy:.4f} | "
                         f"{float(mine.accuracy) - accuracy:+.4f} | {noise(accuracy, rows):.4f} | "
                         f"{mine.brier:.4f} | {float(theirs[prefix + 'brier']):.4f} | "
                         f"{float(mine.auc or 0):.4f} | {float(auc):.4f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arx", type=Path, help="ARX's source tree (built by build_arx.sh)")
    parser.add_argument("--pycanon", type=Path, help="pyCANON's source tree (its releases)")
    parser.add_argument("--fixture", type=Path, help="write the fixture here")
    parser.add_argument("--markdown", action="store_true", help="print the table of docs/utility.md")
    parser.add_argument("--from-fixture", type=Path, help="read the results from this fixture instead of running ARX")
    args = parser.parse_args()
    if args.from_fixture is not None:
        results = json.loads(args.from_fixture.read_text())
    else:
        classpath = (BUILD / "arx" / "classpath").read_text().strip()
        sources = {"arx": args.arx, "pycanon": args.pycanon}
        results = {"arx_commit": _commit(args.arx), "pycanon_commit": _commit(args.pycanon), "tables": {}}
        for table in TABLES:
            path = _prepare(table.release, sources)
            columns, data = _table(path, table)
            results["tables"][table.release.name] = {
                "source": f"{table.release.repository}:{table.release.path}", "features": list(table.features),
                "target": table.target, "columns": columns, **data,
                "hashing": _hashing(classpath, columns, table, data["labels"]), "arx": _arx(classpath, path, table)}
    if args.fixture is not None:
        args.fixture.write_text(json.dumps(results, sort_keys=True, separators=(",", ":")) + "\n")
    if args.markdown:
        print(markdown(results))


if __name__ == "__main__":
    main()
