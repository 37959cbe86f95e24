"""Hierarchies (verifier.tables.hierarchy) and Li et al. (2007)'s extra/pos_extra/neg_extra/cost recursion."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.errors import HierarchyError, InputFileNotFoundError
from verifier.privacy.t_closeness import emd
from verifier.tables.hierarchy import Hierarchy, load_hierarchy

DATA = Path(__file__).parents[2] / "data" / "disease_hierarchy.csv"
DISEASES = load_hierarchy(DATA)
TABLE_4_LEAVES = ["bronchitis", "flu", "gastric ulcer", "gastritis", "pneumonia", "stomach cancer"]
TABLE_4_Q = [2, 1, 1, 2, 1, 2]  # counts of TABLE_4_LEAVES in Li et al. 2007, Table 3/4


def recursion_001(hierarchy: Hierarchy, counts: list[int], leaves: list[str], totals: list[int], *, below: bool) -> Fraction:
    """Li et al. 2007, "Hierarchical Distance", written out literally over the tree.

    extra(leaf) = p - q; extra(N) = Σ extra(children); cost(N) = height(N)/H · min(pos, neg),
    where pos/neg sum the positive/negative extras of N's children (``below=False``) or,
    as the slides' sentence "Child(N) is the set of all leaf nodes below N" reads, of all
    leaves below N (``below=True``).
    """
    p = dict(zip(leaves, (Fraction(c, sum(counts)) for c in counts)))
    q = dict(zip(leaves, (Fraction(c, sum(totals)) for c in totals)))
    height = hierarchy.height
    children: dict[tuple[int, str], set[tuple[int, str]]] = {}
    leaves_below: dict[tuple[int, str], set[str]] = {}
    for path in hierarchy.paths:
        for h in range(1, height + 1):
            children.setdefault((h, path[h]), set()).add((h - 1, path[h - 1]))
            leaves_below.setdefault((h, path[h]), set()).add(path[0])

    def extra(node: tuple[int, str]) -> Fraction:
        if node[0] == 0:
            return p.get(node[1], Fraction(0)) - q.get(node[1], Fraction(0))
        return sum((extra(c) for c in children[node]), Fraction(0))

    total = Fraction(0)
    for node in children:
        parts = [extra((0, leaf)) for leaf in leaves_below[node]] if below else [extra(c) for c in children[node]]
        positive = sum((e for e in parts if e > 0), Fraction(0))
        negative = sum((-e for e in parts if e < 0), Fraction(0))
        total += Fraction(node[0], height) * min(positive, negative)
    return total


def test_disease_hierarchy_file() -> None:
    # Li et al. 2007, Figure 1: height 3; gastric ulcer–gastritis 1/3, gastric ulcer–colitis 2/3, gastric ulcer–flu 1.
    assert DISEASES.height == 3
    assert len(DISEASES.leaves) == 10
    assert DISEASES.distance("gastric ulcer", "gastritis") == Fraction(1, 3)
    assert DISEASES.distance("gastric ulcer", "colitis") == Fraction(2, 3)
    assert DISEASES.distance("gastric ulcer", "flu") == Fraction(1)
    assert DISEASES.distance("flu", "flu") == Fraction(0)
    assert DISEASES.source == str(DATA)


@pytest.mark.parametrize(
    ("counts", "children", "leaves_below"),
    [
        # P1 = {gastric ulcer, gastritis, stomach cancer}: only the root has both signs among its
        # children (+4/9 digestive, -4/9 respiratory) -> 1 · 4/9. Both readings agree.
        ([0, 0, 1, 1, 0, 1], Fraction(4, 9), Fraction(4, 9)),
        # P2 = {gastritis, flu, bronchitis}: children reading 1/3·1/9 (stomach) + 1/3·1/9
        # (respiratory infection) + 1·2/9 (root) = 8/27, the transport optimum. The leaves-below
        # reading adds digestive 2/3·1/9, respiratory 2/3·1/9 and root 1·4/9: 1/27+1/27+2/27+2/27+12/27 = 2/3.
        ([1, 1, 0, 1, 0, 0], Fraction(8, 27), Fraction(2, 3)),
    ],
)
def test_001_recursion_children_not_leaves_below(counts: list[int], children: Fraction, leaves_below: Fraction) -> None:
    assert recursion_001(DISEASES, counts, TABLE_4_LEAVES, TABLE_4_Q, below=False) == children
    assert recursion_001(DISEASES, counts, TABLE_4_LEAVES, TABLE_4_Q, below=True) == leaves_below
    assert emd(counts, TABLE_4_Q, "hierarchical", hierarchy=DISEASES, values=TABLE_4_LEAVES) == children


@given(
    st.lists(st.integers(0, 3), min_size=10, max_size=10).filter(any),
    st.lists(st.integers(0, 3), min_size=10, max_size=10),
)
@settings(max_examples=60, deadline=None)
def test_vectorized_form_equals_001_recursion(counts: list[int], extra: list[int]) -> None:
    totals = [c + e for c, e in zip(counts, extra)]
    leaves = list(DISEASES.leaves)
    assert emd(counts, totals, "hierarchical", hierarchy=DISEASES, values=leaves) == recursion_001(
        DISEASES, counts, leaves, totals, below=False
    )


def test_blank_lines_are_skipped_and_rows_numbered_by_line(tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    path.write_text("a,g,r\n\nb,g,r\n\nc,g\n")
    with pytest.raises(HierarchyError) as caught:
        load_hierarchy(path)
    assert str(caught.value) == f"{path}, row 5: expected 3 columns (as in row 1), found 2"
    path.write_text("a ,g,r\n\nb,g,r\n")  # whitespace is data, as in the release: the leaf is "a "
    assert load_hierarchy(path).paths == (("a ", "g", "r"), ("b", "g", "r"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "{path}: expected one row per leaf (columns from leaf to root), found no rows"),
        ("\n\n", "{path}: expected one row per leaf (columns from leaf to root), found no rows"),
        ("a\nb\n", "{path}, row 1: expected at least 2 columns (a leaf and the root), found 1"),
        ("a,g,r\nb,r\n", "{path}, row 2: expected 3 columns (as in row 1), found 2"),
        ("a,g,r\nb,g,x,r\n", "{path}, row 2: expected 3 columns (as in row 1), found 4"),
        ("a,,r\n", "{path}, row 1, column 2: expected a node name, found an empty cell"),
        ("a,g,r\nb,g,r\na,h,r\n", "{path}, row 3: leaf 'a' is already listed in row 1"),
        (
            "a,g,h1,r\nb,g,h2,r\n",
            "{path}, row 2: node 'g' (height 1) has parent 'h2', but parent 'h1' in row 1",
        ),
        (
            "a,g,r\nb,h,s\n",
            "{path}, row 2: expected the root 'r' (as in row 1), found 's'; a hierarchy has one root",
        ),
    ],
)
def test_bad_hierarchy_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "hierarchy.csv"
    path.write_text(text)
    with pytest.raises(HierarchyError) as caught:
        load_hierarchy(path)
    assert str(caught.value) == message.format(path=path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileNotFoundError) as caught:
        load_hierarchy(tmp_path / "nope.csv")
    assert str(caught.value) == f"hierarchy file {str(tmp_path / 'nope.csv')!r} not found"
    assert isinstance(caught.value, FileNotFoundError)


def test_from_rows_names_its_source() -> None:
    with pytest.raises(HierarchyError) as caught:
        Hierarchy.from_rows([["a", "r"], ["a", "r"]], source="policy.toml [disease]")
    assert str(caught.value) == "policy.toml [disease], row 2: leaf 'a' is already listed in row 1"
    with pytest.raises(HierarchyError) as caught:
        Hierarchy.from_rows([["a", "r"]]).distance("a", "b")
    assert str(caught.value) == "<rows>: value 'b' of column '<distance>' is not a leaf of the hierarchy (leaves: ['a'])"


def test_node_runs_make_every_node_contiguous() -> None:
    # Values in code (alphabetical) order interleave the two branches; after `order` every node
    # at every height covers one run, and `starts` marks the runs.
    values = ["bronchitis", "colitis", "flu", "gastritis"]
    order, starts = DISEASES.node_runs(values, "disease")
    arranged = [values[i] for i in order]
    for h, run_starts in enumerate(starts):
        bounds = [*run_starts.tolist(), len(values)]
        nodes = [{DISEASES.paths[DISEASES.leaves.index(v)][h] for v in arranged[a:b]} for a, b in zip(bounds, bounds[1:])]
        assert all(len(n) == 1 for n in nodes)
        assert len({n.pop() for n in nodes}) == len(nodes)
    assert [len(s) for s in starts] == [4, 3, 2]
