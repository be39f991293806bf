"""A table's standings: one result row per seat of each finished game, kept by the games' own writes.

Every write of a game that belongs to a table (:func:`follow`, called by
each write before its transaction ends) replaces the game's result rows in
that transaction: none while the game is played, one per seat once it
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
import calendar
import json
from datetime import date, datetime
from typing import Any, Iterator
from zoneinfo import ZoneInfo

from flask import current_app
from sqlalchemy import and_, case, delete, func, insert, or_, select

from ..extensions import db
from ..store.models import GameRow, MesaRow, PlayerRow, ResultRow, TallyRow
from ..rules import Game, RuleSet, build_rules
from ..rules.game import name_key
from .errors import BadQuery
from .mesas import lock_row, moved_on, players_of, regulars_of
from .reads import possible_id, recorded_turns
from .state import names_of
from .times import aware, iso

RESULTS = ResultRow.__table__


def played_on(made: datetime, zone: str) -> str:
    """The day a game began, as the table tells days (its time zone): YYYY-MM-DD."""
    return aware(made).astimezone(ZoneInfo(zone)).date().isoformat()


def follow(game: GameRow, state: Game) -> None:
    """Replace the game's result rows with what ``state`` says, and sum the tallies they fall in again, in the
    write's transaction (a table's game only).

    The table's row is locked first, as every write of the table does (a
    merge, a rename), so none of them wait for each other in opposite
    orders; its version moves on only if the rows did.
    """
    if game.mesa_id is None:
        return
    lock_row(game.mesa_id)
    r = ResultRow
    gone = db.session.execute(delete(r).where(r.game_id == game.id)
                              .returning(r.player_id, r.variant, r.rules_key, r.played_on)).all()
    rows = results_of(game, state) if state.outcome().status == "finished" else []
    if rows:
        db.session.execute(insert(ResultRow), rows)
    if not (gone or rows):
        return
    players = {row[0] for row in gone} | {row["player_id"] for row in rows}
    buckets = {(v, k, day[:7]) for _, v, k, day in gone} | {(x["variant"], x["rules_key"], x["played_on"][:7])
                                                             for x in rows}
    for variant, rules_key, month in buckets:
        retally(game.mesa_id, players, variant, rules_key, month)
    moved_on(game.mesa_id)


def _month_days(month: str) -> tuple[str, str]:
    """The first and last day a month's days can be written as (YYYY-MM-01 to YYYY-MM-31 as text)."""
    return f"{month}-01", f"{month}-31"


_TALLIED = ("mesa_id", "player_id", "variant", "rules_key", "month", "games", "leads", "wins", "shared", "share",
            "total_sum", "best", "instant", "generalas", "scratches", "judged", "lost_sum", "luck_sum", "first_day",
            "last_day")


def _sums(month):
    """What a tally holds, summed from result rows (``month``: the expression that names their month)."""
    r = ResultRow
    return (func.count(), _count(r.seat == 0), _count(r.won), _count(r.shared), func.sum(r.share),
            func.sum(r.total), func.max(r.total), _count(r.instant), func.sum(r.generalas), func.sum(r.scratches),
            func.count(r.lost), func.sum(r.lost), func.sum(r.luck), func.min(r.played_on), func.max(r.played_on))


def retally(mesa_id: str, players: set[int] | None = None, variant: str | None = None, rules_key: str | None = None,
            month: str | None = None) -> None:
    """Sum the tallies of ``players`` (every regular: None) again from their results, in one rule set and month
    (or all of them): in the caller's write."""
    r, t = ResultRow, TallyRow
    where_r, where_t = [r.mesa_id == mesa_id], [t.mesa_id == mesa_id]
    if players is not None:
        where_r.append(r.player_id.in_(players))
        where_t.append(t.player_id.in_(players))
    if variant is not None:
        where_r += [r.variant == variant, r.rules_key == rules_key]
        where_t += [t.variant == variant, t.rules_key == rules_key]
    if month is not None:
        first, last = _month_days(month)
        where_r.append(r.played_on.between(first, last))
        where_t.append(t.month == month)
    db.session.execute(delete(t).where(*where_t))
    of_month = func.substr(r.played_on, 1, 7)
    db.session.execute(insert(t).from_select(
        list(_TALLIED), select(r.mesa_id, r.player_id, r.variant, r.rules_key, of_month, *_sums(of_month))
        .where(*where_r).group_by(r.mesa_id, r.player_id, r.variant, r.rules_key, of_month)))


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
    """Each seat's points lost and luck, if the advisor can judge the game here (never builds a table): the
    advisor the app gave (``anotador.judge``, :func:`anotador.advisor.tables.judged`), so this package needs none."""
    judge = current_app.extensions.get("anotador.judge")
    return None if judge is None else judge(rules, players, recorded_turns(game))


