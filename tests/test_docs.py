"""Every command and Python example in the documentation runs as written.

The documents are README.md, docs/*.md, examples/**/README.md and benchmarks/README.md.
Each fenced block is classified by its info string:

* ``bash``, ``sh``, ``shell``: commands, run with ``bash -e -o pipefail`` from the
  repository root (``cd`` inside a block moves that block only);
* ``console``: a session: lines starting with ``$ `` are the commands (run as above), the
  other lines what they print (as in an ``output`` block);
* ``python``: an API example, run with the project's interpreter from the repository root;
* ``output``: what the runnable block before it prints (prose may come between, another
  fence may not): each line must appear in its output (stdout and stderr together), in
  order; a line ``...`` stands for anything;
* anything else (``text`` for syntax summaries and sample outputs, ``toml``, ``csv``,
  ``json``) is not run. A fence without an info string is an error: say what it is.

An HTML comment on the line before a runnable fence qualifies it: ``<!-- exit N -->`` (the
block, then one command only, must exit with N, e.g. a failing audit's 1) or
``<!-- not run: REASON -->`` (a set-up step, a benchmark of minutes, a cluster address; the
reason is required).

The blocks of a document run in order in one temporary copy of the repository's tracked
files, a fresh one for each document (so a key made by one block is there for the next
block of the same page only, and nothing is written over a committed file), with the
project's environment first on ``PATH``. No run may print a Python traceback, whatever its
exit code, and no page may leave a file that ``git status`` would show (an output neither
in a scratch folder nor covered by .gitignore: a private key, most of all).
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

from _processes import CEILING

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted({ROOT / "README.md", ROOT / "benchmarks" / "README.md", *(ROOT / "docs").glob("*.md"),
                    *(ROOT / "examples").rglob("README.md")})
SHELL = ("bash", "sh", "shell")
RUNNABLE = (*SHELL, "console", "python")
_FENCE = re.compile(r"(?:<!--\s*(?P<directive>[^>]*?)\s*-->\n)?```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$",
                    re.S | re.M)
_PROMPT = "$ "


@dataclass(frozen=True)
class Block:
    """One fenced block of a document, with the ``output`` block that follows it, if any."""

    document: Path
    line: int
    info: str
    body: str
    directive: str | None
    output: str | None

    @property
    def where(self) -> str:
        return f"{_name(self.document)}:{self.line}"

    @property
    def runnable(self) -> bool:
        return self.info in RUNNABLE

    @property
    def exit_code(self) -> int:
        found = re.fullmatch(r"exit (\d+)", self.directive or "")
        return int(found[1]) if found else 0

    @property
    def skipped(self) -> str | None:
        """The reason a block is not run, when its directive says so."""
        found = re.fullmatch(r"not run:\s*(.+)", self.directive or "", re.S)
        return found[1] if found else None

    @property
    def commands(self) -> list[str]:
        """The block's commands: logical lines (``\\`` continues one), without blanks and comments.

        A ``python`` block is one command; in a ``console`` block only the ``$`` lines are."""
        if self.info == "python":
            return [self.body]
        lines = self.body.replace("\\\n", " ").splitlines()
        if self.info == "console":
            lines = [line[len(_PROMPT):] for line in lines if line.startswith(_PROMPT)]
        return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]

    @property
    def expected(self) -> str | None:
        """What the block must print: a ``console`` block's own output lines, then the ``output`` block."""
        shown = []
        if self.info == "console":
            continuing = False
            for line in self.body.splitlines():
                if line.startswith(_PROMPT) or continuing:
                    continuing = line.endswith("\\")
                else:
                    shown.append(line)
        if self.output is not None:
            shown.append(self.output)
        return "\n".join(shown) if shown else None

    def argv(self) -> list[str]:
        if self.info == "python":
            return [sys.executable, "-c", self.body]
        script = "\n".join(self.commands) if self.info == "console" else self.body
        return ["bash", "-e", "-o", "pipefail", "-c", script]


def _name(document: Path) -> str:
    return str(document.relative_to(ROOT)) if document.is_relative_to(ROOT) else document.name


def _fences(text: str) -> list[tuple[re.Match[str], str]]:
    return [(match, match["info"].strip()) for match in _FENCE.finditer(text)]


def blocks(document: Path) -> list[Block]:
    """The fenced blocks of ``document`` other than ``output`` blocks, each with its directive and output."""
    text = document.read_text(encoding="utf-8")
    found = _fences(text)
    out = []
    for index, (match, info) in enumerate(found):
        if info == "output":
            continue
        following = found[index + 1] if index + 1 < len(found) else None
        output = following[0]["body"] if following is not None and following[1] == "output" else None
        out.append(Block(document, text.count("\n", 0, match.start("info")) + 1, info, match["body"],
                         match["directive"], output))
    return out


def orphan_outputs(document: Path) -> list[str]:
    """``output`` blocks whose previous fence is not a block that runs (nothing would check them)."""
    text = document.read_text(encoding="utf-8")
    found = _fences(text)
    orphans = []
    for index, (match, info) in enumerate(found):
        if info != "output":
            continue
        before = found[index - 1] if index > 0 else None
        checked = (before is not None and before[1] in RUNNABLE
                   and not (before[0]["directive"] or "").startswith("not run"))
        if not checked:
            orphans.append(f"{_name(document)}:{text.count(chr(10), 0, match.start('info')) + 1}")
    return orphans


