"""``privcert theory ...``: queries on the implication map (see ``theory``).

Thin: parses arguments, calls :mod:`privcert.api` (``implies``, ``witness``, ``explain``, ``map``: the results
the workbench's Explore page shows too) or :mod:`theory` (``claims``, ``refute``), prints, sets the exit code
(2 for an unknown definition or claim id, or a malformed ``--param``; the message lists the valid values).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, ParamSpec, TypeVar

import typer

if TYPE_CHECKING:
    import sympy

app = typer.Typer(help="Reason about privacy definitions: claims, implications, counterexamples.", no_args_is_help=True)


MAX_N = 8
"""Largest table searched by Z3 from the command line (the search grows exponentially in N)."""

MAP_FORMATS = (".svg", ".png", ".pdf")


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _saying_what_is_left_out(command: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run a command that reads the claims' statuses so that their warnings (claims left out because their
    check did not decide, :class:`theory.status_cache.UncheckedClaimsWarning`) are printed as ``warning: ...``."""
    from privcert.reporting import reporting_errors

    @functools.wraps(command)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with reporting_errors():
            return command(*args, **kwargs)

    return run


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _params(pairs: list[str]) -> dict[str, int]:
    """``NAME=VALUE`` pairs: integers, and true/false as bools (a subclass of int)."""
    parsed: dict[str, int] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name or not value:
            _fail(f"--param {pair!r}: expected NAME=VALUE (e.g. N=100, k=5, k_t=3, singleton_classes=true)")
        if value.lower() in ("true", "false"):
            parsed[name] = value.lower() == "true"
            continue
        try:
            parsed[name] = int(value)
        except ValueError:
            _fail(f"--param {pair!r}: expected an integer or true/false value, found {value!r}")
    return parsed


def _check_timeout(seconds: float) -> None:
    """Exit 2 unless ``--timeout`` is a time limit the search accepts (:func:`theory.search.solver.timeout_ms`)."""
    from theory.search.solver import timeout_ms

    try:
        timeout_ms(seconds)
    except ValueError:
        _fail(f"--timeout {seconds}: expected a positive, finite number of seconds")


def _level(text: str | None, option: str = "--level") -> sympy.Expr | None:
    """A level typed by the user, read by the exact grammar of :mod:`verifier.literal` (never evaluated)."""
    from verifier.literal import Domain, LiteralError, parse_exact

    if text is None:
        return None
    try:
        return parse_exact(text, option, Domain(lower=Fraction(0)))
    except LiteralError as error:
        _fail(str(error))


@app.command()
def claims(
    as_json: bool = typer.Option(False, "--json", metavar="FILE|-", help="Print the JSON contract."),
    recheck: bool = typer.Option(False, "--recheck", help="Check every claim now, ignoring the cached statuses."),
    deep: bool = typer.Option(False, "--deep", metavar="DEEP", help="Also search every implication with Z3 (slow)."),
    max_n: int = typer.Option(4, "--max-n", metavar="N", min=1, max=MAX_N, help=f"Largest N for --deep (at most {MAX_N})."),
    timeout: float = typer.Option(10.0, "--timeout", metavar="SECONDS", help="Seconds per Z3 call for --deep."),
) -> None:
    """Every registered claim with the status earned by checking it (cached until the theory's code changes)."""
    from privcert.reporting import stage
    from theory.status_cache import claim_row, claim_rows

    if deep:
        from theory.checks import check_all
        from theory.claims.catalog import all_claims

        _check_timeout(timeout)
        with stage("checking every claim, with Z3 searches (minutes)"):
            outcomes = check_all(deep=True, max_n=max_n, timeout_s=timeout)
        rows = [claim_row(item, outcomes[item.id]) for item in all_claims()]
    else:
        with stage("checking every claim (about 20 s)" if recheck else "reading the claims' statuses"):
            rows, _ = claim_rows(recheck=recheck)
    if as_json:
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for row in rows:
        tight = {True: "  (tight)", False: "  (not tight)"}.get(row["tight"], "")
        typer.echo(f"{row['id']:<26} {row['kind']:<16} {row['status']:<10} {row['statement']}{tight}")
        if row["statement_corrected"]:
            typer.echo(f"{'':<26} corrected: {row['statement_corrected']}")
        if row["status"] != "proven":
            typer.echo(f"{'':<26} why: {row['detail']}")


