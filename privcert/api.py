"""privcert's Python API: what the command line does, as functions.

The command line parses its options, calls these functions and prints their results;
everything it decides is decided here or below, so a program gets the same answers:

>>> import privcert
>>> result = privcert.audit("examples/table4/release.csv", policy="examples/table4/policy.toml")
>>> result.passed
False

:func:`measure` and :func:`audit` are :func:`verifier.measure.measure` and
:func:`verifier.audit.audit` with the theory's implication map wired in for auditor mode
(a randomized release audited from the release and its mechanism alone, Ekenstedt et al.
2022), which the verifier cannot import. The theory's answers (:func:`implies`, :func:`witness`,
:func:`explain`; :func:`implication_map`) are in :mod:`privcert.api_theory` and :mod:`privcert.api_map`, writing a certificate and its
views (:func:`write_certificate`) in :mod:`privcert.api_certificate`; both are re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from privcert.api_certificate import WrittenCertificate, verify_command_line, write_certificate, write_views
from privcert.api_claims import ClaimSource, QueryError, theory_graph
from privcert.api_map import ImplicationMap, MapEdge, MapNode, implication_map
from privcert.api_theory import Implication, PathStep, Witness, explain, implies, witness

if TYPE_CHECKING:
    import pandas as pd

    from reports.certify import Certificate
    from reports.utility_section import UtilitySection
    from reports.verification import Verification
    from theory.mechanism_selection.optimal import Reading
    from theory.mechanism_selection.release_plan import ReleasePlan
    from verifier.audit import AuditResult
    from verifier.engines import Engine, EngineName
    from verifier.measure import MeasureResult, ProgressCallback
    from verifier.policy import Policy
    from verifier.randomized.modes import MechanismChoice
    from verifier.registry import ModelKind
    from verifier.tables.buckets import Bucketing
    from verifier.tables.counts import AttributeSpec
    from verifier.tables.hierarchy import Hierarchy
    from verifier.utility import Pair, UtilityReport
    from verifier.utility.comparison import ReleaseComparison
    from verifier.utility.figure import Figure

__all__ = ["measure", "audit", "audited_release", "load_policy", "certify", "verify", "utility", "audit_utility",
           "compare", "plan", "write_certificate", "write_views", "verify_command_line", "WrittenCertificate",
           "implies", "witness", "explain", "implication_map", "theory_graph", "Implication", "PathStep",
           "ClaimSource", "Witness", "ImplicationMap", "MapNode", "MapEdge", "QueryError"]

Given = TypeVar("Given")


def load_policy(path: str | Path, *, encoding: str = "utf-8") -> Policy:
    """Read and check a policy file (:func:`verifier.policy.load_policy`); a population table it names is read
    in the release's ``encoding``."""
    from verifier.policy import load_policy as load

    return load(path, encoding=encoding)


