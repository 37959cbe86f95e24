"""What the theory's answers share: one implication graph per process used one call at a time, the errors of a
question, the claims an answer cites with their sources, and the wording of levels and conditions.

:mod:`privcert.api_theory` and :mod:`privcert.api_map` build their results from these; :mod:`privcert.api`
re-exports :class:`QueryError`, :class:`ClaimSource` and :func:`theory_graph`.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from verifier.errors import VerifierError

if TYPE_CHECKING:
    import sympy

    from theory.answers.graph import Graph
    from verifier.references import Source

__all__ = ["LOCK", "QueryError", "ClaimSource", "serialized", "shared_graph", "theory_graph", "sstr", "name_of",
           "checked_definition", "bound_text", "when_text", "at_level", "sized_text"]

LOCK = threading.RLock()
"""The theory's work runs one call at a time: checking statuses and reading sources, its first work, is not
safe in two threads at once."""
_P = ParamSpec("_P")
_R = TypeVar("_R")


class QueryError(VerifierError, ValueError):
    """A theory question that cannot be answered as asked: an unknown definition, a level outside its definition's
    domain, parameters no table has, a guaranteed level that depends on a parameter not given, no witness table.
    The message names the field (``level``, ``bound``, ``parameter N``), what was expected and what was found."""


def serialized(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """``function`` run with the theory to itself (see :data:`LOCK`)."""

    @functools.wraps(function)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with LOCK:
            return function(*args, **kwargs)

    return run


@functools.cache
def shared_graph() -> Graph:
    from theory.answers.graph import build_graph
    from theory.status_cache import cached_statuses

    return build_graph(cached_statuses())


@serialized
def theory_graph() -> Graph:
    """The implication graph (built once per process from the cached checked statuses)."""
    return shared_graph()


def sstr(value: object) -> str | None:
    import sympy

    return None if value is None else sympy.sstr(value)


def name_of(definition_id: str) -> str:
    from theory.definitions import definition

    return definition(definition_id).name


def checked_definition(definition_id: str) -> None:
    from theory.definitions import UnknownDefinitionError, definition

    try:
        definition(definition_id)
    except UnknownDefinitionError as error:
        raise QueryError(str(error)) from None


@dataclass(frozen=True)
class ClaimSource:
    """A claim an answer rests on: its id and where it is printed (paper by authors and year, section, item)."""

    claim: str
    source: Source

    @property
    def reference(self) -> str | None:
        """The paper's full reference (authors, title, venue, year), as docs/references.md gives it."""
        return self.source.reference

    @property
    def reference_key(self) -> str | None:
        """The paper's key in claim ids (``ekenstedt2022``)."""
        from verifier.references import reference

        found = reference(self.source.paper)
        return None if found is None else found.key

    def to_json(self) -> dict[str, Any]:
        return {"claim": self.claim, "source": str(self.source), "paper": self.source.paper,
                "reference": self.reference, "reference_key": self.reference_key}


def relation_of(conclusion: str) -> str:
    from theory.definitions import definition

    return "≥" if definition(conclusion).direction == "larger_is_stronger" else "≤"


def bound_text(conclusion: str, f: sympy.Expr) -> str:
    """``ε ≤ ln(t)``: the conclusion's level against a level map."""
    from theory.definitions import definition
    from verifier.display import formula

    return f"{formula(definition(conclusion).level)} {relation_of(conclusion)} {formula(f)}"


def when_text(conditions: tuple[sympy.Basic, ...]) -> str:
    """Conditions in words: the relations solved where they can be (``N = 2``), then the assumptions a reading
    needs (``Assumption(singleton_classes)``: ``singleton classes``); ``always`` when there are none."""
    import sympy

    from verifier.display import condition

    assumed = [str(c.args[0]).replace("_", " ") for c in conditions if isinstance(c, sympy.core.function.AppliedUndef)]
    relations = [c for c in conditions if not isinstance(c, sympy.core.function.AppliedUndef)]
    said = condition(sympy.And(*relations)) if relations else "always"
    parts = ([] if said == "always" else [said]) + assumed
    return " and ".join(parts) if parts else "always"


def at_level(definition_id: str) -> str:
    """``k-anonymity at k``: a definition by its name at its level symbol."""
    from theory.definitions import definition
    from verifier.display import formula

    item = definition(definition_id)
    return f"{item.name} at {formula(item.level)}"


def sized_text(definition_id: str, size: str | None) -> str:
    return definition_id if size is None else f"{definition_id}(k={size})"


