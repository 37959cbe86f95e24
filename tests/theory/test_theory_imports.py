"""Listing the claims, building the graph from cached statuses and loading the map module import no heavy library.

Each paper's claim data (``theory/papers/<paper>/claims.py``) is kept apart from its checks
(``checks.py`` beside it, run by :mod:`theory.checks`), which need the exact measures (pandas,
numpy) and Z3; matplotlib is imported only when the map is drawn. Each case runs in a fresh
interpreter, so that nothing another test imported counts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from _processes import CEILING
from theory import status_cache

HEAVY = ("pandas", "numpy", "z3", "matplotlib", "theory.checks", "theory.tables.levels")
"""Modules that answering from the cache must not import."""
SCRIPT = Path(sys.executable).parent / "privcert"

_LOAD_AND_REPORT = """
import json, sys
{body}
heavy = {heavy!r}
print(json.dumps({{"hit": hit, "loaded": sorted(name for name in heavy if name in sys.modules)}}))
"""

CASES = {
    "registry": "from theory.claims.catalog import all_claims, sizes\n"
                "from theory.status_cache import claim_rows\n"
                "assert all(len(sizes(item.id)) == 2 for item in all_claims())\n"
                "_, hit = claim_rows()",
    "graph": "from theory.answers.graph import build_graph\n"
             "from theory.status_cache import cached_statuses, claim_rows\n"
             "assert build_graph(cached_statuses()).edges\n"
             "_, hit = claim_rows()",
    "map module and labels": "from theory.answers.graph import build_graph\n"
                             "from theory.answers.map import edge_label, edge_style\n"
                             "from theory.status_cache import cached_statuses, claim_rows\n"
                             "edges = build_graph(cached_statuses()).edges\n"
                             "assert all(edge_label(e) and edge_style(e) for e in edges)\n"
                             "_, hit = claim_rows()",
}


@pytest.fixture(scope="module")
def warm_cache() -> None:
    """Check every claim once (or find the statuses already cached) in this run's cache directory."""
    status_cache.claim_rows()


@pytest.mark.parametrize("body", CASES.values(), ids=CASES.keys())
def test_cached_answers_import_no_heavy_library(warm_cache: None, body: str) -> None:
    code = _LOAD_AND_REPORT.format(body=body, heavy=HEAVY)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=CEILING)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report == {"hit": True, "loaded": []}


def test_checks_still_load_their_libraries() -> None:
    """The counterpart: checking needs the exact measures, so importing the checks brings pandas in."""
    code = _LOAD_AND_REPORT.format(body="import theory.checks\nhit = True", heavy=HEAVY)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=CEILING)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])["loaded"]
    assert {"pandas", "theory.checks", "theory.tables.levels"} <= set(loaded)


def test_map_command_draws_in_its_own_process(warm_cache: None, tmp_path: Path) -> None:
    """``privcert theory map`` as a whole process: the file is written and its path printed (stdout flushed at exit)."""
    out = tmp_path / "map.svg"
    done = subprocess.run([str(SCRIPT), "theory", "map", "--out", str(out)], capture_output=True, text=True, timeout=CEILING)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {out}\n"
    assert out.read_text(encoding="utf-8").rstrip().endswith("</svg>")


def test_the_map_imports_no_module_of_closed_form_levels(warm_cache: None) -> None:
    """The graph (and so every answer and auditor mode) is drawn without importing ``BOUND_MODULES``."""
    code = ("import json, sys\n"
            "from theory.answers.graph import build_graph\n"
            "from theory.claims.catalog import BOUND_MODULES\n"
            "from theory.status_cache import cached_statuses\n"
            "assert build_graph(cached_statuses()).usable()\n"
            "print(json.dumps(sorted(name for name in BOUND_MODULES if name in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=CEILING)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
