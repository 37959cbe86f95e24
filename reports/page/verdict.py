"""The sentence beside a page's verdict."""

from __future__ import annotations

from typing import Any

__all__ = ["verdict_sentence"]


def verdict_sentence(verdict: Any, total: int, failed: int, stated: int, declared: int, publisher: bool) -> str:
    """The sentence beside the verdict: what holds, how many requirements are the publisher's statement, how many
    declared inputs it rests on, and in publisher mode that the levels were measured on the original data."""
    given = f"; it holds given {declared} declared input{'' if declared == 1 else 's'} (listed directly below)" \
        if declared else ""
    if publisher:
        source = ("; the levels were measured on the original data (publisher mode), which the certificate does not "
                  "carry: only a reader holding it can measure them again")
    elif declared:
        source = "; with them, each level below is re-measured from the release and compared exactly with its threshold"
    else:
        source = "; each level below was measured from the release and compared exactly with its threshold"
    if verdict == "pass":
        statements = (f", of which {stated} of {total} requirements are the publisher's statement (not re-measured)"
                      if stated else "")
        return f"The release meets its policy: every requirement of the policy holds{statements}{given}{source}."
    return (f"The release does not meet its policy: {failed} of {total} requirements fail (see why below); the others "
            f"hold{given}{source}.")
