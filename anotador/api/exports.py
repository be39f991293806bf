"""A table's history as a family's spreadsheet reads it: its language's words, separator and file name.

``games.csv?lang=es`` names its columns and values in Spanish (the variant
and its house rules by name, who won as "sí"/"no", the seat from 1), and
separates its cells as a spreadsheet set to that language expects them:
``;`` where the decimal mark is a comma (es, pt, de, sv), ``,`` in
English. UTF-8 with a byte-order mark, so every script is read as written.
Without ``lang`` the export keeps the API's own names.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from urllib.parse import quote

from .. import sheets
from ..printing.words import REASONS, house_rules

#: Each language's column names, in the export's order.
HEADERS = {
    "es": ("Fecha", "Partida", "Variante", "Reglas", "Estado", "Motivo", "Lugar", "Jugador de la mesa",
           "Nombre en la planilla", "Total", "Ganó"),
    "en": ("Date", "Game", "Variant", "Rules", "Status", "Why", "Seat", "Regular", "Name on the sheet", "Total",
           "Won"),
    "pt": ("Data", "Partida", "Variante", "Regras", "Estado", "Motivo", "Lugar", "Jogador da mesa",
           "Nome na folha", "Total", "Ganhou"),
    "de": ("Datum", "Spiel", "Variante", "Regeln", "Stand", "Grund", "Platz", "Stammspieler", "Name auf dem Block",
           "Summe", "Gewonnen"),
    "sv": ("Datum", "Spel", "Variant", "Regler", "Status", "Varför", "Plats", "Stamspelare", "Namn på protokollet",
           "Summa", "Vann"),
}
STATUS = {
    "es": {"playing": "en juego", "finished": "terminada"}, "en": {"playing": "in course", "finished": "finished"},
    "pt": {"playing": "em andamento", "finished": "terminada"}, "de": {"playing": "läuft", "finished": "beendet"},
    "sv": {"playing": "pågår", "finished": "avslutat"},
}
YES_NO = {"es": ("sí", "no"), "en": ("yes", "no"), "pt": ("sim", "não"), "de": ("ja", "nein"), "sv": ("ja", "nej")}
STANDARD = {"es": "las publicadas", "en": "as published", "pt": "as publicadas", "de": "wie veröffentlicht",
            "sv": "som publicerade"}
#: The cell separator a spreadsheet set to the language expects: ";" where "," is the decimal mark.
SEPARATOR = {"es": ";", "en": ",", "pt": ";", "de": ";", "sv": ";"}


def cell(text: str) -> str:
    """A name as a spreadsheet cell: one starting like a formula is quoted, never run (CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text  # "" stays ""


#: The API's own columns (no ``lang``): one row per seat of each game, values as the API names them.
CSV_COLUMNS = ("played_on", "game", "variant", "rules", "status", "reason", "seat", "player", "name", "total", "won")


def history_csv(mesa, lang: str | None = None) -> str:
    """The table's every game, one row per seat, newest first, read whole before answering (one snapshot, and
    no error halfway through a file): in ``lang`` for a spreadsheet, or with no ``lang`` as the API names its
    columns and values (ids, the rules' digest, seats from 0, won as 1/0, ",")."""
    regulars = {pid: p["name"] for pid, p in sheets.players_of(mesa.id).items()}
    named: dict[str, tuple[str, str]] = {}
    if lang is None:
        headers, separator, (yes, no), first_seat = CSV_COLUMNS, ",", ("1", "0"), 0
    else:
        headers, separator, (yes, no), first_seat = HEADERS[lang], SEPARATOR[lang], YES_NO[lang], 1
        for rules in sheets.rule_sets(mesa):
            extra = house_rules(rules, lang)
            named[rules.digest] = (rules.variant.names[lang], extra if extra is not None else STANDARD[lang])
    out = io.StringIO()
    writer = csv.writer(out, delimiter=separator)
    writer.writerow(headers)
    for game in sheets.all_games(mesa):
        variant, rules = named.get(game["rules"], (game["variant"], game["rules"]))
        status, reason = game["status"], game["reason"] or ""
        if lang is not None:
            status = STATUS[lang].get(status, status)
            reason = REASONS.get(game["reason"], {}).get(lang, reason)
        for seat in game["players"]:
            won = "" if seat["won"] is None else (yes if seat["won"] else no)
            writer.writerow([game["played_on"], game["id"], variant, rules, status, reason, seat["seat"] + first_seat,
                             cell(regulars.get(seat["player"], "")), cell(seat["name"]),
                             "" if seat["total"] is None else seat["total"], won])
    return "\ufeff" + out.getvalue()


def attachment(name: str) -> str:
    """A Content-Disposition naming the file after the table ("Los del domingo.csv"): the name as written
    (RFC 6266's filename*), and a plain-ASCII fallback for clients that read only filename."""
    safe = re.sub(r'[\x00-\x1f\x7f"\\/:*?<>|]+', " ", name).strip() or "anotador"
    plain = unicodedata.normalize("NFKD", safe).encode("ascii", "ignore").decode().strip() or "anotador"
    return f"attachment; filename=\"{plain}.csv\"; filename*=UTF-8''{quote(safe + '.csv', safe='')}"
