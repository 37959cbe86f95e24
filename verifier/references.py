"""The works privcert cites, by author and year, with their full references.

Models (:mod:`verifier.registry`) and claims (:mod:`theory.claims.claim`) cite a :class:`Source`:
the paper by authors and year, its section and numbered item. Claim ids are ``<key>:<item>`` (``ekenstedt2022:thm3a``); a claim's source names the
paper by authors and year (``"Ekenstedt et al. 2022"``), and :data:`REFERENCES` gives
the key, authors, title, venue and year of each (the same as docs/references.md).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Reference", "REFERENCES", "PRIVCERT", "Source", "reference"]

PRIVCERT = "privcert (derived here)"
"""The source of the relations privcert derives itself (no paper states them)."""


@dataclass(frozen=True)
class Reference:
    """A cited work: its key in claim ids, its authors, title, venue and year."""

    key: str
    authors: str
    title: str
    venue: str
    year: int | None

    def __str__(self) -> str:
        if self.year is None:
            return f"{self.authors}: {self.title} ({self.venue})."
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
    "El Emam & Dankar 2008": Reference(
        "elemam2008", "Khaled El Emam and Fida Kamal Dankar",
        "Protecting privacy using k-anonymity",
        "Journal of the American Medical Informatics Association 15(5): 627-637", 2008),
    "Wong et al. 2006": Reference(
        "wong2006", "Raymond Chi-Wing Wong, Jiuyong Li, Ada Wai-Chee Fu and Ke Wang",
        "(α, k)-anonymity: an enhanced k-anonymity model for privacy preserving data publishing",
        "Proceedings of the 12th ACM SIGKDD Conference (KDD): 754-759", 2006),
    "Machanavajjhala et al. 2007": Reference(
        "machanavajjhala2007", "Ashwin Machanavajjhala, Daniel Kifer, Johannes Gehrke and Muthuramakrishnan Venkitasubramaniam",
        "ℓ-diversity: Privacy beyond k-anonymity",
        "ACM Transactions on Knowledge Discovery from Data 1(1), article 3", 2007),
    "Brickell & Shmatikov 2008": Reference(
        "brickell2008", "Justin Brickell and Vitaly Shmatikov",
        "The cost of privacy: destruction of data-mining utility in anonymized data publishing",
        "Proceedings of the 14th ACM SIGKDD Conference (KDD): 70-78", 2008),
    "Cao & Karras 2012": Reference(
        "cao2012", "Jianneng Cao and Panagiotis Karras",
        "Publishing microdata with a robust privacy guarantee",
        "Proceedings of the VLDB Endowment 5(11): 1388-1399", 2012),
    "Dankar et al. 2012": Reference(
        "dankar2012", "Fida Kamal Dankar, Khaled El Emam, Angelica Neisa and Tyson Roffey",
        "Estimating the re-identification risk of clinical data sets",
        "BMC Medical Informatics and Decision Making 12, article 66", 2012),
    "Franconi & Polettini 2004": Reference(
        "franconi2004", "Luisa Franconi and Silvia Polettini",
        "Individual risk estimation in μ-Argus: a review",
        "Privacy in Statistical Databases (PSD 2004), LNCS 3050: 262-272", 2004),
    "Elliot, Manning & Ford 2002": Reference(
        "elliot2002", "Mark J. Elliot, Anna M. Manning and Rupert W. Ford",
        "A computational algorithm for handling the special uniques problem",
        "International Journal of Uncertainty, Fuzziness and Knowledge-Based Systems 10(5): 493-509", 2002),
    "Nergiz, Atzori & Clifton 2007": Reference(
        "nergiz2007", "Mehmet Ercan Nergiz, Maurizio Atzori and Chris Clifton",
        "Hiding the presence of individuals from shared databases",
        "Proceedings of the 2007 ACM SIGMOD International Conference on Management of Data: 665-676", 2007),
    "Wan et al. 2015": Reference(
        "wan2015", "Zhiyu Wan, Yevgeniy Vorobeychik, Weiyi Xia, Ellen Wright Clayton, Murat Kantarcioglu, "
        "Ranjit Ganta, Raymond Heatherly and Bradley A. Malin",
        "A game theoretic framework for analyzing re-identification risk",
        "PLoS ONE 10(3): e0120592", 2015),
    "Dwork & Roth 2014": Reference(
        "dwork2014", "Cynthia Dwork and Aaron Roth", "The algorithmic foundations of differential privacy",
        "Foundations and Trends in Theoretical Computer Science 9(3-4): 211-407", 2014),
    "Ghosh et al. 2009": Reference(
        "ghosh2009", "Arpita Ghosh, Tim Roughgarden and Mukund Sundararajan",
        "Universally utility-maximizing privacy mechanisms",
        "Proceedings of the 41st ACM Symposium on Theory of Computing (STOC 2009): 351-360", 2009),
    "Truta & Vinay 2006": Reference(
        "truta2006", "Traian Marius Truta and Bindu Vinay",
        "Privacy protection: p-sensitive k-anonymity property",
        "Proceedings of the 22nd International Conference on Data Engineering Workshops (ICDEW 2006): 94", 2006),
    PRIVCERT: Reference(
        "privcert", "privcert",
        "derived here: relations no paper states, each proved in its claim's docstring and checked "
        "against the verifier's exact measures",
        "theory/papers/derived/claims.py, docs/theory.md", None),
}
"""The works the claims' and the models' sources name, by the short name they use (``PRIVCERT``: derived
here). A model's source must name one of them (a test)."""


def reference(paper: str) -> Reference | None:
    """The full reference of a work named by authors and year (:data:`PRIVCERT` for privcert's own claims)."""
    return REFERENCES.get(paper)


@dataclass(frozen=True)
class Source:
    """Where a claim or a model is printed: the paper, the section, the numbered item.

    Parameters
    ----------
    paper
        The paper, by authors and year (``"Ekenstedt et al. 2022"``; full references in docs/references.md).
    section
        The section as numbered in the paper (``"IV.A"``, ``"3"``).
    item
        The numbered item (``"Lemma 1(a)"``, ``"Theorem 3"``, ``"Prop. 1"``, ``"eq. (1)"``).
    """

    paper: str
    section: str
    item: str

    def __str__(self) -> str:
        return f"{self.paper}, Sec. {self.section}, {self.item}"

    @property
    def reference(self) -> str | None:
        """The full reference: authors, title, venue, year (docs/references.md)."""
        found = reference(self.paper)
        return None if found is None else str(found)
