"""The workbench's routes through httpx (Starlette's TestClient): sessions, CSRF, the size limit, uploads'
names, the policy form from the registry and its TOML round trip, and audits that give the CLI's answers.

Each test starts its own app (its own sessions); jobs run in real worker processes.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from _app_client import browser_client, csrf, finished
from _processes import CEILING
from _toy_model import TOY
from privcert.app import Settings, create_app
from privcert.app.policy_form import form_from_policy, policy_toml, suggest_roles
from privcert.app.sessions import Sessions, plain_name
from verifier.registry import registered

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "privcert" / "data"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with browser_client(create_app(Settings(max_upload=2_000_000, root=tmp_path))) as made:
        yield made


HOSPITAL_FORM = {"requirements": "2", "role-0": "quasi-identifier", "role-1": "quasi-identifier",
                 "role-2": "sensitive", "kind-2": "categorical", "role-3": "sensitive", "kind-3": "numerical",
                 "req-0-model": "k_anonymity", "req-0-threshold": "5",
                 "req-1-model": "t_closeness", "req-1-attribute": "stay_days", "req-1-threshold": "1/5",
                 "req-1-p-distance": "ordered"}


def test_every_page_answers_with_the_csp_and_no_external_resource(client: TestClient) -> None:
    for path in ("/audit", "/verify", "/compare", "/plan", "/explore", "/static/htmx.min.js", "/static/app.css"):
        response = client.get(path)
        assert response.status_code == 200, path
        policy = response.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src 'self'" in policy and "http" not in policy
        if path.startswith("/static"):
            continue
        assert not re.search(r'(src|href|action)="(https?:)?//', response.text), path
        assert "<script>" not in response.text  # no inline script: the policy forbids it
        labelled = set(re.findall(r'<label[^>]* for="([^"]+)"', response.text))
        controls = set(re.findall(r'<(?:input|select|textarea)[^>]* id="([^"]+)"', response.text))
        assert controls <= labelled, f"{path}: controls without a label: {controls - labelled}"
    assert client.get("/").headers["content-security-policy"]


def test_a_form_without_the_sessions_csrf_token_is_refused(client: TestClient) -> None:
    client.get("/audit")
    refused = client.post("/audit/example", data={"example": "demo", "csrf": "forged"})
    assert refused.status_code == 422 and "CSRF token does not match" in refused.text
    other = browser_client(client.app)
    token = csrf(other)
    assert client.post("/audit/example", data={"example": "demo", "csrf": token}).status_code == 422
    assert client.post("/audit/example", data={"example": "demo", "csrf": csrf(client)}).status_code == 200


def test_an_upload_over_the_limit_is_refused_with_the_limit_in_the_message(client: TestClient) -> None:
    token = csrf(client)
    response = client.post("/audit/release", data={"csrf": token},
                           files={"release": ("big.csv", b"a,b\n" + b"1,2\n" * 600_000)})
    assert response.status_code == 413
    assert ("this server accepts at most 1.9 MB per request (whoever started the workbench can allow more: privcert "
            "serve takes a larger upload limit)") in response.text and "--" not in response.text
    assert client.get("/audit").status_code == 200  # the server stays up


def test_an_uploaded_name_never_leaves_its_folder(client: TestClient, tmp_path: Path) -> None:
    token = csrf(client)
    response = client.post("/audit/release", data={"csrf": token},
                           files={"release": ("../../../etc/evil name.csv", (DATA / "release.csv").read_bytes())})
    assert response.status_code == 200 and "evil name.csv" in response.text
    stored = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.csv"))
    assert len(stored) == 1 and stored[0].name == "evil_name.csv" and stored[0].parts[2] == "release-1"
    assert not (tmp_path.parent / "etc").exists()
    assert plain_name("..\\..\\x.csv", ".csv", "release.csv") == "x.csv"
    assert plain_name(".csv", ".csv", "release.csv") == "release.csv"
    assert plain_name("a.exe", ".csv", "release.csv") == "release.csv"


def test_one_session_never_sees_anothers_files(client: TestClient) -> None:
    token = csrf(client)
    audited = client.post("/audit/run", data={"csrf": token, **HOSPITAL_FORM})
    assert "no release yet" in audited.text
    client.post("/audit/example", data={"csrf": token, "example": "hospital"})
    text = finished(client, client.post("/audit/run", data={"csrf": token, **HOSPITAL_FORM}).text)
    report = re.search(r'href="/view/([^"]+)"', text)
    assert report is not None and client.get(f"/view/{report.group(1)}").status_code == 200
    other = browser_client(client.app)
    assert other.get(f"/view/{report.group(1)}").status_code == 404
    assert other.get(f"/files/{report.group(1)}").status_code == 404
    assert client.get("/files/..%2F..%2Fetc/passwd").status_code == 404


def test_an_expired_session_loses_its_folder(tmp_path: Path) -> None:
    sessions = Sessions(tmp_path, idle=60)
    session = sessions.create()
    path = session.new_path("release", ".csv")
    path.write_text("a\n1\n")
    assert sessions.expire() == [] and path.exists()
    assert sessions.expire(now=session.seen + 61) == [session.id]
    assert not session.folder.exists() and sessions.get(session.id) is None
    sessions.close()
    assert not sessions.root.exists()


def test_roles_are_suggested_from_names_and_uniqueness() -> None:
    state = suggest_roles(["patient_id", "email", "zip", "age", "diagnosis", "serial"], 100,
                          {"patient_id": 100, "email": 97, "zip": 12, "age": 40, "diagnosis": 7, "serial": 100},
                          {"age": True, "serial": True})
    roles = {c.name: c.role for c in state.columns}
    assert roles == {"patient_id": "left out", "email": "left out", "zip": "quasi-identifier",
                     "age": "quasi-identifier", "diagnosis": "sensitive", "serial": "left out"}
    assert "unique on every one of the 100 rows" in state.columns[-1].note
    assert state.requirements == [{"model": "k_anonymity", "threshold": "2"},
                                  {"model": "distinct_l_diversity", "attribute": "diagnosis", "threshold": "2"}]


def test_a_newly_registered_model_appears_in_the_form_and_validates(client: TestClient) -> None:
    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "demo"})
    with registered(TOY):
        form = client.post("/audit/policy/form", data={"csrf": token, "requirements": "1", "role-0": "quasi-identifier",
                                                        "req-0-model": TOY.id, "req-0-threshold": "1/2"}).text
        assert f'value="{TOY.id}" selected' in form and "a number ≥ 0 and ≤ 1" in form
        checked = client.post("/audit/policy/check", data={"csrf": token, "requirements": "1",
                                                            "role-0": "quasi-identifier", "role-2": "sensitive",
                                                            "role-3": "sensitive", "req-0-model": TOY.id,
                                                            "req-0-threshold": "3/2"}).text
        assert "policy:" in checked and "3/2" in checked
    gone = client.post("/audit/policy/form", data={"csrf": token, "requirements": "0"}).text
    assert TOY.id not in gone


def test_the_policy_form_round_trips_through_the_cli_policy_file(tmp_path: Path) -> None:
    from privcert.api import load_policy

    original = tomllib.loads((DATA / "policy.toml").read_text(encoding="utf-8"))
    state = form_from_policy(original, ["zip", "age", "salary", "disease"])
    written = tmp_path / "policy.toml"
    written.write_text(policy_toml(state), encoding="utf-8")
    (tmp_path / "disease_hierarchy.csv").write_bytes((DATA / "disease_hierarchy.csv").read_bytes())
    ours, theirs = load_policy(written), load_policy(DATA / "policy.toml")
    assert ours.qi == theirs.qi and ours.attributes == theirs.attributes
    assert [(r.model, r.threshold, r.attribute) for r in ours.requirements] == \
        [(r.model, r.threshold, r.attribute) for r in theirs.requirements]
    again = form_from_policy(tomllib.loads(written.read_text(encoding="utf-8")), ["zip", "age", "salary", "disease"])
    assert again == state


def test_export_then_import_gives_the_same_policy(client: TestClient) -> None:
    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "hospital"})
    client.post("/audit/policy/check", data={"csrf": token, **HOSPITAL_FORM})
    exported = client.get("/audit/policy.toml")
    assert exported.headers["content-disposition"] == 'attachment; filename="policy.toml"'
    document = tomllib.loads(exported.text)
    assert document["data"] == {"path": "release.csv", "qi": ["age", "zip"]}
    assert document["require"][1] == {"model": "t_closeness", "threshold": "1/5", "attribute": "stay_days",
                                      "distance": "ordered"}
    imported = client.post("/audit/policy/import", data={"csrf": token},
                           files={"policy": ("mine.toml", exported.content)}).text
    assert 'value="1/5"' in imported and '<option value="t_closeness" selected' in imported


def test_an_audit_gives_the_cli_answers_exact_and_decimal(client: TestClient) -> None:
    from privcert.api import audit
    from reports.reading import number

    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "demo"})
    state = form_from_policy(tomllib.loads((DATA / "policy.toml").read_text(encoding="utf-8")),
                             ["zip", "age", "salary", "disease"])
    form = {"csrf": token, "requirements": str(len(state.requirements)), "role-0": "quasi-identifier",
            "role-1": "quasi-identifier", "role-2": "sensitive", "kind-2": "numerical", "role-3": "sensitive"}
    for n, requirement in enumerate(state.requirements):
        for key, value in requirement.items():
            name = {"model": "model", "threshold": "threshold", "attribute": "attribute"}.get(key, f"p-{key}")
            if not isinstance(value, list):
                form[f"req-{n}-{name}"] = value
    form["req-7-attribute"] = "disease"  # the joint requirement becomes one on disease in the form
    text = finished(client, client.post("/audit/run", data=form).text)
    expected = audit(DATA / "release.csv", DATA / "policy.toml")
    shown = re.findall(r'<th scope="row" data-label="Requirement">(require\[\d+\])</th>.*?class="level"><code>([^<]+)'
                       r'</code></td>\s*<td data-label="Decimal">([^<]+)</td>', text, re.S)
    certified = {m["requirement"]: m["exact"] for m in expected.to_json()["measurements"] if m.get("requirement")}
    assert len(shown) == 8
    for requirement, exact, decimal in shown[:7]:
        assert exact == certified[requirement]
        assert decimal == number(exact).decimal and len(decimal.lstrip("≈ ").replace(".", "").lstrip("0")) <= 4
        assert decimal == f"{float(Fraction(exact)):.4g}" or decimal == f"≈ {float(Fraction(exact)):.4g}"
    assert "≈ 0.3333" in [decimal for _, _, decimal in shown]  # four significant digits, not 0.3333333333333333
    assert 'id="verdict" class="verdict pass">PASS' in text and "What else this implies" in text


def test_a_policy_error_shows_the_policy_readers_message(client: TestClient) -> None:
    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "hospital"})
    bad = {**HOSPITAL_FORM, "req-0-threshold": "0"}
    checked = client.post("/audit/policy/check", data={"csrf": token, **bad}).text
    assert "policy: the policy: require[1].threshold" in checked and "an integer ≥ 1" in checked
    run = client.post("/audit/run", data={"csrf": token, **bad}).text
    assert "require[1].threshold" in run and 'role="alert"' in run


def test_a_malformed_upload_shows_a_message_and_the_server_stays_up(client: TestClient) -> None:
    token = csrf(client)
    response = client.post("/audit/release", data={"csrf": token},
                           files={"release": ("table.parquet", b"not parquet at all")})
    assert response.status_code == 422 and "cannot read the release as a table" in response.text
    wrong = client.post("/audit/release", data={"csrf": token}, files={"release": ("table.xlsx", b"x")})
    assert "expected a file ending in .csv, .csv.gz, .parquet, .pq" in wrong.text
    assert client.get("/audit").status_code == 200


def _blocking_audit(arguments: dict[str, object], report: Callable[[str, int, int | None], None]) -> dict[str, object]:
    """An audit that reports one step and then waits far longer than any test: only cancelling ends it."""
    report("scanning the release", 1, 10)
    time.sleep(600)
    raise AssertionError("a cancelled job ran on")


def test_an_audit_can_be_cancelled(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A running job's process is terminated and the page says cancelled. The job's body is replaced by one
    that never finishes, and the process is forked from this one (which has the replacement), so the cancel
    always reaches a running job: a real audit may finish before the cancel arrives."""
    import multiprocessing

    from privcert.app import jobs, work

    monkeypatch.setattr(jobs, "_get_context", lambda: multiprocessing.get_context("fork"))
    monkeypatch.setitem(work.KINDS, "audit", _blocking_audit)
    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "hospital"})
    started = client.post("/audit/run", data={"csrf": token, **HOSPITAL_FORM}).text
    job = re.search(r'id="job-([0-9a-f]+)"', started)
    assert job is not None
    deadline = time.monotonic() + CEILING
    while "scanning the release" not in client.get(f"/jobs/{job.group(1)}").text:
        assert time.monotonic() < deadline, "the job never reported its first step"
        time.sleep(0.05)
    client.post(f"/jobs/{job.group(1)}/cancel", data={"csrf": token})
    text = finished(client, started)
    assert 'data-status="cancelled"' in text and "PASS" not in text


