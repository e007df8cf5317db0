"""Prompt templates: one text file per step, `$name` placeholders (string.Template).

Templates are files so they can be read, diffed and hashed; a run records the hash of
each template it used (`template_hashes`) so results stay comparable.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from string import Template


def _files():
    return resources.files("arcmemo.prompts")


@lru_cache(maxsize=None)
def load_template(name: str) -> Template:
    path = _files().joinpath(f"{name}.txt")
    if not path.is_file():
        raise FileNotFoundError(f"no prompt template named {name!r} (arcmemo/prompts/{name}.txt)")
    return Template(path.read_text())


def render_prompt(name: str, **values: object) -> str:
    """Fill a template; a missing value is an error (KeyError naming the placeholder)."""
    try:
        return load_template(name).substitute({k: str(v) for k, v in values.items()})
    except KeyError as exc:
        raise KeyError(f"prompt {name!r} needs a value for ${exc.args[0]}") from None


def template_hashes() -> dict[str, str]:
    return {
        entry.name[:-4]: hashlib.sha256(entry.read_bytes()).hexdigest()[:16]
        for entry in sorted(_files().iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".txt")
    }
