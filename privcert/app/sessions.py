"""Browser sessions of the workbench: each its own temporary folder, deleted when the session expires.

A session is a random id in an HTTP-only, same-site cookie; the server keeps, per id, a
folder for the uploads and outputs, the CSRF token every form sends back, and what the
pages need to remember (the release, the policy, the last audit, the signing key). Each
file gets a fresh folder the server names (``release-1/``); in it, an upload keeps its
name reduced to a plain file name (:func:`plain_name`: letters, digits, ``.``, ``-``,
``_``; no folder, no leading dot), so that a certificate names the release as its owner
knows it, while nothing a browser sends can name a path outside that folder. One session
never sees another's folder.

Bounded: a session is made only by a page that needs one (its forms carry the session's
token), at most :data:`MAX_SESSIONS` live at once (a new one drops the one unused longest),
and each session's files take at most :data:`SESSION_DISK` bytes. The server's folder is
named after its process (``privcert-serve-PID-...``); at start, the folders of servers
whose process is gone (killed, with their sessions' uploads and keys) are deleted.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Session", "Sessions", "COOKIE", "safe_suffix", "plain_name", "replace_names", "MAX_SESSIONS",
           "SESSION_DISK", "remove_leftovers"]

COOKIE = "privcert_session"
MAX_SESSIONS = 100
"""Sessions live at once; a new one drops the one unused longest (its folder deleted, its jobs cancelled)."""
SESSION_DISK = 1024 * 1024 * 1024
"""Bytes a session's files may take (uploads are refused beyond it): 1 GiB."""
_ROOT = re.compile(r"privcert-serve-(\d+)-[A-Za-z0-9_]+")
_SUFFIXES = (".csv", ".csv.gz", ".parquet", ".pq", ".toml", ".json", ".pub", ".pem", ".key", ".html", ".pdf")


def safe_suffix(filename: str | None, allowed: tuple[str, ...] = _SUFFIXES) -> str:
    """The suffix of an uploaded file's name among ``allowed`` (lower case), or ``""``: the only part of a
    browser-sent name the server keeps."""
    name = (filename or "").lower()
    return next((suffix for suffix in sorted(allowed, key=len, reverse=True) if name.endswith(suffix)), "")


def plain_name(filename: str | None, suffix: str, fallback: str) -> str:
    """An uploaded file's name as a plain file name ending in ``suffix``: its last path component, every
    character but letters, digits, ``.``, ``-`` and ``_`` replaced by ``_``, no leading dot, at most 100
    characters; ``fallback`` when nothing of it is left or it does not end in ``suffix``."""
    last = re.split(r"[/\\]", filename or "")[-1]
    plain = re.sub(r"[^A-Za-z0-9._-]", "_", last).lstrip(".")[-100:]
    return plain if plain.lower().endswith(suffix) and len(plain) > len(suffix) else fallback


def replace_names(text: str, names: Mapping[str, str]) -> str:
    """``text`` with each session path of ``names`` replaced by the name its user knows (longest first)."""
    for path, name in sorted(names.items(), key=lambda item: -len(item[0])):
        text = text.replace(path, name)
    return text


@dataclass
class Session:
    """One browser's state: its folder, CSRF token, last use, and what its pages remember."""

    id: str
    folder: Path
    csrf: str
    seen: float
    state: dict[str, Any] = field(default_factory=dict)
    disk: int = SESSION_DISK
    """The bytes its files may take."""
    _counter: int = 0

    def used(self) -> int:
        """The bytes its files take."""
        return sum(path.lstat().st_size for path in self.folder.rglob("*") if path.is_file() and not path.is_symlink())

    def new_path(self, stem: str, suffix: str, uploaded: str | None = None, name: str | None = None) -> Path:
        """A file in a fresh folder ``stem-N`` of the session's: named ``name``, or the ``uploaded`` name made
        plain (:func:`plain_name`), or ``stem`` + ``suffix``."""
        if not re.fullmatch(r"[a-z][a-z0-9_]*", stem) or not re.fullmatch(r"(\.[a-z0-9]+)*", suffix):
            raise ValueError(f"not a server-chosen file name: {stem!r}{suffix!r}")
        self._counter += 1
        folder = self.folder / f"{stem}-{self._counter}"
        folder.mkdir(mode=0o700)
        return folder / (name or plain_name(uploaded, suffix, stem + suffix))

    def file(self, relative: str) -> Path | None:
        """The session's file ``FOLDER/NAME`` (as :meth:`link` writes it), or ``None``: nothing outside the
        session's folders is ever found."""
        parts = relative.split("/")
        if len(parts) != 2 or any(not re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9._-]*", part) for part in parts):
            return None
        path = self.folder / parts[0] / parts[1]
        return path if path.is_file() and not path.is_symlink() else None

    def link(self, path: Path | str) -> str:
        """``FOLDER/NAME`` of a session file, for its download address."""
        path = Path(path)
        return f"{path.parent.name}/{path.name}"


class Sessions:
    """The sessions of one server: created by the first page that needs one, at most ``most`` at once (the one
    unused longest is dropped for a new one), each with ``disk`` bytes for its files; dropped with their folder
    after ``idle`` seconds unused, and all dropped when the server stops. The server's folder is made under
    ``root`` (default: the system's temporary folder), after deleting the folders left there by servers whose
    process is gone (:func:`remove_leftovers`)."""

    def __init__(self, root: Path | None = None, idle: float = 3600.0, most: int = MAX_SESSIONS,
                 disk: int = SESSION_DISK) -> None:
        remove_leftovers(Path(root) if root is not None else Path(tempfile.gettempdir()))
        self.root = Path(tempfile.mkdtemp(prefix=f"privcert-serve-{os.getpid()}-", dir=root))
        self.idle, self.most, self.disk = idle, most, disk
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
        """A new session; when :attr:`most` are live, the one unused longest is dropped first."""
        with self._lock:
            dropped = sorted(self._sessions.values(), key=lambda s: s.seen)[:max(0, len(self._sessions) - self.most + 1)]
            for session in dropped:
                del self._sessions[session.id]
            session_id = secrets.token_urlsafe(32)
            folder = self.root / secrets.token_hex(8)
            folder.mkdir(mode=0o700)
            created = Session(session_id, folder, secrets.token_urlsafe(32), time.monotonic(), disk=self.disk)
            self._sessions[session_id] = created
        for session in dropped:
            _drop(session)
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


def remove_leftovers(folder: Path) -> list[Path]:
    """Delete the server folders (``privcert-serve-PID-...``) in ``folder`` that are this user's and whose
    process is gone: a server killed before it could delete its sessions (their uploads, keys and outputs).
    Returns the folders deleted."""
    removed = []
    for path in folder.iterdir() if folder.is_dir() else ():
        match = _ROOT.fullmatch(path.name)
        if match is None or not path.is_dir() or path.is_symlink() or path.lstat().st_uid != os.getuid():
            continue
        try:
            os.kill(int(match.group(1)), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        except (PermissionError, OverflowError):
            continue
    return removed