def test_a_queued_audit_cancelled_never_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A job waiting for a worker is cancelled without a process ever being started."""
    import threading

    from privcert.app import jobs

    monkeypatch.setattr(jobs, "_slots", threading.BoundedSemaphore(1))
    jobs._slots.acquire()  # every worker is busy
    state: dict[str, object] = {}
    job = jobs.start(state, "audit", {})
    assert job.status == "queued"
    jobs.cancel(job)
    assert job.status == "cancelled"
    jobs._slots.release()
    deadline = time.monotonic() + CEILING
    while any(thread.name == f"privcert-job-{job.id}" for thread in threading.enumerate()):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert job.status == "cancelled" and job._process is None


def test_verify_shows_the_clis_lines_and_a_tampered_certificate_is_invalid(client: TestClient, tmp_path: Path) -> None:
    import base64
    import html
    import json

    from privcert.api import verify
    from privcert.app.fields import field_of
    from privcert.reporting import said
    from verifier.named_inputs import say

    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "hospital"})
    finished(client, client.post("/audit/run", data={"csrf": token, **HOSPITAL_FORM}).text)
    keys = client.post("/certify/key/new", data={"csrf": token}).text
    private, public = re.findall(r'href="/files/(key-\d+/privcert\.key(?:\.pub)?)"', keys)
    assert client.get(f"/files/{private}").status_code == 200
    assert client.get(f"/files/{private}").status_code == 404  # offered once
    signed = finished(client, client.post("/certify", data={"csrf": token}).text)
    links = dict(re.findall(r'href="/files/(certificate-\d+/certificate\.(json|html|pdf))"', signed))
    assert sorted(links.values()) == ["html", "json", "pdf"]
    by_kind = {kind: path for path, kind in links.items()}
    assert client.get(f"/files/{by_kind['pdf']}").content.startswith(b"%PDF")
    certificate, key = client.get(f"/files/{by_kind['json']}").content, client.get(f"/files/{public}").content
    (tmp_path / "certificate.json").write_bytes(certificate)
    (tmp_path / "key.pub").write_bytes(key)
    cli = subprocess.run([sys.executable, "-m", "privcert", "verify", str(tmp_path / "certificate.json"),
                          "--public-key", str(tmp_path / "key.pub")], capture_output=True, text=True, check=False)
    assert cli.returncode == 0, cli.stderr
    page = finished(client, client.post("/verify", data={"csrf": token}, files={
        "certificate": ("certificate.json", certificate), "public_key": ("key.pub", key)}).text)
    assert "VALID, PASS" in page
    # the same lines, each input they name said as the command line's option there and as the form's field here
    found = verify(tmp_path / "certificate.json", tmp_path / "key.pub")
    texts = [*(line.text() for line in found.lines), found.summary()]
    assert cli.stdout.strip() == "\n".join(map(said, texts))
    lines = re.search(r'<pre class="lines">(.*)</pre>', page, re.S)
    assert lines is not None and html.unescape(lines.group(1)).strip() == "\n".join(say(text, field_of) for text in texts)
    assert "release: not checked (no “The release”; the certificate names release.csv" in html.unescape(page)
    envelope = json.loads(certificate)
    payload = base64.b64decode(envelope["payload"])
    changed = payload.replace(b'"rows":300', b'"rows":301')
    assert changed != payload
    envelope["payload"] = base64.b64encode(changed).decode()
    tampered = finished(client, client.post("/verify", data={"csrf": token}, files={
        "certificate": ("certificate.json", json.dumps(envelope).encode()), "public_key": ("key.pub", key)}).text)
    assert 'id="verify-verdict" class="verdict fail">INVALID' in tampered and "signature: fails" in tampered


def test_explore_answers_as_the_theory_cli(client: TestClient) -> None:
    token = csrf(client, "/explore")
    arrows = client.get("/explore/definition", params={"id": "k_anonymity"}).text
    assert "What it implies" in arrows and "privcert:k_risk" in arrows and "1/k" in arrows
    answer = client.post("/explore/implies", data={"csrf": token, "premise": "k_anonymity",
                                                    "conclusion": "prosecutor_risk", "level": "5"}).text
    assert "k_anonymity ⇒ prosecutor_risk: yes" in answer and "R = 1/5" in answer
    refused = client.post("/explore/implies", data={"csrf": token, "premise": "multiplicative_t_closeness",
                                                     "conclusion": "ldp", "bound": "3", "param-N": "4",
                                                     "param-k": "2"}).text
    assert ("<strong>No: multiplicative t-closeness (with k-anonymity) does not imply ε-local differential "
            "privacy.</strong>") in refused and "<code>43/88</code>" in refused
    explained = client.post("/explore/explain", data={"csrf": token, "records": "100",
                                                       "levels": "k_anonymity = 5"}).text
    assert "prosecutor_risk</strong>: R = 1/5" in explained
    wrong = client.post("/explore/explain", data={"csrf": token, "records": "100", "levels": "k-anonymity is 5"})
    assert wrong.status_code == 422 and "expected MODEL [on ATTRIBUTE]" in wrong.text


def test_explore_answers_in_sentences_with_their_sources(client: TestClient) -> None:
    token = csrf(client, "/explore")
    answer = client.post("/explore/implies", data={"csrf": token, "premise": "k_anonymity",
                                                    "conclusion": "distinct_l_diversity"}).text
    assert "<strong>No: k-anonymity does not imply distinct l-diversity.</strong>" in answer
    assert ('<a href="#ans-ref-machanavajjhala2007">Machanavajjhala et al. 2007, Sec. 3.1, homogeneity attack</a>'
            in answer)
    assert ('<li id="ans-ref-machanavajjhala2007">Ashwin Machanavajjhala, Daniel Kifer, Johannes Gehrke and '
            "Muthuramakrishnan Venkitasubramaniam.") in answer
    arrows = client.get("/explore/definition", params={"id": "k_anonymity"}).text
    assert ('<li value="46" class="status-tested">k-anonymity at k implies prosecutor re-identification risk at '
            "R ≤ 1/k (tested on a sample, not proven).") in arrows


def test_explore_shows_a_definition_whose_claims_assume_a_reading(client: TestClient) -> None:
    """ε-DP's arrows include claims read with DP within each class (an assumption, not a relation): shown in words."""
    arrows = client.get("/explore/definition", params={"id": "dp"})
    assert arrows.status_code == 200
    assert ("ε-differential privacy does not imply multiplicative t-closeness (with k-anonymity) (when 2·k ≤ N and "
            "dp within classes)") in arrows.text


