"""The optimal advisor: exact expected totals and the best keep and box, for any rule set.

Pure like :mod:`anotador.rules` (numpy, no web, no database); the tables it
builds are kept by :mod:`anotador.advisor.tables`.
"""

from .dice import Dice, dice, expand
from .solve import SOLVER_VERSION, Solver, Turn
from .space import Space

__all__ = ["SOLVER_VERSION", "Dice", "Solver", "Space", "Turn", "dice", "expand"]
