"""How a run's config.json says which protocol it ran (the reader side of the shared contract).

A run's config.json carries `"protocol": {"name": str, ...each choice..., "test_informed": bool}`.
A run recorded without that key (every run before protocols) ran arcmemo's own protocol and
is not test-informed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PROTOCOL_KEY = "protocol"


def test_informed(config: Mapping[str, Any]) -> bool:
    """Whether a test output decided anything in the run (which attempts were retried, which
    solutions were written): such a run's score is marked wherever it is shown."""
    protocol = config.get(PROTOCOL_KEY)
    return isinstance(protocol, Mapping) and protocol.get("test_informed") is True


test_informed.__test__ = False      # a function named test_*, not a test for pytest to collect

__all__ = ["PROTOCOL_KEY", "test_informed"]
