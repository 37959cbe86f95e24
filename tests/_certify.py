"""Shared by the view tests: certify a release through the command line, with its HTML and PDF views."""

from __future__ import annotations

import base64
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from privcert.cli import app

runner = CliRunner()
TABLE4 = Path(__file__).resolve().parents[1] / "examples" / "table4"
GOLDEN = Path(__file__).resolve().parent / "golden"


@dataclass(frozen=True)
class Certified:
    certificate: Path
    public_key: Path
    html: Path
    pdf: Path
    exit_code: int

    @property
    def predicate(self) -> dict[str, Any]:
        return json.loads(base64.b64decode(json.loads(self.certificate.read_text())["payload"]))["predicate"]


def golden_predicate(version: str, name: str) -> dict[str, Any]:
    """The predicate of the golden certificate ``tests/golden/<version>/<name>``, as signed."""
    envelope = json.loads((GOLDEN / version / name / "cert.json").read_text(encoding="utf-8"))
    return json.loads(base64.b64decode(envelope["payload"]))["predicate"]


def certify(out: Path, release: Path, policy: Path, *extra: str) -> Certified:
    """``keygen``, then ``audit --sign --certificate --html --pdf`` into ``out``."""
    key = out / "key"
    assert runner.invoke(app, ["keygen", "--out", str(key)]).exit_code == 0
    paths = Certified(out / "cert.json", out / "key.pub", out / "cert.html", out / "cert.pdf", 0)
    done = runner.invoke(app, ["audit", str(release), "--policy", str(policy), "--sign", str(key),
                               "--certificate", str(paths.certificate), "--html", str(paths.html),
                               "--pdf", str(paths.pdf), *extra])
    assert done.exit_code in (0, 1) and not (done.exception and not isinstance(done.exception, SystemExit)), (
        done.output, done.exception)
    return Certified(paths.certificate, paths.public_key, paths.html, paths.pdf, done.exit_code)


def certify_table4(out: Path) -> Certified:
    """Table 4 of the t-closeness slides (Li et al. 2007) and its policy, certified in ``out``."""
    for name in ("release.csv", "policy.toml", "disease_hierarchy.csv"):
        shutil.copy(TABLE4 / name, out / name)
    return certify(out, out / "release.csv", out / "policy.toml")
