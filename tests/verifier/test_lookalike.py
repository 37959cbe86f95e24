"""Look-alike names (Unicode TR39): flagged with their reasons, and shown escaped so that no view shows them as the
names they resemble."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.lookalike import lookalike, shown


@pytest.mark.parametrize(("name", "reasons"), [
    ("z\u0456p", ("mixed scripts (Cyrillic, Latin)", "looks like 'zip'")),
    ("\u0430ge", ("mixed scripts (Cyrillic, Latin)", "looks like 'age'")),
    ("age\u200b", ("invisible or bidirectional characters", "looks like 'age'")),
    ("salary\u202e", ("invisible or bidirectional characters", "looks like 'salary'")),
    ("zip", None),
    ("âge", None),
    ("Москва", None),
    ("年齢", None),
])
def test_reasons(name: str, reasons: tuple[str, ...] | None) -> None:
    found = lookalike(name)
    assert (None if found is None else found.reasons) == reasons


def test_the_escaped_form_names_each_code_point() -> None:
    found = lookalike("z\u0456p")
    assert found is not None
    assert (found.escaped, found.points) == ("z\\u0456p", ("U+0456 CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I",))


@given(st.text(max_size=12))
def test_a_flagged_name_is_shown_in_printable_ascii_and_a_plain_one_as_itself(name: str) -> None:
    text = shown(name)
    if lookalike(name) is None:
        assert text == name
    else:
        assert text.isascii() and text.isprintable()
        assert text.encode("ascii").decode("unicode_escape") == name
