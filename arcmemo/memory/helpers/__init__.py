"""Concept helpers, owned here: everything about a helper that does not run it.

- `value.py`: `Helper` and `Verified`, a helper as the code passes it (`Concept.helper`);
  standard library only.
- `source.py`: the rules of a helper's source (read with `ast`, never run): its name, its
  parameters against its concept's, its docstring, its imports, the helpers it calls.
- `modules.py`: helpers joined into the one module a program imports them from
  (`memory_helpers`, core/helpermodule.py), with every helper they call.
- `probing.py`: which of a helper's parameters the probe can fill, and the calls that makes.
- `seedlibrary.py`: a seed directory's hand-written helpers (`memory_helpers.py`).

What runs helpers is the run layer's, in the sandbox: verifying one (run/helpers/verify.py),
the probe (run/stages/probe.py), comparing what two do (run/helpers/behaviour.py); which
helpers a task is offered is run/stages/offer.py's and what a solver sees of them
solverkit/helpers.py's; the PS write proposes them (abstraction/helpers.py).

Nothing is imported here: `Concept` (standard library only) loads `value.py` alone.
"""
