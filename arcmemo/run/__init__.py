"""The run layer: opens memory, models and sandbox for a command (session.py), runs the
solve loop (loop.py) into a run directory (rundir.py), and prints its tables (report.py)."""
