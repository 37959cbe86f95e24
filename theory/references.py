"""The works the claim registry cites, by author and year, with their full references.

Claim ids are ``<key>:<item>`` (``ekenstedt2022:thm3a``); a claim's source names the
paper by authors and year (``"Ekenstedt et al. 2022"``), and :data:`REFERENCES` gives
the key, authors, title, venue and year of each (the same as docs/references.md).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Reference", "REFERENCES", "reference"]


@dataclass(frozen=True)
class Reference:
    """A cited work: its key in claim ids, its authors, title, venue and year."""

    key: str
    authors: str
    title: str
    venue: str
    year: int

    def __str__(self) -> str:
        return f'{self.authors}. "{self.title}." {self.venue}, {self.year}.'


REFERENCES: dict[str, Reference] = {
    "Domingo-Ferrer & Soria-Comas 2015": Reference(
        "domingoferrer2015", "Josep Domingo-Ferrer and Jordi Soria-Comas",
        "From t-closeness to differential privacy and vice versa in data anonymization",
        "Knowledge-Based Systems 74: 151-158", 2015),
    "Li et al. 2007": Reference(
        "li2007", "Ninghui Li, Tiancheng Li and Suresh Venkatasubramanian",
        "t-Closeness: Privacy beyond k-anonymity and l-diversity",
        "Proceedings of the 23rd IEEE International Conference on Data Engineering (ICDE): 106-115", 2007),
    "Ekenstedt et al. 2022": Reference(
        "ekenstedt2022", "Emelie Ekenstedt, Lawrence Ong, Yucheng Liu, Sarah Johnson, Phee Lep Yeoh and Joerg Kliewer",
        "When Differential Privacy Implies Syntactic Privacy",
        "IEEE Transactions on Information Forensics and Security 17", 2022),
    "Soria-Comas et al. 2015": Reference(
        "soriacomas2015", "Jordi Soria-Comas, Josep Domingo-Ferrer, David Sánchez and Sergio Martínez",
        "t-Closeness through Microaggregation: Strict Privacy with Enhanced Utility Preservation",
        "IEEE Transactions on Knowledge and Data Engineering 27(11): 3098-3110", 2015),
}
"""The papers of the specification, by the short name their claims' sources use."""


def reference(paper: str) -> Reference | None:
    """The full reference of a paper named by authors and year (``None``: privcert's own claim)."""
    return REFERENCES.get(paper)
