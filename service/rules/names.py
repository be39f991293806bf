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

#: Short labels for a narrow sheet (a phone with six players): what a paper
#: anotador writes in its first column. The full name stays with them.
BOX_SHORT: dict[str, dict[str, str]] = {
    **{box: {"en": str(face), "es": str(face), "pt": str(face)}
       for face, box in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), start=1)},
    "straight": {"en": "Str", "es": "Esc", "pt": "Seq"},
    "full": {"en": "Full", "es": "Full", "pt": "Full"},
    "four": {"en": "4K", "es": "Póker", "pt": "Quad"},
    "three": {"en": "3K", "es": "Trío", "pt": "Trin"},
    "generala": {"en": "G", "es": "G", "pt": "G"},
    "double_generala": {"en": "DG", "es": "GD", "pt": "GD"},
    "small_general": {"en": "SG", "es": "GC", "pt": "GP"},
    "five_of_a_kind": {"en": "5K", "es": "5=", "pt": "5="},
    "big_cameroon": {"en": "BC", "es": "CG", "pt": "CG"},
    "little_cameroon": {"en": "LC", "es": "CC", "pt": "CP"},
}

WORDS: dict[str, dict[str, str]] = {
    "served": {"en": "served", "es": "servida", "pt": "de boca"},
    "scratch": {"en": "scratch", "es": "tachar", "pt": "riscar"},
    #: general-pr: five of a kind on the first throw, which wins at once.
    "big_general": {"en": "Big General", "es": "General grande", "pt": "General grande"},
}


def instant_win_names(big_general: bool, generala_box: str | None) -> dict[str, str] | None:
    """What a roll that wins on the spot is called: "Served generala", or general-pr's "Big General"."""
    if big_general:
        return dict(WORDS["big_general"])
    if generala_box is None:
        return None
    return {"en": f"Served {BOX_NAMES[generala_box]['en'].lower()}",
            "es": f"{BOX_NAMES[generala_box]['es']} servida",
            "pt": f"{BOX_NAMES[generala_box]['pt']} de boca"}
