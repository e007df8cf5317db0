"""The concept store: SQLModel tables, the `Memory` API, rendering, import/export, graph views."""

from arcmemo.memory.models import Concept, ConceptRevision, CustomType, Solution
from arcmemo.memory.store import Memory, MergeResult

__all__ = ["Memory", "MergeResult", "Concept", "ConceptRevision", "CustomType", "Solution"]