def test_explore_draws_the_map_with_labels_of_12_px_and_a_neighbourhood_large(client: TestClient, tmp_path: Path) -> None:
    import xml.etree.ElementTree as ElementTree

    from privcert.api import implication_map

    SVG = "{http://www.w3.org/2000/svg}"

    page = client.get("/explore").text
    drawn = re.search(r'<div class="map" id="map"[^>]*>(<svg([^>]*)>.*?</svg>)</div>', page, re.S)
    assert drawn is not None and 'role="group"' in drawn.group(2) and 'role="img"' not in drawn.group(2)
    # drawn at a fixed size (the page scrolls it, at 1280 px as at 390 px): its smallest text 12 px high
    svg = ElementTree.fromstring(drawn.group(1))
    scale = float(svg.attrib["width"]) / float(svg.attrib["viewBox"].split()[2])
    assert scale == pytest.approx(float(svg.attrib["height"]) / float(svg.attrib["viewBox"].split()[3]), rel=1e-3)
    sizes = {float(text.attrib["font-size"].removesuffix("px")) for text in svg.iter(f"{SVG}text")}
    assert 12 <= min(sizes) * scale < 12.01
    assert "numbers refer to the list below" not in page  # the key is the page's text, not 7 px SVG text
    assert "non-implication (red, with a cross)</li>" in page
    assert '<p class="nb-centre">k-anonymity</p>' in page
    full = client.get("/explore/map.svg")
    assert full.headers["content-type"] == "image/svg+xml" and "numbers refer to the list below" in full.text
    # its drawing alone: presentation attributes, no style to allow
    assert full.headers["content-security-policy"] == "default-src 'none'; frame-ancestors 'self'"
    document = ElementTree.fromstring(full.content)
    drawing = ElementTree.parse(implication_map().draw(tmp_path / "map.svg")).getroot()
    assert (document.attrib["width"], document.attrib["stroke-linejoin"]) == (drawing.attrib["width"], "round")
    assert not [element for element in document.iter() if "style" in element.attrib or element.tag.endswith("style")]
    assert [text.text for text in document.iter(f"{SVG}text")] == [text.text for text in drawing.iter(f"{SVG}text")]


