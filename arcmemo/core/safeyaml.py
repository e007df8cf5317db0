"""YAML in, for text nobody vouches for: model answers, imported files, annotations, edits.

`load` is PyYAML's safe loader (libyaml's C parser when installed) with three changes:

- scalars that look like dates or times stay strings (`2024-13-45` would otherwise be
  a ValueError from the datetime constructor, and a valid date a datetime object that
  no concept field can hold);
- an integer longer than `MAX_INT_DIGITS` digits is an error, not a multi-second parse
  (Python refuses to convert more than 4,300 digits anyway);
- aliases (`*name`) are refused: no concept or answer needs them, and an alias bomb
  turns a kilobyte of text into a structure that takes minutes to walk or print;
- nesting deeper than `MAX_DEPTH` is an error, found by a pass over the parser's events
  before anything is built: libyaml's composer recurses in C, and about 25,000 nested
  `[` crash the interpreter (a segmentation fault, not an exception).

Every failure is a `YAMLError` whose message names the line when the parser knows it.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_INT_DIGITS = 100
MAX_DEPTH = 100

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
YAMLError = yaml.YAMLError


class SafeLoader(_Base):  # type: ignore[misc, valid-type]
    """The safe loader without timestamps, huge integers or aliases."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in _Base.yaml_implicit_resolvers.items()
    }

    def construct_object(self, node, deep=False):
        if node in self.constructed_objects or node in self.recursive_objects:
            raise yaml.constructor.ConstructorError(
                None, None, "aliases (*name) are not allowed here", node.start_mark)
        return super().construct_object(node, deep=deep)

    def construct_yaml_int(self, node):
        digits = str(node.value).lstrip("+-").replace("_", "")
        if len(digits) > MAX_INT_DIGITS:
            raise yaml.constructor.ConstructorError(
                None, None, f"an integer of {len(digits)} digits is too long (at most {MAX_INT_DIGITS})",
                node.start_mark)
        return super().construct_yaml_int(node)


SafeLoader.add_constructor("tag:yaml.org,2002:int", SafeLoader.construct_yaml_int)


def _check_depth(text: str) -> None:
    depth = 0
    for event in yaml.parse(text, Loader=SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise yaml.composer.ComposerError(
                    None, None, f"nested more than {MAX_DEPTH} levels deep", event.start_mark)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def load(text: str) -> Any:
    """One YAML document from `text` (see the module docstring for what is refused)."""
    _check_depth(text)
    return yaml.load(text, Loader=SafeLoader)


def compose(text: str) -> yaml.Node | None:
    """The node tree of one document, for finding the line a value came from."""
    _check_depth(text)
    return yaml.compose(text, Loader=SafeLoader)


def describe(exc: yaml.YAMLError) -> str:
    """A YAML error as one line: the problem and, when known, its line (1-based)."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"line {mark.line + 1}: {problem}" if mark is not None else problem


__all__ = ["load", "compose", "describe", "SafeLoader", "DUMPER", "YAMLError", "MAX_INT_DIGITS", "MAX_DEPTH"]
