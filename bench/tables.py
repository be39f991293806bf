"""Benchmark a table of regulars with ten years of Sundays: 5,000 finished games, in process, on each database.

For SQLite and PostgreSQL, a table whose 5,000 finished games of three
players (three variants, ten a Sunday since 2016) are written straight to
the database, then through the app's test client (no HTTP: the database
work is what grows with the games):

1. the standings, rendered anew each time (the worker's kept answer is
   cleared before each call): all games, one variant, one year; target
   under 50 ms;
2. a poll of them (304 for the table's version);
3. the history's first page and a page 4,000 games deep (20 games a page);
4. the whole history as CSV;
5. the write that ends a table's game (its results, the table's version) beside
   the same turn that ends a game at no table.

Each is printed in milliseconds, median of ``--rounds`` passes with the
spread, and as a ratio to the baseline measured in the same run on the same
database: one durable one-row insert (INSERT and COMMIT, as bench/floor_app.py).

    python bench/tables.py [--databases sqlite,postgresql] [--games 5000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.games import fresh_database  # noqa: E402

VARIANTS = ("generala", "generala-doble", "yacht")
NAMES = ("Abuela", "Beto", "Carla")


def seed(app, mesa_id: str, games: int) -> None:
    """``games`` finished games of the three regulars at the table, and their result rows, written directly."""
    import sqlalchemy as sa

    from anotador.extensions import db
    from anotador.store.models import GameRow, MesaAliasRow, MesaPlayerRow, PlayerRow, ResultRow
    from anotador.rules import find_variant
    from anotador.sheets.standings import retally

    start = datetime(2016, 1, 3, 22, 0, tzinfo=timezone.utc)
    with app.app_context():
        ids = []
        for name in NAMES:
            pid = db.session.execute(sa.insert(MesaPlayerRow).values(mesa_id=mesa_id, name=name)
                                     .returning(MesaPlayerRow.id)).scalar_one()
            db.session.execute(sa.insert(MesaAliasRow).values(mesa_id=mesa_id, name=name, name_key=name.casefold(),
                                                              player_id=pid))
            ids.append(pid)
        rules = {v: find_variant(v).rules() for v in VARIANTS}
        rows, seats, results = [], [], []
        for i in range(games):
            variant = VARIANTS[i % 3]
            made = start + timedelta(days=7 * (i // 10), minutes=i % 10)
            gid = f"b{i:07d}"
            winner = (i * 7) % 3
            rows.append({"id": gid, "token_hash": "x" * 64, "rules": rules[variant].spec(), "start": 0, "turns": 30,
                         "status": "finished", "winners": [winner], "reason": "highest_total", "version": 31,
                         "created_at": made, "updated_at": made, "mesa_id": mesa_id})
            for seat, name in enumerate(NAMES):
                seats.append({"game_id": gid, "seat": seat, "name": name, "name_key": name.casefold()})
                results.append({"mesa_id": mesa_id, "game_id": gid, "seat": seat, "player_id": ids[seat],
                                "variant": variant, "rules_key": rules[variant].digest,
                                "played_on": made.date().isoformat(), "total": 150 + (i * 13 + seat * 29) % 120,
                                "share": 1.0 if seat == winner else 0.0, "won": seat == winner, "shared": False,
                                "instant": False, "generalas": (i + seat) % 2, "scratches": (i + seat) % 4,
                                "lost": 3.5 if variant == "generala" else None,
                                "luck": 1.0 if variant == "generala" else None})
        for table, batch in ((GameRow, rows), (PlayerRow, seats), (ResultRow, results)):
            for k in range(0, len(batch), 2000):
                db.session.execute(sa.insert(table), batch[k:k + 2000])
        retally(mesa_id)  # the running tallies, as the games' writes would have kept them
        db.session.commit()


def timed(call, rounds: int, per_round: int = 20) -> list[float]:
    """Milliseconds per call: the median of each round."""
    out = []
    for _ in range(rounds):
        times = []
        for _ in range(per_round):
            t = time.perf_counter()
            call()
            times.append((time.perf_counter() - t) * 1e3)
        out.append(statistics.median(times))
    return out


def show(label: str, values: list[float], base: float, target: str = "") -> None:
    med = statistics.median(values)
    print(f"  {label:44} {med:8.2f} ms ({min(values):.2f}-{max(values):.2f})   {med / base:6.1f}x the insert"
          f"{'   ' + target if target else ''}")


def bench(kind: str, folder: str, games: int, rounds: int) -> None:
    import sqlalchemy as sa

    from anotador import create_app
    from anotador.api.tables import _reads
    from anotador.extensions import db

    url = fresh_database(kind, folder, "tables")
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "GAMES_PER_MINUTE": 0, "SOLVER_BUILD_AHEAD": False})
    client = app.test_client()
    made = client.post("/api/v1/tables", json={"name": "Diez años de domingos"}).get_json()
    mesa, auth = made["id"], {"Authorization": f"Bearer {made['token']}"}
    t = time.perf_counter()
    seed(app, mesa, games)
    print(f"{kind}: {games} finished games seeded in {time.perf_counter() - t:.1f} s")

    with app.app_context():
        serial = "SERIAL" if kind == "postgresql" else "INTEGER"
        db.session.execute(sa.text(f"CREATE TABLE floor (id {serial} PRIMARY KEY, at TEXT)"))
        db.session.commit()

    def insert_one():
        with app.app_context():
            db.session.execute(sa.text("INSERT INTO floor (at) VALUES (:at)"), {"at": "x"})
            db.session.commit()

    base = statistics.median(timed(insert_one, rounds))
    print(f"  {'baseline: one durable one-row insert':44} {base:8.2f} ms")

    def fresh(path, **query):
        def call():
            with app.app_context():
                _reads().items.clear()
            r = client.get(path, query_string=query)
            assert r.status_code == 200, r.get_json()
        return call

    show("standings, all games", timed(fresh(f"/api/v1/tables/{mesa}"), rounds), base, "target < 50 ms")
    show("standings, one variant", timed(fresh(f"/api/v1/tables/{mesa}", variant="yacht"), rounds), base)
    show("standings, one year", timed(fresh(f"/api/v1/tables/{mesa}", since="2020-01-01", until="2020-12-31"),
                                     rounds), base)
    tag = client.get(f"/api/v1/tables/{mesa}").headers["ETag"]

    def poll():
        r = client.get(f"/api/v1/tables/{mesa}", headers={"If-None-Match": tag})
        assert r.status_code == 304

    show("a poll of the standings (304)", timed(poll, rounds), base)
    show("history, first page of 20", timed(fresh(f"/api/v1/tables/{mesa}/games"), rounds), base)
    deep = client.get(f"/api/v1/tables/{mesa}/games", query_string={"limit": 100}).get_json()
    cursor = deep["next"]
    for _ in range(39):
        cursor = client.get(f"/api/v1/tables/{mesa}/games", query_string={"limit": 100, "cursor": cursor}) \
            .get_json()["next"]
    show("history, a page 4,000 games deep", timed(fresh(f"/api/v1/tables/{mesa}/games", cursor=cursor), rounds),
         base)

    def export():
        from anotador.api.tables import _exports

        _exports.items.clear()  # made anew each time: a worker keeps the last ones it made
        r = client.get(f"/api/v1/tables/{mesa}/games.csv")
        assert r.status_code == 200 and r.data.count(b"\n") == 1 + 3 * games

    show(f"the whole history as CSV ({games} games)", timed(export, rounds, per_round=3), base)

    def last_turns(at_table: bool):
        """A fresh two-player game one turn from its end for each call; the call is that last turn."""
        ready = []
        for _ in range(rounds * 5):
            body = {"variant": "generala", "players": ["Abuela", "Beto"], **({"table": mesa} if at_table else {})}
            g = client.post("/api/v1/games", json=body, headers=auth if at_table else {}).get_json()
            gauth = {"Authorization": f"Bearer {g['token']}"}
            boxes = [b["id"] for b in g["boxes"]]
            seat = g["turn"]["player"]
            for n in range(len(boxes) * 2 - 1):
                client.post(f"/api/v1/games/{g['id']}/turns", headers=gauth,
                            json={"player": seat, "category": boxes[n // 2], "scratch": True})
                seat = 1 - seat
            ready.append((g["id"], gauth, seat, boxes[-1]))
        out = []
        for k in range(rounds):
            times = []
            for gid, gauth, seat, box in ready[k * 5:(k + 1) * 5]:
                t = time.perf_counter()
                r = client.post(f"/api/v1/games/{gid}/turns", headers=gauth,
                                json={"player": seat, "category": box, "scratch": True})
                times.append((time.perf_counter() - t) * 1e3)
                assert r.status_code == 201 and r.get_json()["status"] == "finished"
            out.append(statistics.median(times))
        return out

    alone = last_turns(False)
    show("the turn that ends a game at no table", alone, base)
    show("the turn that ends a game at the table", last_turns(True), base,
         "beside the one at no table")
    with app.app_context():
        db.engine.dispose()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--databases", default="sqlite,postgresql")
    ap.add_argument("--games", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for kind in args.databases.split(","):
            bench(kind, folder, args.games, args.rounds)


if __name__ == "__main__":
    main()