def test_explore_answers_as_json(client: TestClient) -> None:
    answer = client.get("/explore/implies.json", params={"premise": "dp", "conclusion": "ldp", "level": "1"})
    assert (answer.status_code, answer.json()["headline"]) == (200, "only if N = 2")
    refused = client.get("/explore/implies.json", params={"premise": "ldp", "conclusion": "k_eps_dp", "level": "1"})
    assert (refused.status_code, refused.json()) == (422, {"error": "level: the guaranteed level of k_eps_dp depends "
                                                                    "on N, k; give each as a parameter NAME=VALUE"})


def test_a_compared_candidate_opens_in_the_audit_page_with_the_sessions_policy(client: TestClient,
                                                                                tmp_path: Path) -> None:
    import pandas as pd

    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "hospital"})
    original = pd.read_csv(DATA / "hospital" / "release.csv")
    files = []
    for name, frame in (("original.csv", original), ("no-zip.csv", original.assign(zip="*")),
                        ("no-age.csv", original.assign(age="*"))):
        frame.to_csv(tmp_path / name, index=False)
        files.append(("original" if name == "original.csv" else "candidates", (name, (tmp_path / name).read_bytes())))
    text = finished(client, client.post("/compare", data={"csrf": token, "qi": "age,zip"}, files=files).text)
    candidates = re.findall(r'name="candidate" value="([^"]+)"', text)
    assert [value.split("/")[1] for value in candidates] == ["no-zip.csv", "no-age.csv"]
    opened = client.post("/compare/audit", data={"csrf": token, "candidate": candidates[1]})
    assert opened.url.path == "/audit" and "The policy for <code>no-age.csv</code>" in opened.text
    assert 'value="prosecutor_risk" selected' in opened.text  # the hospital policy is kept, not roles suggested
    unknown = client.post("/compare/audit", data={"csrf": token, "candidate": "release-1/release.csv"})
    assert unknown.status_code == 422 and "not a candidate compared in this session" in unknown.text


