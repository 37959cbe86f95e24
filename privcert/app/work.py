"""What a job process does (:mod:`privcert.app.jobs`): one call of :mod:`privcert.api`, as the command line makes it.

Each function takes the job's arguments (paths in the session's folder, chosen by the
server) and returns a JSON-able result. Bad input raises privcert's own errors, whose
message the page shows as the command line prints it, but for the inputs it names, said as the
form's fields, and the session's file names replaced by the names the user uploaded
(:func:`privcert.app.fields.shown`).
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

__all__ = ["run", "KINDS"]


def run(kind: str, arguments: dict[str, Any], connection: Connection) -> None:
    """The body of a job process: run ``kind``, send progress, warnings and the result (or the error)."""
    from privcert.app.fields import shown as in_page

    names: Mapping[str, str] = arguments.pop("names", {})

    def shown(text: object) -> str:
        return in_page(text, names)

    def report(step: str, done: int, total: int | None) -> None:
        connection.send(("progress", step, done, total))

    from reports.signing import MalformedCertificateError
    from verifier.errors import PrivcertWarning, VerifierError

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PrivcertWarning)
            result = KINDS[kind](arguments, report)
        for warning in caught:
            if issubclass(warning.category, PrivcertWarning):
                connection.send(("warning", shown(str(warning.message))))
        connection.send(("done", json.loads(shown(json.dumps(result)))))
    except (VerifierError, MalformedCertificateError, OSError, UnicodeDecodeError) as error:
        connection.send(("error", shown(error)))
    except Exception as error:  # noqa: BLE001 - shown in the page as the command line's internal error
        connection.send(("error", f"internal error: {type(error).__name__}: {shown(str(error))}. This is a defect "
                                  "in privcert; the server log has the traceback."))
        raise
    finally:
        connection.close()


def audit(arguments: dict[str, Any], report: Callable[[str, int, int | None], None]) -> dict[str, Any]:
    """``privcert audit RELEASE --policy POLICY --html VIEW``: the result, what else it implies, the view."""
    from privcert.api import audit as run_audit
    from privcert.api import explain, write_certificate

    release, policy, view = Path(arguments["release"]), Path(arguments["policy"]), Path(arguments["view"])
    result = run_audit(release, policy, progress=report)
    report("the certificate's view (figures, implied guarantees)", 0, None)
    write_certificate(result, release, policy, html=view)
    document = json.loads(json.dumps(result.to_json(), default=str))
    report("what else this implies", 0, None)
    implied = explain(result)
    return {"audit": document, "passed": result.passed, "view": _link(view),
            "implied": implied.to_json(), "implied_text": implied.text()}


def certify(arguments: dict[str, Any], report: Callable[[str, int, int | None], None]) -> dict[str, Any]:
    """``privcert audit RELEASE --policy POLICY --sign KEY --certificate C --html H --pdf P``."""
    from privcert.api import audit as run_audit
    from privcert.api import write_certificate

    release, policy, key = Path(arguments["release"]), Path(arguments["policy"]), Path(arguments["key"])
    outputs = {name: Path(arguments[name]) for name in ("certificate", "html", "pdf")}
    result = run_audit(release, policy, progress=report)
    report("signing; writing the HTML and PDF views", 0, None)
    write_certificate(result, release, policy, key=key, out=outputs["certificate"], html=outputs["html"],
                      pdf=outputs["pdf"])
    return {"passed": result.passed, **{name: _link(path) for name, path in outputs.items()}}


def _link(path: Path) -> str:
    """``FOLDER/NAME``: a session file's address under ``/files`` and ``/view``."""
    return f"{path.parent.name}/{path.name}"


def verify(arguments: dict[str, Any], report: Callable[[str, int, int | None], None]) -> dict[str, Any]:
    """``privcert verify CERTIFICATE --public-key KEY [--data RELEASE] [--original ORIGINAL]``."""
    from privcert.api import verify as check
    from privcert.app.fields import field_of
    from verifier.escape import safe
    from verifier.named_inputs import say

    report("checking the signature and every signed field", 0, None)
    found = check(arguments["certificate"], arguments["public_key"], data=arguments.get("data"),
                  original=arguments.get("original"))
    return {"lines": [safe(say(line.text(), field_of)) for line in found.lines], "summary": say(found.summary(), field_of),
            "exit_code": found.exit_code(allow_fail=False)}


