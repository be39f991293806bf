"""A table's history as a family's spreadsheet reads it: its language's words, separator and file name.

``games.csv?lang=es`` names its columns and values in Spanish (the variant
and its house rules by name, who won as "sí"/"no", the seat from 1), and
separates its cells as a spreadsheet set to that language expects them:
``;`` where the language's decimal mark is a comma (CLDR's, through
Babel), ``,`` in English. UTF-8 with a byte-order mark, so every script is read as written.
Without ``lang`` the export keeps the API's own names.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from urllib.parse import quote

from babel.numbers import get_decimal_symbol

from .. import sheets
from ..locales import Message, Messages
from ..printing.words import REASONS, UI, house_rules

#: The columns, in the export's order: their names are the catalogs' ``export.col.<column>``.
COLUMNS = ("date", "game", "variant", "rules", "status", "reason", "seat", "regular", "name", "total", "won")
HEADERS = Messages("export.col")
STATUS = Messages("export.status")
#: The Rules column of a game played by the rules as published.
STANDARD = Message("export.standard")


def separator(lang: str) -> str:
    """The cell separator a spreadsheet set to the language expects: ";" where "," is the decimal mark (CLDR)."""
    return ";" if get_decimal_symbol(lang) == "," else ","


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
        headers, delimiter, (yes, no), first_seat = CSV_COLUMNS, ",", ("1", "0"), 0
    else:
        headers = tuple(HEADERS[column][lang] for column in COLUMNS)
        delimiter, (yes, no), first_seat = separator(lang), (UI["yes"][lang], UI["no"][lang]), 1
        for rules in sheets.rule_sets(mesa):
            extra = house_rules(rules, lang)
            named[rules.digest] = (rules.variant.names[lang], extra if extra is not None else STANDARD[lang])
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter)
    writer.writerow(headers)
    for game in sheets.all_games(mesa):
        variant, rules = named.get(game["rules"], (game["variant"], game["rules"]))
        status, reason = game["status"], game["reason"] or ""
        if lang is not None:
            status = STATUS[status][lang] if status in STATUS else status
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
