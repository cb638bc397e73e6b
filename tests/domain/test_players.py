"""The rules of handles and apps' names, and the players' and apps' streams folded."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.players.events import (
    AppRegistered,
    AppRevoked,
    HandleRetired,
    KeyIssued,
    PlayerRegistered,
)
from domain.players.handles import (
    BadHandle,
    canonical,
    check_app_name,
    check_handle,
    namespace_of,
    player_stream,
)
from domain.players.state import BadEvent, fold_app, fold_player, issued

DIGEST = "ab" * 32


def refusal(text: str, app: str = "") -> str:
    with pytest.raises(BadHandle) as bad:
        check_handle(text, app)
    return str(bad.value)


@given(st.text(max_size=40))
def test_canonical_form_is_idempotent(text: str) -> None:
    assert canonical(canonical(text)) == canonical(text)


@given(st.text(max_size=40))
def test_a_handle_allowed_is_kept_nfc_and_trimmed(text: str) -> None:
    try:
        handle = check_handle(text)
    except BadHandle:
        return
    assert handle == unicodedata.normalize("NFC", text).strip()
    assert check_handle(handle) == handle


@given(st.text(alphabet=st.characters(codec="ascii"), min_size=2, max_size=32))
def test_case_and_width_do_not_make_another_handle(text: str) -> None:
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)
    assert player_stream(text.upper()) == player_stream(text.lower()) == player_stream(wide.lower())


CYRILLIC_TWINS = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441"}


@given(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=2, max_size=31),
    st.sampled_from(sorted(CYRILLIC_TWINS)),
    st.data(),
)
def test_a_latin_handle_with_a_cyrillic_twin_letter_is_refused(
    latin: str, letter: str, data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(latin)))
    handle = latin[:at] + CYRILLIC_TWINS[letter] + latin[at:]
    if not any(c.isalpha() for c in latin):  # all Cyrillic letters: the look-alike rule
        assert "Latin" in refusal(handle)
        return
    assert "mixes scripts" in refusal(handle)


def test_a_cyrillic_letter_among_latin_ones_is_refused() -> None:
    assert "mixes scripts" in refusal("\u0430nn")  # Cyrillic a, then Latin nn
    assert "Cyrillic" in refusal("\u0430nn")


def test_a_greek_letter_among_latin_ones_is_refused() -> None:
    assert "mixes scripts" in refusal("b\u03bfb")  # Greek omicron


def test_a_handle_drawn_all_in_latin_lookalikes_is_refused() -> None:
    assert "Latin" in refusal("\u0430\u0441\u0435")  # Cyrillic "ace"
    assert "Latin" in refusal("\u0412\u041e\u0420")  # Cyrillic "BOP"


def test_a_handle_of_one_script_is_allowed() -> None:
    assert check_handle("\u0410\u043d\u043d\u0430") == "\u0410\u043d\u043d\u0430"  # Russian Anna
    assert check_handle("\u03bb\u03cc\u03b3\u03bf\u03c2")  # Greek logos
    assert check_handle("\u5c71\u7530\u305f\u308d\u3046")  # kanji with hiragana
    assert check_handle("Jos\u00e9_99.x-y") == "Jos\u00e9_99.x-y"


def test_fullwidth_letters_are_the_same_handle() -> None:
    fullwidth = "\uff41\uff4e\uff4e"
    assert check_handle(fullwidth) == fullwidth  # kept as typed ...
    assert canonical(fullwidth) == "ann"  # ... and unique as "ann"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("a\u200bnn", "format character"),  # zero-width space
        ("ann\u202e", "format character"),  # right-to-left override
        ("a\u00adnn", "format character"),  # soft hyphen
        ("a nn", "no space"),
        ("a\x07nn", "no space, control"),
        ("ann!", "letters, digits 0-9"),
        ("\u0663ann", "letters, digits 0-9"),  # an Arabic-Indic digit
        ("x", "1 character"),
        ("a" * 33, "33 characters"),
        ("ann:bob", "colon"),
        ("\u0301ann", "combining mark"),
    ],
)
def test_a_handle_breaking_a_rule_says_which(text: str, why: str) -> None:
    assert why in refusal(text)


@pytest.mark.parametrize(
    "word", ["admin", "Referee", "ROOT", "me", "\uff54\uff41\uff42\uff55\uff4c\uff41"]
)
def test_reserved_words_are_refused_in_any_case_or_width(word: str) -> None:
    assert "reserved" in refusal(word)


def test_an_apps_handle_is_in_its_namespace() -> None:
    assert check_handle("8812", "ludoclub") == "ludoclub:8812"
    assert namespace_of("ludoclub:8812") == "ludoclub"
    assert namespace_of("ann") == ""
    assert "colon" in refusal("other:8812", "ludoclub")


@pytest.mark.parametrize("name", ["Ludo", "l", "ludo_club", "ludo:club", "9ludo", "admin"])
def test_an_app_name_is_lower_case_ascii(name: str) -> None:
    with pytest.raises(BadHandle):
        check_app_name(name)
    assert check_app_name("ludo-club2") == "ludo-club2"


def test_a_players_stream_folds_to_its_latest_key() -> None:
    state = fold_player(
        [PlayerRegistered("Ann", ""), KeyIssued(1, DIGEST), KeyIssued(2, "cd" * 32)]
    )
    assert state is not None
    assert (state.handle, state.key_id, state.digest, state.keyed) == ("Ann", 2, "cd" * 32, True)
    assert issued(state, DIGEST) == KeyIssued(3, DIGEST)


def test_nothing_follows_a_retirement() -> None:
    events = [PlayerRegistered("Ann", ""), KeyIssued(1, DIGEST), HandleRetired()]
    state = fold_player(events)
    assert state is not None and state.retired and not state.keyed
    with pytest.raises(BadEvent):
        fold_player([*events, KeyIssued(2, DIGEST)])
    with pytest.raises(BadEvent):
        issued(state, DIGEST)


@pytest.mark.parametrize(
    "events",
    [
        [KeyIssued(1, DIGEST)],
        [PlayerRegistered("Ann", ""), KeyIssued(2, DIGEST)],
        [PlayerRegistered("Ann", ""), KeyIssued(1, "not hex")],
        [PlayerRegistered("Ann", ""), PlayerRegistered("Bob", "")],
        [PlayerRegistered("Ann", ""), AppRevoked()],
    ],
)
def test_a_players_stream_out_of_order_is_a_bad_event(events: list[object]) -> None:
    with pytest.raises(BadEvent):
        fold_player(events)  # type: ignore[arg-type]


def test_an_apps_stream_folds_to_revoked() -> None:
    state = fold_app([AppRegistered("ludoclub"), KeyIssued(1, DIGEST), AppRevoked()])
    assert state is not None and state.revoked and not state.keyed
    with pytest.raises(BadEvent):
        fold_app([AppRegistered("ludoclub"), HandleRetired()])