@app.command()
@_saying_what_is_left_out
def implies(
    premise: str = typer.Argument(..., metavar="PREMISE", help="Definition id of A."),
    conclusion: str = typer.Argument(..., metavar="CONCLUSION", help="Definition id of B."),
    param: list[str] = typer.Option([], "--param", metavar="NAME=VALUE", help="NAME=VALUE: N, k, k_premise, k_conclusion, k_t, k_DP, assumptions."),
    level: str | None = typer.Option(None, "--level", metavar="LEVEL", help="A's level (t or ε); prints B's guaranteed level."),
    bound: str | None = typer.Option(None, "--bound", metavar="LEVEL", help="B's level to exceed: when A does not imply B, also a witness table (as `theory witness`)."),
    as_json: bool = typer.Option(False, "--json", metavar="FILE|-", help="Print JSON."),
) -> None:
    """Does A imply B? The best path, its composed f, and B's level for a given level of A."""
    from privcert.api import QueryError
    from privcert.api import implies as ask

    try:
        answer = ask(premise, conclusion, _params(param), _level(level), bound=_level(bound, "--bound"))
    except QueryError as error:
        _fail(str(error))
    if as_json:
        typer.echo(json.dumps(answer.to_json(), indent=2, ensure_ascii=False))
        return
    for line in answer.lines():
        typer.echo(line)


@app.command()
def refute(
    claim_id: str = typer.Argument(..., metavar="CLAIM_ID", help="A registered claim id."),
    max_n: int = typer.Option(4, "--max-n", metavar="N", min=1, max=MAX_N, help=f"Largest number of records searched (at most {MAX_N})."),
    timeout: float = typer.Option(10.0, "--timeout", metavar="SECONDS", help="Seconds per Z3 call."),
) -> None:
    """Search (Z3) for a counterexample to a claim's printed and corrected forms."""
    _check_timeout(timeout)
    from theory.claims.catalog import UnknownClaimError, claim
    from theory.search.refute import refute_claim
    from theory.status_cache import counterexample_json

    try:
        item = claim(claim_id)
    except UnknownClaimError as error:
        _fail(str(error))
    from theory.checks import check

    outcome = refute_claim(item, max_n=max_n, timeout_s=timeout, fallback=lambda: check(claim_id))
    typer.echo(json.dumps({
        "id": item.id,
        "status": outcome.status,
        "counterexample": counterexample_json(outcome.counterexample),
        "checked_by": list(outcome.checked_by),
        "detail": outcome.detail,
    }, indent=2, ensure_ascii=False))


@app.command()
def witness(
    premise: str = typer.Argument(..., metavar="PREMISE", help="Definition id of A."),
    conclusion: str = typer.Argument(..., metavar="CONCLUSION", help="Definition id of B."),
    bound: str = typer.Option(..., "--bound", metavar="LEVEL", help="B's level to exceed (t, or ε)."),
    param: list[str] = typer.Option([], "--param", metavar="NAME=VALUE", help="NAME=VALUE: N, k, k_premise, k_conclusion, k_t, k_DP, classwise."),
) -> None:
    """A table satisfying A at a fixed level whose B level exceeds BOUND."""
    from privcert.api import QueryError
    from privcert.api import witness as find

    value = _level(bound, "--bound")
    try:
        found = find(premise, conclusion, value, _params(param))
    except QueryError as error:
        _fail(str(error))
    typer.echo(json.dumps(found.to_json(), indent=2, ensure_ascii=False))


@app.command()
@_saying_what_is_left_out
def explain(
    audit: Path = typer.Argument(..., metavar="AUDIT.json", help="The JSON of `privcert audit --json` or `privcert measure --json`."),
    as_json: bool = typer.Option(False, "--json", metavar="FILE|-", help="Print the list of implied guarantees as JSON."),
) -> None:
    """What the audit's measured levels imply about every other definition, with the derivation path."""
    from privcert.api import explain as run
    from verifier.errors import VerifierError

    try:
        found = run(audit)
    except VerifierError as error:
        _fail(str(error))
    if as_json:
        typer.echo(json.dumps(found.to_json(), indent=2, ensure_ascii=False))
        return
    typer.echo(found.text())


@app.command(name="map")
@_saying_what_is_left_out
def draw_map(
    out: Path = typer.Option(Path("map.svg"), "--out", metavar="FILE", help="SVG file to write."),
    as_json: bool = typer.Option(False, "--json", metavar="FILE|-", help="Print the map as JSON (its definitions, numbered arrows and bound claims) instead of drawing it."),
) -> None:
    """Draw the implication map (Ekenstedt et al. 2022, Figs. 1-2) with checked statuses."""
    from privcert.api import implication_map

    if as_json:
        typer.echo(json.dumps(implication_map().to_json(), indent=2, ensure_ascii=False))
        return
    if out.suffix.lower() not in MAP_FORMATS:
        _fail(f"--out {str(out)!r}: expected a file ending in {', '.join(MAP_FORMATS)}, found {out.suffix or 'no suffix'!r}")
    if not out.parent.is_dir():
        _fail(f"--out {str(out)!r}: the directory {str(out.parent)!r} does not exist")
    typer.echo(f"wrote {implication_map().draw(out)}")
