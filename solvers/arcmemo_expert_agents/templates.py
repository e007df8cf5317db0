"""This solver's prompt templates: prompts/<name>.txt with string.Template `$name` slots.

Kept inside the plugin (like program-synthesis does) so the package carries its prompts.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from string import Template


def _dir():
    return resources.files("arcmemo_expert_agents").joinpath("prompts")


@lru_cache(maxsize=None)
def load(name: str) -> Template:
    path = _dir().joinpath(f"{name}.txt")
    if not path.is_file():
        raise FileNotFoundError(f"no prompt template {name!r} (arcmemo_expert_agents/prompts/{name}.txt)")
    return Template(path.read_text())


def render(name: str, **values: object) -> str:
    try:
        return load(name).substitute({k: str(v) for k, v in values.items()}).strip()
    except KeyError as exc:
        raise KeyError(f"prompt {name!r} needs a value for ${exc.args[0]}") from None


def template_hashes() -> dict[str, str]:
    """sha256 prefix per template, for a run's record of which prompts it used."""
    return {entry.name[:-4]: hashlib.sha256(entry.read_bytes()).hexdigest()[:16]
            for entry in sorted(_dir().iterdir(), key=lambda e: e.name)
            if entry.name.endswith(".txt")}
