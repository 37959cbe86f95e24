"""``privcert demo``: audit, sign, render and verify the bundled examples end to end.

Thin: for each bundled release (the hospital-style release of ``examples/hospital`` and
Table 5 of the t-closeness slides), audits it against its policy, signs a certificate
with a fresh key, writes it as JSON, HTML and PDF, verifies it (signature, release
digest, every measurement re-measured from the release and from the embedded count
tables), and prints the paths and the verdict.
"""

from __future__ import annotations

import time
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from privcert.certificate_cli import write_certificate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["EXAMPLES", "demo_command"]

EXAMPLES = (
    ("hospital", "hospital", "a hospital-style release: 300 admissions microaggregated (k = 5, t = 1/5 on the length "
                             "of stay; Soria-Comas et al. 2015; how: privcert docs constructions)"),
    ("table5", "", "Table 5 of the t-closeness slides (Li, Li & Venkatasubramanian 2007), a salary/disease release"),
)
"""(name, folder in privcert/data, description) of each bundled release."""


def _verified(certificate: Path, public_key: Path, release: Path) -> str:
    """Verify a certificate as ``privcert verify`` does, with and without the release; one line saying what held."""
    from privcert.api import verify
    from privcert.reporting import said

    found = (verify(certificate, public_key, data=release), verify(certificate, public_key))
    invalid = [said(line.text()) for check in found for line in check.lines if line.outcome == "fails"]
    if invalid or not all(check.complete for check in found):
        return "INVALID: " + "; ".join(invalid or [said(check.summary()) for check in found])
    return (f"valid: signature, release digest, {len(found[0].statement.predicate['measurements'])} "  # type: ignore[union-attr]
            "measurements and every derived section re-checked from the release and from the embedded count tables")


def _one(console: Console, out: Path, key: Path, name: str, folder: str, description: str) -> tuple[bool, list[Path]]:
    from privcert.api import audit
    from privcert.output import print_audit
    from privcert.reporting import reporting_errors, stage

    data = resources.files("privcert.data")
    with reporting_errors(), resources.as_file(data / folder / "policy.toml" if folder else data / "policy.toml") as policy:
        with stage(f"auditing {name}"):
            result = audit(None, policy, progress=False)
        release = Path(result.report.source)
        console.file.write(f"\n== {name}: {description}\n")
        print_audit(console, result)
        paths = {"certificate": out / f"{name}.cert.json", "html": out / f"{name}.html", "pdf": out / f"{name}.pdf"}
        write_certificate(result, release, policy, key, paths["certificate"], html=paths["html"], pdf=paths["pdf"])
        with stage("verifying the certificate"):
            verdict = _verified(paths["certificate"], Path(f"{key}.pub"), release)
    console.file.write(f"  {'verified:':10} {verdict}\n"
                       f"  {'verdict:':10} {'PASS' if result.passed else 'FAIL'}\n")
    return result.passed and verdict.startswith("valid"), list(paths.values())


def _fresh_key(out: Path) -> Path:
    """A new key pair in ``out`` under the first free name (``demo.key``, ``demo-2.key``, ...): an existing key is
    never touched."""
    from privcert.files import existing, write_new
    from reports.signing import new_key_pair

    number = 1
    while existing([key := out / ("demo.key" if number == 1 else f"demo-{number}.key"), Path(f"{key}.pub")]):
        number += 1
    private_pem, public_text = new_key_pair()
    write_new(key, private_pem, option="--out", mode=0o600)
    write_new(Path(f"{key}.pub"), public_text.encode("utf-8"), option="--out")
    return key


def demo_command(
    out: Annotated[Path, typer.Option("--out", metavar="DIR", help="Where to write the certificates and views.")] = Path("privcert-demo"),
) -> None:
    """Audit, sign, render (JSON, HTML, PDF) and verify the bundled example releases."""
    from privcert.reporting import make_console, reporting_errors, wrote

    start = time.perf_counter()
    console = make_console()
    with reporting_errors():
        out.mkdir(parents=True, exist_ok=True)
        key = _fresh_key(out)
    console.file.write(f"privcert demo: a fresh Ed25519 key pair {key} (private, 0600) and {key}.pub (public)\n")
    done = [_one(console, out, key, name, folder, description) for name, folder, description in EXAMPLES]
    console.file.write(f"\ncheck one yourself: privcert verify {out / 'hospital.cert.json'} --public-key {key}.pub\n"
                       f"done in {time.perf_counter() - start:.1f} s ({time.process_time():.1f} s of CPU)\n")
    console.file.flush()
    wrote(key, f"{key}.pub", *(path for _, paths in done for path in paths))
    if not all(passed for passed, _ in done):
        raise typer.Exit(1)
