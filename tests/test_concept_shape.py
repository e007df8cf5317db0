"""A concept has one value in the code (`Concept`, its helper a `Helper`) and one row shape in
the store: the value, the validator, the table, the SQL that reads and writes it and the export
agree, field by field and in order. (These were import-time asserts, which `python -O` drops.)"""

from __future__ import annotations

import ast
import json
from dataclasses import fields
from datetime import datetime, timezone
from pathlib import Path

import pytest
import sqlalchemy as sa

from arcmemo.memory.helpers.value import Helper, Verified
from arcmemo.memory.io.export import concept_entry
from arcmemo.memory.schema import rules
from arcmemo.memory.schema.concept import CONCEPT_COLUMNS, DATA_FIELDS, LIST_FIELDS, Concept
from arcmemo.memory.store import sql
from arcmemo.memory.store.reads import concept_of, from_snapshot
from arcmemo.memory.store.revision import Revision
from arcmemo.memory.store.rows import CONCEPTS, REVISIONS

ROOT = Path(__file__).resolve().parents[1]
WHEN = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=timezone.utc)


def full_concept() -> Concept:
    """A concept with every field set, each to a value no other field has."""
    helper = Helper("rotate_grid", "def rotate_grid(grid):\n    return grid\n", ("flip_grid",),
                    Verified("6150a2bd", "training", "def transform(grid):\n    return grid\n", "2026-01-01T00:00:00+00:00",
                             "run-1"))
    return Concept(id=7, format="ps", name="rotate grid", kind="routine", routine_subtype="grid manipulation",
                   output_typing="grid", description="turns the grid",
                   parameters=[{"name": "grid", "typing": "grid", "description": "the grid"}], cues=["turned"],
                   implementation=["np.rot90"], used_in=["6150a2bd"], situation="a situation", suggestion="a suggestion",
                   helper=helper, source="self", meta={"method": "ps"}, created_by_model="a model",
                   content_hash="abc", created_at=WHEN, updated_at=WHEN)


def test_the_value_holds_the_columns_in_their_order():
    assert tuple(f.name for f in fields(Concept)) == CONCEPT_COLUMNS
    assert CONCEPT_COLUMNS == ("id", *DATA_FIELDS, "created_by_model", "content_hash", "created_at", "updated_at")
    assert sql.ROW_COLUMNS == CONCEPT_COLUMNS[1:] and sql.CHANGED_COLUMNS == (*DATA_FIELDS, "content_hash", "updated_at")
    assert set(LIST_FIELDS) <= set(DATA_FIELDS)


def test_the_validator_checks_the_values_fields():
    assert set(rules.ConceptData.model_fields) == set(DATA_FIELDS)
    for model, names, value in ((rules.HelperData, rules.HELPER_FIELDS, Helper),
                                (rules.VerifiedData, rules.VERIFIED_FIELDS, Verified)):
        assert tuple(model.model_fields) == names == value.__slots__ == tuple(value.__annotations__)
    assert tuple(rules.normalize({"name": "x"})) == DATA_FIELDS          # the data shape, in order


def test_the_table_is_the_values_columns():
    assert tuple(CONCEPTS.columns.keys()) == CONCEPT_COLUMNS
    for f in fields(Concept):
        column = CONCEPTS.columns[f.name]
        assert column.primary_key or column.nullable == ("None" in f.type), f.name   # optional in both, or neither
    json_columns = {c.name for c in CONCEPTS.columns if isinstance(c.type, sa.JSON)}
    assert json_columns == sql.JSON_COLUMNS & set(CONCEPT_COLUMNS) == {*LIST_FIELDS, "helper", "meta"}


def test_a_row_and_a_snapshot_read_back_as_the_value_they_were_written_from():
    concept = full_concept()
    data = concept.snapshot()
    row = [json.dumps(data[c]) if c in sql.JSON_COLUMNS else data[c] for c in CONCEPT_COLUMNS]   # as SQLite gives it
    assert concept_of(row) == concept
    assert from_snapshot(json.dumps(data)) == concept == from_snapshot(data)
    assert Concept.from_data(concept.to_data(), id=7, created_by_model="a model", content_hash="abc",
                             created_at=WHEN, updated_at=WHEN) == concept
    assert Helper.from_data(concept.helper.to_data()) == concept.helper


def test_a_helper_is_an_immutable_value():
    helper = full_concept().helper
    again = Helper.from_data(helper.to_data())
    assert again == helper and hash(again) == hash(helper) and again is not helper
    changed = helper.replace(source="def rotate_grid(grid):\n    return grid[::-1]\n")
    assert changed != helper and changed.name == helper.name and helper.source.endswith("return grid\n")
    with pytest.raises(AttributeError, match="cannot be changed"):
        helper.name = "other"
    with pytest.raises(TypeError, match="no field nme"):
        helper.replace(nme="other")
    assert helper != helper.to_data() and helper.verified != helper
    assert repr(helper.verified) == ("Verified(task_id='6150a2bd', tasks='training', program='def transform(grid):\\n    "
                                     "return grid\\n', at='2026-01-01T00:00:00+00:00', run_id='run-1')")
    with pytest.raises(TypeError):          # never stored by accident as something else
        json.dumps(helper)


def test_the_data_shape_and_the_export_follow_the_field_order():
    concept = full_concept()
    assert tuple(concept.to_data()) == DATA_FIELDS
    assert list(concept_entry(concept)) == [*DATA_FIELDS, "model"]
    assert list(concept.to_data()["helper"]) == list(rules.HELPER_FIELDS)
    assert list(concept.to_data()["helper"]["verified"]) == list(rules.VERIFIED_FIELDS)


def test_a_revision_value_and_its_table_agree():
    assert tuple(f.name for f in fields(Revision)) == sql.REVISION_COLUMNS == tuple(REVISIONS.columns.keys())
    for f in fields(Revision):
        column = REVISIONS.columns[f.name]
        assert column.primary_key or column.nullable == ("None" in f.type), f.name


def test_no_helper_is_read_as_a_mapping():
    """`x.helper[...]` or `x.helper.get(...)`: a concept's helper is a `Helper`, read by attribute."""
    found = []
    for path in [*(ROOT / "arcmemo").rglob("*.py"), *(ROOT / "solvers").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            target = node.value if isinstance(node, ast.Subscript) else (
                node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get" else None)
            if isinstance(target, ast.Attribute) and target.attr == "helper":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []
