"""Every test run checks claims into its own cache directory, never the user's."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("PRIVCERT_CACHE_DIR", tempfile.mkdtemp(prefix="privcert-test-cache-"))
