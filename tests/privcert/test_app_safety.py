"""The workbench is safe to open: a release's own text never becomes the page's markup, no policy reaches a file
the browser did not upload, only this computer's names for the server are answered, and what a browser can make
the server keep (sessions, disk, columns, keys) is bounded. Through httpx (Starlette's TestClient)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from _app_client import BANNER, HOSTILE_RELEASE, SCRIPT, Structure, browser_client, csrf, finished
from privcert.app import Settings, create_app

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "privcert" / "data"
HOSTILE_FORM = {"requirements": "2", "role-0": "quasi-identifier", "role-1": "sensitive", "kind-1": "categorical",
                "role-2": "quasi-identifier", "req-0-model": "k_anonymity", "req-0-threshold": "2",
                "req-1-model": "distinct_l_diversity", "req-1-attribute": SCRIPT, "req-1-threshold": "2"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with browser_client(create_app(Settings(max_upload=2_000_000, root=tmp_path, warm=False))) as made:
        yield made


def markup_of_the_release(page: str) -> list[str]:
    """What of the hostile release became markup in ``page``: its elements and event handlers."""
    found = Structure.of(page)
    return [f"<{tag}>" for tag, _ in found.elements if tag in ("b", "img") or (tag == "script" and _ != ("src",))] + \
        [f"{name}={value}" for name, value in found.values if name.startswith("on")] + \
        [f"<div {value}>" for name, value in found.values if name == "class" and value == "pass"]


def test_a_release_of_html_is_shown_as_text_on_every_page(client: TestClient) -> None:
    token = csrf(client)
    roles = client.post("/audit/release", data={"csrf": token}, files={"release": ("<i>x</i>.csv", HOSTILE_RELEASE)})
    assert roles.status_code == 200 and markup_of_the_release(roles.text) == []
    assert "&lt;div class=&#34;pass&#34;&gt;PASS: all requirements hold. Certified.&lt;/div&gt;" in roles.text
    assert "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>" in roles.text
    form = client.post("/audit/policy/form", data={"csrf": token, **HOSTILE_FORM, "add": "1"}).text
    checked = client.post("/audit/policy/check", data={"csrf": token, **HOSTILE_FORM}).text
    assert markup_of_the_release(form) == [] and "The policy is valid: 2 requirement(s)." in checked
    audited = finished(client, client.post("/audit/run", data={"csrf": token, **HOSTILE_FORM}).text)
    assert 'id="verdict" class="verdict pass">PASS</h3>' in audited and markup_of_the_release(audited) == []
    assert "&lt;div class=&#34;pass&#34;&gt;PASS: all requirements hold. Certified.&lt;/div&gt; = " in audited
    report = re.search(r'href="/view/([^"]+)"', audited)
    assert report is not None
    view = client.get(f"/view/{report.group(1)}").text
    assert BANNER not in view and SCRIPT not in view and "&lt;script&gt;alert(1)&lt;/script&gt;" in view
    for page in ("/audit", "/verify", "/compare", "/plan"):
        assert markup_of_the_release(client.get(page).text) == []


def test_the_pages_allow_no_inline_style_or_script(client: TestClient) -> None:
    for path in ("/audit", "/verify", "/compare", "/plan", "/explore"):
        response = client.get(path)
        policy = response.headers["content-security-policy"]
        assert "style-src 'self';" in policy and "script-src 'self';" in policy and "unsafe" not in policy
        found = Structure.of(response.text)
        assert [name for name, _ in found.values if name == "style" or name.startswith("on")] == [], path
        assert [tag for tag, names in found.elements if tag == "style" or (tag == "script" and names != ("src",))] \
            == [], path


SECRET = "TOPSECRET-42,x\nTOPSECRET-43\n"
"""A server file outside the session (rows of different lengths: not a hierarchy, so its reader quotes a cell)."""


def _policy(key: str, name: str) -> str:
    """The bundled demo's policy (zip, age; disease) with the path-valued ``key`` (a pattern of PATH_KEYS) naming
    ``name``."""
    import tomli_w

    document: dict[str, Any] = {"data": {"qi": ["zip", "age"]}, "sensitive": {"disease": {"kind": "categorical"}},
                                "require": [{"model": "k_anonymity", "threshold": 2}]}
    if key.startswith("mechanism."):
        document["mechanism"] = {"attribute": "disease"}
    table = document
    *tables, last = key.replace("*", "disease").split(".")
    for part in tables:
        table = table.setdefault(part, {})
    table[last] = name
    return tomli_w.dumps(document)


def _names(tmp_path: Path) -> list[str]:
    """Names no policy of the browser may reach: absolute, climbing out of the policy's folder (to the server's
    file, to another upload of the session), and a plain name never uploaded."""
    secret = tmp_path / "outside" / "secret.csv"
    secret.parent.mkdir(exist_ok=True)
    secret.write_text(SECRET, encoding="utf-8")
    return [str(secret), "../../outside/secret.csv", "../../../outside/secret.csv", "../release-1/release.csv",
            "disease_hierarchy_2.csv"]


def test_every_path_valued_key_of_a_policy_is_confined_to_the_sessions_uploads(client: TestClient,
                                                                                tmp_path: Path) -> None:
    """The policy reader locates every path-valued key through the workbench's one locator: each key, with each
    name outside the uploads, is refused with the key and what to do, without the file read or a folder shown."""
    from privcert.app.policy_files import read_policy
    from verifier.errors import PolicyError
    from verifier.policy import PATH_KEYS

    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "demo"})
    session = next(iter(client.app.state.sessions._sessions.values()))
    for key in PATH_KEYS:
        for name in _names(tmp_path):
            policy = session.new_path("policy", ".toml", name="policy.toml")
            policy.write_text(_policy(key, name), encoding="utf-8")
            with pytest.raises(PolicyError) as refused:
                read_policy(session, policy)
            assert str(refused.value) == (
                f"{policy}: {key.replace('*', 'disease')}: expected the name of a file uploaded under “Files the "
                f"policy names” on the Audit page (uploaded: disease_hierarchy.csv), found {name!r}: upload the file "
                "there and name it by its file name")


@pytest.mark.parametrize("key", ["sensitive.*.hierarchy", "risk.population_table", "mechanism.file"])
def test_an_imported_policy_naming_a_server_file_is_refused_with_its_key(client: TestClient, tmp_path: Path,
                                                                          key: str) -> None:
    """Before, the policy check opened the file and quoted it (``found 'TOPSECRET-42'``), or, shaped as a
    hierarchy, carried it whole into the signed certificate; the relative form showed the session's folders."""
    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "demo"})
    form = {"csrf": token, "requirements": "1", "role-0": "quasi-identifier", "role-1": "quasi-identifier",
            "role-2": "left out", "role-3": "sensitive", "req-0-model": "k_anonymity", "req-0-threshold": "2"}
    for name in _names(tmp_path):
        imported = client.post("/audit/policy/import", data={"csrf": token},
                               files={"policy": ("mine.toml", _policy(key, name).encode())})
        assert imported.status_code == 200
        shown = html.unescape(client.post("/audit/policy/check", data=form).text)
        assert f"policy: the policy: {key.replace('*', 'disease')}: expected the name of a file uploaded under " \
               f"“Files the policy names” on the Audit page (uploaded: disease_hierarchy.csv), found {name!r}" in shown
        assert "TOPSECRET" not in shown and "privcert-serve-" not in shown  # the name typed is shown, no file, no folder
        run = html.unescape(client.post("/audit/run", data=form).text)
        assert 'role="alert"' in run and "upload the file there" in run and 'id="job-' not in run