def measure(
    data: pd.DataFrame | str | Path,
    qi: Sequence[str],
    attributes: Sequence[AttributeSpec],
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    buckets: Mapping[str, Bucketing] | None = None,
    l: int | Sequence[int] = 2,
    risk_threshold: Fraction = Fraction(1, 5),
    mechanism: MechanismChoice | None = None,
    kinds: Sequence[ModelKind] = (),
    inputs: Mapping[str, Any] | None = None,
    parameters: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    engine: EngineName | Engine = "pandas",
    encoding: str = "utf-8",
    progress: bool | ProgressCallback | None = None,
) -> MeasureResult:
    """Every model's optimal level on every attribute of a release (:func:`verifier.measure.measure`),
    and the randomized levels when ``mechanism`` names the mechanism it was made with (auditor
    mode included).

    ``kinds={"risk"}`` adds the re-identification risk models (docs/risk.md); ``inputs``
    gives what they measure against: ``sampling_fraction`` (a Fraction) or ``population``
    (an int), ``population_table`` (:func:`verifier.risk.population_table.load_population_table`)
    and ``weights`` (the release's column of sampling weights), checked by
    :func:`verifier.inputs.inputs_of` (an unknown name is refused with the valid ones).
    ``parameters`` asks for models at parameters their declarations name, per model id
    (``{"recursive_cl_diversity": [{"l": 3}]}``; :func:`verifier.registry.requested_parameters`
    reads them from ``MODEL.NAME=VALUE`` texts); a model so named is measured even when it is
    not by default. The keywords are checked as :meth:`verifier.question.Question.of` checks them
    (``parameters`` is its ``requested``)."""
    from theory.answers.auditor_mode import audit_release
    from verifier.measure import measure as run
    from verifier.question import Question

    source = str(data) if isinstance(data, (str, Path)) else "data"
    question = Question.of(qi, attributes, hierarchies=hierarchies, buckets=buckets, l=l, risk_threshold=risk_threshold,
                           kinds=kinds, inputs=inputs, source=source,
                           requested={name: tuple(sets) for name, sets in (parameters or {}).items()})
    return run(data, question, source=source, progress=progress, engine=engine, encoding=encoding, mechanism=mechanism,
               implications=audit_release)


def audit(
    data: pd.DataFrame | str | Path | None,
    policy: Policy | str | Path,
    *,
    mechanism: MechanismChoice | None = None,
    inputs: Mapping[str, Any] | None = None,
    engine: EngineName | Engine = "pandas",
    encoding: str = "utf-8",
    progress: bool | ProgressCallback | None = None,
) -> AuditResult:
    """Audit a release against a policy: every requirement decided exactly, randomized ones included.

    Parameters
    ----------
    data
        The release (a frame, a CSV or Parquet file, a directory of Parquet files), or
        ``None`` for the policy's ``data.path``.
    policy
        A parsed policy, or the path of its TOML file.
    mechanism
        Overrides of the policy's ``[mechanism]`` table (file, mode, subset sizes).
    inputs
        Overrides of the policy's ``[risk]`` table: ``sampling_fraction`` or ``population``,
        ``population_table``, ``weights`` (:class:`verifier.inputs.Inputs`); the audit's
        policy holds them (``result.policy.risk``).
    engine, encoding, progress
        How the release is read (:func:`verifier.measure.measure`); a policy given by its path reads its
        population table in ``encoding`` too.

    Raises
    ------
    PolicyError
        No release given and the policy names none, the policy is malformed, or ``inputs``
        names an unknown input (the message lists the valid ones) or holds an invalid value.
    """
    from theory.answers.auditor_mode import audit_release
    from verifier.audit import audit as run
    from verifier.randomized.modes import MechanismChoice

    parsed = policy if not isinstance(policy, (str, Path)) else load_policy(policy, encoding=encoding)
    if inputs is not None:
        parsed = _with_risk_inputs(parsed, inputs)
    release = audited_release(data, parsed)
    return run(release, parsed, source=None if not isinstance(release, (str, Path)) else str(release),
               progress=progress, mechanism=mechanism or MechanismChoice(), implications=audit_release,
               engine=engine, encoding=encoding)


def audited_release(data: Given | None, policy: Policy) -> Given | Path:
    """The release an audit reads: ``data`` when given, else the policy's ``data.path``.

    Raises
    ------
    PolicyError
        When neither names one.
    """
    from verifier.errors import PolicyError

    if data is not None:
        return data
    if policy.data is None:
        raise PolicyError(f"{policy.source}: no release given: pass DATA or set data.path in the policy")
    return policy.data


_AUDIT_INPUTS = ("sampling_fraction", "population", "population_table", "weights")