def compare(arguments: dict[str, Any], report: Callable[[str, int, int | None], None]) -> dict[str, Any]:
    """``privcert compare ORIGINAL RELEASE... --qi NAMES``: the table and the privacy/utility figure."""
    from privcert.api import compare as run_compare
    from reports.comparison import comparison_rows, comparison_title
    from reports.plots import privacy_utility
    from verifier.errors import PolicyError

    report("aligning and measuring the candidates", 0, None)
    os.chdir(arguments["folder"])  # the tables by their names, as the user gave them
    comparison = run_compare(arguments["original"], arguments["releases"], arguments["qi"],
                             target=arguments.get("target") or None)
    metric = arguments.get("metric") or "loss"
    if metric not in comparison.metrics:
        raise PolicyError(f"utility model of the figure: expected one of the models measured "
                          f"({', '.join(comparison.metrics)}), found {metric!r}")
    header, rows = comparison_rows(comparison)
    figure = privacy_utility(comparison, metric)
    return {"header": list(header), "rows": [list(row) for row in rows], "metrics": list(comparison.metrics),
            "title": comparison_title(comparison),
            "folder": Path(arguments["folder"]).name,
            "figure": None if figure is None else {"caption": figure.caption, "svg": figure.svg}}


def plan(arguments: dict[str, Any], report: Callable[[str, int, int | None], None]) -> dict[str, Any]:
    """``privcert plan ORIGINAL --sensitive ATTR (--t T0 [--eps E0] [--k K] | --policy FILE) [--for WHO]
    [--data-dependent] --mechanism-out FILE --figures DIR``: the plan's text from its typed result (summary,
    table, requirements, disclosure, the written matrix), the matrix's CSV and Figs. 6-7 for the plan's N, k, t0."""
    from fractions import Fraction

    from privcert.api import plan as run_plan
    from theory.mechanism_selection.figures import (
        figure6_points,
        figure7_points,
        plot_figure6,
        plot_figure7,
        save_figure,
    )
    from verifier.randomized.mechanism import mechanism_csv

    report("planning (exact)", 0, None)
    k = arguments.get("k")
    result = run_plan(arguments["original"], arguments.get("sensitive"), t0=arguments.get("t0"),
                      eps0=arguments.get("eps0"), k=None if k is None else int(k), policy=arguments.get("policy"),
                      audience="publisher" if arguments.get("audience") == "publisher" else "auditor",
                      data_dependent=bool(arguments.get("data_dependent")), estimate_eps=arguments.get("estimate_eps"))
    out = Path(arguments["mechanism"])
    out.write_text(mechanism_csv(result.mechanism()), encoding="utf-8")
    figures = []
    t0, records, size = result.targets.t0, result.records, result.targets.k
    if t0.is_Rational and 1 <= size < records:
        t0_fraction = Fraction(int(t0.p), int(t0.q))
        report("Fig. 6: utility against p_y(a_1) (101 exact plans)", 0, 2)
        six = plot_figure6(figure6_points(t0_fraction, records, size),
                           f"Fig. 6: t0={t0_fraction}, n=2, N={records}, k={size}, eps0=eps_t")
        report("Fig. 7: utility against t0 (exact plans)", 1, 2)
        seven = plot_figure7(figure7_points(records, size), f"Fig. 7: uniform p_y, N={records}, k={size}, eps0=eps_t")
        for name, figure in (("fig6", six), ("fig7", seven)):
            png, svg = save_figure(figure, out.parent, name)
            text = svg.read_text(encoding="utf-8")
            figures.append({"name": name, "svg": text[text.index("<svg"):], "png": _link(png), "svg_link": _link(svg)})
    written = result.written
    return {"lines": list(result.lines()), "header": list(result.header),
            "rows": [list(row.cells()) for row in result.rows], "chosen": written.name, "audience": result.audience,
            "requirements": [item.line() for item in result.requirements()], "disclosure": result.disclosure,
            "labels": [str(value) for value in result.values],
            "matrix": [[str(entry) for entry in row] for row in written.matrix],
            "mechanism": _link(out), "figures": figures}


KINDS: dict[str, Callable[[dict[str, Any], Callable[[str, int, int | None], None]], dict[str, Any]]] = {
    "audit": audit, "certify": certify, "verify": verify, "compare": compare, "plan": plan}
"""The jobs a page may start, by name."""
