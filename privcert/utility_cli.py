"""``privcert utility ORIGINAL RELEASE``: what a release cost, every utility model with ARX's quality beside it.

Thin: parses the options, calls :func:`privcert.api.utility`, prints a table (plain lines
in a pipe) or JSON. Exit codes: 0, or 2 on bad input (the message names the file, row and
column).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from privcert.options import (
    ClassifiersOption,
    EncodingOption,
    JsonOption,
    QiHierarchyOption,
    RecordKeyOption,
    SuppressedOption,
    TargetOption,
)

if TYPE_CHECKING:
    from rich.console import Console

    from verifier.utility import UtilityReport

__all__ = ["utility_command", "print_utility"]


def print_utility(console: Console, report: UtilityReport, *, notes: bool = True) -> None:
    """The summary line and one row per figure: model, attribute (``all``: the release), raw value, ARX's quality."""
    from privcert.output import print_rows
    from verifier.escape import safe
    from verifier.utility.classification_figures import CLASSIFICATION_METRICS
    from verifier.utility.figure import MODEL_NAMES, value_text

    console.file.write(f"{safe(report.release)} against {safe(report.original)}: {report.rows} records, "
                       f"{report.suppressed} suppressed, over {', '.join(safe(c) for c in report.qi)}\n")
    console.file.write(f"records paired {safe(report.pairing)}\n")
    for line in report.inferred:
        console.file.write(f"{safe(line)}\n")
    rows = [(MODEL_NAMES.get(f.metric, f.metric), safe(f.attribute) if f.attribute is not None else "all",
             value_text(f.raw) + (f" {f.units}" if f.raw is not None else ""), value_text(f.quality),
             safe(f.note) if notes else "")
            for f in report.figures if notes or f.raw is not None]
    classified = any(f.metric in CLASSIFICATION_METRICS for f in report.figures)
    print_rows(console, "utility (raw: the paper's value; quality: ARX's, 1 = the original, 0 = nothing left"
               + ("; a classifier's: estimates, not pass/fail, quality its relative figure" if classified else "")
               + ")",
               ("model", "attribute", "raw", "quality", "note"), rows, fold="note")


def utility_command(
    original: Annotated[Path, typer.Argument(metavar="ORIGINAL", help="The original table (CSV or Parquet).")],
    release: Annotated[Path, typer.Argument(metavar="RELEASE", help="Its release: the same records (row by row, or by --key).")],
    qi: Annotated[str, typer.Option("--qi", metavar="NAMES", help="Quasi-identifier columns, comma-separated.")],
    hierarchy: QiHierarchyOption = None,
    key: RecordKeyOption = None,
    suppressed: SuppressedOption = "*",
    mechanism: Annotated[Path | None, typer.Option(
        "--mechanism", metavar="FILE", help="The randomized-response mechanism CSV the release was made with (adds its expected utility).")] = None,
    sensitive: Annotated[str | None, typer.Option(
        "--sensitive", metavar="NAME", help="The column the mechanism randomized (with --mechanism).")] = None,
    target: TargetOption = None,
    classifiers: ClassifiersOption = None,
    json_out: JsonOption = None,
    encoding: EncodingOption = "utf-8",
) -> None:
    """What a release cost: loss, entropy, precision, discernibility, class size, ambiguity, KL divergence, squared
    errors; with --target, classification accuracy (estimates)."""
    from privcert.api import utility
    from privcert.files import SCHEMA_VERSION, check_outputs, write_json
    from privcert.options import classifier_options, hierarchy_files, hierarchy_options, split_names
    from privcert.reporting import make_console, reporting_errors, wrote

    with reporting_errors():
        check_outputs({"--json": (json_out, "json")}, {"original": original, "release": release,
                                                       "mechanism": mechanism, **hierarchy_files(hierarchy)})
        columns = split_names(qi, "--qi")
        hierarchies = hierarchy_options(hierarchy, columns)
        chosen = classifier_options(target, classifiers)
        report = utility(original, release, columns, hierarchies=hierarchies, key=key, suppressed=suppressed,
                         mechanism=mechanism, sensitive=sensitive, encoding=encoding, target=target,
                         classifiers=chosen)
        if not write_json({"schema_version": SCHEMA_VERSION, **report.to_json()}, json_out):
            print_utility(make_console(), report)
    wrote(json_out)
