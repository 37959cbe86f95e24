"""Choosing a randomized-response mechanism (Ekenstedt et al. 2022, Sec. V): the matrices and their closed forms, their utility, the planner."""
