"""Browser sessions of the workbench: each its own temporary folder, deleted when the session expires.

A session is a random id in an HTTP-only, same-site cookie; the server keeps, per id, a
folder for the uploads and outputs, the CSRF token every form sends back, and what the
pages need to remember (the release, the policy, the last audit, the signing key). Files
are stored under names the server picks (``release-1.csv``); the name a browser sent is
only ever shown, never used as a path. One session never sees another's folder.
"""

from __future__ import annotations

import re
import secrets
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Session", "Sessions", "COOKIE", "safe_suffix"]

COOKIE = "privcert_session"
_SUFFIXES = (".csv", ".csv.gz", ".parquet", ".pq", ".toml", ".json", ".pub", ".pem", ".key", ".html", ".pdf")


def safe_suffix(filename: str | None, allowed: tuple[str, ...] = _SUFFIXES) -> str:
    """The suffix of an uploaded file's name among ``allowed`` (lower case), or ``""``: the only part of a
    browser-sent name the server keeps."""
    name = (filename or "").lower()
    return next((suffix for suffix in sorted(allowed, key=len, reverse=True) if name.endswith(suffix)), "")


@dataclass
class Session:
    """One browser's state: its folder, CSRF token, last use, and what its pages remember."""

    id: str
    folder: Path
    csrf: str
    seen: float
    state: dict[str, Any] = field(default_factory=dict)
    _counter: int = 0

    def new_path(self, stem: str, suffix: str) -> Path:
        """A fresh file name in the session's folder: ``stem-N`` + ``suffix`` (``stem`` is the server's word)."""
        if not re.fullmatch(r"[a-z][a-z0-9_]*", stem) or not re.fullmatch(r"(\.[a-z0-9]+)*", suffix):
            raise ValueError(f"not a server-chosen file name: {stem!r}{suffix!r}")
        self._counter += 1
        return self.folder / f"{stem}-{self._counter}{suffix}"

    def owns(self, path: Path) -> bool:
        """Whether ``path`` is a file of this session's folder (downloads are checked with it)."""
        return path.parent == self.folder and path.is_file()


class Sessions:
    """The sessions of one server: created on first visit, dropped with their folder after ``idle`` seconds
    unused, and all dropped when the server stops."""

    def __init__(self, root: Path | None = None, idle: float = 3600.0) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="privcert-serve-", dir=root))
        self.idle = idle
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def get(self, session_id: str | None) -> Session | None:
        """The live session of ``session_id`` (its last use now), or ``None``."""
        with self._lock:
            found = self._sessions.get(session_id or "")
            if found is not None:
                found.seen = time.monotonic()
            return found

    def create(self) -> Session:
        with self._lock:
            session_id = secrets.token_urlsafe(32)
            folder = self.root / secrets.token_hex(8)
            folder.mkdir(mode=0o700)
            created = Session(session_id, folder, secrets.token_urlsafe(32), time.monotonic())
            self._sessions[session_id] = created
            return created

    def expire(self, now: float | None = None) -> list[str]:
        """Drop every session unused for ``idle`` seconds and delete its folder; return the ids dropped."""
        now = time.monotonic() if now is None else now
        with self._lock:
            old = [s for s in self._sessions.values() if now - s.seen >= self.idle]
            for session in old:
                del self._sessions[session.id]
        for session in old:
            _drop(session)
        return [s.id for s in old]

    def close(self) -> None:
        """Drop every session and the server's folder."""
        with self._lock:
            every = list(self._sessions.values())
            self._sessions.clear()
        for session in every:
            _drop(session)
        shutil.rmtree(self.root, ignore_errors=True)

    def __len__(self) -> int:
        return len(self._sessions)


def _drop(session: Session) -> None:
    from privcert.app.jobs import cancel_all

    cancel_all(session.state)
    shutil.rmtree(session.folder, ignore_errors=True)
