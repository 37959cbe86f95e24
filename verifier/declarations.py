"""Every input that moves a level, classified once: asked by the policy, read from the release, or declared.

A level is a function of the release and of inputs beside it. Some of them a reader can check against the
release (the columns the policy names are read from it, their values counted again); some are the question
itself (the model, its threshold, which ``l`` or ``k``); the rest only the publisher knows (a domain, an order, a
hierarchy or buckets, a mechanism, a population table, weights, a sampling fraction, the encoding the release
was read in). Padding a numerical domain with values the release does not have lowers its ordered t-closeness
and re-measures identically, so a reader must see every such input as a declaration.

:data:`INPUTS` is the one place that says which is which, for every key of the policy's schema
(:func:`verifier.policy.schema_keys`), every model parameter, the reading of the release and the utility
section's inputs. A key is classified by its longest classified prefix (``sensitive.*.buckets`` covers
``sensitive.*.buckets.edges``); a key no entry covers is **declared** (:func:`classify`), so a new parameter is
shown as the publisher's until someone shows it checkable. ``verify``, the views and the JSON derive the
declared list from this classification (:mod:`reports.declared`).

References
----------
SLSA Provenance v1: ``externalParameters`` (what the builder was told) kept apart from what it resolved.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Source", "Input", "INPUTS", "classify", "pattern", "present"]

Source = Literal["asked", "release", "declared"]
"""``asked``: part of what the policy requires (shown as the requirement); ``release``: read from the release,
so re-checked with it; ``declared``: the publisher's alone, shown as a declaration in every view."""


@dataclass(frozen=True)
class Input:
    """One classified input: its key pattern (``*`` for a table's own name), where it comes from, in words."""

    key: str
    source: Source
    what: str


INPUTS: tuple[Input, ...] = (
    # the policy's tables
    Input("data.qi", "release", "the quasi-identifier columns, read from the release"),
    Input("data.path", "asked", "the release's file name (the certificate's subject is the file)"),
    Input("sensitive.*", "release", "a sensitive column, read from the release"),
    Input("sensitive.*.kind", "asked", "how the column is measured (categorical, numerical, ordinal)"),
    Input("sensitive.*.missing", "release", "which cells are missing, re-counted from the release"),
    Input("sensitive.*.order", "declared", "order"),
    Input("sensitive.*.domain", "declared", "domain"),
    Input("sensitive.*.hierarchy", "declared", "hierarchy"),
    Input("sensitive.*.buckets", "declared", "buckets"),
    Input("joint.attributes", "asked", "which sensitive columns are measured together"),
    Input("measure.l", "asked", "the l measured"),
    Input("measure.risk_threshold", "asked", "the risk above which a record counts as at risk"),
    Input("require.model", "asked", "the model required"),
    Input("require.threshold", "asked", "the threshold"),
    Input("require.attribute", "asked", "the attribute required"),
    Input("require.l", "asked", "the l of (c,l)-diversity"),
    Input("require.k", "asked", "the subset size"),
    Input("require.distance", "asked", "the ground distance"),
    Input("require.estimator", "asked", "the estimator"),
    Input("require.max_size", "asked", "the largest minimal sample unique searched"),
    Input("require.sampling_fraction", "declared", "sampling fraction"),
    # The re-identification game's figures (Wan et al. 2015): the publisher's and the adversary's own estimates.
    Input("require.adversary_gain", "declared", "adversary's gain per record"),
    Input("require.adversary_cost", "declared", "adversary's cost per attack"),
    Input("require.publisher_benefit", "declared", "publisher's benefit per record"),
    Input("require.publisher_loss", "declared", "publisher's loss per re-identified record"),
    Input("mechanism.file", "declared", "mechanism"),
    Input("mechanism.attribute", "asked", "the attribute the mechanism randomizes"),
    Input("mechanism.mode", "asked", "which data were audited (the original, or the release)"),
    Input("mechanism.k", "asked", "the subset sizes measured"),
    Input("risk.sampling_fraction", "declared", "sampling fraction"),
    Input("risk.population", "declared", "population"),
    Input("risk.population_table", "declared", "population table"),
    Input("risk.weights", "declared", "weights column"),
    # the reading of the release
    Input("reading.format", "release", "CSV or Parquet, by the file's name"),
    Input("reading.separator", "release", "the comma of RFC 4180 (no other is read)"),
    Input("reading.encoding", "declared", "the release's encoding"),
    # the utility section (audit --original)
    Input("utility.original", "asked", "the original's name"),
    Input("utility.key", "asked", "the key column pairing records"),
    Input("utility.mark", "declared", "suppression mark"),
    Input("utility.hierarchies", "declared", "utility hierarchy"),
)
"""The classification (see the module docstring)."""

_BY_KEY = {item.key: item for item in INPUTS}


def classify(key: str) -> Input:
    """The classification of a key pattern: its own entry, else its longest classified prefix's, else declared.

    >>> classify("sensitive.*.buckets.edges").source, classify("require.sampling_fraction").source
    ('declared', 'declared')
    >>> classify("require.some_new_parameter")
    Input(key='require.some_new_parameter', source='declared', what='some_new_parameter')
    """
    parts = key.split(".")
    for end in range(len(parts), 0, -1):
        found = _BY_KEY.get(".".join(parts[:end]))
        if found is not None and (end == len(parts) or found.source == "declared"):
            return found
    return Input(key, "declared", parts[-1])


def pattern(path: tuple[str, ...]) -> str:
    """The key pattern of a concrete key path of a policy document: ``("sensitive", "salary", "domain")`` is
    ``sensitive.*.domain``, ``("require", "3", "k")`` is ``require.k``."""
    if path and path[0] == "sensitive" and len(path) > 1:
        return ".".join(("sensitive", "*", *path[2:]))
    if path and path[0] == "require" and len(path) > 1:
        return ".".join(("require", *path[2:]))
    return ".".join(path)


def present(document: Mapping[str, Any]) -> Iterator[tuple[tuple[str, ...], Input]]:
    """Every key a parsed policy document sets, with its classification (``require`` tables numbered from 1).

    Tables are walked down to their values; a declared table (``buckets``) is one input."""

    def walk(value: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Input]]:
        if isinstance(value, Mapping) and not (path and pattern(path) in _BY_KEY
                                               and classify(pattern(path)).source == "declared"):
            for key, item in value.items():
                yield from walk(item, (*path, str(key)))
        elif isinstance(value, list) and path == ("require",):
            for number, item in enumerate(value, start=1):
                for key, inner in (item.items() if isinstance(item, Mapping) else ()):
                    yield from walk(inner, (*path, str(number), str(key)))
        elif path:
            yield path, classify(pattern(path))

    yield from walk(document, ())
