"""Few-shot examples for the write prompts, taken from the hand-annotated seeds.

An annotated seed (`seeds/<id>.py` + `seeds/<id>.yaml`) shows every step done by hand:
code -> pseudocode + summary -> PS concepts, and the lessons for OE. The prompts show the
shortest few (deterministic choice, never the task being written).

Where the examples come from, first match wins:
1. the directory the caller names (the run layer passes the `seeds_dir` setting,
   ARCMEMO_SEEDS_DIR or config `seeds_dir`, checked when the settings are loaded);
2. `seeds/` of the source checkout, when arcmemo runs from one, so an edited seed shows
   up at once;
3. the packaged copy `arcmemo/data/fewshot_examples.yaml`, so an install from a wheel
   (no checkout) still has them. It is generated from seeds/ by
   `python scripts/generate_fewshot_examples.py`, and a test fails when it is stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path


@dataclass(frozen=True)
class Example:
    task_id: str
    code: str
    summary: str
    pseudocode: str
    concepts_yaml: str       # the annotation's concepts as written, as YAML text ("" if none)
    lessons_yaml: str        # the annotation's lessons as YAML text ("" if none)


PACKAGED = "data/fewshot_examples.yaml"     # inside the arcmemo package


def checkout_seeds_dir() -> Path | None:
    """`seeds/` of the source checkout arcmemo is running from, if it is one."""
    root = Path(__file__).resolve().parents[2]
    seeds = root / "seeds"
    return seeds if (root / "pyproject.toml").is_file() and seeds.is_dir() else None


def default_seeds_dir(configured: str | Path | None = None) -> Path | None:
    """Where the examples come from: `configured` (the `seeds_dir` setting), else the checkout's
    seeds/, else None (the packaged copy)."""
    return Path(configured) if configured else checkout_seeds_dir()


def _dump(value) -> str:
    # imported here: a solve imports this module at start-up and reads examples only when it writes memory
    from arcmemo.core import safeyaml

    return safeyaml.dump(value).rstrip()


@lru_cache(maxsize=8)
def _load(directory: str) -> tuple[Example, ...]:
    # Local imports: seedfile/annotations are siblings, and this module is imported early.
    from arcmemo.abstraction.annotations import AnnotationError, annotation_path, load_annotation
    from arcmemo.abstraction.seedfile import SeedError, find_seed_files, read_seed

    examples = []
    for path in find_seed_files(directory):
        yaml_path = annotation_path(path)
        if not yaml_path.exists():
            continue
        try:
            annotation = load_annotation(yaml_path)
            seed = read_seed(path, lib="", transpose=False)
        except (AnnotationError, SeedError):
            continue                 # a broken file is reported by `arcmemo seed`, not here
        if not (annotation.summary and annotation.pseudocode):
            continue
        raw = annotation.raw
        examples.append(Example(
            task_id=annotation.task_id, code=seed.code.strip(), summary=annotation.summary,
            pseudocode=annotation.pseudocode.rstrip(),
            concepts_yaml=_dump(raw["concepts"]) if raw.get("concepts") else "",
            lessons_yaml=_dump(raw["lessons"]) if raw.get("lessons") else "",
        ))
    return tuple(examples)


_FIELDS = tuple(Example.__dataclass_fields__)


def examples_to_yaml(examples: list[Example]) -> str:
    """The text of the packaged file (the generator writes it, the freshness test compares it)."""
    from arcmemo.core import safeyaml  # multi-line text as `|` blocks, so the file reads like the seeds

    return safeyaml.dump([{name: getattr(e, name) for name in _FIELDS} for e in examples])


def examples_from_yaml(text: str) -> list[Example]:
    import yaml

    return [Example(**{name: record[name] for name in _FIELDS}) for record in yaml.safe_load(text) or []]


@lru_cache(maxsize=1)
def _packaged() -> tuple[Example, ...]:
    text = resources.files("arcmemo").joinpath(PACKAGED).read_text(encoding="utf-8")
    return tuple(examples_from_yaml(text))


def load_examples(directory: str | Path | None = None) -> list[Example]:
    """The examples in `directory`; without one, from the sources in the module docstring."""
    if directory is None:
        directory = default_seeds_dir()
        if directory is None:
            return list(_packaged())
    directory = Path(directory)
    if not directory.is_dir():
        return []
    return list(_load(str(directory.resolve())))


def pick(examples: list[Example], n: int, *, exclude: str | None, size) -> list[Example]:
    """The `n` smallest examples by `size(example)` (ties by task id), excluding one task."""
    usable = [e for e in examples if e.task_id != exclude and size(e) > 0]
    return sorted(usable, key=lambda e: (size(e), e.task_id))[:n]


NONE = "(no worked examples are available)"


def example_count(llm, default: int = 2) -> int:
    """How many worked examples a prompt carries: one for the embedded local models, whose
    prompt processing is slow (keep their prompts short)."""
    from arcmemo.llm.client import LOCAL_MODELS

    return 1 if llm.model_for("aux") in LOCAL_MODELS else default


def pseudocode_examples(examples: list[Example], exclude: str | None, n: int = 2) -> str:
    chosen = pick(examples, n, exclude=exclude, size=lambda e: len(e.code) + len(e.pseudocode))
    parts = [
        f"## Example {i}\nSolution:\n```python\n{e.code}\n```\n"
        f"<pseudocode>\n{e.pseudocode}\n</pseudocode>\n<summary>{e.summary}</summary>"
        for i, e in enumerate(chosen, 1)
    ]
    return "\n\n".join(parts) or NONE


def concept_examples(examples: list[Example], exclude: str | None, n: int = 2) -> str:
    chosen = pick(examples, n, exclude=exclude,
                  size=lambda e: len(e.concepts_yaml) + len(e.pseudocode) if e.concepts_yaml else 0)
    parts = [
        f"## Example {i}\nSummary: {e.summary}\nPseudocode:\n```\n{e.pseudocode}\n```\n"
        f"Concepts:\n```yaml\n{e.concepts_yaml}\n```"
        for i, e in enumerate(chosen, 1)
    ]
    return "\n\n".join(parts) or NONE


def lesson_examples(examples: list[Example], exclude: str | None, n: int = 2) -> str:
    chosen = pick(examples, n, exclude=exclude, size=lambda e: len(e.lessons_yaml))
    parts = [
        f"## Example {i}\nRule: {e.summary}\nLessons:\n```yaml\n{e.lessons_yaml}\n```"
        for i, e in enumerate(chosen, 1)
    ]
    return "\n\n".join(parts) or NONE
