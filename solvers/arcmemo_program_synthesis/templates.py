"""This solver's prompt templates: arcmemo_program_synthesis/prompts/<name>.txt, `$name` placeholders.

Kept inside the plugin so the package carries its own prompts; the rules are arcmemo's
(arcmemo.prompts.Templates): each file declares the variables it takes, and a user's
`--prompts DIR` replaces any of them with DIR/program-synthesis/<name>.txt.
"""

from arcmemo.solverkit import Templates

TEMPLATES = Templates("arcmemo_program_synthesis", "prompts", name="program-synthesis")


def render(name: str, **values: object) -> str:
    return TEMPLATES.render(name, **values).strip()


def template_hashes() -> dict[str, dict[str, str]]:
    """Each template's hash and source (shipped or the user's file), for the run's config.json."""
    return TEMPLATES.record()
