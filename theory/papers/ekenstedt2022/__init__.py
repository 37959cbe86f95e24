"""Ekenstedt et al. 2022: Lemmas 1-3 and Theorems 1-5, the appendix tables, the Sec. V mechanisms; claims and checks."""
