"""Known secrets, kept out of every text that leaves the process or is kept.

The model client registers the API key it was configured with (and any password in the
base URL); anything that builds a prompt, writes a log or stores model text calls
`redact` on it, so a key that leaked into an error message or a program's output (the
sandbox's execution feedback) never reaches the endpoint, calls.db or a run directory.
Values shorter than `MIN_SECRET_LENGTH` are not registered: a short word would be
replaced everywhere it appears, and a real key is never that short.
"""

from __future__ import annotations

import threading

MIN_SECRET_LENGTH = 8
REDACTED = "[REDACTED]"

_secrets: set[str] = set()
_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Remember `value` as a secret for the rest of this process."""
    if isinstance(value, str) and len(value.strip()) >= MIN_SECRET_LENGTH:
        with _lock:
            _secrets.add(value.strip())


def redact(text: str) -> str:
    """`text` with every registered secret replaced by [REDACTED]."""
    if not _secrets or not isinstance(text, str):
        return text
    with _lock:
        secrets = sorted(_secrets, key=len, reverse=True)   # a longer secret may contain a shorter
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


__all__ = ["register_secret", "redact", "REDACTED", "MIN_SECRET_LENGTH"]
