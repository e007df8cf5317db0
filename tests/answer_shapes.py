"""A corpus of model-answer shapes: how each is read, run and scored under arcmemo's reading and
under the ArcMemo authors' released code's (arcmemo.solverkit.reading).

Every shape answers the same puzzle (TASK: each background cell becomes 1, every other 0).
`arcmemo` and `released` are the outcome expected under each reading: "right" (every train and
test output correct), "wrong" (every grid gave an output, not all correct), "error" (some grid
failed: an exception, a refused return, a timeout), "no code" (no program read) or, released only,
"crash" (the released scorer itself raised, which ends its run). The released
column is checked against the released code itself (tests/released_reference.py, and its
recorded verdicts in tests/data/released_answer_verdicts.json); where the two columns differ is
where the readings differ, and `why` says how.

A shape with `cut` is an answer that ended at the token limit (the call's finish reason "length"):
arcmemo's reading uses a complete `transform` in the block the cut left open; the released code
reads the text as it came (it never knew why an answer ended).
"""

from __future__ import annotations

from dataclasses import dataclass

# (input, output) pairs: the output marks the input's 0 cells with 1
TRAIN = [([[0, 1, 0], [2, 0, 3]], [[1, 0, 1], [0, 1, 0]]),
         ([[3, 0], [0, 0], [1, 2]], [[0, 1], [1, 1], [0, 0]])]
TEST = [([[0, 0, 5, 0], [7, 0, 0, 1]], [[1, 1, 0, 1], [0, 1, 1, 0]])]

RIGHT = "import numpy as np\n\n\ndef transform(grid):\n    return (np.array(grid) == 0).astype(int)\n"
WRONG = "import numpy as np\n\n\ndef transform(grid):\n    return np.array(grid).copy()\n"


def returning(expression: str, head: str = "import numpy as np\n\n\n") -> str:
    """A program whose transform returns `expression` of `out`, the right output as an int array."""
    return f"{head}def transform(grid):\n    out = (np.array(grid) == 0).astype(int)\n    return {expression}\n"


def fenced(code: str, fence: str = "```python", before: str = "Here is the program.\n\n",
           after: str = "\nIt marks the background.") -> str:
    return f"{before}{fence}\n{code.rstrip()}\n```{after}"


@dataclass(frozen=True)
class Shape:
    name: str
    answer: str
    arcmemo: str
    released: str
    why: str = ""
    cut: bool = False          # the answer ended at the token limit



TESTS_CUT = "# Check it on the first example\nprint(transform(np.array([[0, 1, 0], [2, 0"   # cut mid-line


