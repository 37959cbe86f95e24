"""The workbench's words for the library's inputs: the form's fields, never the command line's options.

A message of the library that names an input (:class:`verifier.named_inputs.Input`: the release a
certificate is checked against, a target of the plan, the signing key, ...) is shown in a page
with the input said as the field a user fills in ("The release", "ε0"), and each session path in
it replaced by the name its user uploaded (:func:`shown`). Every message a page shows from the
library goes through :func:`shown`.
"""

from __future__ import annotations

from collections.abc import Mapping

from privcert.app.sessions import replace_names
from verifier.named_inputs import Input, say

__all__ = ["FIELDS", "field_of", "shown"]

FIELDS = {"data": "“The release”", "original": "“The original”", "t0": "“t0”", "eps0": "“ε0”",
          "signing_key": "“Your private key”", "qi": "“Quasi-identifiers”",
          "record_key": "a key column (the Compare page pairs the tables row by row)",
          "mechanism": "a mechanism file uploaded with the policy's files", "hierarchy": "a hierarchy",
          "encoding": "the encoding the certificate states", "target": "“Target to predict”",
          "estimate_eps": "the estimate's ε",
          "data_dependent": "“Let the mechanism be computed from the original's counts”"}
"""Each input a message may name, as the workbench's forms offer it (quoted: the field's label)."""


def field_of(named: Input) -> str:
    """The workbench's words for an input: its field (the library's words for one no form offers), and the value
    given, in parentheses."""
    words = FIELDS.get(named.name, named.name.replace("_", " "))
    return words if named.value is None else f"{words} ({named.value})"


def shown(text: object, names: Mapping[str, str]) -> str:
    """A message (or an error) of the library as a page shows it: each input it names as its field, each session
    path of ``names`` as the name its user knows."""
    return replace_names(say(text, field_of), names)
