"""``privcert docs [TOPIC]``: the documentation pages, shipped with the package, printed in the terminal.

The pages are the repository's docs/*.md (the package holds them as ``privcert/docs``), so
that messages and help texts can send an installed user to ``privcert docs risk`` rather
than to a path of a checkout they do not have.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from typing import Annotated

import typer

__all__ = ["docs_command", "pages"]


def pages() -> dict[str, Traversable]:
    """Every documentation page shipped, by topic (its file name without ``.md``)."""
    folder = resources.files("privcert") / "docs"
    if not folder.is_dir():
        return {}
    return {page.name.removesuffix(".md"): page for page in sorted(folder.iterdir(), key=lambda p: p.name)
            if page.name.endswith(".md")}


def _title(page: Traversable) -> str:
    heading = next((line for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("# ")), "")
    return heading.removeprefix("# ").strip()


def docs_command(
    topic: Annotated[str | None, typer.Argument(metavar="[TOPIC]", help="The page to print (without TOPIC: the list).")] = None,
) -> None:
    """Print a documentation page (risk, policy, certificates, ...); without TOPIC, list the pages."""
    from privcert.reporting import BAD_INPUT, stderr_line

    found = pages()
    if topic is None:
        width = max(map(len, found), default=0)
        for name, page in found.items():
            typer.echo(f"{name:<{width}}  {_title(page)}")
        return
    chosen = found.get(topic.removesuffix(".md"))
    if chosen is None:
        stderr_line("error", f"privcert docs {topic}: no such page; expected one of {', '.join(found) or '(none shipped)'}")
        raise typer.Exit(BAD_INPUT)
    typer.echo(chosen.read_text(encoding="utf-8"), nl=False)
