"""Benchmark shared score sheets through HTTP under gunicorn.

For SQLite and PostgreSQL, under scripts/serve's settings: complete
games of six (``--players``) played at concurrency 1, 8 and 32, made before
the clock starts (recorded turns/s,
p50/p99 latency of a turn; target p99 < 50 ms at concurrency 8), each beside
the floor of a durable write measured at the same concurrency on the same
server and database (bench/floor_app.py: insert one row, commit; target:
turns/s >= 0.6 x the floor); then GET of the same 100 finished games
from a database of 100 and from one of 10,000, two servers side by side,
alternating (p50/p99; target: ratio of the two <= 1.2, flat as data
grows). Turns at concurrency 8 are measured again with an
Idempotency-Key on each, as the phone page sends them.

    python bench/games.py [--databases sqlite,postgresql] [--seconds 8] [--workers 2] [--rounds 3] [--players 6]

PostgreSQL uses the databases ``anotador_bench``, ``anotador_bench_small``
and ``anotador_bench_big`` (created if missing) on ANOTADOR_BENCH_POSTGRES
(default postgres@127.0.0.1:5432); they are emptied.
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import secrets
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._http import DEPLOYED, SERVE_WORKERS, gunicorn, request  # noqa: E402

PG_SERVER = os.environ.get("ANOTADOR_BENCH_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432")
BOXES = ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full", "four", "generala"]


def fresh_database(kind: str, folder: str, name: str = "bench") -> str:
    """Return the URL of an empty, migrated database of this kind called ``name``."""
    import sqlalchemy as sa
    from flask_migrate import upgrade

    from anotador import create_app
    from anotador.extensions import db

    if kind == "sqlite":
        url = f"sqlite:///{folder}/{name}.sqlite"
    else:
        admin = sa.create_engine(f"{PG_SERVER}/postgres", isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(sa.text(f"DROP DATABASE IF EXISTS anotador_{name} WITH (FORCE)"))
            conn.execute(sa.text(f"CREATE DATABASE anotador_{name}"))
        admin.dispose()
        url = f"{PG_SERVER}/anotador_{name}"
    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        upgrade()
        db.engine.dispose()
    return url


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000


def run_clients(client, concurrency: int, latencies: list[float]) -> dict:
    """Run ``client(i)`` in ``concurrency`` threads to the end; the rate and latencies they recorded."""
    threads = [threading.Thread(target=client, args=(i,)) for i in range(concurrency)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    return {"turns": len(latencies), "per_s": len(latencies) / elapsed,
            "p50": percentile(latencies, 0.5), "p99": percentile(latencies, 0.99)}


#: The players of the games turns are measured on, names of the lengths and scripts real tables use.
NAMES = ["Guillermina Fernández de la Serna Ortiz", "李小龍", "Ñandú", "Ἀλέξανδρος", "محمد بن عبد الله", "Beto"]


def make_games(port: int, count: int, players: int) -> "queue.SimpleQueue":
    """``count`` new generala games of ``players`` players, made in parallel: (url, Authorization header) each."""
    made: queue.SimpleQueue = queue.SimpleQueue()

    def maker(n: int) -> None:
        for _ in range(n):
            status = 503
            while status == 503:  # the write lock not had in time (SQLite): try again
                status, _, body = request(port, "POST", "/api/v1/games",
                                          {"variant": "generala", "players": NAMES[:players]})
            assert status == 201, body
            made.put((f"/api/v1/games/{body['id']}/turns", {"Authorization": f"Bearer {body['token']}"}))

    makers = min(8, count)
    threads = [threading.Thread(target=maker, args=(count // makers + (i < count % makers),)) for i in range(makers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return made


def play_games(port: int, concurrency: int, seconds: float, keys: bool = False, players: int = 6) -> dict:
    """Clients play whole games until time is up; return turn figures.

    The games are made before the clock starts, so what is timed is turns
    alone, as the floor is one-row inserts alone (a client that runs out
    makes one more in its own time; ``made_during`` counts them). With
    ``keys``, every turn carries a fresh Idempotency-Key, as the phone page
    sends each write: its answer is stored with the turn.
    """
    per_game = 10 * players
    games = make_games(port, int(seconds * 600 / per_game) + 2 * concurrency, players)
    latencies: list[float] = []
    busy: list[int] = []
    during: list[int] = []
    lock = threading.Lock()
    end = time.monotonic() + seconds  # the games are made: the clock starts now

    def client(seed: int) -> None:
        rnd = random.Random(seed)
        mine = []
        while time.monotonic() < end:
            try:
                url, auth = games.get_nowait()
            except queue.Empty:
                with lock:
                    during.append(1)
                url, auth = make_games(port, 1, players).get()
            for n in range(per_game):
                box = BOXES[n // players]
                turn = {"player": n % players, "category": box, "scratch": rnd.random() < 0.3,
                        "dice": [rnd.randint(1, 6) for _ in range(5)]}
                if box not in ("ones", "twos", "threes", "fours", "fives", "sixes"):
                    turn["scratch"] = True  # random dice rarely make a combination
                headers = {**auth, "Idempotency-Key": secrets.token_hex(16)} if keys else auth
                t = time.perf_counter()
                status, _, body = request(port, "POST", url, turn, headers)
                while status == 503:  # the write lock not had in time (SQLite at high concurrency): counted, tried again
                    with lock:
                        busy.append(1)
                    status, _, body = request(port, "POST", url, turn, headers)
                mine.append(time.perf_counter() - t)
                assert status == 201, body
                if time.monotonic() >= end:
                    break
        with lock:
            latencies.extend(mine)

    return {**run_clients(client, concurrency, latencies), "busy": len(busy), "made_during": len(during)}


def floor(port: int, concurrency: int, seconds: float) -> dict:
    """Clients write one row each request (the floor of a durable write); same figures as play_games."""
    latencies: list[float] = []
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def client() -> None:
        mine = []
        while time.monotonic() < end:
            t = time.perf_counter()
            status, _, body = request(port, "POST", "/bench/floor", {"dice": [1, 2, 3, 4, 5]})
            mine.append(time.perf_counter() - t)
            assert status == 201, body
        with lock:
            latencies.extend(mine)

    return run_clients(lambda _: client(), concurrency, latencies)


def seed_finished_games(url: str, count: int) -> list[str]:
    """Store ``count`` finished two-player games directly; return their ids."""
    from anotador import create_app
    from anotador.extensions import db
    from anotador.store.models import EntryRow, GameRow, PlayerRow, TurnRow
    from anotador.rules import Choice, Game, find_variant

    rules = find_variant("generala").rules()
    rnd = random.Random(count)
    # a bulk load, not a request: a request's statement timeout and budget would cut its larger inserts
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "DB_STATEMENT_TIMEOUT_MS": 600_000, "DB_REQUEST_BUDGET": 3600})
    ids = []
    with app.app_context():
        next_turn = (db.session.query(db.func.max(TurnRow.id)).scalar() or 0) + 1
        games, players, turns, entries = [], [], [], []
        for _ in range(count):
            state = Game(rules, 2)
            gid = secrets.token_urlsafe(12)
            ids.append(gid)
            for n in range(20):
                p = n % 2
                dice = [rnd.randint(1, 6) for _ in range(5)]
                box = BOXES[n // 2]
                play = state.play(p, dice, False, [Choice(box, box not in BOXES[:6])])
                turns.append({"id": next_turn, "game_id": gid, "number": n + 1, "player": p, "round": play.round,
                              "dice": dice, "served": False, "corrections": []})
                for placed in play.boxes:
                    entries.append({"game_id": gid, "turn_id": next_turn, "player": p, "box": placed.category,
                                    "points": placed.points, "scratch": placed.scratch, "dice": None})
                next_turn += 1
            out = state.outcome()
            games.append({"id": gid, "token_hash": "0" * 64, "rules": rules.spec(), "start": 0, "turns": 20,
                          "status": out.status, "winners": list(out.winners), "reason": out.reason,
                          "version": 21})
            players += [{"game_id": gid, "seat": i, "name": n, "name_key": n.lower()} for i, n in enumerate("AB")]
        for model, rows in ((GameRow, games), (PlayerRow, players), (TurnRow, turns), (EntryRow, entries)):
            for i in range(0, len(rows), 5000):
                db.session.execute(db.insert(model), rows[i:i + 5000])
        db.session.commit()
        db.engine.dispose()
    return ids


def get_latency(port: int, ids: list[str], n: int = 1500) -> tuple[float, float]:
    rnd = random.Random(1)
    lat = []
    for _ in range(n):
        gid = rnd.choice(ids)
        t = time.perf_counter()
        status, _, _ = request(port, "GET", f"/api/v1/games/{gid}")
        lat.append(time.perf_counter() - t)
        assert status == 200
    return percentile(lat, 0.5), percentile(lat, 0.99)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--databases", default="sqlite,postgresql")
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--workers", type=int, default=int(os.environ.get("WORKERS", SERVE_WORKERS)),
                    help="gunicorn workers (scripts/serve's WORKERS)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--players", type=int, default=6, help="players in each game played (2 to 6)")
    args = ap.parse_args()

    import statistics

    for kind in args.databases.split(","):
        with tempfile.TemporaryDirectory() as folder:
            url = fresh_database(kind, folder)
            print(f"{kind}: gunicorn {args.workers} x {DEPLOYED['worker_class'].rsplit('.', 1)[-1]} "
                  f"({DEPLOYED['threads']} threads), {args.players}-player generala games beside the floor of a write, "
                  f"{args.rounds} x {args.seconds:g}s each, alternating")
            env = {"DATABASE_URL": url, "ANOTADOR_GAMES_PER_MINUTE": "0"}
            with gunicorn("bench.floor_app:app", workers=args.workers, env=env, **DEPLOYED) as srv:
                play_games(srv.port, 2, 1.0, players=args.players)  # warm up
                floor(srv.port, 2, 1.0)
                for c in (1, 8, 32):
                    turns, floors = [], []
                    for _ in range(args.rounds):
                        turns.append(play_games(srv.port, c, args.seconds, players=args.players))
                        floors.append(floor(srv.port, c, args.seconds))
                    ratios = [t["per_s"] / f["per_s"] for t, f in zip(turns, floors)]
                    med = lambda rows, k: statistics.median(r[k] for r in rows)  # noqa: E731
                    mark = "   (targets: p99 < 50 ms, ratio >= 0.6)" if c == 8 else ""
                    print(f"  concurrency {c:2d}: {med(turns, 'per_s'):7.1f} turns/s "
                          f"[{min(t['per_s'] for t in turns):.0f}-{max(t['per_s'] for t in turns):.0f}]   "
                          f"p50 {med(turns, 'p50'):6.1f} ms   p99 {med(turns, 'p99'):6.1f} ms   "
                          f"floor {med(floors, 'per_s'):7.1f}/s p99 {med(floors, 'p99'):5.1f} ms   "
                          f"ratio {statistics.median(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}]{mark}"
                          + (f"   503s retried: {sum(t['busy'] for t in turns)}" if any(t["busy"] for t in turns) else "")
                          + (f"   games made while timed: {sum(t['made_during'] for t in turns)}"
                             if any(t["made_during"] for t in turns) else ""))
                # What a phone sends: the same turns, each with an Idempotency-Key.
                keyed, floors = [], []
                for _ in range(args.rounds):
                    keyed.append(play_games(srv.port, 8, args.seconds, keys=True, players=args.players))
                    floors.append(floor(srv.port, 8, args.seconds))
                ratios = [t["per_s"] / f["per_s"] for t, f in zip(keyed, floors)]
                print(f"  concurrency  8, with Idempotency-Key (the page's turns): {med(keyed, 'per_s'):7.1f} turns/s   "
                      f"p50 {med(keyed, 'p50'):6.1f} ms   p99 {med(keyed, 'p99'):6.1f} ms   "
                      f"floor {med(floors, 'per_s'):7.1f}/s   ratio {statistics.median(ratios):.2f} "
                      f"[{min(ratios):.2f}-{max(ratios):.2f}]")
            # Reads of the same 100 finished games in a database of 100 and in one of 10,000, two servers
            # side by side, alternating: a drift of the machine's speed hits both.
            small_url, big_url = fresh_database(kind, folder, "bench_small"), fresh_database(kind, folder, "bench_big")
            small = seed_finished_games(small_url, 100)
            seed_finished_games(big_url, 9_900)
            big = seed_finished_games(big_url, 100)
            reads: dict[str, list[tuple[float, float]]] = {"small": [], "big": []}
            with gunicorn("wsgi:app", workers=args.workers, env={**env, "DATABASE_URL": small_url}, **DEPLOYED) as s, \
                    gunicorn("wsgi:app", workers=args.workers, env={**env, "DATABASE_URL": big_url}, **DEPLOYED) as b:
                # Warm: each worker renders and keeps the bodies it serves (200 reads left a third unkept).
                get_latency(s.port, small, 600)
                get_latency(b.port, big, 600)
                for _ in range(args.rounds):
                    reads["small"].append(get_latency(s.port, small))
                    reads["big"].append(get_latency(b.port, big))
            for name, stored in (("small", "100"), ("big", "10,000")):
                p50s, p99s = [r[0] for r in reads[name]], [r[1] for r in reads[name]]
                print(f"  GET finished game, {stored + ' stored:':16s} p50 {statistics.median(p50s):5.2f} ms   "
                      f"p99 {statistics.median(p99s):5.2f} ms")
            p50r = [b[0] / s[0] for s, b in zip(reads["small"], reads["big"])]
            p99r = [b[1] / s[1] for s, b in zip(reads["small"], reads["big"])]
            print(f"  ratio 10,000 / 100: p50 {statistics.median(p50r):.2f} [{min(p50r):.2f}-{max(p50r):.2f}]   "
                  f"p99 {statistics.median(p99r):.2f} [{min(p99r):.2f}-{max(p99r):.2f}]   (target <= 1.2)")


if __name__ == "__main__":
    main()
