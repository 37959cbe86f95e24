"""Relations between the re-identification risk models and k-anonymity, derived here (claim ids ``privcert:...``)."""
