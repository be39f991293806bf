"""The advisor at run time: the solver's tables of each rule set, built in the background and kept on disk and
in memory (``tables``), who is winning made from them (``outlooks``), what their builds share (``builds``), and
play to win's CPU budget (``weighing``). The mathematics is in :mod:`anotador.solver`; the views in
:mod:`anotador.api`.

The app owns one :class:`~.tables.Tables` and one :class:`~.outlooks.Outlooks` (``init_app``); views reach
them through :func:`~.tables.tables` and :func:`~.outlooks.outlooks`. The regulars' standings reach the
advisor only through the judge the app is given (``app.extensions["anotador.judge"]``).
"""

from __future__ import annotations

import logging
import os

from flask import Flask

from ..rules import RuleSet
from ..solver import folder as store
from ..solver.sampled import outcomes_bytes, sampled_for
from .outlooks import Outlooks
from .tables import Tables
from .tables import tables as current_tables

log = logging.getLogger(__name__)


def judged(rules: RuleSet, players: int, turns) -> tuple[list[float], list[float]] | None:
    """Each seat's points lost and luck over these recorded turns, if the table of these rules is built here
    (never builds one): what the regulars' standings show (``anotador.judge``)."""
    from ..solver.advise import judge_game

    table = current_tables().peek(rules)
    if table is None:
        return None
    judgement = judge_game(table.solver, table.values, players, turns)
    return judgement.lost, judgement.luck


def init_app(app: Flask) -> None:
    """Give the app its tables (the ``SOLVER_*`` settings), the outlooks made from them, and its judge of games
    for the regulars' standings (``anotador.judge``); start building the built-in tables if missing."""
    config = app.config
    folder = config.get("SOLVER_DIR") or os.path.join(app.instance_path, "solver")
    app.extensions["anotador.judge"] = judged
    tables = app.extensions["anotador.tables"] = Tables(
        folder, int(config.get("SOLVER_TABLES") or 8), int(config.get("SOLVER_BUILDS") or 2),
        int(config.get("SOLVER_KEEP") or 100), int(config.get("SOLVER_CLIENT_BUILDS") or 1),
        int(config.get("SOLVER_CLIENT_BUILDS_PER_HOUR") or 20), bool(config.get("SOLVER_BUILD_AHEAD", True)),
        bool(config.get("SOLVER_OUTCOMES_AHEAD", True)), int(config.get("SOLVER_DISK_BYTES") or 4 << 30))
    app.extensions["anotador.outlooks"] = Outlooks(tables)
    builtin = sum(store.table_bytes(store.states_of(rules)) + (outcomes_bytes(store.states_of(rules))
                  if sampled_for(rules) else 0) for rules in tables.builtin.values())
    if builtin > tables.disk:
        log.warning("ANOTADOR_SOLVER_DISK_BYTES (%d) is less than the built-in variants' files at their most (%d): "
                    "no house rules' table will be built", tables.disk, builtin)
    try:  # what builders killed before this start left behind (their locks, half-written files)
        store.remove_stale(folder)
    except OSError:
        pass
    if tables.ahead:
        try:
            tables.build_ahead()
        except OSError as exc:  # a folder it cannot write: the advisor says so when asked, serving goes on
            log.error("cannot build the advisor's tables ahead in %s: %s", folder, exc)
