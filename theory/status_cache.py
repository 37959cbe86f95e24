"""Claim statuses earned by checking, kept on disk between runs.

Checking every claim (:func:`theory.checks.check_all`) takes seconds; its outcome only
changes when the code that states or checks a claim changes. The outcome is therefore
stored as JSON in the user's cache directory, keyed on a SHA-256 of the source files a
claim's check can run (:func:`dependencies`): every module of ``theory`` but the answers
(which read statuses and never decide one), the model declarations of
``verifier.models``, and every module of ``theory`` and ``verifier`` these import, at
module level or inside a function, followed transitively (a string naming a module, as
the catalog's claim modules and ``verifier``'s lazy exports are named, counts as an
import). Editing a verifier module no check reaches (an engine, a utility model, the
audit) keeps the cache. Beside the key the file records a SHA-256 of every module of
``theory`` and ``verifier``: while that is unchanged the recorded key is current, and the
modules are not parsed again to find the dependencies. A cache whose key differs, or that cannot be read or parsed, is
ignored and rewritten; ``recheck=True`` always checks afresh. A status read from the
cache was earned by the same code checking the same claims. One process checks at a time (a lock
file beside the cache): a process that finds no current cache while another checks waits for
that check and reads its outcome, so processes started together check the claims once.

A claim whose check did not decide (status ``unchecked``, :func:`theory.checks.unchecked`) is
left out of every answer; :func:`cached_statuses` says so with an :class:`UncheckedClaimsWarning`
naming each such claim and its error, which the command line prints as ``warning: ...``.

The cache directory is ``$PRIVCERT_CACHE_DIR`` when set, else
``$XDG_CACHE_HOME/privcert``, else ``~/.cache/privcert``.

References
----------
Ekenstedt et al. 2022, Def. 2 (the implications whose claims are checked).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier.errors import PrivcertWarning

if TYPE_CHECKING:
    from theory.claims.claim import CheckResult, Claim

__all__ = ["CACHE_ENV", "cache_dir", "cache_file", "dependencies", "source_hash", "statement", "claim_row", "claim_rows", "counterexample_json", "cached_statuses",
           "UncheckedClaimsWarning", "left_out"]

CACHE_ENV = "PRIVCERT_CACHE_DIR"
"""Environment variable naming the cache directory (tests point it at a temporary one)."""
_PACKAGES = ("theory", "verifier")
_ROOTS = ("theory", "verifier.models")
"""Where the checks start: the theory's modules and the declarations the registry imports by name."""
_NOT_CHECKED = ("theory.answers",)
"""Modules that read statuses and never decide one (the top floor of ``theory``)."""
_FORMAT = 2


class UncheckedClaimsWarning(PrivcertWarning):
    """Claims whose check raised or could not decide: they are left out of every answer (named with the error)."""


def left_out(outcomes: Mapping[str, CheckResult]) -> tuple[str, ...]:
    """``claim id (error)`` for each claim whose status is ``unchecked``, in the order of ``outcomes``."""
    return tuple(f"{claim_id} ({outcome.detail})" for claim_id, outcome in outcomes.items()
                 if outcome.status == "unchecked")


def cache_dir() -> Path:
    """``$PRIVCERT_CACHE_DIR``, else ``$XDG_CACHE_HOME/privcert``, else ``~/.cache/privcert``."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "privcert"


def cache_file() -> Path:
    """The file holding the checked claims."""
    return cache_dir() / "theory_claims.json"


def _root() -> Path:
    return next(folder for folder in Path(__file__).resolve().parents if folder.name == "theory").parent


def _modules(root: Path) -> dict[str, Path]:
    """Every module of ``theory`` and ``verifier`` under ``root``, by dotted name."""
    found = {}
    for package in _PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _lazy_exports(path: Path) -> dict[str, str]:
    """A package's ``_EXPORTS`` (name -> the module defining it, imported on first use), read from its source."""
    for node in ast.parse(path.read_bytes()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in node.targets):
            value = ast.literal_eval(node.value)
            return value if isinstance(value, dict) else {}
    return {}


