"""privcert.mechanisms: the papers' constructions that produce releases."""
