"""What a run says while it works: the reporter, the live display, and long jobs' estimates."""
