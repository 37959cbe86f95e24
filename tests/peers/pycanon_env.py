"""Build or locate pyCANON's own virtual environment and run it in a subprocess.

pyCANON (PyPI ``pycanon``) pins exact versions of numpy, pandas, scipy and others
(1.3.6 pins ``numpy==2.0.2``, ``pandas==2.3.3``), so it must never be installed in the
project's environment. It lives in a virtual environment of its own, by default
``<repository>/.pycanon-venv`` (git-ignored) or the directory named by
``$PRIVCERT_PYCANON_VENV``, built once with ``python -m venv`` and
``pip install pycanon==PYCANON_VERSION``, and is called through
``tests/peers/pycanon_runner.py``, which that environment's interpreter executes.

A marker file inside the environment records the version that was installed
successfully, so a half-built environment is rebuilt rather than trusted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["PYCANON_VERSION", "FUNCTIONS", "PycanonEnv", "PeerTimeoutError", "default_venv", "pycanon_env"]

PYCANON_VERSION = "1.3.6"
"""The pyCANON release compared against (the newest on PyPI; installs on Python 3.11)."""

FUNCTIONS = (
    "k_anonymity",
    "alpha_k_anonymity",
    "l_diversity",
    "entropy_l_diversity",
    "recursive_c_l_diversity",
    "t_closeness",
    "basic_beta_likeness",
    "enhanced_beta_likeness",
    "delta_disclosure",
)
"""pyCANON's measures (``pycanon.anonymity``); all but ``k_anonymity`` take a sensitive attribute."""

RUNNER = Path(__file__).with_name("pycanon_runner.py")
_MARKER = "privcert-pycanon-ok"
_BUILD_SECONDS = 900


class PeerTimeoutError(TimeoutError):
    """A peer's call ran longer than the time it was given."""


def default_venv() -> Path:
    """``$PRIVCERT_PYCANON_VENV``, else ``.pycanon-venv`` at the repository root."""
    override = os.environ.get("PRIVCERT_PYCANON_VENV")
    return Path(override) if override else Path(__file__).resolve().parents[2] / ".pycanon-venv"


@dataclass(frozen=True)
class PycanonEnv:
    """pyCANON's environment, or why there is none.

    Attributes
    ----------
    python
        The environment's interpreter, ``None`` when it could not be built.
    reason
        Why the environment is unavailable (``None`` when it is available).
    """

    python: Path | None
    reason: str | None = None

    @property
    def available(self) -> bool:
        return self.python is not None

    def run(self, spec: Mapping[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """Run ``pycanon_runner.py`` on ``spec`` and return its JSON answer.

        Raises
        ------
        PeerTimeoutError
            The runner did not finish within ``timeout`` seconds (it is killed).
        RuntimeError
            The environment is unavailable or the runner failed (its stderr is quoted).
        """
        if self.python is None:
            raise RuntimeError(f"pyCANON is unavailable: {self.reason}")
        try:
            done = subprocess.run(
                [str(self.python), str(RUNNER)],
                input=json.dumps(dict(spec)),
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as error:
            raise PeerTimeoutError(f"pyCANON did not finish within {timeout} s on {spec.get('calls')}") from error
        if done.returncode != 0:
            raise RuntimeError(f"{RUNNER.name} exited with {done.returncode}; stderr:\n{done.stderr[-4000:]}")
        answer: dict[str, Any] = json.loads(done.stdout)
        return answer


def _installed(python: Path) -> bool:
    marker = python.parents[1] / _MARKER
    return python.exists() and marker.exists() and marker.read_text().strip() == PYCANON_VERSION


def pycanon_env(venv: Path | None = None) -> PycanonEnv:
    """Locate pyCANON's environment, building it when it is missing or incomplete.

    Parameters
    ----------
    venv
        Where the environment lives (default :func:`default_venv`).

    Returns
    -------
    PycanonEnv
        With ``python`` set, or with ``python = None`` and the reason the build failed
        (no ``venv`` module, no network, an install error quoted from pip).
    """
    venv = default_venv() if venv is None else venv
    python = venv / "bin" / "python"
    if _installed(python):
        return PycanonEnv(python)
    steps = (
        [sys.executable, "-m", "venv", "--clear", str(venv)],
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"pycanon=={PYCANON_VERSION}"],
    )
    for step in steps:
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=_BUILD_SECONDS, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            return PycanonEnv(None, f"`{' '.join(step)}` failed: {error}")
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            return PycanonEnv(None, f"`{' '.join(step)}` exited with {done.returncode}: {' | '.join(tail)}")
    (venv / _MARKER).write_text(PYCANON_VERSION + "\n")
    return PycanonEnv(python)
