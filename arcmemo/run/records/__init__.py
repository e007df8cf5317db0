"""What a run keeps and reads back: its directory, each task's records, selections, the one reader of a
run, submissions' metadata and exports, and the tables that show runs."""
