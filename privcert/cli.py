"""The ``privcert`` command line: parses arguments, calls the packages, prints, exits.

No privacy logic lives here (docs/design.md, "The library does what the command line does"). Exit codes, the same
for every command: ``0`` success (for ``audit``: every requirement holds), ``1`` a
requirement fails (or a certificate does not verify), ``2`` bad input (one message on
stderr naming the file, key or row), ``3`` an internal error (one line and where to
report it; the traceback only with ``--debug``), ``130`` interrupted (Ctrl-C).

Heavy packages (pandas, sympy, z3, matplotlib) are imported inside the commands that use
them, so that ``privcert --help`` and ``--version`` start at once.
"""

from __future__ import annotations

import errno
import gc
import os
import sys
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, cast

import typer

from privcert.anonymize_cli import app as anonymize_app
from privcert.certificate_cli import keygen_command, report_command, verify_command, write_certificate
from privcert.compare_cli import compare_command
from privcert.demo_cli import demo_command
from privcert.docs_cli import docs_command
from privcert.files import SCHEMA_VERSION, write_json
from privcert.memory import keep_arrow_memory, keep_small_pages, reuse_freed_memory
from privcert.options import (
    CertificateOption,
    EmbedCountsOption,
    EncodingOption,
    EngineOption,
    HtmlOption,
    JsonOption,
    KOption,
    MasterOption,
    MechanismOption,
    ModeOption,
    OriginalOption,
    PdfOption,
    QiHierarchyOption,
    QuietOption,
    RecordKeyOption,
    ShorthandCommand,
    SignOption,
    SuppressedOption,
    TargetOption,
    ViolationsOption,
    assignments,
    hierarchy_files,
    hierarchy_options,
    shorthand_parameters,
    split_names,
)
from privcert.plan_cli import plan_command
from privcert.reporting import (
    BAD_INPUT,
    FAILED,
    INTERNAL,
    INTERRUPTED,
    PIPE_CLOSED,
    interrupt_outside_finalizers,
    make_console,
    reporting_errors,
    wrote,
)
from privcert.serve_cli import serve_command
from privcert.theory_cli import app as theory_app
from privcert.utility_cli import utility_command
from verifier.errors import PolicyError

if TYPE_CHECKING:
    from concurrent.futures import Future

    from verifier.engines import Engine
    from verifier.inputs import Inputs
    from verifier.measure import MeasureResult
    from verifier.tables.counts import AttributeSpec, Missing
    from verifier.tables.hierarchy import Hierarchy


