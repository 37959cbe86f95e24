"""Average equivalence class size (LeFevre et al. 2006, Sec. 4, C_AVG without its division by k).

``raw`` is the number of records not suppressed over the number of the release's classes
(their classes: :attr:`verifier.utility.pair.Pair.release_classes`); a release that
suppresses every record is one class of ``N``. LeFevre et al.'s ``C_AVG`` is ``raw / k``
for the ``k`` the release was made for.

ARX (``QualityModelRowOrientedAECS``): ``min`` the original's average class size, ``max = N``. Exact.

>>> import pandas as pd
>>> from verifier.utility.pair import align
>>> pair = align(pd.DataFrame({"a": ["x", "y", "z", "w"]}), pd.DataFrame({"a": ["x", "x", "y", "*"]}), ["a"])
>>> aecs(pair)[0].raw     # 3 records in 2 classes
Fraction(3, 2)
"""

from __future__ import annotations

from fractions import Fraction

from verifier.utility.figure import Figure, arx_quality
from verifier.utility.pair import Pair

__all__ = ["aecs"]

SOURCE = "LeFevre et al. 2006"


def aecs(pair: Pair) -> tuple[Figure]:
    """The release's average class size."""
    n = pair.rows
    classes = pair.release_classes
    value = Fraction(n - sum(pair.suppressed), len(classes)) if classes else Fraction(n)
    least = Fraction(n, len(pair.original_classes))
    return (Figure("aecs", None, value, arx_quality(value, least, Fraction(n)), "records"),)