def test_a_file_the_policy_names_is_uploaded_and_named_by_its_upload(client: TestClient) -> None:
    token = csrf(client)
    client.post("/audit/release", data={"csrf": token},
                files={"release": ("release.csv", (DATA / "release.csv").read_bytes())})
    policy = _policy("sensitive.*.hierarchy", "my_hierarchy.csv")
    client.post("/audit/policy/import", data={"csrf": token}, files={"policy": ("mine.toml", policy.encode())})
    form = {"csrf": token, "requirements": "1", "role-0": "quasi-identifier", "role-1": "quasi-identifier",
            "role-2": "left out", "role-3": "sensitive", "req-0-model": "t_closeness", "req-0-attribute": "disease",
            "req-0-threshold": "1/2", "req-0-p-distance": "hierarchical"}
    before = html.unescape(client.post("/audit/policy/check", data=form).text)
    assert "found 'my_hierarchy.csv': upload the file there" in before
    listed = client.post("/audit/policy/files", data={"csrf": token}, files=[
        ("files", ("my hierarchy.csv", (DATA / "disease_hierarchy.csv").read_bytes()))]).text
    assert 'Files the policy may name: <code>my_hierarchy.csv</code>.' in listed
    assert "The policy is valid: 1 requirement(s)." in client.post("/audit/policy/check", data=form).text
    text = finished(client, client.post("/audit/run", data={"csrf": token, **form}).text)
    assert '<td data-label="Model">t_closeness (hierarchical)</td>' in text
    assert '<td data-label="Level (exact)" class="level"><code>8/27</code></td>' in text


def test_a_plan_policy_naming_a_server_file_is_refused(client: TestClient, tmp_path: Path) -> None:
    token = csrf(client, "/plan")
    policy = _policy("sensitive.*.hierarchy", _names(tmp_path)[0])
    refused = client.post("/plan", data={"csrf": token, "example": "demo"},
                          files={"policy": ("targets.toml", policy.encode())})
    assert refused.status_code == 422
    assert html.unescape(refused.text) == (
        '<p class="error" role="alert">error: targets.toml: sensitive.disease.hierarchy: expected the name of a file '
        f"uploaded under “Files the policy names” on the Audit page, found {_names(tmp_path)[0]!r}: upload the file "
        "there and name it by its file name</p>")


def test_only_this_computers_names_for_the_server_are_answered(tmp_path: Path) -> None:
    """Before, any Host was answered: a page of another site whose name points at 127.0.0.1 (DNS rebinding) got
    its own session and CSRF token, and with them the file read of an imported policy."""
    app = create_app(Settings(root=tmp_path, warm=False, port=8123, host="::1"))
    with TestClient(app, base_url="http://127.0.0.1:8123") as client:
        for host in ("127.0.0.1:8123", "localhost:8123", "[::1]:8123", "LOCALHOST:8123"):
            assert client.get("/audit", headers={"host": host}).status_code == 200, host
        for host in ("attacker.example:8123", "attacker.example", "127.0.0.1:8000", "127.0.0.1", "localhost.:8123",
                     "127.0.0.1.attacker.example:8123", ""):
            refused = client.get("/static/app.css", headers={"host": host})
            assert refused.status_code == 400, host
            assert refused.text.startswith("<p>error: this server answers only at this computer's own addresses for "
                                           "it (http://127.0.0.1:8123/, http://[::1]:8123/, http://localhost:8123/)")
        assert len(app.state.sessions) == 1  # none for a refused name
    with TestClient(create_app(Settings(root=tmp_path, warm=False, port=80)), base_url="http://localhost") as client:
        assert client.get("/verify").status_code == 200  # a browser names port 80 by the host alone


def test_a_form_from_another_origin_is_refused_even_with_the_token(client: TestClient) -> None:
    token = csrf(client)
    form = {"csrf": token, "example": "demo"}
    for origin in ("http://attacker.example", "http://127.0.0.1:8000.attacker.example", "null",
                   "http://localhost:9999", "https://127.0.0.1:8000"):
        refused = client.post("/audit/example", data=form, headers={"origin": origin})
        assert refused.status_code == 403, origin
        assert html.unescape(refused.text) == (f'<p class="error" role="alert">error: this form came from another site '
                                               f"({origin}); the workbench accepts forms only from its own pages</p>")
    referred = client.post("/audit/example", data=form, headers={"referer": "http://attacker.example/page"})
    assert referred.status_code == 403
    for headers in ({"origin": "http://127.0.0.1:8000"}, {"origin": "http://localhost:8000"},
                    {"referer": "http://127.0.0.1:8000/audit"}, {}):
        assert client.post("/audit/example", data=form, headers=headers).status_code == 200, headers
    assert client.get("/audit").headers["referrer-policy"] == "same-origin"  # a browser sends its own Origin


def test_a_session_is_made_only_by_a_page_that_needs_one(tmp_path: Path) -> None:
    """Before, every cookie-less request made a session folder (500 GETs of /static/app.css: 500 folders)."""
    app = create_app(Settings(root=tmp_path, warm=False))
    for path in ("/static/app.css", "/static/htmx.min.js", "/", "/files/release-1/release.csv",
                 "/view/report-2/report.html", "/jobs/0123", "/audit/policy.toml", "/nowhere"):
        browser_client(app).get(path, follow_redirects=False)
    browser_client(app).post("/audit/example", data={"example": "demo", "csrf": "x"})
    assert len(app.state.sessions) == 0 and not any(Path(app.state.sessions.root).iterdir())
    browser_client(app).get("/audit")
    assert len(app.state.sessions) == 1


