"""YAML through PyYAML: in, for text nobody vouches for (model answers, imported files,
annotations, edits), and out, in the one style arcmemo writes (`dump`).

`load` is PyYAML's safe loader (libyaml's C parser when installed) with these changes:

- scalars that look like dates or times stay strings (`2024-13-45` would otherwise be
  a ValueError from the datetime constructor, and a valid date a datetime object that
  no concept field can hold);
- an integer longer than `MAX_INT_DIGITS` digits is an error, not a multi-second parse
  (Python refuses to convert more than 4,300 digits anyway);
- aliases (`*name`) are refused: no concept or answer needs them, and an alias bomb
  turns a kilobyte of text into a structure that takes minutes to walk or print;
- nesting deeper than `MAX_DEPTH` is an error (libyaml's composer recurses in C: about
  25,000 nested `[` crash the interpreter), and so is any tag beyond plain data (null,
  bool, int, float, str, list, mapping: no `!!timestamp`, `!!binary`, `!!set`, `<<`);
- a key given twice in one mapping is an error (PyYAML keeps the last and drops the first
  without a word: a concept's field, or a setting, would silently be lost).

`load` builds the data straight from libyaml's event stream in one pass, with no node
tree and no recursion: several times faster than PyYAML's compose-then-construct, which
matters for a memory file of thousands of concepts.

Every failure is a `YAMLError` whose message names the line when the parser knows it. A
problem found at the end of the stream (an unclosed `[` or quote) is marked on the last line
that has text, where the parser would put it after the file's last line break (`_in_text`).

`dump` writes block YAML with PyYAML's safe dumper (libyaml's emitter when installed): keys in
their order, text with a newline as a `|` block, never an alias. It feeds the emitter events
straight from the data, the ones PyYAML's own serializer would send for `Dumper`'s nodes, so
the bytes are `yaml.dump(data, Dumper=Dumper, **STYLE)`'s without building a node tree first;
a sequence given as an iterator is written as it is consumed (an export streams its concepts).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any, TextIO, overload

import yaml

MAX_INT_DIGITS = 100
MAX_DEPTH = 100

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
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


_STR = "tag:yaml.org,2002:str"
_PLAIN_SCALARS = {f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float")}
_COLLECTIONS = {yaml.MappingStartEvent: (dict, (None, "!", "tag:yaml.org,2002:map")),
                yaml.SequenceStartEvent: (list, (None, "!", "tag:yaml.org,2002:seq"))}
_ENDS = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _refuse(problem: str, event) -> yaml.constructor.ConstructorError:
    return yaml.constructor.ConstructorError(None, None, problem, event.start_mark)


def _plain_tag(value: str, resolvers: dict = SafeLoader.yaml_implicit_resolvers) -> str:
    """The tag a plain scalar resolves to (the resolver's own table, without its per-call overhead)."""
    for tag, regexp in resolvers.get(value[:1], ()):
        if regexp.match(value):
            return tag
    return _STR


def _scalar(loader: SafeLoader, event) -> Any:
    tag = event.tag
    if tag is None or tag == "!":
        if not event.implicit[0]:  # quoted or block: text
            return event.value
        tag = _plain_tag(event.value)
    if tag == _STR:
        return event.value
    if tag not in _PLAIN_SCALARS:
        raise _refuse(f"the tag {tag} is not allowed here (plain data only)", event)
    return loader.yaml_constructors[tag](loader, yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark))


def load(text: str) -> Any:
    """One YAML document from `text` (see the module docstring for what is refused)."""
    loader = SafeLoader(text)
    try:
        stack: list[list] = []      # per open collection: [container, key, key seen]
        root, documents = None, 0
        while True:
            event = loader.get_event()
            kind = type(event)
            if kind is yaml.ScalarEvent:
                value = _scalar(loader, event)
            elif kind in _COLLECTIONS:
                make, tags = _COLLECTIONS[kind]
                if event.tag not in tags:
                    raise _refuse(f"the tag {event.tag} is not allowed here (plain data only)", event)
                if len(stack) >= MAX_DEPTH:
                    raise _refuse(f"nested more than {MAX_DEPTH} levels deep", event)
                stack.append([make(), None, False])
                continue
            elif kind in _ENDS:
                value = stack.pop()[0]
            elif kind is yaml.AliasEvent:
                raise _refuse("aliases (*name) are not allowed here", event)
            elif kind is yaml.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise yaml.composer.ComposerError(None, None, "expected a single document, found another",
                                                      event.start_mark)
                continue
            elif kind is yaml.StreamEndEvent:
                return root
            else:
                continue
            if not stack:
                root = value
                continue
            top = stack[-1]
            if type(top[0]) is list:
                top[0].append(value)
            elif top[2]:
                top[0][top[1]] = value
                top[2] = False
            else:
                try:
                    hash(value)
                except TypeError:
                    raise _refuse("a mapping key must be plain text or a number, not a list or mapping",
                                  event) from None
                if value in top[0]:      # the first would be dropped without a word
                    raise _refuse(f"the key {value!r} is given twice in one mapping", event)
                top[1], top[2] = value, True
    except yaml.MarkedYAMLError as exc:
        raise _in_text(exc, text) from None
    finally:
        loader.dispose()


