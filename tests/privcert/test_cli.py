"""End-to-end tests of the `privcert` command line on real files."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from _processes import CEILING
from privcert.cli import app
from verifier.registry import MeasureOptions, models

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "table4"
RELEASE, POLICY, HIERARCHY = EXAMPLE / "release.csv", EXAMPLE / "policy.toml", EXAMPLE / "disease_hierarchy.csv"
DEMO_POLICY = ROOT / "privcert" / "data" / "policy.toml"
SCRIPT = Path(sys.executable).parent / "privcert"
TABLE4 = ["measure", str(RELEASE), "--qi", "zip,age", "--sensitive", "salary,disease", "--numerical", "salary",
          "--hierarchy", f"disease={HIERARCHY}"]

runner = CliRunner()


def _run(*args: str) -> Any:
    return runner.invoke(app, list(args), catch_exceptions=False)


def _find(document: dict[str, Any], model: str, attribute: Any = None, distance: str | None = None) -> dict[str, Any]:
    matches = [m for m in document["measurements"]
               if m["model"] == model and m["attribute"] == attribute and (distance is None or m["distance"] == distance)]
    assert len(matches) == 1, (model, attribute, distance)
    return matches[0]


def test_measure_table4_golden_values_as_json() -> None:
    result = _run(*TABLE4, "--json", "-")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)  # with --json -, stdout holds the JSON and nothing else
    assert set(document) == {"schema_version", "qi", "rows", "classes", "excluded", "metrics", "measurements", "run"}
    assert (document["rows"], document["classes"], document["qi"]) == (9, 3, ["zip", "age"])
    # the digest is taken on a thread of its own while the command works: it is the file's
    assert document["run"]["input"] == {"path": str(RELEASE), "sha256": hashlib.sha256(RELEASE.read_bytes()).hexdigest()}
    assert document["excluded"] == {"salary": 0, "disease": 0}
    k = _find(document, "k_anonymity")
    assert (k["exact"], k["level"], k["attribute"], k["distance"], k["parameters"]) == ("3", 3, None, None, {})
    assert (k["witness"]["size"], k["witness"]["value"]) == (3, None)
    l_div = _find(document, "distinct_l_diversity", "disease")
    assert (l_div["exact"], l_div["level"]) == ("3", 3) and isinstance(l_div["level"], int)
    # Li et al. 2007: D[P1, Q] = 3/8 = 0.375 for the class 476**/2* (salaries 3K, 4K, 5K).
    t = _find(document, "t_closeness", "salary", "ordered")
    assert (t["exact"], t["level"]) == ("3/8", 0.375)
    assert t["witness"]["qi"] == {"zip": "476**", "age": "2*"} and t["witness"]["size"] == 3
    assert _find(document, "t_closeness", "disease", "hierarchical")["exact"] == "4/9"
    assert _find(document, "t_closeness", "disease", "equal")["exact"] == "4/9"
    assert _find(document, "recursive_cl_diversity", "disease")["parameters"] == {"l": 2}
    delta = _find(document, "delta_disclosure", "salary")
    assert (delta["level"], delta["exact"], delta["status"]) == ("inf", "inf", "infinite") and "reason" in delta
    assert delta["direction"] == {"stronger": "smaller", "strict": True}
    assert k["direction"] == {"stronger": "larger", "strict": False} and k["status"] == "finite"
    assert {m["model"] for m in document["measurements"]} == {m.id for m in models() if m.measured(MeasureOptions())}


def test_measure_prints_a_table_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = _run(*TABLE4, "--json", str(out))
    assert result.exit_code == 0
    assert "t_closeness (ordered)" in result.stdout and "3/8" in result.stdout and "zip=476**, age=2*; 3 records" in result.stdout
    assert json.loads(out.read_text())["rows"] == 9


def test_measure_options(tmp_path: Path) -> None:
    frame = pd.DataFrame({"zip": ["a"] * 3 + ["b"] * 3, "grade": ["low", "mid", "high", "mid", "mid", None],
                          "city": ["x", "y", "x", "y", "x", "y"]})
    path = tmp_path / "r.parquet"
    frame.to_parquet(path)
    result = _run("measure", str(path), "--qi", "zip", "--sensitive", "grade,city", "--ordinal", "grade=low,mid,high",
                  "--missing", "grade=exclude", "--joint", "grade+city", "--l", "2", "--l", "3", "--json", "-")
    assert result.exit_code == 0, result.stderr
    assert "warning: " in result.stderr and "1 row(s) with a missing value of 'grade' excluded" in result.stderr
    document = json.loads(result.stdout)
    assert document["excluded"] == {"grade": 1, "city": 0, "grade+city": 1}
    assert _find(document, "t_closeness", "grade", "ordered")["parameters"]["domain"] == "declared"
    assert [m["parameters"]["l"] for m in document["measurements"]
            if m["model"] == "recursive_cl_diversity" and m["attribute"] == "city"] == [2, 3]
    assert _find(document, "distinct_l_diversity", ["grade", "city"])["exact"] == "2"


def test_audit_table4_fails_on_salary() -> None:
    result = _run("audit", "--policy", str(POLICY))
    assert result.exit_code == 1
    assert "FAIL: 1 of 4 requirement(s) do not hold" in result.stdout
    result = _run("audit", str(RELEASE), "--policy", str(POLICY), "--json", "-")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["passed"] is False and document["policy"] == str(POLICY)
    assert document["run"]["input"] == {"path": str(RELEASE), "sha256": hashlib.sha256(RELEASE.read_bytes()).hexdigest()}
    assert [(m["model"], m["attribute"], m["exact"], m["threshold"], m["passed"]) for m in document["measurements"]] == [
        ("k_anonymity", None, "3", "3", True),
        ("distinct_l_diversity", "disease", "3", "3", True),
        ("t_closeness", "salary", "3/8", "1/5", False),
        ("t_closeness", "disease", "4/9", "1/2", True),
    ]


def test_audit_passes_with_exit_code_0() -> None:
    result = _run("audit", "--policy", str(DEMO_POLICY), "--json", "-")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert document["passed"] is True and all(m["passed"] for m in document["measurements"])
    hierarchical = [m for m in document["measurements"] if m["distance"] == "hierarchical"]
    # Table 5, class 4790*/>=40 = {gastritis, flu, bronchitis}: 8/27 (the slides print 0.278).
    assert [(m["exact"], m["threshold"]) for m in hierarchical] == [("8/27", "3/10")]


def _policy(tmp_path: Path, text: str) -> str:
    shutil.copy(HIERARCHY, tmp_path / "disease_hierarchy.csv")
    (tmp_path / "policy.toml").write_text(text)
    return str(tmp_path / "policy.toml")


BAD = [
    ("missing data file", lambda t: ["measure", str(t / "absent.csv"), "--qi", "zip", "--sensitive", "salary"],
     "absent.csv: data file not found"),
    ("bad suffix", lambda t: ["measure", str(t / "release.txt"), "--qi", "zip", "--sensitive", "salary"],
     "release.txt: unsupported file type; expected a name ending in .csv, .csv.gz, .parquet, .pq, found '.txt'"),
    ("missing column", lambda t: ["measure", str(RELEASE), "--qi", "zip,ZIP", "--sensitive", "salary"],
     "column(s) ['ZIP'] not found; the table has columns ['zip', 'age', 'salary', 'disease']"),
    ("text in a numerical column", lambda t: ["measure", str(RELEASE), "--qi", "zip", "--sensitive", "disease",
                                              "--numerical", "disease"],
     "column 'disease' is declared numerical but row 1 (index label 0) holds 'gastric ulcer'"),
    ("numerical not sensitive", lambda t: ["measure", str(RELEASE), "--qi", "zip", "--sensitive", "salary",
                                           "--numerical", "age"],
     "--numerical: expected one of the --sensitive attributes ['salary'], found 'age'"),
    ("bad hierarchy option", lambda t: ["measure", str(RELEASE), "--qi", "zip", "--sensitive", "disease",
                                        "--hierarchy", "disease"],
     "--hierarchy: expected NAME=VALUE, found 'disease'"),
    ("missing hierarchy file", lambda t: ["measure", str(RELEASE), "--qi", "zip", "--sensitive", "disease",
                                          "--hierarchy", f"disease={t / 'h.csv'}"],
     "h.csv' not found"),
    ("value not a leaf", lambda t: ["measure", str(RELEASE), "--qi", "zip", "--sensitive", "salary",
                                    "--hierarchy", f"salary={HIERARCHY}"],
     "value '10000' of column 'salary' is not a leaf of the hierarchy"),
    ("bad joint", lambda t: ["measure", str(RELEASE), "--qi", "zip", "--sensitive", "salary", "--joint", "salary+age"],
     "--joint: expected S+T with two or more --sensitive attributes ['salary'], found 'salary+age'"),
    ("bad missing", lambda t: ["measure", str(RELEASE), "--qi", "zip", "--sensitive", "salary", "--missing", "salary=drop"],
     "--missing salary: expected error, value or exclude, found 'drop'"),
    ("missing policy", lambda t: ["audit", str(RELEASE), "--policy", str(t / "absent.toml")],
     "absent.toml: policy file not found"),
    ("bad policy", lambda t: ["audit", str(RELEASE), "--policy", _policy(t, POLICY.read_text().replace(
        "threshold = 0.2", "threshold = 2"))],
     "policy.toml: require[3].threshold: expected a number (integer, decimal, or a string such as \"1/6\") ≥ 0 "
     "and ≤ 1, found the integer 2"),
    ("policy column absent from the data", lambda t: ["audit", str(RELEASE), "--policy", _policy(t, POLICY.read_text()
                                                      .replace('"age"]', '"birth"]'))],
     "column(s) ['birth'] not found"),
    ("no data anywhere", lambda t: ["audit", "--policy", _policy(t, POLICY.read_text().replace('path = "release.csv"', ""))],
     "policy.toml: no release given: pass DATA or set data.path in the policy"),
]


@pytest.mark.parametrize(("arguments", "message"), [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_bad_input_exits_2_with_a_message(tmp_path: Path, arguments: Any, message: str) -> None:
    (tmp_path / "release.txt").write_text("zip\n1\n")
    result = _run(*arguments(tmp_path))
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split()).replace("\n", ""), result.stderr
    assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_usage_errors_exit_2() -> None:
    assert runner.invoke(app, ["measure", str(RELEASE), "--qi", "zip"]).exit_code == 2  # --sensitive missing
    assert runner.invoke(app, ["audit", str(RELEASE)]).exit_code == 2  # --policy missing


def test_demo(tmp_path: Path) -> None:
    result = _run("demo", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "PASS: all 8 requirement(s) hold" in result.stdout and "8/27" in result.stdout
    assert "PASS: all 4 requirement(s) hold" in result.stdout  # the hospital release
    for name in ("hospital", "table5"):
        for suffix in (".cert.json", ".html", ".pdf"):
            assert (tmp_path / f"{name}{suffix}").stat().st_size > 0
    assert result.stdout.count("verified:  valid: signature, release digest") == 2


def test_installed_console_script(tmp_path: Path) -> None:
    """The installed `privcert` script works from any directory (bundled data via importlib.resources)."""
    demo = subprocess.run([str(SCRIPT), "demo"], cwd=tmp_path, capture_output=True, text=True, timeout=CEILING)
    assert demo.returncode == 0, demo.stderr
    assert "PASS: all 8 requirement(s) hold" in demo.stdout
    audit = subprocess.run([str(SCRIPT), "audit", "--policy", str(POLICY), "--json", "-"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=CEILING)
    assert audit.returncode == 1 and json.loads(audit.stdout)["passed"] is False
    bad = subprocess.run([str(SCRIPT), "audit", "absent.csv", "--policy", str(POLICY)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=CEILING)
    assert bad.returncode == 2 and "absent.csv: data file not found" in bad.stderr and "Traceback" not in bad.stderr


def test_untrusted_text_is_printed_literally(tmp_path: Path) -> None:
    """Column names and values of a third party's release are text, never console markup."""
    path = tmp_path / "r.csv"
    path.write_text("[b]zip,s\n[/],[red]x\n[/],[red]x\n")
    result = _run("measure", str(path), "--qi", "[b]zip", "--sensitive", "s")
    assert result.exit_code == 0, result.stderr
    assert "[b]zip=[/]; 2 records" in result.stdout and "value '[red]x'" in result.stdout and "over [b]zip" in result.stdout
    bad = _run("measure", str(path), "--qi", "[/]", "--sensitive", "s")
    assert bad.exit_code == 2 and "column(s) ['[/]'] not found" in bad.stderr
