"""``privcert anonymize rr``: a seeded randomized-response release and its mechanism file.

Thin: parses the options, builds the mechanism with :mod:`mechanisms.randomized_response`
(or reads it, ``--mechanism``, e.g. the one ``privcert plan`` chose),
samples the release with a seeded generator and writes the release (CSV) and the
mechanism (CSV, ``value,<bucket>,...``, exact) that ``privcert measure --mechanism`` reads, marked with
what its matrix was computed from (:mod:`verifier.randomized.data_mark`: Fig. 5 publishes the original's
histogram; a given file keeps its own mark).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from verifier.errors import DataError, MechanismError, PolicyError

if TYPE_CHECKING:
    import pandas as pd

    from verifier.randomized.mechanism import AnyMechanism

__all__ = ["rr_command", "write_release", "OriginalData", "ReleaseOut", "ReleaseSeed"]

OriginalData = Annotated[Path, typer.Argument(metavar="DATA", help="The original data (.csv, .csv.gz, .parquet).")]
ReleaseOut = Annotated[Path, typer.Option("--out", metavar="FILE", help="The release to write (.csv, .csv.gz, .parquet or .pq).")]
ReleaseSeed = Annotated[int, typer.Option("--seed", metavar="N", min=0, help="Seed of the random generator (an integer ≥ 0).")]


def _keep(text: str) -> Fraction:
    from verifier.literal import Domain, LiteralError, parse_exact

    try:
        value = parse_exact(text, "--keep", Domain(lower=Fraction(0), upper=Fraction(1)))
    except LiteralError as error:
        raise PolicyError(str(error)) from None
    if not value.is_Rational:
        raise PolicyError(f"--keep: expected a rational probability (decimal or p/q), found {text!r}")
    return Fraction(int(value.p), int(value.q))


def rr_command(
    data: OriginalData,
    sensitive: Annotated[str, typer.Option("--sensitive", metavar="NAMES", help="The column to randomize.")],
    out: ReleaseOut,
    keep: Annotated[str | None, typer.Option(
        "--keep", metavar="P", help="Probability of keeping the true value (e.g. 0.6 or 3/5).")] = None,
    mode: Annotated[str | None, typer.Option(
        "--mode", metavar="MODE", help="uniform (Fig. 4, the default) or empirical (Fig. 5) replacement.")] = None,
    mechanism: Annotated[Path | None, typer.Option(
        "--mechanism", metavar="FILE", help="Sample with this mechanism CSV (e.g. from privcert plan) instead of --keep.")] = None,
    mechanism_out: Annotated[Path | None, typer.Option(
        "--mechanism-out", metavar="FILE", help="Where to write the mechanism CSV (default: RELEASE with .mechanism.csv).")] = None,
    seed: ReleaseSeed = 0,
) -> None:
    """Randomized response: keep each value with probability --keep, else draw a replacement.

    uniform: the replacement is uniform over the column's values (Ekenstedt et al. 2022, Fig. 4);
    empirical: it is drawn from the column's empirical distribution (Fig. 5). --mechanism FILE
    samples with a given mechanism CSV instead (its rows must cover the column's values).
    """
    import pandas as pd

    from mechanisms.randomized_response import (
        empirical_frequencies,
        ldp_randomized_response,
        tclo_randomized_response,
    )
    from verifier.randomized.data_mark import DataMark
    from verifier.randomized.mechanism import Mechanism, load_mechanism, mechanism_csv

    def build(column: pd.Series) -> tuple[Mechanism, str, pd.Series]:
        if mechanism is not None:
            if keep is not None or mode is not None:
                raise PolicyError("--mechanism: the mechanism file fixes the matrix; give it without --keep and --mode")
            given = load_mechanism(mechanism)
            return given, mechanism_csv(given), column
        if keep is None:
            raise PolicyError("expected --keep P (the probability of keeping the true value) or --mechanism FILE")
        if mode not in (None, "uniform", "empirical"):
            raise PolicyError(f"--mode: expected uniform or empirical, found {mode!r}")
        probability = _keep(keep)
        _, uniques = pd.factorize(column, sort=True)
        values = tuple(uniques.tolist())
        try:
            made = (
                ldp_randomized_response(values, keep=probability) if mode in (None, "uniform")
                else tclo_randomized_response(values, empirical_frequencies(column, values), probability)
            )
        except MechanismError as error:
            raise PolicyError(f"--sensitive {sensitive}: {error}") from error
        marked = replace(made, data=DataMark("independent" if mode in (None, "uniform") else "histogram"))
        return marked, mechanism_csv(marked), column

    write_release(data, sensitive, out, mechanism_out, seed, build, ".mechanism.csv", {"--mechanism": mechanism})


def write_release(
    data: Path, sensitive: str, out: Path, mechanism_out: Path | None, seed: int,
    build: Callable[[pd.Series], tuple[AnyMechanism, str, pd.Series]], suffix: str,
    inputs: Mapping[str, Path | None] | None = None,
) -> None:
    """Read DATA, build the mechanism from the column, sample a seeded release, write both files.

    ``build(column)`` returns the mechanism, the text of its published file (default name:
    the release's, its table suffix replaced by ``suffix``) and the column as the
    mechanism's row labels (what is sampled). Neither output may overwrite DATA or the
    other, nor ``inputs`` (:func:`privcert.files.check_outputs`); the release is written in the format its
    name says.
    """
    import numpy as np

    from privcert.files import check_outputs, write_output, write_table
    from privcert.reporting import reporting_errors
    from verifier.tables.load import load_table

    with reporting_errors():
        stem = out.name
        for table_suffix in (".csv.gz", ".csv", ".parquet", ".pq"):
            stem = stem.removesuffix(table_suffix) if stem.lower().endswith(table_suffix) else stem
        target = mechanism_out if mechanism_out is not None else out.with_name(stem + suffix)
        check_outputs({"--out": (out, "table"), "--mechanism-out": (target, suffix.rsplit(".", 1)[-1])},
                      {"original data": data, **(inputs or {})})
        frame = load_table(data)
        if sensitive not in frame.columns:
            raise DataError(f"{data}: column {sensitive!r} not found; the table has columns {list(map(str, frame.columns))}")
        column = frame[sensitive]
        if column.isna().any():
            raise DataError(f"{data}: column {sensitive!r} has missing values; a randomized release needs a value per record")
        mechanism, published, labels = build(column)
        release = frame.copy()
        release[sensitive] = mechanism.sample(labels, np.random.default_rng(seed), source=str(data))
        write_table(release, out, option="--out")
        write_output(target, published, option="--mechanism-out")
    typer.echo(f"wrote {out} ({len(release)} records, seed {seed})\nwrote {target} (its mechanism: {mechanism.name})")
