"""Every level privcert writes is read back by explain's grammar (verifier.exact_grammar) to the same value."""

from __future__ import annotations

import pandas as pd
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privcert
from theory.answers.audit_levels import AuditLevels
from theory.answers.explain import explain
from verifier.display import exact_text
from verifier.exact_grammar import GrammarError, read_exact
from verifier.randomized.modes import MechanismChoice
from verifier.tables.counts import AttributeSpec


@pytest.mark.parametrize("value", [
    sympy.Integer(3), sympy.Rational(3, 8), sympy.log(sympy.Rational(9, 4)), sympy.exp(sympy.Rational(1, 2)),
    2 * sympy.sqrt(2), 3 * sympy.Integer(2) ** sympy.Rational(1, 3) / 2, sympy.oo,
    sympy.Rational(10 ** 120 + 7, 3 ** 200), sympy.log(sympy.Rational(10 ** 115 + 3, 10 ** 114 + 1)),
])
def test_written_levels_read_back(value: sympy.Expr) -> None:
    assert read_exact(exact_text(value), "x") == value


@pytest.mark.parametrize("text", ["__import__('os')", "2**3", "9^9^9", "e^100000", "ln(0)", "1/0", "sqrt(2", "x",
                                  "1" * 1001, "2^65", "2^(1/1000000000000001)", ""])
def test_other_text_is_refused(text: str) -> None:
    with pytest.raises(GrammarError):
        read_exact(text, "x")


_frames = st.lists(st.tuples(st.sampled_from("xyz"), st.sampled_from("abc")), min_size=2, max_size=9)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=_frames)
def test_every_measured_level_round_trips_and_is_explained(rows: list[tuple[str, str]]) -> None:
    frame = pd.DataFrame(rows, columns=["q", "s"])
    result = privcert.measure(frame, ["q"], [AttributeSpec(("s",))], l=2)
    for item in result.measurements:
        if item.level.value is not None:
            assert read_exact(item.level.exact, item.model) == item.level.value, (item.model, item.level.exact)
    explain(AuditLevels.from_json(result.to_json()))


@pytest.mark.slow
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=_frames, keep=st.sampled_from(["1/3", "1/2", "3/4"]))
def test_randomized_levels_round_trip(tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[str, str]],
                                      keep: str) -> None:
    """Publisher mode on randomized response over the values a, b, c (Ekenstedt et al. 2022, Fig. 4)."""
    p = sympy.Rational(keep)
    path = tmp_path_factory.mktemp("mechanism") / "m.csv"
    path.write_text("value,a,b,c\n" + "".join(
        f"{v}," + ",".join(str(p + (1 - p) / 3 if v == w else (1 - p) / 3) for w in "abc") + "\n" for v in "abc"))
    frame = pd.DataFrame(rows, columns=["q", "s"])
    result = privcert.measure(frame, ["q"], [AttributeSpec(("s",))],
                              mechanism=MechanismChoice(file=path, attribute="s", ks=(1,)))
    assert result.randomized is not None
    for item in result.randomized.measurements:
        if item.level.value is not None:
            assert read_exact(item.level.exact, item.model) == item.level.value, (item.model, item.level.exact)
    explain(AuditLevels.from_json(result.to_json()))