def _in_text(exc: yaml.MarkedYAMLError, text: str) -> yaml.MarkedYAMLError:
    """`exc` with its problem marked within the text: the parser marks a problem it meets at the
    end of the stream after the last line break, a line below the last line of the text (so an
    unclosed `[` on line 1 of a one-line file was "line 2"); it goes on the last line with text."""
    mark = exc.problem_mark
    last = text.rstrip().count("\n")
    if mark is not None and mark.line > last:
        line = text.rstrip().rsplit("\n", 1)[-1]
        exc.problem_mark = yaml.Mark(mark.name, mark.index, last, len(line), None, None)
    return exc


def _check_depth(text: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH before libyaml's recursive composer sees it."""
    depth = 0
    for event in yaml.parse(text, Loader=SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise _refuse(f"nested more than {MAX_DEPTH} levels deep", event)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def compose(text: str) -> yaml.Node | None:
    """The node tree of one document, for finding the line a value came from."""
    try:
        _check_depth(text)
        return yaml.compose(text, Loader=SafeLoader)
    except yaml.MarkedYAMLError as exc:
        raise _in_text(exc, text) from None


def describe(exc: yaml.YAMLError) -> str:
    """A YAML error as one line: the problem and, when known, its line (1-based)."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"line {mark.line + 1}: {problem}" if mark is not None else problem


# -- out ------------------------------------------------------------------------------------------

_SEQ, _MAP = "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
STYLE = {"allow_unicode": True, "width": 100, "default_flow_style": False, "sort_keys": False}


def _text_style(text: str) -> str | None:
    return "|" if "\n" in text else None


class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """PyYAML's safe dumper (libyaml's when installed) with arcmemo's rules: text with a newline
    as a `|` block; a value given twice is written twice, never as an alias."""

    def ignore_aliases(self, data):
        return True


Dumper.add_representer(str, lambda dumper, text: dumper.represent_scalar(_STR, text, style=_text_style(text)))
_WRITTEN_RESOLVERS = Dumper.yaml_implicit_resolvers    # with timestamps: a date-like text is quoted
_SCALARS = (type(None), bool, int, float)


@overload
def dump(data: Any, stream: None = None) -> str: ...


@overload
def dump(data: Any, stream: TextIO) -> None: ...


def dump(data: Any, stream: TextIO | None = None) -> str | None:
    """`data` (text, numbers, booleans, None, lists, iterators, mappings) as one block YAML
    document: into `stream` as it is written, or returned as text without one."""
    out = io.StringIO() if stream is None else stream
    dumper = Dumper(out, **STYLE)
    emit = dumper.emit
    ScalarEvent, MappingStartEvent, MappingEndEvent = yaml.ScalarEvent, yaml.MappingStartEvent, yaml.MappingEndEvent
    SequenceStartEvent, SequenceEndEvent = yaml.SequenceStartEvent, yaml.SequenceEndEvent
    key_events: dict[str, yaml.ScalarEvent] = {}     # a mapping's text keys repeat: one event each

    def text(value: str) -> yaml.ScalarEvent:
        return ScalarEvent(None, _STR, (_plain_tag(value, _WRITTEN_RESOLVERS) == _STR, True), value,
                           style=_text_style(value))

    # What Serializer.serialize_node sends for Dumper's node of `value`.
    def write(value: Any) -> None:
        kind = type(value)
        if kind is str:
            emit(text(value))
        elif kind is dict:
            emit(MappingStartEvent(None, _MAP, True, flow_style=False))
            for key, item in value.items():
                if type(key) is str:
                    event = key_events.get(key)
                    emit(event if event is not None else key_events.setdefault(key, text(key)))
                else:
                    write(key)
                write(item)
            emit(MappingEndEvent())
        elif kind is list or isinstance(value, Iterator):
            emit(SequenceStartEvent(None, _SEQ, True, flow_style=False))
            for item in value:
                write(item)
            emit(SequenceEndEvent())
        elif kind in _SCALARS:          # PyYAML's own text for them (null, true, 1.0e+20, .nan)
            node = dumper.represent_data(value)
            emit(ScalarEvent(None, node.tag, (_plain_tag(node.value, _WRITTEN_RESOLVERS) == node.tag,
                                              node.tag == _STR), node.value))
        else:
            raise TypeError(f"YAML out takes text, numbers, booleans, None, lists and mappings, "
                            f"not a {kind.__name__}: {value!r:.80}")

    try:
        dumper.open()
        emit(yaml.DocumentStartEvent(explicit=False))
        write(data)
        emit(yaml.DocumentEndEvent(explicit=False))
        dumper.close()
    finally:
        dumper.dispose()
    return out.getvalue() if stream is None else None


__all__ = ["load", "compose", "describe", "dump", "Dumper", "STYLE", "SafeLoader", "YAMLError", "MAX_INT_DIGITS",
           "MAX_DEPTH"]
