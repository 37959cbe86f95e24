"""Auditor mode: the levels a measured, data-independent level guarantees, with their derivation.

An auditor holds the release and the published mechanism, not the original data. The
mechanism alone gives ε-LDP (:func:`verifier.randomized.levels.ldp` over every row of ``M``);
the implication map then gives the strongest level of each other definition that ε-LDP
guarantees for the release's number of records N, its smallest class (k-anonymity) and
the requested subset sizes k (Ekenstedt et al. 2022, Thms. 2-4, Lemmas 2-3;
Domingo-Ferrer & Soria-Comas 2015, Prop. 1). Each result is labelled *implied*, carries
its derivation path and, per step, the claim id and its checked status.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import sympy

from verifier.randomized.mechanism import AnyMechanism
from verifier.randomized.modes import DerivationStep, ImpliedLevel
from verifier.randomized.publisher import auditor_ldp
from verifier.results import Level, Measurement
from verifier.tables.counts import CountTable

if TYPE_CHECKING:
    from theory.answers.graph import Graph

__all__ = ["implied_levels", "audit_release"]


def _targets(records: int, smallest_class: int, ks: Sequence[int]) -> list[tuple[str, dict[str, int]]]:
    # One class holding every record is trivially 1-close (each class average is the table's);
    # the map's class-based bounds divide by N - k there, so it is not asked.
    targets: list[tuple[str, dict[str, int]]] = []
    if smallest_class < records:
        targets.append(("stochastic_t_closeness", {"k": smallest_class}))
    if records > 1:
        targets.append(("dp", {}))
    for k in ks:
        targets += [("kt_closeness", {"k": k}), ("k_eps_dp", {"k": k})]
    return targets


def implied_levels(
    premise: str,
    level: sympy.Expr,
    records: int,
    smallest_class: int,
    ks: Sequence[int] = (),
    graph: Graph | None = None,
) -> tuple[ImpliedLevel, ...]:
    """The strongest levels the theory guarantees from ``premise`` at ``level``.

    Parameters
    ----------
    premise
        The measured definition (``ldp`` in auditor mode).
    level
        Its exact level (ε for ``ldp``).
    records
        N, the release's number of records.
    smallest_class
        The release's smallest equivalence class (the k of stochastic and multiplicative t-closeness; never
        a subset size).
    ks
        Subset sizes for ``kt_closeness`` and ``k_eps_dp``.
    graph
        The implication map (built from the cached checked statuses,
        :func:`theory.status_cache.cached_statuses`, when ``None``).

    Returns
    -------
    tuple of ImpliedLevel
        One per target the map reaches (definitions it cannot reach are left out).
    """
    from theory.answers.graph import SIZED

    if graph is None:
        from theory.answers.graph import build_graph
        from theory.status_cache import cached_statuses

        graph = build_graph(cached_statuses())
    status = {edge.claim_id: edge.status for edge in graph.edges}
    out = []
    classes = {"k": smallest_class} if smallest_class == records or 2 * smallest_class <= records else {}
    for model, sizes in _targets(records, smallest_class, ks):
        # "k" is the smallest class (a fact about the release); a subset size is the conclusion's own
        query = {"N": records, **classes, **({"k_conclusion": sizes["k"]} if model in SIZED else {})}
        answer = graph.strongest_level(premise, level, model, query, forcing_levels=False)  # steps are edges
        if answer.holds != "yes" or answer.value is None:
            continue
        steps = tuple(
            DerivationStep(s.claim_id, status[s.claim_id], s.premise, s.conclusion,
                           Level(s.value) if s.value is not None else Level.undefined("not evaluated"))
            for s in answer.path
        )
        out.append(ImpliedLevel(model, Level(answer.value), premise, Level(level), steps, sizes))
    return tuple(out)


def audit_release(
    release: CountTable, mechanism: AnyMechanism, ks: Sequence[int] = (), graph: Graph | None = None
) -> tuple[Measurement, tuple[ImpliedLevel, ...]]:
    """Auditor mode on a release: ε-LDP measured from ``M``, and the levels it implies.

    N is the release's number of records counted for the attribute and the smallest class the smallest
    among them (rows ``missing = "exclude"`` leaves out count for neither).
    """
    measured = auditor_ldp(release, mechanism)
    if measured.level.value is None or not measured.level.is_finite:
        return measured, ()
    smallest = int(release.sizes[release.sizes > 0].min())
    return measured, implied_levels("ldp", measured.level.value, release.n, smallest, ks, graph)
