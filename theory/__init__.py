"""privcert.theory: the implication map between privacy definitions, checked."""
