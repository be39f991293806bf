"""Benchmark the read path against the framework's own floor, in one run.

Two servers of one kind: the bare Flask echo app (bench/echo_app.py) and
Anotador on a fresh database holding one finished six-player game.
``--server`` picks the kind (2 processes each):

- ``granian`` (the default): Anotador as ``anotador serve`` runs it (the
  ASGI app: the gate and the bridge's 8 threads before Flask), the echo
  under granian's own WSGI interface with 8 threads, and the echo once
  more served as Anotador is (``bench.echo_app:asgi``): the ratios to it,
  "as served", say what the app costs beyond the way it is served;
- ``granian-wsgi``: both under granian's WSGI interface (Anotador without
  its live streams: what the ASGI bridge costs);
- ``gunicorn``: both under gunicorn's gthread workers, 4 threads each (the
  figures before granian).

The same client
processes drive each request in turn, alternating rounds so drift hits all
alike, and every figure is printed as a ratio to the echo measured beside it:

- the poll: GET a game with its current ETag → 304 (target ≥ 0.9 × echo);
- a game read: GET a finished six-player game → 200 (target ≥ 0.7 × echo);
- GET /api/v1/variants, /api/v1/variants/generala, /openapi.yaml and a
  static file with a matching ETag → 304 (built from nothing);
- POST /api/v1/score against the echo of the same body (target ≥ 0.9).

    python bench/reads.py [--server granian|granian-wsgi|gunicorn] [--databases sqlite,postgresql]
                          [--seconds 3] [--rounds 3] [--concurrency 4]
"""

from __future__ import annotations

import argparse
import http.client
import random
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._http import DEPLOYED, SERVE_WORKERS, Server, granian_wsgi_command, gunicorn, load, request  # noqa: E402
from bench.games import fresh_database  # noqa: E402
from bench.score import requests as score_requests  # noqa: E402
from bench.slow_servers import process, serve_command  # noqa: E402

NAMES = ["Ñandú", "Beto", "Ana Laura", "Guillermina Fernández", "Ceci", "Dani"]


def finished_game(port: int) -> tuple[str, str]:
    """Play a six-player Generala game to its end over HTTP; return its id and ETag."""
    rnd = random.Random(4)
    status, _, game = request(port, "POST", "/api/v1/games", {"variant": "generala", "players": NAMES})
    assert status == 201, game
    auth = {"Authorization": f"Bearer {game['token']}"}
    boxes = [b["id"] for b in game["boxes"]]
    for rnd_no in range(len(boxes)):
        for p in range(len(NAMES)):
            seat = (game["first_player"] + p) % len(NAMES)
            body = {"player": seat, "category": boxes[rnd_no], "dice": [rnd.randint(1, 6) for _ in range(5)],
                    "scratch": True}
            status, headers, answer = request(port, "POST", f"/api/v1/games/{game['id']}/turns", body, auth)
            assert status == 201, answer
    status, headers, answer = request(port, "GET", f"/api/v1/games/{game['id']}")
    assert answer["status"] == "finished"
    return game["id"], headers["ETag"]


def etag_of(port: int, path: str) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    resp = conn.getresponse()
    resp.read()
    conn.close()
    assert resp.status == 200, (path, resp.status)
    return resp.getheader("ETag")


@contextmanager
def granian_wsgi(app: str, env: dict | None = None, threads: int = 8):
    """``app`` under granian's WSGI interface (SERVE_WORKERS processes, ``threads`` each); up once it answers."""
    with process(granian_wsgi_command(app, threads), f"granian {app}", "/healthz" if app == "wsgi:app" else "/echo",
                 {"ANOTADOR_SOLVER_BUILD_AHEAD": "false", **(env or {})}) as (port, proc):
        yield Server(proc, port)


