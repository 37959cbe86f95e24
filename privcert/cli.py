"""The ``privcert`` command line: parses arguments, calls the packages, prints, exits.

No privacy logic lives here (ARCHITECTURE.md, "The CLI is thin"). Exit codes:
``0`` success (for ``audit``: every requirement holds), ``1`` a requirement fails,
``2`` bad input (the message goes to stderr, without a traceback).
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, TypeVar, cast

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from privcert.anonymize_cli import app as anonymize_app
from privcert.certificate_cli import CertificateOption, SignOption, keygen_command, verify_command, write_certificate
from privcert.randomized_cli import KOption, MechanismOption, ModeOption, randomized_section
from privcert.theory_cli import app as theory_app
from verifier.audit import AuditResult, audit
from verifier.counts import AttributeSpec, Missing
from verifier.errors import ExcludedRowsWarning, PolicyError, VerifierError
from verifier.hierarchy import load_hierarchy
from verifier.load import load_table
from verifier.measure import Report, attribute_label, measure
from verifier.policy import Policy, joint_spec, load_policy
from verifier.results import Measurement

app = typer.Typer(
    name="privcert",
    help="Measure, reason about and certify the privacy of released tables.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(theory_app, name="theory")
app.add_typer(anonymize_app, name="anonymize")
app.command("keygen")(keygen_command)
app.command("verify")(verify_command)

BAD_INPUT = 2
FAILED = 1
T = TypeVar("T")


def main() -> None:
    """Console-script entry point."""
    app()


@contextmanager
def _reporting_errors() -> Iterator[None]:
    """Turn bad input into a one-line message on stderr and exit code 2; show warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ExcludedRowsWarning)
        try:
            yield
        except (VerifierError, FileNotFoundError) as error:
            Console(stderr=True).print(f"[bold red]error:[/] {escape(str(error))}", highlight=False, soft_wrap=True)
            raise typer.Exit(BAD_INPUT) from error
        finally:
            for warning in caught:
                Console(stderr=True).print(f"[yellow]warning:[/] {escape(str(warning.message))}", highlight=False,
                                           soft_wrap=True)


def _split(text: str, option: str, separator: str = ",") -> tuple[str, ...]:
    items = tuple(item.strip() for item in text.split(separator))
    if not all(items):
        raise PolicyError(f"{option}: expected names separated by {separator!r}, found {text!r}")
    return items


def _assignments(values: list[str], option: str, names: tuple[str, ...], parse: Callable[[str, str], T]) -> dict[str, T]:
    """Parse repeated ``NAME=VALUE`` options whose NAME must be a sensitive attribute."""
    out: dict[str, T] = {}
    for value in values:
        name, equals, rest = value.partition("=")
        name = name.strip()
        if not equals or not rest.strip():
            raise PolicyError(f"{option}: expected NAME=VALUE, found {value!r}")
        if name not in names:
            raise PolicyError(f"{option} {value!r}: expected one of the --sensitive attributes {list(names)}, found {name!r}")
        out[name] = parse(rest.strip(), f"{option} {name}")
    return out


def _missing(text: str, option: str) -> Missing:
    if text not in ("error", "value", "exclude"):
        raise PolicyError(f"{option}: expected error, value or exclude, found {text!r}")
    return cast(Missing, text)


def _specs(
    sensitive: str, numerical: list[str], ordinal: list[str], missing: list[str], joint: list[str]
) -> tuple[AttributeSpec, ...]:
    names = _split(sensitive, "--sensitive")
    orders = _assignments(ordinal, "--ordinal", names, lambda text, option: _split(text, option))
    absent = _assignments(missing, "--missing", names, _missing)
    numeric = {n for item in numerical for n in _split(item, "--numerical")}
    for name in numeric:
        if name not in names:
            raise PolicyError(f"--numerical: expected one of the --sensitive attributes {list(names)}, found {name!r}")
        if name in orders:
            raise PolicyError(f"--numerical {name}: expected numerical or ordinal, found both")
    specs = [
        AttributeSpec(
            (name,),
            kind="numerical" if name in numeric else "ordinal" if name in orders else "categorical",
            missing=absent.get(name, "error"),
            order=orders.get(name),
        )
        for name in names
    ]
    by_name = {spec.columns[0]: spec for spec in specs}
    for item in joint:
        columns = _split(item, "--joint", "+")
        if len(columns) < 2 or any(c not in by_name for c in columns):
            raise PolicyError(f"--joint: expected S+T with two or more --sensitive attributes {list(names)}, found {item!r}")
        specs.append(joint_spec([by_name[c] for c in columns]))
    return tuple(specs)