def _with_risk_inputs(policy: Policy, inputs: Mapping[str, Any]) -> Policy:
    """``policy`` with its ``[risk]`` inputs overridden by ``inputs`` (checked by :func:`verifier.inputs.inputs_of`)."""
    from dataclasses import replace

    from verifier.errors import PolicyError
    from verifier.inputs import inputs_of

    given = dict(inputs_of(inputs))
    other = [name for name in given if name not in _AUDIT_INPUTS]
    if other:
        raise PolicyError(f"inputs: {other[0]!r} is not an input of an audit (the mechanism is given by mechanism=); "
                          f"expected one of: {', '.join(_AUDIT_INPUTS)}")
    merged = {**policy.risk.inputs, **given}
    if "population" in given:
        merged.pop("sampling_fraction", None)
    if "sampling_fraction" in given:
        merged.pop("population", None)
    checked = inputs_of(merged)
    return replace(policy, risk=replace(policy.risk, **{name: getattr(checked, name) for name in _AUDIT_INPUTS}))


def audit_utility(result: AuditResult, original: str | Path, *, key: str | None = None,
                  hierarchies: Mapping[str, Hierarchy] | None = None, mark: str = "*",
                  encoding: str = "utf-8", target: str | None = None,
                  classifiers: Sequence[str] | None = None) -> UtilitySection:
    """What the audited release cost against its ``original``: every utility model over the policy's
    quasi-identifiers (:func:`reports.utility_section.utility_section`), for :func:`certify`'s ``utility``.

    ``key`` names each record in both tables (default: the same order); ``hierarchies`` are
    the quasi-identifiers' (default: the original's values under ``*``); ``target``, an attribute
    the classifiers predict from the quasi-identifiers (``classifiers``: all by default).

    Raises
    ------
    DataError
        A table cannot be read or the two cannot be aligned (the message names the file, row and column).
    """
    from reports.utility_section import utility_section
    from verifier.tables.load import load_table

    release = Path(result.report.source)
    return utility_section(load_table(original, encoding=encoding), load_table(release, encoding=encoding),
                           result.report.qi, names=(Path(original).name, release.name), hierarchies=hierarchies,
                           key=key, mark=mark, target=target, classifiers=classifiers)


def certify(result: AuditResult, release: str | Path, policy: str | Path | None = None, *,
            key: str | Path | None = None, embed_counts: bool = True, utility: UtilitySection | None = None,
            encoding: str = "utf-8") -> Certificate:
    """The certificate of an audit (:func:`reports.certify.certify`), signed with the private key file ``key``.

    The policy certified is the text the audit's policy was parsed from (``policy``, the file, is not read
    again); ``release`` is the audited file, or in publisher mode the published release; ``utility``
    (:func:`audit_utility`) what the release cost against its original; ``encoding`` the release's text encoding.
    Nothing is written: :attr:`reports.certify.Certificate.text` is the certificate file's text.

    Raises
    ------
    MalformedCertificateError
        ``key`` is not an Ed25519 private key written by ``privcert keygen``.
    """
    from reports.certify import certify as issue
    from reports.signing import load_signer

    signer = None if key is None else load_signer(Path(key).read_bytes(), str(key))
    text = result.policy.text if result.policy.text is not None or policy is None else \
        Path(policy).read_text(encoding="utf-8")
    return issue(result, Path(release), text, signer=signer, embed_counts=embed_counts, utility=utility,
                 encoding=encoding)


def verify(certificate: str | Path, public_key: str | Path, *, data: str | Path | None = None,
           original: str | Path | None = None, engine: EngineName | Engine = "pandas",
           encoding: str | None = None) -> Verification:
    """Re-check a certificate file (:func:`reports.verification.verify`): every signed field re-derived from the
    embedded count tables, or from the release ``data`` at any path, read by ``engine`` in ``encoding`` (default:
    the one the certificate records); with the ``original`` (and ``data``), the utility section measured again.

    The result says, check by check, what holds, what fails and what was not checked;
    :meth:`~reports.verification.Verification.exit_code` is the command line's exit code.

    Raises
    ------
    MalformedCertificateError
        The certificate or the key file is not what it should be (not JSON, a repeated key,
        not a DSSE envelope, not an Ed25519 public key); the message names the file.
    PolicyError
        ``original`` without ``data``: the utility models compare the two tables record by record.
    """
    from reports.signing import MalformedCertificateError, load_public_key, read_json
    from reports.verification import verify as check

    try:
        text = Path(certificate).read_text(encoding="utf-8")
        key_text = Path(public_key).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise MalformedCertificateError(f"cannot read {getattr(error, 'filename', None) or certificate}: {error}") \
            from error
    key = load_public_key(key_text, str(public_key))
    document = read_json(text, str(certificate))
    try:
        return check(document, key, data=None if data is None else Path(data),
                     original=None if original is None else Path(original), engine=engine, encoding=encoding)
    except MalformedCertificateError as error:
        raise MalformedCertificateError(f"{certificate}: {error}") from error


