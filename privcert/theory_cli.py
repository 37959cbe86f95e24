"""``privcert theory ...``: queries on the implication map (see ``theory``)."""

from __future__ import annotations

import typer

app = typer.Typer(help="Reason about privacy definitions: claims, implications, counterexamples.", no_args_is_help=True)
