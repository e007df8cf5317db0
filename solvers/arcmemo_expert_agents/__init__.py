"""expert-agents: an arcmemo solver plugin after "LLM as a System of Multiple Expert Agents".

Agents are combinations of text views of the grids (grid, object variants, pixel,
difference); each answers in JSON with a `transform(grid)` program that may use the
helper library `arc_helpers` (primitives.py), and gets execution feedback for up to
three rounds.
"""

from arcmemo_expert_agents.solver import ExpertAgentsSolver

__all__ = ["ExpertAgentsSolver"]
