"""Playing whole games at a table through the API, and counting its standings again from the games alone.

The count here reads only what any client can (the table's history, each
game's body, its analysis) and shares no code with the server's: it is
the oracle the standings are held to.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

from .dbkit import Table

#: The boxes only five of a kind goes in, in every built-in variant.
FIVE_OF_A_KIND = ("generala", "double_generala", "small_general", "five_of_a_kind", "yahtzee", "yatzy", "yacht")
NUMBERS = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}


class Mesa:
    """A table made through the API."""

    def __init__(self, client, name="Los domingos", **extra):
        r = client.post("/api/v1/tables", json={"name": name, **extra})
        assert r.status_code == 201, r.get_json()
        self.client, self.body = client, r.get_json()
        self.id, self.token = self.body["id"], self.body["token"]
        self.auth = {"Authorization": f"Bearer {self.token}"}

    def url(self, suffix=""):
        return f"/api/v1/tables/{self.id}{suffix}"

    def get(self, **query):
        r = self.client.get(self.url(), query_string=query)
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def game(self, players, variant="generala", **extra) -> Table:
        body = {"players": list(players), "table": self.id, **extra}
        body["rules" if isinstance(variant, dict) else "variant"] = variant
        r = self.client.post("/api/v1/games", json=body, headers=self.auth)
        assert r.status_code == 201, r.get_json()
        return Table(self.client, r.get_json())

    def history(self, limit=100) -> list[dict[str, Any]]:
        out, url = [], self.url("/games")
        query: dict[str, Any] = {"limit": limit}
        while True:
            r = self.client.get(url, query_string=query)
            assert r.status_code == 200, r.get_json()
            page = r.get_json()
            out += page["games"]
            if page["next"] is None:
                assert "Link" not in r.headers
                return out
            assert f"cursor={page['next']}" in r.headers["Link"]
            query = {"limit": limit, "cursor": page["next"]}


def play_turn(table: Table, rng: random.Random, five_of_a_kind: float = 0.15) -> dict:
    """The player to move fills their first open box: a number box with random dice, a five-of-a-kind box
    with five of a kind now and then (else scratched), any other box scratched."""
    game = table.get()
    seat = game["turn"]["player"]
    sheet = game["players"][seat]["sheet"]
    box = next(b["id"] for b in game["boxes"] if sheet[b["id"]] is None)
    dice = [rng.randint(1, 6) for _ in range(5)]
    if box in NUMBERS:
        return table.turn(seat, box, dice)
    if box in FIVE_OF_A_KIND and rng.random() < five_of_a_kind:
        return table.turn(seat, box, [rng.randint(1, 6)] * 5)
    return table.turn(seat, box, scratch=True)


def play_out(table: Table, rng: random.Random, **kw) -> dict:
    """Play until the game is finished (or waits for a roll-off)."""
    game = table.get()
    while game["status"] != "finished" and game["turn"] is not None:
        game = play_turn(table, rng, **kw)
    return game


def recount(mesa: Mesa, judged_rules: set[str] = frozenset()) -> dict[int, dict[str, Any]]:
    """Each regular's standings counted from the games alone; ``judged_rules``: the rule sets (digests) the
    advisor judges on this server, whose games' analyses give points lost and luck."""
    body = mesa.get()
    regular = {}
    for p in body["players"]:
        for name in p["names"]:
            regular[name.casefold()] = p["player"]
    sums: dict[int, dict[str, Any]] = defaultdict(lambda: defaultdict(float))
    totals: dict[int, list[int]] = defaultdict(list)
    for item in mesa.history():
        if item["status"] != "finished":
            continue
        game = mesa.client.get(f"/api/v1/games/{item['id']}").get_json()
        analysis = None
        if item["rules"] in judged_rules:
            analysis = mesa.client.get(f"/api/v1/games/{item['id']}/analysis").get_json()
        winners = game["winners"]
        for seat, p in enumerate(game["players"]):
            pid = regular[p["name"].casefold()]
            mine = sums[pid]
            won = seat in winners
            mine["games"] += 1
            mine["wins"] += won
            mine["shared_wins"] += won and len(winners) > 1
            mine["win_share"] += 1 / len(winners) if won else 0
            mine["instant_wins"] += won and game["reason"] == "instant_win"
            mine["generalas"] += sum(1 for b in FIVE_OF_A_KIND if p["sheet"].get(b))
            mine["generalas"] += p["bonuses"].get("yahtzee_bonus", 0) // 100
            mine["scratches"] += len(p["scratched"])
            totals[pid].append(p["total"])
            if analysis is not None:
                mine["judged_games"] += 1
                mine["lost"] += analysis["players"][seat]["lost"]
                mine["luck"] += analysis["players"][seat]["luck"]
    out = {}
    for pid, mine in sums.items():
        out[pid] = {k: mine[k] for k in ("games", "wins", "shared_wins", "instant_wins", "generalas", "scratches",
                                        "judged_games")}
        out[pid]["win_share"] = round(mine["win_share"], 4)
        out[pid]["average_total"] = round(sum(totals[pid]) / len(totals[pid]), 2)
        out[pid]["best_total"] = max(totals[pid])
        judged = mine["judged_games"]
        out[pid]["average_lost"] = round(mine["lost"] / judged, 2) if judged else None
        out[pid]["average_luck"] = round(mine["luck"] / judged, 2) if judged else None
    return out


def assert_standings_recount(mesa: Mesa, judged_rules: set[str] = frozenset()) -> dict[str, Any]:
    """The table's standings equal :func:`recount`, figure by figure; returns the standings."""
    body = mesa.get()
    expected = recount(mesa, judged_rules)
    got = {row["player"]: row for row in body["standings"]}
    assert set(got) == set(expected)
    for pid, want in expected.items():
        row = got[pid]
        for key, value in want.items():
            if key in ("average_lost", "average_luck") and value is not None:
                assert row[key] is not None and abs(row[key] - value) < 0.011, (pid, key, row[key], value)
            else:
                assert row[key] == value, (pid, key, row[key], value)
        assert row["win_rate"] == round(row["wins"] / row["games"], 4)
    assert body["games"] == len({g["id"] for g in mesa.history() if g["status"] == "finished"})
    return body
