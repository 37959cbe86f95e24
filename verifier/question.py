"""What a measurement run asks of a release: the quasi-identifiers, the attributes and the options.

A :class:`Question` is the one object every caller hands to :func:`verifier.measure.measure` (and
:func:`verifier.measure.measure_tables`): the library's keywords (:func:`privcert.api.measure`), a
policy (:attr:`verifier.policy.Policy.question`) and the utility comparison build it with
:meth:`Question.of`, the one constructor that checks the options against the attributes, so that no
caller copies the list of options or their checks (docs/design.md, "One question per run").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, get_args

from verifier.errors import PolicyError
from verifier.inputs import Inputs, inputs_of
from verifier.registry import MeasureOptions, ModelKind

if TYPE_CHECKING:
    from verifier.tables.buckets import Bucketing
    from verifier.tables.counts import AttributeSpec
    from verifier.tables.hierarchy import Hierarchy

__all__ = ["Question"]


@dataclass(frozen=True)
class Question:
    """The quasi-identifiers, the sensitive attributes and the options of one measurement run.

    Build it with :meth:`of`, which checks it; :func:`verifier.measure.measure` measures every
    model the options ask for on the classes of :attr:`qi`, once, and on every attribute of
    :attr:`attributes`, each alone or joint (Domingo-Ferrer & Soria-Comas 2015, §4).

    Attributes
    ----------
    qi
        The quasi-identifier columns.
    attributes
        The sensitive attributes, each alone or joint (several columns).
    options
        What every measure function sees (:class:`verifier.registry.MeasureOptions`).
    """

    qi: tuple[str, ...]
    attributes: tuple[AttributeSpec, ...]
    options: MeasureOptions

    @classmethod
    def of(
        cls,
        qi: Sequence[str],
        attributes: Sequence[AttributeSpec],
        *,
        hierarchies: Mapping[str, Hierarchy] | None = None,
        buckets: Mapping[str, Bucketing] | None = None,
        l: int | Sequence[int] = 2,
        risk_threshold: Fraction = Fraction(1, 5),
        kinds: Iterable[ModelKind] = (),
        inputs: Inputs | Mapping[str, Any] | None = None,
        requested: Mapping[str, tuple[Mapping[str, Any], ...]] | None = None,
        source: str = "data",
    ) -> Question:
        """The question, once its options are checked against its attributes.

        Parameters
        ----------
        qi
            The quasi-identifier columns.
        attributes
            The sensitive attributes, each alone or joint (several columns).
        hierarchies
            A hierarchy per categorical attribute name: adds the ``hierarchical`` distance of
            t-closeness (Li et al. 2007, the hierarchical ground distance).
        buckets
            A bucketing per attribute name for ``multiplicative_t_closeness`` (default: the
            distinct values).
        l
            The ``l`` (or several) of recursive (c, l)-diversity (Machanavajjhala et al. 2007, Def. 4.3).
        risk_threshold
            Prosecutor risk above which a record counts as at risk.
        kinds
            Kinds of model to measure besides those measured by default
            (:attr:`verifier.registry.MeasureOptions.kinds`, e.g. ``{"risk"}``).
        inputs
            The inputs some models need (:class:`verifier.inputs.Inputs`, or a mapping of its
            names: an unknown name is refused with the valid ones).
        requested
            Parameters requirements name, per model id (:attr:`verifier.registry.MeasureOptions.requested`).
        source
            What the question is asked of, in messages (a release's file; ``data`` for a frame).

        Raises
        ------
        PolicyError
            An input is unknown or invalid, a column is both a quasi-identifier and sensitive, a
            hierarchy or bucketing is given for an attribute that is not measured (or a hierarchy
            for an ordered one), an ``l`` is below 1, or a kind is unknown.
        """
        checked = inputs_of(inputs)
        hierarchies = dict(hierarchies or {})
        buckets = dict(buckets or {})
        ls = (l,) if isinstance(l, int) else tuple(dict.fromkeys(l))
        _check(qi, attributes, hierarchies, buckets, ls, source)
        chosen = frozenset(kinds)
        known = get_args(ModelKind)
        unknown = sorted(str(kind) for kind in chosen if kind not in known)
        if unknown:
            raise PolicyError(f"kinds: unknown kind {unknown[0]!r}; expected some of {', '.join(known)}")
        options = MeasureOptions(hierarchies=hierarchies, buckets=buckets, l=ls, risk_threshold=risk_threshold,
                                 kinds=chosen, inputs=checked, requested=dict(requested or {}))
        return cls(tuple(qi), tuple(attributes), options)


def _check(
    qi: Sequence[str],
    attributes: Sequence[AttributeSpec],
    hierarchies: Mapping[str, Hierarchy],
    buckets: Mapping[str, Bucketing],
    ls: tuple[int, ...],
    source: str,
) -> None:
    """Refuse options that do not fit the attributes (see :meth:`Question.of`)."""
    both = sorted({c for spec in attributes for c in spec.columns} & set(qi))
    if both:
        raise PolicyError(f"{source}: expected sensitive columns that are not quasi-identifiers, found {both} in both")
    single = {spec.name: spec for spec in attributes if isinstance(spec.name, str)}
    for option, names in (("hierarchy", hierarchies), ("buckets", buckets)):
        for name in names:
            if name not in single:
                raise PolicyError(
                    f"{source}: {option} given for {name!r}, expected one of the sensitive attributes "
                    f"{sorted(single)}"
                )
    for name in hierarchies:
        if single[name].kind != "categorical":
            raise PolicyError(
                f"{source}: hierarchy given for {name!r}, expected a categorical attribute, found a "
                f"{single[name].kind} one (ordered attributes use the ordered distance)"
            )
    if not ls or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in ls):
        raise PolicyError(f"{source}: l of recursive (c,l)-diversity: expected integers ≥ 1, found {list(ls)}")
