"""Every human-written seed in seeds/ solves its ARC training task, and every hand
annotation (seeds/<task_id>.yaml) has the shape that enters memory as is.

Seeds run in the sandbox (not plain exec) so the check matches what `arcmemo seed` does
before ingesting a file. One test per seed file; a failure names the seed and the pairs.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from arcmemo.abstraction.seedfile import find_seed_files, read_seed
from arcmemo.core.tasks import load_tasks
from arcmemo.memory.helpers.seedlibrary import read_library

SEEDS_DIR = Path(__file__).resolve().parent.parent / "seeds"
SEED_FILES = find_seed_files(SEEDS_DIR)          # memory_helpers.py, the seeds' helper library, is not one
ANNOTATION_FILES = sorted(SEEDS_DIR.glob("*.yaml"))

CONCEPT_KEYS = {"name", "kind", "routine_subtype", "output_typing", "description",
                "parameters", "cues", "implementation"}
PARAMETER_KEYS = {"name", "typing", "description"}
LESSON_KEYS = {"situation", "suggestion"}
ANNOTATION_KEYS = {"summary", "pseudocode", "concepts", "custom_types", "lessons"}


@pytest.fixture(scope="module")
def training():
    return load_tasks("training")


def entry_point(source: str, where: str) -> str:
    """The program's entry function: `transform` (our seeds) or BARC's `main`."""
    names = {node.name for node in ast.parse(source, filename=where).body
             if isinstance(node, ast.FunctionDef)}
    for entry in ("transform", "main"):
        if entry in names:
            return entry
    raise AssertionError(f"{where}: defines neither transform(grid) nor main(input_grid)")


def test_seeds_exist():
    assert SEED_FILES, f"no seed files in {SEEDS_DIR}"


@pytest.mark.parametrize("path", SEED_FILES, ids=lambda p: p.stem)
def test_seed_header(path):
    """The seed format: `# concepts:` and `# description:` comments before the code."""
    lines = path.read_text().splitlines()
    concepts = [line for line in lines if line.startswith("# concepts:")]
    descriptions = [line for line in lines if line.startswith("# description:")]
    assert concepts and concepts[0].split(":", 1)[1].strip(), f"{path.name}: no '# concepts:' tags"
    assert descriptions and descriptions[0].split(":", 1)[1].strip(), f"{path.name}: no '# description:'"


@pytest.mark.parametrize("path", SEED_FILES, ids=lambda p: p.stem)
def test_seed_solves_its_task(path, training):
    """Run as `arcmemo seed` runs it: an annotated seed imports its concepts' helpers from
    memory_helpers, built from seeds/memory_helpers.py, and must call each of them."""
    from arcmemo.abstraction.annotations import annotation_path, load_annotation
    from arcmemo.run.jobs.seeding import seed_helpers, task_pairs, verify
    from arcmemo.sandbox import get_sandbox

    task_id = path.stem
    training.by_id(task_id)  # raises if the file is not named after a training task
    entry_point(path.read_text(), str(path))
    annotation = load_annotation(annotation_path(path)) if annotation_path(path).exists() else None
    library = read_library(SEEDS_DIR)
    helpers = seed_helpers(annotation, library)
    pairs = task_pairs(training, task_id)
    assert len(pairs) == len(training.by_id(task_id).train) + len(training.answers[task_id].test_outputs)
    failure = verify(get_sandbox(), read_seed(path), pairs, helpers, library)
    assert failure is None, f"seed {path.name} fails: {failure}"


def test_the_seed_helpers_keep_their_docstring_examples():
    """Each helper's `Example: call -> result` holds, run in the sandbox with the helper library."""
    from arcmemo.core.helpermodule import MODULE
    from arcmemo.memory.helpers.modules import build_module
    from arcmemo.memory.helpers.source import describe
    from arcmemo.sandbox import get_sandbox

    library = read_library(SEEDS_DIR)
    assert len(library) >= 20
    module = build_module({name: h.source for name, h in library.items()})
    checks = []
    for name, helper in library.items():
        example = next(line for line in describe(helper.source).doc.splitlines() if line.startswith("Example:"))
        call, expected = example[len("Example:"):].rsplit(" -> ", 1)
        checks.append(f"    assert _plain({call.strip()}) == {expected.strip()}, {name!r}")
    program = (f"import numpy as np\nfrom {MODULE} import *\n\n"
               "def _plain(x):\n"
               "    if isinstance(x, np.ndarray) or isinstance(x, np.integer):\n        return x.tolist()\n"
               "    if isinstance(x, (list, tuple)):\n        return type(x)(_plain(v) for v in x)\n"
               "    if isinstance(x, dict):\n        return {k: _plain(v) for k, v in x.items()}\n"
               "    return x\n\n"
               "def transform(grid):\n" + "\n".join(checks) + "\n    return grid\n")
    (outcome,) = get_sandbox().run(program, [[[0]]], modules={MODULE: module}, helpers=MODULE, timeout_s=20)
    assert outcome.ok, outcome.message
    assert set(outcome.called) == set(library)


def test_every_seed_helper_belongs_to_an_annotated_concept():
    from arcmemo.abstraction.annotations import load_annotation
    from arcmemo.memory.helpers.seedlibrary import concept_helpers

    library = read_library(SEEDS_DIR)
    used = {h.name for path in ANNOTATION_FILES for h in concept_helpers(load_annotation(path).concepts, library).values()}
    assert sorted(set(library) - used) == [], "helpers in seeds/memory_helpers.py that no annotated concept is named after"