@contextmanager
def servers(kind: str, env: dict):
    """The echo and Anotador under the server ``kind``, the echo as Anotador is served (granian only, else
    None), and the words that say what ran."""
    if kind == "gunicorn":
        with gunicorn("bench.echo_app:app", **DEPLOYED) as echo, gunicorn("wsgi:app", env=env, **DEPLOYED) as app:
            yield echo, app, None, (f"gunicorn {SERVE_WORKERS} x {DEPLOYED['worker_class']} "
                                    f"({DEPLOYED['threads']} threads)")
    elif kind == "granian-wsgi":
        with granian_wsgi("bench.echo_app:app") as echo, granian_wsgi("wsgi:app", env) as app:
            yield echo, app, None, f"granian {SERVE_WORKERS} x WSGI (8 threads) for both"
    else:
        deployed = {"ANOTADOR_SOLVER_BUILD_AHEAD": "false", "THREADS": "8"}
        with granian_wsgi("bench.echo_app:app") as echo, \
                process(serve_command("bench.echo_app:asgi"), "the echo as deployed", "/echo", deployed) as (e, ep), \
                process(serve_command(), "anotador serve", "/healthz", {**env, **deployed}) as (port, proc):
            time.sleep(2)  # a worker answers /healthz before the other has started
            yield echo, Server(proc, port), Server(ep, e), (
                f"granian {SERVE_WORKERS} x: Anotador as `anotador serve` runs it (ASGI: the gate, 8 threads), "
                "the echo as WSGI (8 threads) and as Anotador is served")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", choices=("granian", "granian-wsgi", "gunicorn"), default="granian")
    ap.add_argument("--databases", default="sqlite,postgresql")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=4)
    args = ap.parse_args()
    scores = score_requests()
    for kind in args.databases.split(","):
        with tempfile.TemporaryDirectory() as folder:
            url = fresh_database(kind, folder)
            env = {"DATABASE_URL": url, "ANOTADOR_GAMES_PER_MINUTE": "0", "ANOTADOR_SOLVER_DIR": folder}
            with servers(args.server, env) as (echo, app, deployed, served):
                game, tag = finished_game(app.port)
                static = "/static/app.css"
                cases = {  # name: (port, method, path, bodies, headers, baseline name)
                    "echo GET": (echo.port, "GET", "/echo", [None], None, None),
                    "poll 304": (app.port, "GET", f"/api/v1/games/{game}", [None], {"If-None-Match": tag},
                                 "echo GET"),
                    "game 200": (app.port, "GET", f"/api/v1/games/{game}", [None], None, "echo GET"),
                    "variants 304": (app.port, "GET", "/api/v1/variants", [None],
                                     {"If-None-Match": etag_of(app.port, "/api/v1/variants")}, "echo GET"),
                    "variant 304": (app.port, "GET", "/api/v1/variants/generala", [None],
                                    {"If-None-Match": etag_of(app.port, "/api/v1/variants/generala")}, "echo GET"),
                    "openapi 304": (app.port, "GET", "/openapi.yaml", [None],
                                    {"If-None-Match": etag_of(app.port, "/openapi.yaml")}, "echo GET"),
                    "static 304": (app.port, "GET", static, [None], {"If-None-Match": etag_of(app.port, static)},
                                   "echo GET"),
                    "echo POST": (echo.port, "POST", "/api/v1/score", scores, None, None),
                    **({"echo GET as served": (deployed.port, "GET", "/echo", [None], None, None),
                        "echo POST as served": (deployed.port, "POST", "/api/v1/score", scores, None, None)}
                       if deployed else {}),
                    "score": (app.port, "POST", "/api/v1/score", scores, None, "echo POST"),
                }
                for port, method, path, bodies, headers, _ in cases.values():  # warm up every worker
                    load(port, path, bodies, args.concurrency, 0.5, method=method, headers=headers)
                results: dict[str, list[dict]] = {name: [] for name in cases}
                for _ in range(args.rounds):
                    for name, (port, method, path, bodies, headers, _) in cases.items():
                        results[name].append(load(port, path, bodies, args.concurrency, args.seconds,
                                                  method=method, headers=headers))
            print(f"{kind}: {served}, {args.concurrency} client processes, "
                  f"{args.rounds} x {args.seconds:g}s each, alternating")
            targets = {"poll 304": 0.9, "game 200": 0.7, "score": 0.9}
            for name, runs in results.items():
                rps = [r["rps"] for r in runs]
                base = cases[name][5]
                ratio = ""
                if base:
                    ratios = [a["rps"] / b["rps"] for a, b in zip(runs, results[base])]
                    goal = f" (target >= {targets[name]})" if name in targets else ""
                    ratio = (f"  x {base}: median {statistics.median(ratios):.2f} "
                             f"[{min(ratios):.2f}-{max(ratios):.2f}]{goal}")
                    if f"{base} as served" in results:
                        served_ratios = [a["rps"] / b["rps"] for a, b in zip(runs, results[f"{base} as served"])]
                        ratio += f"; as served: {statistics.median(served_ratios):.2f}"
                print(f"  {name:19s} {statistics.median(rps):7.0f} req/s [{min(rps):5.0f}-{max(rps):5.0f}]  "
                      f"p50 {statistics.median(r['p50_ms'] for r in runs):5.2f} ms  "
                      f"p99 {statistics.median(r['p99_ms'] for r in runs):6.2f} ms{ratio}")


if __name__ == "__main__":
    main()
