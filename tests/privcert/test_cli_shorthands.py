"""``measure``'s shorthands (``--l``, ``--k``) come from the models' declarations: each is the ``--param`` it stands
for, and a model's parameter declared a shorthand gets its option with no edit to the command line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from privcert.cli import app
from verifier.literal import Domain
from verifier.references import Source
from verifier.registry import Model, Parameter, Subject, registered, shorthands
from verifier.results import Level, Measurement

runner = CliRunner()
TABLE4 = Path(__file__).resolve().parents[2] / "examples" / "table4"
MEASURE = ["measure", str(TABLE4 / "release.csv"), "--qi", "zip,age", "--sensitive", "disease", "--json", "-"]


def _capped(subject: Subject) -> Iterator[Measurement]:
    largest = int(subject.classes.sizes.max())
    for parameters in subject.requested("capped_largest_class"):
        cap = int(parameters["cap"])
        yield Measurement("capped_largest_class", None, Level.of(min(cap, largest)), None, "at_most",
                          parameters={"cap": cap})


TOY = Model(
    id="capped_largest_class", name="capped largest class", kind="privacy", scope="release",
    source=Source("privcert (derived here)", "tests", "a toy model"), comparison="at_most",
    threshold=Domain(lower=Fraction(0)), units="records", measure=_capped, by_default=False,
    parameters=(Parameter("cap", "the cap", Domain(lower=Fraction(1), integer=True), shorthand=True),),
)


def _rows(args: list[str], model: str) -> list[tuple[Any, str]]:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return [(m["parameters"], m["exact"]) for m in json.loads(result.stdout)["measurements"] if m["model"] == model]


def test_a_declared_shorthand_is_an_option_without_a_cli_edit() -> None:
    with registered(TOY):
        assert "cap" in shorthands()
        helped = runner.invoke(app, ["measure", "--help"], env={"COLUMNS": "200"})
        assert helped.exit_code == 0 and "--cap CAP,..." in helped.stdout, helped.stdout
        assert "--param MODEL.cap=CAP for capped_largest_class" in helped.stdout
        # Table 4 of Li et al. 2007: three classes of three records
        expected = [({"cap": 2}, "2"), ({"cap": 5}, "3")]
        assert _rows([*MEASURE, "--cap", "2,5"], "capped_largest_class") == expected
        assert _rows([*MEASURE, "--cap=2", "--cap", "5"], "capped_largest_class") == expected
        assert _rows([*MEASURE, "--param", "capped_largest_class.cap=2", "--param", "capped_largest_class.cap=5"],
                     "capped_largest_class") == expected
        refused = runner.invoke(app, [*MEASURE, "--cap", "0"])
        assert refused.exit_code == 2 and "--cap: expected integers from 1 to 10^18" in refused.stderr
    unknown = runner.invoke(app, [*MEASURE, "--cap", "2"])
    assert unknown.exit_code == 2 and "--cap" in unknown.output


def test_l_is_the_param_it_stands_for() -> None:
    short = _rows([*MEASURE, "--l", "3"], "recursive_cl_diversity")
    assert short == _rows([*MEASURE, "--param", "recursive_cl_diversity.l=3"], "recursive_cl_diversity")
    assert [parameters["l"] for parameters, _ in short] == [2, 3]


def test_k_is_the_param_of_every_model_sized_by_a_subset(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text("value,a,b,c\na,2/3,1/6,1/6\nb,1/6,2/3,1/6\nc,1/6,1/6,2/3\n")
    (tmp_path / "r.csv").write_text("q,s\nx,a\nx,b\nx,a\ny,c\ny,a\ny,b\n")
    base = ["measure", str(tmp_path / "r.csv"), "--qi", "q", "--sensitive", "s", "--mechanism", str(tmp_path / "m.csv"),
            "--json", "-"]

    def randomized(*args: str) -> list[tuple[str, Any, str]]:
        result = runner.invoke(app, [*base, *args])
        assert result.exit_code == 0, result.output
        return [(m["model"], m["parameters"].get("k"), m["exact"])
                for m in json.loads(result.stdout)["randomized"]["measurements"]]

    short = randomized("--k", "1,2")
    assert short == randomized(*(item for model in ("kt_closeness", "k_eps_dp") for k in (1, 2)
                                 for item in ("--param", f"{model}.k={k}")))
    sized = ("kt_closeness", "k_eps_dp")
    assert {(model, k) for model, k, _ in short if model in sized} == {(model, k) for model in sized for k in (1, 2)}


def test_k_without_a_mechanism_is_refused() -> None:
    result = runner.invoke(app, [*MEASURE, "--k", "2"])
    assert result.exit_code == 2 and "--k and --mode apply to randomized releases" in result.stderr
