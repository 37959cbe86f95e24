"""Count the "unknown" answers of the implication map over every query at small N.

Every ordered pair of definitions (a sized definition also with itself at another subset size) is asked
``Graph.implies`` at every N from 2 to ``--max-n``, every smallest class k a partition of N records can
have (k = N, or 1 <= k <= N/2), every subset size 1 <= k <= N - 1 of a sized premise or conclusion, in the
default reading and with ``dp_within_classes`` asserted. Prints the answers by kind and the unknown ones
by pair of definitions.

Run from the repository root: ``.venv/bin/python benchmarks/theory_unknowns.py --max-n 6``.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterator

from theory.answers.graph import SIZED, Graph, build_graph
from theory.definitions import definition_ids
from theory.status_cache import cached_statuses

__all__ = ["queries", "answers"]


def queries(max_n: int) -> Iterator[tuple[str, str, dict[str, object]]]:
    """Every (premise, conclusion, parameters) counted (see the module docstring)."""
    ids = definition_ids()
    for premise in ids:
        for conclusion in ids:
            if premise == conclusion and premise not in SIZED:
                continue
            for records in range(2, max_n + 1):
                smallest = [s for s in range(1, records + 1) if s == records or 2 * s <= records]
                subsets = range(1, records)
                for k in smallest:
                    for k_premise in subsets if premise in SIZED else (None,):
                        for k_conclusion in subsets if conclusion in SIZED else (None,):
                            if premise == conclusion and k_premise == k_conclusion:
                                continue
                            for classwise in (False, True):
                                params: dict[str, object] = {"N": records, "k": k}
                                if k_premise is not None:
                                    params["k_premise"] = k_premise
                                if k_conclusion is not None:
                                    params["k_conclusion"] = k_conclusion
                                if classwise:
                                    params["dp_within_classes"] = True
                                yield premise, conclusion, params


def answers(max_n: int, graph: Graph | None = None) -> Counter[tuple[str, str, str, bool]]:
    """``(premise, conclusion, holds, dp_within_classes)`` -> number of queries."""
    graph = graph if graph is not None else build_graph(cached_statuses())
    found: Counter[tuple[str, str, str, bool]] = Counter()
    for premise, conclusion, params in queries(max_n):
        holds = graph.implies(premise, conclusion, params).holds
        found[(premise, conclusion, holds, "dp_within_classes" in params)] += 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=6)
    options = parser.parse_args()
    found = answers(options.max_n)
    for classwise in (False, True):
        reading = "dp_within_classes" if classwise else "default reading"
        total = Counter(holds for (_, _, holds, c), n in found.items() if c == classwise for _ in range(n))
        print(f"{reading}: " + ", ".join(f"{holds} {total[holds]}" for holds in ("yes", "no", "unknown")))
        unknown = Counter({(p, c_): n for (p, c_, holds, c), n in found.items() if c == classwise and holds == "unknown"})
        for (premise, conclusion), n in sorted(unknown.items(), key=lambda item: (-item[1], item[0])):
            print(f"  unknown {n:4d}  {premise} ⇒ {conclusion}")


if __name__ == "__main__":
    main()
