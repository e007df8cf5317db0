"""Consolidation: a memory that merges its near-duplicates as it grows (issue 30).

`plan_consolidation` (plan.py) finds concepts that are one concept, by what their helpers do
(the same results on probe inputs: run/helpers/behaviour.py runs them in the sandbox, the run
layer hands it in) or by their words and typings as judged by the aux model (wording.py,
judge.py), and `apply_plan` merges each group into one concept through the store
(memory/store/merges.py), where every merge is revisioned and can be undone. `arcmemo concepts
consolidate` and `solve --continual --consolidate-every N` use them (run/jobs/consolidating.py).

The defaults live here, light to import (the command line shows them without loading numpy).
"""

MIN_OVERLAP = 0.3       # wording.py: the share of the shorter concept's weighted words the other has too
MAX_JUDGED = 50         # plan.py: word pairs the model judges in one consolidation at most
ACTOR = "consolidate"   # who the merge revisions name