def _level(measurement: Measurement) -> str:
    """The exact level, followed by its decimal value when the exact form is not plain."""
    exact, number = measurement.level.exact, measurement.level.number
    plain = number is None or exact.lstrip("-").isdigit()
    return exact if plain else f"{exact} ≈ {number:.4g}"


def _model(measurement: Measurement) -> str:
    """The model id, with the distance or the l it was measured with."""
    detail = measurement.distance or (f"l={measurement.parameters['l']}" if "l" in measurement.parameters else None)
    return measurement.model + (f" ({detail})" if detail else "")


def _witness(measurement: Measurement) -> str:
    """A one-line summary of the witness: the class's QI values, its size, the value."""
    witness = measurement.witness
    if witness is None:
        return measurement.level.reason or ""
    parts = []
    if witness.qi:
        parts.append("/".join(str(v) for v in witness.qi.values()))
    if witness.size is not None:
        parts.append(f"|E|={witness.size}")
    if witness.value is not None:
        parts.append(f"value={witness.value}")
    return " ".join(parts)


def _table(title: str, columns: tuple[str, ...]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, no_wrap=column != "witness", overflow="fold")
    return table


def _measurement_table(report: Report, title: str) -> Table:
    table = _table(title, ("model", "attribute", "level", "witness"))
    for m in report.measurements:
        table.add_row(*map(escape, (_model(m), attribute_label(m.attribute), _level(m), _witness(m))))
    return table


_SIGN = {"at_least": "≥", "at_most": "≤", "below": "<"}


def _audit_table(result: AuditResult, title: str) -> Table:
    table = _table(title, ("#", "model", "attribute", "level", "required", "result"))
    for check in result.checks:
        m = check.measurement
        verdict = "[green]pass[/]" if check.passed else "[bold red]FAIL[/]"
        required = f"{_SIGN[m.comparison]} {check.requirement.threshold}"
        number = check.requirement.key.removeprefix("require[").removesuffix("]")
        cells = (number, _model(m), attribute_label(m.attribute), _level(m), required)
        table.add_row(*map(escape, cells), verdict)
    return table


def _summary(report: Report) -> str:
    excluded = ", ".join(f"{name}: {rows}" for name, rows in report.excluded.items() if rows)
    return (f"{report.source}: {report.rows} rows, {report.classes} classes over {', '.join(report.qi)}"
            + (f"; rows excluded ({excluded})" if excluded else ""))


def _write_json(document: dict[str, Any], target: str | None) -> bool:
    """Write JSON to ``target`` (``-`` = stdout); return whether stdout was used."""
    if target is None:
        return False
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
    if target == "-":
        sys.stdout.write(text + "\n")
        return True
    try:
        Path(target).write_text(text + "\n", encoding="utf-8")
    except OSError as error:
        raise PolicyError(f"--json {target}: cannot write the file: {error}") from error
    return False


JsonOption = Annotated[str | None, typer.Option("--json", help="Write the results as JSON to this file ('-' = stdout only).")]


ListOption = list[str] | None


