"""Memory as models and people see it: one format's library per revision, rendering, fitting a budget,
lexical ranking, graph views."""