RANDOMIZED = ROOT / "examples" / "randomized"


def plan_rows(text: str) -> list[list[str]]:
    """The Plan page's table of mechanisms, each row's cells as shown."""
    import html

    rows = re.findall(r"<tr(?: class=\"chosen\")?>(.*?)</tr>", text.split("<tbody>", 1)[1], re.S)
    return [[html.unescape(cell) for cell in re.findall(r"<t[hd][^>]*>([^<]*)</t[hd]>", row)] for row in rows]


def test_plan_gives_the_clis_table_mechanism_and_figures(client: TestClient) -> None:
    import html

    from privcert.api import plan
    from verifier.randomized.mechanism import mechanism_csv

    token = csrf(client, "/plan")
    assert '<a href="/plan"' in client.get("/audit").text
    with (RANDOMIZED / "original.csv").open("rb") as original:
        started = client.post("/plan", data={"csrf": token, "sensitive": "disease", "t0": "4", "eps0": "ln(5)",
                                             "k": "50"}, files={"original": ("original.csv", original, "text/csv")})
    text = finished(client, started.text)
    expected = plan(RANDOMIZED / "original.csv", "disease", t0=4, eps0="ln(5)", k=50)
    rows = [row.cells() for row in expected.rows]
    assert plan_rows(text)[:len(rows)] == [[*row, "yes" if row[0] == "optimal" else ""] for row in rows]
    assert [row[0] for row in rows] == ["ldp", "tclo+ldp", "tclo", "optimal", "optimal-auditor", "optimal-publisher"]
    assert rows[0][-1] == "53/92 ≈ 0.5761" and rows[-1][-1] == "449/700 ≈ 0.6414"
    assert "<strong>Chosen: optimal</strong>, for auditor" in text
    assert "kt_closeness (k = 50) <= 4 (this mechanism: 4): an auditor-mode audit certifies it" in html.unescape(text)
    assert "Its matrix: data-independent: a function of n, N, k and the targets only." in text
    matrix = text.split('id="plan-matrix"', 1)[1].split("</table>", 1)[0]
    assert re.findall(r"<td>([^<]*)</td>", matrix)[:4] == ["53/92", "13/92", "13/92", "13/92"]
    link = re.search(r'href="/files/([^"]+/mechanism\.csv)"', text)
    assert link is not None
    assert client.get(f"/files/{link.group(1)}").text == mechanism_csv(expected.mechanism())
    six = re.search(r'href="/files/([^"]+/fig6\.svg)"', text)
    assert text.count("<svg") == 2 and six is not None
    assert "Fig. 6: t0=4, n=2, N=2000, k=50" in client.get(f"/files/{six.group(1)}").text  # its title, drawn as paths
    png = re.search(r'href="/files/([^"]+/fig7\.png)"', text)
    assert png is not None and client.get(f"/files/{png.group(1)}").content.startswith(b"\x89PNG")