def test_sessions_are_capped_the_one_unused_longest_dropped(tmp_path: Path) -> None:
    app = create_app(Settings(root=tmp_path, warm=False, max_sessions=3))
    clients = [browser_client(app) for _ in range(5)]
    for client in clients:
        client.get("/audit")
    assert len(app.state.sessions) == 3 and len(list(Path(app.state.sessions.root).iterdir())) == 3
    kept = [client for client in clients if client.cookies.get("privcert_session") in app.state.sessions._sessions]
    assert kept == clients[2:]
    clients[2].get("/audit")  # used again: now the newest
    browser_client(app).get("/audit")
    assert [c for c in clients if c.cookies.get("privcert_session") in app.state.sessions._sessions] == \
        [clients[2], clients[4]]


def test_a_sessions_disk_is_capped(tmp_path: Path) -> None:
    with browser_client(create_app(Settings(root=tmp_path, warm=False, session_disk=1024 * 1024))) as client:
        token = csrf(client)
        assert client.post("/audit/release", data={"csrf": token},
                           files={"release": ("a.csv", b"a,b\n" + b"1,2\n" * 150_000)}).status_code == 200
        refused = client.post("/audit/release", data={"csrf": token},
                              files={"release": ("b.csv", b"a,b\n" + b"1,2\n" * 150_000)})
        assert refused.status_code == 422 and html.unescape(refused.text) == (
            "<p class=\"error\" role=\"alert\">error: release 'b.csv': this session's files may take at most 1 MB, "
            "and this file would pass that; it was not kept (a session's files are deleted when it ends: close the "
            "workbench's tabs and open it again for a new one)</p>")
        session = next(iter(client.app.state.sessions._sessions.values()))
        assert [p.name for p in session.folder.rglob("*.csv")] == ["a.csv"] and session.used() == 600_004


def test_a_release_wider_than_the_column_limit_is_refused_with_a_message(client: TestClient) -> None:
    """Before, a 100,000-column CSV took 166 s and made a 67 MB page."""
    from privcert.app.audit_page import MAX_COLUMNS

    token = csrf(client)
    header = ",".join(f"c{n}" for n in range(MAX_COLUMNS + 1))
    refused = client.post("/audit/release", data={"csrf": token},
                          files={"release": ("wide.csv", f"{header}\n{header}\n".encode())})
    assert refused.status_code == 422 and html.unescape(refused.text) == (
        '<p class="error" role="alert">error: the release has 2,001 columns; the workbench reads tables of at most '
        "2,000 columns (its policy form shows one row per column): audit this one with privcert audit</p>")
    header = ",".join(f"c{n}" for n in range(MAX_COLUMNS))
    assert client.post("/audit/release", data={"csrf": token},
                       files={"release": ("wide.csv", f"{header}\n{header}\n".encode())}).status_code == 200


def test_keys_are_the_servers_users_only_and_deleted_once_they_have_signed(client: TestClient) -> None:
    """Before, an uploaded private key was stored 0644 and kept until the session expired."""
    import stat

    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "hospital"})
    finished(client, client.post("/audit/run", data={"csrf": token, "requirements": "1", "role-0": "quasi-identifier",
                                                     "role-1": "quasi-identifier", "role-2": "sensitive",
                                                     "req-0-model": "k_anonymity", "req-0-threshold": "2"}).text)
    session = next(iter(client.app.state.sessions._sessions.values()))
    keys = client.post("/certify/key/new", data={"csrf": token}).text
    private = Path(session.state["key"]["private"])
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    uploaded = client.post("/certify/key/upload", data={"csrf": token},
                           files={"key": ("mine.pem", private.read_bytes())})
    mine = Path(session.state["key"]["private"])
    assert uploaded.status_code == 200 and mine.name == "mine.pem" and stat.S_IMODE(mine.stat().st_mode) == 0o600
    assert 'id="download-certificate"' in finished(client, client.post("/certify", data={"csrf": token}).text)
    assert not mine.exists() and session.state["key"]["private"] is None  # deleted once it has signed
    assert "The private key was deleted once it had signed the certificate: generate or upload a key to sign " \
           "again." in client.get("/audit").text
    made = client.post("/certify/key/new", data={"csrf": token}).text
    link = re.search(r'href="/files/(key-\d+/privcert\.key)"', made)
    assert link is not None and keys != made
    finished(client, client.post("/certify", data={"csrf": token}).text)
    generated = Path(session.state["key"]["private"])
    assert generated.exists()  # signed, but not yet downloaded
    assert client.get(f"/files/{link.group(1)}").content.startswith(b"-----BEGIN PRIVATE KEY-----")
    assert not generated.exists() and session.state["key"]["private"] is None
    assert client.post("/certify", data={"csrf": token}).status_code == 422


