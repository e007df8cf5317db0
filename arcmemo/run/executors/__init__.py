"""Where a run's tasks are solved: in this process (local.py) or on Ray (on_ray.py)."""
