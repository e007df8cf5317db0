"""ACE, Agentic Context Engineering (Zhang et al.): the playbook, its reflector, curator and refine step."""
