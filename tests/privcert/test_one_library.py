"""The command line and the workbench are two views of one library: the same theory question gets the same JSON
from ``privcert theory implies --json`` and from the Explore page's ``/explore/implies.json``, and no module of
the workbench imports a command-line module."""

from __future__ import annotations

import ast
import json
import tempfile
from collections.abc import Iterator
from itertools import permutations
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from privcert.app import Settings, create_app
from privcert.cli import app as cli
from theory.definitions import definition_ids

APP = Path(__file__).resolve().parents[2] / "privcert" / "app"

VARIANTS: tuple[dict[str, str], ...] = (
    {},
    {"N": "100", "k": "5"},
    {"N": "100", "k": "5", "level": "1"},
    {"level": "1"},
    {"N": "6", "k": "2", "bound": "1"},
    {"N": "100", "k": "5", "level": "5", "dp_within_classes": "true"},
    {"N": "4", "k": "2", "level": "1", "bound": "3", "singleton_classes": "true"},
)
"""How each question is asked: no parameters; N and k; with A's level (1 lies in every definition's domain,
5 outside some: both views must refuse it alike); with B's level to exceed (a witness table); with assumptions."""
SIZES = ("N", "k")


CHOSEN: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("kt_closeness", "ldp", {"N": "4", "k": "2", "bound": "3"}),
    ("basic_beta_likeness", "kt_closeness", {}),
    ("ldp", "k_eps_dp", {"level": "1"}),
    ("dp", "ldp", {"level": "1"}),
    ("ldp", "kt_closeness", {"N": "100", "k": "5", "level": "7/10"}),
)
"""Questions the two views answered differently, or that reach a witness: a non-implication with its table
(Ekenstedt et al. 2022, Thm. 3, second item), an unknown with no claim, a guaranteed level depending on N and k, a "yes"
only if N = 2, the paper's example (Thm. 3, N = 100, k = 5, ε = 0.7)."""


def questions() -> list[tuple[str, str, dict[str, str]]]:
    """50 questions: every 8th ordered pair of the registry's definitions asked the ways of :data:`VARIANTS` in
    turn (45), and :data:`CHOSEN`."""
    pairs = list(permutations(definition_ids(), 2))[::8][:45]
    return [(premise, conclusion, VARIANTS[number % len(VARIANTS)])
            for number, (premise, conclusion) in enumerate(pairs)] + list(CHOSEN)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with tempfile.TemporaryDirectory() as root, \
            TestClient(create_app(Settings(root=Path(root), warm=False)), base_url="http://127.0.0.1:8000") as made:
        yield made


def _cli(premise: str, conclusion: str, asked: dict[str, str]) -> tuple[int, object]:
    arguments = ["theory", "implies", premise, conclusion, "--json"]
    for name, value in asked.items():
        arguments += [f"--{name}", value] if name in ("level", "bound") else ["--param", f"{name}={value}"]
    result = CliRunner().invoke(cli, arguments)
    if result.exit_code != 0:
        return result.exit_code, result.stderr.removeprefix("error: ").strip()
    return 0, json.loads(result.stdout)


def _app(client: TestClient, premise: str, conclusion: str, asked: dict[str, str]) -> tuple[int, object]:
    query = {"premise": premise, "conclusion": conclusion}
    for name, value in asked.items():
        if name in ("level", "bound"):
            query[name] = value
        elif name in SIZES:
            query[f"param-{name}"] = value
        else:
            query[f"assume-{name}"] = "1"
    response = client.get("/explore/implies.json", params=query)
    document = response.json()
    if response.status_code != 200:
        return 2, document["error"]
    return 0, document


def test_fifty_questions_are_fifty() -> None:
    asked = questions()
    assert len(asked) == 50 and len({(p, c) for p, c, _ in asked}) == 50


@pytest.mark.parametrize(("premise", "conclusion", "asked"), questions(),
                         ids=[f"{p}-{c}-{'+'.join(a) or 'plain'}" for p, c, a in questions()])
def test_the_cli_and_the_app_give_the_same_json(client: TestClient, premise: str, conclusion: str,
                                                asked: dict[str, str]) -> None:
    assert _app(client, premise, conclusion, asked) == _cli(premise, conclusion, asked)


def test_the_questions_reach_every_kind_of_answer(client: TestClient) -> None:
    """The 50 include a yes, a no, an unknown with no claim, a witness table and a refusal, so the comparison covers
    each way an answer is built."""
    answers = [_app(client, *question) for question in questions()]
    found = [document for code, document in answers if code == 0 and isinstance(document, dict)]
    assert {document["holds"] for document in found} == {"yes", "no", "unknown"}
    assert any(document["headline"] == "unknown: no claim connects them" for document in found)
    assert any(document["witness"] is not None for document in found)
    assert any(code == 2 for code, _ in answers)


def _imports(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def test_no_workbench_module_imports_a_command_line_module() -> None:
    """The pages render :mod:`privcert.api`'s results; a command-line module (``*_cli``) prints, exits and names
    options, none of which a page may inherit."""
    found = {path.name: sorted(name for name in _imports(path) if name.rsplit(".", 1)[-1].endswith("_cli"))
             for path in sorted(APP.glob("*.py"))}
    assert {name: modules for name, modules in found.items() if modules} == {}
    assert len(found) >= 10  # the walk saw the workbench's modules
