"""Which parameter gives the size k of a definition in a search or a witness request.

Two definitions of one claim can each have their own k (Ekenstedt et al. 2022, Lemma 2: k_0 and k_1;
Theorem 4: k_t and k_DP). A parameter mapping names them; the size of a definition in a
role ("premise" or "conclusion") is the first key present among

1. ``k_premise`` / ``k_conclusion`` (explicit role),
2. ``k_t`` for ``kt_closeness``, ``k_DP`` for ``k_eps_dp`` (Ekenstedt et al. 2022, Theorem 4's names),
3. ``k`` (shared; for multiplicative t-closeness, the smallest class size of Def. 4).

References
----------
Ekenstedt et al. 2022, Lemmas 2-3, Theorem 4 (two sizes side by side).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, overload

__all__ = ["Role", "size_keys", "size_for"]

Role = Literal["premise", "conclusion"]

_SPECIFIC = {"kt_closeness": "k_t", "k_eps_dp": "k_DP"}


def size_keys(definition_id: str, role: Role) -> tuple[str, ...]:
    """The parameter names consulted, in order, for the size of ``definition_id`` in ``role``."""
    specific = _SPECIFIC.get(definition_id)
    return (f"k_{role}",) + ((specific,) if specific else ()) + ("k",)


@overload
def size_for(definition_id: str, role: Role, params: Mapping[str, object], *, required: Literal[True]) -> int: ...


@overload
def size_for(definition_id: str, role: Role, params: Mapping[str, object], *, required: bool) -> int | None: ...


def size_for(definition_id: str, role: Role, params: Mapping[str, object], *, required: bool) -> int | None:
    """The size k of ``definition_id`` in ``role`` from ``params``.

    Raises
    ------
    ValueError
        When ``required`` and none of :func:`size_keys` is in ``params``, or the value is not an int.
    """
    for key in size_keys(definition_id, role):
        if key in params:
            value = params[key]
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"parameter {key!r}: expected an integer size, found {value!r}")
            return value
    if required:
        raise ValueError(
            f"{definition_id} as {role} needs a size: expected one of the parameters "
            f"{list(size_keys(definition_id, role))}, found {sorted(params)}"
        )
    return None
