"""privcert: measure, reason about and certify the privacy of released data tables.

The Python API (:mod:`privcert.api`) does what the command line does: :func:`measure`,
:func:`audit`, :func:`load_policy`, :func:`certify`, :func:`verify`. Its names are imported on first use, so that
``privcert --help`` loads nothing heavy.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_EXPORTS = ("measure", "audit", "load_policy", "certify", "verify")

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module("privcert.api"), name)
    raise AttributeError(f"module 'privcert' has no attribute {name!r}")
