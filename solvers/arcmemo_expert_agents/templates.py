"""This solver's prompt templates: arcmemo_expert_agents/prompts/<name>.txt, `$name` placeholders.

Kept inside the plugin so the package carries its own prompts; the rules are arcmemo's
(arcmemo.prompts.Templates): each file declares the variables it takes, and a user's
`--prompts DIR` replaces any of them with DIR/expert-agents/<name>.txt.
"""

from arcmemo.solverkit import Templates

TEMPLATES = Templates("arcmemo_expert_agents", "prompts", name="expert-agents")


def render(name: str, **values: object) -> str:
    return TEMPLATES.render(name, **values).strip()


def template_hashes() -> dict[str, dict[str, str]]:
    """Each template's hash and source (shipped or the user's file), for the run's config.json."""
    return TEMPLATES.record()
