"""The packages import one way: verifier ← {mechanisms, theory} ← reports ← privcert.

``verifier`` measures and imports none of the others; ``mechanisms`` (the constructions
that produce releases) and ``theory`` (the implication map) build on the verifier only;
``reports`` (certificates and their views) on theory and the verifier; ``privcert`` (the
command line and the Python API) composes them all. Every import statement is read from
the source, function-level imports included, so a late import cannot hide an upward one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

ALLOWED = {
    "verifier": {"verifier"},
    "mechanisms": {"mechanisms", "verifier"},
    "theory": {"theory", "verifier"},
    "reports": {"reports", "theory", "verifier"},
    "privcert": {"privcert", "reports", "theory", "mechanisms", "verifier"},
}


def imported_packages(path: Path) -> set[tuple[str, int]]:
    """The project packages ``path`` imports, with the line of each import."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found.update((name.split(".")[0], node.lineno) for name in names if name.split(".")[0] in ALLOWED)
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_no_package_imports_upward(package: str) -> None:
    upward = sorted(f"{path.relative_to(ROOT)}:{line} imports {imported}"
                    for path in (ROOT / package).rglob("*.py")
                    for imported, line in imported_packages(path) if imported not in ALLOWED[package])
    assert not upward, "\n".join(upward)


def test_the_check_reads_function_level_imports(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from reports.html import view\n    import theory.answers.graph\n")
    assert imported_packages(module) == {("reports", 2), ("theory", 3)}
