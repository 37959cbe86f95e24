"""Randomized releases: a mechanism as data, the exact levels of what it releases, publisher and auditor modes."""
