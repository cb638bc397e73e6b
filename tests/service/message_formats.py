"""Cases of the message format both formatters share: the pages' (``i18n.js``, tested in
Chromium) and the service's (``service/words.py``, for the SVG board): message, arguments,
language, what it says."""

from __future__ import annotations

from typing import Any

FORMATS: list[tuple[str, dict[str, Any], str, str]] = [
    ("{n, plural, one {# card} other {# cards}}", {"n": 1}, "en", "1 card"),
    ("{n, plural, one {# card} other {# cards}}", {"n": 3}, "en", "3 cards"),
    ("{n, plural, =0 {none} one {# card} other {# cards}}", {"n": 0}, "en", "none"),
    ("{n, plural, one {# tour} other {# tours}}", {"n": 0}, "fr", "0 tour"),  # French: 0 is one
    ("{c, select, red {rote} other {{c}}} Figur {k}", {"c": "red", "k": 2}, "de", "rote Figur 2"),
    ("{c, select, red {rote} other {{c}}}", {"c": "teal"}, "de", "teal"),
    (
        "{c, select, a {{n, plural, one {# a} other {# as}}} other {x}}",
        {"c": "a", "n": 2},
        "en",
        "2 as",
    ),
    ("{name} has {missing}", {"name": "Ann"}, "en", "Ann has {missing}"),
]

GROUPED = ("{n, plural, one {# Karte} other {# Karten}}", {"n": 1200}, "de", "1.200 Karten")
"""The pages group a number's digits in the language's way; the board's numbers are small."""