def utility(
    original: pd.DataFrame | str | Path,
    release: pd.DataFrame | str | Path,
    qi: Sequence[str],
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    key: str | None = None,
    suppressed: str = "*",
    mechanism: str | Path | None = None,
    sensitive: str | None = None,
    encoding: str = "utf-8",
    target: str | None = None,
    classifiers: Sequence[str] | None = None,
) -> UtilityReport:
    """What ``release`` cost against ``original``: every utility model of :mod:`verifier.utility`.

    With ``mechanism`` (the published randomized-response matrix, a mechanism CSV) and the
    ``sensitive`` column it randomized, two figures are added on that column: the
    mechanism's expected utility (Ekenstedt et al. 2022, eq. (4): the probability that the
    best guess from a released value is the true one, under the original's frequencies;
    :func:`theory.mechanism_selection.utility.utility`) and the share of records the release
    kept at their true value.

    With ``target``, how well classifiers trained on the release's quasi-identifiers predict it
    (:data:`verifier.utility.TARGET_MODELS`: accuracy, Brier score and ROC AUC of each of
    ``classifiers``, all by default): estimates of a seeded cross-validation.

    Raises
    ------
    DataError
        The tables cannot be aligned (a missing column, different row counts without ``key``, an
        unknown key, an original value outside its hierarchy); the message names the file, row and column.
    MechanismError
        The mechanism file is malformed, or an original value of ``sensitive`` is not one of its values.
    """
    from verifier.utility import align, target_figures, utility_of

    (before_name, before), (after_name, after) = _table(original, "original", encoding), _table(release, "release",
                                                                                              encoding)
    names = (before_name, after_name)
    pair = align(before, after, qi, hierarchies=hierarchies, key=key, suppressed=suppressed, sources=names)
    extra: tuple[Figure, ...] = target_figures(pair, before, after, target, classifiers)
    if mechanism is not None:
        from verifier.errors import PolicyError
        from verifier.named_inputs import Input, Said

        if sensitive is None:
            raise PolicyError(Said(Input("mechanism"), ": expected ", Input("sensitive"),
                                   ", the column the mechanism randomized"))
        extra += _mechanism_utility(before, after, pair, Path(mechanism), sensitive, names)
    return utility_of(pair, extra)


def _table(data: pd.DataFrame | str | Path, name: str, encoding: str) -> tuple[str, pd.DataFrame]:
    """A table given as a frame (called ``name`` in messages) or a file (read in ``encoding``, called by its path)."""
    from verifier.tables.load import load_table

    return (str(data), load_table(data, encoding=encoding)) if isinstance(data, (str, Path)) else (name, data)


