"""The files a policy names, in the workbench: only files uploaded into the session, each named by its upload.

On the command line a policy names files relative to its folder (a hierarchy, a population
table, a mechanism: the keys of :data:`verifier.policy.PATH_KEYS`). In the workbench the
policy comes from the browser (typed in the form, or imported), so no name it holds may
reach a file of the server: every path-valued key must name a file the user uploaded under
"Files the policy names" on the Audit page, by its name as uploaded (made plain,
:func:`privcert.app.sessions.plain_name`). Anything else, an absolute path, a folder,
``..``, a name not uploaded, is refused with the key and what to do, and no file is opened.

One mechanism: :func:`confined` is the locator the policy reader calls for every
path-valued key (:meth:`verifier._policy_reader.Reader.file`); :func:`read_policy` reads a
policy written into the session with the uploads copied beside it, so that the job that
audits it later, reading it as ``privcert audit --policy`` does, finds the same files.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool

from privcert.app.fields import shown
from privcert.app.sessions import Session
from privcert.app.web import BadRequest, messages_names

if TYPE_CHECKING:
    from verifier.policy import Locate

__all__ = ["SUFFIXES", "confined", "read_policy", "uploaded", "checked_policy"]

SUFFIXES = (".csv", ".csv.gz", ".parquet", ".pq")
"""The files a policy may name: hierarchies and mechanisms (CSV), population tables (CSV or Parquet)."""


def uploaded(session: Session) -> dict[str, Path]:
    """The session's files a policy may name: each uploaded (or bundled example's) file by its plain name."""
    files: dict[str, str] = session.state.setdefault("policy_files", {})
    return {name: Path(path) for name, path in files.items()}


def confined(files: Mapping[str, Path]) -> Locate:
    """A locator (:data:`verifier.policy.Locate`) that finds only ``files``, by name: any other name is refused,
    without touching the file system."""
    from verifier.errors import PolicyError

    def locate(key: str, name: str) -> Path:
        found = files.get(name)
        if found is None:
            known = f" (uploaded: {', '.join(sorted(files))})" if files else ""
            raise PolicyError(f"expected the name of a file uploaded under “Files the policy names” on the Audit "
                              f"page{known}, found {name!r}: upload the file there and name it by its file name")
        return found

    return locate


def read_policy(session: Session, policy: Path) -> Any:
    """The policy file ``policy`` (in a folder of its own in the session), read with only the session's uploaded
    files, which are copied beside it under their names.

    Raises
    ------
    verifier.errors.VerifierError
        The policy breaks the schema, or names a file that is not one of the session's uploads.
    """
    from verifier.policy import load_policy

    beside = {}
    names = session.state.setdefault("names", {})
    for name, path in uploaded(session).items():
        copy = policy.parent / name
        shutil.copyfile(path, copy)
        beside[name] = copy
        names[str(copy)] = name
    return load_policy(policy, files=confined(beside))


async def checked_policy(session: Session, policy: Path) -> Any:
    """:func:`read_policy` off the event loop, its refusal a message of the page (the session's names shown as
    their users know them).

    Raises
    ------
    privcert.app.web.BadRequest
        The policy breaks the schema, or names a file that is not one of the session's uploads.
    """
    from verifier.errors import VerifierError

    try:
        return await run_in_threadpool(read_policy, session, policy)
    except VerifierError as error:
        raise BadRequest(shown(error, messages_names(session))) from error
