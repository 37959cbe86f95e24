"""The CLI's contract with scripts and CI: exit codes, output that survives a pipe, JSON by schema."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from _processes import CEILING, searching
from conftest import RESULTS_SCHEMA as SCHEMA
from conftest import check_results_documents

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "table4"


def _privcert(*args: str, **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "privcert", *args], capture_output=True, text=True, timeout=CEILING,
                          **kwargs)


def _copy_example(tmp_path: Path) -> Path:
    for name in ("release.csv", "policy.toml", "disease_hierarchy.csv"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    return tmp_path


def test_measure_and_audit_json_follow_the_schema(tmp_path: Path) -> None:
    folder = _copy_example(tmp_path)
    measured = _privcert("measure", str(folder / "release.csv"), "--qi", "zip,age", "--sensitive", "salary,disease",
                         "--numerical", "salary", "--hierarchy", f"disease={folder / 'disease_hierarchy.csv'}",
                         "--joint", "salary+disease", "--l", "2,3", "--json", "-")
    assert measured.returncode == 0, measured.stderr
    audited = _privcert("audit", "--policy", str(folder / "policy.toml"), "--json", "-")
    assert audited.returncode == 1, audited.stderr
    for document in (json.loads(measured.stdout), json.loads(audited.stdout)):
        jsonschema.validate(document, SCHEMA)
    levels = {m["parameters"].get("l") for m in json.loads(measured.stdout)["measurements"]
              if m["model"] == "recursive_cl_diversity"}
    assert levels == {2, 3}  # "--l 2,3" is the same list as "--l 2 --l 3"


def test_every_results_file_a_test_leaves_is_checked_against_the_schema(tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("documents")
    result = _privcert("measure", str(EXAMPLE / "release.csv"), "--qi", "zip,age", "--sensitive", "disease",
                       "--json", str(folder / "good.json"))
    assert result.returncode == 0, result.stderr
    assert check_results_documents(folder) == 1
    broken = json.loads((folder / "good.json").read_text())
    broken["measurements"][0]["status"] = "nan"
    (folder / "nested").mkdir()
    (folder / "nested" / "broken.json").write_text(json.dumps(broken))
    with pytest.raises(pytest.fail.Exception, match="broken.json does not follow results.schema.json"):
        check_results_documents(folder)


def test_two_audits_of_the_same_data_have_identical_results(tmp_path: Path) -> None:
    folder = _copy_example(tmp_path)
    first, second = (json.loads(_privcert("audit", "--policy", str(folder / "policy.toml"), "--json", "-").stdout)
                     for _ in range(2))
    first.pop("run"), second.pop("run")
    assert first == second


def test_json_file_is_written_atomically(tmp_path: Path) -> None:
    folder = _copy_example(tmp_path)
    out = folder / "out.json"
    result = _privcert("audit", "--policy", str(folder / "policy.toml"), "--json", str(out))
    assert result.returncode == 1
    jsonschema.validate(json.loads(out.read_text()), SCHEMA)
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == []  # no temporary file left


def test_piped_audit_shows_every_verdict_and_level_in_full(tmp_path: Path) -> None:
    folder = _copy_example(tmp_path)
    result = _privcert("audit", "--policy", str(folder / "policy.toml"), env={**os.environ, "COLUMNS": "40"})
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    rows = [line for line in lines if line.lstrip().startswith("#: ")]
    assert len(rows) == 4 and all("result: pass" in r or "result: FAIL" in r for r in rows)
    assert any("level: 3/8 ≈ 0.375" in r and "result: FAIL" in r for r in rows)
    assert "─" not in result.stdout and "│" not in result.stdout  # no box drawing in a pipe
    assert any(line.strip().startswith("require[3] fails: class {zip: 476**, age: 2*}") for line in lines)
    assert lines[-1] == "FAIL: 1 of 4 requirement(s) do not hold"


def test_piped_randomized_levels_are_plain_lines_with_data_escaped(tmp_path: Path) -> None:
    original = tmp_path / "original.csv"
    original.write_bytes(b"zip,disease\n1,flu\n1,\x1b[2Jx\n2,flu\n2,\x1b[2Jx\n")
    mechanism = tmp_path / "m.csv"
    mechanism.write_bytes(b"value,flu,\x1b[2Jx\nflu,3/4,1/4\n\x1b[2Jx,1/4,3/4\n")
    result = _privcert("measure", str(original), "--qi", "zip", "--sensitive", "disease", "--mechanism", str(mechanism),
                       "--k", "1", env={**os.environ, "COLUMNS": "40"})
    assert result.returncode == 0, result.stderr
    assert "─" not in result.stdout and "│" not in result.stdout  # no box drawing in a pipe
    assert "\x1b" not in result.stdout
    lines = result.stdout.splitlines()
    assert "randomized release (publisher mode, m.csv)" in lines
    assert "  model: ldp  level: ln(3) ≈ 1.099  how: measured" in lines
    assert "  model: kt_closeness  k: 1  level: 2  how: the 1 record with the lowest Pr('flu'): 1 × '\\x1b[2Jx'" in lines


def test_control_characters_in_data_are_escaped(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_bytes(b'zip,s\n"\x1b[2Jx",a\n"\x1b[2Jx",b\n')
    result = _privcert("measure", str(path), "--qi", "zip", "--sensitive", "s")
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "zip=\\x1b[2Jx" in result.stdout


@pytest.mark.parametrize(("threshold", "message"), [
    ("inf", "found the number Infinity"),
    ("nan", "found the number NaN"),
    ("1e999999999", "beyond the magnitude any level can mean"),
    ('"1e999999999"', "beyond the magnitude any level can mean"),
    ('"__import__(\'os\')"', "expected a number such as"),
])
def test_hostile_thresholds_exit_2_promptly(tmp_path: Path, threshold: str, message: str) -> None:
    folder = _copy_example(tmp_path)
    policy = folder / "policy.toml"
    policy.write_text(policy.read_text().replace("threshold = 0.2", f"threshold = {threshold}"))
    result = _privcert("audit", "--policy", str(policy))
    assert result.returncode == 2 and "require[3].threshold" in result.stderr and message in result.stderr
    assert "Traceback" not in result.stderr


def test_internal_error_exits_3_with_a_traceback_only_under_debug(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import verifier.measure
    from privcert import cli

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(verifier.measure, "measure", broken)
    arguments = ["privcert", "measure", str(EXAMPLE / "release.csv"), "--qi", "zip", "--sensitive", "disease"]
    for debug in (False, True):
        monkeypatch.setattr(sys, "argv", arguments[:1] + (["--debug"] if debug else []) + arguments[1:])
        with pytest.raises(SystemExit) as exited:
            cli.main()
        assert exited.value.code == 3
        err = capsys.readouterr().err
        assert "internal error: RuntimeError: boom" in err and "--debug" in err and "include the traceback" in err
        assert "http" not in err  # no invented address to report to
        assert ("Traceback" in err) is debug


def test_stdout_on_a_full_disk_is_a_clean_error() -> None:
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "privcert", "measure", str(EXAMPLE / "release.csv"), "--qi",
                                 "zip,age", "--sensitive", "disease", "--json", "-"],
                                stdout=full, stderr=subprocess.PIPE, text=True, timeout=CEILING)
    assert result.returncode == 2 and "cannot write the output" in result.stderr and "Traceback" not in result.stderr


def test_a_closed_pipe_is_not_a_traceback() -> None:
    process = subprocess.Popen([sys.executable, "-m", "privcert", "theory", "claims"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.readline()
    process.stdout.close()
    _, err = process.communicate(timeout=CEILING)
    assert b"Traceback" not in err


def test_ctrl_c_exits_130() -> None:
    process = subprocess.Popen([sys.executable, "-m", "privcert", "theory", "refute", "domingoferrer2015:prop1",
                                "--max-n", "8", "--timeout", "60"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    searching(process)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=CEILING)
    assert process.returncode == 130 and b"Traceback" not in err


def test_ctrl_c_inside_a_finalizer_is_not_lost() -> None:
    """Python ignores (and prints) an exception raised in ``__del__``; the Ctrl-C comes again once it returns."""
    script = """
