"""Load and speed of the workbench (``privcert serve``): sessions auditing at once, and one audit against the CLI.

Starts ``privcert serve`` on a free loopback port, writes a synthetic release (``--rows``,
Parquet), and has ``--sessions`` browser sessions (httpx clients, each with its own cookie)
upload it and audit it at the same time, polling their jobs as the page does. Bounded: at
most ``--timeout`` seconds and one poll per 0.25 s per session. Checks every session's
levels against :func:`privcert.api.audit` run here, and reports the wall time, each
session's time, the server's peak memory (its process and its jobs' processes, from
``/proc``) and, with ``--cli``, ``privcert audit`` on the same file for comparison.

Run from the repository root::

    .venv/bin/python benchmarks/app_load.py --rows 1e5 --sessions 5
    .venv/bin/python benchmarks/app_load.py --rows 1e6 --sessions 1 --cli
"""

from __future__ import annotations

import argparse
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


def release(rows: int, folder: Path) -> Path:
    import numpy as np
    import pandas as pd

    generator = np.random.default_rng(2026)
    frame = pd.DataFrame({"age": generator.integers(18, 90, rows) // 5 * 5, "zip": generator.integers(0, 40, rows),
                          "diagnosis": generator.choice([f"d{i}" for i in range(12)], rows),
                          "stay_days": generator.integers(0, 30, rows)})
    path = folder / f"release-{rows}.parquet"
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


def session(base: str, path: Path, deadline: float, out: dict[str, object]) -> None:
    import httpx

    started = time.monotonic()
    with httpx.Client(base_url=base, timeout=120) as client:
        token = re.search(r'name="csrf" value="([^"]+)"', client.get("/audit").text).group(1)  # type: ignore[union-attr]
        with path.open("rb") as handle:
            client.post("/audit/release", data={"csrf": token}, files={"release": (path.name, handle)})
        text = client.post("/audit/run", data={"csrf": token, **POLICY}).text
        job = re.search(r'id="job-([0-9a-f]+)"', text).group(1)  # type: ignore[union-attr]
        while time.monotonic() < deadline and "job-done" not in text:
            time.sleep(0.25)
            text = client.get(f"/jobs/{job}").text
    out["seconds"] = time.monotonic() - started
    out["levels"] = re.findall(r'class="level"><code>([^<]+)</code>', text)
    out["done"] = 'data-status="done"' in text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=float, default=1e5)
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--cli", action="store_true", help="also time privcert audit on the same file")
    arguments = parser.parse_args()
    rows = int(arguments.rows)
    with tempfile.TemporaryDirectory(prefix="privcert-app-load-") as folder:
        path = release(rows, Path(folder))
        policy = Path(folder) / "policy.toml"
        from privcert.app.policy_form import policy_from_form, policy_toml

        policy.write_text(policy_toml(policy_from_form(POLICY, ["age", "zip", "diagnosis", "stay_days"])))
        from privcert.api import audit

        expected = [m["exact"] for m in audit(path, policy).to_json()["measurements"] if m.get("requirement")]
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = subprocess.Popen([sys.executable, "-m", "privcert", "serve", "--port", str(port),
                                   "--max-upload", "2000"], stdout=subprocess.DEVNULL)
        try:
            for _ in range(300):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    break
                except OSError:
                    time.sleep(0.2)
            time.sleep(5)  # the map and the fork server warm up
            peak, stop = [0], threading.Event()

            def watch() -> None:
                while not stop.is_set():
                    peak[0] = max(peak[0], _memory(server.pid))
                    time.sleep(0.2)

            idle = _memory(server.pid)
            watcher = threading.Thread(target=watch)
            watcher.start()
            results: list[dict[str, object]] = [{} for _ in range(arguments.sessions)]
            deadline = time.monotonic() + arguments.timeout
            started = time.monotonic()
            threads = [threading.Thread(target=session, args=(f"http://127.0.0.1:{port}", path, deadline, out))
                       for out in results]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wall = time.monotonic() - started
            stop.set()
            watcher.join()
        finally:
            server.terminate()
            server.wait(30)
        correct = all(r.get("done") and r.get("levels") == expected for r in results)
        print(f"{arguments.sessions} session(s) x {rows:,} rows: wall {wall:.1f} s; per session "
              + ", ".join(f"{r.get('seconds', 0):.1f}" for r in results) + " s")
        print(f"levels {expected} in every session: {correct}")
        print(f"server memory: {idle / 2**20:.0f} MB idle, peak {peak[0] / 2**20:.0f} MB (server and job processes)")
        if arguments.cli:
            for extra in ([], ["--html", str(Path(folder) / "report.html")]):
                started = time.monotonic()
                subprocess.run([sys.executable, "-m", "privcert", "audit", str(path), "--policy", str(policy),
                                "--quiet", *extra], stdout=subprocess.DEVNULL, check=False)
                print(f"privcert audit {' '.join(extra[:1])} (CLI) on the same file: {time.monotonic() - started:.1f} s"
                      " (the app's audit also writes the HTML report)")
        if not correct:
            sys.exit(1)


if __name__ == "__main__":
    main()
