"""This solver's prompt templates: text files in prompts/, `$name` placeholders.

Same convention as arcmemo.prompts (string.Template; a missing value is an error), kept
inside the plugin so a third-party copy of the solver carries its own prompts.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from string import Template


def _dir():
    return resources.files("arcmemo_program_synthesis").joinpath("prompts")


@lru_cache(maxsize=None)
def load(name: str) -> Template:
    path = _dir().joinpath(f"{name}.txt")
    if not path.is_file():
        raise FileNotFoundError(f"no prompt template {name!r} "
                                f"(arcmemo_program_synthesis/prompts/{name}.txt)")
    return Template(path.read_text())


def render(name: str, **values: object) -> str:
    try:
        return load(name).substitute({k: str(v) for k, v in values.items()}).strip()
    except KeyError as exc:
        raise KeyError(f"prompt {name!r} needs a value for ${exc.args[0]}") from None


def template_hashes() -> dict[str, str]:
    """sha256 prefix per template, for a run's record of which prompts it used."""
    return {
        entry.name[:-4]: hashlib.sha256(entry.read_bytes()).hexdigest()[:16]
        for entry in sorted(_dir().iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".txt")
    }
