"""Load and speed of the workbench (``privcert serve``): sessions auditing at once, and one audit against the CLI.

Starts ``privcert serve`` on a free loopback port, writes a synthetic release (``--rows``,
Parquet or ``--format csv``), waits ``--warm-up`` seconds, and has ``--sessions`` browser
sessions (httpx clients, each with its own cookie) upload it and audit it at the same time,
polling their jobs as the page does. Bounded: at most ``--timeout`` seconds and one poll per
0.25 s per session. Checks every session's levels against :func:`privcert.api.audit` run
here, and reports for each of ``--rounds`` rounds the wall time, the CPU time (user +
system) of the server's processes meanwhile (the server, its fork server and the jobs, from
``/proc``; the server's own apart), each session's time (and when its upload and its audit's
start were answered), and the server's peak memory. With ``--cli``, each round then runs
``privcert audit --html`` (what the workbench's audit does) on the same file, and the
workbench/CLI ratios of wall and CPU time are printed, with the best and median of the
rounds. The first round after the start shows what the server's start-up costs the first
user; ``--cold-cache`` gives the server and each CLI run an empty cache of the theory's claim
statuses (the first run after an upgrade).

Run from the repository root::

    .venv/bin/python benchmarks/app_load.py --rows 1e5 --sessions 5
    .venv/bin/python benchmarks/app_load.py --rows 1e6 --sessions 1 --cli --rounds 3
    .venv/bin/python benchmarks/app_load.py --rows 1e6 --sessions 1 --cli --rounds 3 --warm-up 0
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

POLICY = {"requirements": "3", "role-0": "quasi-identifier", "role-1": "quasi-identifier", "role-2": "sensitive",
          "kind-2": "categorical", "role-3": "sensitive", "kind-3": "numerical",
          "req-0-model": "k_anonymity", "req-0-threshold": "2",
          "req-1-model": "distinct_l_diversity", "req-1-attribute": "diagnosis", "req-1-threshold": "2",
          "req-2-model": "t_closeness", "req-2-attribute": "stay_days", "req-2-threshold": "1/2",
          "req-2-p-distance": "ordered"}


def release(rows: int, folder: Path, form: str = "parquet") -> Path:
    import numpy as np
    import pandas as pd

    generator = np.random.default_rng(2026)
    frame = pd.DataFrame({"age": generator.integers(18, 90, rows) // 5 * 5, "zip": generator.integers(0, 40, rows),
                          "diagnosis": generator.choice([f"d{i}" for i in range(12)], rows),
                          "stay_days": generator.integers(0, 30, rows)})
    path = folder / f"release-{rows}.{form}"
    if form == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    return path


def _memory(root: int) -> int:
    """Resident memory (bytes) of ``root`` and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * 4096
        except (OSError, IndexError, ValueError):
            pass
    return total


def _cpu(root: int) -> float:
    """CPU seconds (user + system) of ``root`` and its descendants, the ended ones it or they waited for included
    (``/proc/PID/stat``: utime, stime, cutime, cstime)."""
    children: dict[int, list[int]] = {}
    times: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
            times[int(entry.name)] = sum(int(value) for value in fields[11:15])
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        total += times.get(pid, 0)
    return total / os.sysconf("SC_CLK_TCK")


def _own_cpu(pid: int) -> float:
    """CPU seconds (user + system) of the process ``pid`` itself, its threads included."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def session(base: str, path: Path, deadline: float, out: dict[str, object]) -> None:
    import httpx

    started = time.monotonic()
    with httpx.Client(base_url=base, timeout=300) as client:
        token = re.search(r'name="csrf" value="([^"]+)"', client.get("/audit").text).group(1)  # type: ignore[union-attr]
        with path.open("rb") as handle:
            client.post("/audit/release", data={"csrf": token}, files={"release": (path.name, handle)})
        out["upload"] = time.monotonic() - started
        text = client.post("/audit/run", data={"csrf": token, **POLICY}).text
        out["run"] = time.monotonic() - started
        job = re.search(r'id="job-([0-9a-f]+)"', text).group(1)  # type: ignore[union-attr]
        while time.monotonic() < deadline and "job-done" not in text:
            time.sleep(0.25)
            text = client.get(f"/jobs/{job}").text
    out["seconds"] = time.monotonic() - started
    out["levels"] = re.findall(r'class="level"><code>([^<]+)</code>', text)
    out["done"] = 'data-status="done"' in text


def workbench(base: str, server: int, path: Path, sessions: int, timeout: float) -> dict[str, object]:
    """One round: ``sessions`` sessions upload ``path`` and audit it at once; the wall time, and the CPU time the
    server's processes (the server, its fork server and the jobs) spent meanwhile."""
    results: list[dict[str, object]] = [{} for _ in range(sessions)]
    deadline = time.monotonic() + timeout
    cpu, own, started = _cpu(server), _own_cpu(server), time.monotonic()
    threads = [threading.Thread(target=session, args=(base, path, deadline, out)) for out in results]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started
    time.sleep(0.5)  # the last job's process is waited for by the fork server, its CPU time then counted
    return {"wall": wall, "cpu": _cpu(server) - cpu, "server": _own_cpu(server) - own,
            "sessions": results}


