"""The paper's OE caption: a vision aux model gets rendered pictures of the puzzle (one PNG per
train pair and per test input, from arcmemo.pictures), a text-only one the grids as text;
observations and speculation come back apart; the solver's hint carries the caption with
the chosen lessons. Checked in the requests the loopback stub received."""

from __future__ import annotations

import base64
import io

import pytest
from llm_stub import StubServer, completion_body, stub_llm
from PIL import Image

from arcmemo.core.gridtext import format_grid
from arcmemo.core.tasks import load_tasks
from arcmemo.memory.store import Memory
from arcmemo.methods import select
from arcmemo.pictures import task_images
from arcmemo.selection import SelectionSettings

CAPTION = ("<observations>\n- three vertical stripes per grid\n- each colour maps to one other colour\n"
           "</observations>\n<speculation>\n- a fixed colour substitution table\n</speculation>")
LESSONS = [{"format": "oe", "situation": "Every cell of one colour turns into another colour.",
            "suggestion": "Learn the colour table from the examples and apply it cell by cell."},
           {"format": "oe", "situation": "Objects fall to the bottom.",
            "suggestion": "Move each object down until it rests."}]


@pytest.fixture
def memory(tmp_path):
    with Memory(str(tmp_path / "memory.db")) as mem:
        for lesson in LESSONS:
            mem.add(lesson, source="import", actor="test")
        yield mem


@pytest.fixture
def task():
    return load_tasks("training", ids=["0d3d703e"]).tasks[0]


def run_oe(stub, memory, task, aux_model):
    stub.script({"body": completion_body(CAPTION)}, {"body": completion_body("```yaml\n- 1\n```")})
    with stub_llm(stub.base_url, aux_model=aux_model, select_model="gpt-4.1") as llm:
        return select(task, memory, SelectionSettings(mode="oe", top_k=1), llm)


def test_a_vision_model_captions_rendered_pictures_of_the_puzzle(memory, task):
    with StubServer() as stub:
        selection = run_oe(stub, memory, task, aux_model="gpt-4.1")
        caption_request, select_request = stub.requests
    (message,) = caption_request["messages"]
    parts = message["content"]
    images = [p for p in parts if p["type"] == "image_url"]
    texts = [p["text"] for p in parts if p["type"] == "text"]
    assert len(images) == len(task.train) + len(task.test_inputs) == 5
    sent = [base64.b64decode(p["image_url"]["url"].removeprefix("data:image/png;base64,")) for p in images]
    assert sent == task_images(task)                     # the pictures arcmemo.pictures renders, in order
    assert Image.open(io.BytesIO(sent[0])).format == "PNG"
    assert texts[1:] == ["Example 1 (input left, output right):", "Example 2 (input left, output right):",
                         "Example 3 (input left, output right):", "Example 4 (input left, output right):",
                         "Test input 1:"]
    assert "<observations>" in texts[0] and "<speculation>" in texts[0] and "shown as pictures" in texts[0]
    assert format_grid(task.train[0].input) not in "\n".join(texts)     # pictures, not the text grids
    # observations and speculation apart, on to the select model and into the solver's hint
    assert "Observations:\n- three vertical stripes" in selection.caption
    assert "Possible rules (speculation):\n- a fixed colour substitution table" in selection.caption
    assert selection.caption in select_request["messages"][0]["content"]
    assert not selection.fallback and len(selection.concept_ids) == 1
    assert selection.caption in selection.hint and "Learn the colour table" in selection.hint


def test_a_model_without_vision_captions_the_grids_as_text(memory, task):
    with StubServer() as stub:
        selection = run_oe(stub, memory, task, aux_model="o3-mini")      # models.yaml: vision false
        caption_request = stub.requests[0]
    content = caption_request["messages"][0]["content"]
    assert isinstance(content, str)
    assert format_grid(task.train[0].input) in content and "one digit per cell" in content
    assert not selection.fallback and selection.caption in selection.hint
