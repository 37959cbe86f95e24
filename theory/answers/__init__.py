"""What the theory answers: the implication graph (implies), an audit's implied guarantees (explain), auditor mode, the map."""
