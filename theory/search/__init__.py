"""The Z3 counterexample search: the sympy-to-Z3 encoding, one search at one N, a claim searched over every small case."""