@app.command("measure")
def measure_command(
    data: Annotated[Path, typer.Argument(help="The release: .csv, .csv.gz, .parquet or .pq.")],
    qi: Annotated[str, typer.Option("--qi", help="Quasi-identifier columns, comma-separated.")],
    sensitive: Annotated[str, typer.Option("--sensitive", help="Sensitive columns, comma-separated.")],
    numerical: Annotated[ListOption, typer.Option("--numerical", help="Sensitive columns that are numerical.")] = None,
    ordinal: Annotated[ListOption, typer.Option("--ordinal", help="S=low,mid,high: an ordinal column, its order.")] = None,
    hierarchy: Annotated[ListOption, typer.Option("--hierarchy", help="S=FILE: a hierarchy CSV (leaf to root).")] = None,
    joint: Annotated[ListOption, typer.Option("--joint", help="S+T: also measure these columns jointly.")] = None,
    missing: Annotated[ListOption, typer.Option("--missing", help="S=error|value|exclude for missing values.")] = None,
    l: Annotated[list[int] | None, typer.Option("--l", help="l of recursive (c,l)-diversity (default 2).")] = None,
    json_out: JsonOption = None,
    mechanism: MechanismOption = None,
    k: KOption = None,
    mode: ModeOption = None,
) -> None:
    """Measure every privacy model on a release and print the optimal levels."""
    with _reporting_errors():
        specs = _specs(sensitive, numerical or [], ordinal or [], missing or [], joint or [])
        names = tuple(spec.columns[0] for spec in specs if len(spec.columns) == 1)
        hierarchies = _assignments(hierarchy or [], "--hierarchy", names, lambda text, _: load_hierarchy(text))
        frame = load_table(data)
        report = measure(frame, _split(qi, "--qi"), specs, hierarchies=hierarchies, l=l or [2], source=str(data))
        randomized = randomized_section(report, mechanism=mechanism, ks=k, mode=mode, attribute=names[0])
        document = report.to_json() | ({"randomized": randomized.to_json()} if randomized else {})
        if not _write_json(document, json_out):
            console = Console()
            console.print(_summary(report), highlight=False, markup=False)
            console.print(_measurement_table(report, "optimal levels"))
            if randomized:
                randomized.print(console)


def _audit(data: Path | None, policy: Policy) -> AuditResult:
    path = data if data is not None else policy.data
    if path is None:
        raise PolicyError(f"{policy.source}: no release given: pass DATA or set data.path in the policy")
    return audit(load_table(path), policy, source=str(path))


def _print_audit(result: AuditResult, console: Console) -> None:
    console.print(_audit_table(result, f"audit against {escape(result.policy.source)}"))
    failed = sum(not check.passed for check in result.checks)
    console.print(
        f"[bold red]FAIL[/]: {failed} of {len(result.checks)} requirement(s) do not hold" if failed
        else f"[green]PASS[/]: all {len(result.checks)} requirement(s) hold"
    )


@app.command("audit")
def audit_command(
    policy: Annotated[Path, typer.Option("--policy", help="The policy file (TOML).")],
    data: Annotated[Path | None, typer.Argument(help="The release (default: data.path of the policy).")] = None,
    json_out: JsonOption = None,
    mechanism: MechanismOption = None,
    k: KOption = None,
    mode: ModeOption = None,
    sign: SignOption = None,
    certificate: CertificateOption = None,
) -> None:
    """Audit a release against a policy: exit 0 if every requirement holds, 1 if one fails, 2 on bad input."""
    with _reporting_errors():
        parsed = load_policy(policy)
        result = _audit(data, parsed)
        randomized = randomized_section(result.report, policy=parsed, mechanism=mechanism, ks=k, mode=mode,
                                        attribute=parsed.sensitive[0].name)
        document = result.to_json() | ({"randomized": randomized.to_json()} if randomized else {})
        write_certificate(result, Path(result.report.source), policy, sign, certificate)
        if not _write_json(document, json_out):
            console = Console()
            console.print(_summary(result.report), highlight=False, markup=False)
            _print_audit(result, console)
            if randomized:
                randomized.print(console)
    if not result.passed:
        raise typer.Exit(FAILED)


@app.command("demo")
def demo_command() -> None:
    """Measure and audit the bundled example: Table 5 of the t-closeness slides (Li et al. 2007)."""
    console = Console()
    with _reporting_errors(), resources.as_file(resources.files("privcert.data") / "policy.toml") as policy:
        result = _audit(None, load_policy(policy))
    console.print(
        "[bold]privcert demo[/]: Table 5 of the t-closeness slides (Li et al. 2007; Li, Li & Venkatasubramanian, "
        "ICDE 2007), a salary/disease release, audited against privcert/data/policy.toml.\n"
    )
    console.print(_summary(result.report), highlight=False, markup=False)
    console.print(_measurement_table(result.report, "optimal levels"))
    console.print()
    _print_audit(result, console)
    if not result.passed:
        raise typer.Exit(FAILED)
