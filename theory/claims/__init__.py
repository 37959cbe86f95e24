"""Claims as data: the :class:`~theory.claims.claim.Claim` type and the vocabulary of its statements, the catalog of every paper's claims.

Nothing here imports a check: listing the claims needs sympy and the definitions only (no
pandas, numpy, Z3 or matplotlib).
"""
