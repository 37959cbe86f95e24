"""Claims about privacy definitions, as data: the statement printed in a paper, its source.

A :class:`Claim` records one statement of a paper (an implication, an equivalence, a
non-implication or a closed-form bound) exactly as printed, as a sympy object, with the
conditions under which it is stated and, where the printed form is wrong, the corrected
form. Whether a claim holds is *not* stored here: it is found by checking it
(:mod:`theory.checks`) and returned as a :class:`CheckResult`. The claims themselves
are in :mod:`theory.papers`, listed by :mod:`theory.claims.catalog`.

References
----------
Ekenstedt et al. 2022, Sec. III (Definitions 1-3: levels, implication, composition).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import sympy

from verifier.references import Source

__all__ = [
    "ClaimKind",
    "Status",
    "Source",
    "Claim",
    "CheckResult",
    "KINDS",
    "STATUSES",
    "USABLE",
    "NotImplies",
    "Assumption",
    "equation",
]

ClaimKind = Literal["implication", "equivalence", "non_implication", "bound"]
"""What a claim states.

``implication``: A at level a implies B at level f(a) (Ekenstedt et al. 2022, Def. 2). ``equivalence``: A and
B imply each other with inverse level maps. ``non_implication``: no level of A implies any
non-trivial level of B. ``bound``: a closed form for a level or a quantity (an optimal
level of a construction, a cluster size, the output probabilities of a mechanism).
"""

Status = Literal["proven", "tested", "refuted", "corrected", "unknown", "unchecked"]
"""The outcome of checking a claim (:mod:`theory.checks`).

``proven``: a symbolic derivation checked with sympy, an exhaustive enumeration, an exhibited
witness re-measured exactly, or Z3 ``unsat`` up to a stated N with a symbolic argument for
general N. ``tested``: an argument from the definitions (not checked by machine) confirmed on a
seeded sample of releases or tables, none beating it; the detail says how many and from which
space (``tested on 25 releases (...)``). ``refuted``: a concrete counterexample to the printed form. ``corrected``:
the printed form is refuted and a corrected form is encoded, checked and used for
queries. ``unknown``: neither (the reason is in the detail). ``unchecked``: the check
raised or could not decide (the error is in the detail); nothing is implied by the claim.
"""

KINDS: tuple[ClaimKind, ...] = ("implication", "equivalence", "non_implication", "bound")
STATUSES: tuple[Status, ...] = ("proven", "tested", "refuted", "corrected", "unknown", "unchecked")
USABLE: frozenset[Status] = frozenset({"proven", "tested", "corrected"})
"""The statuses whose claims the map follows (:mod:`theory.answers.graph`); the others are drawn, never used."""

NotImplies = sympy.Function("NotImplies")
"""``NotImplies(A, B)``: the printed form of a non-implication A ⇏ B (Ekenstedt et al. 2022, Def. 2)."""
Assumption = sympy.Function("Assumption")
"""``Assumption(name)``: a condition that is not a relation between parameters (a reading
of a definition, a restriction on the table); a query must assert it explicitly."""


def equation(lhs: sympy.Expr, rhs: sympy.Expr) -> sympy.Eq:
    """``Eq(lhs, rhs)`` as written, without sympy's attempt to decide it.

    The claims' equations relate symbols sympy cannot decide between, so the attempt only
    costs (most of the time spent building a claims module); a test holds every equation of
    the catalog to the one ``sympy.Eq`` builds.
    """
    return sympy.Eq(lhs, rhs, evaluate=False)


@dataclass(frozen=True)
class Claim:
    """One statement of a paper, as printed.

    Parameters
    ----------
    id
        Stable identifier (``"ekenstedt2022:thm3"``), unique in the catalog (:mod:`theory.claims.catalog`).
    source
        Where it is printed.
    kind
        See :data:`ClaimKind`.
    premise, conclusion
        Definition ids (:mod:`theory.definitions`) for implications, equivalences and
        non-implications; ``None`` for bounds that relate no two definitions.
    printed
        The statement as printed: for an implication ``Eq(conclusion_level, f(premise_level,
        parameters))``; for a non-implication ``sympy.false`` (no f exists); for a bound
        an ``Eq``/``Le`` relation.
    conditions
        The conditions under which it is stated (sympy relations, e.g. ``k > 1``).
    corrected
        The corrected statement (same shape as ``printed``) when the printed one is wrong.
    note
        What the paper says about it, and the difference when corrected.
    tight
        For a bound: ``True`` when some table attains it (the claim's check exhibits one),
        ``False`` when it is known not to be attained; ``None`` when not stated.
    sizes
        The (premise, conclusion) sizes the statement takes its definitions at, when it states them (a subset
        size ``k_0``, ``k_t``, ``1``, ``N - 1``; :func:`theory.claims.catalog.sizes`); ``None``: each side is at
        what its definition's declaration says its k is, the smallest class ``k`` for a definition taken over
        the classes (:attr:`verifier.registry.MapDefinition.is_class_sized`), none otherwise.
    """

    id: str
    source: Source
    kind: ClaimKind
    premise: str | None
    conclusion: str | None
    printed: sympy.Basic
    conditions: tuple[sympy.Basic, ...] = ()
    corrected: sympy.Basic | None = None
    note: str = ""
    tight: bool | None = None
    sizes: tuple[sympy.Expr | None, sympy.Expr | None] | None = None

    @property
    def effective(self) -> sympy.Basic:
        """The statement used for queries: the corrected form when there is one."""
        return self.printed if self.corrected is None else self.corrected

    @property
    def definitions(self) -> tuple[str, str]:
        """``(premise, conclusion)`` of a claim that relates two definitions.

        Raises
        ------
        ValueError
            For a claim that relates no two definitions (a bound: premise or conclusion is None).
        """
        if self.premise is None or self.conclusion is None:
            raise ValueError(
                f"claim {self.id!r}: expected a premise and a conclusion definition, "
                f"found premise {self.premise!r}, conclusion {self.conclusion!r}"
            )
        return self.premise, self.conclusion


@dataclass(frozen=True)
class CheckResult:
    """The outcome of checking one claim.

    Parameters
    ----------
    status
        See :data:`Status`.
    counterexample
        A table (``theory.tables.probability_table.ProbabilityTable``) or a JSON-able dict refuting the
        printed form; ``None`` when there is none.
    checked_by
        How the status was earned, e.g. ``("sympy: extremal family", "z3: unsat N<=4")``.
    detail
        One human-readable line: why the status.
    """

    status: Status
    counterexample: Any | None
    checked_by: tuple[str, ...]
    detail: str
