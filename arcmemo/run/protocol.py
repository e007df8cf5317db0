"""A run's protocol: the choices where arcmemo's clean protocol and the ArcMemo authors'
released code (github matt-seb-ho/arc_memo) behave differently, as one value.

A protocol is resolved once, when a run starts, from a named profile (`--protocol NAME`,
or `protocol:` in a run configuration) and the per-choice flags, and written to the run's
`config.json` under `"protocol"` with every choice and whether the run is *test-informed*.
A resumed run keeps the protocol it recorded.

The choices (first value: arcmemo's, the profile `arcmemo`; second: the released code's,
the profile `released-code`):

- `retry_when` train-fails | test-fails: what makes a thread retry. The released code
  compares its configured criterion (a string) with an enum, so its "train" never applies
  and a thread retries while its *test* outputs are wrong.
- `select_once` false | true: PS/OE selection made once per puzzle and shared by its
  threads, instead of once per thread.
- `selector_view` full | collapsed: what the PS select model reads: every concept with
  every field, or the released rendering (concepts used in two or more puzzles in full
  without parameter descriptions, the others by name, per section).
- `hint_form` arcmemo | released: the solver's PS hint: the selected concepts with the
  custom types they need and one flat list of the other names, or every custom type and
  the other concepts' names grouped by section.
- `oe_caption` per-thread | per-puzzle: the OE caption made in every thread from one
  picture per pair, or once per puzzle from one picture of the whole puzzle.
- `continual_order` task | pass: a task's retries inside its block of k, or each retry
  depth a full pass over the puzzles, memory written every k puzzles within each pass.
- `write_when` train | strict: what a continual run writes: programs that passed every
  train pair, or only those also correct on every test input.
- `feedback` conversation | last-attempt: a retry continues the conversation with at most
  two diffs, or shows the opening prompt with the last attempt and every mismatched output.
- `strict_variant` test-any-step | train-test-last-step: which strict score the run
  headlines (both are computed): one step solving every test input, or a thread's last
  step correct on every train and test pair.
- `grid_text` digits | numpy: how prompts show grids (the prompt renderer's setting;
  a protocol only passes the choice through).
- `answer_reading` arcmemo | released: how a model answer becomes a program and its output
  a grid (arcmemo.solverkit.reading): the last python block, top-level test code cut, a
  list of lists accepted; or the released code's reading: the first python block, its
  top-level code run with the program, only a numpy array accepted.
- the cheatsheet curator's completion limit and temperature (none: the model's defaults;
  the released code: 4,096 tokens at 0.3).

**Test-informed** is derived, never set: a run in which a test output can decide something
is test-informed, and the record names the choices that let it (`test_informed_by`):
`retry_when=test-fails` (test results trigger retries) and, in a run with `--continual`
(one that writes), `write_when=strict` (test correctness filters the writes). No other
choice lets a test output decide anything: pass order continues the threads the retry rule
keeps going, and the rest shape prompts, feedback from train pairs, or what is reported.
Every view reads the mark through `test_informed(config)` and its reasons through
`test_informed_by(config)`; a run recorded before protocols existed is not test-informed.

**Flags and profiles.** A per-choice flag overrides its profile's choice, and the run's
protocol is then named after both: `released-code+retry_when=train-fails`. A choice that
cannot apply to the run as set up is refused before anything is made (`check`): a
continual-only choice given without `--continual`, a selection-specific one given with
another selection, pass order with `--passes`, test-triggered retries in a run without
test outputs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arcmemo.core.errors import ArcmemoError

PROTOCOL_KEY = "protocol"
DEFAULT_PROTOCOL = "arcmemo"

# choice -> its values, arcmemo's first, the released code's second
CHOICES: dict[str, tuple[Any, ...]] = {
    "retry_when": ("train-fails", "test-fails"),
    "select_once": (False, True),
    "selector_view": ("full", "collapsed"),
    "hint_form": ("arcmemo", "released"),
    "oe_caption": ("per-thread", "per-puzzle"),
    "continual_order": ("task", "pass"),
    "write_when": ("train", "strict"),
    "feedback": ("conversation", "last-attempt"),
    "strict_variant": ("test-any-step", "train-test-last-step"),
    "grid_text": ("digits", "numpy"),
    "answer_reading": ("arcmemo", "released"),
}
CONTINUAL_ONLY = ("continual_order", "write_when")
READ_CHOICES = ("selector_view", "hint_form", "oe_caption")     # followed by the methods that declare them
# the choices by which a test output can decide something (Protocol.test_informed_by), and what it decides
TEST_DECIDES = {"retry_when=test-fails": "which attempts were retried",
                "write_when=strict": "which solutions were written to memory"}


_DERIVED = ("test_informed", "test_informed_by")     # what a record holds beside the choices


class ProtocolError(ArcmemoError, ValueError):
    """A protocol that cannot be run: an unknown name or value, or a choice the run cannot apply."""


@dataclass(frozen=True)
class Protocol:
    """One run's choices (module docstring); the defaults are arcmemo's clean protocol."""

    name: str = DEFAULT_PROTOCOL
    retry_when: str = "train-fails"
    select_once: bool = False
    selector_view: str = "full"
    hint_form: str = "arcmemo"
    oe_caption: str = "per-thread"
    continual_order: str = "task"
    write_when: str = "train"
    feedback: str = "conversation"
    strict_variant: str = "test-any-step"
    grid_text: str = "digits"
    answer_reading: str = "arcmemo"
    cheatsheet_max_tokens: int | None = None      # the curator's completion limit (None: the model's)
    cheatsheet_temperature: float | None = None   # the curator's temperature (None: the model's)

    def __post_init__(self) -> None:
        for choice, values in CHOICES.items():
            if getattr(self, choice) not in values:
                raise ProtocolError(f"protocol choice {choice}: {getattr(self, choice)!r} is not one of "
                                    f"{', '.join(_spell(v) for v in values)}")

    def test_informed_by(self, *, continual: bool) -> list[str]:
        """The choices by which a test output can decide something in a run of this protocol
        (module docstring), as `choice=value`; empty: the run is not test-informed. Writes happen
        only in a run with `continual`, so only there does a write filter count."""
        deciding = []
        if self.retry_when == "test-fails":
            deciding.append("retry_when=test-fails")
        if continual and self.write_when == "strict":
            deciding.append("write_when=strict")
        return deciding

    @property
    def base(self) -> str:
        """The profile this protocol was resolved from."""
        return self.name.split("+", 1)[0]

    def overridden(self) -> list[str]:
        """The choices set apart from the profile (by a flag or a configuration key)."""
        profile = PROFILES.get(self.base, PROFILES[DEFAULT_PROTOCOL])
        return [c for c in CHOICES if getattr(self, c) != getattr(profile, c)]

    def record(self, *, continual: bool) -> dict[str, Any]:
        """What config.json keeps under "protocol": the choices, and whether (and by which
        choices) a test output can decide something in the run (`continual`: does it write)."""
        deciding = self.test_informed_by(continual=continual)
        return {**dataclasses.asdict(self), "test_informed": bool(deciding), "test_informed_by": deciding}

    def curation_params(self) -> dict[str, Any]:
        """The cheatsheet curator's call parameters this protocol sets."""
        params = {"max_tokens": self.cheatsheet_max_tokens, "temperature": self.cheatsheet_temperature}
        return {k: v for k, v in params.items() if v is not None}


