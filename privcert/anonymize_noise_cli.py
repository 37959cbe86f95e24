"""``privcert anonymize noise``: a seeded release with additive Laplace or Gaussian noise, bucketed.

Thin: parses the options, builds the mechanism with :mod:`verifier.randomized.noise` over the
column's values, samples the release (each value replaced by the bucket its noisy value
falls in) and writes the release and the published mechanism (TOML: noise, scale,
boundaries, values) that ``privcert measure --mechanism`` reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from privcert.anonymize_rr_cli import OriginalData, ReleaseOut, ReleaseSeed, write_release
from verifier.errors import DataError, MechanismError, PolicyError

if TYPE_CHECKING:
    import pandas as pd

    from verifier.randomized.mechanism import IntervalMechanism

__all__ = ["noise_command"]


def noise_command(
    data: OriginalData,
    sensitive: Annotated[str, typer.Option("--sensitive", metavar="NAME", help="The numerical column to perturb.")],
    scale: Annotated[str, typer.Option("--scale", metavar="B", help="Laplace scale b, or Gaussian σ (e.g. 2 or 1/2).")],
    buckets: Annotated[str, typer.Option("--buckets", metavar="E1,E2,...", help="Increasing bucket boundaries, e.g. 30,50,70.")],
    out: ReleaseOut,
    noise: Annotated[str, typer.Option("--noise", metavar="KIND", help="laplace or gaussian.")] = "laplace",
    mechanism_out: Annotated[Path | None, typer.Option(
        "--mechanism-out", metavar="FILE", help="Where to write the mechanism TOML (default: RELEASE with .mechanism.toml).")] = None,
    seed: ReleaseSeed = 0,
) -> None:
    """Additive noise: each value v becomes the bucket of v + X, X ~ Laplace(0, b) or N(0, σ²).

    The bucket probabilities are transcendental: levels measured on this mechanism are
    reported as exact lower and upper bounds (privcert docs randomized).
    """
    from verifier.randomized.data_mark import DataMark
    from verifier.randomized.noise import NOISES, NoiseSpec, parse_rational

    def build(column: pd.Series) -> tuple[IntervalMechanism, str, pd.Series]:
        if noise not in NOISES:
            raise PolicyError(f"--noise: expected one of {', '.join(NOISES)}, found {noise!r}")
        edges = tuple(parse_rational(item.strip(), "--buckets") for item in buckets.split(","))
        texts = column.astype(str)
        try:
            exact = {text: parse_rational(text, f"{data}: column {sensitive!r}") for text in texts.unique()}
        except MechanismError as error:
            raise DataError(f"{error} (additive noise needs a numerical column)") from None
        spec = NoiseSpec(noise, parse_rational(scale, "--scale", positive=True), edges,  # type: ignore[arg-type]
                         tuple(sorted(set(exact.values()))), DataMark("independent"))
        return spec.mechanism(), spec.to_toml(), texts.map(exact)

    write_release(data, sensitive, out, mechanism_out, seed, build, ".mechanism.toml")
