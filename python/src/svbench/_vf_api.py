"""Which verifiers API is installed: the classic one (< 0.4) or v1 tasksets
(>= 0.4, which removed the classic stack). Chosen by version, never by
trying one and falling back to the other."""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError, version


def verifiers_version() -> tuple[int, int] | None:
    """(major, minor) of the installed verifiers; None if not installed."""
    try:
        text = version("verifiers")
    except PackageNotFoundError:
        return None
    m = re.match(r"(\d+)\.(\d+)", text)
    if m is None:
        raise ImportError(f"cannot read the installed verifiers version {text!r}")
    return int(m.group(1)), int(m.group(2))


def v1_installed() -> bool:
    """True when the installed verifiers serves v1 tasksets (>= 0.4)."""
    v = verifiers_version()
    return v is not None and v >= (0, 4)
