"""The re-identification risk models: ARX's asserted values, brute force, simulation, CLI and policy.

``tests/data/arx_adult_class_sizes.csv`` holds the class-size histograms of ARX's
``data/adult.csv`` (SHA-256 c700df93…91c5, 30,162 records) over the nine attributes
that have a hierarchy in ARX's repository (ARX's ``TestRiskMetrics`` set-up), before
and after ARX's 2-anonymization with the loss metric (RANK aggregation) and no
suppression: every model of these tests is a function of that histogram. The values
asserted are those of ``TestRiskMetrics`` (ARX, ``src/test``), which its test compares
on four significant digits; here they are compared to 10^-9.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from privcert.cli import app
from verifier.errors import PolicyError
from verifier.policy import parse_policy
from verifier.risk import suda
from verifier.risk.distribution import risk_distribution
from verifier.risk.histogram import SizeHistogram, sampling, size_histogram
from verifier.risk.individual import individual_risks, uniform_weights
from verifier.risk.population import estimate
from verifier.risk.suda import suda2
from verifier.tables.counting import count_tables

DATA = Path(__file__).parents[2] / "data" / "arx_adult_class_sizes.csv"


def _histogram(release: str) -> SizeHistogram:
    frame = pd.read_csv(DATA)
    frame = frame[frame["release"] == release]
    return SizeHistogram(frame["size"].to_numpy(np.int64), frame["classes"].to_numpy(np.int64))


def _classes(histogram: SizeHistogram) -> pd.DataFrame:
    sizes = np.repeat(histogram.sizes, histogram.classes)
    return pd.DataFrame({"key": np.repeat(np.arange(sizes.size), sizes).astype(str)})


@pytest.mark.parametrize(("fraction", "estimator", "expected"), [
    ("1/100", "dankar", 0.1446083531167384),   # testDecisionRule2, Pitman chosen
    ("1/10", "dankar", 0.27684993883653597),   # testDecisionRule2, Pitman chosen
    ("1/10", "zayatz", 0.3207402393466189),    # testDecisionRule2's Zayatz branch
    ("1/5", "zayatz", 0.3577099234829125),     # testDecisionRule2 (ARX's rule falls back to Zayatz, see below)
    ("1", "dankar", 0.5142895033485844),       # testDecisionRule2, = sample uniqueness
])
def test_arx_test_risk_metrics_population_uniqueness(fraction: str, estimator: str, expected: float) -> None:
    histogram = _histogram("adult")
    found = estimate(estimator, histogram, sampling(histogram.rows, fraction=Fraction(fraction)))
    assert found.share == pytest.approx(expected, abs=1e-9)


def test_dankar_at_one_fifth_takes_snb_where_arx_has_none() -> None:
    """ARX's SNB gives NaN on adult at 1/5, so its rule falls back to Zayatz (0.35771); SNB has an estimate
    here (0.34994 < Zayatz), and the rule of Dankar et al. takes the smaller."""
    histogram = _histogram("adult")
    frame = sampling(histogram.rows, fraction=Fraction(1, 5))
    found = estimate("dankar", histogram, frame)
    assert found.chosen == "snb"
    assert found.share == pytest.approx(0.3499351613332706, abs=1e-9)
    assert found.share < estimate("zayatz", histogram, frame).share


def test_arx_test_risk_metrics_sample_risks() -> None:
    """testAverageRisk2 and testHighestIndividualRisk2: before and after 2-anonymization."""
    for release, average, highest in (("adult", 0.6465751607983555, 1.0), ("adult_2anonymous", 0.001922949406538028, 0.5)):
        classes, _ = count_tables(_classes(_histogram(release)), ["key"], [])
        result = measure_risk(classes)
        assert float(Fraction(result["marketer_risk"])) == average
        assert Fraction(result["prosecutor_risk"]) == Fraction(highest)


def measure_risk(classes: object) -> dict[str, str]:
    from verifier.measure import measure_tables
    from verifier.question import Question

    question = Question.of(classes.qi, (), kinds={"risk"})  # type: ignore[attr-defined]
    report = measure_tables(classes, [], question)  # type: ignore[arg-type]
    return {m.model: m.level.exact for m in report.measurements}


def _brute_msus(rows: list[tuple[int, ...]]) -> set[tuple[int, int]]:
    """Every (record, subset mask) minimal sample unique, by enumeration."""
    width = len(rows[0])
    found = set()
    for index, row in enumerate(rows):
        unique = []
        for size in range(1, width + 1):
            for subset in itertools.combinations(range(width), size):
                mask = sum(1 << a for a in subset)
                if any(u & mask == u for u in unique):
                    continue
                if sum(all(other[a] == row[a] for a in subset) for other in rows) == 1:
                    unique.append(mask)
        found.update((index, mask) for mask in unique)
    return found


# ARX's RiskModelSampleRiskDistribution: the inclusive upper bounds of its bands, as it writes them.
ARX_UPPER = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.125,
             0.143, 0.167, 0.2, 0.25, 0.334, 0.5, 1.0]


def test_risk_bands_put_every_class_size_where_arx_does() -> None:
    """ARX finds a class of size f in the band of 1/f by binary search on its float bounds (0.143, 0.167, 0.334
    for 1/7, 1/6, 1/3); privcert's exact bands agree on every size up to 10^4, at each power of ten and its
    neighbours, and at ARX's largest class size."""
    powers = [10**e + d for e in range(4, 10) for d in (-1, 0, 1)]
    sizes = np.array([*range(1, 10_000), *powers, 2**31 - 1], dtype=np.int64)
    bands = risk_distribution(SizeHistogram(sizes, np.ones(sizes.size, dtype=np.int64)))
    arx = np.searchsorted(np.array(ARX_UPPER), 1.0 / sizes, side="left")
    expected = np.bincount(arx, weights=sizes.astype(np.float64), minlength=len(ARX_UPPER))
    assert [band.records for band in bands] == expected.astype(np.int64).tolist()
    assert [float(band.upper) for band in bands] == pytest.approx(ARX_UPPER, rel=3e-3)


