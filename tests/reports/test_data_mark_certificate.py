"""The data mark travels with the mechanism file into the certificate, and ``verify`` and the page show it.

A certificate carries the mechanism file by content, so its mark is signed with it; a certificate issued before
the mark existed carries none and reads "not stated" (its verdict and exit code unchanged).
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from privcert.cli import app

ROOT = Path(__file__).resolve().parents[2]
RANDOMIZED = ROOT / "examples" / "randomized"
GOLDEN = ROOT / "tests" / "golden"
runner = CliRunner()


def _certify(folder: Path, mechanism_args: list[str]) -> tuple[Path, Path]:
    """anonymize rr, keygen, an auditor-mode audit signed; the mechanism file and the certificate."""
    release, key, certificate = folder / "rel.csv", folder / "k", folder / "c.json"
    made = runner.invoke(app, ["anonymize", "rr", str(RANDOMIZED / "original.csv"), "--sensitive", "disease",
                               *mechanism_args, "--out", str(release), "--seed", "3"])
    assert made.exit_code == 0, made.output
    assert runner.invoke(app, ["keygen", "--out", str(key)]).exit_code == 0
    audit = runner.invoke(app, ["audit", str(release), "--policy", str(RANDOMIZED / "auditor.toml"), "--mechanism",
                                str(folder / "rel.mechanism.csv"), "--mode", "auditor", "--sign", str(key),
                                "--certificate", str(certificate), "--html", str(folder / "c.html")])
    assert audit.exit_code in (0, 1), audit.output
    return folder / "rel.mechanism.csv", certificate


def test_fig5_is_marked_as_publishing_the_histogram_in_the_file_the_certificate_and_its_views(tmp_path: Path) -> None:
    mechanism, certificate = _certify(tmp_path, ["--keep", "1/2", "--mode", "empirical"])
    assert mechanism.read_text(encoding="utf-8").startswith("# data: histogram\nvalue,asthma,cold,flu,hiv\n")
    done = runner.invoke(app, ["verify", str(certificate), "--public-key", str(tmp_path / "k.pub"), "--allow-fail"])
    assert done.exit_code == 0, done.output
    assert ("asthma,149/250,593/4000,819/4000,51/1000 / cold,12/125,2593/4000,819/4000,51/1000 / "
            "flu,12/125,593/4000,2819/4000,51/1000 / hiv,12/125,593/4000,819/4000,551/1000; ε = ln(551/51), from the "
            "declared mechanism; data mark: publishes the original's histogram: the matrix holds its value "
            "frequencies)") in done.stdout
    html = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert "data mark: publishes the original&#39;s histogram: the matrix holds its value frequencies" in html
    assert "# data" not in html  # the mark is a sentence, not a row of the drawn matrix


def test_fig4_is_marked_data_independent(tmp_path: Path) -> None:
    mechanism, certificate = _certify(tmp_path, ["--keep", "1/2"])
    assert mechanism.read_text(encoding="utf-8").startswith("# data: independent\nvalue,")
    done = runner.invoke(app, ["verify", str(certificate), "--public-key", str(tmp_path / "k.pub"), "--allow-fail"])
    assert "; data mark: data-independent: computed without the original's records)" in done.stdout


def test_a_given_mechanism_file_keeps_its_mark(tmp_path: Path) -> None:
    given = tmp_path / "given.csv"
    matrix = [line for line in (RANDOMIZED / "mechanism.csv").read_text(encoding="utf-8").splitlines(keepends=True)
              if not line.startswith("#")]  # the example's matrix, without its own mark (independent)
    given.write_text("# data: counts\n" + "".join(matrix), encoding="utf-8")
    mechanism, certificate = _certify(tmp_path, ["--mechanism", str(given)])
    assert mechanism.read_text(encoding="utf-8") == given.read_text(encoding="utf-8")
    done = runner.invoke(app, ["verify", str(certificate), "--public-key", str(tmp_path / "k.pub")])
    assert done.exit_code == 0, done.output
    assert "data mark: computed from the original's value counts: the matrix may disclose them)" in done.stdout


def test_a_certificate_issued_before_the_mark_reads_not_stated_and_still_verifies() -> None:
    folder = GOLDEN / "v4" / "randomized-auditor"
    done = runner.invoke(app, ["verify", str(folder / "cert.json"), "--public-key", str(folder / "key.pub")])
    assert done.exit_code == 0, done.output
    assert ("hiv,1/8,1/8,1/8,5/8; ε = ln(5), from the declared mechanism; data mark: not stated (the mechanism file "
            "carries no data mark))") in done.stdout


def _summary(text: str, epsilon: str | None) -> str:
    from reports.declared import declared

    measured = [] if epsilon is None else [{"model": "ldp", "exact": epsilon}]
    predicate = {"mechanism": {"name": "m.csv", "sha256": "0" * 64, "text": text},
                 "randomized": {"mode": "auditor", "measurements": measured}}
    (item,) = [item for item in declared(predicate).items if item.what == "mechanism m.csv"]
    return item.summary


def test_the_views_compose_an_estimates_epsilon_with_the_measured_one() -> None:
    text = "# data: estimate\n# estimate_epsilon: ln(4)\nvalue,a,b\na,3/4,1/4\nb,1/4,3/4\n"
    assert _summary(text, "ln(3)") == (
        "value,a,b / a,3/4,1/4 / b,1/4,3/4; ε = ln(3), from the declared mechanism; data mark: computed from a "
        "differentially private estimate of the original's histogram (ε = ln(4)): with this mechanism's ε-LDP ln(3), "
        "each of the original's records loses at most ln(12) through the release and its mechanism together "
        "(sequential composition)")
    assert _summary(text, None).endswith("the release with its mechanism is (ε + ln(4))-differentially private for "
                                         "each of the original's records, ε the mechanism's ε-LDP level (sequential "
                                         "composition)")


def test_an_unreadable_mark_is_shown_as_such() -> None:
    assert _summary("# made by hand\nvalue,a\na,1\n", None) == (
        "# made by hand / value,a / a,1; data mark: unreadable (m.csv, line 1: expected a data mark '# data: <kind>' "
        "or '# estimate_epsilon: <ε>', found '# made by hand')")


NOISE = 'noise = "laplace"\nscale = "5"\nboundaries = ["30"]\nvalues = ["18", "40"]\n'


def _noise_summary(text: str) -> str:
    from reports.declared import declared

    predicate = {"mechanism": {"name": "m.toml", "sha256": "0" * 64, "text": text},
                 "randomized": {"mode": "publisher", "measurements": []}}
    (item,) = [item for item in declared(predicate).items if item.what == "mechanism m.toml"]
    return item.summary


def test_a_noise_mechanism_carries_its_mark_as_toml_keys_and_the_views_read_it() -> None:
    assert _noise_summary('data = "independent"\n' + NOISE).endswith(
        "; data mark: data-independent: computed without the original's records")
    assert _noise_summary('data = "estimate"\nestimate_epsilon = "ln(4)"\n' + NOISE).endswith(
        "the release with its mechanism is (ε + ln(4))-differentially private for each of the original's records, "
        "ε the mechanism's ε-LDP level (sequential composition)")


def test_a_noise_mechanism_without_the_keys_states_nothing_even_with_comments_of_its_own() -> None:
    assert _noise_summary("# ages, Laplace noise\n" + NOISE).endswith(
        "; data mark: not stated (the mechanism file carries no data mark)")


def test_a_noise_mechanisms_mark_is_checked_as_a_csvs_is() -> None:
    assert _noise_summary('data = "made up"\n' + NOISE).endswith(
        "data mark: unreadable (m.toml: data mark: expected one of ['independent', 'histogram', 'counts', "
        "'estimate'], found 'made up')")
    assert "expected strings" in _noise_summary("data = 1\n" + NOISE)
    assert "estimate_epsilon but no '# data: <kind>' line" in _noise_summary('estimate_epsilon = "1"\n' + NOISE)


def test_anonymize_noise_marks_its_mechanism_data_independent_and_verify_shows_it(tmp_path: Path) -> None:
    from verifier.randomized.data_mark import DataMark
    from verifier.randomized.noise import load_noise_spec

    release, key, certificate = tmp_path / "noisy.csv", tmp_path / "k", tmp_path / "c.json"
    made = runner.invoke(app, ["anonymize", "noise", str(RANDOMIZED / "ages.csv"), "--sensitive", "age", "--scale", "5",
                               "--buckets", "30,45,60", "--out", str(release), "--seed", "7"])
    assert made.exit_code == 0, made.output
    mechanism = tmp_path / "noisy.mechanism.toml"
    assert mechanism.read_text(encoding="utf-8").startswith('data = "independent"\nnoise = "laplace"\n')
    assert load_noise_spec(mechanism).data == DataMark("independent")
    assert mechanism.read_text(encoding="utf-8") == (RANDOMIZED / "laplace.mechanism.toml").read_text(encoding="utf-8")
    assert runner.invoke(app, ["keygen", "--out", str(key)]).exit_code == 0
    audit = runner.invoke(app, ["audit", "--policy", str(RANDOMIZED / "laplace.toml"), "--mechanism", str(mechanism),
                                "--release", str(release), "--sign", str(key), "--certificate", str(certificate)])
    assert audit.exit_code in (0, 1), audit.output
    done = runner.invoke(app, ["verify", str(certificate), "--public-key", str(tmp_path / "k.pub"), "--allow-fail",
                               "--original", str(RANDOMIZED / "ages.csv"), "--data", str(release)])
    assert done.exit_code == 0, done.output
    assert "data mark: data-independent: computed without the original's records)" in done.stdout
    # the mechanism's ε is known only between exact bounds: the view never states it as exact
    assert '"79"]; ε ≈ 10.4467272796 (not exact; exact bounds in the measurements), from the declared' in done.stdout
    assert "ε = ln(" not in done.stdout