app = typer.Typer(
    name="privcert",
    help="Measure, reason about and certify the privacy of released tables.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)
app.add_typer(theory_app, name="theory")
app.add_typer(anonymize_app, name="anonymize")
app.command("keygen")(keygen_command)
app.command("verify")(verify_command)
app.command("report")(report_command)
app.command("demo")(demo_command)
app.command("utility")(utility_command)
app.command("compare")(compare_command)
app.command("docs")(docs_command)

SUMMARIES = {
    "keygen": "Write a new Ed25519 key pair for signing certificates.",
    "verify": "Re-check a certificate and its signature.",
    "report": "Render a certificate as HTML and/or PDF.",
    "demo": "Audit, sign, render and verify the bundled examples.",
    "utility": "Measure what a release cost against its original.",
    "compare": "Compare candidate releases of one original side by side.",
    "docs": "Print a documentation page (without TOPIC: the list).",
    "plan": "Choose a randomized-response mechanism for t and ε targets.",
    "serve": "Start the workbench, a web application on this machine.",
    "models": "List every model privcert measures.",
    "measure": "Measure every privacy model on a release.",
    "audit": "Audit a release against a policy (exit 1 if one fails).",
    "theory": "Reason about privacy definitions and their implications.",
    "anonymize": "Produce a release that meets a policy.",
    "theory claims": "Every claim with the status its check earned.",
    "theory implies": "Does definition A imply B, and at which level?",
    "theory refute": "Search (Z3) for a counterexample to a claim.",
    "theory witness": "A table meeting A at a level whose B level exceeds a bound.",
    "theory explain": "What an audit's measured levels imply about the others.",
    "theory map": "Draw the implication map (Ekenstedt et al. 2022).",
    "anonymize microaggregate": "k-anonymous t-closeness by microaggregation.",
    "anonymize bucketize": "k-anonymous multiplicative t-closeness by bucketization.",
    "anonymize rr": "Randomized response on a sensitive column.",
    "anonymize noise": "Additive Laplace or Gaussian noise, bucketed.",
}
"""The one-line summary of each command in ``--help`` (complete sentences that fit 80 columns; the
docstrings say more in each command's own ``--help``)."""


def _list_types_by_their_element() -> None:
    """Show an argument of several values by its element's type (``RELEASE <path>...``), not as Python's
    ``<list[Path]>``: Typer (0.29) offers no option for it, so its display is wrapped once here."""
    import re

    from typer.core import TyperArgument

    shown = TyperArgument.display_type
    if getattr(shown, "__wrapped__", None) is not None:
        return

    def display_type(self: TyperArgument, ctx: Any) -> str:
        return re.sub(r"^<list\[(\w+)\]>$", lambda m: f"<{m.group(1).lower()}>...", shown(self, ctx))

    display_type.__wrapped__ = shown  # type: ignore[attr-defined]
    TyperArgument.display_type = display_type  # type: ignore[method-assign,assignment]


def _summarize(typer_app: typer.Typer, prefix: str = "") -> None:
    """Give every command of ``typer_app`` (and of its groups) its summary from :data:`SUMMARIES`."""
    for command in typer_app.registered_commands:
        name = command.name or (command.callback.__name__.replace("_", "-") if command.callback else "")
        command.short_help = SUMMARIES.get(f"{prefix}{name}", command.short_help)
    for group in typer_app.registered_groups:
        group.short_help = SUMMARIES.get(f"{prefix}{group.name}", group.short_help)
        if group.typer_instance is not None:
            _summarize(group.typer_instance, f"{prefix}{group.name} ")

app.command("plan")(plan_command)
app.command("serve")(serve_command)

T = TypeVar("T")


def _version() -> str:
    from importlib.metadata import version

    return version("privcert")


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"privcert {_version()}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", metavar="VERSION", callback=_show_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
    debug: Annotated[bool, typer.Option("--debug", metavar="DEBUG", help="Show the traceback of an internal error.")] = False,
) -> None:
    """Measure, reason about and certify the privacy of released tables."""


def main() -> None:
    """Console-script entry point: runs the app and maps every outcome to an exit code."""
    from typer._click.exceptions import ClickException

    debug = "--debug" in sys.argv[1:]
    interrupt_outside_finalizers()
    reuse_freed_memory()
    keep_arrow_memory()
    keep_small_pages()
    try:
        code = app(standalone_mode=False)
    except typer.Exit as done:
        code = done.exit_code
    except SystemExit as ended:
        # click ends a run whose standard output was closed (EPIPE) with exit 1 after wrapping the streams
        closed = type(sys.stdout).__name__ == "PacifyFlushWrapper"
        code = PIPE_CLOSED if closed else ended.code if isinstance(ended.code, int) else 0 if ended.code is None else INTERNAL
        if closed:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except ClickException as error:
        error.show()
        code = error.exit_code
    except (KeyboardInterrupt, typer.Abort):
        sys.stderr.write("interrupted\n")
        code = INTERRUPTED
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = PIPE_CLOSED
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EIO, errno.EDQUOT):
            code = _internal(error, debug)
        else:
            sys.stderr.write(f"error: cannot write the output: {error.strerror}\n")
            code = BAD_INPUT
    except Exception as error:  # noqa: BLE001 - the one place every unexpected error becomes exit code 3
        code = _internal(error, debug)
    try:
        sys.stdout.flush()
    except OSError:
        code = code or BAD_INPUT
    # Every object still alive lives until the process ends; freezing them spares the
    # collector its passes over them while the interpreter shuts down (about 0.3-0.5 s
    # after pandas and sympy are loaded). The memory goes with the process.
    gc.freeze()
    if code in (INTERRUPTED, BAD_INPUT):
        # Interrupted, or stopped by a bad input (a malformed CSV), native worker threads (Arrow's CSV
        # reader, DuckDB) may still be running: tearing the interpreter down under them can abort
        # (exit 134). Every finally block has run by now and the output is flushed, so the process
        # ends without finalization.
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code or 0)


