"""Names shown to people: English, Spanish, Portuguese, German and Swedish.

Kept apart from the rules so that the page, the printed sheets and the API
all read the same words from one place. German is Kniffel's language and
Swedish Yatzy's; every box has a name in all five, so any sheet can be shown
in any of them.
"""

from __future__ import annotations

LANGUAGES = ("en", "es", "pt", "de", "sv")

BOX_NAMES: dict[str, dict[str, str]] = {
    "ones": {"en": "Ones", "es": "Al 1", "pt": "Uns", "de": "Einser", "sv": "Ettor"},
    "twos": {"en": "Twos", "es": "Al 2", "pt": "Dois", "de": "Zweier", "sv": "Tvåor"},
    "threes": {"en": "Threes", "es": "Al 3", "pt": "Três", "de": "Dreier", "sv": "Treor"},
    "fours": {"en": "Fours", "es": "Al 4", "pt": "Quatros", "de": "Vierer", "sv": "Fyror"},
    "fives": {"en": "Fives", "es": "Al 5", "pt": "Cincos", "de": "Fünfer", "sv": "Femmor"},
    "sixes": {"en": "Sixes", "es": "Al 6", "pt": "Seis", "de": "Sechser", "sv": "Sexor"},
    # the Generala family
    "straight": {"en": "Straight", "es": "Escalera", "pt": "Sequência", "de": "Straße", "sv": "Stege"},
    "full": {"en": "Full house", "es": "Full", "pt": "Full", "de": "Full House", "sv": "Kåk"},
    "four": {"en": "Four of a kind", "es": "Póker", "pt": "Quadra", "de": "Poker", "sv": "Fyrtal"},
    "three": {"en": "Three of a kind", "es": "Trío", "pt": "Trinca", "de": "Dreierpasch", "sv": "Tretal"},
    "generala": {"en": "Generala", "es": "Generala", "pt": "General", "de": "Generala", "sv": "Generala"},
    "double_generala": {"en": "Double generala", "es": "Generala doble", "pt": "General dupla",
                        "de": "Doppelte Generala", "sv": "Dubbel generala"},
    "small_general": {"en": "Small General", "es": "General chico", "pt": "General pequeno",
                      "de": "Kleiner General", "sv": "Liten general"},
    "five_of_a_kind": {"en": "Five of a kind", "es": "Cinco iguales", "pt": "Cinco iguais", "de": "Fünfling",
                       "sv": "Femtal"},
    "big_cameroon": {"en": "Big Cameroon", "es": "Camerún grande", "pt": "Camarões grande", "de": "Großes Kamerun",
                     "sv": "Stor Kamerun"},
    "little_cameroon": {"en": "Little Cameroon", "es": "Camerún chico", "pt": "Camarões pequeno",
                        "de": "Kleines Kamerun", "sv": "Liten Kamerun"},
    # the Yahtzee family
    "one_pair": {"en": "One pair", "es": "Par", "pt": "Par", "de": "Ein Paar", "sv": "Ett par"},
    "two_pairs": {"en": "Two pairs", "es": "Doble par", "pt": "Dois pares", "de": "Zwei Paare", "sv": "Två par"},
    "three_of_a_kind": {"en": "Three of a kind", "es": "Trío", "pt": "Trinca", "de": "Dreierpasch", "sv": "Tretal"},
    "four_of_a_kind": {"en": "Four of a kind", "es": "Póker", "pt": "Quadra", "de": "Viererpasch", "sv": "Fyrtal"},
    "full_house": {"en": "Full house", "es": "Full", "pt": "Full", "de": "Full House", "sv": "Kåk"},
    "small_straight": {"en": "Small straight", "es": "Escalera menor", "pt": "Sequência menor",
                       "de": "Kleine Straße", "sv": "Liten stege"},
    "large_straight": {"en": "Large straight", "es": "Escalera mayor", "pt": "Sequência maior",
                       "de": "Große Straße", "sv": "Stor stege"},
    "little_straight": {"en": "Little straight", "es": "Escalera menor", "pt": "Sequência menor",
                        "de": "Kleine Straße", "sv": "Liten stege"},
    "big_straight": {"en": "Big straight", "es": "Escalera mayor", "pt": "Sequência maior",
                     "de": "Große Straße", "sv": "Stor stege"},
    "yahtzee": {"en": "Yahtzee", "es": "Yahtzee", "pt": "Yahtzee", "de": "Kniffel", "sv": "Yatzy"},
    "yatzy": {"en": "Yatzy", "es": "Yatzy", "pt": "Yatzy", "de": "Yatzy", "sv": "Yatzy"},
    "yacht": {"en": "Yacht", "es": "Yacht", "pt": "Yacht", "de": "Yacht", "sv": "Yacht"},
    "chance": {"en": "Chance", "es": "Chance", "pt": "Chance", "de": "Chance", "sv": "Chans"},
    "choice": {"en": "Choice", "es": "Libre", "pt": "Livre", "de": "Wahl", "sv": "Valfri"},
}

