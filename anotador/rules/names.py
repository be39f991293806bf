"""Names shown to people, in every language offered: the boxes', a narrow sheet's labels and a few words.

Kept apart from the rules so that the page, the printed sheets and the API all
read the same words from one place: the catalogs (``anotador/locales``), where
a box's name is ``box.<id>``, its short label ``box_short.<id>``, these words
``word.<key>`` and a roll that wins on the spot ``served.<box>``. Nothing is
read until a name is asked for.
"""

from __future__ import annotations

from ..locales import CODES, Message, Messages

#: The languages every name is given in, the API's ``names`` objects' keys: the source's first.
LANGUAGES = CODES

#: A box's name: ``BOX_NAMES["ones"]["es"]`` is "Al 1".
BOX_NAMES = Messages("box")

#: Short labels for a narrow sheet (a phone with six players): what a paper
#: sheet writes in its first column. The full name stays with them.
BOX_SHORT = Messages("box_short", fixed={box: str(face) for face, box in enumerate(
    ("ones", "twos", "threes", "fours", "fives", "sixes"), start=1)})

#: "served", "scratch", general-pr's "big_general", "family_generala" and
#: "family_yahtzee" (the families, as the page lists them), "upper" (a bonus
#: section's subtotal), "upper_bonus" and "yahtzee_bonus" (points for further
#: Yahtzees; its ``{box}`` is the five of a kind's own name).
WORDS = Messages("word")


def instant_win_names(big_general: bool, generala_box: str | None) -> dict[str, str] | None:
    """What a roll that wins on the spot is called: "Served generala", or general-pr's "Big General"."""
    if big_general:
        return dict(WORDS["big_general"])
    if generala_box is None:
        return None
    return dict(Message(f"served.{generala_box}"))
