"""Options shared by several commands, declared once (typer ``Annotated`` types; nothing heavy imported)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from typer.core import TyperCommand

from verifier.errors import PolicyError

T = TypeVar("T")

if TYPE_CHECKING:
    from verifier.registry import Model, Parameter
    from verifier.tables.hierarchy import Hierarchy

__all__ = ["JsonOption", "EncodingOption", "MechanismOption", "KOption", "ModeOption", "SignOption",
           "CertificateOption", "ViolationsOption", "EmbedCountsOption",
           "HtmlOption", "PdfOption", "EngineOption", "MasterOption", "QuietOption", "QiHierarchyOption",
           "RecordKeyOption", "SuppressedOption", "OriginalOption", "split_names", "assignments", "hierarchy_options",
           "ShorthandCommand", "shorthand_parameters"]

JsonOption = Annotated[str | None, typer.Option(
    "--json", metavar="FILE|-", help="Write the results as JSON to this file (written atomically), or '-' for stdout only.")]
EncodingOption = Annotated[str, typer.Option("--encoding", metavar="NAME", help="The CSV file's text encoding.")]
MechanismOption = Annotated[Path | None, typer.Option(
    "--mechanism", metavar="FILE",
    help="Mechanism CSV (value,<bucket>,...) or noise mechanism TOML: also measure the randomized levels.")]
KOption = Annotated[str | None, typer.Option("--k", metavar="K,...", help="Subset sizes for (k,t)-closeness and (k,ε)-DP, e.g. 2,5,10.")]
ModeOption = Annotated[str | None, typer.Option(
    "--mode", metavar="MODE", help="publisher (DATA is the original data, default) or auditor (DATA is the release).")]
SignOption = Annotated[Path | None, typer.Option("--sign", metavar="KEY", help="Sign a certificate with this private key (privcert keygen).")]
CertificateOption = Annotated[Path | None, typer.Option("--certificate", metavar="FILE", help="Where to write the signed certificate (JSON).")]
ViolationsOption = Annotated[int, typer.Option(
    "--violations", metavar="N", min=0, help="List the first N classes that break a failed k-anonymity requirement.")]
EmbedCountsOption = Annotated[bool | None, typer.Option(
    "--embed-counts/--no-embed-counts", help="Put the count tables in the certificate, so that it can be re-checked "
    "without the release (default: on, except for original data in publisher mode).")]
HtmlOption = Annotated[Path | None, typer.Option("--html", metavar="FILE", help="Write the certificate's HTML view (one self-contained file).")]
PdfOption = Annotated[Path | None, typer.Option("--pdf", metavar="FILE", help="Write the certificate's PDF view (the signed certificate attached).")]
EngineOption = Annotated[str, typer.Option(
    "--engine", metavar="ENGINE", help="Where the count tables are built: pandas (in memory, default), duckdb (out of core) or spark.")]
MasterOption = Annotated[str | None, typer.Option(
    "--master", metavar="URL", help="Spark master URL for --engine spark (default local[*]).")]
QiHierarchyOption = Annotated[list[str] | None, typer.Option(
    "--hierarchy", metavar="Q=FILE", help="Q=FILE: the generalization hierarchy of a quasi-identifier (leaf to root).")]
RecordKeyOption = Annotated[str | None, typer.Option(
    "--key", metavar="COLUMN",
    help="A column of both tables naming each record (records missing from the release are suppressed).")]
SuppressedOption = Annotated[str, typer.Option("--suppressed", metavar="MARK", help="The suppression mark (default *).")]
OriginalOption = Annotated[Path | None, typer.Option(
    "--original", metavar="FILE",
    help="The original the release was made from: add what the release cost (the utility models) to the results "
    "and the certificate.")]
TargetOption = Annotated[str | None, typer.Option(
    "--target", metavar="COLUMN",
    help="Also predict this column from the quasi-identifiers: accuracy, Brier score and ROC AUC of logistic "
    "regression, naive Bayes and a random forest trained on the release and on the original (estimates).")]
ClassifiersOption = Annotated[str | None, typer.Option(
    "--classifiers", metavar="NAMES",
    help="With --target: which classifiers, comma-separated (logistic_regression, naive_bayes, random_forest; "
    "default all).")]
QuietOption = Annotated[bool, typer.Option("--quiet", metavar="QUIET", help="No progress bar on stderr.")]


def split_names(text: str, option: str, separator: str = ",") -> tuple[str, ...]:
    """Names separated by ``separator``, each as written (never stripped), none empty or repeated."""
    items = tuple(text.split(separator))  # names as written: 'zip ' is not the column 'zip'
    if not all(items):
        raise PolicyError(f"{option}: expected names separated by {separator!r}, found {text!r}")
    repeated = next((item for index, item in enumerate(items) if item in items[:index]), None)
    if repeated is not None:
        raise PolicyError(f"{option}: {repeated!r} is named twice in {text!r}")
    return items


def classifier_options(target: str | None, classifiers: str | None) -> tuple[str, ...] | None:
    """``--classifiers`` checked (``None``: all); refused without ``--target`` or naming an unknown classifier."""
    from verifier.utility.classification import CLASSIFIERS

    if classifiers is None:
        return None
    if target is None:
        raise PolicyError("--classifiers: expected --target with it (the column the classifiers predict)")
    names = split_names(classifiers, "--classifiers")
    unknown = next((name for name in names if name not in CLASSIFIERS), None)
    if unknown is not None:
        raise PolicyError(f"--classifiers: expected some of {', '.join(CLASSIFIERS)}, found {unknown!r}")
    return names


def assignments(values: list[str], option: str, names: tuple[str, ...], parse: Callable[[str, str], T]) -> dict[str, T]:
    """Parse repeated ``NAME=VALUE`` options whose NAME must be one of ``names`` (the columns the option is about)."""
    out: dict[str, T] = {}
    for value in values:
        name, equals, rest = value.partition("=")
        if not equals or not rest.strip():
            raise PolicyError(f"{option}: expected NAME=VALUE, found {value!r}")
        if name not in names:
            raise PolicyError(f"{option} {value!r}: expected one of the columns {list(names)}, found {name!r}")
        out[name] = parse(rest.strip(), f"{option} {name}")
    return out


def hierarchy_files(values: list[str] | None) -> dict[str, str]:
    """The files of repeated ``--hierarchy NAME=FILE`` options, as inputs an output may not overwrite."""
    return {f"hierarchy of {name}": rest.strip() for name, equals, rest in (v.partition("=") for v in values or [])
            if equals and rest.strip()}


def hierarchy_options(values: list[str] | None, names: tuple[str, ...]) -> dict[str, Hierarchy]:
    """Repeated ``--hierarchy NAME=FILE`` options: each named column's hierarchy, read from its file."""
    from verifier.tables.hierarchy import load_hierarchy

    return assignments(values or [], "--hierarchy", names, lambda text, _: load_hierarchy(text))