@pytest.mark.slow
def test_the_laplace_example_can_be_signed(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Its levels are long exact bounds: explain reads them (the weak bound) and the certificate is signed."""
    from pathlib import Path

    from typer.testing import CliRunner

    from privcert.cli import app

    runner = CliRunner()
    folder = tmp_path_factory.mktemp("signed")
    assert runner.invoke(app, ["keygen", "--out", str(folder / "key")]).exit_code == 0
    examples = Path(__file__).resolve().parents[2] / "examples" / "randomized"
    noisy = runner.invoke(app, ["anonymize", "noise", str(examples / "ages.csv"), "--sensitive", "age", "--noise",
                                "laplace", "--scale", "5", "--buckets", "30,45,60", "--out", str(folder / "noisy.csv"),
                                "--seed", "7"])
    assert noisy.exit_code == 0, noisy.output
    # publisher mode signs the published release (the noisy buckets) as the subject, never the original
    result = runner.invoke(app, ["audit", "--policy", str(examples / "laplace.toml"), "--release",
                                 str(folder / "noisy.csv"), "--sign", str(folder / "key"),
                                 "--certificate", str(folder / "cert.json")])
    assert result.exit_code == 0, result.output
    assert (folder / "cert.json").is_file()


def _one_class(counts: list[int]) -> pd.DataFrame:
    return pd.DataFrame([("x", f"v{i}") for i, count in enumerate(counts) for _ in range(count)], columns=["q", "s"])


@settings(max_examples=40, deadline=None)
@given(counts=st.lists(st.integers(1, 5000), min_size=1, max_size=4).filter(lambda c: sum(c) <= 10_000))
def test_entropy_levels_of_any_class_size_round_trip(counts: list[int]) -> None:
    """The entropy l-diversity of a class of up to 10,000 records is a product of roots of degree up to the class
    size (``65*2^(6/65)/64``): every level written is read back to the same value."""
    from verifier.privacy.diversity import entropy_l_diversity
    from verifier.tables.counting import count_tables

    _, (table,) = count_tables(_one_class(counts), ["q"], [AttributeSpec(("s",))])
    level = entropy_l_diversity(table).level
    assert read_exact(level.exact, "l") == level.value, (counts, level.exact)


def test_the_entropy_of_65_records_is_read_and_signed(tmp_path: pytest.TempPathFactory) -> None:
    """{x×64, y} in one class: entropy l = 65*2^(6/65)/64; explain and ``audit --sign --certificate`` exited 2."""
    from pathlib import Path

    from typer.testing import CliRunner

    from privcert.cli import app

    assert read_exact("65*2^(6/65)/64", "l") == 65 * sympy.Integer(2) ** sympy.Rational(6, 65) / 64
    folder = Path(str(tmp_path))
    frame = _one_class([64, 1])
    frame.to_csv(folder / "release.csv", index=False)
    (folder / "policy.toml").write_text('[data]\npath = "release.csv"\nqi = ["q"]\n\n[sensitive.s]\nkind = "categorical"\n\n'
                                        '[[require]]\nmodel = "entropy_l_diversity"\nattribute = "s"\nthreshold = 1\n')
    runner = CliRunner()
    assert runner.invoke(app, ["keygen", "--out", str(folder / "key")]).exit_code == 0
    result = runner.invoke(app, ["audit", "--policy", str(folder / "policy.toml"), "--json", str(folder / "audit.json"),
                                 "--sign", str(folder / "key"), "--certificate", str(folder / "cert.json")])
    assert result.exit_code == 0, result.output
    assert "65*2^(6/65)/64" in (folder / "audit.json").read_text()
    explained = runner.invoke(app, ["theory", "explain", str(folder / "audit.json")])
    assert explained.exit_code == 0, explained.output


def _prime_counts(records: int) -> list[int]:
    """The first primes as the counts of one class's values, the last one taking what is left: many distinct
    counts, each its own prime factor (the longest entropy levels)."""
    counts: list[int] = []
    for prime in sympy.primerange(2, records):
        if sum(counts) + prime > records:
            break
        counts.append(int(prime))
    counts[-1] += records - sum(counts)
    return counts


@pytest.mark.parametrize("records, length", [(10 ** 5, 4065), (10 ** 6, 13_474)])
def test_entropy_levels_of_large_classes_round_trip(records: int, length: int) -> None:
    """One class of 10^5 (10^6) records over 190 (546) values held a prime number of times each: the level is a
    product of roots longer than MAX_LENGTH (and at 10^6 an integer of 1,680 digits), read back to its value."""
    from verifier.exact_grammar import MAX_LENGTH
    from verifier.privacy.diversity import entropy_l_diversity
    from verifier.tables.counting import count_tables

    _, (table,) = count_tables(_one_class(_prime_counts(records)), ["q"], [AttributeSpec(("s",))])
    level = entropy_l_diversity(table).level
    assert len(level.exact) == length > MAX_LENGTH
    assert read_exact(level.exact, "l") == level.value


def test_theory_explain_reads_a_long_entropy_level(tmp_path: pytest.TempPathFactory) -> None:
    """`theory explain` on the measurement of a class of 10^5 records with 190 distinct counts (exit 2 before)."""
    import json
    from pathlib import Path

    from typer.testing import CliRunner

    from privcert.cli import app

    path = Path(str(tmp_path)) / "measured.json"
    result = privcert.measure(_one_class(_prime_counts(10 ** 5)), ["q"], [AttributeSpec(("s",))])
    path.write_text(json.dumps(result.to_json()), encoding="utf-8")
    explained = CliRunner().invoke(app, ["theory", "explain", str(path), "--json"])
    assert explained.exit_code == 0, explained.output
    implied = {item["definition"]: item for item in json.loads(explained.stdout)}
    assert implied["k_anonymity"]["implied"] is True


@pytest.mark.parametrize("text, message", [
    ("2^(1/3)*" * 600 + "1", "a level of more than 4000 characters (the limit of a product of roots"),
    ("1+" * 2100 + "1", "a level of more than 4000 characters (not a product of roots"),
    ("2^(3/2)*" * 600 + "1", "not a product of roots"),
])
def test_a_long_level_is_read_only_as_a_product_of_roots_within_its_limit(text: str, message: str) -> None:
    """Beyond MAX_LENGTH only a product of roots (exponents in (0, 1)) is read, up to product_limit of its largest
    root's degree: 4000 characters for a cube root."""
    with pytest.raises(GrammarError, match=message.replace("(", r"\(")):
        read_exact(text, "x")
