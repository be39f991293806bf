"""What the advisor's builds share: the answers a request meets while one runs, what one takes on disk, and a file
of the folder read, or set aside when it cannot be used.

A table (:mod:`anotador.advisor.tables`) and an outcomes file
(:mod:`anotador.advisor.outlooks`) are each built by a process of its own;
the folder's format and the builders are :mod:`anotador.solver.folder` and
:mod:`anotador.solver.build`.
"""

from __future__ import annotations

import logging
import math
import os
import subprocess
from typing import NamedTuple

import numpy as np

from ..http.headers import Quota
from ..solver import Solver
from ..solver import folder as store
from ..solver.build import OUTCOMES
from ..solver.sampled import outcomes_bytes

log = logging.getLogger(__name__)


class TableBuilding(Exception):
    """The table for these rules is being built: ask again in ``retry_after`` seconds."""

    def __init__(self, retry_after: int):
        super().__init__(f"The advisor's table for these rules is being built; ask again in {retry_after} s.")
        self.retry_after = retry_after


def retry_after(seconds: float) -> int:
    """A Retry-After that is met: the estimate with a margin, whole seconds."""
    return max(1, min(3600, math.ceil(seconds * 1.2 + 0.5)))


class FolderFull(Exception):
    """The advisor's folder has no room for this build within ``SOLVER_DISK_BYTES``, even without every house
    rule set's file: the built-in variants' take it (the operator's setting is too small for these rules)."""

    retry_after = 3600


class TooManyBuilds(Exception):
    """This client has its share of table builds under way, or had its share this hour."""

    def __init__(self, message: str, retry_after: int, quota: Quota):
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after
        self.quota = quota


def build_bytes(kind: str, states: int) -> int:
    """The most a build of this kind takes on disk while it runs: a table's file, or an outcomes build's twice
    (its records, then the file they are copied into). What the folder's disk budget counts a build as."""
    return 2 * outcomes_bytes(states) if kind.endswith(OUTCOMES) else store.table_bytes(states)


class Table(NamedTuple):
    """An advisor's table in memory: the rule set's solver and every state's value."""

    solver: Solver
    values: np.ndarray


class Spawned(NamedTuple):
    """A build this worker started (its lock may not be taken yet)."""

    process: subprocess.Popen
    build: store.Build


def read_or_set_aside(path: str, read, what: str):
    """``read(path)`` of a file of the folder, marked used now (the folder keeps those used last); None when it
    is missing, or when it cannot be used: then it is set aside (``.bad``) and logged, to be built again."""
    if not os.path.exists(path):
        return None
    try:
        found = read(path)
    except (OSError, store.BadTable) as e:
        log.warning("%s %s cannot be used (%s): building it again", what, path, e)
        try:
            os.replace(path, path + ".bad")
        except OSError:
            pass
        return None
    try:
        os.utime(path)
    except OSError:
        pass
    return found
