"""Anotador's rules engine: every variant and house rule, and nothing else.

Pure Python: no web framework, database or serialization import, so the API,
the printed sheets and the tests all consume the same rule objects.

    >>> rules = find_variant("generala").rules(served_bonus=10)
    >>> [(o.category, o.points) for o in rules.score([6, 6, 6, 1, 1], served=True).options][:2]
    [('full', 40), ('sixes', 18)]
"""

from .boxes import FIXED, NUMBER, SUM, Box, count
from .errors import (
    BoxClosedError,
    FirstPlayerTieError,
    GameOverError,
    InvalidNameError,
    InvalidTurnError,
    NotQualifiedError,
    NotYourTurnError,
    RollOffError,
    InvalidDiceError,
    InvalidGroupsError,
    InvalidOptionError,
    InvalidRollsError,
    InvalidSheetError,
    NoFreeBoxError,
    RulesError,
    UnknownBoxError,
    UnknownVariantError,
)
from .names import BOX_NAMES, BOX_SHORT, LANGUAGES, WORDS, instant_win_names
from .options import OPTION_NAMES, Options
from .ruleset import RuleSet
from .spec import Assignment, BoxSpec, Option, Placement, Score, SectionBonus
from .variants import VARIANTS, Variant, build_rules, find_variant

__all__ = [
    "Assignment", "BOX_NAMES", "BOX_SHORT", "Box", "BoxSpec", "FIXED", "InvalidDiceError", "InvalidGroupsError",
    "InvalidOptionError", "InvalidSheetError", "LANGUAGES", "NUMBER", "NoFreeBoxError", "OPTION_NAMES",
    "Option", "Options", "Placement", "RuleSet", "RulesError", "SUM", "Score", "SectionBonus",
    "UnknownBoxError", "UnknownVariantError", "VARIANTS", "Variant", "WORDS", "build_rules", "count",
    "find_variant", "instant_win_names",
]

from .game import (  # noqa: E402 - game builds on everything above
    REASONS,
    Choice,
    Game,
    Outcome,
    Placed,
    Play,
    clean_name,
    clean_names,
    first_player,
)
from .rolls import THROWS, Throw, check_rolls  # noqa: E402

__all__ += [
    "BoxClosedError", "Choice", "FirstPlayerTieError", "Game", "GameOverError", "InvalidNameError",
    "InvalidTurnError", "NotQualifiedError", "NotYourTurnError", "Outcome", "Placed", "Play", "REASONS",
    "RollOffError", "clean_name", "clean_names", "first_player",
    "InvalidRollsError", "THROWS", "Throw", "check_rolls",
]
