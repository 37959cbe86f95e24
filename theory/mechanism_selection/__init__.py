"""Ekenstedt et al. 2022, Sec. V: the randomized-response matrices and their closed forms, their utility, the planner that chooses one."""
