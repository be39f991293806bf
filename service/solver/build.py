"""Build one table in a process of its own: ``python -m service.solver.build RULES_JSON PATH``.

The web server starts this and keeps answering: the build holds no lock a
request waits for, and its work (seconds of numpy) runs on its own core at a
lower priority. It takes ``PATH.lock`` for its whole run, so two processes
never build the same table, and writes ``PATH`` whole (a temporary file,
then a rename): a reader sees no table or all of it.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time


def build(spec: dict, path: str) -> int:
    """Build the table of the rule set ``spec`` into ``path``; 0 when built, 3 when another process is at it."""
    from ..rules import build_rules
    from .solve import Solver

    import numpy as np

    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path + ".lock", "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 3
        if os.path.exists(path):
            return 0
        lock.seek(0)
        lock.truncate()
        lock.write(json.dumps({"pid": os.getpid(), "started": time.time()}))
        lock.flush()
        values = Solver(build_rules(spec)).build()
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            np.save(f, values)
            f.flush()
            os.fsync(f.fileno())
        # the empty sheet's expected score, for listings that must not load whole tables
        with open(tmp + ".json", "w") as f:
            json.dump({"expected_score": float(values[0]), "states": int(values.shape[0])}, f)
        os.replace(tmp + ".json", path[:-len(".npy")] + ".json")
        os.replace(tmp, path)
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        os.nice(10)  # the server's requests come first
    except OSError:  # pragma: no cover - not allowed here: build at the same priority
        pass
    return build(json.loads(argv[0]), argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
