"""Measure every privacy model on a released table: one group-by, then count tables.

:func:`measure` is the verifier's front door. It builds the classes and the count tables
with a single call to :func:`~verifier.tables.counting.count_tables`, or to an engine's
``count_tables`` for a path (:mod:`verifier.engines`: pandas, DuckDB or Spark; the only
step that sees rows, docs/design.md, "Count tables are sparse"), then runs every model on every
sensitive attribute, each alone and each declared joint attribute (Domingo-Ferrer & Soria-Comas 2015, §4), and
returns an immutable :class:`MeasureResult` with every :class:`~verifier.results.Measurement`,
the class metrics and the time each model took.

What is measured
----------------
Once, on the quasi-identifiers: ``k_anonymity``, ``prosecutor_risk`` and the class
metrics. On every attribute: ``alpha_k_anonymity``, ``distinct_l_diversity``,
``entropy_l_diversity``, ``recursive_cl_diversity`` (for each requested ``l``),
``t_closeness`` (``ordered`` distance for numerical and ordinal attributes, ``equal``
for categorical ones, and also ``hierarchical`` when a hierarchy is given),
``multiplicative_t_closeness`` (over the given buckets, or the distinct values),
``basic_beta_likeness``, ``enhanced_beta_likeness``, ``delta_disclosure`` and
``delta_disclosure_present`` (over the values present in each class, as ARX and pyCANON).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console
from rich.progress import Progress

from verifier.cpus import usable_cpus
from verifier.display import attribute_label
from verifier.engines import Engine, EngineName, get_engine
from verifier.errors import DataError, PolicyError
from verifier.privacy.anonymity import ClassMetrics, class_metrics
from verifier.question import Question
from verifier.randomized.modes import (
    Implications,
    MechanismChoice,
    RandomizedLevels,
    mechanism_settings,
    randomized_levels,
)
from verifier.registry import MeasureOptions, Model, Subject, models, subset_sizes
from verifier.results import Measurement
from verifier.risk.histogram import frame_of
from verifier.tables.counting import count_tables
from verifier.tables.counts import Classes, CountTable, WeightsSpec
from verifier.tables.encodings import text_encoding

__all__ = ["MeasureResult", "measure", "measure_tables", "PROGRESS_ROWS", "ProgressCallback"]

ProgressCallback = Callable[[str, int, "int | None"], None]
"""Told each step of a run instead of a progress bar: a description (``scan: 1,000 rows``,
``measure: k_anonymity``), the steps done and their total (``None`` while unknown)."""

PROGRESS_ROWS = 500_000
"""Tables with at least this many rows show a progress bar (when stderr is a terminal)."""

PARALLEL_CELLS = 1 << 16
"""Count tables with at least this many non-empty cells in all are measured on every CPU."""

Attribute = str | tuple[str, ...]


@dataclass(frozen=True)
class MeasureResult:
    """Everything :func:`measure` found about one release.

    Attributes
    ----------
    source
        The file the table came from (or a description).
    qi
        The quasi-identifier columns.
    rows
        Rows of the table.
    classes
        Number of equivalence classes.
    excluded
        Rows excluded from each attribute (``missing = "exclude"``), by attribute label.
    measurements
        Every measurement, quasi-identifier models first, then attribute by attribute.
    metrics
        Discernibility and average class sizes.
    timings
        Seconds spent per step: ``count_tables``, then each model (summed over
        attributes), and ``total``.
    tables
        The count tables by attribute, for callers that decide more (``audit``);
        not part of the JSON.
    engine
        The engine that built the count tables (:mod:`verifier.engines`); a fact about
        the run, not the release, so not compared and not part of the results' JSON.
    randomized
        The levels of a randomized release, when a mechanism was given
        (:mod:`verifier.randomized.modes`).
    """

    source: str
    qi: tuple[str, ...]
    rows: int
    classes: int
    excluded: Mapping[str, int]
    measurements: tuple[Measurement, ...]
    metrics: ClassMetrics
    timings: Mapping[str, float]
    tables: Mapping[Attribute, CountTable] = field(repr=False, compare=False, default_factory=dict)
    engine: EngineName = field(default="pandas", compare=False)
    randomized: RandomizedLevels | None = None

    def find(self, model: str, attribute: Attribute | None = None, **parameters: Any) -> Measurement:
        """The measurement of ``model`` on ``attribute`` with these parameters (``distance``, ``l``, ...).

        Raises
        ------
        KeyError
            Nothing of that kind was measured.
        """
        for item in self.measurements:
            if item.model == model and item.attribute == attribute and all(
                    (item.distance if name == "distance" else item.parameters.get(name)) == value
                    for name, value in parameters.items() if value is not None):
                return item
        named = "".join(f" with {name} {value!r}" for name, value in parameters.items() if value is not None)
        raise KeyError(f"no {model} measurement for attribute {attribute_label(attribute)!r}{named}")

    def _repr_html_(self) -> str:
        """An HTML table for Jupyter (:mod:`verifier.notebook`; the certificate's page is
        :func:`reports.html.notebook_html`)."""
        from verifier.notebook import measure_html

        return measure_html(self)

    def to_json(self) -> dict[str, Any]:
        """The results: ``rows``, ``classes``, ``measurements`` and the rest.

        The source file and the timings describe the run, not the release, and are left
        out, so that two reports of the same data are equal (the CLI writes them under
        ``run``).
        """
        document = {
            "qi": list(self.qi),
            "rows": self.rows,
            "classes": self.classes,
            "excluded": dict(self.excluded),
            "metrics": self.metrics.to_json(),
            "measurements": [m.to_json() for m in self.measurements],
        }
        if self.randomized is not None:
            document["randomized"] = self.randomized.to_json()
        return document


def measure(
    data: pd.DataFrame | str | Path,
    question: Question,
    *,
    source: str | None = None,
    progress: bool | ProgressCallback | None = None,
    engine: EngineName | Engine = "pandas",
    encoding: str = "utf-8",
    mechanism: MechanismChoice | None = None,
    implications: Implications | None = None,
) -> MeasureResult:
    """Measure every model on every attribute of a released table.

    Parameters
    ----------
    data
        The released table: a frame, or the path of a CSV or Parquet file or of a
        directory of Parquet files, read by ``engine``.
    question
        The quasi-identifiers, the sensitive attributes and the options, checked
        (:meth:`verifier.question.Question.of`).
    source
        The file the table came from, for messages and the report (default: the path,
        or ``data`` for a frame).
    progress
        Show a progress bar on stderr (phase: scan, group, measure); by default only
        when stderr is a terminal, and for a frame only from :data:`PROGRESS_ROWS` rows.
        A :data:`ProgressCallback` is told the same steps instead (a web page's progress bar).
    engine
        Which engine builds the count tables from a path: ``pandas`` (default),
        ``duckdb`` or ``spark`` (:func:`verifier.engines.get_engine`), or an engine
        object (for example a :class:`~verifier.engines.spark_engine.SparkEngine` with
        its master URL). A frame is always counted by pandas.
    encoding
        The text encoding of a CSV path.
    mechanism
        The mechanism a randomized release was made with (its file, the attribute it
        randomizes, default the first; the mode and subset sizes): adds the
        randomized levels (:func:`verifier.randomized.modes.randomized_levels`), at its subset
        sizes and every ``k`` the question's ``requested`` names (:func:`verifier.registry.subset_sizes`).
    implications
        The implication map for auditor mode (:func:`theory.answers.auditor_mode.audit_release`).

    Raises
    ------
    DataError
        A column is absent or holds values the attribute cannot take.
    PolicyError
        A frame given with an engine other than pandas.
    HierarchyError
        A value of the attribute is not a leaf of its hierarchy.
    """
    counter = get_engine(engine) if isinstance(engine, str) else engine
    framed = isinstance(data, pd.DataFrame)
    if framed and counter.name != "pandas":
        raise PolicyError(f"--engine {counter.name}: reads the release from its file; pass a path, not a frame")
    source = source or ("data" if framed else str(data))
    text_encoding(encoding)  # a character encoding that decodes one-to-one, whatever the release's format
    if progress is None:
        progress = sys.stderr.isatty() and (not isinstance(data, pd.DataFrame) or len(data) >= PROGRESS_ROWS)

    qi, options = question.qi, question.options
    weights = options.inputs.weights
    counted = list(question.attributes) + ([] if weights is None else [WeightsSpec((weights,))])

    def build(step: _Steps) -> tuple[Classes, tuple[CountTable, ...]]:
        if isinstance(data, pd.DataFrame):
            return count_tables(data, qi, counted, source=source)
        return counter.count_tables(Path(data), qi, counted, source=source, encoding=encoding, phase=step.phase)

    result = _measure(build, qi, options, source=source, progress=progress, engine=counter.name)
    settings = None if mechanism is None else mechanism_settings(
        None, replace(mechanism, attribute=mechanism.attribute or question.attributes[0].columns[0],
                      ks=tuple(dict.fromkeys(mechanism.ks + subset_sizes(options.requested)))))
    if settings is None:
        return result
    levels = randomized_levels(result.tables, settings, implications=implications)
    return replace(result, randomized=levels)


def measure_tables(
    classes: Classes,
    tables: Sequence[CountTable],
    question: Question | None = None,
    *,
    source: str = "count tables",
) -> MeasureResult:
    """Measure every model on count tables already built (for example read from a certificate).

    The same models, in the same order, as :func:`measure`, which is this function after
    :func:`~verifier.tables.counting.count_tables`: every measure is a function of the classes and
    the counts ``n[class, value]`` (docs/design.md, "Count tables are sparse").

    Parameters
    ----------
    classes, tables
        The equivalence classes and a count table per attribute.
    question
        The question the tables answer: its quasi-identifiers are the classes' and its attributes
        the tables', in order (default: theirs, with the default options).
    source
        What the tables are, for messages.

    Raises
    ------
    PolicyError
        The question names other quasi-identifiers or attributes than the tables hold, or its
        inputs name a weights column (the count tables do not carry the release's weights).
    """
    tables = tuple(tables)
    specs = tuple(t.spec for t in tables)
    if question is None:
        question = Question.of(classes.qi, specs, source=source)
    if question.qi != tuple(classes.qi) or question.attributes != specs:
        raise PolicyError(f"{source}: expected count tables of the quasi-identifiers {list(question.qi)} and the "
                          f"attributes {[attribute_label(s.name) for s in question.attributes]}, found "
                          f"{list(classes.qi)} and {[attribute_label(s.name) for s in specs]}")
    inputs = question.options.inputs
    if "weights" in inputs:
        raise PolicyError(f"{source}: the weights column {inputs['weights']!r} of individual risk is not among the "
                          "count tables; measure the release itself")
    return _measure(lambda step: (classes, tables), classes.qi, question.options, source=source, progress=False)


def _measure(
    build: Callable[[_Steps], tuple[Classes, tuple[CountTable, ...]]],
    qi: Sequence[str],
    options: MeasureOptions,
    *,
    source: str,
    progress: bool | ProgressCallback,
    engine: EngineName = "pandas",
) -> MeasureResult:
    """Build the count tables, then measure every model of the registry the options ask for: the
    release-scope models once, then every attribute-scope model on each attribute, in registry order.

    The models run on :func:`~verifier.cpus.usable_cpus` threads when the count tables hold
    at least :data:`PARALLEL_CELLS` cells (their work is then numpy's, which releases the
    interpreter; on smaller tables threads only add their overhead); the measurements are
    listed in that same order whatever order they finish in, and each model's time is its
    own wall time.
    """
    active = [m for m in models() if m.kind != "randomized" and m.measured(options)]
    on_release = [m for m in active if m.scope == "release"]
    on_attribute = [m for m in active if m.scope == "attribute"]
    timings: dict[str, float] = {}
    start = time.perf_counter()
    with _progress(progress) as step:
        classes, tables = _timed(timings, "count_tables", step, lambda: build(step))
        if classes.rows:  # a frame that cannot hold the release is refused whatever the models that read it
            frame_of(classes.rows, options.inputs, f"the release {source}")
        if "weights" in options.inputs:
            options, tables = _with_weights(options, tables)
        runs = [(item, Subject(classes, None, options)) for item in on_release]
        runs += [(item, Subject(classes, table, options)) for table in tables for item in on_attribute]
        step.total = len(runs)
        cells = sum(table.class_index.size for table in tables)
        try:
            measured = _run_all(runs, step, usable_cpus() if cells >= PARALLEL_CELLS else 1)
        finally:
            for table in tables:
                table.forget_derived()
        metrics = class_metrics(classes)
    measurements: list[Measurement] = []
    for (item, _), (found, seconds) in zip(runs, measured, strict=True):
        measurements.extend(found)
        timings[item.id] = timings.get(item.id, 0.0) + seconds
    timings["total"] = time.perf_counter() - start
    return MeasureResult(
        source=source,
        qi=tuple(qi),
        rows=classes.rows,
        classes=classes.count,
        excluded={attribute_label(t.attribute): t.excluded for t in tables},
        measurements=tuple(measurements),
        metrics=metrics,
        timings=timings,
        tables={t.attribute: t for t in tables},
        engine=engine,
    )


def _with_weights(options: MeasureOptions, tables: tuple[CountTable, ...]) -> tuple[MeasureOptions, tuple[CountTable, ...]]:
    """Turn the weights column's count table (counted last) into each class's exact sum of weights
    (the ``class_weights`` input of individual risk)."""
    from verifier.inputs import ClassWeights

    *kept, weights = tables
    sums = [Fraction(0)] * weights.classes.count
    values = [_weight(v, options.inputs["weights"]) for v in weights.values]
    for index, value, count in zip(weights.class_index.tolist(), weights.value_index.tolist(), weights.count.tolist()):
        sums[index] += values[value] * count
    found = ClassWeights(tuple(sums), f"column {options.inputs['weights']}")
    return replace(options, inputs=options.inputs.with_(class_weights=found)), tuple(kept)


_LARGEST_WEIGHT = 10**300


def _weight(value: object, column: str) -> Fraction:
    """A sampling weight, exact: a positive number of people up to 10^300 (checked before any big number is built)."""
    from decimal import Decimal

    if isinstance(value, Decimal) and value.is_finite() and value > 0 and value.adjusted() > 300:
        raise DataError(f"the weights column {column!r}: expected weights of at most 10^300 people, found {value:.6g}")
    if not isinstance(value, (int, Decimal)) or isinstance(value, bool):
        raise DataError(f"the weights column {column!r}: expected a number, found {value!r}")
    weight = Fraction(value)
    if weight <= 0 or weight > _LARGEST_WEIGHT:
        raise DataError(f"the weights column {column!r}: expected a positive weight of at most 10^300 (the number of "
                        f"people a record stands for), found {Decimal(value) if weight <= 0 else f'{Decimal(value):.6g}'}")
    return weight


def _run_all(runs: Sequence[tuple[Model, Subject]], step: _Steps,
             threads: int) -> list[tuple[list[Measurement], float]]:
    """Each run's measurements and wall time, in the order of ``runs``; on ``threads`` threads.

    The first run (in order) that raises raises here, once every run has ended.
    """
    def timed(run: tuple[Model, Subject]) -> tuple[list[Measurement], float]:
        begin = time.perf_counter()
        found = list(run[0].measure(run[1]))
        return found, time.perf_counter() - begin

    workers = min(threads, len(runs))
    if workers <= 1:
        done = []
        for run in runs:
            step.advance(run[0].id)
            done.append(timed(run))
        return done
    larger_first = sorted(range(len(runs)), key=lambda i: -_cells(runs[i][1]))  # the long runs start first
    with ThreadPoolExecutor(workers, thread_name_prefix="privcert-measure") as pool:
        futures = {i: pool.submit(timed, runs[i]) for i in larger_first}
        names = {future: runs[i][0].id for i, future in futures.items()}
        for future in as_completed(names):
            step.advance(names[future])
        return [futures[i].result() for i in range(len(runs))]


def _cells(subject: Subject) -> int:
    """The non-empty cells a run reads (none for a release-scope model)."""
    return 0 if subject.table is None else int(subject.table.class_index.size)


def _timed(timings: dict[str, float], name: str, step: _Steps, run: Callable[[], Any]) -> Any:
    step.advance(name)
    start = time.perf_counter()
    result = run()
    timings[name] = timings.get(name, 0.0) + time.perf_counter() - start
    return result


@dataclass
class _Steps:
    """Advances a rich progress bar (if any): the engine's phases (scan, group), then one step per model."""

    bar: Progress | None = None
    total: int | None = None
    report: ProgressCallback | None = None
    done: int = 0

    def phase(self, name: str, done: int, total: int | None, unit: str) -> None:
        """A :data:`verifier.engines.Phase`: ``scan``/``group`` with the rows, partitions or aggregations done."""
        if self.report is not None:
            self.report(f"{name}: {done:,}{'' if total is None else f'/{total:,}'} {unit}", done, total)
        if self.bar is not None:
            self.bar.update(self.bar.task_ids[0], total=total, completed=done,
                            description=f"{name}: {done:,}{'' if total is None else f'/{total:,}'} {unit}")

    def advance(self, name: str) -> None:
        self.done += 1
        if self.report is not None:
            self.report(f"measure: {name}", self.done, self.total)
        if self.bar is not None:
            task = self.bar.tasks[0]
            completed = task.completed if task.total == self.total else 0
            self.bar.update(task.id, total=self.total, completed=completed + 1, description=f"measure: {name}")


@contextmanager
def _progress(show: bool | ProgressCallback) -> Iterator[_Steps]:
    """Yield the run's :class:`_Steps`, with a transient progress bar on stderr when ``show`` is true,
    telling ``show`` each step when it is a :data:`ProgressCallback`."""
    if callable(show):
        yield _Steps(report=show)
        return
    if not show:
        yield _Steps()
        return
    with Progress(console=Console(stderr=True), transient=True) as bar:
        bar.add_task("scan", total=None)
        yield _Steps(bar)
