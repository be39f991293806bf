"""A table's standings: one result row per seat of each finished game, kept by the games' own writes.

Every write of a game that belongs to a table (:func:`follow`, called by
:func:`~anotador.sheets.writes.commit`) replaces the game's result rows in
its own transaction: none while the game is played, one per seat once it
has finished, whatever finished, undid or corrected it. The standings
are then sums over those rows (one GROUP BY on an index), so they always
equal a count made again from the games, and cost the same at five games or
five thousand. A turn that does not end its game writes nothing here: it
keeps the fast path of :mod:`~anotador.sheets.turns`.

Where the advisor's table for the game's rules is built on this server,
the write that finishes the game judges it too (points lost, luck); where
it is not, those two stay empty and the standings say over how many games
they were judged.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import date, datetime
from typing import Any, Iterator
from zoneinfo import ZoneInfo

from sqlalchemy import Integer, and_, case, delete, func, insert, or_, select, tuple_
from sqlalchemy.sql.functions import coalesce

from ..extensions import db
from ..models import GameRow, MesaRow, PlayerRow, ResultRow
from ..rules import Game, RuleSet
from ..rules.game import name_key
from .errors import BadQuery
from .mesas import lock_row, moved_on, players_of, regulars_of
from .reads import recorded_turns
from .state import names_of, rules_of
from .times import aware, iso

RESULTS = ResultRow.__table__


def played_on(made: datetime, zone: str) -> str:
    """The day a game began, as the table tells days (its time zone): YYYY-MM-DD."""
    return aware(made).astimezone(ZoneInfo(zone)).date().isoformat()


def follow(game: GameRow, state: Game) -> None:
    """Replace the game's result rows with what ``state`` says, in the write's transaction (a table's game only).

    The table's row is locked first, as every write of the table does (a
    merge, a rename), so none of them wait for each other in opposite
    orders; its version moves on only if the rows did.
    """
    if game.mesa_id is None:
        return
    lock_row(game.mesa_id)
    gone = db.session.execute(delete(ResultRow).where(ResultRow.game_id == game.id)).rowcount
    rows = results_of(game, state) if state.outcome().status == "finished" else []
    if rows:
        db.session.execute(insert(ResultRow), rows)
    if gone or rows:
        moved_on(game.mesa_id)


def results_of(game: GameRow, state: Game) -> list[dict[str, Any]]:
    """One result row per seat of a finished game: what its standings count."""
    rules: RuleSet = state.rules
    out = state.outcome()
    names = names_of(game)
    players = regulars_of(names, game.mesa_id)
    zone = db.session.scalar(select(MesaRow.timezone).where(MesaRow.id == game.mesa_id))
    judged = _judged(game, rules, len(names))
    totals = state.totals()
    winners = set(out.winners)
    day = played_on(game.created_at, zone)
    return [{
        "mesa_id": game.mesa_id, "game_id": game.id, "seat": seat, "player_id": players[seat],
        "variant": rules.variant.id, "rules_key": rules.digest, "played_on": day, "total": totals[seat],
        "share": 1 / len(winners) if seat in winners else 0.0, "won": seat in winners,
        "shared": seat in winners and len(winners) > 1,
        "instant": seat in winners and out.reason == "instant_win",
        "generalas": rules.generalas_rolled(state.sheets[seat], state.bonuses[seat]),
        "scratches": len(state.scratched[seat]),
        "lost": None if judged is None else judged[0][seat], "luck": None if judged is None else judged[1][seat],
    } for seat in range(len(names))]


def _judged(game: GameRow, rules: RuleSet, players: int) -> tuple[list[float], list[float]] | None:
    """Each seat's points lost and luck, if the advisor's table for these rules is built here (never builds)."""
    from ..advice import tables  # the advisor imports this package: only when a game is judged
    from ..solver.advise import judge_game

    table = tables().peek(rules)
    if table is None:
        return None
    judgement = judge_game(table.solver, table.values, players, recorded_turns(game))
    return judgement.lost, judgement.luck


# -- reads -----------------------------------------------------------------------------

def _filters(mesa_id: str, query: dict[str, Any]) -> list:
    where = [ResultRow.mesa_id == mesa_id]
    if query.get("variant"):
        where.append(ResultRow.variant == query["variant"])
    if query.get("rules"):
        where.append(ResultRow.rules_key == query["rules"])
    if query.get("since"):
        where.append(ResultRow.played_on >= query["since"].isoformat())
    if query.get("until"):
        where.append(ResultRow.played_on <= query["until"].isoformat())
    return where


def _count(flag) -> Any:
    return func.sum(case((flag, 1), else_=0))


def standings(mesa: MesaRow, query: dict[str, Any]) -> dict[str, Any]:
    """The table, its players ranked, the rule sets it played and its wins month by month, within ``query``
    (``variant``, ``rules``: a rule set's digest, ``since`` and ``until``: days, both included)."""
    where = _filters(mesa.id, query)
    r = ResultRow
    rows = db.session.execute(
        select(r.player_id, func.count(), _count(r.won), _count(r.shared), func.sum(r.share),
               func.avg(r.total), func.max(r.total), _count(r.instant), func.sum(r.generalas),
               func.sum(r.scratches), func.count(r.lost), func.avg(r.lost), func.avg(r.luck),
               func.min(r.played_on), func.max(r.played_on))
        .where(*where).group_by(r.player_id)).all()
    regulars = players_of(mesa.id)
    ranked = []
    for (pid, games, wins, shared, share, average, best, instant, generalas, scratches, judged, lost, luck,
         first, last) in rows:
        ranked.append({
            "player": pid, "name": regulars[pid]["name"], "names": regulars[pid]["names"],
            "games": games, "wins": int(wins), "shared_wins": int(shared), "win_share": round(float(share), 4),
            "win_rate": round(int(wins) / games, 4), "average_total": round(float(average), 2),
            "best_total": best, "instant_wins": int(instant), "generalas": int(generalas),
            "scratches": int(scratches), "judged_games": judged,
            "average_lost": None if lost is None else round(float(lost), 2),
            "average_luck": None if luck is None else round(float(luck), 2),
            "first_played": first, "last_played": last,
        })
    ranked.sort(key=lambda p: (-p["wins"], -p["win_share"], -p["win_rate"], -p["average_total"], p["name"]))
    played = set(p["player"] for p in ranked)
    games = db.session.scalar(select(func.count(func.distinct(r.game_id))).where(*where)) or 0
    return {
        "id": mesa.id, "name": mesa.name, "timezone": mesa.timezone, "version": mesa.version,
        "created_at": iso(mesa.created_at), "updated_at": iso(mesa.updated_at),
        "filter": {"variant": query.get("variant"), "rules": query.get("rules"),
                   "since": _day(query.get("since")), "until": _day(query.get("until"))},
        "games": games,
        "playing": _playing(mesa.id),
        "standings": ranked,
        "players": [{"player": pid, "name": p["name"], "names": p["names"], "played": pid in played}
                    for pid, p in regulars.items()],
        "rule_sets": _rule_sets(mesa.id),
        "months": _months(where),
    }


def _day(d: date | None) -> str | None:
    return None if d is None else d.isoformat()


def _playing(mesa_id: str) -> int:
    """Games of the table not finished yet (they count once they are)."""
    return db.session.scalar(select(func.count()).select_from(GameRow)
                             .where(GameRow.mesa_id == mesa_id, GameRow.status != "finished")) or 0


def _rule_sets(mesa_id: str) -> list[dict[str, Any]]:
    """Each set of rules the table finished games under: its digest, variant, games, and the rules themselves."""
    r = ResultRow
    rows = db.session.execute(
        select(r.rules_key, r.variant, func.count(func.distinct(r.game_id)), func.min(r.game_id))
        .where(r.mesa_id == mesa_id).group_by(r.rules_key, r.variant)
        .order_by(func.count(func.distinct(r.game_id)).desc(), r.rules_key)).all()
    specs = dict(db.session.execute(select(GameRow.id, GameRow.rules)
                                    .where(GameRow.id.in_([row[3] for row in rows]))).all()) if rows else {}
    return [{"rules": key, "variant": variant, "games": games, "spec": specs.get(sample)}
            for key, variant, games, sample in rows]


def _months(where: list) -> list[dict[str, Any]]:
    """Games and each player's wins, month by month (for the chart of wins over time)."""
    r = ResultRow
    month = func.substr(r.played_on, 1, 7)
    out: dict[str, dict[str, Any]] = {}
    for m, pid, games, wins in db.session.execute(
            select(month, r.player_id, func.count(), _count(r.won)).where(*where)
            .group_by(month, r.player_id).order_by(month)):
        entry = out.setdefault(m, {"month": m, "wins": {}, "played": {}})
        entry["wins"][str(pid)] = int(wins)
        entry["played"][str(pid)] = games
    return list(out.values())


# -- history ------------------------------------------------------------------------------

def cursor_of(game: GameRow | tuple) -> str:
    """An opaque cursor after ``game`` (its creation time and id): the next page starts past it."""
    made, gid = (game.created_at, game.id) if isinstance(game, GameRow) else game
    raw = json.dumps([aware(made).isoformat(), gid], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def read_cursor(text: str) -> tuple[datetime, str]:
    """The (creation time, id) a cursor names, or BadQuery."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        made, gid = json.loads(raw)
        return datetime.fromisoformat(made), str(gid)
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise BadQuery("This cursor is not one of ours: start again from the first page.", "cursor") from None


def history(mesa: MesaRow, after: tuple[datetime, str] | None, limit: int) -> tuple[list[dict[str, Any]], str | None]:
    """A page of the table's games, newest first, and the cursor of the next page (None on the last).

    Keyset paging on (creation time, id): a game added while a client pages
    is newer than every page it has not read yet, so no game is listed twice
    or skipped.
    """
    g = GameRow
    q = select(g).where(g.mesa_id == mesa.id)
    if after is not None:
        made, gid = after
        q = q.where(or_(g.created_at < made, and_(g.created_at == made, g.id < gid)))
    games = list(db.session.scalars(q.order_by(g.created_at.desc(), g.id.desc()).limit(limit + 1)))
    more = len(games) > limit
    games = games[:limit]
    return [_item(mesa, game, seats) for game, seats in _seats(mesa, games)], \
        cursor_of(games[-1]) if more and games else None


def _seats(mesa: MesaRow, games: list[GameRow]) -> Iterator[tuple[GameRow, list[dict[str, Any]]]]:
    """Each game with its seats: name, regular, total (finished games: their results)."""
    ids = [game.id for game in games]
    if not ids:
        return
    names: dict[str, list[tuple[int, str, str]]] = {}
    for gid, seat, name, key in db.session.execute(
            select(PlayerRow.game_id, PlayerRow.seat, PlayerRow.name, PlayerRow.name_key)
            .where(PlayerRow.game_id.in_(ids)).order_by(PlayerRow.game_id, PlayerRow.seat)):
        names.setdefault(gid, []).append((seat, name, key))
    results = {(row.game_id, row.seat): row for row in db.session.scalars(
        select(ResultRow).where(ResultRow.game_id.in_(ids)))}
    aliases = {}
    for p in players_of(mesa.id).values():
        for alias in p["names"]:
            aliases[name_key(alias)] = p["id"]
    for game in games:
        seats = []
        for seat, name, key in names.get(game.id, []):
            result = results.get((game.id, seat))
            seats.append({"seat": seat, "name": name,
                          "player": result.player_id if result is not None else aliases.get(key),
                          "total": None if result is None else result.total,
                          "won": None if result is None else result.won})
        yield game, seats


def _item(mesa: MesaRow, game: GameRow, seats: list[dict[str, Any]]) -> dict[str, Any]:
    rules = rules_of(game)
    return {"id": game.id, "variant": rules.variant.id, "rules": rules.digest, "status": game.status,
            "reason": game.reason, "winners": list(game.winners), "created_at": iso(game.created_at),
            "played_on": played_on(game.created_at, mesa.timezone), "players": seats}


def all_games(mesa: MesaRow, batch: int = 500) -> Iterator[dict[str, Any]]:
    """Every game of the table, newest first, read a page at a time (the CSV export)."""
    after = None
    while True:
        page, nxt = history(mesa, after, batch)
        yield from page
        if nxt is None:
            return
        after = read_cursor(nxt)


__all__ = ["all_games", "cursor_of", "follow", "history", "played_on", "read_cursor", "results_of", "standings"]
