"""The use prior (`--use-prior`): what the memory's own train-side counts say of an item, as an order.

Per item, the smoothed rate at which showing it went with a task whose program passed every
train pair, a method's helpful/harmful verdicts counting as one more such task or one more
failed one:

    prior = (offered_passing + helpful + 1) / (offered + helpful + harmful + 2)

An item never offered scores 1/2, so a new item starts level with an average one, and a few
offers move it only a little. `solved` is never read (test outputs decide it), nor are the
helper counts (`called`, `called_passing`; they order helpers in run/stages/offer.py). The prior is
a number for ordering only: no prompt shows it.

Where it enters (SelectionSettings.options["use_prior"], the ps and oe methods):
- the listing the select model reads: PS concepts by prior within each section (then by name),
  OE lessons numbered by prior (then in memory order);
- the pre-filter of a memory over the token budget: among concepts whose words match the
  puzzle equally, the higher prior first;
- the PS hint's names of the concepts not chosen (`--other-names`), higher prior first;
- the failure lessons a PS hint adds, on equal word matches.
Not: which items the select model chooses, or their order in the hint (its judgement).

The counts are read as of the memory's revision (`Memory.usage(as_of_revision=True)`): rows
recorded after the newest revision wait for the next one. Within a `--continual` block every
task then sees the same prior however many tasks are in flight (the block's own use counts
once its write is done), and the prior is read once per revision.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Mapping, Sequence

from arcmemo.memory.store.reads import ConceptUse

NEUTRAL = 0.5           # an item with no recorded use


def prior_score(use: ConceptUse | None) -> float:
    """The smoothed train-side success rate of one item's recorded use (module docstring)."""
    if use is None:
        return NEUTRAL
    return (use.offered_passing + use.helpful + 1) / (use.offered + use.helpful + use.harmful + 2)


class UsePrior:
    """Each item's prior, by concept id (NEUTRAL for one with no recorded use)."""

    def __init__(self, counts: Mapping[int, ConceptUse] | None = None):
        self.scores = {concept_id: prior_score(use) for concept_id, use in (counts or {}).items()}

    def __call__(self, concept_id: int) -> float:
        return self.scores.get(concept_id, NEUTRAL)

    def of(self, concepts: Iterable) -> list[float]:
        """The prior of each of `concepts`, in their order."""
        return [self(c.id) for c in concepts]

    def first(self, concepts: Sequence) -> list:
        """`concepts` ordered by prior, highest first; equal ones keep their order."""
        return sorted(concepts, key=lambda c: -self(c.id))


def by_prior(positions: Iterable[int], prior: Sequence[float]) -> list[int]:
    """Positions ordered by their prior (`prior[i]`), highest first; equal ones keep their order."""
    return sorted(positions, key=lambda i: -prior[i])


def ties_by_prior(ranked: Sequence[int], scores: Sequence[float], prior: Sequence[float]) -> list[int]:
    """A ranking (positions, best first, by `scores`) with each run of equal scores ordered by
    prior, highest first; equal priors keep the ranking's own order."""
    return sorted(ranked, key=lambda i: (-scores[i], -prior[i]))


_lock = threading.Lock()


class PriorOrder:
    """One library's listings in the order of one prior (both fixed for a memory revision), each
    made when first asked and kept, as the library keeps its own (memory/views/library.py)."""

    def __init__(self, lib, prior: UsePrior):
        self.prior = prior                      # not the library: it is the key this is kept under
        self.scores = prior.of(lib.concepts)    # per position
        self.numbered = by_prior(range(len(lib.concepts)), self.scores)   # OE: lesson numbers' order
        self.in_order = [lib.concepts[i] for i in self.numbered]
        self._texts: dict = {}

    def text(self, lib, form, types) -> str:
        """lib.text of every concept in `form` with `types`, each section's concepts by prior."""
        key = ("ps", form, types)
        if key not in self._texts:
            self._texts[key] = lib.text(None, form, types, self.scores)
        return self._texts[key]

    def lessons_text(self, lib) -> str:
        """Every lesson numbered by prior (render_oe)."""
        if "oe" not in self._texts:
            self._texts["oe"] = lib.lessons_text(self.numbered)
        return self._texts["oe"]


_orders: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Library -> PriorOrder


def prior_order(lib, prior: UsePrior) -> PriorOrder:
    """The PriorOrder of `lib` by `prior`, made once per pair."""
    with _lock:
        held = _orders.get(lib)
    if held is not None and held.prior is prior:
        return held
    made = PriorOrder(lib, prior)
    with _lock:
        _orders[lib] = made
    return made


_held: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # Memory -> (revision, UsePrior)


def use_prior(memory) -> UsePrior:
    """The prior of `memory`'s items as of its current revision, read once per revision."""
    revision = memory.revision()
    with _lock:
        held = _held.get(memory)
    if held is not None and held[0] == revision:
        return held[1]
    prior = UsePrior(memory.usage(as_of_revision=True))
    if not memory.in_transaction():
        with _lock:
            _held[memory] = (revision, prior)
    return prior


__all__ = ["NEUTRAL", "PriorOrder", "UsePrior", "by_prior", "prior_order", "prior_score", "ties_by_prior",
           "use_prior"]
