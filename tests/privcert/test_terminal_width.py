"""The tables of the command line at a terminal's width: a level, a verdict or a header is never cut.

At 80 columns and at every width from 60 to 160, the audits of the demo's two releases
(the hospital release and Table 5 of the t-closeness slides) keep every requirement's
level, threshold, result and every header whole on one line; only the witness wraps.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from privcert import output
from privcert.api import audit
from verifier.audit import AuditResult

DATA = Path(__file__).resolve().parents[2] / "privcert" / "data"


@pytest.fixture(scope="module")
def audits() -> dict[str, AuditResult]:
    return {"hospital": audit(None, DATA / "hospital" / "policy.toml"), "table5": audit(None, DATA / "policy.toml")}


def shown(result: AuditResult, width: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The audit as a terminal of ``width`` columns shows it, line by line."""
    monkeypatch.setattr(output, "_terminal", lambda console: True)
    console = Console(file=io.StringIO(), width=width, force_terminal=True, color_system=None, highlight=False)
    output.print_audit(console, result)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines), text
    return lines


def whole(cells: list[str], lines: list[str]) -> bool:
    """Each cell appears whole within one line."""
    return all(any(cell in line for line in lines) for cell in cells)


def cells_of(result: AuditResult) -> list[str]:
    from verifier.display import measurement_level, measurement_model

    cells = ["audit against"]
    for check in result.checks:
        cells += [measurement_model(check.measurement), measurement_level(check.measurement),
                  {"pass": "pass", "fail": "FAIL", "undecided": "UNDECIDED"}[check.verdict]]
    return cells


@pytest.mark.parametrize("name", ["hospital", "table5"])
def test_at_80_columns_every_level_and_verdict_is_whole(audits: dict[str, AuditResult], name: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    lines = shown(audits[name], 80, monkeypatch)
    assert whole(cells_of(audits[name]), lines), "\n".join(lines)
    assert whole(["199/1700 ≈ 0.1171"] if name == "hospital" else ["t_closeness (hierarchical)", "8/27 ≈ 0.2963"],
                 lines)
    assert lines[-1].startswith("PASS: all")


@pytest.mark.parametrize("width", range(60, 161, 10))
def test_at_any_width_from_60_nothing_but_the_witness_is_cut(audits: dict[str, AuditResult], width: int,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    for result in audits.values():
        lines = shown(result, width, monkeypatch)
        assert whole(cells_of(result), lines), "\n".join(lines)
        table = any("┃" in line for line in lines)
        # a table has every header whole; blocks name every column in front of its value
        headers = ["#", "model", "attribute", "level", "required", "result", "witness"]
        assert whole(headers if table else ["level", "required", "result", "witness"], lines)


def test_a_wide_terminal_shows_one_table(audits: dict[str, AuditResult], monkeypatch: pytest.MonkeyPatch) -> None:
    lines = shown(audits["table5"], 160, monkeypatch)
    assert sum("┃" in line for line in lines) == 1 and "recursive_cl_diversity (l=2)" in "\n".join(lines)
