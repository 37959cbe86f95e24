"""``privcert theory ...``: queries on the implication map (see ``theory``).

Thin: parses arguments, calls :mod:`theory`, prints, sets the exit code (2 for an unknown
definition or claim id, or a malformed ``--param``; the message lists the valid values).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, ParamSpec, TypedDict, TypeVar

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


def _definition(definition_id: str) -> str:
    from theory.definitions import UnknownDefinitionError, definition

    try:
        definition(definition_id)
    except UnknownDefinitionError as error:
        _fail(str(error))
    return definition_id


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


def _in_domain(definition_id: str, value: sympy.Expr | None, option: str) -> None:
    """Exit 2 when a level lies outside its definition's domain (t ≥ 1 for multiplicative t, ...)."""
    import sympy

    from theory.definitions import definition
    from verifier.display import formula

    if value is None:
        return
    item = definition(definition_id)
    if value != sympy.oo and not bool(item.domain.contains(value)):
        _fail(f"{option}: the {formula(item.level)} of {definition_id} lies in {formula(item.domain)}, found {value}")


def _text(expr: object) -> str | None:
    import sympy

    return None if expr is None else sympy.sstr(expr)


_StepRow = TypedDict(
    "_StepRow",
    {
        "claim": str,
        "source": str,
        "from": str,
        "to": str,
        "from_size": str | None,
        "to_size": str | None,
        "f": str,
        "value": str | None,
    },
)
"""One step of an ``implies`` path as printed (``from`` is a keyword: functional syntax)."""


def _sized(definition_id: str, size: str | None) -> str:
    return definition_id if size is None else f"{definition_id}(k={size})"


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
    as_json: bool = typer.Option(False, "--json", metavar="FILE|-", help="Print JSON."),
) -> None:
    """Does A imply B? The best path, its composed f, and B's level for a given level of A."""
    import sympy

    from theory.answers.graph import build_graph
    from theory.definitions import definition
    from theory.status_cache import cached_statuses
    from verifier.display import formula

    _definition(premise)
    _definition(conclusion)
    _in_domain(premise, _level(level), "--level")
    try:
        answer = build_graph(cached_statuses()).implies(premise, conclusion, _params(param), _level(level))
    except ValueError as error:
        _fail(str(error))
    if answer.value is not None and answer.value.free_symbols:
        missing = ", ".join(sorted(str(symbol) for symbol in answer.value.free_symbols))
        _fail(f"--level: the guaranteed level of {conclusion} depends on {missing}; pass each with --param NAME=VALUE")
    conditions = [sympy.sstr(c) for c in answer.conditions]
    path: list[_StepRow] = [
        {
            "claim": s.claim_id,
            "source": str(s.source),
            "from": s.premise,
            "to": s.conclusion,
            "from_size": _text(s.premise_size),
            "to_size": _text(s.conclusion_size),
            "f": sympy.sstr(s.f),
            "value": _text(s.value),
        }
        for s in answer.path
    ]
    payload = {
        "premise": answer.premise,
        "conclusion": answer.conclusion,
        "holds": answer.holds,
        "f": _text(answer.f),
        "level": _text(_level(level)),
        "value": _text(answer.value),
        "value_number": None if answer.value is None else float(answer.value.evalf(17)),
        "conditions": conditions,
        "path": path,
        "evidence": list(answer.evidence),
        "detail": answer.detail,
        "witness": None if answer.witness is None else answer.witness.to_json(),
    }
    if as_json:
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    typer.echo(f"{premise} ⇒ {conclusion}: {_headline(answer)}")
    if answer.f is not None:
        target = definition(conclusion)
        relation = "≥" if target.direction == "larger_is_stronger" else "≤"
        typer.echo(f"bound: {formula(target.level)} {relation} {formula(answer.f)}")
    if answer.value is not None:
        from theory.answers.explain import level_text

        typer.echo(f"guaranteed: {level_text(conclusion, answer.value)} "
                   f"for {premise} at {level_text(premise, _level(level))}")
    for step in answer.path:
        typer.echo(f"  {_sized(step.premise, _text(step.premise_size))} → {_sized(step.conclusion, _text(step.conclusion_size))}: "
                   f"{formula(step.f)}  [{step.claim_id}: {step.source}]")
    if answer.holds != "yes":
        typer.echo(answer.detail)


