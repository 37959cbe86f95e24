"""A built distribution holds every package of the source tree, subpackages included.

The build runs on a copy of the sources in a temporary directory, so the checkout (and its
editable install's metadata) is left as it is.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from _processes import CEILING

ROOT = Path(__file__).resolve().parent.parent
TOP_LEVEL = ("privcert", "verifier", "theory", "reports", "mechanisms")


def _files(root: Path) -> set[str]:
    """Every file under the packages (the docs the ``privcert/docs`` link points to included), caches left out."""
    found = set()
    for top in TOP_LEVEL:
        for folder, directories, names in os.walk(root / top, followlinks=True):
            directories[:] = [name for name in directories if name != "__pycache__"]
            found |= {(Path(folder) / name).relative_to(root).as_posix() for name in names}
    return found


def _packages(root: Path) -> set[str]:
    return {init.parent.relative_to(root).as_posix().replace("/", ".")
            for top in TOP_LEVEL for init in (root / top).rglob("__init__.py")}


def test_build_holds_every_package_and_the_data(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for top in TOP_LEVEL:
        shutil.copytree(ROOT / top, source / top, ignore=shutil.ignore_patterns("__pycache__"))
    built = tmp_path / "built"
    done = subprocess.run([sys.executable, "-c", "import setuptools; setuptools.setup()", "-q", "build_py",
                           "--build-lib", str(built)], cwd=source, capture_output=True, text=True, timeout=CEILING)
    assert done.returncode == 0, done.stderr
    assert _packages(built) == _packages(ROOT)
    assert _files(built) == _files(ROOT)  # every module, template, page and image, nothing else
    assert {"privcert/docs/engines.md", "privcert/docs/images/certificate.png"} <= _files(built)
    assert {"theory.papers.ekenstedt2022", "verifier.engines", "verifier.models"} <= _packages(built)
    assert (built / "privcert" / "data" / "policy.toml").is_file()
    assert (built / "reports" / "templates" / "certificate.html.j2").is_file()


def test_a_missing_engine_names_the_extra_that_installs_it(monkeypatch) -> None:
    """``duckdb`` and ``pyspark`` are extras: without them the engine's error says what to install (exit 2)."""
    import importlib.util

    import pytest
    from typer.testing import CliRunner

    from privcert.cli import app
    from verifier.engines import get_engine
    from verifier.errors import PolicyError

    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *args: None if name in ("duckdb", "pyspark") else found(name, *args))
    for engine, extra in (("duckdb", "duckdb"), ("spark", "spark")):
        with pytest.raises(PolicyError, match=rf"pip install 'privcert\[{extra}\]'"):
            get_engine(engine)
    done = CliRunner().invoke(app, ["measure", str(ROOT / "examples" / "table4" / "release.csv"), "--qi", "zip,age",
                                    "--sensitive", "disease", "--engine", "duckdb"])
    assert done.exit_code == 2 and "privcert[duckdb]" in done.stderr


def test_the_wheel_declares_the_engines_as_extras() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not any(d.startswith(("duckdb", "pyspark")) for d in project["dependencies"])
    assert project["optional-dependencies"]["spark"] == ["pyspark>=4.0"]
    assert project["license"] == "Apache-2.0"