def test_plan_for_a_publisher_with_the_data_writes_the_publishers_optimum(client: TestClient) -> None:
    import html

    token = csrf(client, "/plan")
    text = finished(client, client.post("/plan", data={
        "csrf": token, "example": "demo", "sensitive": "disease", "t0": "2", "k": "3", "audience": "publisher",
        "data_dependent": "on"}).text)
    assert "<strong>Chosen: optimal-publisher</strong>, for publisher" in text
    assert "only a publisher-mode audit (with the original) can certify it" in text
    assert "Its matrix: computed from the original's value counts: the matrix may disclose them." in html.unescape(text)
    bad = client.post("/plan", data={"csrf": token, "example": "demo", "sensitive": "disease", "t0": "2",
                                     "audience": "everyone"})
    assert bad.status_code == 422 and "audience: expected auditor or publisher, found 'everyone'" in html.unescape(
        bad.text)


def test_plan_from_an_estimate_writes_the_estimates_mark_and_the_composed_epsilon(client: TestClient) -> None:
    """The Plan page's estimate field is ``plan --estimate-eps``: the auditor's optimum on an ε-DP estimate of the
    counts, its mark in the mechanism file, ε_M + ε_E stated; with the data-dependent box, the library's refusal in
    the page's words."""
    import html

    token = csrf(client, "/plan")
    assert 'name="estimate_eps"' in client.get("/plan").text
    with (RANDOMIZED / "original.csv").open("rb") as original:
        started = client.post("/plan", data={"csrf": token, "sensitive": "disease", "t0": "4", "eps0": "ln(5)",
                                             "k": "50", "estimate_eps": "ln(4)"},
                              files={"original": ("original.csv", original, "text/csv")})
    text = html.unescape(finished(client, started.text))
    assert "<strong>Chosen: optimal-estimate</strong>, for auditor" in text
    assert "estimate: eps_E = ln(4)" in text and "the release with its mechanism: eps = " in text
    link = re.search(r'href="/files/([^"]+/mechanism\.csv)"', text)
    assert link is not None
    written = client.get(f"/files/{link.group(1)}").text
    assert written.startswith("# data: estimate\n# estimate_epsilon: ln(4)\nvalue,")
    both = finished(client, client.post("/plan", data={"csrf": token, "example": "demo", "sensitive": "disease",
                                                       "t0": "2", "estimate_eps": "ln(4)",
                                                       "data_dependent": "on"}).text)
    assert 'data-status="failed"' in both
    assert ("the estimate's ε and “Let the mechanism be computed from the original's counts” exclude each other"
            in html.unescape(both)) and "--estimate-eps" not in both
    bad = client.post("/plan", data={"csrf": token, "example": "demo", "sensitive": "disease", "t0": "2",
                                     "estimate_eps": "١"})
    assert bad.status_code == 422 and "the estimate's ε: expected a number written with the digits 0-9" in html.unescape(
        bad.text)