def runnable(document: Path) -> list[Block]:
    return [block for block in blocks(document) if block.runnable]


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


def _left_behind(workspace: Path) -> list[str]:
    """Files in ``workspace`` that are neither tracked nor ignored by the repository's .gitignore: what
    ``git status`` would show after following the documents in a checkout."""
    tracked = set(filter(None, subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                                              check=True).stdout.decode().split("\0")))
    found = sorted(Path(folder, name).relative_to(workspace).as_posix()
                   for folder, _, names in os.walk(workspace) for name in names)
    untracked = [name for name in found if name not in tracked]
    if not untracked:
        return []
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "--stdin", "-z"], cwd=ROOT,
                             input="\0".join(untracked).encode(), capture_output=True).stdout.decode().split("\0")
    return [name for name in untracked if name not in set(ignored)]


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


SAMPLE = """# A page

<!-- exit 1 -->
```bash
privcert audit --policy examples/table4/policy.toml   # fails on purpose
```

prints, among the rest:

```output
FAIL: 1 of 4 requirement(s) do not hold
```

```console
$ privcert keygen \\
    --out key
private key: key
...
$ cat key.pub
```

```text
privcert audit [DATA] --policy POLICY.toml
```

```output
an output block after a text block is checked by nothing
```

<!-- not run: takes 40 minutes -->
```python
import this
```
"""


def test_blocks_are_classified_with_their_directives_and_outputs(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(SAMPLE, encoding="utf-8")
    audit, session, summary, skipped = blocks(page)
    assert (audit.where, audit.info, audit.exit_code, audit.skipped) == ("page.md:4", "bash", 1, None)
    assert audit.commands == ["privcert audit --policy examples/table4/policy.toml   # fails on purpose"]
    assert audit.expected == "FAIL: 1 of 4 requirement(s) do not hold\n"
    assert session.commands == ["privcert keygen      --out key", "cat key.pub"]
    assert session.expected == "private key: key\n..."
    assert session.argv()[-1] == "privcert keygen      --out key\ncat key.pub"
    assert not summary.runnable and summary.output is not None
    assert (skipped.exit_code, skipped.skipped, skipped.commands) == (0, "takes 40 minutes", ["import this\n"])
    assert [block.where for block in runnable(page)] == ["page.md:4", "page.md:14", "page.md:31"]
    assert orphan_outputs(page) == ["page.md:26"]


def test_expected_lines_are_found_in_order() -> None:
    output = "a: 1\nb: 2\nc: 3\n"
    assert _follows("a: 1\n...\n  c: 3", output) is None
    assert _follows("b: 2\na: 1", output) == "a: 1"
    assert _follows("d", output) == "d"


def test_every_fence_says_what_it_is() -> None:
    unlabelled = [block.where for document in DOCUMENTS for block in blocks(document) if not block.info]
    assert not unlabelled, f"give these code blocks an info string (bash, python, text, ...): {unlabelled}"


def test_every_fence_is_found() -> None:
    """An indented or unclosed fence would hide its commands from the runner."""
    bad = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        fences = sum(1 for line in text.splitlines() if line.lstrip().startswith(("```", "~~~")))
        if fences != 2 * len(_fences(text)):
            bad.append(str(document.relative_to(ROOT)))
    assert not bad, f"fences the runner cannot read (indented, unclosed or ~~~): {bad}"


def test_every_directive_is_understood() -> None:
    bad = [block.where for document in DOCUMENTS for block in blocks(document)
           if block.directive is not None and (not block.runnable or (
               block.skipped is None and not re.fullmatch(r"exit \d+", block.directive.strip())))]
    assert not bad, f"directives go before runnable blocks, as 'exit N' or 'not run: REASON': {bad}"


def test_a_block_that_fails_on_purpose_holds_one_command() -> None:
    """Under ``bash -e`` a block stops at its first failing command: the rest would never run."""
    bad = [block.where for document in DOCUMENTS for block in runnable(document)
           if block.exit_code != 0 and len(block.commands) != 1]
    assert not bad, f"give each command with a non-zero exit code a block of its own: {bad}"


def test_every_output_block_is_checked() -> None:
    orphans = [where for document in DOCUMENTS for where in orphan_outputs(document)]
    assert not orphans, f"an output block must come after a block that runs, with no fence between: {orphans}"


@pytest.mark.parametrize("document", [d for d in DOCUMENTS if runnable(d)], ids=lambda d: str(d.relative_to(ROOT)))
def test_the_documented_commands_run_as_written(document: Path, tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    environment = _environment(tmp_path / "cache")
    for block in runnable(document):
        if block.skipped is not None:
            continue
        done = subprocess.run(block.argv(), cwd=workspace, env=environment, capture_output=True, text=True,
                              timeout=CEILING)
        output = done.stdout + done.stderr
        assert done.returncode == block.exit_code, (
            f"{block.where}: exit {done.returncode}, expected {block.exit_code}\n{block.body}\n--- output\n{output[-3000:]}")
        assert "Traceback (most recent call last)" not in output, f"{block.where}: a traceback\n{output[-3000:]}"
        if block.expected is not None:
            missing = _follows(block.expected, output)
            assert missing is None, f"{block.where}: the output lacks {missing!r}\n--- output\n{output[-3000:]}"
    left = _left_behind(workspace)
    assert not left, (f"{_name(document)}: these outputs would show in git status after following the page; write "
                      f"them into a scratch folder or let .gitignore cover them: {left}")
