"""The models privcert measures, one declaration module per model or family of models.

Each module declares its models (:class:`verifier.registry.Model`) and registers them with
:func:`verifier.registry.register`; :mod:`verifier.registry` imports the modules listed in
:data:`MODULES`, in this order, which is the order of a report. Adding a model is writing
one module here and naming it in :data:`MODULES` (a test fails when a module of this
package is not listed). Declaration modules import nothing heavy at module level: their
measure functions import the numerical code they call.
"""

__all__ = ["MODULES"]

MODULES: tuple[str, ...] = (
    "anonymity",
    "diversity",
    "t_closeness",
    "multiplicative",
    "likeness",
    "randomized",
    "uniqueness",
    "attacker_risk",
    "individual_risk",
    "suda",
    "profitability",
    "population_table",
)
"""The declaration modules, in report order."""
