"""The signature of a page: the signed envelope, and who signed it only when the signature verified."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reports.page.text import cell

__all__ = ["section"]


def section(envelope: Mapping[str, Any] | None, checked: str | None) -> dict[str, Any] | None:
    """The envelope's payload type, signature and signer (``None``: no envelope, an audit's or a report's page).

    ``checked`` is the key id every check of ``verify`` held with, or ``None`` (not verified).
    """
    if envelope is None:
        return None
    first = (envelope.get("signatures") or [{}])[0]
    return {"payload_type": cell(envelope.get("payloadType")), "sig": cell(first.get("sig")),
            "checked": checked is not None,
            # the envelope's key id is an unsigned hint: the signer only when the signature verified
            "keyid": cell(checked) if checked is not None else
            f"not verified (the envelope names {cell(first.get('keyid'), 80)}, an unsigned hint)"}
