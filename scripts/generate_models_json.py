"""Write arcmemo/data/models.json, the JSON copy of arcmemo/data/models.yaml that the model
catalog reads (so reading it loads no YAML parser); a test checks it is current. Edit
models.yaml, then run:

    python scripts/generate_models_json.py
"""

from __future__ import annotations

import json
from pathlib import Path

from arcmemo.core import safeyaml

DATA = Path(__file__).resolve().parent.parent / "arcmemo" / "data"
SOURCE = DATA / "models.yaml"
OUT = DATA / "models.json"


def render() -> str:
    return json.dumps(safeyaml.load(SOURCE.read_text(encoding="utf-8")), indent=2) + "\n"


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT}")
