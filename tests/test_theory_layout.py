"""The layout of ``theory/``: each paper's claims have their checks beside them, and every module's ``__all__`` exists."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import theory
from theory.checks import CHECKS
from theory.claims.catalog import CLAIM_MODULES

PAPERS = Path(theory.__file__).resolve().parent / "papers"
MODULES = sorted(info.name for info in pkgutil.walk_packages(theory.__path__, "theory."))


def test_every_claims_module_of_the_papers_is_in_the_catalog() -> None:
    found = {"theory." + path.relative_to(PAPERS.parent).with_suffix("").as_posix().replace("/", ".")
             for path in PAPERS.rglob("*claims.py")}
    assert found == set(CLAIM_MODULES)


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
