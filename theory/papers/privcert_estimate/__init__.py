"""A mechanism computed from a differentially private estimate of the original's histogram, derived here (claim ids ``privcert:...``)."""
