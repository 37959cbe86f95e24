"""The tables of the documentation generated from the model registry: ``python -m privcert.doc_tables``.

Each generated table lives in a region of a Markdown page between two HTML comments,
``<!-- generated: NAME -->`` and ``<!-- end generated: NAME -->``; the command rewrites the
regions only, so the prose around them is edited by hand as usual. ``--check`` writes
nothing and exits 1 naming the pages whose regions differ (a test runs it).

The regions: the models of docs/models.md (:func:`verifier.registry.models_table`), the
models a policy may require in docs/policy.md (:func:`policy_table`), the definitions of
the implication map in docs/theory.md (:func:`definitions_table`) and the works the models
cite in docs/references.md (:func:`references_table`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import sympy

__all__ = ["REGIONS", "policy_table", "definitions_table", "references_table", "region", "generate", "main"]

ROOT = Path(__file__).resolve().parents[1]


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    return "\n".join([_row(header), "|" + "---|" * len(header), *(_row(row) for row in rows)]) + "\n"


def _parameters(declared: object) -> str:
    from verifier.registry import Model

    assert isinstance(declared, Model)
    found = [f"`{p.name}`: {p.describe()}" + ("" if p.required else " (optional)") for p in declared.parameters]
    return "; ".join(found) or "—"


def policy_table() -> str:
    """The models a policy's ``[[require]]`` may name: how the threshold decides, its range, the parameters."""
    from verifier.registry import models

    sign = {"at_least": "≥", "at_most": "≤", "below": "<"}
    rows = []
    for item in models():
        passes = f"level {sign[item.comparison]} threshold" + (" (strict)" if item.strict else "")
        threshold = item.threshold.describe() + (" (or ln(q), e^x)" if item.closed_forms else "")
        needs = ", ".join(sorted(item.needs)) or "—"
        rows.append((f"`{item.id}`", f"{item.name} ({item.units})", passes, threshold, _parameters(item), needs))
    return _table(("model", "level (units)", "passes when", "threshold", "parameters", "needs"), rows)


def _level(symbol: str, domain: sympy.Set) -> str:
    """A definition's level and its admissible values: ``k ≥ 1 (integer)``, ``R ∈ (0, 1]``, ``β ≥ 0``."""
    if isinstance(domain, sympy.Range):
        return f"{symbol} ≥ {domain.inf} (integer)"
    assert isinstance(domain, sympy.Interval)
    if domain.sup == sympy.oo:
        return f"{symbol} {'>' if domain.left_open else '≥'} {domain.inf}"
    left, right = "(" if domain.left_open else "[", ")" if domain.right_open else "]"
    return f"{symbol} ∈ {left}{domain.inf}, {domain.sup}{right}"


def definitions_table() -> str:
    """The definitions of the implication map: level symbol and domain, direction, what they are relative to,
    what their k is and the smallest class they guarantee (their declared facts)."""
    from theory.definitions import definitions
    from verifier.display import formula
    from verifier.registry import model

    def size(item: Any) -> str:
        if item.subset_size is not None:
            return f"a subset size {formula(item.subset_size)} ∈ [1, N-1]"
        return "the smallest class k" if item.class_sized else "—"

    rows = [(f"`{item.id}`", item.name, _level(formula(item.level), item.domain),
             item.direction.split("_")[0] + (", strict" if model(item.id).strict else ""), ", ".join(item.parameters),
             size(item), "—" if item.minimal_class_size is None else formula(item.minimal_class_size),
             str(item.source)) for item in definitions()]
    return _table(("id", "name", "level", "stronger", "relative to", "size", "smallest class", "source"), rows)


def references_table() -> str:
    """Every work :mod:`verifier.references` holds, with the models that cite it."""
    from verifier.references import REFERENCES
    from verifier.registry import models

    citing: dict[str, list[str]] = {}
    for item in models():
        citing.setdefault(item.source.paper, []).append(f"`{item.id}`")
    rows = [(f"`{found.key}`", str(found), ", ".join(citing.get(paper, ())) or "—")
            for paper, found in REFERENCES.items()]
    return _table(("key", "reference", "models citing it"), rows)


def _models_table() -> str:
    from verifier.registry import models_table

    return models_table()


REGIONS: dict[tuple[str, str], Callable[[], str]] = {
    ("docs/models.md", "models"): _models_table,
    ("docs/policy.md", "policy-models"): policy_table,
    ("docs/theory.md", "definitions"): definitions_table,
    ("docs/references.md", "references"): references_table,
}
"""(page, region name) -> the function that writes the region."""


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- generated: {re.escape(name)} -->\n)(.*?)(<!-- end generated: {re.escape(name)} -->)",
                      re.DOTALL)


def region(text: str, name: str) -> str:
    """The text of the region ``name`` of a page.

    Raises
    ------
    ValueError
        The page has no such region, or has it twice.
    """
    found = _pattern(name).findall(text)
    if len(found) != 1:
        raise ValueError(f"expected one region <!-- generated: {name} --> ... <!-- end generated: {name} -->, "
                         f"found {len(found)}")
    return str(found[0][1])


def generate(root: Path = ROOT, *, write: bool = True) -> list[str]:
    """Rewrite every region under ``root`` (or, with ``write=False``, only compare); the pages that differed."""
    differed = []
    for (page, name), make in REGIONS.items():
        path = root / page
        text = path.read_text(encoding="utf-8")
        try:
            current = region(text, name)
        except ValueError as error:
            raise ValueError(f"{page}: {error}") from None
        wanted = make()
        if current != wanted:
            differed.append(page)
            if write:
                match = _pattern(name).search(text)
                assert match is not None
                path.write_text(text[:match.start(2)] + wanted + text[match.end(2):], encoding="utf-8")
    return differed


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m privcert.doc_tables [--check]``: write the generated tables (or check them: exit 1 when they differ)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in arguments
    unknown = [a for a in arguments if a != "--check"]
    if unknown:
        print(f"usage: python -m privcert.doc_tables [--check]; unknown argument(s): {' '.join(unknown)}", file=sys.stderr)
        return 2
    differed = generate(write=not check)
    for page in differed:
        print(f"{page}: {'differs from the registry' if check else 'rewritten'}")
    return 1 if check and differed else 0


if __name__ == "__main__":
    raise SystemExit(main())
