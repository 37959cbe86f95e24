"""Claims as data: the :class:`~theory.claims.claim.Claim` type, the vocabulary of statements, the catalog.

Nothing here imports a check: listing the claims needs sympy and the definitions only (no
pandas, numpy, Z3 or matplotlib).
"""
