"""Peers: other tools that measure the same privacy models, run side by side with privcert.

Each peer runs in its own virtual environment (its pinned dependencies never enter the
project's), and is called in a subprocess that reads a CSV file and a JSON spec.
"""
