"""Dynamic Cheatsheet (Suzgun et al.): cumulative (DC-Cu, `cheatsheet`) and retrieval-synthesis (DC-RS, `dc-rs`)."""
