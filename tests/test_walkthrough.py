"""The walk-through of docs/models.md ("Adding a model, end to end"), followed in a copy of the repository.

The blocks of the page are written where the page says: p-sensitive k-anonymity (Truta &
Vinay 2006) as a new declaration module, its line in ``verifier.models.MODULES`` and a
claim "p-sensitive ⇒ distinct l-diversity with l = p" and a claim reading the smallest class the model declares
as a function of its parameter k and level p, "p-sensitive ⇒ k-anonymity at max(k, p)", in the derived claims. The test
checks that this touches two files and one line, then, in the copy, that the model is in
the generated tables, is measured, required by a policy and decided, refused with a bad
``k``, checked as a claim, carried by explain and drawn on the map.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "models.md"
_PACKAGES = ("verifier", "theory", "privcert", "reports", "mechanisms")
_PAGES = ("models.md", "policy.md", "theory.md", "references.md")


def _walkthrough() -> list[str]:
    """The three python blocks of the walk-through: the declaration, the registration line, the claims."""
    text = PAGE.read_text(encoding="utf-8").split("## Adding a model, end to end", 1)[1]
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's packages and generated pages, with the walk-through applied."""
    root = tmp_path_factory.mktemp("walkthrough")
    for package in _PACKAGES:
        shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "docs").mkdir()
    for page in _PAGES:
        shutil.copy(ROOT / "docs" / page, root / "docs" / page)
    shutil.copytree(ROOT / "examples" / "table4", root / "table4")
    declaration, registration, claim = _walkthrough()
    (root / "verifier" / "models" / "p_sensitive.py").write_text(declaration, encoding="utf-8")
    modules = root / "verifier" / "models" / "__init__.py"
    text = modules.read_text(encoding="utf-8")
    modules.write_text(text.replace('    "diversity",\n', '    "diversity",\n' + registration, 1), encoding="utf-8")
    claims = root / "theory" / "papers" / "derived" / "claims.py"
    text = claims.read_text(encoding="utf-8")
    end = text.index("\n)\n", text.index("CLAIMS: tuple[Claim, ...] = ("))
    claims.write_text(text[:end + 1] + claim + text[end + 1:], encoding="utf-8")
    return root


def _run(copy: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(copy), "PRIVCERT_CACHE_DIR": str(copy / "cache")}
    return subprocess.run([sys.executable, *arguments], cwd=copy, env=environment, capture_output=True, text=True,
                          timeout=600)


