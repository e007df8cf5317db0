"""Known secrets never leave the sandbox in text: whatever a run prints or raises is
scrubbed of them before it becomes execution feedback (a prompt, a log, calls.db).

A run has no way to read a secret when the kernel layers hold; this is the last line for
when they do not (see `Sandbox.isolation`). Known secrets are the ones the caller names
(`Sandbox(secrets=...)`, `Sandbox.add_secrets`) and the values of this process's
environment variables whose names say they hold one (OPENAI_API_KEY, *_TOKEN, ...).
"""

from __future__ import annotations

import os
import re

MARK = "[redacted]"
MIN_LENGTH = 8  # shorter values would redact ordinary words and numbers
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)


def environment_secrets() -> set[str]:
    return {value for name, value in os.environ.items() if _SECRET_NAME.search(name) and len(value) >= MIN_LENGTH}


def redact(text: str, secrets: set[str]) -> str:
    if not text:
        return text
    for secret in sorted(secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MARK)
    return text
