"""``privcert compare ORIGINAL RELEASE RELEASE ...``: candidate releases of one original, privacy beside utility.

Thin: parses the options, calls :func:`privcert.api.compare`, prints one row per release
(plain lines in a pipe) or JSON, and writes the HTML page (:mod:`reports.comparison`) with
``--html``. Exit codes: 0, or 2 on bad input (the message names the file, row and column).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

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

__all__ = ["compare_command"]


def compare_command(
    original: Annotated[Path, typer.Argument(metavar="ORIGINAL", help="The original table (CSV or Parquet).")],
    releases: Annotated[list[Path], typer.Argument(
        metavar="RELEASE", help="Two or more releases of it: the same records (row by row, or by --key).")],
    qi: Annotated[str, typer.Option("--qi", metavar="NAMES", help="Quasi-identifier columns, comma-separated.")],
    hierarchy: QiHierarchyOption = None,
    key: RecordKeyOption = None,
    suppressed: SuppressedOption = "*",
    metric: Annotated[str, typer.Option(
        "--metric", metavar="MODEL", help="The utility model the figure plots privacy against (default loss).")] = "loss",
    html: Annotated[Path | None, typer.Option(
        "--html", metavar="FILE", help="Write the table and the privacy/utility figure as one HTML page.")] = None,
    target: TargetOption = None,
    classifiers: ClassifiersOption = None,
    json_out: JsonOption = None,
    encoding: EncodingOption = "utf-8",
) -> None:
    """Compare candidate releases of one original: k, prosecutor risk and every utility model, one row each."""
    from privcert.api import compare
    from privcert.files import SCHEMA_VERSION, check_outputs, write_json, write_output
    from privcert.options import classifier_options, hierarchy_files, hierarchy_options, split_names
    from privcert.output import print_rows
    from privcert.reporting import make_console, reporting_errors, wrote
    from reports.comparison import comparison_rows, comparison_title, render_comparison
    from verifier.errors import PolicyError
    from verifier.escape import safe

    with reporting_errors():
        if len(releases) < 2:
            raise PolicyError(f"RELEASE: expected two or more releases to compare, found {len(releases)} (one "
                              "release: privcert utility ORIGINAL RELEASE)")
        check_outputs({"--json": (json_out, "json"), "--html": (html, "html")},
                      {"original": original, **{f"release {i}": r for i, r in enumerate(releases, start=1)},
                       **hierarchy_files(hierarchy)})
        columns = split_names(qi, "--qi")
        hierarchies = hierarchy_options(hierarchy, columns)
        chosen = classifier_options(target, classifiers)
        comparison = compare(original, releases, columns, hierarchies=hierarchies, key=key, suppressed=suppressed,
                             encoding=encoding, target=target, classifiers=chosen)
        if html is not None and metric not in comparison.metrics:
            raise PolicyError(f"--metric {metric!r}: expected one of the models measured: {list(comparison.metrics)}")
        if html is not None:
            write_output(html, render_comparison(comparison, metric), option="--html")
        if not write_json({"schema_version": SCHEMA_VERSION, **comparison.to_json()}, json_out):
            header, rows = comparison_rows(comparison)
            print_rows(make_console(), safe(comparison_title(comparison)), header,
                       [tuple(safe(cell) for cell in row) for row in rows], fold="release")
            for candidate in comparison.candidates:
                for figure in candidate.utility.figures:
                    if figure.attribute is None and figure.note.startswith("not measured"):
                        typer.echo(f"{safe(candidate.release)}: {figure.metric} —, {safe(figure.note)}")
    wrote(html, json_out, stdout=json_out != "-")
