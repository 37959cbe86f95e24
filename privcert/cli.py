"""The ``privcert`` command line: parses arguments, calls the packages, prints, exits.

No privacy logic lives here (ARCHITECTURE.md, "The CLI is thin").
"""

from __future__ import annotations

import typer

from privcert.theory_cli import app as theory_app

app = typer.Typer(
    name="privcert",
    help="Measure, reason about and certify the privacy of released tables.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(theory_app, name="theory")


def main() -> None:
    """Console-script entry point."""
    app()
