"""Help and messages an installed user can follow: whole summaries, readable metavars, no checkout paths."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _processes import CEILING
from privcert.cli import SUMMARIES, app

runner = CliRunner()
GROUPS = ("", "theory", "anonymize")


def _help(*command: str) -> str:
    done = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "80"}, terminal_width=80)
    assert done.exit_code == 0, done.output
    return done.output


@pytest.mark.parametrize("group", GROUPS)
def test_every_summary_is_whole_at_80_columns(group: str) -> None:
    listed = _help(*group.split()).split("Commands:\n", 1)[1]
    rows = dict(re.findall(r"^  (\S+)\s+(.*)$", listed, re.M))
    assert rows, listed
    for name, summary in rows.items():
        assert summary == SUMMARIES[f"{group} {name}".strip()], (name, summary)
        assert summary.endswith((".", "?")) and not summary.endswith("..."), summary


def test_every_command_has_its_summary() -> None:
    named = {f"{group} {name}".strip() for group in GROUPS
             for name in re.findall(r"^  (\S+)\s", _help(*group.split()).split("Commands:\n", 1)[1], re.M)}
    assert named == set(SUMMARIES)


def test_an_argument_of_several_files_reads_as_paths() -> None:
    shown = _help("compare")
    assert "RELEASE <path>..." in shown and "list[" not in shown
    assert "{ORIGINAL} {RELEASE}..." in shown


def test_no_help_or_message_names_a_file_of_the_checkout() -> None:
    """An installed user has no docs/ or examples/: help texts send them to ``privcert docs TOPIC``."""
    for group in GROUPS:
        for name in re.findall(r"^  (\S+)\s", _help(*group.split()).split("Commands:\n", 1)[1], re.M):
            if f"{group} {name}".strip() in ("theory", "anonymize"):
                continue
            shown = _help(*group.split(), name)
            assert not re.search(r"\b(docs|examples|scripts)/\S+", shown), (group, name, shown)
    assert "privcert docs risk" in _help("measure")


def test_docs_prints_a_page_and_lists_them(tmp_path: Path) -> None:
    listed = runner.invoke(app, ["docs"])
    assert listed.exit_code == 0 and re.search(r"^risk\s+Re-identification risk$", listed.stdout, re.M)
    page = runner.invoke(app, ["docs", "risk"])
    root = Path(__file__).resolve().parents[2]
    assert page.exit_code == 0 and page.stdout == (root / "docs" / "risk.md").read_text(encoding="utf-8")
    missing = runner.invoke(app, ["docs", "nothing"])
    assert missing.exit_code == 2 and "no such page; expected one of " in missing.stderr and " risk, " in missing.stderr


def test_the_demo_names_no_file_of_the_checkout(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "privcert", "demo", "--out", str(tmp_path / "demo")],
                          capture_output=True, text=True, timeout=CEILING, cwd=tmp_path,
                          env={**os.environ, "COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    assert not re.search(r"\b(docs|examples|scripts)/\S+", done.stdout), done.stdout
    written = [line.removeprefix("wrote ") for line in done.stdout.splitlines() if line.startswith("wrote ")]
    assert done.stdout.splitlines()[-len(written):] == [f"wrote {p}" for p in written]
    assert sorted(Path(p).name for p in written) == sorted(
        ["demo.key", "demo.key.pub", *(f"{n}.{s}" for n in ("hospital", "table5") for s in ("cert.json", "html", "pdf"))])
    assert all(Path(p).is_file() for p in written)