# -- reads -----------------------------------------------------------------------------

def _count(flag) -> Any:
    return func.sum(case((flag, 1), else_=0))


#: A player's figures in one month, as both sources give them (a tally's sums, or result rows summed).
_FIGURES = ("games", "leads", "wins", "shared", "share", "total_sum", "best", "instant", "generalas", "scratches",
            "judged", "lost_sum", "luck_sum", "first_day", "last_day")


def _by_player_month(mesa_id: str, query: dict[str, Any]) -> list[tuple]:
    """(player, month, figures...) within ``query``: whole months from the tallies, the days of a month the
    range cuts from the results themselves."""
    r, t = ResultRow, TallyRow
    since, until = query.get("since"), query.get("until")
    where_t, where_r = [t.mesa_id == mesa_id], [r.mesa_id == mesa_id]
    if query.get("variant"):
        where_t.append(t.variant == query["variant"])
        where_r.append(r.variant == query["variant"])
    if query.get("rules"):
        where_t.append(t.rules_key == query["rules"])
        where_r.append(r.rules_key == query["rules"])
    cut_since = since is not None and since.day != 1
    # a month's last day by the calendar, not by the day after it: 9999-12-31 has none
    cut_until = until is not None and until.day != calendar.monthrange(until.year, until.month)[1]
    parts = []  # ranges of days read from the results
    if since is not None:
        where_t.append(t.month > since.isoformat()[:7] if cut_since else t.month >= since.isoformat()[:7])
    if until is not None:
        where_t.append(t.month < until.isoformat()[:7] if cut_until else t.month <= until.isoformat()[:7])
    if since is not None and until is not None and since.isoformat()[:7] == until.isoformat()[:7]:
        if cut_since or cut_until:
            parts.append((since.isoformat(), until.isoformat()))
    else:
        if cut_since:
            parts.append((since.isoformat(), _month_days(since.isoformat()[:7])[1]))
        if cut_until:
            parts.append((_month_days(until.isoformat()[:7])[0], until.isoformat()))
    rows = list(db.session.execute(
        select(t.player_id, t.month, func.sum(t.games), func.sum(t.leads), func.sum(t.wins), func.sum(t.shared),
               func.sum(t.share), func.sum(t.total_sum), func.max(t.best), func.sum(t.instant),
               func.sum(t.generalas), func.sum(t.scratches), func.sum(t.judged), func.sum(t.lost_sum),
               func.sum(t.luck_sum), func.min(t.first_day), func.max(t.last_day))
        .where(*where_t).group_by(t.player_id, t.month)))
    of_month = func.substr(r.played_on, 1, 7)
    for first, last in parts:
        rows += db.session.execute(select(r.player_id, of_month, *_sums(of_month))
                                   .where(*where_r, r.played_on.between(first, last))
                                   .group_by(r.player_id, of_month))
    return rows