class ShorthandCommand(TyperCommand):
    """A command that also takes the shorthands the models declare (:attr:`verifier.registry.Parameter.shorthand`).

    ``--NAME VALUES`` (or ``--NAME=VALUES``) of a declared shorthand is read as the hidden option
    ``--shorthand NAME=VALUES`` (:func:`shorthand_parameters`), so that a model's parameter gets its
    option from its declaration, never from an edit here; ``--help`` lists them under "Shorthands".
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, _expand_shorthands(args))

    def format_options(self, ctx: Any, formatter: Any) -> None:
        from verifier.registry import shorthands

        super().format_options(ctx, formatter)
        rows = [(f"--{name} {name.upper()},...",
                 f"--param MODEL.{name}={name.upper()} for {', '.join(m.id for m in found)}: "
                 f"{_declared(name, found).describe()}") for name, found in shorthands().items()]
        if rows:
            with formatter.section("Shorthands (from the models' declarations)"):
                formatter.write_dl(rows)


def _declared(name: str, found: tuple[Model, ...]) -> Parameter:
    parameter = found[0].parameter(name)
    assert parameter is not None
    return parameter


def _expand_shorthands(args: list[str]) -> list[str]:
    """``--NAME VALUES`` and ``--NAME=VALUES`` of a declared shorthand as ``--shorthand NAME=VALUES``."""
    from verifier.registry import shorthands

    names = shorthands()
    out: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            out += [arg, *rest]
            break
        option, equals, value = arg.partition("=")
        if not option.startswith("--") or option[2:] not in names:
            out.append(arg)
            continue
        given = value if equals else next(rest, None)
        if given is None:
            raise typer.BadParameter(f"{option}: expected a value, e.g. {option} 2 or {option} 2,3")
        out += ["--shorthand", f"{option[2:]}={given}"]
    return out


def shorthand_parameters(values: list[str]) -> list[str]:
    """Each ``NAME=V1,V2`` of the ``--shorthand`` option (``--NAME V1,V2`` as typed) as ``MODEL.NAME=V`` texts of
    ``--param`` (:func:`verifier.registry.requested_parameters`), one per value and model declaring the shorthand.

    Integer parameters take integers from 1 to 10^18 (as ``--k`` always did); words are checked by ``--param``.

    Raises
    ------
    PolicyError
        Not ``NAME=VALUES`` of a declared shorthand, or a value that is not one of the parameter's.
    """
    from privcert.randomized_cli import parse_ks
    from verifier.registry import shorthands

    declared = shorthands()
    texts = []
    for value in values:
        name, equals, items = value.partition("=")
        if not equals or name not in declared:
            raise PolicyError(f"--shorthand: expected NAME=VALUES with NAME one of {', '.join(declared) or 'none'}, "
                              f"found {value[:80]!r}")
        domain = _declared(name, declared[name]).domain
        option = f"--{name}"
        found = parse_ks(items, option) if domain is not None and domain.integer else split_names(items, option)
        texts += [f"{item.id}.{name}={one}" for one in found for item in declared[name]]
    return texts