def test_a_killed_servers_folder_is_deleted_at_the_next_start(tmp_path: Path) -> None:
    """Before, after SIGKILL the sessions' folders (with a generated private key) stayed in the temporary folder."""
    import os
    import subprocess
    import sys

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    killed = tmp_path / f"privcert-serve-{gone.stdout.strip()}-abc123"
    (killed / "0f0f" / "key-1").mkdir(parents=True)
    (killed / "0f0f" / "key-1" / "privcert.key").write_text("secret", encoding="utf-8")
    live, other = tmp_path / f"privcert-serve-{os.getpid()}-def456", tmp_path / "privcert-serve-mine"
    live.mkdir()
    other.mkdir()
    app = create_app(Settings(root=tmp_path, warm=False))
    assert not killed.exists() and live.exists() and other.exists()
    assert Path(app.state.sessions.root).name.startswith(f"privcert-serve-{os.getpid()}-")


def test_numbers_in_other_scripts_digits_are_refused_in_the_pages_words(client: TestClient) -> None:
    """Before, ``१२`` was read as 12 (a threshold, N, k); now each numeric field refuses it by its label."""
    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "hospital"})
    form = {"csrf": token, "requirements": "1", "role-0": "quasi-identifier", "req-0-model": "k_anonymity"}
    refusals = {
        ("/audit/policy/check", "req-0-threshold", "१२"): "Requirement 1, threshold",
        ("/audit/run", "req-0-threshold", "٣"): "Requirement 1, threshold",
        ("/audit/policy/check", "requirements", "١"): "requirements",
        ("/explore/explain", "records", "१००"): "Records N",
        ("/explore/implies", "level", "५"): "A's level",
        ("/explore/implies", "param-N", "१२"): "N",
        ("/plan", "t0", "४"): "t0",
        ("/plan", "k", "५०"): "k",
    }
    extra = {"/explore/explain": {"levels": "k_anonymity = 5"}, "/explore/implies": {"premise": "k_anonymity",
                                                                                     "conclusion": "dp"},
             "/plan": {"example": "demo", "sensitive": "disease", "t0": "4"}}
    for (path, field, typed), label in refusals.items():
        posted = {**form, **extra.get(path, {}), field: typed}
        refused = client.post(path, data=posted)
        assert refused.status_code == 422, (path, field)
        assert html.unescape(refused.text) == (f'<p class="error" role="alert">error: {label}: expected a number '
                                               f"written with the digits 0-9, found {typed!r}</p>"), (path, field)
    levels = client.post("/explore/explain", data={"csrf": token, "records": "100", "levels": "k_anonymity = ५"})
    assert "Measured levels: expected a number written with the digits 0-9, found 'k_anonymity = ५'" in \
        html.unescape(levels.text)


def test_a_role_or_kind_posted_by_hand_is_refused(client: TestClient) -> None:
    """Before, a role ``admin`` posted by hand was read silently as "left out"."""
    token = csrf(client)
    client.post("/audit/example", data={"csrf": token, "example": "hospital"})
    for field, value, label in (("role-0", "admin", "Role of age"), ("kind-2", "secret", "Kind of diagnosis")):
        refused = client.post("/audit/policy/check", data={"csrf": token, "requirements": "0", field: value})
        assert refused.status_code == 422 and html.unescape(refused.text) == (
            f'<p class="error" role="alert">error: {label}: expected one of '
            f"{'quasi-identifier, sensitive, left out' if field.startswith('role') else 'categorical, numerical'}, "
            f"found {value!r}</p>")


def test_an_unknown_utility_model_is_named_by_its_field(client: TestClient) -> None:
    """Before, the message named the command line's ``--metric``."""
    token = csrf(client, "/compare")
    release = (DATA / "hospital" / "release.csv").read_bytes()
    files = [("original", ("original.csv", release)), ("candidates", ("one.csv", release)),
             ("candidates", ("two.csv", release))]
    failed = finished(client, client.post("/compare", data={"csrf": token, "qi": "age,zip", "metric": "nope"},
                                          files=files).text)
    shown = html.unescape(failed)
    assert "error: utility model of the figure: expected one of the models measured (" in shown
    assert "found 'nope'" in shown and "--metric" not in shown
