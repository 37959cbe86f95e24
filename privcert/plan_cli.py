"""``privcert plan``: the randomized-response mechanism that meets a t and an ε target with the most utility.

Thin: parses the options, calls :func:`privcert.api.plan` (the optimum over every matrix beside the
three mechanisms of Ekenstedt et al. 2022, Sec. V.C-D), prints them with who can certify each and what
each matrix discloses, and writes the chosen matrix as the mechanism CSV that ``privcert anonymize rr
--mechanism`` and a policy's ``[mechanism]`` read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from privcert.options import EncodingOption, JsonOption

__all__ = ["plan_command"]


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
    audience: Annotated[str, typer.Option(
        "--for", metavar="WHO",
        help="Who certifies the release: auditor (default; from the published mechanism alone) or publisher "
             "(a publisher-mode audit, with the original).")] = "auditor",
    data_dependent: Annotated[bool, typer.Option(
        "--data-dependent", help="Write the audience's optimum computed from the original's counts (more useful; "
        "its matrix may disclose them). Default: the data-independent optimum.")] = False,
    estimate_eps: Annotated[str | None, typer.Option(
        "--estimate-eps", metavar="E", help="Write the auditor's optimum computed from an E-differentially private "
        "estimate of the original's counts (e.g. ln(4) or 0.5): the release with its mechanism is then "
        "(eps_M + E)-DP for each record. Default: the data-independent optimum.")] = None,
    mechanism_out: Annotated[Path | None, typer.Option(
        "--mechanism-out", metavar="FILE", help="Write the chosen mechanism as a mechanism CSV.")] = None,
    figures: Annotated[Path | None, typer.Option(
        "--figures", metavar="DIR", help="Draw Figs. 6-7 (utility curves) into DIR: for the plan's N, k, t0, or "
        "without ORIGINAL the paper's setting (N = 100, k = 5, t0 = 2).")] = None,
    json_out: JsonOption = None,
    encoding: EncodingOption = "utf-8",
) -> None:
    """Choose the mechanism with the best utility for a t and an ε target, over every matrix.

    Solves for the optimum (a linear program, made exact and re-measured) and compares it with Ekenstedt
    et al. 2022, Sec. V.C's three mechanisms (ε-LDP randomized response alone, t-closeness randomized
    response then ε-LDP, t-closeness alone) on the attribute's counts, exactly; says which requirement an
    auditor-mode audit certifies and which needs publisher mode, and what each matrix discloses.
    --estimate-eps E computes the written matrix from an E-differentially private estimate of the counts
    instead, and states the release's composed ε.
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
        if audience not in ("auditor", "publisher"):
            raise PolicyError(f"--for: expected auditor or publisher, found {audience!r}")
        result = plan(original, sensitive, t0=t0, eps0=eps0, k=k, policy=policy, encoding=encoding,
                      audience="publisher" if audience == "publisher" else "auditor", data_dependent=data_dependent,
                      estimate_eps=estimate_eps)
        if mechanism_out is not None:
            write_output(mechanism_out, mechanism_csv(result.mechanism()), option="--mechanism-out")
        if not write_json({"schema_version": SCHEMA_VERSION, **result.to_json()}, json_out):
            console = make_console()
            console.file.write("\n".join(result.lines()) + "\n")
            print_rows(console, "mechanisms (Ekenstedt et al. 2022, Sec. V.C, and the optima over every matrix; "
                       "utility: eq. (4))", result.header, [row.cells() for row in result.rows], fold="utility")
            written = result.written
            console.file.write("".join(f"{item.line()}\n" for item in result.requirements()))
            console.file.write(f"matrix: {result.disclosure}\n")
            console.file.write(f"chosen: {written.name}"
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
