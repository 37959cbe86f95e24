"""The profitability criteria of the re-identification game (Wan et al. 2015), as ARX has them.

Four models, measured by :mod:`verifier.risk.profitability` with the cost/benefit figures
the publisher declares (the requirement's parameters; ARX's defaults otherwise):

* ``profitability_prosecutor``, ``profitability_journalist``: the publisher's smallest
  expected payoff per record (ARX's ``ProfitabilityProsecutor`` and
  ``ProfitabilityJournalist`` keep a class while it is above 0);
* ``no_attack_prosecutor``, ``no_attack_journalist``: the adversary's largest expected
  payoff of an attack (ARX's ``ProfitabilityProsecutorNoAttack`` and
  ``ProfitabilityJournalistNoAttack`` keep a class while it is below 0).

The journalist variants read the population counts of a population table when one is
given (ARX's research subset of a population), else the release's own class sizes.

References
----------
Wan et al. 2015, Methods (the Basic Game).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from verifier.literal import Domain
from verifier.references import Source
from verifier.registry import Model, Parameter, Subject, register

if TYPE_CHECKING:
    from verifier.results import Measurement
    from verifier.risk.profitability import Attacker, CostBenefit

__all__ = ["PROFITABILITY_PROSECUTOR", "PROFITABILITY_JOURNALIST", "NO_ATTACK_PROSECUTOR", "NO_ATTACK_JOURNALIST"]

_FIGURE = Domain(lower=Fraction(0))
_ADVERSARY = (
    Parameter("adversary_gain", "the adversary's gain per record re-identified (default 300, ARX's)", _FIGURE),
    Parameter("adversary_cost", "the adversary's cost of one attack (default 4, ARX's)", _FIGURE),
)
_PUBLISHER = (
    Parameter("publisher_benefit", "the publisher's benefit per record shared (default 1200, ARX's)", _FIGURE),
    Parameter("publisher_loss", "the publisher's loss per record re-identified (default 300, ARX's)", _FIGURE),
)
_SOURCE = Source("Wan et al. 2015", "Methods", "the Basic Game: the publisher's and the recipient's payoffs")


def _costs(subject: Subject, model_id: str) -> Iterator[CostBenefit]:
    """ARX's default figures, then each set a requirement names (its other figures ARX's defaults)."""
    from verifier.risk.profitability import ARX_COSTS, CostBenefit

    defaults = ARX_COSTS.parameters()
    seen = []
    for named in ({}, *subject.requested(model_id)):
        figures: Mapping[str, Any] = {**defaults, **{k: v for k, v in named.items() if k in defaults}}
        costs = CostBenefit(**figures)
        if costs not in seen:
            seen.append(costs)
            yield costs


def _measure(model_id: str, journalist: bool, publisher: bool) -> Any:
    def measure(subject: Subject) -> Iterator[Measurement]:
        from verifier.models.attacker_risk import populations
        from verifier.risk.profitability import adversary_payoff, publisher_payoff

        found = populations(subject) if journalist else None
        figure = publisher_payoff if publisher else adversary_payoff
        attacker: Attacker = "journalist" if journalist else "prosecutor"
        for costs in _costs(subject, model_id):
            yield figure(model_id, subject.classes, costs, attacker, found)

    return measure


def _model(model_id: str, name: str, journalist: bool, publisher: bool) -> Model:
    return Model(
        id=model_id, name=name, kind="risk", scope="release", source=_SOURCE,
        comparison="at_least" if publisher else "below", threshold=Domain(),
        units="publisher's payoff per record" if publisher else "adversary's expected payoff per attack",
        measure=_measure(model_id, journalist, publisher),
        parameters=_ADVERSARY + _PUBLISHER if publisher else _ADVERSARY, by_default=False,
        reads=frozenset({"population_table"}) if journalist else frozenset(),
        recheck="statement" if journalist else "count_tables",
    )


PROFITABILITY_PROSECUTOR = _model("profitability_prosecutor", "publisher's payoff (prosecutor game)", False, True)
PROFITABILITY_JOURNALIST = _model("profitability_journalist", "publisher's payoff (journalist game)", True, True)
NO_ATTACK_PROSECUTOR = _model("no_attack_prosecutor", "adversary's payoff (prosecutor game, no attack)", False, False)
NO_ATTACK_JOURNALIST = _model("no_attack_journalist", "adversary's payoff (journalist game, no attack)", True, False)

register(PROFITABILITY_PROSECUTOR, PROFITABILITY_JOURNALIST, NO_ATTACK_PROSECUTOR, NO_ATTACK_JOURNALIST)
