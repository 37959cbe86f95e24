"""The library reads a DataFrame as the CLI reads its CSV: mixed object columns as text, column names checked."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from privcert import api
from verifier.errors import DataError

POLICY = '[data]\nqi = ["q"]\n[sensitive.s]\n[[require]]\nmodel = "k_anonymity"\nthreshold = 2\n'


def _k(result: api.AuditResult) -> object:  # type: ignore[name-defined]
    return next(m.level.value for m in result.report.measurements if m.model == "k_anonymity")


def test_a_mixed_object_column_is_read_as_its_text(tmp_path: Path) -> None:
    """1, 1.0 and True are three values in a CSV file; Python counts them equal. The library reads them as text."""
    frame = pd.DataFrame({"q": [1, 1.0, True, 1, 1.0, True], "s": ["a", "b", "a", "b", "a", "b"]}, dtype=object)
    path = tmp_path / "release.csv"
    frame.to_csv(path, index=False)
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    from_frame, from_file = api.audit(frame, policy), api.audit(path, policy)
    assert _k(from_frame) == _k(from_file) == 2


@pytest.mark.parametrize(("columns", "message"), [(["q", "q", "s"], "2 columns are named 'q'"),
                                                  ([0, "q", "s"], None)])
def test_column_names_are_checked(tmp_path: Path, columns: list[object], message: str | None) -> None:
    frame = pd.DataFrame([["1", "1", "a"], ["1", "1", "b"]], columns=columns)
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    if message is None:  # an integer name beside the named ones is no harm; naming it is refused
        from verifier.tables.counting import count_tables

        with pytest.raises(DataError, match="column name 0 is of type int"):
            count_tables(frame, [0], [])  # type: ignore[list-item]
        assert _k(api.audit(frame, policy)) == 2
        return
    with pytest.raises(DataError, match=message):
        api.audit(frame, policy)
