"""The concept's data shape: the value the store hands out, the rules every concept passes, typings
and the paper's merge rule."""
