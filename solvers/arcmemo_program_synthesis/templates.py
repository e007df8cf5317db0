"""This solver's prompt templates: arcmemo_program_synthesis/prompts/<name>.txt, `$name` placeholders.

Kept inside the plugin so the package carries its own prompts; loading rules are
arcmemo's (arcmemo.prompts.Templates).
"""

from arcmemo.solverkit import Templates

TEMPLATES = Templates("arcmemo_program_synthesis", "prompts")


def render(name: str, **values: object) -> str:
    return TEMPLATES.render(name, **values).strip()


def template_hashes() -> dict[str, str]:
    return TEMPLATES.hashes()
