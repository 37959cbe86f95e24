"""What the commands print: tables on a terminal, plain lines in a pipe, data never trusted.

On a terminal, rich tables fit the width and fold only the witness; a verdict, a level or
a header is never cropped. Anywhere else (a file, a CI log, ``| cat``) the output is plain
text, one row per line, nothing cut. Values from the release (column names, class keys,
sensitive values) are third-party text: control characters and terminal escape sequences
are shown escaped (``\\x1b``), never sent raw.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from verifier.display import measurement_level, measurement_model, measurement_witness
from verifier.escape import safe

if TYPE_CHECKING:
    from verifier.audit import AuditResult
    from verifier.measure import MeasureResult

__all__ = ["print_rows", "print_report", "print_audit", "summary"]

_SIGN = {"at_least": "≥", "at_most": "≤", "below": "<"}


def _terminal(console: Console) -> bool:
    return console.is_terminal and sys.stdout.isatty()


FOLD_WIDTH = 16
"""Fewest columns the folding column (the witness) keeps in a table; below, rows are printed as blocks."""


def _fits(console: Console, header: Sequence[str], rows: Sequence[Sequence[str]], fold: str) -> bool:
    """Whether a table whose every column but ``fold`` keeps its widest cell fits the console (borders included)."""
    from rich.cells import cell_len

    widths = [max([cell_len(name), *(cell_len(row[i]) for row in rows)]) for i, name in enumerate(header)]
    fixed = sum(width for name, width in zip(header, widths, strict=True) if name != fold)
    folding = FOLD_WIDTH if fold in header else 0
    return fixed + folding + 3 * len(header) + 1 <= console.width


def _packed(cells: Sequence[str], width: int) -> list[str]:
    """``cells`` on as few lines of ``width`` as fit, two spaces apart, none split (a wider one alone on its line)."""
    lines: list[str] = []
    for cell in cells:
        if lines and len(lines[-1]) + 2 + len(cell) <= width:
            lines[-1] += "  " + cell
        else:
            lines.append(cell)
    return lines


def print_rows(console: Console, title: str, header: Sequence[str], rows: Sequence[Sequence[str]],
               fold: str = "witness") -> None:
    """A table on a terminal (only the ``fold`` column wraps); plain lines otherwise.

    When the terminal is too narrow for the table with every other column whole, each row
    is printed as a block instead: its first two cells on one line, the other cells as
    ``name: value`` on as few lines as fit (none split), the witness last (folded), so
    that a level, a verdict or a header is never cut.
    """
    if _terminal(console) and _fits(console, header, rows, fold):
        table = Table(title=Text(title), title_justify="left")
        for column in header:
            table.add_column(column, no_wrap=column != fold, overflow="fold", min_width=len(column))
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        console.print(table)
        return
    if _terminal(console):
        console.print(Text(title), crop=False)
        for row in rows:
            console.print(Text("  ".join(row[:2])), crop=False)
            for line in _packed([f"{name}: {cell}" for name, cell in zip(header[2:], row[2:], strict=True)
                                 if cell and name != fold], console.width - 4):
                console.print(Padding(Text(line, no_wrap=True), (0, 0, 0, 4), expand=False), crop=False)
            folded = [cell for name, cell in zip(header, row, strict=True) if name == fold and cell]
            if folded:
                console.print(Padding(Text(f"{fold}: {folded[0]}", overflow="fold"), (0, 0, 0, 4), expand=False))
        return
    out = console.file
    out.write(f"{title}\n")
    for row in rows:
        out.write("  " + "  ".join(f"{name}: {cell}" for name, cell in zip(header, row, strict=True) if cell) + "\n")


def summary(report: MeasureResult) -> str:
    excluded = ", ".join(f"{safe(name)}: {rows}" for name, rows in report.excluded.items() if rows)
    return (f"{safe(report.source)}: {report.rows} rows, {report.classes} classes over "
            f"{', '.join(safe(c) for c in report.qi)}" + (f"; rows excluded ({excluded})" if excluded else ""))


def print_report(console: Console, report: MeasureResult) -> None:
    """The optimal level of every model, with its witness."""
    from verifier.display import attribute_label

    console.file.write(summary(report) + "\n")
    rows = [(measurement_model(m), safe(attribute_label(m.attribute)), measurement_level(m), measurement_witness(m))
            for m in report.measurements]
    print_rows(console, "optimal levels", ("model", "attribute", "level", "witness"), rows)


def print_audit(console: Console, result: AuditResult, violations: int = 0) -> None:
    """One row per requirement: level, requirement, verdict, witness; then why each failure fails."""
    from verifier.audit import offending_classes
    from verifier.display import attribute_label, exact_text

    rows = []
    for check in result.checks:
        m = check.measurement
        required = f"{_SIGN[m.comparison]} {exact_text(_as_expr(check.requirement.threshold))}"
        number = check.requirement.key.removeprefix("require[").removesuffix("]")
        rows.append((number, measurement_model(m), safe(attribute_label(m.attribute)), measurement_level(m), required,
                     {"pass": "pass", "fail": "FAIL", "undecided": "UNDECIDED"}[check.verdict], measurement_witness(m)))
    print_rows(console, f"audit against {safe(result.policy.source)}",
               ("#", "model", "attribute", "level", "required", "result", "witness"), rows)
    for check in result.checks:
        if check.undecided:
            console.file.write(f"  {check.requirement.key} is undecided (counts as not holding): {safe(check.reason)}\n")
        elif not check.passed:
            console.file.write(f"  {check.requirement.key} fails: {safe(check.reason)}\n")
            for line in offending_classes(result, check, violations):
                console.file.write(f"    {safe(line)}\n")
    failed = sum(not check.passed for check in result.checks)
    undecided = sum(check.undecided for check in result.checks)
    console.file.write(f"FAIL: {failed} of {len(result.checks)} requirement(s) do not hold"
                       f"{f' ({undecided} undecided)' if undecided else ''}\n" if failed
                       else f"PASS: all {len(result.checks)} requirement(s) hold\n")


def _as_expr(value: object) -> object:
    from fractions import Fraction

    import sympy

    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    return value
