"""Printable sheets as PDF: blank for any rule set, filled for a game.

Every answer carries an ETag computed from what the sheet is made of, before
anything is drawn, so a repeated request answers 304 at once.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from flask import Blueprint, Response, request

from .. import sheets
from ..printing import blank_sheet, check_fits, check_options, filled_sheet
from ..rules import RuleSet, find_variant
from .schemas import FilledSheetQuerySchema, SheetQuerySchema, SheetRequestSchema
from .game_chances import history as chances_history
from .game_chances import outlook_of
from .common import load, query, resolve_rules
from .reads import bodies

bp = Blueprint("pdfs", __name__)

#: Bump when the drawing changes, so cached PDFs are not served for new code.
LAYOUT_VERSION = "1"
BLANK_MAX_AGE = 86400

_query = SheetQuerySchema()
_body = SheetRequestSchema()
_filled = FilledSheetQuerySchema()


def _options(data: dict[str, Any]) -> dict[str, Any]:
    names = data.get("names", [])
    return {"players": data.get("players", len(names) or 6), "names": names, "games": data["games"],
            "size": data["size"], "lang": data["lang"]}


def _etag(key: Any) -> str:
    return hashlib.sha256(json.dumps([LAYOUT_VERSION, key], sort_keys=True).encode()).hexdigest()[:32]


def _kept_history(game) -> list:
    """Each turn's chances of this version of the game, worked out once per worker and kept with the game's
    bodies (every language and size of the PDF draws the same), one reader working them out at a time."""
    def make() -> str:
        state = sheets.state_of(game)
        return json.dumps([x["chances"] for x in chances_history(game, state, outlook_of(state, history=True))])

    return json.loads(bodies().get_or_make(("sheet-chances", *sheets.version_key(game)), make))


def pdf(make, key: Any, filename: str, max_age: int | None) -> Response:
    """Answer with a PDF, or 304 when the client holds this exact one."""
    etag = _etag(key)
    if request.if_none_match.contains(etag):
        response = Response(status=304)
    else:
        response = Response(make(), mimetype="application/pdf")
        response.headers["Content-Disposition"] = f'inline; filename="{filename}"'
    response.set_etag(etag)
    if max_age is None:
        response.headers["Cache-Control"] = "no-cache"
    else:
        response.cache_control.public = True
        response.cache_control.max_age = max_age
    return response


def blank(rules: RuleSet, opts: dict[str, Any]) -> Response:
    # A bad request is a 422 even when If-None-Match is "*"; names as printed.
    opts["names"] = check_options(**opts)
    check_fits(rules, opts["players"], opts["games"], opts["size"], opts["lang"])
    name = f"{rules.variant.id}_{opts['size']}_{opts['lang']}.pdf"
    return pdf(lambda: blank_sheet(rules, **opts), [rules.spec(), opts], name, BLANK_MAX_AGE)


@bp.get("/variants/<variant_id>/sheet.pdf")
def variant_sheet(variant_id: str):
    """A blank sheet for a built-in variant."""
    return blank(find_variant(variant_id).rules(), _options(query(_query)))


@bp.post("/sheets")
def house_sheet():
    """A blank sheet for house rules (or a variant), options in the body."""
    data = load(_body)
    return blank(resolve_rules(data), _options(data))


@bp.get("/games/<game_id>/sheet.pdf")
def game_sheet(game_id: str):
    """A game's record: its points, scratches, totals, winner and date."""
    opts = query(_filled)
    with_chances = opts.pop("chances")
    check_options(players=1, names=[], games=1, **opts)
    history = None
    if with_chances:
        # this version's PDF held already: a 304 for the cost of a poll, before any chance is worked out
        version, _ = sheets.head_of(game_id)
        held = [game_id, version, opts, True]  # the key the PDF below is answered under
        if request.if_none_match.contains(_etag(held)):
            return pdf(lambda: b"", held, "", None)
    game = sheets.get(game_id)
    if with_chances:  # worked out before the ETag is answered: a table being built is a 503, as for /chances
        history = _kept_history(game)

    def make() -> bytes:
        state = sheets.state_of(game)
        when = game.updated_at.date().isoformat()
        return filled_sheet(
            state.rules, names=[p.name for p in game.players], sheets=state.sheets,
            scratched=[sorted(s) for s in state.scratched], totals=state.totals(), winners=list(game.winners),
            reason=game.reason, date=when, bonuses=state.bonuses, size=opts["size"], lang=opts["lang"],
            chances=history,
        )

    key = [game.id, game.version, opts] + ([True] if with_chances else [])
    return pdf(make, key, f"{game.id}_{opts['size']}_{opts['lang']}.pdf", None)
