"""Choosing a randomized-response mechanism (Ekenstedt et al. 2022, Sec. V): the matrices and their closed forms, their
utility, the paper's planner, the optimum over every matrix (a linear program made exact), the release plan."""
