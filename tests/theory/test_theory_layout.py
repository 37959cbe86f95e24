"""The layout of ``theory/``: its parts import in one direction, each paper's claims have their checks beside them, every ``__all__`` exists."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import theory
from theory.checks import CHECKS
from theory.claims import catalog
from theory.claims.catalog import BOUND_MODULES, CLAIM_MODULES

PAPERS = Path(theory.__file__).resolve().parent / "papers"
MODULES = sorted(info.name for info in pkgutil.walk_packages(theory.__path__, "theory."))
LAYERS = ("theory._lookup", "theory.definitions", "theory.claims", "theory.tables", "theory.mechanism_selection",
          "theory.search", "theory.papers", "theory.checks", "theory.status_cache", "theory.answers")
"""The parts of ``theory`` in import order (docs/theory.md, Layout): each imports only itself and earlier ones."""


def _layer(module: str) -> int:
    return max(i for i, part in enumerate(LAYERS) if module == part or module.startswith(part + "."))


def _imported(path: Path) -> set[str]:
    """The ``theory`` modules a file imports, at module level or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("theory."):
            found.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.module == "theory":
            found |= {f"theory.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("theory.")}
    return found


def test_no_part_of_theory_imports_a_later_one() -> None:
    root = PAPERS.parent.parent
    upward = sorted(f"{path.relative_to(root)} imports {name}"
                    for path in PAPERS.parent.rglob("*.py") if path.parent != PAPERS.parent or path.name != "__init__.py"
                    for name in _imported(path)
                    if _layer(name) > _layer(".".join(path.relative_to(root).with_suffix("").parts)))
    assert upward == []


def test_every_claims_module_of_the_papers_is_in_the_catalog() -> None:
    found = {"theory." + path.relative_to(PAPERS.parent).with_suffix("").as_posix().replace("/", ".")
             for path in PAPERS.rglob("*claims.py")}
    assert found == set(CLAIM_MODULES)


def test_the_map_reads_every_arrow_of_the_catalog() -> None:
    arrows = [item for item in catalog.all_claims() if item.premise is not None and item.conclusion is not None]
    assert catalog.map_claims() == tuple(arrows)
    assert BOUND_MODULES < set(CLAIM_MODULES)


def test_an_arrow_in_a_module_of_closed_form_levels_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A claims module wrongly listed as stating no implication would hide its arrows from the map."""
    monkeypatch.setattr(catalog, "BOUND_MODULES", BOUND_MODULES | {"theory.papers.privcert_risk.claims"})
    catalog._by_id.cache_clear()
    try:
        with pytest.raises(ValueError, match="privcert_risk.claims is listed in BOUND_MODULES but relates two "
                                             "definitions .*privcert:k_to_k_map.*the implication map would not see it"):
            catalog.all_claims()
    finally:
        catalog._by_id.cache_clear()


@pytest.mark.parametrize("claims_module", CLAIM_MODULES)
def test_checks_beside_the_claims_check_exactly_those_claims(claims_module: str) -> None:
    package, _, name = claims_module.rpartition(".")
    checks = importlib.import_module(f"{package}.{name.replace('claims', 'checks')}").CHECKS
    claims = importlib.import_module(claims_module).CLAIMS
    assert list(checks) == [item.id for item in claims]
    assert all(CHECKS[claim_id] is check for claim_id, check in checks.items())


@pytest.mark.parametrize("name", MODULES)
def test_every_exported_name_exists(name: str) -> None:
    module = importlib.import_module(name)
    assert [item for item in getattr(module, "__all__", ()) if not hasattr(module, item)] == []
