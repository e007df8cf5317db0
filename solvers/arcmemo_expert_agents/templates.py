"""This solver's prompt templates: arcmemo_expert_agents/prompts/<name>.txt, `$name` placeholders.

Kept inside the plugin so the package carries its own prompts; loading rules are
arcmemo's (arcmemo.prompts.Templates).
"""

from arcmemo.solverkit import Templates

TEMPLATES = Templates("arcmemo_expert_agents", "prompts")


def render(name: str, **values: object) -> str:
    return TEMPLATES.render(name, **values).strip()


def template_hashes() -> dict[str, str]:
    return TEMPLATES.hashes()
