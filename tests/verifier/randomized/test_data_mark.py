"""A mechanism file's data mark: what its matrix was computed from (:mod:`verifier.randomized.data_mark`)."""

from __future__ import annotations

import csv
import io
from fractions import Fraction

import pytest
import sympy

from verifier.errors import MechanismError
from verifier.randomized.data_mark import NOT_STATED, DataMark, mark_sentence
from verifier.randomized.mechanism import Mechanism, mechanism_csv, parse_mechanism

MATRIX = (("3/4", "1/4"), ("1/4", "3/4"))


def _parse(text: str) -> Mechanism:
    return parse_mechanism(list(csv.reader(io.StringIO(text, newline=""))), source="m.csv")


@pytest.mark.parametrize("mark", [DataMark("independent"), DataMark("histogram"), DataMark("counts"),
                                  DataMark("estimate", sympy.log(4)), DataMark("estimate", sympy.Rational(1, 2))])
def test_the_mark_is_written_first_and_read_back(mark: DataMark) -> None:
    written = mechanism_csv(Mechanism(("a", "b"), ("a", "b"), MATRIX, data=mark))
    assert written.splitlines()[: len(mark.lines())] == list(mark.lines())
    assert written.splitlines()[len(mark.lines())] == "value,a,b"
    read = _parse(written)
    assert read.data == mark and read.matrix == ((Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4)))


def test_a_file_without_a_mark_states_nothing() -> None:
    read = _parse("value,a,b\na,3/4,1/4\nb,1/4,3/4\n")
    assert read.data is None and mark_sentence(read.data) == NOT_STATED
    assert mechanism_csv(read) == "value,a,b\na,3/4,1/4\nb,1/4,3/4\n"


def test_the_estimate_states_its_composition() -> None:
    assert DataMark("estimate", sympy.log(4)).sentence() == (
        "computed from a differentially private estimate of the original's histogram (ε = ln(4)): the release with "
        "its mechanism is (ε + ln(4))-differentially private for each of the original's records, ε the mechanism's "
        "ε-LDP level (sequential composition)")
    assert not DataMark("independent").data_dependent and DataMark("histogram").data_dependent


@pytest.mark.parametrize(("text", "message"), [
    ("# data: guessed\nvalue,a\na,1\n", "m.csv: data mark: expected one of ['independent', 'histogram', 'counts', "
                                        "'estimate'], found 'guessed'"),
    ("# estimate_epsilon: 1\nvalue,a\na,1\n", "m.csv: the data mark has estimate_epsilon but no '# data: <kind>' line"),
    ("# data: estimate\nvalue,a\na,1\n", "m.csv: data mark: expected estimate_epsilon with data: estimate and only "
                                         "then, found data: estimate and estimate_epsilon None"),
    ("# data: counts\n# estimate_epsilon: 1\nvalue,a\na,1\n", "expected estimate_epsilon with data: estimate and "
                                                              "only then, found data: counts and estimate_epsilon 1"),
    ("# data: estimate\n# estimate_epsilon: 0\nvalue,a\na,1\n", "expected a finite estimate_epsilon > 0, found 0"),
    ("# data: estimate\n# estimate_epsilon: -1\nvalue,a\na,1\n", "m.csv: estimate_epsilon"),
    ("# data: counts\n# data: counts\nvalue,a\na,1\n", "m.csv, line 2: the data mark's data is given twice"),
    ("# data: independent\n", "m.csv: expected a header 'value,<bucket>,...', found only the data mark"),
    ("# made by hand\nvalue,a\na,1\n", "m.csv, line 1: expected a data mark '# data: <kind>' or "
                                       "'# estimate_epsilon: <ε>', found '# made by hand'"),
    ("# data: counts,x\nvalue,a\na,1\n", "m.csv, line 1: expected a data mark"),
    ("# data: counts\nvalue,a\na,1/2\n", "m.csv, line 3 (true value 'a'): expected probabilities summing to 1"),
    ("# data: counts\nvalue,a\na,1\na,1\n", "m.csv, line 4, column 'value': true value 'a' is already on line 3"),
])
def test_a_bad_mark_is_refused_naming_the_line(text: str, message: str) -> None:
    with pytest.raises(MechanismError) as caught:
        _parse(text)
    assert message in str(caught.value)
