"""Memory's helpers run in the sandbox for memory's sake: verified before they are written, and
compared by behaviour for consolidation."""
