"""Memory in and out: the YAML export, imports (arcmemo YAML, the paper's released JSON), reading files safely."""
