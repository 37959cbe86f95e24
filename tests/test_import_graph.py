"""No import circle among the verifier's modules: the registry at the bottom, results and measures above it.

Every import that runs is read from the source with :mod:`ast`, at module level and inside functions (a late
import closes a circle as surely as an early one), and resolved to the module it loads (``from verifier.tables
import counts`` loads ``verifier.tables.counts``). An import under ``if TYPE_CHECKING:`` never runs: it names a
type for an annotation only, so it draws no arrow. A package's ``__init__`` that a submodule's import runs
implicitly draws none either (only the imports written are read). A circle is printed as the modules it passes
through, each arrow with the line of its import.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

Graph = dict[str, dict[str, int]]
"""Each module's imports of modules of the same package, with the line of the first."""


def _name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> list[tuple[str, int]]:
    """The names each import that runs loads (``module`` and ``module.name`` of a ``from`` import), with its line."""
    found: list[tuple[str, int]] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and _type_checking(node):
            pending.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found += [(f"{node.module}.{alias.name}", node.lineno) for alias in node.names]
        pending.extend(ast.iter_child_nodes(node))
    return found


def import_graph(package: Path) -> Graph:
    """The imports among the modules of ``package`` (a directory) that run."""
    paths = {_name(path, package.parent): path for path in sorted(package.rglob("*.py"))}
    graph: Graph = {}
    for module, path in paths.items():
        edges = graph.setdefault(module, {})
        for name, line in _imports(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            while name and name not in paths:
                name = name.rpartition(".")[0]
            if name and name != module:
                edges.setdefault(name, line)
    return graph


def circles(graph: Mapping[str, Mapping[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan 1972), each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        walk = [(start, iter(sorted(graph[start])))]
        while walk:
            node, targets = walk[-1]
            target = next(targets, None)
            if target is None:
                walk.pop()
                if walk:
                    low[walk[-1][0]] = min(low[walk[-1][0]], low[node])
                if low[node] == index[node]:
                    component = stack[stack.index(node):]
                    del stack[stack.index(node):]
                    if len(component) > 1:
                        found.append(sorted(component))
            elif target not in index:
                index[target] = low[target] = len(index)
                stack.append(target)
                walk.append((target, iter(sorted(graph[target]))))
            elif target in stack:
                low[node] = min(low[node], index[target])
    return sorted(found)


def loop(graph: Mapping[str, Mapping[str, int]], component: list[str]) -> str:
    """One shortest circle through the component's first module: ``a -> b (a:12) -> a (b:3)``."""
    inside = set(component)
    start = component[0]
    came: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for target in sorted(graph[node]):
            if target in inside and target not in came:
                came[target] = node
                queue.append(target)
        if start in came:
            break
    path = [start]
    while came[path[-1]] != start:
        path.append(came[path[-1]])
    path.append(start)
    path.reverse()
    return path[0] + "".join(f" -> {b} ({a}:{graph[a][b]})" for a, b in zip(path, path[1:], strict=False))


def test_no_import_circle_among_the_verifier_modules() -> None:
    graph = import_graph(ROOT / "verifier")
    found = [f"{len(component)} modules: {loop(graph, component)}" for component in circles(graph)]
    assert not found, "\n".join(found)


def test_the_registry_stands_on_declarations_and_input_types_only() -> None:
    """What the registry loads, directly or not: no measure, no result, no count table."""
    graph = import_graph(ROOT / "verifier")
    below: set[str] = set()
    pending = ["verifier.registry"]
    while pending:
        for target in graph[pending.pop()]:
            if target not in below:
                below.add(target)
                pending.append(target)
    assert sorted(below) == ["verifier.display", "verifier.errors", "verifier.escape", "verifier.inputs",
                             "verifier.literal", "verifier.models", "verifier.named_inputs", "verifier.randomized.data_mark",
                             "verifier.randomized.mechanism", "verifier.references", "verifier.tables.text_file"]


def _package(root: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        (root / "p" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "p" / name).write_text(text)
    return root / "p"


def test_a_function_level_import_closes_a_circle(tmp_path: Path) -> None:
    package = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from p.sub import b\n",
        "sub/__init__.py": "",
        "sub/b.py": "import os\n\n\ndef f():\n    from p import c\n",
        "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.d import X\nelse:\n    import p.a\n",
        "d.py": "from p.c import Y\n",
    })
    graph = import_graph(package)
    assert graph == {"p": {}, "p.a": {"p.sub.b": 1}, "p.c": {"p.a": 5}, "p.d": {"p.c": 1}, "p.sub": {},
                     "p.sub.b": {"p.c": 5}}
    assert circles(graph) == [["p.a", "p.c", "p.sub.b"]]
    assert loop(graph, ["p.a", "p.c", "p.sub.b"]) == "p.a -> p.sub.b (p.a:1) -> p.c (p.sub.b:5) -> p.a (p.c:5)"


def test_an_import_for_the_type_checker_closes_none(tmp_path: Path) -> None:
    package = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "import p.b\n",
        "b.py": "import typing\nif typing.TYPE_CHECKING:\n    from p.a import X\n",
    })
    assert circles(import_graph(package)) == []