def _headline(answer: Any) -> str:
    """``yes``, ``no``, ``only if N = 2``, or ``unknown: ...``: the answer before its details."""
    import sympy

    from verifier.display import condition

    together = condition(sympy.And(*answer.conditions)) if answer.conditions else "always"
    if answer.holds == "yes":
        return "yes" if together == "always" else f"only if {together}"
    if answer.holds == "no":
        return "no"
    return "unknown: no claim connects them" if not answer.path and not answer.evidence else "unknown"


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
    import sympy

    from theory.answers.explain import level_text
    from theory.tables.witnesses import NoWitnessError, WitnessSizeError
    from theory.tables.witnesses import witness as find
    from verifier.display import exact_text

    _definition(premise)
    _definition(conclusion)
    value = _level(bound, "--bound")
    params = _params(param)
    try:
        found = find(premise, conclusion, value, params=params)
    except WitnessSizeError as error:
        _fail(f"--param {error}")
    except NoWitnessError as error:
        _fail(str(error))
    except (OverflowError, sympy.PrecisionExhausted) as error:
        _fail(f"--bound {bound}: too large to build a witness table exactly ({type(error).__name__})")
    premise_level = _own_units(premise, found.premise_level)
    conclusion_level = _own_units(conclusion, found.conclusion_level)
    typer.echo(json.dumps({
        "premise": premise,
        "conclusion": conclusion,
        "bound": exact_text(value),
        "premise_level": exact_text(premise_level),
        "conclusion_level": exact_text(conclusion_level),
        "exceeds": found.exceeds,
        "family": found.family,
        "table": found.table.to_json(),
        "detail": found.detail,
        "summary": f"{premise} at {level_text(premise, premise_level)}; "
                   f"{conclusion} at {level_text(conclusion, conclusion_level)}, beyond {level_text(conclusion, value)}",
    }, indent=2, ensure_ascii=False))


def _own_units(definition_id: str, ratio_level: object) -> sympy.Expr:
    """A theory level (ratio space: t, or e^ε) in the definition's own units (t, or ε = ln of the ratio)."""
    import sympy

    from theory.tables.levels import is_ratio_definition

    value = sympy.sympify(ratio_level)
    if is_ratio_definition(definition_id):
        return sympy.oo if value == sympy.oo else sympy.log(value)
    return value


@app.command()
@_saying_what_is_left_out
def explain(
    audit: Path = typer.Argument(..., metavar="AUDIT.json", help="The JSON of `privcert audit --json` or `privcert measure --json`."),
    as_json: bool = typer.Option(False, "--json", metavar="FILE|-", help="Print the list of implied guarantees as JSON."),
) -> None:
    """What the audit's measured levels imply about every other definition, with the derivation path."""
    from theory.answers.explain import explain_file
    from verifier.errors import VerifierError

    try:
        found = explain_file(audit)
    except VerifierError as error:
        _fail(str(error))
    if as_json:
        typer.echo(json.dumps(found.to_json(), indent=2, ensure_ascii=False))
        return
    typer.echo(found.text())


@app.command(name="map")
@_saying_what_is_left_out
def draw_map(out: Path = typer.Option(Path("map.svg"), "--out", metavar="FILE", help="SVG file to write.")) -> None:
    """Draw the implication map (Ekenstedt et al. 2022, Figs. 1-2) with checked statuses."""
    from theory.answers.graph import build_graph
    from theory.answers.map import render_map
    from theory.claims.catalog import all_claims
    from theory.status_cache import cached_statuses

    if out.suffix.lower() not in MAP_FORMATS:
        _fail(f"--out {str(out)!r}: expected a file ending in {', '.join(MAP_FORMATS)}, found {out.suffix or 'no suffix'!r}")
    if not out.parent.is_dir():
        _fail(f"--out {str(out)!r}: the directory {str(out.parent)!r} does not exist")
    outcomes = cached_statuses()
    bounds: dict[str, tuple[str, ...]] = {}
    for item in all_claims():
        if item.kind == "bound" and item.conclusion is not None:
            bounds[item.conclusion] = (*bounds.get(item.conclusion, ()), f"{item.id}: {outcomes[item.id].status}")
    typer.echo(f"wrote {render_map(build_graph(outcomes), out, bounds)}")
