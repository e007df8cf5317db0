"""Memory methods as plugins (DESIGN.md section 12): what a solver is shown for a task (read) and
what memory learns from a finished block (write), by any method installed under the entry
point group `arcmemo.methods` (contract.py says what a method is given and returns).

Everything here loads on first use, so the command line can name the methods (`MODES`,
from entry points alone) without importing any of them.
"""

from __future__ import annotations

_LAZY = {
    "MODES": "discovery", "MethodError": "discovery", "available_methods": "discovery", "describe_methods": "discovery",
    "load_method": "discovery", "method_names": "discovery", "ENTRY_POINT_GROUP": "discovery",
    "select": "reading",
    "AttemptView": "contract", "Experience": "contract", "WriteEvent": "contract", "WriteContext": "contract",
    "MemoryMethod": "contract", "MethodBase": "contract", "VERDICTS": "contract", "each_experience": "contract",
    "guarded": "contract", "check_options": "contract", "MethodOptionError": "contract",
    "experience_of": "experience", "feedback_of": "experience",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"arcmemo.methods.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_LAZY)