def _named(module: str, path: Path, known: Mapping[str, Path]) -> set[str]:
    """The known modules ``path`` imports (anywhere in it) or, outside a package's ``__init__``, names in a
    string, and their packages; a name imported from a package with lazy exports brings the module defining it."""
    names: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            names |= {base, *(f"{base}.{alias.name}" for alias in node.names)}
            if base in known and known[base].name == "__init__.py":
                exports = _lazy_exports(known[base])
                names |= {exports[alias.name] for alias in node.names if alias.name in exports}
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in known
              and path.name != "__init__.py"):
            names.add(node.value)
    found = set()
    for name in names:
        parts = name.split(".")
        found |= {".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in known}
    return found


def dependencies(root: Path | None = None) -> tuple[str, ...]:
    """The modules a claim's check can run (see the module docstring), as paths relative to ``root``, sorted."""
    root = root or _root()
    known = _modules(root)
    start = [name for name in known if any(name == r or name.startswith(r + ".") for r in _ROOTS)
             and not any(name == n or name.startswith(n + ".") for n in _NOT_CHECKED)]
    seen, stack = set(start), list(start)
    while stack:
        for found in _named(stack[-1], known[stack.pop()], known) - seen:
            seen.add(found)
            stack.append(found)
    return tuple(sorted(known[name].relative_to(root).as_posix() for name in seen))


def _sources(root: Path | None = None) -> Iterator[tuple[str, Path]]:
    root = root or _root()
    for name in dependencies(root):
        yield name, root / name


def source_hash() -> str:
    """SHA-256 over the relative paths and bytes of the modules a claim's check can run (:func:`dependencies`)."""
    return _keys()[1]


@cache
def _keys() -> tuple[str, str]:
    """(:func:`_tree`, :func:`source_hash`) of this code. Finding the modules a check can run parses every module
    (most of the CPU of reading the cache); the cache file records the tree's digest beside the key it was written
    under, and the same tree has the same modules, imports and bytes: while the tree is unchanged, the recorded key
    is the key."""
    root = _root()
    tree = _tree(root)
    stored = _stored()
    if stored is not None and stored.get("tree") == tree and isinstance(stored.get("key"), str):
        return tree, stored["key"]
    return tree, _hash(root)


def _tree(root: Path) -> str:
    """SHA-256 over the relative paths and bytes of every module of ``theory`` and ``verifier`` (all that
    :func:`dependencies` reads), with the cache's format."""
    digest = hashlib.sha256(f"format {_FORMAT}\n".encode())
    for path in sorted(_modules(root).values()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _hash(root: Path) -> str:
    digest = hashlib.sha256(f"format {_FORMAT}\n".encode())
    for name, path in _sources(root):
        digest.update(name.encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def counterexample_json(value: object) -> Any:
    """A counterexample as JSON: a table's ``to_json()``, a dict as is, anything else as text."""
    if value is None or isinstance(value, dict):
        return value
    to_json = getattr(value, "to_json", None)
    return to_json() if to_json is not None else str(value)


def statement(value: Any) -> str:
    """A claim's statement for a reader: ``t = (k + (N - k)·e^ε)/N``, ``A ⇏ B (if k_1 ≤ N - 2)``.

    Examples
    --------
    >>> import sympy
    >>> t, eps = sympy.symbols("t epsilon", positive=True)
    >>> statement(sympy.Eq(eps, sympy.log(t**2)))
    'ε = ln(t^2)'
    """
    import sympy

    from verifier.display import formula

    relations = {sympy.Eq: "=", sympy.Le: "≤", sympy.Lt: "<", sympy.Ge: "≥", sympy.Gt: ">"}
    for kind, symbol in relations.items():
        if isinstance(value, kind):
            return f"{formula(value.lhs)} {symbol} {formula(value.rhs)}"
    if isinstance(value, sympy.And):
        return " and ".join(statement(part) for part in value.args)
    if isinstance(value, sympy.core.function.AppliedUndef) and value.func.__name__ == "NotImplies":
        premise, conclusion, *conditions = value.args
        text = f"{premise} ⇏ {conclusion}"
        return text + (f" (if {' and '.join(statement(c) for c in conditions)})" if conditions else "")
    return formula(value)


def claim_row(item: Claim, outcome: CheckResult) -> dict[str, Any]:
    """One claim and its checked outcome as JSON (the contract of ``privcert theory claims --json``).

    ``printed`` and ``corrected`` are sympy's text (stable, machine-readable);
    ``statement`` and ``statement_corrected`` the same for a reader (``ln``, ``ε``, ``∞``).
    """
    import sympy

    return {
        "id": item.id,
        "source": {"paper": item.source.paper, "section": item.source.section, "item": item.source.item,
                   "reference": item.source.reference},
        "kind": item.kind,
        "premise": item.premise,
        "conclusion": item.conclusion,
        "printed": sympy.sstr(item.printed),
        "statement": statement(item.printed),
        "status": outcome.status,
        "corrected": None if item.corrected is None else sympy.sstr(item.corrected),
        "statement_corrected": None if item.corrected is None else statement(item.corrected),
        "tight": item.tight,
        "counterexample": counterexample_json(outcome.counterexample),
        "checked_by": list(outcome.checked_by),
        "detail": outcome.detail,
    }


def _fresh_rows() -> list[dict[str, Any]]:
    from theory.checks import check_all
    from theory.claims.catalog import all_claims

    outcomes = check_all()
    return [claim_row(item, outcomes[item.id]) for item in all_claims()]


def _stored() -> dict[str, Any] | None:
    """The cache file's JSON object, or ``None`` (no file, unreadable, not JSON, not an object)."""
    try:
        stored = json.loads(cache_file().read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return stored if isinstance(stored, dict) else None


def _read(key: str) -> list[dict[str, Any]] | None:
    stored = _stored()
    if stored is None or stored.get("key") != key or not isinstance(stored.get("rows"), list):
        return None
    rows = stored["rows"]
    if not all(isinstance(row, dict) and {"id", "status", "checked_by", "detail"} <= set(row) for row in rows):
        return None
    return rows


def _write(key: str, rows: list[dict[str, Any]]) -> None:
    """Write atomically (temporary file, then rename); a cache that cannot be written is skipped. The tree's digest
    is recorded only beside this code's own key (:func:`_keys`)."""
    tree, current = _keys()
    recorded = tree if key == current else None
    target = cache_file()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent, delete=False,
                                         prefix=".theory_claims.", suffix=".tmp") as stream:
            json.dump({"key": key, "tree": recorded, "rows": rows}, stream, ensure_ascii=False)
        os.replace(stream.name, target)
    except OSError:
        return


def claim_rows(*, recheck: bool = False) -> tuple[list[dict[str, Any]], bool]:
    """Every claim with its checked status (:func:`claim_row`), and whether it came from the cache.

    Parameters
    ----------
    recheck
        Check every claim now even when the cache is current (the cache is rewritten).
    """
    key = source_hash()
    rows = None if recheck else _read(key)
    if rows is None:
        with _checking():
            rows = None if recheck else _read(key)  # checked meanwhile by the process that held the lock
            if rows is None:
                rows = _fresh_rows()
                _write(key, rows)
                return rows, False
    if (_stored() or {}).get("tree") != _keys()[0]:
        _write(key, rows)  # a cache written before the tree was recorded, or by another tree with the same key
    return rows, True


@contextmanager
def _checking() -> Iterator[None]:
    """Held while the claims are checked: a process that finds no current cache meanwhile waits for the check
    under way (an exclusive ``flock`` on ``theory_claims.lock`` beside the cache file), then reads what it wrote,
    so that processes started at once (the workbench's map and its first audit, two commands) check once. Where
    the lock file cannot be made, the cache cannot be written either, and each process checks alone."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): each process checks alone, as before the lock
        yield
        return
    lock = cache_file().with_name("theory_claims.lock")
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        handle = lock.open("a")
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file is closed, or when the process ends
        yield


def cached_statuses(*, recheck: bool = False) -> Mapping[str, CheckResult]:
    """``{claim id: CheckResult}`` from :func:`claim_rows` (a counterexample in its JSON form).

    Warns (:class:`UncheckedClaimsWarning`) naming the claims left out because their check did not decide.
    """
    import warnings

    from theory.claims.claim import CheckResult

    rows, _ = claim_rows(recheck=recheck)
    outcomes = {row["id"]: CheckResult(row["status"], row["counterexample"], tuple(row["checked_by"]), row["detail"])
                for row in rows}
    missing = left_out(outcomes)
    if missing:
        warnings.warn(UncheckedClaimsWarning(f"claims left out, nothing is implied by them: {'; '.join(missing)}"),
                      stacklevel=2)
    return outcomes
