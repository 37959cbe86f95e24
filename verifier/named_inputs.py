"""Messages that name an input, said by each front end in its own terms.

An error or a verification line that asks for an input, or says that one is missing, names
it as an :class:`Input`: the library's name for it (``data``, ``original``, ``t0``, ...), the
value given if the message quotes it, and whether the message asks for it. The message is a
:class:`Said`: a ``str`` in the library's own words (``str(error)`` names each input as a
caller of :mod:`privcert.api` knows it) that keeps its parts, so that :func:`say` can render
it in a front end's terms: the command line as its options (``--data RELEASE``), the
workbench as its form's fields ("The release").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Input", "Said", "Terms", "say", "say_in", "text_of"]


@dataclass(frozen=True)
class Input:
    """An input a message names.

    Attributes
    ----------
    name
        The library's name of the input: ``data`` (the release a certificate is checked against),
        ``original``, ``t0``, ``eps0``, ``signing_key``, ``record_key``, ``mechanism``.
    value
        The value given, when the message quotes it (a file name).
    asked
        Whether the message asks for the input (the command line then shows what its option takes).
    """

    name: str
    value: str | None = None
    asked: bool = False

    def __str__(self) -> str:
        """The library's words: the name (``signing_key`` as "signing key"), then the value given."""
        words = self.name.replace("_", " ")
        return words if self.value is None else f"{words} {self.value}"


Terms = Callable[[Input], str]
"""How a front end says an input."""


class Said(str):
    """Text naming inputs: the ``str`` says each :class:`Input` in the library's words, :attr:`parts` keeps them.

    Parts that are themselves :class:`Said` are joined part by part, so a text built of texts keeps every input.

    Examples
    --------
    >>> text = Said("no ", Input("data"), "; pass ", Input("data", asked=True))
    >>> str(text), say(text, lambda named: "--" + named.name)
    ('no data; pass data', 'no --data; pass --data')
    """

    parts: tuple[str | Input, ...]

    def __new__(cls, *parts: str | Input) -> Said:
        flat = tuple(piece for part in parts for piece in (part.parts if isinstance(part, Said) else (part,)))
        text = super().__new__(cls, "".join(map(str, flat)))
        text.parts = flat
        return text

    def __reduce__(self) -> tuple[type[Said], tuple[str | Input, ...]]:
        return Said, self.parts


def text_of(error: BaseException) -> str:
    """An error's message with the inputs it names kept (a :class:`Said`), for a message that quotes it."""
    return error.args[0] if len(error.args) == 1 and isinstance(error.args[0], str) else str(error)


def say(text: object, terms: Terms) -> str:
    """``text`` with each input it names said as ``terms`` says it: a :class:`Said`, or an exception whose message
    is one; any other text (or exception) as ``str`` gives it."""
    if isinstance(text, BaseException) and len(text.args) == 1:
        text = text.args[0]
    if isinstance(text, Said):
        return "".join(part if isinstance(part, str) else terms(part) for part in text.parts)
    return str(text)


def say_in(document: Any, terms: Terms) -> Any:
    """A JSON document (dicts, lists, text, numbers) with every :class:`Said` text in it said in ``terms``."""
    if isinstance(document, Said):
        return say(document, terms)
    if isinstance(document, dict):
        return {key: say_in(value, terms) for key, value in document.items()}
    if isinstance(document, list):
        return [say_in(value, terms) for value in document]
    return document
