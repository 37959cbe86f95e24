"""Soria-Comas et al. 2015: claims and checks."""
