"""Sandbox: running programs on grids, error categories, conventions, pool behaviour."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from arcmemo.core.tasks import Pair
from arcmemo.sandbox import ERROR_KINDS, RunOutcome, Sandbox, get_sandbox
from arcmemo.solverkit import PairsCheck, run_on_pairs


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2, timeout_s=1.0, memory_mb=256) as box:
        yield box


FLIP = "def transform(grid):\n    return grid[::-1]\n"


def test_runs_program_on_each_grid(sb):
    out = sb.run(FLIP, [[[1, 2], [3, 4]], [[5]]])
    assert out == [
        RunOutcome(True, [[3, 4], [1, 2]], None, "", ""),
        RunOutcome(True, [[5]], None, "", ""),
    ]


def test_accepts_tuple_grids_and_empty_list(sb):
    assert sb.run(FLIP, [((1,), (2,))])[0].output == [[2], [1]]
    assert sb.run(FLIP, []) == []


def test_entry_receives_fresh_int_array_indexed_row_col(sb):
    src = (
        "import numpy as np\n"
        "seen = []\n"
        "def transform(grid):\n"
        "    assert isinstance(grid, np.ndarray) and grid.dtype.kind == 'i', (type(grid), grid.dtype)\n"
        "    seen.append(grid)\n"
        "    grid[0, 0] = 9  # mutating its input must not leak into the next grid\n"
        "    return [[int(grid.shape[0]), int(grid.shape[1]), int(grid[0, 1]), len(seen)]]\n"
    )
    out = sb.run(src, [[[1, 2, 3]], [[1, 7, 3]]])
    assert [o.output for o in out] == [[[1, 3, 2, 1]], [[1, 3, 7, 2]]]


def test_list_output_and_float_array_with_integral_values(sb):
    src = "import numpy as np\ndef transform(grid):\n    return np.zeros((2, 3)) + 4\n"
    assert sb.run(src, [[[0]]])[0].output == [[4, 4, 4], [4, 4, 4]]
    src = "def transform(grid):\n    return [list(r) for r in grid.T]\n"
    assert sb.run(src, [[[1, 2]]])[0].output == [[1], [2]]


def test_entry_name_and_modules(sb):
    common = "import numpy as np\ndef double(g):\n    return np.concatenate([g, g], axis=1)\n"
    src = "from common import *\ndef main(input_grid):\n    return double(input_grid)\n"
    out = sb.run(src, [[[1, 2]]], entry="main", modules={"common": common})
    assert out[0].ok and out[0].output == [[1, 2, 1, 2]]
    # scipy.ndimage is importable, as BARC's helper needs it
    src = ("from scipy import ndimage\nimport numpy as np\n"
           "def transform(g):\n    lab, n = ndimage.label(g > 0)\n    return [[n]]\n")
    assert sb.run(src, [[[1, 0, 1]]])[0].output == [[2]]


HELPERS = (
    "import numpy as np\n\n"
    "def flip_rows(grid):\n    return grid[::-1]\n\n"
    "def flip_and_append(grid):\n    return np.concatenate([flip_rows(grid), grid], axis=1)\n\n"
    "def _private(grid):\n    return grid\n"
)


def run_helpers(sb, src, grids):
    return sb.run(src, grids, modules={"memory_helpers": HELPERS}, helpers="memory_helpers")


def test_a_run_reports_the_helpers_its_program_called_per_grid(sb):
    src = ("from memory_helpers import *\n"
           "def transform(g):\n    return flip_and_append(g) if g[0, 0] == 1 else flip_rows(g) if g[0, 0] == 2 else g\n")
    out = run_helpers(sb, src, [[[1]], [[2]], [[3]]])
    # a helper calling another reports only the outer one: that is what the program used
    assert [o.called for o in out] == [("flip_and_append",), ("flip_rows",), ()]
    assert [o.output for o in out] == [[[1, 1]], [[2]], [[3]]] and all(o.rebound == () for o in out)
    failed = run_helpers(sb, "import memory_helpers\ndef transform(g):\n    return memory_helpers.flip_rows(g)[9]\n",
                         [[[1]]])[0]
    assert failed.error == "exception" and failed.called == ("flip_rows",)
    # without `helpers`, the same module is an ordinary module and nothing is traced
    plain = sb.run(src, [[[2], [5]]], modules={"memory_helpers": HELPERS})[0]
    assert plain.output == [[5], [2]] and plain.called == () and plain.to_dict()["called"] == []


def test_a_program_cannot_shadow_a_memory_helper(sb):
    # the program imports the helper, then writes its own (wrong) version of it: the memory's runs
    redefined = ("from memory_helpers import flip_rows\n"
                 "def flip_rows(grid):\n    return grid\n"
                 "def transform(g):\n    return flip_rows(g)\n")
    out = run_helpers(sb, redefined, [[[1], [2]]])[0]
    assert out.output == [[2], [1]] and out.called == ("flip_rows",) and out.rebound == ("flip_rows",)
    # a name assigned, or the module's attribute replaced, is bound back too
    for src in ("from memory_helpers import flip_rows\nflip_rows = lambda g: g\n"
                "def transform(g):\n    return flip_rows(g)\n",
                "import memory_helpers as mh\nmh.flip_rows = lambda g: g\n"
                "def transform(g):\n    return mh.flip_and_append(g)\n"):
        out = run_helpers(sb, src, [[[1], [2]]])[0]
        assert out.rebound == ("flip_rows",), src
        assert out.output in ([[2], [1]], [[2, 1], [1, 2]]), src
    # a name the program imports from another module of the run stays the program's choice
    other = {"memory_helpers": HELPERS, "arc_helpers": "def flip_rows(g):\n    return g\n"}
    src = "from memory_helpers import *\nfrom arc_helpers import *\ndef transform(g):\n    return flip_rows(g)\n"
    out = sb.run(src, [[[1], [2]]], modules=other, helpers="memory_helpers")[0]
    assert out.output == [[1], [2]] and out.rebound == () and out.called == ()
    # private functions and imported names are not helpers
    own = "def _private(g):\n    return g[::-1]\ndef np(g):\n    return g\ndef transform(g):\n    return _private(g)\n"
    out = run_helpers(sb, own, [[[1], [2]]])[0]
    assert out.output == [[2], [1]] and out.rebound == () and out.called == ()


def test_helpers_must_name_one_of_the_modules(sb):
    with pytest.raises(ValueError, match="helpers names the module 'memory_helpers'"):
        sb.run(FLIP, [[[1]]], helpers="memory_helpers")


def test_syntax_error(sb):
    out = sb.run("def transform(grid)\n    return grid\n", [[[1]], [[2]]])
    assert [o.error for o in out] == ["syntax", "syntax"]
    assert "line 1" in out[0].message and "SyntaxError" in out[0].message


def test_syntax_error_in_module_names_the_module(sb):
    out = sb.run("from helpers import *\ndef transform(g):\n    return g\n", [[[1]]],
                 modules={"helpers": "def f(:\n"})
    assert out[0].error == "syntax" and "module helpers" in out[0].message


def test_exception_carries_program_traceback_only(sb):
    src = "def helper(g):\n    return g[0][99]\n\ndef transform(grid):\n    return helper(grid)\n"
    out = sb.run(src, [[[1]]])[0]
    assert out.error == "exception" and not out.ok and out.output is None
    assert "program line 5, in transform" in out.message
    assert "program line 2, in helper" in out.message
    assert "return g[0][99]" in out.message
    assert "IndexError" in out.message
    assert "arcmemo/sandbox" not in out.message and "File " not in out.message  # no harness frames


def test_exception_per_grid_others_still_run(sb):
    src = "def transform(grid):\n    if grid[0, 0] == 0:\n        raise ValueError('zero')\n    return grid\n"
    out = sb.run(src, [[[1]], [[0]], [[2]]])
    assert [o.ok for o in out] == [True, False, True]
    assert out[1].error == "exception" and "ValueError: zero" in out[1].message


def test_module_level_exception(sb):
    out = sb.run("import not_a_module_anywhere\ndef transform(g):\n    return g\n", [[[1]], [[1]]])
    assert [o.error for o in out] == ["exception", "exception"]
    assert "ModuleNotFoundError" in out[0].message


def test_missing_entry(sb):
    out = sb.run("def solve(grid):\n    return grid\n", [[[1]]])[0]
    assert out.error == "missing_entry" and "'transform'" in out.message and "solve" in out.message
    out = sb.run("transform = 3\n", [[[1]]])[0]
    assert out.error == "missing_entry"


@pytest.mark.parametrize("ret, fragment", [
    ("None", "NoneType"),
    ("[]", "empty"),
    ("[[1, 2], [3]]", "not rectangular"),
    ("[[10]]", "colour 0-9"),
    ("[[-1]]", "colour 0-9"),
    ("[[True]]", "colour 0-9"),
    ("[[1.5]]", "colour 0-9"),
    ("'12'", "str"),
    ("[[0] * 31]", "more than 30"),
    ("[[0]] * 31", "more than 30"),
    ("np.zeros((31, 2), dtype=int)", "31x2"),
    ("np.zeros((2, 2, 2), dtype=int)", "3 dimension"),
    ("np.array([[0.5]])", "non-integer"),
    ("np.array([['a']])", "dtype"),
    ("np.array([[True]])", "dtype bool"),
    ("np.full((2, 2), 12)", "value 12"),
    ("[[[1]]]", "colour 0-9"),
])
def test_invalid_outputs(sb, ret, fragment):
    src = f"import numpy as np\ndef transform(grid):\n    return {ret}\n"
    out = sb.run(src, [[[1]]])[0]
    assert out.error == "invalid_output", out
    assert fragment in out.message, out.message


def test_stdout_is_captured_and_bounded():
    with Sandbox(workers=1, timeout_s=2.0, max_stdout=100) as box:
        src = "print('loaded')\ndef transform(g):\n    print('x' * 5000)\n    return g\n"
        out = box.run(src, [[[1]], [[2]]])
        assert all(o.ok for o in out)
        assert out[0].stdout.startswith("loaded\nxxx")
        assert "more characters of output dropped" in out[0].stdout
        assert len(out[0].stdout) < 200
        assert out[1].stdout.startswith("xxx") and "loaded" not in out[1].stdout


def test_timeout_per_grid_keeps_earlier_results(sb):
    src = "def transform(g):\n    while g[0, 0] == 2:\n        pass\n    return g\n"
    t = time.monotonic()
    out = sb.run(src, [[[1]], [[2]], [[3]]], timeout_s=0.5)
    assert time.monotonic() - t < 3
    assert out[0].ok
    assert out[1].error == "timeout" and "0.5 s" in out[1].message
    assert out[2].error == "timeout" and "not run" in out[2].message


def test_run_on_pairs_compares_and_scores_cells(sb):
    pairs = [Pair(((1, 2),), ((2, 1),)), Pair(((3, 4),), ((4, 4),)), Pair(((5,),), ((5, 5),))]
    check = run_on_pairs(sb, "def transform(g):\n    return g[:, ::-1]\n", pairs)
    assert isinstance(check, PairsCheck)
    assert check.correct == [True, False, False]
    assert check.cell_accuracy == [1.0, 0.5, 0.0]
    assert not check.passed_all and check.first_failure == 1
    assert check.mean_accuracy == pytest.approx(0.5)
    ok = run_on_pairs(sb, "def transform(g):\n    return g\n", [{"input": [[1]], "output": [[1]]}, ([[2]], [[2]])])
    assert ok.passed_all and ok.mean_accuracy == 1.0 and ok.first_failure is None
    bad = run_on_pairs(sb, "def transform(g):\n    return 1/0\n", pairs[:1])
    assert bad.correct == [False] and bad.outcomes[0].error == "exception"


def test_bad_arguments_are_caller_errors(sb):
    with pytest.raises(ValueError, match="grid 1"):
        sb.run(FLIP, [[[1]], [[1, 2], [3]]])
    with pytest.raises(ValueError, match="entry"):
        sb.run(FLIP, [[[1]]], entry="not valid")
    with pytest.raises(ValueError, match="module name"):
        sb.run(FLIP, [[[1]]], modules={"bad name": ""})
    with pytest.raises(ValueError, match="module name"):
        sb.run(FLIP, [[[1]]], modules={"pkg.mod": ""})
    with pytest.raises(TypeError):
        sb.run(b"def transform(g): return g", [[[1]]])


def test_thread_safe_under_concurrent_calls(sb):
    src = "def transform(grid):\n    return grid + {k}\n"

    def one(k):
        return sb.run(src.format(k=k % 5), [[[k % 5]]])[0].output

    with ThreadPoolExecutor(8) as ex:
        results = list(ex.map(one, range(40)))
    assert results == [[[2 * (k % 5)]] for k in range(40)]


def test_worker_killed_while_idle_is_replaced():
    with Sandbox(workers=1, timeout_s=1.0) as box:
        assert box.run(FLIP, [[[1]]])[0].ok
        victim = box._idle[0]
        os.kill(victim.pid, 9)
        victim.proc.wait()
        assert box.run(FLIP, [[[1], [2]]])[0].output == [[2], [1]]
        assert box.replaced == 1


def test_worker_killed_during_run_reports_crash_and_pool_recovers():
    with Sandbox(workers=1, timeout_s=5.0) as box:
        box.warm()
        pid = box._idle[0].pid
        threading.Timer(0.3, os.kill, (pid, 9)).start()
        out = box.run("import time\ndef transform(g):\n    time.sleep(3)\n    return g\n", [[[1]], [[2]]])
        assert [o.error for o in out] == ["crash", "crash"]
        assert "worker died" in out[0].message
        assert box.run(FLIP, [[[1]]])[0].ok


def test_worker_that_cannot_start_is_a_sandbox_error_and_the_pool_recovers(monkeypatch):
    import sys

    from arcmemo.sandbox import SandboxError

    with Sandbox(workers=1) as box:
        monkeypatch.setattr(sys, "executable", "/bin/false")
        with pytest.raises(SandboxError, match="failed to start"):
            box.run(FLIP, [[[1]]])
        monkeypatch.undo()
        assert box.run(FLIP, [[[1], [2]]])[0].output == [[2], [1]]


def test_parent_with_many_open_descriptors():
    import resource

    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < 1300:
        pytest.skip("needs more than 1,300 open files")
    null = os.open(os.devnull, os.O_RDONLY)
    extra = [os.dup(null) for _ in range(1100)]  # the worker's pipes land above 1024
    try:
        with Sandbox(workers=1) as box:
            assert box.run(FLIP, [[[1], [2]]])[0].output == [[2], [1]]
            assert box._idle[0]._out > 1024
    finally:
        for fd in extra + [null]:
            os.close(fd)


def test_closed_sandbox_refuses_work():
    box = Sandbox(workers=1)
    box.close()
    with pytest.raises(RuntimeError, match="closed"):
        box.run(FLIP, [[[1]]])


def test_get_sandbox_is_shared_and_works():
    a, b = get_sandbox(), get_sandbox()
    assert a is b
    assert a.run(FLIP, [[[1], [2]]])[0].output == [[2], [1]]


def test_module_shadowing_numpy_does_not_break_the_harness(sb):
    out = sb.run("import numpy\ndef transform(g):\n    return [[numpy.x]]\n", [[[1]]],
                 modules={"numpy": "x = 4\n"})
    assert out[0].output == [[4]]


def test_sandbox_refuses_use_from_a_forked_process(sb):
    pid = os.fork()
    if pid == 0:
        try:
            sb.run(FLIP, [[[1]]])
        except RuntimeError as exc:
            os._exit(0 if "forking" in str(exc) else 2)
        os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0


def test_error_kinds_are_the_documented_set():
    assert set(ERROR_KINDS) == {"syntax", "exception", "timeout", "memory", "invalid_output", "crash",
                                "missing_entry"}