import signal, time
from privcert.reporting import interrupt_outside_finalizers
interrupt_outside_finalizers()
class Freed:
    def __del__(self):
        signal.raise_signal(signal.SIGINT)
        time.sleep(0.001)
try:
    Freed()
    time.sleep(5)
    print("ran on")
except KeyboardInterrupt:
    print("interrupted")
"""
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=CEILING)
    assert ran.stdout.strip() == "interrupted" and "Exception ignored" not in ran.stderr, ran.stderr


def test_version_and_help() -> None:
    from importlib.metadata import version

    assert _privcert("--version").stdout.strip() == f"privcert {version('privcert')}"
    helped = _privcert("measure", "--help", env={**os.environ, "COLUMNS": "200"})
    assert "--encoding" in helped.stdout and "<list" not in helped.stdout and "<bool>" not in helped.stdout


def test_other_libraries_warnings_are_not_relabelled(monkeypatch: pytest.MonkeyPatch) -> None:
    """privcert's warnings print as ``warning: ...``; a dependency's keep Python's format, naming their category."""
    import warnings

    from typer.testing import CliRunner

    import privcert.api
    from privcert.cli import app
    from verifier.errors import IdentifierColumnWarning

    measure = privcert.api.measure

    def noisy(*args: object, **kwargs: object) -> object:
        warnings.warn("a dependency changed its defaults", FutureWarning, stacklevel=1)
        warnings.warn("column zip is an identifier", IdentifierColumnWarning, stacklevel=1)
        return measure(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(privcert.api, "measure", noisy)
    with pytest.warns(FutureWarning, match="a dependency changed its defaults"):  # passed on as it came
        done = CliRunner().invoke(app, ["measure", str(EXAMPLE / "release.csv"), "--qi", "zip,age", "--sensitive",
                                        "disease", "--json", "-"])
    assert done.exit_code == 0, done.output
    assert "warning: column zip is an identifier" in done.stderr
    assert "dependency" not in done.stderr
