"""Every command and Python example in the documentation runs as written.

The documents are README.md, docs/*.md, examples/**/README.md and benchmarks/README.md.
Each fenced block is classified by its info string:

* ``bash``, ``sh``, ``shell``: commands, run with ``bash -e -o pipefail`` from the
  repository root (``cd`` inside a block moves that block only);
* ``python``: an API example, run with the project's interpreter from the repository root;
* ``output``: what the block before it prints: each line must appear in its output (stdout
  and stderr together), in order; a line ``...`` stands for anything;
* anything else (``text`` for syntax summaries and sample outputs, ``toml``, ``csv``,
  ``json``) is not run. A fence without an info string is an error: say what it is.

An HTML comment on the line before a runnable fence qualifies it: ``<!-- exit N -->`` (the
block must exit with N, e.g. a failing audit's 1) or ``<!-- not run: REASON -->`` (a set-up
step, a benchmark of minutes, a cluster address; the reason is required).

The blocks of a document run in order in one temporary copy of the repository's tracked
files (so a key made by one block is there for the next, and nothing is written over a
committed file), with the project's environment first on ``PATH``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted({ROOT / "README.md", ROOT / "benchmarks" / "README.md", *(ROOT / "docs").glob("*.md"),
                    *(ROOT / "examples").rglob("README.md")})
COMMANDS = ("bash", "sh", "shell")
SHOWN = ("text", "toml", "csv", "json", "output", "console", "html", "svg")
_FENCE = re.compile(r"(?:<!--\s*(?P<directive>[^>]*?)\s*-->\n)?```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$",
                    re.S | re.M)
TIMEOUT = 300


@dataclass(frozen=True)
class Block:
    """One fenced block of a document."""

    document: Path
    line: int
    info: str
    body: str
    directive: str | None
    output: str | None

    @property
    def where(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.line}"

    @property
    def exit_code(self) -> int:
        found = re.fullmatch(r"exit (\d+)", self.directive or "")
        return int(found[1]) if found else 0

    @property
    def skipped(self) -> str | None:
        """The reason a block is not run, when its directive says so."""
        found = re.fullmatch(r"not run:\s*(.+)", self.directive or "", re.S)
        return found[1] if found else None


def blocks(document: Path) -> list[Block]:
    """The fenced blocks of ``document``, each with its directive and the ``output`` block that follows it."""
    text = document.read_text(encoding="utf-8")
    found = [(match, match["info"].strip()) for match in _FENCE.finditer(text)]
    out = []
    for index, (match, info) in enumerate(found):
        following = found[index + 1] if index + 1 < len(found) else None
        adjacent = following is not None and text[match.end():following[0].start()].strip() == ""
        output = following[0]["body"] if adjacent and following is not None and following[1] == "output" else None
        out.append(Block(document, text.count("\n", 0, match.start("info")) + 1, info, match["body"],
                         match["directive"], output))
    return out


def runnable(document: Path) -> list[Block]:
    return [block for block in blocks(document) if block.info in (*COMMANDS, "python")]


def _workspace(tmp_path: Path) -> Path:
    """A copy of the repository's tracked files, with the project's environment as ``.venv``."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    copy = tmp_path / "repository"
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    (copy / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return copy


def _environment(cache: Path) -> dict[str, str]:
    environment = dict(os.environ)
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    environment.pop("VIRTUAL_ENV", None)
    environment.setdefault("PRIVCERT_CACHE_DIR", str(cache))
    environment["COLUMNS"] = "100"
    return environment


def _follows(expected: str, output: str) -> str | None:
    """The first expected line missing from ``output`` (in order; ``...`` matches anything), or ``None``."""
    position = 0
    for line in (line.strip() for line in expected.splitlines()):
        if not line or line == "...":
            continue
        found = output.find(line, position)
        if found < 0:
            return line
        position = found + len(line)
    return None


def test_every_fence_says_what_it_is() -> None:
    unlabelled = [block.where for document in DOCUMENTS for block in blocks(document) if not block.info]
    assert not unlabelled, f"give these code blocks an info string (bash, python, text, ...): {unlabelled}"


def test_every_skipped_block_gives_a_reason() -> None:
    bad = [block.where for document in DOCUMENTS for block in blocks(document)
           if block.directive is not None and block.skipped is None and block.exit_code == 0
           and block.directive.strip() != "exit 0"]
    assert not bad, f"unknown directives (expected 'exit N' or 'not run: REASON'): {bad}"


@pytest.mark.parametrize("document", [d for d in DOCUMENTS if runnable(d)], ids=lambda d: str(d.relative_to(ROOT)))
def test_the_documented_commands_run_as_written(document: Path, tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    environment = _environment(tmp_path / "cache")
    for block in runnable(document):
        if block.skipped is not None:
            continue
        if block.info == "python":
            command = [sys.executable, "-c", block.body]
        else:
            command = ["bash", "-e", "-o", "pipefail", "-c", block.body]
        done = subprocess.run(command, cwd=workspace, env=environment, capture_output=True, text=True,
                              timeout=TIMEOUT)
        output = done.stdout + done.stderr
        assert done.returncode == block.exit_code, (
            f"{block.where}: exit {done.returncode}, expected {block.exit_code}\n{block.body}\n--- output\n{output[-3000:]}")
        if block.output is not None:
            missing = _follows(block.output, output)
            assert missing is None, f"{block.where}: the output lacks {missing!r}\n--- output\n{output[-3000:]}"