#: Short labels for a narrow sheet (a phone with six players): what a paper
#: sheet writes in its first column. The full name stays with them.
BOX_SHORT: dict[str, dict[str, str]] = {
    **{box: {lang: str(face) for lang in LANGUAGES}
       for face, box in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), start=1)},
    "straight": {"en": "Str", "es": "Esc", "pt": "Seq", "de": "Str", "sv": "Stg"},
    "full": {"en": "Full", "es": "Full", "pt": "Full", "de": "FH", "sv": "Kåk"},
    "four": {"en": "4K", "es": "Póker", "pt": "Quad", "de": "Pok", "sv": "4t"},
    "three": {"en": "3K", "es": "Trío", "pt": "Trin", "de": "3er", "sv": "3t"},
    "generala": {"en": "G", "es": "G", "pt": "G", "de": "G", "sv": "G"},
    "double_generala": {"en": "DG", "es": "GD", "pt": "GD", "de": "DG", "sv": "DG"},
    "small_general": {"en": "SG", "es": "GC", "pt": "GP", "de": "KG", "sv": "LG"},
    "five_of_a_kind": {"en": "5K", "es": "5=", "pt": "5=", "de": "5er", "sv": "5t"},
    "big_cameroon": {"en": "BC", "es": "CG", "pt": "CG", "de": "GK", "sv": "SK"},
    "little_cameroon": {"en": "LC", "es": "CC", "pt": "CP", "de": "KK", "sv": "LK"},
    "one_pair": {"en": "1P", "es": "Par", "pt": "Par", "de": "1P", "sv": "1p"},
    "two_pairs": {"en": "2P", "es": "2Par", "pt": "2Par", "de": "2P", "sv": "2p"},
    "three_of_a_kind": {"en": "3K", "es": "Trío", "pt": "Trin", "de": "3er", "sv": "3t"},
    "four_of_a_kind": {"en": "4K", "es": "Póker", "pt": "Quad", "de": "4er", "sv": "4t"},
    "full_house": {"en": "FH", "es": "Full", "pt": "Full", "de": "FH", "sv": "Kåk"},
    "small_straight": {"en": "SS", "es": "EsM", "pt": "SeqM", "de": "KS", "sv": "LS"},
    "large_straight": {"en": "LS", "es": "EsG", "pt": "SeqG", "de": "GS", "sv": "SS"},
    "little_straight": {"en": "LS", "es": "EsM", "pt": "SeqM", "de": "KS", "sv": "LS"},
    "big_straight": {"en": "BS", "es": "EsG", "pt": "SeqG", "de": "GS", "sv": "SS"},
    "yahtzee": {"en": "Y", "es": "Y", "pt": "Y", "de": "K", "sv": "Y"},
    "yatzy": {"en": "Y", "es": "Y", "pt": "Y", "de": "Y", "sv": "Y"},
    "yacht": {"en": "Y", "es": "Y", "pt": "Y", "de": "Y", "sv": "Y"},
    "chance": {"en": "Ch", "es": "Ch", "pt": "Ch", "de": "Ch", "sv": "Ch"},
    "choice": {"en": "Ch", "es": "Lib", "pt": "Liv", "de": "W", "sv": "Val"},
}

WORDS: dict[str, dict[str, str]] = {
    "served": {"en": "served", "es": "servida", "pt": "de boca", "de": "serviert", "sv": "servad"},
    "scratch": {"en": "scratch", "es": "tachar", "pt": "riscar", "de": "streichen", "sv": "stryka"},
    #: general-pr: five of a kind on the first throw, which wins at once.
    "big_general": {"en": "Big General", "es": "General grande", "pt": "General grande", "de": "Großer General",
                    "sv": "Stor general"},
    #: the families, as the page lists them
    "family_generala": {"en": "The Generala family", "es": "La familia de la Generala", "pt": "A família do General",
                        "de": "Die Generala-Familie", "sv": "Generala-familjen"},
    "family_yahtzee": {"en": "The Yahtzee family", "es": "La familia del Yahtzee", "pt": "A família do Yahtzee",
                       "de": "Die Kniffel-Familie", "sv": "Yatzy-familjen"},
    #: a bonus section's subtotal, and its bonus
    "upper": {"en": "Upper total", "es": "Suma de arriba", "pt": "Soma de cima", "de": "Summe oben",
              "sv": "Summa"},
    "upper_bonus": {"en": "Bonus", "es": "Bonus", "pt": "Bônus", "de": "Bonus", "sv": "Bonus"},
    #: points for further Yahtzees: {box} is the five of a kind's own name
    "yahtzee_bonus": {"en": "{box} bonus", "es": "Bonus {box}", "pt": "Bônus {box}", "de": "{box}-Bonus",
                      "sv": "{box}bonus"},
}


def instant_win_names(big_general: bool, generala_box: str | None) -> dict[str, str] | None:
    """What a roll that wins on the spot is called: "Served generala", or general-pr's "Big General"."""
    if big_general:
        return dict(WORDS["big_general"])
    if generala_box is None:
        return None
    name = BOX_NAMES[generala_box]
    return {"en": f"Served {name['en'].lower()}", "es": f"{name['es']} servida", "pt": f"{name['pt']} de boca",
            "de": f"Servierte {name['de']}", "sv": f"Servad {name['sv'].lower()}"}
