"""Relations between the verifier's models that no paper states, derived here (claim ids ``privcert:...``): claims and checks."""
