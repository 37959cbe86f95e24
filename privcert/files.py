"""Every file a command writes, written one safe way: nothing clobbered, nothing half-written.

* :func:`check_outputs` is called before any work: an output may not be one of the run's
  inputs (``--json release.csv``, ``--html policy.toml``, ``report --html`` over the
  certificate), two outputs may not share a path (``--certificate x --json x``), and an
  output's suffix must be its format's (a PDF is ``.pdf``). Paths are compared after
  resolving links and ``..``, so another spelling of the same file is caught.
* :func:`write_output` replaces a regular file atomically: the text goes to a new
  temporary file in the same folder, created exclusively with a unique name (``O_EXCL``,
  so a planted link is never followed), then renamed over the target; a character device,
  a FIFO or a socket (``/dev/null``, ``/dev/stdout``, a named pipe) is written in place and
  stays what it is; ``-`` is standard output.
* :func:`write_new` creates a file that must not exist (a key), never following a link.

Every output gets the mode the umask gives a new file (``0666 & ~umask``: a certificate put on a web
server is readable), but a private key, which is ``0600``.

Every error is a :class:`~verifier.errors.PolicyError` naming the option and the path
(exit code 2).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier.errors import PolicyError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SUFFIXES", "SCHEMA_VERSION", "check_outputs", "write_output", "write_new", "write_table", "existing",
           "write_json"]

SCHEMA_VERSION = "1"
"""Version of the JSON contract of ``measure``, ``audit`` and ``utility`` (privcert/data/schema/results.schema.json)."""

SUFFIXES: Mapping[str, tuple[str, ...]] = {
    "json": (".json",),
    "html": (".html", ".htm"),
    "pdf": (".pdf",),
    "csv": (".csv",),
    "table": (".csv", ".csv.gz", ".parquet", ".pq"),
    "toml": (".toml",),
    "svg": (".svg", ".png", ".pdf"),
    "key": (),
}
"""The suffixes an output of each format may have (a key file may have any)."""


def _same(one: Path, other: Path) -> bool:
    try:
        return one.resolve() == other.resolve() or (one.exists() and other.exists() and os.path.samefile(one, other))
    except OSError:
        return False


def _special(path: Path) -> bool:
    """A path that exists and is not a regular file or a folder (a device, a FIFO, a socket)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def check_outputs(outputs: Mapping[str, tuple[str | Path | None, str]],
                  inputs: Mapping[str, str | Path | None]) -> None:
    """Refuse outputs that would clobber an input or each other, or whose suffix is not their format's.

    Parameters
    ----------
    outputs
        ``{option: (path or None, format)}``: ``--json`` → (``out.json``, ``"json"``).
        ``-`` (standard output) and ``None`` (not asked for) are skipped.
    inputs
        ``{what: path}`` of the files the run reads (the release, the policy, ...).

    Raises
    ------
    PolicyError
        An output is an input, two outputs are one file, or a suffix does not match.
    """
    seen: list[tuple[str, Path]] = []
    for option, (target, kind) in outputs.items():
        if target is None or str(target) == "-":
            continue
        path = Path(target)
        if str(target) == "":
            raise PolicyError(f"{option}: expected a file name, found an empty one")
        for what, source in inputs.items():
            if source is not None and _same(path, Path(source)):
                raise PolicyError(f"{option} {path}: it is the {what}, which this command reads; refusing to "
                                  "overwrite an input")
        for other, earlier in seen:
            if _same(path, earlier):
                raise PolicyError(f"{option} {path}: {other} writes the same file; give each output its own file")
        suffixes = SUFFIXES[kind]
        if suffixes and not _special(path) and not path.name.lower().endswith(suffixes):
            raise PolicyError(f"{option} {path}: expected a file ending in {' or '.join(suffixes)} (the format it "
                              f"is written in), found {path.suffix or 'no suffix'!r}")
        seen.append((option, path))


def write_output(target: str | Path, data: str | bytes, *, option: str) -> None:
    """Write ``data`` to ``target`` (see the module docstring); ``-`` writes to standard output.

    Raises
    ------
    PolicyError
        The folder does not exist or cannot be written, or the disk is full.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if str(target) == "-":
        sys.stdout.buffer.write(raw) if hasattr(sys.stdout, "buffer") else sys.stdout.write(raw.decode("utf-8"))
        sys.stdout.flush()
        return
    path = Path(target)
    try:
        if _special(path):
            with path.open("wb") as stream:
                stream.write(raw)
            return
        descriptor, temporary = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".",
                                                 prefix=f".{path.name}.", suffix=".tmp")
        try:
            os.fchmod(descriptor, 0o666 & ~_umask())  # mkstemp creates 0600; an output is as readable as any file
            with os.fdopen(descriptor, "wb") as stream:
                stream.write(raw)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise PolicyError(f"{option} {path}: cannot write the file: {error.strerror or error}") from error


def _umask() -> int:
    """The process's umask (read by setting it and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_new(target: Path, data: bytes, *, option: str, mode: int = 0o644) -> None:
    """Create ``target``, which must not exist (not even as a dangling link), with ``mode``.

    Raises
    ------
    PolicyError
        The file exists, or it cannot be created.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(target, flags, mode)
    except FileExistsError as error:
        raise PolicyError(f"{option} {target}: the file exists; refusing to overwrite it") from error
    except OSError as error:
        raise PolicyError(f"{option} {target}: cannot create the file: {error.strerror or error}") from error
    with os.fdopen(descriptor, "wb") as stream:
        stream.write(data)


def existing(paths: Sequence[Path]) -> list[Path]:
    """The paths that exist (a link counts, even dangling)."""
    return [path for path in paths if path.exists() or path.is_symlink()]


def write_table(frame: pd.DataFrame, target: Path, *, option: str) -> None:
    """Write a table as its name says: CSV (``.csv``, gzip-compressed for ``.csv.gz``) or Parquet (``.parquet``, ``.pq``).

    Raises
    ------
    PolicyError
        Another suffix (checked before, by :func:`check_outputs`), or the file cannot be written.
    """
    import gzip
    import io

    name = target.name.lower()
    if name.endswith((".parquet", ".pq")):
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False)
        data = buffer.getvalue()
    elif name.endswith((".csv", ".csv.gz")) or _special(target):
        text = frame.to_csv(index=False, lineterminator="\n").encode("utf-8")
        data = gzip.compress(text, mtime=0) if name.endswith(".gz") else text
    else:
        raise PolicyError(f"{option} {target}: expected a name ending in .csv, .csv.gz, .parquet or .pq")
    write_output(target, data, option=option)


def write_json(document: dict[str, Any], target: str | None) -> bool:
    """Write JSON to ``target`` (``-`` = stdout; :func:`privcert.files.write_output`); return whether stdout was used."""
    import json

    if target is None:
        return False
    write_output(target, json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n", option="--json")
    return target == "-"