def _internal(error: BaseException, debug: bool) -> int:
    if debug:
        import traceback

        traceback.print_exception(error)
    sys.stderr.write(f"internal error: {type(error).__name__}: {error}\n"
                     "This is a defect in privcert: run the command again with --debug (privcert --debug ...) "
                     "and include the traceback it prints when you report it.\n")
    return INTERNAL




def _missing(text: str, option: str) -> Missing:
    if text not in ("error", "value", "exclude"):
        raise PolicyError(f"{option}: expected error, value or exclude, found {text!r}")
    return cast("Missing", text)


def _specs(
    sensitive: str, numerical: list[str], ordinal: list[str], missing: list[str], joint: list[str]
) -> tuple[AttributeSpec, ...]:
    from verifier.policy import joint_spec
    from verifier.tables.counts import AttributeSpec

    names = split_names(sensitive, "--sensitive")
    orders = assignments(ordinal, "--ordinal", names, lambda text, option: split_names(text, option))
    absent = assignments(missing, "--missing", names, _missing)
    numeric = {n for item in numerical for n in split_names(item, "--numerical")}
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
        columns = split_names(item, "--joint", "+")
        if len(columns) < 2 or any(c not in by_name for c in columns):
            raise PolicyError(f"--joint: expected S+T with two or more --sensitive attributes {list(names)}, found {item!r}")
        specs.append(joint_spec([by_name[c] for c in columns]))
    return tuple(specs)


def _run_metadata(data: Path, digest: Future[str], timings: dict[str, float], engine: str) -> dict[str, Any]:
    """Facts about this run, kept apart from the results so that two audits compare equal (``digest``: the
    input's SHA-256 from :func:`_digest_meanwhile`)."""
    from datetime import UTC, datetime

    return {
        "tool": "privcert",
        "version": _version(),
        "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "input": {"path": str(data), "sha256": digest.result()},
        "engine": engine,
        "timings": timings,
    }


def _digest_meanwhile(data: Path) -> Future[str]:
    """The SHA-256 of the input ``data`` for the ``run`` facts, computed on a thread of its own while the command works.

    hashlib lets go of the interpreter's lock while it hashes, so on a 10^7-row release the
    0.1 s it takes overlaps the imports and the count instead of following them. A
    failure is raised where the digest is asked for; the thread is a daemon, so a
    command that fails first does not wait for it.
    """
    import threading
    from concurrent.futures import Future

    from reports.statement import sha256_file

    found: Future[str] = Future()

    def run() -> None:
        try:
            found.set_result(sha256_file(data))
        except BaseException as error:  # noqa: BLE001 - handed over to whoever asks for the digest
            found.set_exception(error)

    threading.Thread(target=run, name="privcert-digest", daemon=True).start()
    return found