def compare(
    original: pd.DataFrame | str | Path,
    releases: Sequence[pd.DataFrame | str | Path],
    qi: Sequence[str],
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    key: str | None = None,
    suppressed: str = "*",
    encoding: str = "utf-8",
    target: str | None = None,
    classifiers: Sequence[str] | None = None,
) -> ReleaseComparison:
    """Candidate releases of one original side by side (:func:`verifier.utility.comparison.compare`): each one's
    k and prosecutor risk over ``qi``, and every utility model against ``original``. Each table is a frame (named
    ``original``, ``release 1``, ``release 2``... in messages) or a file. With ``target``, each release's
    classifiers too (estimates; :func:`utility`).

    Raises
    ------
    DataError
        A table cannot be read or a release cannot be aligned with the original (the message names the file,
        row and column).
    """
    from verifier.utility.comparison import compare as run

    name, frame = _table(original, "original", encoding)
    tables = [_table(release, f"release {number}", encoding) for number, release in enumerate(releases, start=1)]
    return run(frame, tables, qi, hierarchies=hierarchies, key=key, suppressed=suppressed, original_name=name,
               target=target, classifiers=classifiers)


def plan(
    original: pd.DataFrame | str | Path,
    sensitive: str | None = None,
    *,
    t0: Fraction | int | str | None = None,
    eps0: Fraction | int | str | None = None,
    k: int | None = None,
    policy: str | Path | Policy | None = None,
    encoding: str = "utf-8",
    audience: Reading = "auditor",
    data_dependent: bool = False,
    estimate_eps: Fraction | int | str | None = None,
) -> ReleasePlan:
    """The mechanism with the best expected utility that meets a t and an ε target on one attribute of ``original``,
    over every matrix, beside the three of Ekenstedt et al. 2022, Sec. V.C-D
    (:func:`theory.mechanism_selection.release_plan.plan_release`).

    The targets are given (``t0``, ``eps0``, ``k``; text such as ``"2"``, ``"ln(39/19)"``, ``"0.7"``,
    ``"inf"``), or read from ``policy``'s requirements on the attribute (``ldp`` for ε0,
    ``kt_closeness`` or ``stochastic_t_closeness`` for t0 and k), not both. ``sensitive`` defaults
    to the policy's ``[mechanism] attribute`` or its only sensitive attribute.
    ``audience`` is who certifies the release (``auditor``: from the published mechanism alone;
    ``publisher``: with the original); ``data_dependent`` lets the written mechanism be computed from
    the original's counts (it may then disclose them); ``estimate_eps`` (text such as ``"ln(4)"``) computes it
    instead from an ``estimate_eps``-differentially private estimate of the counts, and
    ``ReleasePlan.composed_epsilon`` is the release's ε with it. ``ReleasePlan.mechanism()`` is the written matrix;
    :func:`verifier.randomized.mechanism.mechanism_csv` writes it as the file ``anonymize rr --mechanism``
    and a policy's ``[mechanism]`` read.

    >>> result = plan("examples/randomized/original.csv", "disease", t0=4, eps0="ln(5)", k=50)
    >>> result.paper_best.name, result.paper_best.p_ldp, result.paper_best.utility
    ('ldp', 10/23, 53/92)
    >>> result.written.name, result.written.certified_by, result.row("optimal-publisher").utility
    ('optimal', 'auditor', 449/700)

    Raises
    ------
    PolicyError
        Bad or missing targets, or targets and a policy both given.
    InfeasibleTargets
        Only a release independent of the data meets the targets (the message names the bound).
    DataError
        The attribute is not a column of ``original`` or has missing values.
    """
    import sympy

    from theory.mechanism_selection.release_plan import plan_release, targets_of
    from verifier.errors import DataError, PolicyError
    from verifier.literal import Domain, LiteralError, parse_exact
    from verifier.named_inputs import Input
    from verifier.tables.load import load_table

    name = str(original) if isinstance(original, (str, Path)) else "original"
    frame = load_table(original, encoding=encoding) if isinstance(original, (str, Path)) else original
    if policy is not None:
        if t0 is not None or eps0 is not None or k is not None:
            raise PolicyError("give the targets (t0, eps0, k) or a policy, not both")
        rules = load_policy(policy, encoding=encoding) if isinstance(policy, (str, Path)) else policy
        declared = [item.name for item in rules.sensitive]
        attribute = sensitive or (rules.mechanism.attribute if rules.mechanism is not None else
                                  declared[0] if len(declared) == 1 else None)
        if attribute is None:
            raise PolicyError(f"{rules.source}: name the attribute to plan for; the policy declares {declared}")

        def smallest_class() -> int:
            missing = [column for column in rules.qi if column not in frame.columns]
            if missing:
                raise DataError(f"{name}: quasi-identifier columns {missing} not found; the table has {list(map(str, frame.columns))}")
            return int(frame.groupby(list(rules.qi), dropna=False).size().min()) if rules.qi else len(frame)

        target_t, target_eps, size = targets_of(rules.requirements, attribute, smallest_class, rules.source)
    else:
        if sensitive is None or t0 is None:
            raise PolicyError("expected the attribute to randomize and the target t0 (or a policy)")
        attribute = sensitive
        try:
            target_t = parse_exact(str(t0), Input("t0"), Domain(lower=Fraction(1)))
            target_eps = sympy.oo if eps0 is None else parse_exact(str(eps0), Input("eps0"),
                                                                   Domain(lower=Fraction(0), infinite=True))
        except LiteralError as error:
            raise PolicyError(*error.args) from None
        size = 1 if k is None else k
    if attribute not in frame.columns:
        raise DataError(f"{name}: column {attribute!r} not found; the table has columns {list(map(str, frame.columns))}")
    column = frame[attribute]
    if column.isna().any():
        raise DataError(f"{name}: column {attribute!r} has missing values; a randomized release needs a value per record")
    counts = {value: int(count) for value, count in column.value_counts(sort=False).items()}
    try:
        spent = None if estimate_eps is None else parse_exact(str(estimate_eps), Input("estimate_eps"),
                                                              Domain(lower=Fraction(0)))
    except LiteralError as error:
        raise PolicyError(*error.args) from None
    return plan_release(counts, target_t, target_eps, size, attribute=attribute, audience=audience,
                        data_dependent=data_dependent, estimate_epsilon=spent)


