"""The ``[mechanism]`` table of a policy: the mechanism a randomized release was made with.

.. code-block:: toml

    [mechanism]
    file = "mechanism.csv"      # header value,<bucket>,...  (verifier.randomized.mechanism)
    attribute = "disease"       # the declared sensitive attribute it randomizes
    mode = "publisher"          # publisher: the data are the original records
                                # auditor:   the data are the release (no original data)
    k = [2, 5]                  # subset sizes for kt_closeness and k_eps_dp (optional)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from verifier._policy_reader import Reader, describe

__all__ = ["MechanismPolicy", "Mode", "MODES", "MECHANISM_KEYS", "parse_mechanism_section"]

Mode = Literal["publisher", "auditor"]
MODES: tuple[str, ...] = ("publisher", "auditor")
MECHANISM_KEYS = ("file", "attribute", "mode", "k")
"""The keys of the ``[mechanism]`` table."""


@dataclass(frozen=True)
class MechanismPolicy:
    """A parsed ``[mechanism]`` table."""

    file: Path
    attribute: str
    mode: Mode = "publisher"
    ks: tuple[int, ...] = ()


def parse_mechanism_section(read: Reader, value: Any, sensitive: Sequence[str]) -> MechanismPolicy | None:
    """Check the ``[mechanism]`` table (``None`` when the policy has none)."""
    if value is None:
        return None
    body = read.table(value, "mechanism")
    read.keys(body, "mechanism", allowed=MECHANISM_KEYS, required=("file", "attribute"))
    attribute = read.string(body["attribute"], "mechanism.attribute")
    if attribute not in sensitive:
        read.fail("mechanism.attribute", f"one of the declared sensitive attributes {list(sensitive)}", repr(attribute))
    mode = read.choice(body.get("mode", "publisher"), "mechanism.mode", MODES)
    raw = body.get("k", [])
    if not isinstance(raw, list):
        read.fail("mechanism.k", "a list of integers ≥ 1", describe(raw))
    ks = tuple(read.integer(item, f"mechanism.k[{i}]", minimum=1) for i, item in enumerate(raw, start=1))
    return MechanismPolicy(read.file(body["file"], "mechanism.file"), attribute, cast(Mode, mode), ks)
