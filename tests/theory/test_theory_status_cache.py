"""The cache of checked claim statuses: read when current, rewritten when stale, corrupt or asked."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import theory
from _processes import CEILING, until
from privcert.cli import app
from theory import status_cache
from theory.claims.catalog import claim_ids

runner = CliRunner()


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(status_cache.CACHE_ENV, str(tmp_path))
    return tmp_path / "theory_claims.json"


@pytest.fixture(scope="module")
def checked() -> list[dict]:
    """The rows of one real check of every claim (the statuses are earned by checking)."""
    return status_cache._fresh_rows()


@pytest.fixture()
def counted(monkeypatch: pytest.MonkeyPatch, checked: list[dict]) -> list[int]:
    """Counts the fresh checks; each returns the module's real rows."""
    calls: list[int] = []

    def counting() -> list[dict]:
        calls.append(1)
        return json.loads(json.dumps(checked))

    monkeypatch.setattr(status_cache, "_fresh_rows", counting)
    return calls


def test_second_run_reads_the_cache(cache: Path, counted: list[int]) -> None:
    first, hit = status_cache.claim_rows()
    assert not hit and cache.is_file() and len(counted) == 1
    second, hit = status_cache.claim_rows()
    assert hit and second == first and len(counted) == 1
    assert [row["id"] for row in second] == list(claim_ids())
    assert json.loads(cache.read_text())["key"] == status_cache.source_hash()


def test_changed_hash_invalidates(cache: Path, counted: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    status_cache.claim_rows()
    monkeypatch.setattr(status_cache, "source_hash", lambda: "another version of the code")
    _, hit = status_cache.claim_rows()
    assert not hit and len(counted) == 2
    assert json.loads(cache.read_text())["key"] == "another version of the code"


@pytest.mark.parametrize("content", ["{not json", '{"key": 1}', "[]", '{"key": "%s", "rows": [1]}'])
def test_corrupt_cache_is_ignored_and_rewritten(cache: Path, counted: list[int], content: str) -> None:
    cache.write_text(content.replace("%s", status_cache.source_hash()))
    _, hit = status_cache.claim_rows()
    assert not hit and len(counted) == 1
    assert json.loads(cache.read_text())["key"] == status_cache.source_hash()


def test_unwritable_cache_still_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, counted: list[int]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(status_cache.CACHE_ENV, str(blocker / "below"))
    rows, hit = status_cache.claim_rows()
    assert not hit and rows and len(counted) == 1


def test_recheck_checks_again(cache: Path, counted: list[int]) -> None:
    status_cache.claim_rows()
    result = runner.invoke(app, ["theory", "claims", "--recheck"])
    assert result.exit_code == 0, result.output
    assert len(counted) == 2
    result = runner.invoke(app, ["theory", "claims"])
    assert result.exit_code == 0 and len(counted) == 2


CHECKER = """
import sys, time
from pathlib import Path
from theory import status_cache
folder, name = Path(sys.argv[1]), sys.argv[2]
status_cache.source_hash()  # the key known: what follows looks for the cache at once
def check():
    (folder / f"checking-{name}").touch()
    while not (folder / "go").exists():
        time.sleep(0.01)
    return [{"id": "a:b", "status": "proven", "checked_by": [], "detail": f"checked by {name}"}]
status_cache._fresh_rows = check
rows, hit = status_cache.claim_rows()
print(hit, rows[0]["detail"])
"""
"""A process whose check of the claims (replaced: it says it started, then waits for the file ``go``) answers
whether its rows came from the cache, and who checked them."""


def _waits_on_a_lock(pid: int) -> bool:
    """Whether the process ``pid`` is blocked waiting for a file lock (a ``->`` line of ``/proc/locks``)."""
    return any(line.split()[1] == "->" and str(pid) in line.split()[2:6]
               for line in Path("/proc/locks").read_text().splitlines())


def test_processes_that_find_no_cache_at_once_check_the_claims_once(tmp_path: Path) -> None:
    """The second process comes while the first checks: it waits for that check and reads its rows."""
    root = Path(theory.__file__).resolve().parent.parent
    environment = {**os.environ, status_cache.CACHE_ENV: str(tmp_path / "cache")}

    def start(name: str) -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, "-c", CHECKER, str(tmp_path), name], cwd=root, env=environment,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    first = start("first")
    until(lambda: (tmp_path / "checking-first").exists(), first, failure="the first process never began its check")
    second = start("second")
    until(lambda: (tmp_path / "checking-second").exists() or _waits_on_a_lock(second.pid), second,
          failure="the second process neither checked nor waited on the lock")
    (tmp_path / "go").touch()
    outputs = [process.communicate(timeout=CEILING) for process in (first, second)]
    assert [process.returncode for process in (first, second)] == [0, 0], outputs
    assert [out for out, _ in outputs] == ["False checked by first\n", "True checked by first\n"]
    assert not (tmp_path / "checking-second").exists()