def cli(path: Path, policy: Path, html: Path, environment: dict[str, str] | None = None) -> dict[str, float]:
    """``privcert audit RELEASE --policy POLICY --html VIEW`` (what the workbench's audit does): wall and CPU time."""
    html.unlink(missing_ok=True)
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "privcert", "audit", str(path), "--policy", str(policy),
                                "--quiet", "--html", str(html)], stdout=subprocess.DEVNULL, env=environment)
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    return {"wall": time.monotonic() - started, "cpu": usage.ru_utime + usage.ru_stime}


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=float, default=1e5)
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--cli", action="store_true", help="also time privcert audit on the same file, interleaved")
    parser.add_argument("--warm-up", type=float, default=5.0,
                        help="seconds between the server's first answer and the first upload")
    parser.add_argument("--cold-cache", action="store_true",
                        help="the server and each CLI run start with an empty cache of the claims' statuses (as the "
                             "first run after an upgrade): each checks the theory's claims")
    parser.add_argument("--format", choices=("parquet", "csv"), default="parquet", help="the release's file format")
    parser.add_argument("--rounds", type=int, default=1, help="rounds (with --cli: each the workbench, then the CLI)")
    arguments = parser.parse_args()
    rows = int(arguments.rows)
    with tempfile.TemporaryDirectory(prefix="privcert-app-load-") as folder:
        path = release(rows, Path(folder), arguments.format)
        policy = Path(folder) / "policy.toml"
        from privcert.app.policy_form import policy_from_form, policy_toml

        policy.write_text(policy_toml(policy_from_form(POLICY, ["age", "zip", "diagnosis", "stay_days"])))
        from privcert.api import audit

        expected = [m["exact"] for m in audit(path, policy).to_json()["measurements"] if m.get("requirement")]
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        def environment(name: str) -> dict[str, str] | None:
            """With ``--cold-cache``, an empty cache of the theory's claim statuses of its own."""
            if not arguments.cold_cache:
                return None
            cache = Path(folder) / name
            cache.mkdir()
            return {**os.environ, "PRIVCERT_CACHE_DIR": str(cache)}

        server = subprocess.Popen([sys.executable, "-m", "privcert", "serve", "--port", str(port),
                                   "--max-upload", "2000"], stdout=subprocess.DEVNULL, env=environment("server"))
        rounds: list[tuple[dict[str, object], dict[str, float] | None]] = []
        try:
            for _ in range(300):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    break
                except OSError:
                    time.sleep(0.2)
            time.sleep(arguments.warm_up)
            peak, stop = [0], threading.Event()

            def watch() -> None:
                while not stop.is_set():
                    peak[0] = max(peak[0], _memory(server.pid))
                    time.sleep(0.2)

            idle = _memory(server.pid)
            watcher = threading.Thread(target=watch)
            watcher.start()
            for _ in range(arguments.rounds):
                app = workbench(f"http://127.0.0.1:{port}", server.pid, path, arguments.sessions, arguments.timeout)
                rounds.append((app, cli(path, policy, Path(folder) / "report.html", environment(f"cli-{len(rounds)}"))
                               if arguments.cli else None))
            stop.set()
            watcher.join()
        finally:
            server.terminate()
            server.wait(30)
        correct = True
        for number, (app, alone) in enumerate(rounds, 1):
            results: list[dict[str, object]] = app["sessions"]  # type: ignore[assignment]
            correct &= all(r.get("done") and r.get("levels") == expected for r in results)
            print(f"round {number}: {arguments.sessions} session(s) x {rows:,} rows: wall {app['wall']:.1f} s, "
                  f"CPU {app['cpu']:.1f} s (server and jobs; the server's own {app['server']:.1f} s); per session "
                  + ", ".join(f"{r.get('seconds', 0):.1f} s (uploaded {r.get('upload', 0):.1f}, "
                              f"started {r.get('run', 0):.1f})" for r in results))
            if alone is not None:
                print(f"round {number}: privcert audit --html (CLI) on the same file: wall {alone['wall']:.1f} s, "
                      f"CPU {alone['cpu']:.1f} s; workbench/CLI: wall {app['wall'] / alone['wall']:.2f}x "  # type: ignore[operator]
                      f"CPU {app['cpu'] / alone['cpu']:.2f}x")  # type: ignore[operator]
        if arguments.cli and rounds:
            for measure in ("wall", "cpu"):
                app_values = [float(app[measure]) for app, _ in rounds]  # type: ignore[arg-type]
                cli_values = [alone[measure] for _, alone in rounds if alone is not None]
                ratios = [a / c for a, c in zip(app_values, cli_values, strict=True)]
                print(f"{measure}: workbench best {min(app_values):.1f} s, median {_median(app_values):.1f} s; "
                      f"CLI best {min(cli_values):.1f} s, median {_median(cli_values):.1f} s; workbench/CLI: "
                      f"best/best {min(app_values) / min(cli_values):.2f}x, median of the rounds' ratios "
                      f"{_median(ratios):.2f}x")
        print(f"levels {expected} in every session: {correct}")
        print(f"server memory: {idle / 2**20:.0f} MB idle, peak {peak[0] / 2**20:.0f} MB (server and job processes)")
        if not correct:
            sys.exit(1)


if __name__ == "__main__":
    main()
