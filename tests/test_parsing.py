import pytest

from arcmemo.gridtext import format_task
from arcmemo.parsing import ParseError, expect_list_of_mappings, extract_code, extract_tag, parse_yaml_block
from arcmemo.tasks import Pair, Task


def test_tag_and_yaml():
    text = "<summary> flip it </summary>\n```yaml\n- name: a\n  cues: [x]\n```"
    assert extract_tag(text, "summary") == "flip it"
    assert parse_yaml_block(text) == [{"name": "a", "cues": ["x"]}]


def test_errors_say_what_is_wrong():
    with pytest.raises(ParseError, match="no <pseudocode>"):
        extract_tag("nothing", "pseudocode")
    with pytest.raises(ParseError, match="no fenced ```yaml"):
        parse_yaml_block("- a\n- b")
    with pytest.raises(ParseError, match="not valid YAML at line 2"):
        parse_yaml_block("```yaml\n- a\n  b: [\n```")
    with pytest.raises(ParseError, match=r"\[1\]: missing or non-text field 'name'"):
        expect_list_of_mappings([{"name": "x"}, {"name": 3}], "concepts", ("name",))


def test_extract_code_takes_last_function_block():
    text = "```python\nx = 1\n```\nthen\n```python\ndef transform(g):\n    return g\n```"
    assert extract_code(text).startswith("def transform")
    with pytest.raises(ParseError):
        extract_code("no code here")


def test_format_task_hides_nothing_but_outputs():
    task = Task("t", (Pair(((1, 2),), ((2, 1),)),), (((3, 4), (5, 6)),))
    text = format_task(task)
    assert "Example 1 input (1x2):\n12" in text and "Test input 1 (2x2):\n34\n56" in text
