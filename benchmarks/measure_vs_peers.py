"""Time privcert's ``measure`` against the group-by floor and against pyCANON.

Usage (from the repository root, with the project's environment)::

    .venv/bin/python benchmarks/measure_vs_peers.py --sizes 1e4,1e5,1e6
    .venv/bin/python benchmarks/measure_vs_peers.py --sizes 1e7 --no-pycanon
    .venv/bin/python benchmarks/measure_vs_peers.py --render      # RESULTS.md from saved runs

For each size it generates a synthetic release (:func:`synthetic_release`), writes it as
CSV under ``benchmarks/data/`` (git-ignored) and loads it with privcert's loader, then
times (medians of ``--repeat`` runs):

* ``floor``: one ``DataFrame.groupby(QI + [S]).size()`` per sensitive attribute, summed
  (``sort=False, dropna=False, observed=True``: the options privcert's group-by needs);
* ``measure``: privcert's full :func:`verifier.measure.measure` (every model, both
  attributes);
* each model alone on prebuilt count tables, and the count-table build itself;
* pyCANON's functions, each in its own subprocess of pyCANON's virtual environment
  (tests/peers/pycanon_env.py) with a ``--pycanon-timeout`` (600 s); a function that
  times out at one size is not run at larger sizes (``--peer-only`` reruns chosen calls
  into the saved runs);
* peak memory: a child process loads the table, resets its peak RSS
  (``/proc/self/clear_refs``), runs ``measure`` only and reports its peak RSS.

Each size's numbers are saved as ``benchmarks/data/results_<rows>.json``;
``benchmarks/RESULTS.md`` is rendered from every saved size.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from peers.pycanon_env import FUNCTIONS, PeerTimeoutError, PycanonEnv, pycanon_env  # noqa: E402
from verifier.measure import measure  # noqa: E402
from verifier.privacy.anonymity import alpha_k_anonymity, k_anonymity  # noqa: E402
from verifier.privacy.diversity import distinct_l_diversity, entropy_l_diversity, recursive_cl_diversity  # noqa: E402
from verifier.privacy.likeness import basic_beta_likeness, delta_disclosure, enhanced_beta_likeness  # noqa: E402
from verifier.privacy.multiplicative import multiplicative_t_closeness  # noqa: E402
from verifier.privacy.t_closeness import t_closeness  # noqa: E402
from verifier.question import Question  # noqa: E402
from verifier.tables.counting import count_tables  # noqa: E402
from verifier.tables.counts import AttributeSpec, CountTable  # noqa: E402
from verifier.tables.load import load_table  # noqa: E402

DATA = ROOT / "benchmarks" / "data"
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
NOTES = "<!-- notes: written by hand, kept when the tables above are rendered again -->"
QI = ["age", "sex", "region", "education", "marital"]
CATEGORICAL, NUMERICAL = "diagnosis", "income"
SPECS = (AttributeSpec((CATEGORICAL,), "categorical"), AttributeSpec((NUMERICAL,), "numerical"))
PYCANON_NUMERICAL = ("t_closeness", "alpha_k_anonymity", "l_diversity", "entropy_l_diversity", "recursive_c_l_diversity")
"""pyCANON functions run on the numerical attribute by default. Its β-likeness and
δ-disclosure loop over all ~2,000 values in every class exactly as its t-closeness does
(same cost); add them with ``--pycanon-numerical``."""

# pyCANON function -> the privcert model it is compared with.
OURS = {
    "k_anonymity": "k_anonymity",
    "alpha_k_anonymity": "alpha_k_anonymity",
    "l_diversity": "distinct_l_diversity",
    "entropy_l_diversity": "entropy_l_diversity",
    "recursive_c_l_diversity": "recursive_cl_diversity",
    "t_closeness": "t_closeness",
    "basic_beta_likeness": "basic_beta_likeness",
    "enhanced_beta_likeness": "enhanced_beta_likeness",
    "delta_disclosure": "delta_disclosure",
}


def synthetic_release(rows: int, seed: int = 0) -> pd.DataFrame:
    """A census-like release with 5 quasi-identifiers and two sensitive attributes.

    Quasi-identifiers (already generalized, as in a k-anonymized release): age in 8
    five-year bands, sex (2), region (12, Zipf-like), education (4), marital status (3):
    8·2·12·4·3 = 2,304 possible classes, about 2,000 occupied at 10^4 rows (median
    class size 3, many singletons) and all 2,304 from 10^5 rows on (median 30 at 10^5,
    ~300 at 10^6, ~3,000 at 10^7).

    ``diagnosis``: 20 codes, Zipf-like, shifted by age band (so classes differ from the
    table and t-closeness is not trivial). ``income``: ``10,000 + 50·j`` for a level
    ``j`` in 0..1999 drawn from a normal whose mean grows with education and age
    (~1,700 distinct values at 10^4 rows, all 2,000 from 10^6 on).
    """
    rng = np.random.default_rng(seed)

    def pick(labels: Sequence[str], weights: np.ndarray) -> np.ndarray:
        chosen = rng.choice(len(labels), size=rows, p=np.asarray(weights, float) / np.sum(weights))
        return np.asarray(labels, dtype=object)[chosen]

    age_band = rng.choice(8, size=rows, p=np.array([9, 12, 13, 13, 12, 11, 10, 8]) / 88)
    schooling = rng.choice(4, size=rows, p=[0.3, 0.35, 0.25, 0.1])
    diagnosis_weights = (1 / np.arange(1, 21) ** 1.1)[None, :] * np.exp(
        -0.15 * np.abs(np.arange(20)[None, :] - 2.5 * age_band[:, None])
    )
    cumulative = np.cumsum(diagnosis_weights / diagnosis_weights.sum(axis=1, keepdims=True), axis=1)
    diagnosis = np.minimum((rng.random(rows)[:, None] > cumulative).sum(axis=1), 19)
    level = np.clip(np.rint(rng.normal(500 + 250 * schooling + 20 * age_band, 300)), 0, 1999).astype(np.int64)
    return pd.DataFrame({
        "age": np.array([f"{20 + 5 * i}-{24 + 5 * i}" for i in range(8)], dtype=object)[age_band],
        "sex": pick(["F", "M"], np.array([51, 49])),
        "region": pick([f"R{i:02d}" for i in range(1, 13)], 1 / np.arange(1, 13) ** 0.8),
        "education": np.array(["primary", "secondary", "bachelor", "master"], dtype=object)[schooling],
        "marital": pick(["single", "married", "divorced"], np.array([40, 45, 15])),
        CATEGORICAL: np.array([f"D{i:02d}" for i in range(1, 21)], dtype=object)[diagnosis],
        NUMERICAL: 10_000 + 50 * level,
    })


def release_file(rows: int) -> Path:
    path = DATA / f"release_{rows}.csv"
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        synthetic_release(rows).to_csv(path, index=False)
    return path


def median_time(run: Callable[[], Any], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def floor(frame: pd.DataFrame) -> None:
    for attribute in (CATEGORICAL, NUMERICAL):
        frame.groupby(QI + [attribute], sort=False, dropna=False, observed=True).size()


def model_runs(tables: Sequence[CountTable]) -> dict[str, Callable[[], Any]]:
    """Every model on prebuilt count tables, keyed ``model/attribute``."""
    runs: dict[str, Callable[[], Any]] = {"k_anonymity": lambda: k_anonymity(tables[0].classes)}
    for table in tables:
        distance = "ordered" if table.spec.ordered else "equal"
        name = table.spec.columns[0]
        runs |= {
            f"alpha_k_anonymity/{name}": lambda t=table: alpha_k_anonymity(t),
            f"distinct_l_diversity/{name}": lambda t=table: distinct_l_diversity(t),
            f"entropy_l_diversity/{name}": lambda t=table: entropy_l_diversity(t),
            f"recursive_cl_diversity/{name}": lambda t=table: recursive_cl_diversity(t, 2),
            f"t_closeness/{name}": lambda t=table, d=distance: t_closeness(t, d),
            f"multiplicative_t_closeness/{name}": lambda t=table: multiplicative_t_closeness(t),
            f"basic_beta_likeness/{name}": lambda t=table: basic_beta_likeness(t),
            f"enhanced_beta_likeness/{name}": lambda t=table: enhanced_beta_likeness(t),
            f"delta_disclosure/{name}": lambda t=table: delta_disclosure(t),
        }
    return runs


def memory_child(path: Path) -> dict[str, int]:
    """Run in a child process: the peak RSS while ``measure`` alone runs (bytes)."""
    frame = load_table(path)
    frame_bytes = int(frame.memory_usage(deep=True).sum())
    after_load = _status("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")
    measure(frame, Question.of(QI, SPECS))
    return {"frame_bytes": frame_bytes, "rss_after_load": after_load, "peak_rss": _status("VmHWM")}


def _status(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"/proc/self/status has no {field}")


def pycanon_runs(
    env: PycanonEnv, path: Path, calls: Sequence[tuple[str, str | None]], args: argparse.Namespace,
    history: dict[str, tuple[int, float | None]], rows: int,
) -> dict[str, dict[str, Any]]:
    """Each pyCANON call in its own subprocess.

    ``history`` maps a call to ``(rows, seconds)`` at the largest size run so far
    (``None`` seconds: it timed out); a call that timed out is not run at larger sizes.
    """
    out: dict[str, dict[str, Any]] = {}
    for function, attribute in calls:
        key = function if attribute is None else f"{function}/{attribute}"
        before, seconds = history.get(key, (0, 0.0))
        if seconds is None:
            out[key] = {"timeout_at": before}
        else:
            out[key] = _pycanon_call(env, path, function, attribute, args, rows)
            if "error" not in out[key]:
                history[key] = (rows, out[key].get("seconds"))
        print(f"  pyCANON {key}: {out[key].get('seconds', out[key])}", flush=True)
    return out


def _pycanon_call(env: PycanonEnv, path: Path, function: str, attribute: str | None,
                  args: argparse.Namespace, rows: int) -> dict[str, Any]:
    """Median of up to ``--pycanon-repeat`` timed calls (one when a call takes over 30 s)."""
    call = {"function": function} if attribute is None else {"function": function, "sensitive": attribute}
    samples: list[float] = []
    out: dict[str, Any] = {}
    while len(samples) < args.pycanon_repeat:
        try:
            answer = env.run({"csv": str(path), "qi": QI, "calls": [call]}, timeout=args.pycanon_timeout)
        except PeerTimeoutError:
            return out if samples else {"timeout_at": rows}
        result = answer["results"][0]
        if "error" in result:
            return {"error": result["error"]}
        samples += result["seconds"]
        out = {"seconds": statistics.median(samples), "samples": samples, "value": result["value"],
               "versions": answer["versions"]}
        if samples[-1] > 30:
            break
    return out


def saved_history(below: int) -> dict[str, tuple[int, float | None]]:
    """pyCANON's history from the saved runs of sizes smaller than ``below``."""
    history: dict[str, tuple[int, float | None]] = {}
    for result in sorted((json.loads(p.read_text()) for p in DATA.glob("results_*.json")), key=lambda r: r["rows"]):
        if result["rows"] < below:
            for key, peer in result.get("pycanon", {}).items():
                if "seconds" in peer:
                    history[key] = (result["rows"], peer["seconds"])
                elif "timeout_at" in peer:
                    history[key] = (result["rows"], None)
    return history