def _mechanism_utility(before: pd.DataFrame, after: pd.DataFrame, pair: Pair, mechanism: Path, sensitive: str,
                       names: tuple[str, str]) -> tuple[Figure, ...]:
    """Ekenstedt et al. 2022, eq. (4) of the mechanism under the original's frequencies, and the share kept."""
    from collections import Counter
    from fractions import Fraction

    import sympy

    from theory.mechanism_selection.utility import utility as expected_utility
    from verifier.errors import DataError, MechanismError
    from verifier.randomized.mechanism import load_mechanism
    from verifier.utility.figure import Figure

    matrix = load_mechanism(mechanism)
    for side, frame in zip(names, (before, after), strict=True):
        if sensitive not in frame.columns:
            raise DataError(f"{side}: column {sensitive!r} not found; the table has {list(map(str, frame.columns))}")
    truth = [str(value) for value in before[sensitive].tolist()]
    labels = [str(value) for value in matrix.values]
    for row, value in enumerate(truth, start=1):
        if value not in labels:
            raise MechanismError(f"{names[0]}, row {row}, column {sensitive!r}: {value!r} is not a value of the "
                                 f"mechanism {mechanism} ({labels})")
    counts = Counter(truth)
    frequencies = [Fraction(counts[label], len(truth)) for label in labels]
    value = expected_utility(sympy.Matrix(matrix.matrix), frequencies)
    figures = [Figure("expected_utility", sensitive, Fraction(int(value.p), int(value.q)), None, "probability",
                      "Ekenstedt et al. 2022, eq. (4), under the original's frequencies; higher is better")]
    if [str(bucket) for bucket in matrix.buckets] == labels:
        released = after[sensitive].tolist()
        kept = sum(str(released[p - 1]) == t for p, t in zip(pair.release_rows, truth, strict=True) if p is not None)
        figures.append(Figure("agreement", sensitive, Fraction(kept, len(truth)), None, "share of records",
                              "records released at their true value; higher is better"))
    return tuple(figures)
