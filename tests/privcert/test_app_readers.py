"""The server reads an upload's columns in a process of the jobs' fork server: its own interpreter never imports
the table readers for it (a fresh interpreter, so that no other test has imported them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from _processes import CEILING

ROOT = Path(__file__).resolve().parents[2]
UPLOAD = """
import sys
sys.path.insert(0, "tests")
from _app_client import browser_client, csrf
from privcert.app import Settings, create_app

def main(folder, release):
    with browser_client(create_app(Settings(root=folder, warm=False))) as client:
        token = csrf(client)
        with open(release, "rb") as handle:
            text = client.post("/audit/release", data={"csrf": token},
                               files={"release": ("release.parquet", handle)}).text
    print("quasi-identifier" in text, "identifier: unique" in text,
          sorted(name for name in ("pandas", "pyarrow", "pyarrow.parquet") if name in sys.modules))

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
"""


def test_an_upload_is_read_without_the_server_importing_pandas(tmp_path: Path) -> None:
    import pandas as pd

    release = tmp_path / "release.parquet"
    pd.DataFrame({"id": [1, 2, 3, 4], "age": [30, 30, 40, 40], "disease": ["a", "b", "a", "b"]}).to_parquet(release)
    script = tmp_path / "upload.py"
    script.write_text(UPLOAD, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(tmp_path), str(release)], cwd=ROOT, capture_output=True,
                          text=True, timeout=CEILING, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == "True True []"  # roles suggested (id: unique on every row), no reader here
