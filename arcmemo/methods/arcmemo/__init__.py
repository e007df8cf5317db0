"""ArcMemo's own methods (the paper's): PS concepts and OE lessons, their write and their lessons from failures."""