def test_the_walkthrough_touches_two_files_and_one_line(copy: Path) -> None:
    changed, added = [], []
    for path in sorted(copy.rglob("*.py")):
        name = path.relative_to(copy).as_posix()
        original = ROOT / name
        if not original.exists():
            added.append(name)
        elif original.read_bytes() != path.read_bytes():
            changed.append(name)
    assert added == ["verifier/models/p_sensitive.py"]
    assert changed == ["theory/papers/derived/claims.py", "verifier/models/__init__.py"]
    diff = difflib.unified_diff((ROOT / changed[1]).read_text(encoding="utf-8").splitlines(),
                                (copy / changed[1]).read_text(encoding="utf-8").splitlines(), n=0, lineterm="")
    assert [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")] == ['+    "p_sensitive",']


def test_the_tables_are_generated_with_the_new_model(copy: Path) -> None:
    assert _run(copy, "-m", "privcert.doc_tables", "--check").returncode == 1
    written = _run(copy, "-m", "privcert.doc_tables")
    assert written.returncode == 0, written.stderr
    for page in _PAGES:
        text = (copy / "docs" / page).read_text(encoding="utf-8")
        assert "`p_sensitive_k_anonymity`" in text, page
    assert _run(copy, "-m", "privcert.doc_tables", "--check").returncode == 0


_SCRIPT = '''
import json
from pathlib import Path

from privcert.cli import main
from theory.answers.audit_levels import AuditLevels, MeasuredLevel
from theory.answers.explain import explain
from theory.answers.graph import build_graph
from theory.answers.map import render_map
from theory.checks import check
from theory.claims.catalog import map_claims
from theory.claims.claim import CheckResult
from theory.definitions import minimal_class_size
from verifier.audit import audit
from verifier.errors import PolicyError
from verifier.policy import load_policy

policy_text = Path("table4/policy.toml").read_text(encoding="utf-8") + """
[[require]]
model = "p_sensitive_k_anonymity"
attribute = "disease"
k = 3
threshold = 3

[[require]]
model = "p_sensitive_k_anonymity"
attribute = "disease"
k = 4
threshold = 2
"""
Path("table4/policy.toml").write_text(policy_text, encoding="utf-8")
result = audit("table4/release.csv", load_policy("table4/policy.toml"))
decided = [(d.requirement.parameters["k"], d.measurement.level.exact, d.passed) for d in result.checks
           if d.requirement.model == "p_sensitive_k_anonymity"]
Path("table4/bad.toml").write_text(policy_text.replace("k = 4", "k = 0"), encoding="utf-8")
try:
    load_policy("table4/bad.toml")
    refused = None
except PolicyError as error:
    refused = str(error)
claim = check("privcert:p_sensitive_to_distinct")
by_parameter = check("privcert:p_sensitive_to_k")
statuses = {item.id: CheckResult("proven", None, (), "") for item in map_claims()}
statuses["privcert:p_sensitive_to_distinct"] = claim
statuses["privcert:p_sensitive_to_k"] = by_parameter
graph = build_graph(statuses)
explained = explain(AuditLevels(9, (MeasuredLevel("p_sensitive_k_anonymity", "disease", 3),), classes=3), graph)
drawn = render_map(graph, "map.svg").read_text(encoding="utf-8")
print(json.dumps({"decided": decided, "refused": refused, "claim": claim.status,
                  "by_parameter": [by_parameter.status, by_parameter.detail],
                  "fact": str(minimal_class_size("p_sensitive_k_anonymity")),
                  "explained": str(explained), "drawn": "p-sensitive k-anonymity" in drawn}))
'''


def test_the_new_model_is_measured_required_checked_explained_and_drawn(copy: Path) -> None:
    ran = _run(copy, "-c", _SCRIPT)
    assert ran.returncode == 0, ran.stderr
    found = json.loads(ran.stdout.splitlines()[-1])
    # Table 4 of Li et al. 2007: three classes of three records, each holding three diseases
    assert found["decided"] == [[3, "3", True], [4, "undefined", False]]
    assert "k" in found["refused"] and "0" in found["refused"]
    assert found["claim"] == "tested"
    # the bound names the declared parameter k: checked at each measurement's k (it raised "cannot decide")
    assert found["by_parameter"] == ["tested", "tested on 25 seeded releases (1-4 classes of 1-5 records over the "
                                     "values a, b, c, d): k_anonymity level is bounded by the claim at the measured "
                                     "p_sensitive_k_anonymity level, and attained"]
    # the second claim's bound is the declared fact, in the model's parameter k and level p
    assert found["fact"] == "Max(k, p)"
    assert "distinct_l_diversity" in found["explained"]
    assert found["drawn"]


def test_the_new_model_is_listed_and_measured_by_the_command_line(copy: Path) -> None:
    listed = _run(copy, "-m", "privcert", "models", "--json", "-")
    assert listed.returncode == 0, listed.stderr
    assert "p_sensitive_k_anonymity" in {item["id"] for item in json.loads(listed.stdout)["models"]}
    measured = _run(copy, "-m", "privcert", "measure", "table4/release.csv", "--qi", "zip,age", "--sensitive",
                    "disease", "--param", "p_sensitive_k_anonymity.k=2", "--json", "-")
    assert measured.returncode == 0, measured.stderr
    levels = [(m["parameters"], m["exact"]) for m in json.loads(measured.stdout)["measurements"]
              if m["model"] == "p_sensitive_k_anonymity"]
    assert levels == [({"k": 3}, "3"), ({"k": 2}, "3")]
    refused = _run(copy, "-m", "privcert", "measure", "table4/release.csv", "--qi", "zip,age", "--sensitive",
                   "disease", "--param", "p_sensitive_k_anonymity.k=0")
    assert refused.returncode == 2 and "p_sensitive_k_anonymity.k: expected an integer ≥ 1" in refused.stderr