SHAPES = [
    # -- which block -----------------------------------------------------------------------
    Shape("one python block", fenced(RIGHT), "right", "right"),
    Shape("first block right, last wrong",
          fenced(RIGHT) + "\n\nOn reflection, simpler:\n\n" + fenced(WRONG, before=""), "wrong", "right",
          "arcmemo reads the last block, the released code the first"),
    Shape("first block wrong, last right",
          fenced(WRONG) + "\n\nThat copies the grid; the fix:\n\n" + fenced(RIGHT, before=""), "right", "wrong",
          "arcmemo reads the last block, the released code the first"),
    Shape("plain ``` fence", fenced(RIGHT, "```"), "right", "right"),
    Shape("```py fence", fenced(RIGHT, "```py"), "right", "no code",
          "the released code opens a block only with ```python or ```"),
    Shape("```python3 fence", fenced(RIGHT, "```python3"), "no code", "no code"),
    Shape("```Python fence", fenced(RIGHT, "```Python"), "right", "no code",
          "arcmemo reads the language name in any case, the released code only ```python"),
    Shape("blank after the fence's name", fenced(RIGHT, "```python "), "right", "no code",
          "the released code's fence is ```python and a line break, nothing between"),
    Shape("```python wrong, then ```py right", fenced(WRONG) + "\n\n" + fenced(RIGHT, "```py", before=""),
          "right", "wrong", "arcmemo reads the last block (```py counts), the released code the ```python one"),
    Shape("example ``` block before the program",
          "The first output should be:\n\n```\n[[1, 0, 1], [0, 1, 0]]\n```\n\n" + fenced(RIGHT, before=""),
          "right", "right", "the released code prefers a ```python block to an earlier ``` one"),
    Shape("example ``` block only, then prose", "The output:\n\n```\n[[1, 0, 1], [0, 1, 0]]\n```\nDone.",
          "no code", "error", "arcmemo reads only a block defining a function, the released code any block"),
    Shape("no fence", "Here it is:\n\n" + RIGHT, "no code", "no code"),
    Shape("unclosed fence", "Here it is:\n\n```python\n" + RIGHT, "no code", "no code"),
    Shape("empty answer", "", "no code", "no code"),
    Shape("syntax error", fenced("def transform(grid)\n    return grid\n"), "error", "error"),
    # -- what transform may return -----------------------------------------------------------
    Shape("returns an int array", fenced(returning("out")), "right", "right"),
    Shape("returns a list of lists", fenced(returning("out.tolist()")), "right", "error",
          "the released code requires a numpy array (return type error)"),
    Shape("returns a tuple of tuples", fenced(returning("tuple(tuple(int(v) for v in row) for row in out)")),
          "right", "error", "the released code requires a numpy array"),
    Shape("returns a list of numpy ints", fenced(returning("[[np.int64(v) for v in row] for row in out]")),
          "right", "error", "the released code requires a numpy array"),
    Shape("returns a list of array rows", fenced(returning("[row for row in out]")), "right", "error",
          "the released code requires a numpy array"),
    Shape("returns None", fenced(returning("None")), "error", "error"),
    Shape("returns a whole-number float array", fenced(returning("out.astype(float)")), "right", "right"),
    Shape("returns a uint8 array", fenced(returning("out.astype(np.uint8)")), "right", "right"),
    Shape("returns a bool array", fenced(returning("out.astype(bool)")), "error", "right",
          "the released code compares True with 1; arcmemo refuses a bool array"),
    Shape("returns an object array", fenced(returning("np.array(out.tolist(), dtype=object)")), "error", "right",
          "the released code compares the objects; arcmemo refuses an object array"),
    Shape("returns a numpy matrix", fenced(returning("np.asmatrix(out)")), "error", "right",
          "a matrix is a numpy array to the released code; arcmemo takes only an array or lists"),
    Shape("returns fractions", fenced(returning("out * 0.5")), "error", "wrong",
          "the released code runs and compares it (never equal); arcmemo refuses it"),
    Shape("returns an empty array", fenced(returning("np.zeros((0, 0), dtype=int)")), "error", "wrong",
          "the released code compares it (never equal); arcmemo refuses it"),
    Shape("returns a ragged list", fenced(returning("[[1, 0, 1], [0]]")), "error", "crash",
          "the released driver makes an array of a returned list, which raises for a ragged one and ends "
          "its run; arcmemo scores it as a refused return"),
    Shape("returns a flat array", fenced(returning("out.ravel()")), "error", "error"),
    Shape("returns colours above 9", fenced(returning("out + 10")), "error", "error"),
    Shape("transform raises", fenced(returning("out[99, 99]")), "error", "error"),
    Shape("transform changes its input in place",
          fenced("def transform(grid):\n    grid[:] = (grid == 0)\n    return grid\n"), "right", "right"),
    Shape("numpy used without an import",
          fenced("def transform(grid):\n    return (np.asarray(grid) == 0).astype(int)\n"), "error", "right",
          "the released code's template imports numpy as np before the program"),
    # -- top-level code ------------------------------------------------------------------------
    Shape("top-level print of an example", fenced(RIGHT + "\n\nprint(transform(np.array([[0, 4]])))\n"),
          "right", "right"),
    Shape("print spanning lines", fenced(RIGHT + "\n\nprint(\n    transform(np.array([[0, 4]]))\n)\n"),
          "right", "right"),
    Shape("top-level assert that fails",
          fenced(RIGHT + "\n\nassert transform(np.array([[0]])).tolist() == [[0]], 'example'\n"), "right", "error",
          "the released code runs top-level code; arcmemo cuts it"),
    Shape("top-level loop over undefined examples",
          fenced(RIGHT + "\n\nfor example in examples:\n    print(transform(example))\n"), "right", "error",
          "the released code runs top-level code; arcmemo cuts it"),
    Shape("transform defined again, wrong", fenced(RIGHT + "\n\n" + WRONG.split("\n\n\n")[1]), "wrong", "wrong"),
    Shape("a global mutated after the function",
          fenced("import numpy as np\n\nMARK = {0: 1}\n\n\ndef transform(grid):\n"
                 "    return np.vectorize(lambda v: MARK.get(int(v), 0))(np.array(grid))\n\n\n"
                 "MARK.update({0: 2})\n"), "right", "wrong",
          "the released code runs the mutation; arcmemo cuts it"),
    Shape("state carried between calls",
          fenced("import numpy as np\n\nCALLS = []\n\n\ndef transform(grid):\n    CALLS.append(1)\n"
                 "    if len(CALLS) > 1:\n        return np.array(grid)\n"
                 "    return (np.array(grid) == 0).astype(int)\n"), "wrong", "right",
          "arcmemo runs every grid in one process, the released code each in a fresh one"),
    Shape("sys.exit at top level", fenced("import sys\n" + RIGHT + "\n\nsys.exit(0)\n"), "right", "error",
          "the released code refuses `import sys`; arcmemo cuts the call"),
    Shape("exit() at top level", fenced(RIGHT + "\n\nexit()\n"), "right", "error",
          "the released code's builtins have no exit; arcmemo cuts the call"),
    Shape("imports os", fenced("import os\n" + RIGHT), "right", "error",
          "the released code refuses to import os, sys, subprocess, multiprocessing and pathlib"),
    Shape("imports from the standard library",
          fenced("from collections import Counter\n" + RIGHT + "\n\nCOUNTS = Counter([1, 2])\n"), "right", "right"),
    Shape('an if __name__ == "__main__" block',
          fenced(RIGHT + '\n\nif __name__ == "__main__":\n    print(transform(np.array([[0, 1]])))\n'
                 "    raise SystemExit(1)\n"), "right", "right"),
    Shape("a helper defined after transform",
          fenced("import numpy as np\n\n\ndef transform(grid):\n    return mark(np.array(grid))\n\n\n"
                 "def mark(a):\n    return (a == 0).astype(int)\n"), "right", "right"),
    Shape("main instead of transform",
          fenced("import numpy as np\n\n\ndef main(grid):\n    return (np.array(grid) == 0).astype(int)\n"),
          "error", "error"),
    Shape("a harness that sets input_grid",
          fenced(RIGHT + "\n\ninput_grid = np.array([[5, 5], [5, 5]])\nresult = transform(input_grid)\n"),
          "right", "wrong", "the released code calls transform(input_grid) after the program: on the harness's grid"),
    Shape("a top-level loop that never ends", fenced(RIGHT + "\n\nwhile True:\n    pass\n"), "right", "error",
          "the released code runs top-level code (and times out); arcmemo cuts it"),
    # -- answers cut at the token limit ----------------------------------------------------------
    Shape("cut in the test prints after transform", "Here is the program.\n\n```python\n" + RIGHT + "\n\n" + TESTS_CUT,
          "right", "no code", "arcmemo reads a complete transform in the block the cut left open; the released "
          "code finds no closed block", cut=True),
    Shape("cut after transform, in a helper it calls",
          "```python\nimport numpy as np\n\n\ndef transform(grid):\n    return mark(np.array(grid))\n\n\n"
          "def mark(a):\n    return (a ==", "error", "no code",
          "arcmemo keeps transform, not the helper the cut was writing (the call fails); the released code finds "
          "no closed block", cut=True),
    Shape("cut inside transform", "```python\nimport numpy as np\n\n\ndef transform(grid):\n    out = (np.array(grid)",
          "no code", "no code", cut=True),
    Shape("cut right after transform's last line", "Here it is:\n\n```python\n" + RIGHT, "no code", "no code",
          cut=True),
    Shape("cut after a wrong closed block, in the right one's prints",
          fenced(WRONG) + "\n\nThat copies the grid; the fix:\n\n```python\n" + RIGHT + "\n\n" + TESTS_CUT,
          "right", "wrong", "arcmemo reads the last block, here the one the cut left open; the released code the "
          "first", cut=True),
    Shape("cut in the prose after a closed block", fenced(RIGHT) + "\n\nThis works because every 0 bec",
          "right", "right", cut=True),
    Shape("cut in a ```py block's prints", "```py\n" + RIGHT + "\n\n" + TESTS_CUT, "right", "no code",
          "arcmemo reads ```py, and a complete transform in the block the cut left open", cut=True),
    Shape("cut in a harness that calls transform",
          "```python\n" + RIGHT + "\n\ninput_grid = np.array([[5, 5]])\nresult = transform(input_gr", "right",
          "no code", "arcmemo cuts the harness as in any block; the released code finds no closed block", cut=True),
]
