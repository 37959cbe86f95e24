"""Where the implication map draws each definition: by the layers of the implication graph.

A declaration holds no coordinates (:class:`verifier.registry.MapDefinition`); the map places
the definitions from the graph it draws. Definitions that imply each other (a cycle of
usable implications, such as an equivalence) form one group; a group's layer is the
length of the longest chain of usable implications leading to it, so every implication
points down to a later layer (Ekenstedt et al. 2022, Fig. 2 reads the same way: stronger
definitions above the ones they imply). Definitions no usable implication relates sit in
one last row. Within a layer the definitions are ordered by the mean position of those
implying them (registry order breaks ties) and spaced by the length of their names, so no
two overlap.

References
----------
Ekenstedt et al. 2022, Def. 2 (implication), Figs. 1-2 (the map).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["ROW", "CHARACTER", "MARGIN", "layers", "layout"]

ROW = 4.0
"""The vertical distance between two layers (map units)."""
CHARACTER = 0.14
"""The width of one character of a definition's name (map units; the map draws 9 pt text at
:data:`theory.answers.map.UNITS_PER_INCH`)."""
MARGIN = 1.6
"""The space between two neighbouring definitions of a layer, box padding included (map units)."""


def _reach(nodes: Sequence[str], arrows: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    following: dict[str, set[str]] = {node: set() for node in nodes}
    for premise, conclusion in arrows:
        if premise in following and conclusion in following and premise != conclusion:
            following[premise].add(conclusion)
    reach: dict[str, set[str]] = {}
    for node in nodes:
        seen, frontier = set(), [node]
        while frontier:
            for found in following[frontier.pop()]:
                if found not in seen:
                    seen.add(found)
                    frontier.append(found)
        reach[node] = seen
    return reach


def layers(nodes: Sequence[str], arrows: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The definitions ``nodes`` in layers: a group of mutually implying definitions sits in the layer of
    its longest chain of implications ``arrows`` (premise, conclusion) from a group none implies; the
    definitions no arrow touches come last, in one row. Each layer keeps the order of ``nodes``."""
    arrows = list(arrows)
    reach = _reach(nodes, arrows)
    touched = {node for arrow in arrows for node in arrow if arrow[0] != arrow[1]}
    group = {node: frozenset([node, *(other for other in reach[node] if node in reach[other])]) for node in nodes}
    depth: dict[frozenset[str], int] = {}

    def depth_of(current: frozenset[str]) -> int:
        if current not in depth:
            above = {group[node] for node in nodes if group[node] != current
                     and any(member in reach[node] for member in current)}
            depth[current] = 1 + max((depth_of(other) for other in above), default=-1)
        return depth[current]

    rows: dict[int, list[str]] = {}
    for node in nodes:
        if node in touched:
            rows.setdefault(depth_of(group[node]), []).append(node)
    ordered = [rows[index] for index in sorted(rows)]
    isolated = [node for node in nodes if node not in touched]
    return ordered + ([isolated] if isolated else [])


def layout(names: dict[str, str], arrows: Iterable[tuple[str, str]]) -> dict[str, tuple[float, float]]:
    """The map position of each definition (``names``: id to the name drawn, in registry order),
    from the usable implications ``arrows``: the first layer on top, each layer centred on x = 0."""
    arrows = list(arrows)
    found: dict[str, tuple[float, float]] = {}
    rows = layers(list(names), arrows)
    for index, row in enumerate(rows):
        def pull(node: str) -> float:
            above = [found[premise][0] for premise, conclusion in arrows if conclusion == node and premise in found]
            return sum(above) / len(above) if above else 0.0

        order = sorted(row, key=lambda node: (pull(node), row.index(node))) if index else row
        widths = [CHARACTER * len(names[node]) + MARGIN for node in order]
        x = -sum(widths) / 2
        y = ROW * (len(rows) - 1 - index)
        for node, width in zip(order, widths):
            found[node] = (x + width / 2, y)
            x += width
    return found
