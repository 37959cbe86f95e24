"""Domingo-Ferrer & Soria-Comas 2015: claims and checks."""
