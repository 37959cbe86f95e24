"""Probability tables and what is measured on them: the table, its exact optimal levels, the size parameters, the witness families."""