def standings(mesa: MesaRow, query: dict[str, Any]) -> dict[str, Any]:
    """The table, its players ranked, the rule sets it played and its wins month by month, within ``query``
    (``variant``, ``rules``: a rule set's digest, ``since`` and ``until``: days, both included)."""
    players: dict[int, dict[str, Any]] = {}
    months: dict[str, dict[str, Any]] = {}
    games = 0
    for pid, month, *figures in _by_player_month(mesa.id, query):
        f = dict(zip(_FIGURES, figures))
        games += int(f["leads"])
        mine = players.setdefault(pid, {k: 0 for k in _FIGURES} | {"best": None, "first_day": None,
                                                                  "last_day": None})
        for k in ("games", "leads", "wins", "shared", "share", "total_sum", "instant", "generalas", "scratches",
                  "judged", "lost_sum", "luck_sum"):
            mine[k] += f[k] or 0
        mine["best"] = f["best"] if mine["best"] is None else max(mine["best"], f["best"])
        mine["first_day"] = min(filter(None, (mine["first_day"], f["first_day"])))
        mine["last_day"] = max(filter(None, (mine["last_day"], f["last_day"])))
        entry = months.setdefault(month, {"month": month, "wins": {}, "played": {}})
        entry["wins"][str(pid)] = entry["wins"].get(str(pid), 0) + int(f["wins"])
        entry["played"][str(pid)] = entry["played"].get(str(pid), 0) + int(f["games"])
    regulars = players_of(mesa.id)
    ranked = []
    for pid, f in players.items():
        n, judged = int(f["games"]), int(f["judged"])
        ranked.append({
            "player": pid, "name": regulars[pid]["name"], "names": regulars[pid]["names"],
            "games": n, "wins": int(f["wins"]), "shared_wins": int(f["shared"]), "win_share": round(float(f["share"]), 4),
            "win_rate": round(int(f["wins"]) / n, 4), "average_total": round(f["total_sum"] / n, 2),
            "best_total": f["best"], "instant_wins": int(f["instant"]), "generalas": int(f["generalas"]),
            "scratches": int(f["scratches"]), "judged_games": judged,
            "average_lost": round(f["lost_sum"] / judged, 2) if judged else None,
            "average_luck": round(f["luck_sum"] / judged, 2) if judged else None,
            "first_played": f["first_day"], "last_played": f["last_day"],
        })
    ranked.sort(key=lambda p: (-p["wins"], -p["win_share"], -p["win_rate"], -p["average_total"], p["name"]))
    return {
        "id": mesa.id, "name": mesa.name, "timezone": mesa.timezone, "version": mesa.version,
        "created_at": iso(mesa.created_at), "updated_at": iso(mesa.updated_at),
        "filter": {"variant": query.get("variant"), "rules": query.get("rules"),
                   "since": _day(query.get("since")), "until": _day(query.get("until"))},
        "games": games,
        "playing": _playing(mesa.id),
        "standings": ranked,
        "players": [{"player": pid, "name": p["name"], "names": p["names"], "played": pid in players}
                    for pid, p in regulars.items()],
        "rule_sets": _rule_sets(mesa.id),
        "months": [months[m] for m in sorted(months)],
    }


def _day(d: date | None) -> str | None:
    return None if d is None else d.isoformat()


def _playing(mesa_id: str) -> int:
    """Games of the table not finished yet (they count once they are)."""
    return db.session.scalar(select(func.count()).select_from(GameRow)
                             .where(GameRow.mesa_id == mesa_id, GameRow.status != "finished")) or 0


def _rule_sets(mesa_id: str) -> list[dict[str, Any]]:
    """Each set of rules the table finished games under: its digest, variant, games, and the rules themselves."""
    t = TallyRow
    rows = db.session.execute(
        select(t.rules_key, t.variant, func.sum(t.leads)).where(t.mesa_id == mesa_id)
        .group_by(t.rules_key, t.variant).order_by(func.sum(t.leads).desc(), t.rules_key)).all()
    out = []
    for key, variant, games in rows:
        spec = db.session.scalar(select(GameRow.rules).join(ResultRow, ResultRow.game_id == GameRow.id)
                                 .where(ResultRow.mesa_id == mesa_id, ResultRow.rules_key == key).limit(1))
        out.append({"rules": key, "variant": variant, "games": int(games), "spec": spec})
    return out


# -- history ------------------------------------------------------------------------------