def _document(report: MeasureResult, data: Path, digest: Future[str],
              results: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON document of a run: the results (``report``'s, or an audit's) and the ``run`` facts."""
    run = _run_metadata(data, digest, dict(report.timings), report.engine)
    return {"schema_version": SCHEMA_VERSION, **(results or report.to_json()), "run": run}


def _engine(engine: str, master: str | None) -> Engine:
    from verifier.engines import get_engine

    return get_engine(engine, master=master)


ListOption = list[str] | None


@app.command("models")
def models_command(json_out: JsonOption = None) -> None:
    """List every model privcert measures: id, kind, what it is measured on, which levels are stronger, source."""
    from privcert.output import print_rows
    from verifier.registry import models

    found = models()
    document = {"models": [{"id": m.id, "name": m.name, "kind": m.kind, "scope": m.scope, "stronger": m.stronger,
                            "strict": m.strict, "threshold": m.threshold.describe(), "units": m.units,
                            "parameters": [p.name for p in m.parameters], "recheck": m.recheck,
                            "source": str(m.source)} for m in found]}
    with reporting_errors():
        written = write_json(document, json_out)
    if not written:
        rows = [(m.id, m.kind, "quasi-identifiers" if m.scope == "release" else "each attribute",
                 m.stronger + (", strict" if m.strict else ""), str(m.source)) for m in found]
        print_rows(make_console(), "models", ("model", "kind", "on", "stronger", "source"), rows, fold="source")
    wrote(json_out)


@app.command("measure", cls=ShorthandCommand)
def measure_command(
    data: Annotated[Path, typer.Argument(metavar="DATA", help="The release: .csv, .csv.gz, .parquet, .pq, or a directory of Parquet files.")],
    qi: Annotated[str, typer.Option("--qi", metavar="NAMES", help="Quasi-identifier columns, comma-separated.")],
    sensitive: Annotated[str | None, typer.Option("--sensitive", metavar="NAMES", help="Sensitive columns, comma-separated.")] = None,
    numerical: Annotated[ListOption, typer.Option("--numerical", metavar="NAMES", help="Sensitive columns that are numerical (comma-separated).")] = None,
    ordinal: Annotated[ListOption, typer.Option("--ordinal", metavar="S=ORDER", help="S=low,mid,high: an ordinal column, its order.")] = None,
    hierarchy: Annotated[ListOption, typer.Option("--hierarchy", metavar="S=FILE", help="S=FILE: a hierarchy CSV (leaf to root).")] = None,
    joint: Annotated[ListOption, typer.Option("--joint", metavar="S+T", help="S+T: also measure these columns jointly.")] = None,
    missing: Annotated[ListOption, typer.Option("--missing", metavar="S=HOW", help="S=error|value|exclude for missing values.")] = None,
    json_out: JsonOption = None,
    mechanism: MechanismOption = None,
    mode: ModeOption = None,
    risk: Annotated[bool, typer.Option("--risk", help="Also measure the re-identification risk models (privcert docs risk).")] = False,
    sampling_fraction: Annotated[str | None, typer.Option("--sampling-fraction", metavar="F", help="The share of the population in the release, e.g. 1/10 (population models).")] = None,
    population: Annotated[int | None, typer.Option("--population", metavar="N", min=1, help="The population size (instead of --sampling-fraction).")] = None,
    population_table: Annotated[Path | None, typer.Option("--population-table", metavar="FILE", help="CSV of the quasi-identifiers with a count column: k-map, δ-presence, journalist and marketer risk against it.")] = None,
    weights: Annotated[str | None, typer.Option("--weights", metavar="COLUMN", help="The release's column of sampling weights (individual risk).")] = None,
    suda_max_size: Annotated[int | None, typer.Option("--suda-max-size", metavar="N", min=1, help="SUDA's largest minimal sample unique (default: the sizes whose search visits at most 65,535 subsets of the quasi-identifiers; a partial search is marked).")] = None,
    param: Annotated[ListOption, typer.Option("--param", metavar="MODEL.NAME=VALUE", help="Also measure MODEL at a parameter it declares (privcert models lists them), e.g. recursive_cl_diversity.l=3; repeat a name for several values. Shorthands below.")] = None,
    shorthand: Annotated[ListOption, typer.Option("--shorthand", hidden=True, metavar="NAME=VALUES", help="A shorthand as typed (--NAME VALUES).")] = None,
    encoding: EncodingOption = "utf-8",
    engine: EngineOption = "pandas",
    master: MasterOption = None,
    quiet: QuietOption = False,
) -> None:
    """Measure every privacy model on a release and print the optimal levels."""
    from privcert.api import measure
    from privcert.files import check_outputs
    from privcert.output import print_report
    from privcert.randomized_cli import mechanism_choice, print_randomized
    from verifier.risk.histogram import SamplingFrameError

    with reporting_errors():
        check_outputs({"--json": (json_out, "json")}, {"release": data, "mechanism": mechanism,
                                                       "population table": population_table,
                                                       **hierarchy_files(hierarchy)})
        specs = _specs(sensitive, numerical or [], ordinal or [], missing or [], joint or []) if sensitive else ()
        names = tuple(spec.columns[0] for spec in specs if len(spec.columns) == 1)
        if not names and (not risk or mechanism is not None):
            raise PolicyError("--sensitive: expected sensitive columns (or --risk to measure the risk models alone)")
        hierarchies = hierarchy_options(hierarchy, names)
        columns = split_names(qi, "--qi")
        parameters = _parameters([*shorthand_parameters(shorthand or []), *(param or [])])
        inputs = _risk_inputs(risk, sampling_fraction, population, population_table, weights, columns, encoding,
                              _suda_bound(risk, suda_max_size, parameters, columns))
        digest = _digest_meanwhile(data)
        try:
            report = measure(data, columns, specs, hierarchies=hierarchies,
                             mechanism=mechanism_choice(mechanism, None, mode, names[0]) if names else None,
                             kinds=("risk",) if risk else (), inputs=inputs, parameters=parameters,
                             engine=_engine(engine, master),
                             encoding=encoding, progress=False if quiet else None)
        except SamplingFrameError as error:  # named by its option
            raise PolicyError(f"--{error.key.replace('_', '-')}: {error}") from None
        document = _document(report, data, digest)
        if inputs:
            document["run"]["inputs"] = inputs.describe()
        if not write_json(document, json_out):
            console = make_console()
            print_report(console, report)
            if report.randomized:
                print_randomized(console, report.randomized)
    wrote(json_out)


def _parameters(texts: list[str]) -> dict[str, tuple[dict[str, Any], ...]]:
    """``--param MODEL.NAME=VALUE`` options, checked against the models' declared parameters."""
    from verifier.registry import RequirementError, requested_parameters

    try:
        return requested_parameters(texts)
    except RequirementError as error:
        raise PolicyError(str(error)) from None


def _utility_inputs(original: Path | None, key: str | None, hierarchy: list[str] | None, mark: str,
                    qi: tuple[str, ...], target: str | None = None) -> dict[str, Hierarchy]:
    """The quasi-identifiers' hierarchies of ``audit --original`` (``--key``, ``--hierarchy``, ``--suppressed``,
    ``--target`` need it)."""

    given = {"--key": key, "--hierarchy": hierarchy, "--suppressed": None if mark == "*" else mark,
             "--target": target}
    named = [option for option, value in given.items() if value]
    if named and original is None:
        raise PolicyError(f"{named[0]}: expected --original with it (it says how the utility models read the original)")
    return hierarchy_options(hierarchy, qi)


def _suda_bound(risk: bool, given: int | None, parameters: dict[str, tuple[dict[str, Any], ...]],
                qi: tuple[str, ...]) -> int | None:
    """SUDA's largest MSU: ``--suda-max-size``, else, with ``--risk`` and no ``--param suda.max_size``, the size
    whose search visits at most :data:`verifier.risk.suda.SUBSETS` subsets (:func:`verifier.risk.suda.bounded_size`)
    when that is fewer than the quasi-identifiers (``None``: every size)."""
    from verifier.risk.suda import bounded_size

    if given is not None or not risk or "suda" in parameters:
        return given
    bound = bounded_size(len(qi))
    return bound if bound < len(qi) else None


def _risk_inputs(risk: bool, fraction: str | None, population: int | None, table: Path | None, weights: str | None,
                 qi: tuple[str, ...], encoding: str = "utf-8", suda_max_size: int | None = None) -> Inputs:
    """The inputs of the risk models from the command line (each option needs ``--risk``), checked; the
    population table is read in the release's ``encoding``."""
    from verifier.inputs import inputs_of
    from verifier.literal import Domain, LiteralError, parse_exact
    from verifier.risk.population_table import load_population_table

    given = {"--sampling-fraction": fraction, "--population": population, "--population-table": table,
             "--weights": weights, "--suda-max-size": suda_max_size}
    named = [option for option, value in given.items() if value is not None]
    if named and not risk:
        raise PolicyError(f"{named[0]}: expected --risk with it (it is an input of the risk models)")
    if fraction is not None and population is not None:
        raise PolicyError("--sampling-fraction and --population: expected one of them, found both")
    inputs: dict[str, Any] = {}
    if fraction is not None:
        try:
            value = parse_exact(fraction, "--sampling-fraction", Domain(lower=Fraction(0), upper=Fraction(1),
                                                                         lower_open=True))
        except LiteralError as error:
            raise PolicyError(f"{error}; expected a number in (0, 1] such as 1/10 or 0.1") from error
        if not value.is_Rational:
            raise PolicyError(f"--sampling-fraction: expected a rational number in (0, 1], found {fraction!r}")
        inputs["sampling_fraction"] = Fraction(int(value.p), int(value.q))
    if population is not None:
        inputs["population"] = population
    if table is not None:
        inputs["population_table"] = load_population_table(table, qi, encoding=encoding)
    if weights is not None:
        inputs["weights"] = weights
    if suda_max_size is not None:
        inputs["suda_max_size"] = suda_max_size
    return inputs_of(inputs)


@app.command("audit")
def audit_command(
    policy: Annotated[Path, typer.Option("--policy", metavar="FILE", help="The policy file (TOML).")],
    data: Annotated[Path | None, typer.Argument(metavar="DATA", help="The release (default: data.path of the policy).")] = None,
    json_out: JsonOption = None,
    mechanism: MechanismOption = None,
    k: KOption = None,
    mode: ModeOption = None,
    sign: SignOption = None,
    certificate: CertificateOption = None,
    embed_counts: EmbedCountsOption = None,
    html: HtmlOption = None,
    pdf: PdfOption = None,
    encoding: EncodingOption = "utf-8",
    violations: ViolationsOption = 0,
    engine: EngineOption = "pandas",
    master: MasterOption = None,
    quiet: QuietOption = False,
    original: OriginalOption = None,
    key: RecordKeyOption = None,
    hierarchy: QiHierarchyOption = None,
    suppressed: SuppressedOption = "*",
    target: TargetOption = None,
    published: Annotated[Path | None, typer.Option("--release", metavar="FILE", help="Publisher mode: the published release, the certificate's subject (DATA is the original, which no certificate names).")] = None,
) -> None:
    """Audit a release against a policy: exit 0 if every requirement holds, 1 if one fails, 2 on bad input.

    With --original, also what the release cost against it (every utility model): printed, in the JSON and
    signed in the certificate."""
    from privcert.api import audit, audit_utility, audited_release
    from privcert.certificate_cli import certificate_outputs, check_signer
    from privcert.files import check_outputs
    from privcert.output import print_audit, summary
    from privcert.randomized_cli import mechanism_choice, print_randomized
    from privcert.utility_cli import print_utility
    from verifier.policy import load_policy

    with reporting_errors():
        parsed = load_policy(policy, encoding=encoding)
        check_outputs({"--json": (json_out, "json"), **certificate_outputs(certificate, html, pdf)},
                      {"release": data or parsed.data, "policy": policy, "private key": sign, "original": original,
                       "published release": published,
                       "mechanism": mechanism or (parsed.mechanism.file if parsed.mechanism else None)})
        check_signer(sign)
        hierarchies = _utility_inputs(original, key, hierarchy, suppressed, parsed.qi, target)
        digest = _digest_meanwhile(audited_release(data, parsed))
        result = audit(data, parsed, mechanism=mechanism_choice(mechanism, k, mode), engine=_engine(engine, master),
                       encoding=encoding, progress=False if quiet else None)
        randomized = result.randomized
        release = Path(result.report.source)
        publisher = randomized is not None and randomized.mode == "publisher"
        if embed_counts and publisher:
            raise PolicyError("--embed-counts: in publisher mode DATA is the original data, whose counts are never "
                              "put in a certificate")
        if published is not None and not publisher:
            raise PolicyError(f"--release {published}: only in publisher mode (DATA is then the original); here DATA "
                              "is the release")
        if publisher and (sign is not None or certificate is not None) and published is None:
            raise PolicyError("--sign: in publisher mode DATA is the original data; give the published release with "
                              "--release FILE (the certificate's subject: the original is never named in a certificate)")
        if published is not None and not published.is_file():
            raise PolicyError(f"--release {published}: no such file")
        cost = None if original is None else audit_utility(result, original, key=key, hierarchies=hierarchies,
                                                           mark=suppressed, encoding=encoding, target=target)
        write_certificate(result, published or release, policy, sign, certificate, html=html, pdf=pdf,
                          embed_counts=not publisher and embed_counts is not False, utility=cost, encoding=encoding,
                          quiet=quiet)
        document = result.to_json() | ({} if cost is None else {"utility": cost.to_json()})
        if not write_json(_document(result.report, release, digest, document), json_out):
            console = make_console()
            console.file.write(summary(result.report) + "\n")
            print_audit(console, result, violations)
            if randomized:
                print_randomized(console, randomized)
            if cost is not None:
                print_utility(console, cost.report, notes=False)
    wrote(json_out, certificate, html, pdf, stdout=json_out != "-")
    if not result.passed:
        raise typer.Exit(FAILED)


_summarize(app)
_list_types_by_their_element()
