"""End to end: randomized releases from the command line on the bundled example."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from privcert.cli import app
from verifier.randomized.mechanism import load_mechanism

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "randomized"
runner = CliRunner()


def test_publisher_mode_from_the_policy() -> None:
    result = runner.invoke(app, ["audit", "--policy", str(EXAMPLE / "publisher.toml"), "--json", "-"])
    assert result.exit_code == 0, result.output
    section = json.loads(result.stdout)["randomized"]
    assert section["mode"] == "publisher"
    models = [(m["model"], m["parameters"].get("k")) for m in section["measurements"]]
    assert models == [("stochastic_t_closeness", 318), ("ldp", None), ("dp", None), ("kt_closeness", 2),
                      ("kt_closeness", 50), ("kt_closeness", 10), ("k_eps_dp", 2), ("k_eps_dp", 50),
                      ("k_eps_dp", 10)]  # in registry order; k = 10 named by a requirement
    ldp = section["measurements"][1]
    # Fig. 4 with p_LDP = 1/2 on 4 values: 5/8 against 1/8 (every value occurs in the data).
    assert ldp["exact"] == "ln(5)"
    kt = section["measurements"][3]
    assert "the 2 records with the highest Pr('hiv'): 2 × 'hiv'" in kt["witness"]["numbers"]["subset"]


def test_auditor_mode_labels_implied_levels() -> None:
    result = runner.invoke(app, ["audit", "--policy", str(EXAMPLE / "auditor.toml"), "--json", "-"])
    assert result.exit_code == 0, result.output
    measurements = json.loads(result.stdout)["randomized"]["measurements"]
    assert measurements[0]["model"] == "ldp" and measurements[0]["exact"] == "ln(5)"
    assert measurements[0]["parameters"] == {"data_independent": True}
    implied = {(m["model"], m["parameters"].get("k")): m for m in measurements[1:]}
    assert all(m["implied"] is True and m["derivation"] for m in implied.values())
    # Thm. 3 corrected: e^ε = 5, N = 2000, k = 50: t = (k + (N - k) e^ε)/N = (50 + 1950·5)/2000 = 49/10.
    assert implied[("kt_closeness", 50)]["exact"] == "49/10"
    assert implied[("kt_closeness", 50)]["derivation"][0]["claim"] == "ekenstedt2022:thm3a"


def test_measured_levels_stay_within_the_implied_ones() -> None:
    """The publisher's measured levels never exceed what the auditor is guaranteed."""
    publisher = runner.invoke(app, ["audit", "--policy", str(EXAMPLE / "publisher.toml"), "--json", "-"])
    auditor = runner.invoke(app, ["audit", "--policy", str(EXAMPLE / "auditor.toml"), "--json", "-"])
    measured = {(m["model"], m["parameters"].get("k")): m["level"] for m in json.loads(publisher.stdout)["randomized"]["measurements"]}
    for m in json.loads(auditor.stdout)["randomized"]["measurements"][1:]:
        key = (m["model"], m["parameters"].get("k"))
        if key in measured:
            assert measured[key] <= m["level"] * (1 + 1e-12), key


def test_anonymize_rr_writes_a_release_that_measures(tmp_path: Path) -> None:
    shutil.copy(EXAMPLE / "original.csv", tmp_path / "original.csv")
    out = tmp_path / "release.csv"
    args = ["anonymize", "rr", str(tmp_path / "original.csv"), "--sensitive", "disease", "--keep", "0.6",
            "--mode", "empirical", "--out", str(out), "--seed", "3"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0
    # one line per file, however long, never wrapped at a console width
    assert result.stdout.splitlines() == [f"wrote {out} (2000 records, seed 3)",
                                          f"wrote {tmp_path / 'release.mechanism.csv'} (its mechanism: "
                                          "t-closeness randomized response (p_t=3/5))"]
    first = out.read_text()
    assert runner.invoke(app, args).exit_code == 0 and out.read_text() == first  # seeded
    mechanism = load_mechanism(tmp_path / "release.mechanism.csv")
    assert set(pd.read_csv(out)["disease"]) <= set(mechanism.buckets)
    measured = runner.invoke(app, ["measure", str(tmp_path / "original.csv"), "--qi", "age,zip", "--sensitive", "disease",
                                   "--mechanism", str(tmp_path / "release.mechanism.csv"), "--k", "5", "--json", "-"])
    assert measured.exit_code == 0, measured.output
    assert json.loads(measured.stdout)["randomized"]["measurements"][0]["model"] == "stochastic_t_closeness"


def test_bad_input_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "m.csv"
    bad.write_text("value,flu\nflu,0.9\n")
    result = runner.invoke(app, ["measure", str(EXAMPLE / "original.csv"), "--qi", "age", "--sensitive", "disease",
                                 "--mechanism", str(bad)])
    assert result.exit_code == 2 and "line 2 (true value 'flu'): expected probabilities summing to 1" in result.stderr
    result = runner.invoke(app, ["measure", str(EXAMPLE / "original.csv"), "--qi", "age", "--sensitive", "disease",
                                 "--k", "2"])
    assert result.exit_code == 2 and "give --mechanism FILE" in result.stderr
    result = runner.invoke(app, ["anonymize", "rr", str(EXAMPLE / "original.csv"), "--sensitive", "disease",
                                 "--keep", "ln(2)", "--out", str(tmp_path / "r.csv")])
    assert result.exit_code == 2 and "--keep" in result.stderr
