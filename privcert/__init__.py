"""privcert: the application that composes verifier, theory, reports and mechanisms."""

__version__ = "0.1.0"