def test_plan_reads_the_targets_from_a_policy_and_shows_the_clis_refusal(client: TestClient) -> None:
    import html

    from privcert.api import plan
    from theory.mechanism_selection.release_plan import InfeasibleTargets

    token = csrf(client, "/plan")
    with (RANDOMIZED / "original.csv").open("rb") as original, (RANDOMIZED / "planned.toml").open("rb") as policy:
        text = finished(client, client.post("/plan", data={"csrf": token}, files={
            "original": ("original.csv", original, "text/csv"), "policy": ("planned.toml", policy)}).text)
    assert plan_rows(text)[3][-1] == "yes" and "eps0 = ln(5) ≈ 1.609" in text
    with pytest.raises(InfeasibleTargets) as refusal:
        plan(RANDOMIZED / "original.csv", "disease", t0=1, eps0="ln(5)")
    failed = finished(client, client.post("/plan", data={"csrf": token, "example": "demo", "sensitive": "disease",
                                                         "t0": "1"}).text)
    assert 'data-status="failed"' in failed and "no release that depends on the data meets these targets" in failed
    assert str(refusal.value).split(": ", 1)[1].split(" (utility")[0] in failed
    missing = client.post("/plan", data={"csrf": token, "sensitive": "disease", "t0": "2"})
    assert missing.status_code == 422 and "choose a CSV or Parquet file, or a bundled table" in missing.text
    bad_k = client.post("/plan", data={"csrf": token, "example": "demo", "sensitive": "disease", "t0": "2", "k": "0"})
    assert bad_k.status_code == 422 and "k: expected a whole number ≥ 1, found '0'" in html.unescape(bad_k.text)
    unknown = finished(client, client.post("/plan", data={"csrf": token, "example": "hospital",
                                                          "sensitive": "disease", "t0": "2"}).text)
    assert "hospital/release.csv: column 'disease' not found" in html.unescape(unknown)


def test_serve_warns_for_a_host_other_than_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn
    from typer.testing import CliRunner

    from privcert.cli import app

    served: list[str] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: served.append(self.config.host))
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--port", "8123"])
    assert result.exit_code == 0 and served == ["0.0.0.0"]
    assert "warning: --host 0.0.0.0: the workbench and the data uploaded to it will be reachable from the network" \
        in result.output
    quiet = CliRunner().invoke(app, ["serve"])
    assert "warning" not in quiet.output and served[-1] == "127.0.0.1"


def test_the_command_line_starts_without_the_web_framework() -> None:
    code = "import sys, privcert.cli; sys.exit(sorted({'fastapi', 'uvicorn', 'starlette'} & set(sys.modules)) != [])"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
