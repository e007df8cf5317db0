"""Seeded corpora of malformed model answers, one per parse step (tests/test_malformed_answers.py).

Each corpus holds the junk every parser must survive (empty, prose, binary-ish, huge,
lone surrogates, control and bidi characters, invalid YAML dates, integers of over 4,300
digits, alias bombs, deep nesting, unclosed fences and tags, tens of thousands of names)
and mutations of a valid answer for that step: wrong types at random places of its
structure, truncated, junk inserted, parts repeated, tags and fences dropped.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable
from typing import Any

import yaml

BIG_INT = "9" * 5000                 # Python refuses to convert more than 4,300 digits
SURROGATE = "\ud800"
MAX_GENERATED = 250_000             # generated answers stay a little past the longest answer read


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    """The billion-laughs shape: each level refers `width` times to the one before."""
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        refs = ", ".join([f"*a{i - 1}"] * width)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + f"\nbomb: *a{levels - 1}\n"


TOKENS = [SURROGATE, "\udfff", "\x00", "\u202e", "\u2066", "\x1b[31m", "\r", "\t", "\ufeff", "```", "```yaml",
          "<summary>", "</pseudocode>", "&a", "*a", ": ", "- ", "{", "}", "[", "]", "'", '"', "\\", "# ", "2024-13-45",
          BIG_INT, "!!python/object/apply:os.system ['ls']", "!!binary aGVsbG8=", "!!set {a}", "? [a]\n: b",
          ".nan", "-.inf", "null", "~", "yes", "0x" + "f" * 300, "\\ud800", "\\0", "\u0000\u0001\u0002", "\n" * 50]


def _text(rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return rng.choice(TOKENS)
    if kind == 1:   # any code point, lone surrogates included
        return "".join(chr(rng.randrange(0x110000)) for _ in range(rng.randrange(1, 40)))
    if kind == 2:
        return rng.choice(TOKENS) * rng.randrange(2, 300)
    return rng.randbytes(rng.randrange(1, 200)).decode("utf-8", "surrogateescape")


def junk_value(rng: random.Random, depth: int = 0) -> Any:
    """A value of a random type: scalars of every kind, junk text, nested lists and mappings."""
    kind = rng.randrange(11 if depth < 3 else 7)
    if kind == 0:
        return rng.choice([0, -1, 2 ** 70, 10 ** 200])
    if kind == 1:
        return rng.choice([1.5, float("inf"), float("nan")])
    if kind == 2:
        return rng.choice([True, False])
    if kind == 3:
        return None
    if kind == 4:
        return rng.choice(["", " ", "2024-13-45", "2024-01-02", "12:30:00"])
    if kind in (5, 6):
        return _text(rng)
    if kind == 7:
        return [junk_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if kind == 8:
        return {rng.choice(["name", "kind", "x", 3, None, True]): junk_value(rng, depth + 1)
                for _ in range(rng.randrange(0, 4))}
    if kind == 9:
        value: Any = "deep"
        for _ in range(rng.randrange(5, 60)):
            value = [value]
        return value
    return "x" * rng.choice([300, 20_000])


def _paths(value: Any, here: tuple = ()) -> list[tuple]:
    found = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, here + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, here + (i,))
    return found


def replace_at(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = replace_at(value[path[0]], path[1:], new)
    return copy


def wrong_types(rng: random.Random, valid: Any) -> Any:
    """`valid` with one to three nodes (the root included) replaced by junk values."""
    value = valid
    for _ in range(rng.randrange(1, 4)):
        value = replace_at(value, rng.choice(_paths(value)), junk_value(rng))
    return value


def yaml_answer(value: Any, rng: random.Random) -> str:
    options = dict(allow_unicode=rng.random() < 0.5, sort_keys=False, width=rng.choice([80, 10 ** 6]))
    try:
        body = yaml.dump(value, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), **options)
    except UnicodeEncodeError:      # libyaml cannot write a lone surrogate; PyYAML escapes it
        body = yaml.safe_dump(value, **options)
    return f"Here is my answer.\n```yaml\n{body}```\n"


def json_answer(value: Any, rng: random.Random) -> str:
    return json.dumps(value, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2]), default=str)


def mutate_text(rng: random.Random, text: str) -> str:
    """One textual mutation of an answer."""
    kind = rng.randrange(7)
    if kind == 0 and text:                                        # truncated anywhere
        return text[:rng.randrange(len(text))]
    if kind == 1:                                                 # junk inserted
        for _ in range(rng.randrange(1, 6)):
            at = rng.randrange(len(text) + 1)
            text = text[:at] + _text(rng) + text[at:]
        return text
    if kind == 2:                                                 # closing fence or tag dropped
        for closer in ("```", "</"):
            at = text.rfind(closer)
            if at >= 0:
                return text[:at] + text[at + len(closer):]
        return text
    if kind == 3 and text:                                        # a part repeated, up to huge
        a = rng.randrange(len(text))
        b = rng.randrange(a, len(text)) + 1
        # a few times, to about 20,000 characters, or past the longest answer read (refused unread)
        times = rng.choice([2, 20_000 // (b - a) + 1, 210_000 // (b - a) + 1])
        return text[:b] + text[a:b] * times + text[b:]
    if kind == 4 and text:                                        # lines shuffled or one dropped
        lines = text.splitlines()
        if rng.random() < 0.5:
            rng.shuffle(lines)
        else:
            del lines[rng.randrange(len(lines))]
        return "\n".join(lines)
    if kind == 5:
        return text.swapcase()
    return _text(rng) + text + _text(rng)


@functools.cache
def fixed_junk() -> tuple[str, ...]:
    """The reported crashers and the generic junk every parser meets."""
    names = "".join(f"- concept number {i}\n" for i in range(50_000))
    return (
        "", " ", "\n\n\n", "I am not sure what the answer is.", "```", "```yaml", "```yaml\n", "```yaml\n- a",
        "```yaml\n```", "```yaml\n- 2024-13-45\n```", "- 2024-13-45\n", f"```yaml\n- {BIG_INT}\n```",
        f"- {BIG_INT}\n", f"```yaml\n- name{SURROGATE}\n```", SURROGATE * 10, "\x00" * 100, "\u202e" * 10 + "abc",
        f"```yaml\n{alias_bomb()}```", alias_bomb(), "```yaml\n" + "[" * 50_000 + "\n```", "[" * 30_000,
        "{" * 50_000, '{"a": ' * 30_000, "- " * 30_000 + "a", "<" * 150_000, "```" * 70_000, "```" + " " * 150_000,
        "```\n" * 40_000, "a" * 250_000, f"```yaml\n{names}```",
        "<pseudocode>\n" + "step\n" * 50_000 + "</pseudocode>\n<summary>s</summary>",
        "<summary>" * 15_000, "</summary>" * 15_000, "<derivation><derivation></derivation>",
        "```python\n" + "(" * 50_000 + "\n```", "```python\ndef transform(grid):\n" + "    x = (" * 5_000 + "\n```",
        "```yaml\n? [a, b]\n: c\n```", "```yaml\n!!python/object/apply:os.system ['ls']\n```",
        "```yaml\n- !!binary aGVsbG8=\n- !!set {a, b}\n```", "```yaml\n- \"\\ud800\\u202e\\0\"\n```",
        "```yaml\n- name: " + "x" * 150_000 + "\n```",
        '{"program": "def transform(grid):\\n    return \\"\\ud800\\"\\n"}',
    )


def common_junk(rng: random.Random, n_random: int = 30) -> list[str]:
    """The fixed junk, and `n_random` strings of random code points, bytes or tokens."""
    randoms = [(_text(rng) * rng.choice([1, 1, 100]))[:MAX_GENERATED] for _ in range(n_random)]
    return list(fixed_junk()) + randoms


def corpus(seed: int, *, valid_value: Any = None, render: Callable[[Any, random.Random], str] | None = None,
           valid_texts: tuple[str, ...] = (), size: int = 200) -> list[str]:
    """`size` malformed answers: the common junk, then structural mutations of `valid_value`
    rendered with `render` (when given) and textual mutations of `valid_texts`."""
    rng = random.Random(seed)
    answers = common_junk(rng)
    texts = list(valid_texts) + ([render(valid_value, rng)] if render else [])
    while len(answers) < size:
        if render and rng.random() < 0.5:
            answers.append(render(wrong_types(rng, valid_value), rng))
        else:
            text = rng.choice(texts)
            for _ in range(rng.randrange(1, 3)):
                text = mutate_text(rng, text)[:MAX_GENERATED]
            answers.append(text)
    return answers
