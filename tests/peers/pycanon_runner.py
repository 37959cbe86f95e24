"""Run pyCANON's measures on a CSV file; executed BY the pyCANON virtual environment.

This script imports only pyCANON and its own pinned dependencies, never privcert. It
reads one JSON spec on standard input::

    {"csv": "release.csv", "index_col": false, "qi": ["age", "zip"], "repeat": 1,
     "calls": [{"function": "k_anonymity"},
               {"function": "t_closeness", "sensitive": "income"}]}

loads the CSV the way privcert's ``verifier.tables.load.load_table`` does (only an empty cell
is missing; with ``index_col`` the first column becomes the index, so that index labels
survive the trip), and prints one JSON object on standard output::

    {"versions": {...}, "rows": 1000,
     "results": [{"function": "k_anonymity", "sensitive": null, "value": 3,
                  "seconds": [0.01]}, ...]}

``value`` is what pyCANON returned (a tuple becomes a list, NaN becomes null);
``seconds`` holds the wall time of each repetition of the call alone (not the load). A
call that raises reports ``error`` (the exception's type and message) instead.
"""

from __future__ import annotations

import json
import math
import sys
import time
from importlib.metadata import version
from typing import Any

import numpy as np
import pandas as pd
from pycanon import anonymity

_QI_ONLY = {"k_anonymity"}


def _plain(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.integer, int)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return None if math.isnan(value) else float(value)
    return value


def _call(frame: pd.DataFrame, qi: list[str], call: dict[str, Any], repeat: int) -> dict[str, Any]:
    function = getattr(anonymity, call["function"])
    sensitive = call.get("sensitive")
    arguments = (frame, qi) if call["function"] in _QI_ONLY else (frame, qi, [sensitive])
    out: dict[str, Any] = {"function": call["function"], "sensitive": sensitive, "seconds": []}
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            value = function(*arguments)
        except Exception as error:  # a peer's failure is a result to report, not a crash
            out["error"] = f"{type(error).__name__}: {error}"
            return out
        out["seconds"].append(time.perf_counter() - start)
    out["value"] = _plain(value)
    return out


def main() -> None:
    spec = json.load(sys.stdin)
    frame = pd.read_csv(
        spec["csv"], keep_default_na=False, na_values=[""], index_col=0 if spec.get("index_col") else None
    )
    results = [_call(frame, list(spec["qi"]), call, int(spec.get("repeat", 1))) for call in spec["calls"]]
    versions = {name: version(name) for name in ("pycanon", "numpy", "pandas")}
    versions["python"] = sys.version.split()[0]
    json.dump({"versions": versions, "rows": len(frame), "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