def bench_size(
    rows: int, args: argparse.Namespace, env: PycanonEnv | None, history: dict[str, tuple[int, float | None]]
) -> dict[str, Any]:
    path = release_file(rows)
    load_before = os.getloadavg()[0]
    frame = load_table(path)
    repeat = args.repeat if rows < 10**7 else max(1, args.repeat // 2)
    result: dict[str, Any] = {"rows": rows, "repeat": repeat, "frame_bytes": int(frame.memory_usage(deep=True).sum()),
                              "pycanon_timeout": args.pycanon_timeout}
    classes, tables = count_tables(frame, QI, SPECS)
    result["classes"] = classes.count
    result["distinct"] = {t.spec.columns[0]: t.m for t in tables}
    result["floor"] = median_time(lambda: floor(frame), repeat)
    result["measure"] = median_time(lambda: measure(frame, Question.of(QI, SPECS)), repeat)
    result["count_tables"] = median_time(lambda: count_tables(frame, QI, SPECS), repeat)
    result["models"] = {key: median_time(run, repeat) for key, run in model_runs(tables).items()}
    print(f"{rows}: floor {result['floor']:.3f} s, measure {result['measure']:.3f} s", flush=True)
    child = subprocess.run([sys.executable, __file__, "--memory-child", str(path)], capture_output=True, text=True,
                           check=True)
    result["memory"] = json.loads(child.stdout)
    if env is not None:
        calls = [("k_anonymity", None)] + [(f, CATEGORICAL) for f in FUNCTIONS[1:]]
        calls += [(f, NUMERICAL) for f in args.pycanon_numerical]
        result["pycanon"] = pycanon_runs(env, path, calls, args, history, rows)
    elif (DATA / f"results_{rows}.json").exists():
        kept = json.loads((DATA / f"results_{rows}.json").read_text())
        if "pycanon" in kept:
            result["pycanon"] = kept["pycanon"]
            result["pycanon_date"] = kept.get("pycanon_date", kept["machine"]["date"])
    result["load_average"] = [load_before, os.getloadavg()[0]]
    return result


def machine() -> dict[str, str]:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    memory = next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines()
                  if line.startswith("MemTotal"))
    return {
        "cpu": f"{cpu}, {os.cpu_count()} logical CPUs",
        "memory": f"{int(memory) / 2**20:.1f} GiB",
        "os": platform.platform(),
        "python": platform.python_version(),
        "numpy": version("numpy"),
        "pandas": version("pandas"),
        "privcert": version("privcert"),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def _seconds(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3g}" if value < 100 else f"{value:,.0f}"


def _ratio(value: float) -> str:
    return f"{value:.2f}" if value < 10 else f"{value:,.0f}"


def _ours(result: dict[str, Any], key: str) -> float:
    """privcert's time for one model alone, group-by included: count tables + the model."""
    function, _, attribute = key.partition("/")
    ours = OURS[function]
    return result["count_tables"] + result["models"][ours if not attribute else f"{ours}/{attribute}"]


def _peer_cell(result: dict[str, Any], key: str) -> tuple[str, float | None]:
    peer = result.get("pycanon", {}).get(key)
    if peer is None:
        return "not run", None
    if "timeout_at" in peer:
        bound = result["pycanon_timeout"] / _ours(result, key)
        if peer["timeout_at"] < result["rows"]:
            return f"not run (timed out at {peer['timeout_at']:,} rows)", None
        return f"> {result['pycanon_timeout']:.0f} s (> {_ratio(bound)}×)", bound
    if "error" in peer:
        return f"error: {peer['error'][:40]}", None
    if "seconds" not in peer:
        return "not run", None
    return _seconds(peer["seconds"]), peer["seconds"] / _ours(result, key)


def _all_calls(result: dict[str, Any]) -> str:
    """pyCANON's calls summed (a timed-out call counts as the timeout: a lower bound)."""
    peers = result.get("pycanon", {}).values()
    if not peers or any("seconds" not in p and "timeout_at" not in p for p in peers):
        return "–"
    total = sum(p.get("seconds", result["pycanon_timeout"]) for p in peers)
    bound = "> " if any("seconds" not in p for p in peers) else ""
    return f"{bound}{_seconds(total)} s ({bound}{_ratio(total / result['measure'])}×)"


def render(results: Sequence[dict[str, Any]]) -> str:
    """RESULTS.md from the saved runs (one dict per size, as ``bench_size`` returns)."""
    sizes = [r["rows"] for r in results]
    head = "| " + " | ".join(f"{n:,}" for n in sizes) + " |"
    rule = "|---" * (len(sizes) + 1) + "|"
    info = results[-1]["machine"]
    peer_versions = next((v["versions"] for r in results for v in r.get("pycanon", {}).values() if "versions" in v), {})
    lines = [
        "# Benchmark results: privcert `measure` vs the group-by floor and pyCANON",
        "",
        "Generated by `benchmarks/measure_vs_peers.py` (see benchmarks/README.md); do not edit the tables by hand.",
        "",
        f"- Machine: {info['cpu']}, {info['memory']} RAM; {info['os']}",
        f"- privcert {info['privcert']}: Python {info['python']}, numpy {info['numpy']}, pandas {info['pandas']}",
        "- pyCANON " + (", ".join(f"{k} {v}" for k, v in peer_versions.items()) or "not run")
        + " (its own virtual environment)",
        "- Dates: " + ", ".join(
            f"{r['rows']:,} rows {r['machine']['date']}" + (f" (pyCANON {r['pycanon_date']})" if "pycanon_date" in r else "")
            for r in results),
        "- Data: `synthetic_release` (5 generalized quasi-identifiers, 2,304 possible classes; `diagnosis` with 20 "
        "values, `income` with up to 2,000), loaded from CSV with `verifier.tables.load.load_table`.",
        "- Load average (1 min) at the start and end of each size: " + ", ".join(
            f"{r['rows']:,} rows {r['load_average'][0]:.1f} → {r['load_average'][1]:.1f}" for r in results)
        + f" on {os.cpu_count()} CPUs (other jobs shared the machine; a load above the CPU count inflates every "
        "time, pyCANON's and privcert's alike).",
        "- privcert times are medians of `repeat` runs; pyCANON times are medians of up to 3 runs (1 when a run "
        "takes over 30 s). Every machine-wide number is wall time on a shared machine.",
        "",
        "## privcert against the floor",
        "",
        "Floor: `frame.groupby(QI + [S], sort=False, dropna=False, observed=True).size()` for each of the two "
        "attributes, summed.",
        "",
        "| | " + head[2:],
        rule,
        "| classes | " + " | ".join(f"{r['classes']:,}" for r in results) + " |",
        "| runs (repeat) | " + " | ".join(str(r["repeat"]) for r in results) + " |",
        "| floor (s) | " + " | ".join(_seconds(r["floor"]) for r in results) + " |",
        "| `measure`, all models, both attributes (s) | " + " | ".join(_seconds(r["measure"]) for r in results) + " |",
        "| measure / floor | " + " | ".join(_ratio(r["measure"] / r["floor"]) for r in results) + " |",
        "| `count_tables` (s) | " + " | ".join(_seconds(r["count_tables"]) for r in results) + " |",
        "",
        "## Each privcert model alone, on prebuilt count tables (s)",
        "",
        "| model / attribute | " + head[2:],
        rule,
    ]
    for key in results[-1]["models"]:
        lines.append(f"| {key} | " + " | ".join(_seconds(r["models"].get(key)) for r in results) + " |")
    lines += [
        "",
        "## pyCANON, and how many times slower it is than privcert",
        "",
        "Each cell: pyCANON's seconds for one call (the group-by included), then pyCANON / privcert, where "
        "privcert's time for the same model is `count_tables` (both attributes) + the model alone.",
        "",
        "| pyCANON function / attribute | " + head[2:],
        rule,
    ]
    keys = dict.fromkeys(k for r in results for k in r.get("pycanon", {}))
    for key in keys:
        cells = []
        for r in results:
            text, ratio = _peer_cell(r, key)
            cells.append(text if ratio is None or text.startswith(">") else f"{text} s ({_ratio(ratio)}×)")
        lines.append(f"| {key} | " + " | ".join(cells) + " |")
    lines.append("| **all the calls above, summed, vs privcert `measure`** | "
                 + " | ".join(_all_calls(r) for r in results) + " |")
    lines += [
        "",
        "## Peak memory of `measure`",
        "",
        "A child process loads the table, resets its peak RSS (`/proc/self/clear_refs`), runs `measure` and "
        "reads `VmHWM`. The peak includes the loaded table itself and the interpreter.",
        "",
        "| | " + head[2:],
        rule,
        "| DataFrame `memory_usage(deep=True)` (MB) | "
        + " | ".join(f"{r['memory']['frame_bytes'] / 1e6:,.0f}" for r in results) + " |",
        "| RSS after loading (MB) | " + " | ".join(f"{r['memory']['rss_after_load'] / 1e6:,.0f}" for r in results)
        + " |",
        "| peak RSS during `measure` (MB) | " + " | ".join(f"{r['memory']['peak_rss'] / 1e6:,.0f}" for r in results)
        + " |",
        "| peak RSS / DataFrame | "
        + " | ".join(_ratio(r["memory"]["peak_rss"] / r["memory"]["frame_bytes"]) for r in results) + " |",
        "| (peak − RSS after load) / DataFrame | "
        + " | ".join(_ratio((r["memory"]["peak_rss"] - r["memory"]["rss_after_load"]) / r["memory"]["frame_bytes"])
                     for r in results) + " |",
        "",
        "## Targets",
        "",
    ]
    lines += _targets(results)
    return "\n".join(lines) + "\n"


def _targets(results: Sequence[dict[str, Any]]) -> list[str]:
    out = []
    for r in results:
        n = r["rows"]
        if n >= 10**6:
            ratio = r["measure"] / r["floor"]
            out.append(f"- {n:,} rows: measure / floor = {ratio:.2f} (target ≤ 1.5): {'met' if ratio <= 1.5 else 'MISSED'}")
        memory = r["memory"]["peak_rss"] / r["memory"]["frame_bytes"]
        out.append(f"- {n:,} rows: peak RSS / DataFrame = {memory:.2f} (target ≤ 2): {'met' if memory <= 2 else 'MISSED'}")
        if n >= 10**5:
            for key in r.get("pycanon", {}):
                text, ratio = _peer_cell(r, key)
                target = 1000 if key == f"t_closeness/{NUMERICAL}" else 100
                if ratio is None:
                    out.append(f"- {n:,} rows: pyCANON {key}: {text} (target ≥ {target}×: not measured)")
                else:
                    verdict = "met" if ratio >= target else "MISSED"
                    bound = "> " if text.startswith(">") else ""
                    out.append(f"- {n:,} rows: pyCANON {key} / privcert = {bound}{_ratio(ratio)}× "
                               f"(target ≥ {target}×): {verdict}")
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1e4,1e5,1e6", help="comma-separated row counts (default 1e4,1e5,1e6)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per privcert timing (halved at 10^7)")
    parser.add_argument("--pycanon-repeat", type=int, default=3, help="runs per pyCANON call (1 when a run > 30 s)")
    parser.add_argument("--pycanon-timeout", type=float, default=600.0, help="seconds before a pyCANON call is stopped")
    parser.add_argument("--pycanon-numerical", default=",".join(PYCANON_NUMERICAL),
                        help="pyCANON functions run on the numerical attribute")
    parser.add_argument("--no-pycanon", action="store_true", help="skip pyCANON")
    parser.add_argument("--peer-only", default="",
                        help="only (re)run these pyCANON calls (e.g. t_closeness/income) at the sizes, into saved runs")
    parser.add_argument("--render", action="store_true", help="only render RESULTS.md from saved runs")
    parser.add_argument("--memory-child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        print(json.dumps(memory_child(args.memory_child)))
        return
    args.pycanon_numerical = [f for f in args.pycanon_numerical.split(",") if f]
    if not args.render:
        env = None if args.no_pycanon else pycanon_env()
        if env is not None and not env.available:
            print(f"pyCANON unavailable: {env.reason}", file=sys.stderr)
            env = None
        sizes = sorted(int(float(s)) for s in args.sizes.split(","))
        history = saved_history(sizes[0])
        if args.peer_only:
            if env is None:
                raise SystemExit("--peer-only needs pyCANON")
            calls = [(key.partition("/")[0], key.partition("/")[2] or None) for key in args.peer_only.split(",")]
            for rows in sizes:
                saved_run = json.loads((DATA / f"results_{rows}.json").read_text())
                saved_run.setdefault("pycanon", {}).update(pycanon_runs(env, release_file(rows), calls, args, history, rows))
                saved_run["pycanon_date"] = machine()["date"]
                (DATA / f"results_{rows}.json").write_text(json.dumps(saved_run, indent=1))
            sizes = []
        for rows in sizes:
            result = bench_size(rows, args, env, history)
            result["machine"] = machine()
            (DATA / f"results_{rows}.json").write_text(json.dumps(result, indent=1))
    saved = [json.loads(p.read_text()) for p in sorted(DATA.glob("results_*.json"))]
    old = RESULTS.read_text() if RESULTS.exists() else ""
    notes = old[old.index(NOTES):] if NOTES in old else NOTES + "\n"
    RESULTS.write_text(render(sorted(saved, key=lambda r: r["rows"])) + "\n" + notes)
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