PROFILES: dict[str, Protocol] = {
    "arcmemo": Protocol(),
    "released-code": Protocol(
        name="released-code", retry_when="test-fails", select_once=True, selector_view="collapsed",
        hint_form="released", oe_caption="per-puzzle", continual_order="pass", write_when="strict",
        feedback="last-attempt", strict_variant="train-test-last-step", grid_text="numpy",
        answer_reading="released", cheatsheet_max_tokens=4096, cheatsheet_temperature=0.3),
}


def _spell(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def resolve(name: str | None = None, overrides: Mapping[str, Any] | None = None) -> Protocol:
    """The protocol of profile `name` (None: arcmemo) with `overrides` (choice -> value; None
    values are choices not given) applied; its name lists what differs from the profile."""
    name = name or DEFAULT_PROTOCOL
    profile = PROFILES.get(name)
    if profile is None:
        raise ProtocolError(f"unknown protocol {name!r} (known: {', '.join(PROFILES)})")
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    unknown = sorted(set(given) - set(CHOICES))
    if unknown:
        raise ProtocolError(f"unknown protocol choice {unknown[0]!r} (choices: {', '.join(CHOICES)})")
    changed = {c: given[c] for c in CHOICES if c in given and given[c] != getattr(profile, c)}
    label = name + ("+" + ",".join(f"{c}={_spell(v)}" for c, v in changed.items()) if changed else "")
    return dataclasses.replace(profile, name=label, **changed)


def from_record(data: Mapping[str, Any] | str | None) -> Protocol:
    """A protocol as a run recorded it (config.json), or as a configuration names it: a profile
    name, or a mapping of `name` and choices (a sweep's `protocol: {name: ..., retry_when: ...}`).
    None (a run from before protocols): arcmemo."""
    if data is None:
        return Protocol()
    if isinstance(data, Protocol):
        return data
    if isinstance(data, str):
        return resolve(data)
    if not isinstance(data, Mapping):
        raise ProtocolError(f"a protocol is a name or a mapping of choices, not {type(data).__name__}")
    name = str(data.get("name") or DEFAULT_PROTOCOL)
    fields = {f.name for f in dataclasses.fields(Protocol)}
    unknown = sorted(set(data) - fields - set(_DERIVED))
    if unknown:
        raise ProtocolError(f"unknown protocol choice {unknown[0]!r} (choices: {', '.join(CHOICES)})")
    if "+" in name or "test_informed" in data or all(c in data for c in CHOICES):
        # a recorded protocol: kept as it was; a choice made after it was recorded is arcmemo's,
        # which is what that run did (its code had no other)
        return Protocol(**{k: v for k, v in data.items() if k in fields})
    return resolve(name, {c: data[c] for c in CHOICES if c in data})


def check(protocol: Protocol, *, continual: bool, passes: int, method: Any, scored: bool) -> None:
    """ProtocolError for a choice this run cannot apply (module docstring), naming the choice. A
    read choice applies to the memory methods that declare it (`protocol_choices`)."""
    given = set(protocol.overridden())
    for choice in CONTINUAL_ONLY:
        if choice in given and not continual:
            raise ProtocolError(f"{_flag(choice, protocol)} applies only to a run with --continual")
    for choice in READ_CHOICES:
        if choice in given and choice not in method.protocol_choices:
            raise ProtocolError(f"{_flag(choice, protocol)} is not followed by --method {method.name} (it is by "
                                f"{_followed_by(choice)})")
    if continual and protocol.continual_order == "pass" and passes > 1:
        raise ProtocolError(f"continual_order=pass (protocol {protocol.name}) runs each retry depth as a pass "
                            f"of its own: leave out --passes {passes}")
    if protocol.retry_when == "test-fails" and not scored:
        raise ProtocolError(f"retry_when=test-fails (protocol {protocol.name}) decides retries from test "
                            "outputs, which this run does not have (--no-score, or tasks without solutions)")


def _followed_by(choice: str) -> str:
    """The installed methods that follow a read choice, for the message that refuses it."""
    from arcmemo.methods.discovery import load_method, method_names

    names = []
    for name in method_names():
        try:
            if choice in load_method(name).protocol_choices:
                names.append(f"--method {name}")
        except Exception:       # a plugin that does not load follows nothing here
            continue
    return " or ".join(names) or "no installed method"


def _flag(choice: str, protocol: Protocol) -> str:
    value = getattr(protocol, choice)
    if isinstance(value, bool):
        return f"--{'' if value else 'no-'}{choice.replace('_', '-')}"
    return f"--{choice.replace('_', '-')} {value}"


def test_informed_by(config: Mapping[str, Any]) -> list[str]:
    """The choices by which a test output could decide something in the run of this config.json
    (`choice=value`; empty: not test-informed): what its protocol record says, else derived from
    its choices and settings (a run without a recorded protocol: none)."""
    record = config.get(PROTOCOL_KEY) if isinstance(config, Mapping) else None
    if not isinstance(record, Mapping):
        return []
    if isinstance(record.get("test_informed_by"), list):
        return [str(reason) for reason in record["test_informed_by"]]
    try:
        protocol = from_record(record)
    except ProtocolError:
        return []
    # recorded before the reasons were: derived from its choices (a run without --continual wrote
    # nothing, whatever its write filter); without its settings, as if it wrote
    settings = config.get("settings")
    continual = bool(settings.get("continual")) if isinstance(settings, Mapping) else True
    return protocol.test_informed_by(continual=continual)


def _recorded_mark(record: Mapping[str, Any]) -> bool | None:
    """The mark a record from before the reasons were kept states, when it is to be taken at its
    word: a record without the test-deciding choices cannot be derived again. None: derive it
    (every record written since, and a full one from before, whose mark counted a write filter
    even in a run that wrote nothing)."""
    if "test_informed_by" in record or "test_informed" not in record:
        return None
    if all(choice in record for choice in ("retry_when", "write_when")):
        return None
    return bool(record["test_informed"])


def what_tests_decided(reasons: list[str]) -> str:
    """What a test output decided under these test-deciding choices, in words that name them:
    "which attempts were retried (retry_when=test-fails)"."""
    said = [f"{TEST_DECIDES.get(r, 'something')} ({r})" for r in reasons]
    return " and ".join(said) if len(said) < 3 else ", ".join(said[:-1]) + " and " + said[-1]


def test_informed(config: Mapping[str, Any]) -> bool:
    """Whether the run of this config.json let a test output decide anything: the one reader
    of the mark for every view (a run without a recorded protocol is not test-informed)."""
    record = config.get(PROTOCOL_KEY) if isinstance(config, Mapping) else None
    stated = _recorded_mark(record) if isinstance(record, Mapping) else None
    return stated if stated is not None else bool(test_informed_by(config))


test_informed.__test__ = False      # a reader, not a pytest test
test_informed_by.__test__ = False


__all__ = ["Protocol", "ProtocolError", "PROFILES", "CHOICES", "PROTOCOL_KEY", "DEFAULT_PROTOCOL", "TEST_DECIDES", "resolve",
           "from_record", "check", "test_informed", "test_informed_by", "what_tests_decided"]