# ---- hand annotations ------------------------------------------------------------


def load_annotation(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    assert isinstance(data, dict), f"{path.name}: top level must be a mapping"
    return data


def _nonempty_str(value) -> bool:
    return isinstance(value, str) and value.strip() != ""


def _str_list(value) -> bool:
    return isinstance(value, list) and all(_nonempty_str(v) for v in value)


@pytest.mark.parametrize("path", ANNOTATION_FILES, ids=lambda p: p.stem)
def test_annotation_shape(path):
    where = path.name
    data = load_annotation(path)
    assert (SEEDS_DIR / f"{path.stem}.py").exists(), f"{where}: no seed {path.stem}.py beside it"
    unknown = set(data) - ANNOTATION_KEYS
    assert not unknown, f"{where}: unknown top-level keys {sorted(unknown)}"
    assert _nonempty_str(data.get("summary")), f"{where}: summary must be a non-empty string"
    assert "\n" not in data["summary"].strip(), f"{where}: summary must be one line"
    assert _nonempty_str(data.get("pseudocode")), f"{where}: pseudocode must be a non-empty string"

    concepts = data.get("concepts")
    assert isinstance(concepts, list) and concepts, f"{where}: concepts must be a non-empty list"
    names = []
    for i, c in enumerate(concepts):
        at = f"{where}: concepts[{i}]"
        assert isinstance(c, dict), f"{at} must be a mapping"
        unknown = set(c) - CONCEPT_KEYS
        assert not unknown, f"{at}: unknown keys {sorted(unknown)}"
        assert _nonempty_str(c.get("name")), f"{at}: name must be a non-empty string"
        assert c.get("kind") in ("structure", "routine"), f"{at} ({c['name']}): kind must be structure or routine"
        for key in ("routine_subtype", "output_typing", "description"):
            assert c.get(key) is None or _nonempty_str(c[key]), f"{at} ({c['name']}): {key} must be a string"
        for key in ("cues", "implementation"):
            assert c.get(key) is None or _str_list(c[key]), f"{at} ({c['name']}): {key} must be a list of strings"
        params = c.get("parameters") or []
        assert isinstance(params, list), f"{at} ({c['name']}): parameters must be a list"
        for j, p in enumerate(params):
            assert isinstance(p, dict) and set(p) == PARAMETER_KEYS and all(_nonempty_str(p[k]) for k in PARAMETER_KEYS), \
                f"{at} ({c['name']}): parameters[{j}] needs exactly name, typing, description (strings)"
        names.append(c["name"])
    assert len(names) == len(set(names)), f"{where}: a concept name appears twice"

    types = data.get("custom_types") or {}
    assert isinstance(types, dict) and all(_nonempty_str(k) and _nonempty_str(v) for k, v in types.items()), \
        f"{where}: custom_types must map names to definition strings"

    lessons = data.get("lessons")
    assert isinstance(lessons, list) and lessons, f"{where}: lessons must be a non-empty list"
    for i, lesson in enumerate(lessons):
        assert isinstance(lesson, dict) and set(lesson) == LESSON_KEYS, \
            f"{where}: lessons[{i}] needs exactly situation and suggestion"
        assert all(_nonempty_str(lesson[k]) for k in LESSON_KEYS), f"{where}: lessons[{i}] has an empty field"


def test_reused_concepts_agree():
    """A concept name reused across annotations merges into one memory entry: it must be
    described in full somewhere and keep one kind and one output type everywhere."""
    seen: dict[str, list[tuple[str, dict]]] = {}
    for path in ANNOTATION_FILES:
        for c in load_annotation(path).get("concepts") or []:
            if isinstance(c, dict) and isinstance(c.get("name"), str):
                seen.setdefault(c["name"], []).append((path.name, c))
    for name, uses in seen.items():
        files = [f for f, _ in uses]
        assert any(_nonempty_str(c.get("description")) for _, c in uses), \
            f"concept {name!r} ({files}) has no description in any annotation"
        for key in ("kind", "output_typing"):
            values = {c[key] for _, c in uses if c.get(key) is not None}
            assert len(values) <= 1, f"concept {name!r}: {key} differs across {files}: {sorted(values)}"


def test_custom_types_agree():
    """The same custom type name must have one definition across annotations."""
    defs: dict[str, set[str]] = {}
    for path in ANNOTATION_FILES:
        for name, definition in (load_annotation(path).get("custom_types") or {}).items():
            defs.setdefault(name, set()).add(definition)
    clashes = {n: sorted(d) for n, d in defs.items() if len(d) > 1}
    assert not clashes, f"custom types defined differently in different annotations: {clashes}"


def test_a_seed_made_standalone_runs_without_the_helpers_module():
    from arcmemo.core.tasks import Pair
    from arcmemo.memory.helpers.seedlibrary import standalone
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import run_on_pairs

    code = standalone((SEEDS_DIR / "00d62c1b.py").read_text(), read_library(SEEDS_DIR))
    assert "from memory_helpers" not in code and "def extract_objects" in code
    training = load_tasks("training", ids=["00d62c1b"])
    task, answers = training.by_id("00d62c1b"), training.answers["00d62c1b"].test_outputs
    pairs = list(task.train) + [Pair(g, o) for g, o in zip(task.test_inputs, answers)]
    assert run_on_pairs(get_sandbox(), code, pairs).passed_all
