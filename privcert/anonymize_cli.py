"""``privcert anonymize ...``: produce a release with a construction, then audit it.

Thin: parses arguments, calls :mod:`mechanisms`, writes the release, prints what the
verifier measured on it. Exit codes as for ``privcert audit``: 2 for bad input, 1 when
the release misses the requested level, 0 otherwise. Each construction is one command
of this sub-application.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from privcert.anonymize_noise_cli import noise_command
from privcert.anonymize_rr_cli import rr_command
from verifier.errors import PolicyError

if TYPE_CHECKING:
    import pandas as pd

    from verifier.literal import Domain
    from verifier.results import Measurement
    from verifier.utility import UtilityReport

app = typer.Typer(help="Produce a release that meets k and t with one of the papers' constructions.",
                  no_args_is_help=True)

Data = Annotated[Path, typer.Argument(help="The original table (CSV or Parquet).")]
Qi = Annotated[str, typer.Option("--qi", metavar="NAMES", help="Quasi-identifier columns, comma-separated.")]
Sensitive = Annotated[str, typer.Option("--sensitive", metavar="NAMES", help="The numerical confidential attribute.")]
K = Annotated[int, typer.Option("--k", metavar="K,...", help="Minimum class size.")]
Out = Annotated[Path, typer.Option("--out", metavar="FILE", help="Where to write the release (CSV or Parquet).")]
Keep = Annotated[str | None, typer.Option(
    "--keep", metavar="NAMES", help="Other columns to copy into the release unchanged, comma-separated (default: none; "
                                    "only the quasi-identifiers and the sensitive attribute are released).")]
Seed = Annotated[int, typer.Option("--seed", metavar="N", min=0, help="Seed of the tie-breaking shuffle (an integer ≥ 0).")]
Ordinal = Annotated[list[str], typer.Option(
    "--ordinal", metavar="NAME=ORDER", help="NAME=a,b,c: a categorical quasi-identifier and its order, lowest first (repeatable).")]


def _names(text: str, option: str) -> list[str]:
    names = text.split(",")  # names as written: 'zip ' is not the column 'zip'
    if not all(names):
        raise PolicyError(f"{option}: expected column names separated by ',', found {text!r}")
    return names


def _orders(items: list[str]) -> dict[str, list[str]]:
    orders = {}
    for item in items:
        name, equals, values = item.partition("=")
        if not equals or not name:
            raise PolicyError(f"--ordinal: expected NAME=a,b,c, found {item!r}")
        orders[name] = _names(values, f"--ordinal {name}")
    return orders


def _domain(**bounds: Any) -> Domain:
    from verifier.literal import Domain

    return Domain(**bounds)


def _number(text: str, option: str, domain: Domain) -> Fraction:
    from verifier.literal import LiteralError, parse_exact

    try:
        value = parse_exact(text, option, domain)
    except LiteralError as error:
        raise PolicyError(str(error)) from error
    if not value.is_Rational:
        raise PolicyError(f"{option}: expected a rational number such as 0.1 or 1/10, found {text!r}")
    return Fraction(int(value.p), int(value.q))


def _load(data: Path, out: Path) -> pd.DataFrame:
    """The original table, once ``--out`` is known not to overwrite it and to name a table format."""
    from privcert.files import check_outputs
    from verifier.tables.load import load_table

    check_outputs({"--out": (out, "table")}, {"original": data})
    return load_table(data)


def _cost(original: pd.DataFrame, release: pd.DataFrame, qi: list[str], data: Path, out: Path) -> UtilityReport:
    """The utility models of the release against the original (:mod:`verifier.utility`)."""
    from verifier.utility import measure_utility

    return measure_utility(original, release, qi, sources=(str(data), str(out)))


def _report(out: Path, k: Measurement, t: Measurement, sse: float, wanted_k: int, wanted_t: Fraction,
            extra: str, cost: UtilityReport) -> None:
    from privcert.reporting import make_console
    from privcert.utility_cli import print_utility

    met = k.level.satisfies(wanted_k, "at_least") and t.level.satisfies(wanted_t, "at_most")
    t_text = f"{t.level.exact} ≈ {t.level.number:.4g}" if "/" in t.level.exact else t.level.exact
    typer.echo(f"wrote {out}{extra}")
    typer.echo(f"achieved k = {k.level.exact} (required ≥ {wanted_k})")
    typer.echo(f"achieved {t.model} = {t_text} (required ≤ {wanted_t})")
    typer.echo(f"normalized SSE = {sse:.6g}")
    print_utility(make_console(), cost, notes=False)
    if not met:
        typer.echo("the release does NOT meet the requested levels", err=True)
        raise typer.Exit(1)


@app.command()
def microaggregate(
    data: Data,
    qi: Qi,
    sensitive: Sensitive,
    k: K,
    t: Annotated[str, typer.Option("--t", metavar="T", help="EMD threshold (ordered distance), e.g. 0.1 or 1/10.")],
    out: Out,
    algorithm: Annotated[str, typer.Option(
        "--algorithm", metavar="NAME", help="t-closeness-first (Algorithm 3), k-anonymity-first (Algorithm 2) or merge (Algorithm 1).",
    )] = "t-closeness-first",
    ordinal: Ordinal = [],  # noqa: B006 (typer reads the default)
    seed: Seed = 0,
    keep: Keep = None,
) -> None:
    """k-anonymous t-closeness by microaggregation (Soria-Comas et al. 2015)."""
    from mechanisms.microaggregation import microaggregate as run
    from privcert.files import write_table
    from privcert.reporting import reporting_errors

    with reporting_errors():
        threshold = _number(t, "--t", _domain(lower=Fraction(0)))
        original, columns = _load(data, out), _names(qi, "--qi")
        result = run(original, columns, sensitive, k=k, t=threshold,
                     algorithm=algorithm, orders=_orders(ordinal), seed=seed, source=str(data),  # type: ignore[arg-type]
                     keep=_names(keep, "--keep") if keep else ())
        write_table(result.release, out, option="--out")
        cost = _cost(original, result.release, columns, data, out)
    extra = (f" ({result.partition.clusters} clusters, cluster size {result.partition.cluster_size}, "
             f"{result.partition.merges} merges)")
    _report(out, result.achieved.k, result.achieved.t, result.achieved.sse, k, threshold, extra, cost)


@app.command()
def bucketize(
    data: Data,
    qi: Qi,
    sensitive: Sensitive,
    k: K,
    t: Annotated[int, typer.Option("--t", metavar="T", help="Multiplicative level, an integer ≥ 1 (t + 1 buckets).")],
    out: Out,
    ordinal: Ordinal = [],  # noqa: B006
    seed: Seed = 0,
    keep: Keep = None,
) -> None:
    """k-anonymous multiplicative t-closeness by bucketization (Domingo-Ferrer & Soria-Comas 2015, §6)."""
    from mechanisms.bucketization import bucketize as run
    from privcert.files import write_table
    from privcert.reporting import reporting_errors

    with reporting_errors():
        original, columns = _load(data, out), _names(qi, "--qi")
        result = run(original, columns, sensitive, k=k, t=t, orders=_orders(ordinal), seed=seed, source=str(data),
                     keep=_names(keep, "--keep") if keep else ())
        write_table(result.release, out, option="--out")
        cost = _cost(original, result.release, columns, data, out)
    extra = f" ({result.counts.shape[0]} classes over {len(result.buckets)} buckets)"
    _report(out, result.k, result.t, result.sse, k, Fraction(t), extra, cost)


app.command("rr")(rr_command)
app.command("noise")(noise_command)
