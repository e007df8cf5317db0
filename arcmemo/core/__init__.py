"""The basics every layer may use: settings, ARC tasks and grids, grids as prompt text,
parsing of model answers. Nothing here imports any other part of arcmemo."""