def cursor_of(game: tuple[datetime, str]) -> str:
    """An opaque cursor after a game (its creation time and id): the next page starts past it."""
    made, gid = game
    raw = json.dumps([aware(made).isoformat(), gid], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def read_cursor(text: str) -> tuple[datetime, str]:
    """The (creation time, id) a cursor names, or BadQuery."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        made, gid = json.loads(raw)
        when = datetime.fromisoformat(made)
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        when, gid = None, None
    # ours hold a time and a game id: anything else (a NUL, a lone surrogate) must not reach the driver,
    # which cannot bind some of it
    if when is None or not possible_id(gid):
        raise BadQuery("This cursor is not one of ours: start again from the first page.", "cursor")
    return when, gid


def history(mesa: MesaRow, after: tuple[datetime, str] | None, limit: int) -> tuple[list[dict[str, Any]], str | None]:
    """A page of the table's games, newest first, and the cursor of the next page (None on the last).

    Keyset paging on (creation time, id): a game added while a client pages
    is newer than every page it has not read yet, so no game is listed twice
    or skipped. Plain rows, not ORM objects: the export reads every game.
    """
    g = GameRow
    q = select(g.id, g.rules, g.status, g.reason, g.winners, g.created_at).where(g.mesa_id == mesa.id)
    if after is not None:
        made, gid = after
        q = q.where(or_(g.created_at < made, and_(g.created_at == made, g.id < gid)))
    games = db.session.execute(q.order_by(g.created_at.desc(), g.id.desc()).limit(limit + 1)).all()
    more = len(games) > limit
    games = games[:limit]
    seats = _seats(mesa, [game.id for game in games])
    items = []
    for game in games:
        variant, digest = _named(game.rules)
        items.append({"id": game.id, "variant": variant, "rules": digest, "status": game.status,
                      "reason": game.reason, "winners": list(game.winners), "created_at": iso(game.created_at),
                      "played_on": played_on(game.created_at, mesa.timezone), "players": seats.get(game.id, [])})
    return items, cursor_of((games[-1].created_at, games[-1].id)) if more and games else None


#: A stored game's rules → its variant and digest: a table's games share a few rule sets, and building one
#: costs a quarter of a millisecond.
_NAMED: dict[str, tuple[str, str]] = {}


def _named(spec: dict[str, Any]) -> tuple[str, str]:
    key = json.dumps(spec, sort_keys=True)
    found = _NAMED.get(key)
    if found is None:
        rules = build_rules(spec)
        found = (rules.variant.id, rules.digest)
        if len(_NAMED) < 1024:
            _NAMED[key] = found
    return found


def _seats(mesa: MesaRow, ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Each game's seats: name, the regular it counts for, total and whether it won (finished games: their
    results; games still played: the regular their name stands for, and no total yet)."""
    if not ids:
        return {}
    r = ResultRow
    results = {(row.game_id, row.seat): row for row in db.session.execute(
        select(r.game_id, r.seat, r.player_id, r.total, r.won).where(r.game_id.in_(ids)))}
    aliases = {}
    for p in players_of(mesa.id).values():
        for alias in p["names"]:
            aliases[name_key(alias)] = p["id"]
    out: dict[str, list[dict[str, Any]]] = {}
    for gid, seat, name, key in db.session.execute(
            select(PlayerRow.game_id, PlayerRow.seat, PlayerRow.name, PlayerRow.name_key)
            .where(PlayerRow.game_id.in_(ids)).order_by(PlayerRow.game_id, PlayerRow.seat)):
        result = results.get((gid, seat))
        out.setdefault(gid, []).append({
            "seat": seat, "name": name, "player": result.player_id if result is not None else aliases.get(key),
            "total": None if result is None else result.total, "won": None if result is None else result.won})
    return out


def rule_sets(mesa: MesaRow) -> list[RuleSet]:
    """The rule sets the table's games were played by, each once (the export names them)."""
    found: dict[str, RuleSet] = {}
    for spec in db.session.scalars(select(GameRow.rules).where(GameRow.mesa_id == mesa.id)):
        key = json.dumps(spec, sort_keys=True)
        if key not in found:
            found[key] = build_rules(spec)
    return list(found.values())


def all_games(mesa: MesaRow, batch: int = 500) -> Iterator[dict[str, Any]]:
    """Every game of the table, newest first, read a page at a time (the CSV export)."""
    after = None
    while True:
        page, nxt = history(mesa, after, batch)
        yield from page
        if nxt is None:
            return
        after = read_cursor(nxt)


__all__ = ["all_games", "rule_sets", "cursor_of", "follow", "retally", "history", "played_on", "read_cursor", "results_of", "standings"]
