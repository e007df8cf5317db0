"""A task's work as stages: the method's read, memory's probe, the solve threads, the candidates,
the choice of submitted answers, scoring (pipeline order in pipeline.py)."""