@given(st.lists(st.integers(1, 10**9), min_size=1, max_size=30))
def test_risk_bands_hold_every_record_once_in_its_band(sizes: list[int]) -> None:
    bands = risk_distribution(size_histogram(np.array(sizes)))
    assert sum(band.records for band in bands) == sum(sizes) and sum(band.share for band in bands) == 1
    for band in bands:
        assert band.records == sum(size for size in sizes if band.lower < Fraction(1, size) <= band.upper)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, 2)] * 4), min_size=1, max_size=25))
def test_suda2_finds_exactly_the_minimal_sample_uniques(rows: list[tuple[int, ...]]) -> None:
    frame = pd.DataFrame(rows, columns=list("abcd")).astype(str)
    classes, _ = count_tables(frame, list("abcd"), [])
    result = suda2(classes)
    first = {tuple(r): i for i, r in reversed(list(enumerate(rows)))}
    keys = [tuple(int(v) for v in classes.keys.iloc[c]) for c in range(classes.count)]
    expected = {(keys.index(rows[i]), m) for i, m in _brute_msus(rows) if first[rows[i]] == i}
    assert set(zip(result.msu_records.tolist(), result.msu_masks.tolist())) == expected
    assert not np.isnan(result.dis).any()


@st.composite
def _tables(draw: st.DrawFn) -> list[tuple[int, ...]]:
    """Small tables of 1 to 6 columns, values 0..1 to 0..4 per column, records possibly repeated."""
    widths = draw(st.lists(st.integers(1, 4), min_size=1, max_size=6))
    row = st.tuples(*[st.integers(0, w) for w in widths])
    distinct = draw(st.lists(row, min_size=1, max_size=20))
    return draw(st.lists(st.sampled_from(distinct), min_size=1, max_size=30))


