"""Names shown to people, in the three languages of RULES.md.

Kept apart from the rules so that the page, the printed sheets and the API
all read the same words from one place.
"""

from __future__ import annotations

LANGUAGES = ("en", "es", "pt")

BOX_NAMES: dict[str, dict[str, str]] = {
    "ones": {"en": "Ones", "es": "Al 1", "pt": "Uns"},
    "twos": {"en": "Twos", "es": "Al 2", "pt": "Dois"},
    "threes": {"en": "Threes", "es": "Al 3", "pt": "Três"},
    "fours": {"en": "Fours", "es": "Al 4", "pt": "Quatros"},
    "fives": {"en": "Fives", "es": "Al 5", "pt": "Cincos"},
    "sixes": {"en": "Sixes", "es": "Al 6", "pt": "Seis"},
    "straight": {"en": "Straight", "es": "Escalera", "pt": "Sequência"},
    "full": {"en": "Full house", "es": "Full", "pt": "Full"},
    "four": {"en": "Four of a kind", "es": "Póker", "pt": "Quadra"},
    "three": {"en": "Three of a kind", "es": "Trío", "pt": "Trinca"},
    "generala": {"en": "Generala", "es": "Generala", "pt": "General"},
    "double_generala": {"en": "Double generala", "es": "Generala doble", "pt": "General dupla"},
    "small_general": {"en": "Small General", "es": "General chico", "pt": "General pequeno"},
    "five_of_a_kind": {"en": "Five of a kind", "es": "Cinco iguales", "pt": "Cinco iguais"},
    "big_cameroon": {"en": "Big Cameroon", "es": "Camerún grande", "pt": "Camarões grande"},
    "little_cameroon": {"en": "Little Cameroon", "es": "Camerún chico", "pt": "Camarões pequeno"},
}

WORDS: dict[str, dict[str, str]] = {
    "served": {"en": "served", "es": "servida", "pt": "de boca"},
    "scratch": {"en": "scratch", "es": "tachar", "pt": "riscar"},
    #: general-pr: five of a kind on the first throw, which wins at once.
    "big_general": {"en": "Big General", "es": "General grande", "pt": "General grande"},
}
