"""Prompt templates: each declares what it takes; a user's directory replaces any of them file by file,
checked whole before use; `arcmemo prompts list|show|export`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arcmemo.cli import cli
from arcmemo.prompts import ARCMEMO_TEMPLATES, BUILTINS, SHIPPED, PromptError, render_prompt, use_templates
from arcmemo.prompts.templatefile import parse_template
from arcmemo.prompts.userdir import read_prompt_dir
from arcmemo.run.prompting import PromptSetup, load_template_sets

SOLVE = ("---\nrequired: puzzle, hint_section\n---\n# The grids (new wording)\n$puzzle\n$hint_section\n"
         "Write transform(grid).\n")


def sets():
    return {t.name: t for t in load_template_sets()}


def test_every_shipped_template_declares_what_it_takes_and_its_text_agrees():
    found = {t.name: t.names() for t in load_template_sets()}
    assert {"", "program-synthesis", "expert-agents"} <= set(found)
    assert "select_ps" in found[""] and "solve" in found["program-synthesis"]
    for templates in load_template_sets():
        for name in templates.names():
            file = templates.shipped(name)
            assert parse_template(open(file.where, "rb").read(), file.where).declared is not None, file.where
            declared = file.declared
            assert declared.about, f"{file.where}: say what the template is for"
            used = file.variables()
            assert set(declared.required) <= used, file.where
            assert used <= set(declared.names) | set(BUILTINS), file.where


def test_rendering_refuses_a_variable_not_taken_or_a_required_one_missing_and_leaves_optional_ones_empty():
    with pytest.raises(TypeError, match=r"prompt 'select_ps' takes no \$puzle"):
        render_prompt("select_ps", memory="m", puzle="p")
    with pytest.raises(TypeError, match=r"prompt 'select_ps' needs a value for \$puzzle"):
        render_prompt("select_ps", memory="m")
    text = render_prompt("select_ps", memory="THE-MEMORY", puzzle="THE-PUZZLE")
    assert "THE-MEMORY" in text and "THE-PUZZLE" in text and "$" not in text.replace("$$", "")
    assert not text.startswith("---") and "required:" not in text        # the header is not part of the prompt


@pytest.mark.parametrize(("text", "message"), [
    (b"---\nrequired: puzzle\n", r"t\.txt: the header opened by '---' on line 1 is never closed"),
    (b"---\nneeds: puzzle\n---\n$puzzle", r"t\.txt:2: a header line is `key: value` with key one of about, required"),
    (b"---\nrequired: puzzle, 9lives\n---\n$puzzle", r"t\.txt: required: '9lives' is not a variable name"),
    (b"---\nrequired: puzzle\noptional: puzzle\n---\n$puzzle", r"\$puzzle is declared both required and optional"),
    (b"---\nrequired: puzzle\n---\nline one\ncosts $5 a grid $puzzle", r"t\.txt:5: a '\$' not followed by a variable"),
    (b"\xff\xfe$puzzle", r"t\.txt: not UTF-8 text"),
])
def test_a_template_that_does_not_parse_is_refused_naming_the_file_and_line(text, message):
    with pytest.raises(PromptError, match=message):
        parse_template(text, "t.txt")


def test_a_users_directory_replaces_templates_file_by_file(tmp_path):
    (tmp_path / "program-synthesis").mkdir()
    (tmp_path / "program-synthesis" / "solve.txt").write_text(SOLVE)
    (tmp_path / "select_ps.txt").write_text("Pick concepts.\n$memory\n$puzzle\n")     # no header: fine
    (tmp_path / ".git").mkdir()                                                     # hidden: ignored
    files = read_prompt_dir(tmp_path, load_template_sets())
    assert set(files) == {("program-synthesis", "solve"), ("", "select_ps")}
    solver = sets()["program-synthesis"]
    shipped = solver.record()
    with use_templates(files):
        assert render_prompt("select_ps", memory="M", puzzle="P", memory_note="N") == "Pick concepts.\nM\nP\n"
        assert "(new wording)" in solver.render("solve", puzzle="P", hint_section="")
        record = solver.record()
        assert record["solve"] == {"hash": files[("program-synthesis", "solve")].digest,
                                   "source": str(tmp_path / "program-synthesis" / "solve.txt")}
        assert record["system"] == shipped["system"] and record["system"]["source"] == SHIPPED
        assert ARCMEMO_TEMPLATES.record()["select_ps"]["source"] == str(tmp_path / "select_ps.txt")
    assert "(new wording)" not in solver.render("solve", puzzle="P", hint_section="")     # restored
    assert solver.record() == shipped


@pytest.mark.parametrize(("layout", "message"), [
    ({"select_pz.txt": "$memory $puzzle"}, r"select_pz\.txt: matches no shipped template \(did you mean 'select_ps'\?"),
    ({"notes.md": "my notes"}, r"notes\.md: matches no shipped template"),
    ({"program-synthesys/solve.txt": SOLVE}, r"program-synthesys: no solver's templates are called 'program-synthesys' "
                                             r"\(did you mean 'program-synthesis'\?"),
    ({"select_ps.txt": "$memory $puzzle $task_name"}, r"select_ps\.txt: uses \$task_name, which template 'select_ps' "
                                                      r"does not take \(it takes \$memory, \$puzzle, \$memory_note;"),
    ({"program-synthesis/solve.txt": "$puzzle only"}, r"solve\.txt: leaves out \$hint_section, which template "
                                                      r"'program-synthesis/solve' requires"),
    ({"caption.txt": "cost: $"}, r"caption\.txt:1: a '\$' not followed by a variable name"),
])
def test_a_bad_file_in_the_directory_is_refused_naming_the_file_and_the_variable(tmp_path, layout, message):
    for name, text in layout.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    with pytest.raises(PromptError, match=message):
        PromptSetup(tmp_path)


def test_a_directory_that_does_not_exist_is_refused(tmp_path):
    with pytest.raises(PromptError, match=r"nowhere: no such directory \(the prompts directory"):
        PromptSetup(tmp_path / "nowhere")


def test_prompts_export_list_and_show(tmp_path):
    runner = CliRunner()
    out = tmp_path / "mine"
    result = runner.invoke(cli, ["prompts", "export", str(out)])
    assert result.exit_code == 0, result.output
    every = [f"{t.qualified(n)}.txt" for t in load_template_sets() for n in t.names()]
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*.txt")) == sorted(every)
    assert (out / "program-synthesis" / "solve.txt").read_bytes() == \
        open(sets()["program-synthesis"].shipped("solve").where, "rb").read()
    again = runner.invoke(cli, ["prompts", "export", str(out)])
    assert again.exit_code == 1 and "already exists" in again.output and "--force" in again.output
    (out / "program-synthesis" / "solve.txt").write_text(SOLVE)
    assert runner.invoke(cli, ["prompts", "export", str(out), "--force", "select_ps"]).exit_code == 0
    assert "(new wording)" in (out / "program-synthesis" / "solve.txt").read_text()   # only NAMES rewritten

    listed = json.loads(runner.invoke(cli, ["prompts", "list", "--json", "--prompts", str(out)]).output)
    by_name = {row["name"]: row for row in listed}
    assert by_name["program-synthesis/solve"]["source"] == str(out / "program-synthesis" / "solve.txt")
    assert by_name["select_ps"]["required"] == ["memory", "puzzle"]
    assert by_name["select_ps"]["optional"] == ["memory_note"]
    table = runner.invoke(cli, ["prompts", "list"]).output
    assert "program-synthesis/solve" in table and "$puzzle $hint_section" in table and "shipped" in table

    shown = runner.invoke(cli, ["prompts", "show", "program-synthesis/solve", "--prompts", str(out)])
    assert shown.exit_code == 0 and shown.output == SOLVE
    assert "required: memory, puzzle" in runner.invoke(cli, ["prompts", "show", "select_ps.txt"]).output
    missing = runner.invoke(cli, ["prompts", "show", "select_pss"])
    assert missing.exit_code == 1 and "no prompt template named 'select_pss'; did you mean 'select_ps'?" in missing.output


def test_prompts_list_refuses_a_bad_directory_in_one_line(tmp_path):
    (tmp_path / "solve.txt").write_text("$puzzle")
    result = CliRunner().invoke(cli, ["prompts", "list", "--prompts", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: {tmp_path / 'solve.txt'}: matches no shipped template (did you mean program-synthesis/solve.txt? "
        "arcmemo's: "
        + ", ".join(n + ".txt" for n in ARCMEMO_TEMPLATES.names()) + ")"]
