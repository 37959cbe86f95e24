"""Count the "unknown" answers of the implication map on the query grid, by reading and by pair of definitions.

The grid is that of ``tests/_theory_grid.py`` (every ordered pair of definitions, a sized one also with itself at
another subset size; every 1 <= N <= ``--max-n``; every smallest class a partition of N records can have; every
subset size of a sized side), in four readings: as measured, ``dp_within_classes``, ``distinct_buckets`` with
``recursive_l_at_least_2``, and ``singleton_classes``. Prints the answers by reading, then the unknown ones by
reading and pair, most first; ``--json FILE`` also writes ``[reading, premise, conclusion, answer, count]`` rows.

Run from the repository root: ``.venv/bin/python benchmarks/theory_unknowns.py --max-n 6``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _theory_grid import queries  # noqa: E402
from theory.answers.graph import build_graph  # noqa: E402
from theory.status_cache import cached_statuses  # noqa: E402

READINGS: tuple[tuple[str, ...], ...] = ((), ("dp_within_classes",), ("distinct_buckets", "recursive_l_at_least_2"),
                                         ("singleton_classes",))
"""The readings counted (the assumptions each query asserts)."""


def _reading(params: dict[str, object]) -> str:
    return "+".join(name for name in ("dp_within_classes", "distinct_buckets", "recursive_l_at_least_2",
                                      "singleton_classes") if params.get(name)) or "as measured"


def answers(max_n: int) -> Counter[tuple[str, str, str, str]]:
    """``(reading, premise, conclusion, answer)`` -> number of queries; ``undefined``: the query is refused."""
    graph = build_graph(cached_statuses())
    found: Counter[tuple[str, str, str, str]] = Counter()
    for premise, conclusion, params in queries(max_n, 1, READINGS):
        holds: str
        try:
            holds = graph.implies(premise, conclusion, params).holds
        except ValueError:  # a definition undefined at N = 1
            holds = "undefined"
        found[(_reading(params), premise, conclusion, holds)] += 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--max-n", type=int, default=6)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    found = answers(options.max_n)
    readings = list(dict.fromkeys(reading for reading, *_ in found))
    total: Counter[str] = Counter()
    for reading in readings:
        by_answer: Counter[str] = Counter()
        for (r, _, _, holds), n in found.items():
            if r == reading:
                by_answer[holds] += n
        total.update(by_answer)
        print(f"{reading}: {sum(by_answer.values())} queries, "
              + ", ".join(f"{holds} {by_answer[holds]}" for holds in ("yes", "no", "unknown", "undefined")))
    print(f"all: {sum(total.values())} queries, "
          + ", ".join(f"{holds} {total[holds]}" for holds in ("yes", "no", "unknown", "undefined")))
    for reading in readings:
        unknown = sorted(((n, p, c) for (r, p, c, holds), n in found.items() if r == reading and holds == "unknown"),
                         key=lambda item: (-item[0], item[1], item[2]))
        print(f"\nunknown, {reading}:")
        for n, premise, conclusion in unknown:
            print(f"  {n:4d}  {premise} ⇒ {conclusion}")
    if options.json is not None:
        rows = [[r, p, c, holds, n] for (r, p, c, holds), n in sorted(found.items())]
        options.json.write_text(json.dumps(rows, indent=0) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
