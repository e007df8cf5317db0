"""Few-shot examples for the write prompts: the packaged copy matches seeds/, is used when
no seeds directory is available, and ships in the wheel."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest

from arcmemo.abstraction import fewshot
from arcmemo.core.settings import ConfigError, Settings

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
PACKAGED = ROOT / "arcmemo" / fewshot.PACKAGED


def generator():
    path = ROOT / "scripts" / "generate_fewshot_examples.py"
    spec = importlib.util.spec_from_file_location("generate_fewshot_examples", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def no_seeds_setting(monkeypatch):
    monkeypatch.delenv("ARCMEMO_SEEDS_DIR", raising=False)   # the config file is per test (conftest)


def test_packaged_examples_are_current():
    assert PACKAGED.read_text(encoding="utf-8") == generator().render(), \
        "arcmemo/data/fewshot_examples.yaml is stale: run `python scripts/generate_fewshot_examples.py`"


def test_packaged_file_loads_to_the_seed_examples():
    examples = fewshot.examples_from_yaml(PACKAGED.read_text(encoding="utf-8"))
    assert examples and examples == fewshot.load_examples(SEEDS)


def test_without_a_seeds_directory_the_packaged_examples_are_used(no_seeds_setting, monkeypatch):
    monkeypatch.setattr(fewshot, "checkout_seeds_dir", lambda: None)
    assert fewshot.default_seeds_dir() is None
    examples = fewshot.load_examples()
    assert examples == fewshot.examples_from_yaml(PACKAGED.read_text(encoding="utf-8"))
    assert fewshot.pseudocode_examples(examples, exclude=None) != fewshot.NONE


def test_the_checkout_seeds_come_before_the_packaged_copy(no_seeds_setting):
    assert fewshot.default_seeds_dir() == SEEDS.resolve()
    assert fewshot.load_examples() == fewshot.load_examples(SEEDS)


def test_the_seeds_dir_setting_comes_first(monkeypatch, tmp_path):
    for suffix in (".py", ".yaml"):
        shutil.copy(SEEDS / f"0d3d703e{suffix}", tmp_path)
    monkeypatch.setenv("ARCMEMO_SEEDS_DIR", str(tmp_path))
    configured = Settings.load().seeds_dir
    assert fewshot.default_seeds_dir(configured) == tmp_path
    assert [e.task_id for e in fewshot.load_examples(fewshot.default_seeds_dir(configured))] == ["0d3d703e"]
    monkeypatch.setenv("ARCMEMO_SEEDS_DIR", str(tmp_path / "missing"))
    with pytest.raises(ConfigError, match="seeds_dir .*: expected an existing directory, got '.*missing'"):
        Settings.load()                                       # as configured: an error, no fallback


@pytest.mark.slow
def test_the_wheel_ships_the_examples(tmp_path):
    # Build from a copy of the checkout's build inputs: setuptools builds in the source
    # tree, and a stale build/lib there could put a file in the wheel that pyproject no
    # longer declares (and would race with anything else building in the checkout).
    backend = version("setuptools")
    assert int(backend.split(".")[0]) >= 77, \
        f"setuptools {backend} cannot build arcmemo: reinstall with `pip install -e '.[test]'`"
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src)
    for name in ("arcmemo", "solvers"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    out = tmp_path / "dist"
    # No isolation and no index: the installed setuptools (>=77, from the [test] extra) builds
    # it, so this needs no network.
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--no-index", "--quiet", "-w", str(out), str(src)], check=True, timeout=300)
    (wheel,) = out.glob("arcmemo-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read(f"arcmemo/{fewshot.PACKAGED}").decode()
    assert fewshot.examples_from_yaml(text) == fewshot.load_examples(SEEDS)
