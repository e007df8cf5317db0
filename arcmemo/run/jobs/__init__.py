"""The loops besides solve: seeding, the cheatsheet build, consolidation, sweeps, the quick start."""