def test_hash_covers_what_the_checks_can_run() -> None:
    names = [name for name, _ in status_cache._sources()]
    assert names == sorted(names) and names == list(status_cache.dependencies())
    assert "theory/papers/ekenstedt2022/checks.py" in names and "verifier/randomized/levels.py" in names
    assert "theory/status_cache.py" in names and "verifier/models/randomized.py" in names
    assert "verifier/privacy/diversity.py" in names and "verifier/models/p_sensitive.py" not in names
    assert "theory/answers/explain.py" not in names  # reads statuses, never decides one
    assert "verifier/utility/loss.py" not in names and "verifier/engines/duckdb_engine.py" not in names


@pytest.fixture()
def unparsed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts the parses that find the dependencies; the keys are computed afresh in the test and after it."""
    calls: list[int] = []
    real = status_cache.dependencies

    def counting(root: Path | None = None) -> tuple[str, ...]:
        calls.append(1)
        return real(root)

    monkeypatch.setattr(status_cache, "dependencies", counting)
    status_cache._keys.cache_clear()
    yield calls
    status_cache._keys.cache_clear()


def test_a_recorded_tree_gives_the_key_without_parsing_the_modules(cache: Path, counted: list[int],
                                                                   unparsed: list[int]) -> None:
    status_cache.claim_rows()
    stored = json.loads(cache.read_text())
    root = Path(theory.__file__).resolve().parent.parent
    assert stored["tree"] == status_cache._tree(root) and stored["key"] == status_cache._hash(root)
    assert len(unparsed) == 2  # the first key, and the check above
    status_cache._keys.cache_clear()
    _, hit = status_cache.claim_rows()
    assert hit and len(unparsed) == 2 and len(counted) == 1


def test_another_tree_parses_the_modules_again_and_records_its_own(cache: Path, counted: list[int],
                                                                  unparsed: list[int]) -> None:
    status_cache.claim_rows()
    stored = json.loads(cache.read_text())
    tree = stored["tree"]
    for recorded in ("0" * 64, None):  # another tree with the same key; a cache written before trees were recorded
        cache.write_text(json.dumps({**stored, "tree": recorded}))
        status_cache._keys.cache_clear()
        parsed = len(unparsed)
        _, hit = status_cache.claim_rows()
        assert hit and len(unparsed) == parsed + 1 and len(counted) == 1
        assert json.loads(cache.read_text())["tree"] == tree


def test_a_recorded_tree_never_vouches_for_a_wrong_key(cache: Path, counted: list[int], unparsed: list[int]) -> None:
    status_cache.claim_rows()
    root = Path(theory.__file__).resolve().parent.parent
    stored = json.loads(cache.read_text())
    cache.write_text(json.dumps({**stored, "tree": "0" * 64, "key": "another version of the code"}))
    status_cache._keys.cache_clear()
    _, hit = status_cache.claim_rows()
    assert not hit and len(counted) == 2
    assert json.loads(cache.read_text())["key"] == status_cache._hash(root)


def test_the_tree_covers_every_module_of_theory_and_verifier(sources: Path) -> None:
    tree = status_cache._tree(sources)
    with (sources / "verifier" / "utility" / "loss.py").open("a", encoding="utf-8") as stream:
        stream.write("\n# edited\n")
    assert status_cache._tree(sources) != tree


@pytest.fixture()
def sources(tmp_path: Path) -> Path:
    root = Path(theory.__file__).resolve().parent.parent
    for package in ("theory", "verifier"):
        shutil.copytree(root / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_editing_a_module_no_check_runs_keeps_the_key(sources: Path) -> None:
    key = status_cache._hash(sources)
    for unused in ("verifier/utility/loss.py", "verifier/engines/duckdb_engine.py", "theory/answers/explain.py"):
        with (sources / unused).open("a", encoding="utf-8") as stream:
            stream.write("\n# edited\n")
    assert status_cache._hash(sources) == key
    with (sources / "verifier" / "privacy" / "diversity.py").open("a", encoding="utf-8") as stream:
        stream.write("\n# edited\n")
    assert status_cache._hash(sources) != key


def test_a_module_a_check_comes_to_import_joins_the_key(sources: Path) -> None:
    used = sources / "verifier" / "privacy" / "diversity.py"
    used.write_text(used.read_text(encoding="utf-8") + "\n\ndef _later():\n    from verifier.utility import loss\n",
                    encoding="utf-8")
    assert {"verifier/utility/loss.py", "verifier/utility/__init__.py"} <= set(status_cache.dependencies(sources))
    key = status_cache._hash(sources)
    with (sources / "verifier" / "utility" / "loss.py").open("a", encoding="utf-8") as stream:
        stream.write("\n# edited\n")
    assert status_cache._hash(sources) != key


def test_a_name_from_a_package_with_lazy_exports_brings_its_module(sources: Path) -> None:
    user = sources / "theory" / "tables" / "sizes.py"
    user.write_text(user.read_text(encoding="utf-8") + "\n\ndef _later():\n    from verifier import AuditResult\n",
                    encoding="utf-8")
    assert "verifier/audit.py" in status_cache.dependencies(sources)


def test_cache_dir_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(status_cache.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert status_cache.cache_dir() == tmp_path / "privcert"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert status_cache.cache_dir() == Path.home() / ".cache" / "privcert"