@settings(max_examples=80, deadline=None)
@given(_tables(), st.integers(1, 6))
def test_suda2_scores_equal_brute_force_enumeration(rows: list[tuple[int, ...]], max_size: int) -> None:
    """Each record's SUDA score is Σ (M - |m|)! over its MSUs of at most max_size values, enumerated by brute force."""
    width = len(rows[0])
    columns = [f"q{i}" for i in range(width)]
    classes, _ = count_tables(pd.DataFrame(rows, columns=columns), columns, [])
    result = suda2(classes, max_size)
    brute = _brute_msus(rows)
    keys = {tuple(int(v) for v in classes.keys.iloc[c]): c for c in range(classes.count)}
    expected = [0] * classes.count
    for index, mask in brute:
        if bin(mask).count("1") <= max_size:
            expected[keys[rows[index]]] += math.factorial(width - bin(mask).count("1"))
    assert result.scores.tolist() == expected
    assert result.msu_sizes.tolist() == [bin(m).count("1") for m in result.msu_masks.tolist()]
    assert not np.isnan(result.dis).any()


@pytest.mark.parametrize("sparse", [1 << 16, -(1 << 20)])
def test_suda2_on_columns_of_many_values(sparse: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Group codes past 4·classes + SPARSE_GROUPS are renumbered densely (with -2^20, at every subset): the MSUs are
    still exactly brute force's."""
    monkeypatch.setattr(suda, "SPARSE_GROUPS", sparse)
    rng = np.random.default_rng(7)
    rows = [tuple(int(v) for v in row) for row in rng.integers(0, [400, 40, 3], size=(300, 3))]
    classes, _ = count_tables(pd.DataFrame(rows, columns=list("abc")).astype(str), list("abc"), [])
    result = suda2(classes)
    keys = {tuple(int(v) for v in classes.keys.iloc[c]): c for c in range(classes.count)}
    assert set(zip(result.msu_records.tolist(), result.msu_masks.tolist())) == {
        (keys[rows[i]], m) for i, m in _brute_msus(rows)}


def test_suda_scores_on_a_worked_example() -> None:
    """(c,x,3) is unique on c and on 3: two MSUs of size 1, score 2·(3-1)! = 4; (a,x,1) has {a,x} and {x,1}: 1!+1! = 2."""
    frame = pd.DataFrame({"a": list("aabbc"), "b": list("xyxyx"), "c": list("11223")})
    classes, _ = count_tables(frame, ["a", "b", "c"], [])
    result = suda2(classes)
    assert result.scores.tolist() == [2, 2, 2, 2, 4]
    assert result.dis.tolist() == [1.0] * 5  # no class of exactly two records: DIS-SUDA is 1, never NaN
    assert result.special_uniques() == 5


def test_individual_risk_closed_forms() -> None:
    """sdcMicro's approximation: f=1 → p/(1-p)·ln(1/p); f=2 → p/(1-p) - (p/(1-p))²·ln(1/p); f>2 → p/(f-1+p)."""
    frame = pd.DataFrame({"k": ["a", "b", "b", "c", "c", "c"]})
    classes, _ = count_tables(frame, ["k"], [])
    risks = individual_risks(classes, uniform_weights(classes, 60))
    p = 0.1
    assert risks.tolist() == pytest.approx([p / (1 - p) * math.log(1 / p),
                                            p / (1 - p) - (p / (1 - p)) ** 2 * math.log(1 / p), p / (3 - 1 + p)])


def _sample_population(rng: np.random.Generator, people: int, fraction: float) -> tuple[SizeHistogram, int, int]:
    """A population whose class sizes follow a Zipf law, a simple random sample of it, and the true population uniques."""
    sizes = np.minimum(rng.zipf(1.6, size=people // 3), people)
    sizes = sizes[np.cumsum(sizes) <= people]
    population = np.repeat(np.arange(sizes.size), sizes)
    sample = rng.choice(population, size=int(round(population.size * fraction)), replace=False)
    _, counts = np.unique(sample, return_counts=True)
    return size_histogram(counts), int(population.size), int((sizes == 1).sum())


def test_estimators_on_samples_of_a_known_population() -> None:
    """Dankar et al.'s set-up in small: sample a known population at several fractions and compare each
    estimate with the true share of population uniques; the rule's estimate is within a factor 2."""
    rng = np.random.default_rng(7)
    for fraction in (0.05, 0.1, 0.3):
        histogram, people, uniques = _sample_population(rng, 60_000, fraction)
        frame = sampling(histogram.rows, population=people)
        found = estimate("dankar", histogram, frame)
        assert found.share is not None
        assert 0.5 < found.share / (uniques / people) < 2


def test_estimate_without_a_solution_says_why() -> None:
    """All classes singletons: no Pitman maximum; no class of size 2: no SNB solution (never a silent 0)."""
    histogram = size_histogram(np.ones(50, dtype=np.int64))
    frame = sampling(50, fraction=Fraction(1, 10))
    assert "no maximum" in (estimate("pitman", histogram, frame).reason or "")
    assert "size 2" in (estimate("snb", histogram, frame).reason or "")
    assert estimate("dankar", histogram, frame).chosen == "zayatz"


RELEASE = Path("privcert/data/hospital/release.csv")


def test_cli_measure_risk_gives_every_model(tmp_path: Path) -> None:
    table = tmp_path / "population.csv"
    classes, _ = count_tables(pd.read_csv(RELEASE, dtype=str), ["zip"], [])
    pd.DataFrame({"zip": classes.keys["zip"], "count": classes.sizes * 10}).to_csv(table, index=False)
    result = CliRunner().invoke(app, ["measure", str(RELEASE), "--qi", "zip", "--risk", "--sampling-fraction", "1/10",
                                      "--population-table", str(table), "--json", "-"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    models = {m["model"] for m in document["measurements"]}
    assert {"sample_uniqueness", "population_uniqueness", "marketer_risk", "journalist_risk", "individual_risk",
            "suda", "k_map", "delta_presence"} <= models
    by_model = {m["model"]: m for m in document["measurements"]}
    assert by_model["k_map"]["level"] == 10 * int(classes.sizes.min())
    assert by_model["delta_presence"]["exact"] == "1/10"
    estimators = {m["parameters"]["estimator"] for m in document["measurements"] if m["model"] == "population_uniqueness"}
    assert estimators == {"pitman", "zayatz", "snb", "dankar"}
    assert all(m["status"] == "estimate" and m["parameters"]["sampling_fraction"] == "1/10"
               for m in document["measurements"] if m["model"] == "population_uniqueness" and m["level"] != 0)


def test_cli_risk_inputs_need_risk_and_one_frame() -> None:
    runner = CliRunner()
    base = ["measure", str(RELEASE), "--qi", "zip", "--sensitive", "diagnosis"]
    for extra, message in ((["--sampling-fraction", "1/10"], "expected --risk"),
                           (["--risk", "--sampling-fraction", "1/10", "--population", "9"], "found both"),
                           (["--risk", "--sampling-fraction", "2"], "(0, 1]")):
        result = runner.invoke(app, base + extra)
        assert result.exit_code == 2 and message in result.output, result.output


POLICY = """
[data]
qi = ["zip"]
[sensitive.diagnosis]
[risk]
sampling_fraction = "1/10"
[[require]]
model = "population_uniqueness"
estimator = "dankar"
threshold = "1/100"
[[require]]
model = "sample_uniqueness"
threshold = "1/2"
"""


def test_policy_requirements_on_risk_models_are_decided() -> None:
    from verifier.audit import audit

    policy = parse_policy(POLICY)
    result = audit(RELEASE, policy)
    verdicts = {check.requirement.model: check.verdict for check in result.checks}
    assert set(verdicts) == {"population_uniqueness", "sample_uniqueness"}
    population = next(c for c in result.checks if c.requirement.model == "population_uniqueness")
    assert population.measurement.parameters == {"estimator": "dankar", "sampling_fraction": Fraction(1, 10)}


@pytest.mark.parametrize(("text", "message"), [
    (POLICY.replace('sampling_fraction = "1/10"', 'sampling_fraction = "1/10"\npopulation = 5'), "not both"),
    (POLICY.replace('[risk]\nsampling_fraction = "1/10"', ""), "require[1].sampling_fraction"),
    (POLICY.replace("[risk]", "[risk]\ntypo = 1"), "risk"),
    (POLICY + '[[require]]\nmodel = "k_map"\nthreshold = 2\n', "population_table"),
])
def test_policy_risk_errors_name_the_key(text: str, message: str) -> None:
    with pytest.raises(PolicyError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_policy(text)
