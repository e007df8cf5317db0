import importlib.util
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_cli_reference_is_current():
    spec = importlib.util.spec_from_file_location("generate_cli_reference", DOCS / "generate_cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (DOCS / "cli.md").read_text() == module.reference(), \
        "docs/cli.md is stale: run `python docs/generate_cli_reference.py`"
