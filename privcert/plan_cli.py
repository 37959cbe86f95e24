"""``privcert plan``: the randomized-response mechanism that meets a t and an ε target with the most utility.

Thin: parses the options, calls :func:`privcert.api.plan` (Ekenstedt et al. 2022, Sec. V.C-D),
prints the three mechanisms and the chosen one, and writes the chosen matrix as the mechanism
CSV that ``privcert anonymize rr --mechanism`` and a policy's ``[mechanism]`` read.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from privcert.options import EncodingOption, JsonOption

if TYPE_CHECKING:
    from theory.mechanism_selection.release_plan import ReleasePlan

__all__ = ["plan_command", "plan_lines"]


def plan_lines(result: ReleasePlan) -> tuple[list[str], tuple[str, ...], list[tuple[str, ...]]]:
    """The text form: summary lines, then the header and rows of the mechanisms' table."""
    from verifier.display import exact_text, readable
    from verifier.escape import safe

    targets = result.targets
    values = ", ".join(f"{safe(str(value))} {count}" for value, count in zip(result.values, result.counts))
    lines = [
        f"plan for {safe(result.attribute)}: N = {result.records} records, values {values}",
        f"targets: t0 = {exact_text(targets.t0)} for every subset of >= {targets.k} records, "
        f"eps0 = {readable(targets.eps0)}",
        f"e^eps_t = (t0*N - k)/(N - k) = {readable(result.plan.exp_epsilon_t)}: the e^eps whose LDP implies t0 "
        "(Ekenstedt et al. 2022, Thm. 3 corrected)",
    ]
    if result.rounded:
        lines.append(f"e^eps0 is irrational: the mechanisms are built for e^eps <= {readable(result.exp_epsilon_bound)}")
    header = ("mechanism", "p_t", "p_LDP", "e^eps", "t bound", "meets", "utility")
    rows: list[tuple[str, ...]] = [
        (str(choice.name),
         "-" if choice.p_t is None else exact_text(choice.p_t),
         "-" if choice.p_ldp is None else exact_text(choice.p_ldp),
         readable(choice.exp_epsilon),
         readable(choice.t),
         "yes" if choice.meets else "no (" + ", ".join(
             what for what, ok in (("t", choice.meets_t), ("eps", choice.meets_epsilon)) if not ok) + ")",
         readable(choice.utility))
        for choice in result.plan.choices
    ]
    return lines, header, rows


def plan_command(
    original: Annotated[Path | None, typer.Argument(
        metavar="ORIGINAL", help="The original data (.csv, .csv.gz, .parquet).")] = None,
    sensitive: Annotated[str | None, typer.Option(
        "--sensitive", metavar="ATTR", help="The attribute to randomize (default with --policy: its [mechanism] attribute).")] = None,
    t0: Annotated[str | None, typer.Option(
        "--t", metavar="T0", help="Required multiplicative t-closeness (>= 1; e.g. 2 or 5/2).")] = None,
    eps0: Annotated[str | None, typer.Option(
        "--eps", metavar="E0", help="Required ε-LDP (e.g. ln(5), 0.7 or inf; default: none).")] = None,
    k: Annotated[int | None, typer.Option(
        "--k", metavar="K", min=1, help="t0 holds for every subset of at least K records (default 1).")] = None,
    policy: Annotated[Path | None, typer.Option(
        "--policy", metavar="FILE", help="Read the targets from this policy's ldp and kt_closeness requirements.")] = None,
    mechanism_out: Annotated[Path | None, typer.Option(
        "--mechanism-out", metavar="FILE", help="Write the chosen mechanism as a mechanism CSV.")] = None,
    figures: Annotated[Path | None, typer.Option(
        "--figures", metavar="DIR", help="Draw Figs. 6-7 (utility curves) into DIR: for the plan's N, k, t0, or "
        "without ORIGINAL the paper's setting (N = 100, k = 5, t0 = 2).")] = None,
    json_out: JsonOption = None,
    encoding: EncodingOption = "utf-8",
) -> None:
    """Choose the randomized-response mechanism with the best utility for a t and an ε target.

    Compares Ekenstedt et al. 2022, Sec. V.C's three mechanisms (ε-LDP randomized response alone,
    t-closeness randomized response then ε-LDP, t-closeness alone) on the attribute's counts, exactly.
    Exit 2 when only noise independent of the data meets the targets. --figures DIR draws
    Figs. 6-7 of the paper (the three mechanisms' utility against p_y(a_1) and against t0).
    """
    from privcert.api import plan
    from privcert.files import SCHEMA_VERSION, check_outputs, write_json, write_output
    from privcert.output import print_rows
    from privcert.reporting import make_console, reporting_errors
    from verifier.errors import PolicyError
    from verifier.randomized.mechanism import mechanism_csv

    with reporting_errors():
        check_outputs({"--json": (json_out, "json"), "--mechanism-out": (mechanism_out, "csv")},
                      {"original data": original, "policy": policy})
        if original is None:
            if figures is None:
                raise PolicyError("expected ORIGINAL (the data to plan a release of) or --figures DIR")
            if sensitive is not None or eps0 is not None or policy is not None or mechanism_out is not None \
                    or json_out is not None:
                raise PolicyError("without ORIGINAL only --figures DIR (with --t and --k) is drawn; give ORIGINAL to plan")
            _figures(figures, t0 or "2", 100, 5 if k is None else k)
            return
        result = plan(original, sensitive, t0=t0, eps0=eps0, k=k, policy=policy, encoding=encoding)
        if mechanism_out is not None:
            write_output(mechanism_out, mechanism_csv(result.mechanism()), option="--mechanism-out")
        if not write_json({"schema_version": SCHEMA_VERSION, **result.to_json()}, json_out):
            lines, header, rows = plan_lines(result)
            console = make_console()
            console.file.write("\n".join(lines) + "\n")
            print_rows(console, "mechanisms (Ekenstedt et al. 2022, Sec. V.C; utility: eq. (4))", header, rows,
                       fold="utility")
            console.file.write(f"chosen: {result.chosen.name}"
                               + (f" (written to {mechanism_out})" if mechanism_out is not None else "") + "\n")
        if figures is not None:
            _figures(figures, str(result.targets.t0), result.records, result.targets.k)


def _figures(directory: Path, t0: str, records: int, k: int) -> None:
    """Draw Figs. 6-7 (:func:`theory.mechanism_selection.figures.draw_figures`), saying so on stderr."""
    from fractions import Fraction

    from theory.mechanism_selection.figures import draw_figures
    from verifier.errors import PolicyError
    from verifier.literal import Domain, LiteralError, parse_exact

    try:
        value = parse_exact(t0, "--t", Domain(lower=Fraction(1)))
    except LiteralError as error:
        raise PolicyError(str(error)) from None
    if not value.is_Rational:
        raise PolicyError(f"--figures: expected a rational --t, found {t0!r}")
    if not 1 <= k < records:
        raise PolicyError(f"--figures: k must satisfy 1 <= k < N = {records}, found k = {k}")
    typer.echo(f"drawing Figs. 6-7 (t0 = {value}, N = {records}, k = {k}; 212 exact plans) ...", err=True)
    written = draw_figures(directory, Fraction(int(value.p), int(value.q)), records, k)
    typer.echo("wrote " + ", ".join(str(path) for path in written), err=True)
