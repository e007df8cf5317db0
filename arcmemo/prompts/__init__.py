"""Prompt templates: one text file per step, `$name` placeholders (string.Template).

Templates are files so they can be read, diffed and hashed; a run records the hash of
each template it used so results stay comparable. `Templates(package, folder)` serves
any package's folder of templates, so solver plugins carry their own prompts with the
same rules (a missing value is an error naming the placeholder).
"""

from __future__ import annotations

import hashlib
from importlib import resources
from string import Template


class Templates:
    """The `*.txt` templates in `folder` of `package` (folder None: the package itself)."""

    def __init__(self, package: str, folder: str | None = None):
        self.package, self.folder = package, folder
        self._loaded: dict[str, Template] = {}

    def _dir(self):
        root = resources.files(self.package)
        return root.joinpath(self.folder) if self.folder else root

    def load(self, name: str) -> Template:
        if name not in self._loaded:
            path = self._dir().joinpath(f"{name}.txt")
            if not path.is_file():
                where = "/".join(filter(None, [self.package.replace(".", "/"), self.folder]))
                raise FileNotFoundError(f"no prompt template named {name!r} ({where}/{name}.txt)")
            self._loaded[name] = Template(path.read_text())
        return self._loaded[name]

    def render(self, name: str, **values: object) -> str:
        try:
            return self.load(name).substitute({k: str(v) for k, v in values.items()})
        except KeyError as exc:
            raise KeyError(f"prompt {name!r} needs a value for ${exc.args[0]}") from None

    def hashes(self) -> dict[str, str]:
        """sha256 prefix per template, for a run's record of which prompts it used."""
        return {
            entry.name[:-4]: hashlib.sha256(entry.read_bytes()).hexdigest()[:16]
            for entry in sorted(self._dir().iterdir(), key=lambda e: e.name)
            if entry.name.endswith(".txt")
        }


ARCMEMO_TEMPLATES = Templates("arcmemo.prompts")


def render_prompt(name: str, **values: object) -> str:
    """Fill one of arcmemo's own templates (arcmemo/prompts/<name>.txt)."""
    return ARCMEMO_TEMPLATES.render(name, **values)


REASONING_CHARS = 8000  # the most of a solver's reasoning a memory-writing prompt shows


def keep_tail(text: str, limit: int = REASONING_CHARS) -> str:
    """`text`, or its last `limit` characters after a "[...]" line: long model reasoning
    ends with its conclusion, and must not crowd a prompt out of a small model's context."""
    return text if len(text) <= limit else "[...]\n" + text[-limit:]


def load_template(name: str) -> Template:
    return ARCMEMO_TEMPLATES.load(name)


def template_hashes() -> dict[str, str]:
    return ARCMEMO_TEMPLATES.hashes()
