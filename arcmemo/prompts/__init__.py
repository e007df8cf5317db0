"""Prompt templates: one text file per step, `$name` placeholders (string.Template).

Templates are files so they can be read, diffed, hashed and replaced. Each declares the
variables it takes in a header (templatefile.py); rendering with a variable it does not
take, or without a required one, fails. A run records each template's hash and source
(`Templates.record`), so results stay comparable.

`Templates(package, folder, name=...)` serves any package's folder of templates, so solver
plugins carry their own prompts under the same rules. Each set has a name: arcmemo's own
is "" (its templates are called plainly, `select_ps`), a solver's is the solver's name
(`program-synthesis/solve`). The name is also the set's folder in a user's directory of
templates (`--prompts DIR`, setting prompts_dir): any template found there replaces the
shipped one, file by file (userdir.py reads and checks the directory; `use_templates`
puts its files in force for this process, which a run does once, arcmemo.run.prompting).

Built-in variables (BUILTINS) may be used by any template without declaring them: they
say how grids are written in the run's grid text style (arcmemo.core.gridtext).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from importlib import resources
from string import Template

from arcmemo.core import gridtext
from arcmemo.core.inforce import InForce
from arcmemo.prompts.templatefile import Declared, PromptError, TemplateFile, check_uses, parse_template

BUILTINS: dict[str, Callable[[], str]] = {
    "grid_note": gridtext.grid_note,        # how grids are written, with the colours (a few sentences)
    "grid_layout": gridtext.grid_layout,    # how a grid is written (one sentence)
}
SHIPPED = "shipped"     # a template's source when no user's file replaces it

_sets: dict[tuple[str, str | None], Templates] = {}
_users: InForce[Mapping[tuple[str, str], TemplateFile]] = InForce({})   # (set, template) -> a user's file


class Templates:
    """The `*.txt` templates in `folder` of `package` (folder None: the package itself), known as
    the set `name` (default: "" for arcmemo's own, else the package)."""

    def __init__(self, package: str, folder: str | None = None, *, name: str | None = None):
        self.package, self.folder = package, folder
        self.name = name if name is not None else ("" if package == __name__ else package)
        self._shipped: dict[str, TemplateFile] = {}
        _sets[(package, folder)] = self

    def _dir(self):
        root = resources.files(self.package)
        return root.joinpath(self.folder) if self.folder else root

    def where(self) -> str:
        """The shipped folder, as a path for messages."""
        return "/".join(filter(None, [self.package.replace(".", "/"), self.folder]))

    def names(self) -> list[str]:
        """The shipped templates' names (file names without .txt), sorted."""
        return sorted(e.name[:-4] for e in self._dir().iterdir() if e.name.endswith(".txt"))

    def qualified(self, name: str) -> str:
        """`name` as a user names it: `select_ps`, `program-synthesis/solve`."""
        return f"{self.name}/{name}" if self.name else name

    def shipped(self, name: str) -> TemplateFile:
        """The shipped template `name`, read and checked once. A template without a header (a
        plugin's from before headers) takes exactly the variables it uses, all required."""
        if name not in self._shipped:
            path = self._dir().joinpath(f"{name}.txt")
            if not path.is_file():
                raise FileNotFoundError(f"no prompt template named {name!r} ({self.where()}/{name}.txt)")
            file = parse_template(path.read_bytes(), str(path))
            if file.declared is None:
                file = TemplateFile(file.where, Declared(tuple(sorted(file.variables() - set(BUILTINS)))),
                                    file.body, file.digest)
            check_uses(file, file.declared, self.qualified(name), BUILTINS)
            self._shipped[name] = file
        return self._shipped[name]

    def declared(self, name: str) -> Declared:
        """What template `name` takes: its shipped declaration, whichever file is in force."""
        return self.shipped(name).declared

    def load(self, name: str) -> TemplateFile:
        """The file in force for `name`: a user's (use_templates), else the shipped one."""
        shipped = self.shipped(name)
        return _users.value.get((self.name, name), shipped)

    def render(self, name: str, **values: object) -> str:
        """Fill template `name`: every required variable must be given, an optional one left out
        is empty, a variable it does not take is an error (TypeError: a bug in the caller)."""
        declared = self.declared(name)
        unknown = sorted(set(values) - set(declared.names))
        if unknown:
            raise TypeError(f"prompt {self.qualified(name)!r} takes no ${unknown[0]} "
                            f"(it takes {', '.join('$' + v for v in declared.names) or 'nothing'})")
        missing = [v for v in declared.required if v not in values]
        if missing:
            raise TypeError(f"prompt {self.qualified(name)!r} needs a value for ${missing[0]}")
        file = self.load(name)
        filled = {v: str(values.get(v, "")) for v in declared.names}
        filled.update({b: BUILTINS[b]() for b in file.variables() & BUILTINS.keys()})
        return file.template.substitute(filled)

    def record(self) -> dict[str, dict[str, str]]:
        """Per template: the sha256 prefix of the text in force (the header aside, so a header edit
        changes no hash, and a run recorded before headers compares) and its source ("shipped" or
        the user's file), for a run's config.json."""
        return {name: {"hash": (file := self.load(name)).digest,
                       "source": SHIPPED if file is self.shipped(name) else file.where}
                for name in self.names()}


def template_sets() -> list[Templates]:
    """Every set of templates known to this process (arcmemo's, and each solver plugin's whose
    module is imported), arcmemo's first."""
    return sorted(_sets.values(), key=lambda t: (t.name != "", t.name))


def use_templates(files: Mapping[tuple[str, str], TemplateFile]) -> AbstractContextManager:
    """Render with `files` ((set name, template name) -> a checked user's file) in place of the
    shipped templates, in this process, until the block ends."""
    return _users.set(dict(files))


def templates_in_force() -> Mapping[tuple[str, str], TemplateFile]:
    """The user's files in force in this process (use_templates); empty when none."""
    return _users.value


ARCMEMO_TEMPLATES = Templates(__name__)


def render_prompt(name: str, **values: object) -> str:
    """Fill one of arcmemo's own templates (arcmemo/prompts/<name>.txt, or the user's in force)."""
    return ARCMEMO_TEMPLATES.render(name, **values)


REASONING_CHARS = 8000  # the most of a solver's reasoning a memory-writing prompt shows


def keep_tail(text: str, limit: int = REASONING_CHARS) -> str:
    """`text`, or its last `limit` characters after a "[...]" line: long model reasoning
    ends with its conclusion, and must not crowd a prompt out of a small model's context."""
    return text if len(text) <= limit else "[...]\n" + text[-limit:]


def load_template(name: str) -> Template:
    return ARCMEMO_TEMPLATES.load(name).template


def template_hashes() -> dict[str, dict[str, str]]:
    """arcmemo's templates' hashes and sources (Templates.record), for a run's config.json."""
    return ARCMEMO_TEMPLATES.record()


__all__ = ["Templates", "Declared", "TemplateFile", "PromptError", "BUILTINS", "SHIPPED", "template_sets",
           "use_templates", "templates_in_force", "ARCMEMO_TEMPLATES", "render_prompt", "keep_tail",
           "REASONING_CHARS", "load_template", "template_hashes"]
