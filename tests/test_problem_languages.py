"""Problem documents in the request's language (Accept-Language), English the fallback, types unchanged; and
every message the code can answer with has its template in the catalogs."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from anotador.api.problems import PROBLEMS
from anotador.http.errors import TYPE_BASE
from anotador.locales import LANGUAGES, SOURCE, catalog
from anotador.locales.sayings import MAX_LENGTH, parse, say, values

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "anotador"


def test_a_dutch_client_gets_dutch_problems_and_an_english_one_english(api):
    bad = {"variant": "generala", "dice": [1, 2, 3, 4, 7]}
    english = api.post("/api/v1/score", json=bad)
    assert english.status_code == 422 and english.headers["Content-Language"] == "en"
    assert english.get_json()["detail"] == "A die is a whole number from 1 to 6, not 7."
    assert english.headers["Cache-Control"] == "no-store"  # so no Vary: no cache keeps it to key
    dutch = api.post("/api/v1/score", json=bad, headers={"Accept-Language": "nl-BE,nl;q=0.9,en;q=0.5"})
    body = dutch.get_json()
    assert dutch.status_code == 422 and dutch.headers["Content-Language"] == "nl"
    assert body["type"] == english.get_json()["type"] == TYPE_BASE + "validation-error"  # types never change
    assert body["title"] == "Ongeldig verzoek"
    assert body["detail"] == "Een dobbelsteen is een geheel getal van 1 tot 6, niet 7."
    assert body["errors"] == {"dice.4": [body["detail"]]}
    for header in ("*", "ja", "xx-YY"):  # nothing offered asked for: English
        assert api.post("/api/v1/score", json=bad, headers={"Accept-Language": header}).get_json() == \
            english.get_json()


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != SOURCE])
def test_the_common_refusals_are_said_in_every_language(api, lang):
    """A game not found, a body that is not JSON, a library's field messages, several fields at once, and a
    message inside another: none is left in English."""
    said = {"Accept-Language": lang}
    english = [
        api.get("/api/v1/games/abcdefghijklmnop").get_json(),
        api.post("/api/v1/score", data=b'{"variant": ', content_type="application/json").get_json(),
        api.post("/api/v1/score", json={"variant": "generala", "dice": [1, 2, 3, 4, 5], "served": "x",
                                         "extra": 1}).get_json(),
        api.post("/api/v1/score", json={"variant": "nope", "dice": [1, 2, 3, 4, 5]}).get_json(),
        api.post("/api/v1/games", json={"variant": "generala", "players": ["Ana"]}).get_json(),
    ]
    translated = [
        api.get("/api/v1/games/abcdefghijklmnop", headers=said).get_json(),
        api.post("/api/v1/score", data=b'{"variant": ', content_type="application/json", headers=said).get_json(),
        api.post("/api/v1/score", json={"variant": "generala", "dice": [1, 2, 3, 4, 5], "served": "x",
                                         "extra": 1}, headers=said).get_json(),
        api.post("/api/v1/score", json={"variant": "nope", "dice": [1, 2, 3, 4, 5]}, headers=said).get_json(),
        api.post("/api/v1/games", json={"variant": "generala", "players": ["Ana"]}, headers=said).get_json(),
    ]
    for before, after in zip(english, translated, strict=True):
        assert after["type"] == before["type"] and after["status"] == before["status"]
        assert after["title"] != before["title"] or before["title"] == "Conflict", (lang, after)
        # the detail is said in the language; a value in it (a field's path, an id) stays as it was sent
        assert after["detail"] != before["detail"], (lang, before["detail"], after["detail"])
        for field, messages in (before.get("errors") or {}).items():
            assert all(a != b for a, b in zip(after["errors"][field], messages, strict=True)), (lang, field)


def test_a_message_no_template_made_stays_as_it_is():
    assert say("Something no template made.", "nl") == "Something no template made."
    assert say("A die is a whole number from 1 to 6, not 7.", "en") == "A die is a whole number from 1 to 6, not 7."
    long = "A die is a whole number from 1 to 6, not " + "7" * MAX_LENGTH + "."
    assert say(long, "nl") == long  # a client's long text is not matched
    # a field's path before a message: the path stays, the message is said
    assert say("dice.4: A die is a whole number from 1 to 6, not 7.", "de") == \
        "dice.4: Ein Würfel ist eine ganze Zahl von 1 bis 6, nicht 7."


def test_matching_takes_linear_time_and_needs_every_literal_in_order():
    literals, fields = parse("{field} must hold exactly {n} dice, not {count}.")
    assert fields == ("field", "n", "count")
    assert values("dice must hold exactly 5 dice, not 4.", literals) == ["dice", "5", "4"]
    assert values("dice must hold 5 dice, not 4.", literals) is None
    hostile = " must hold exactly " * 5000 + " dice, not ."  # many false starts: str.find, no backtracking
    assert values(hostile, literals) is not None


#: Exception classes whose message a client reads (the error table's and their kin), and the helpers that
#: make a problem's words.
ANSWERED = ({cls.__name__ for cls in PROBLEMS} | {
    "InvalidNameError", "InvalidTurnError", "InvalidDiceError", "InvalidGroupsError", "InvalidOptionError",
    "InvalidRollsError", "InvalidSheetError", "NoFreeBoxError", "NotQualifiedError", "UnknownBoxError",
    "SameRegular", "ValidationProblem", "Problem", "ValidationError", "fixed", "Kind"}) - {
    "DatabaseBusy", "OperationalError"}  # the database's own words are logged; the client reads DATABASE_DOWN's
#: Messages the code makes in parts, and the templates that cover each way it ends (the parts are English
#: words a template must hold, not values).
IN_PARTS = {
    "Writing to a {} needs its token: Authorization: Bearer <token>.": 2,
    "This token does not write to this {}.": 2,
    "The {} changed since the version in If-Match; reload it and try again.": 2,
    "This address has created {} {} in the last minute; try again in {} s.": 2,
    "A turn of {} fills {}.": 2,
    "{} must hold one die for {} ({}), not {}.": 4,
    "double_generala cannot hold points while {} is ": 2,
    "The sheet has no free box left.": 1,
}


def raised_messages() -> dict[str, str]:
    """Every message the package gives an answered error, as a template with ``{}`` for each value."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name not in ANSWERED:
                continue
            for part in [*node.args, *(k.value for k in node.keywords if k.arg != "logged")]:
                inside = {id(v) for n in ast.walk(part) if isinstance(n, ast.JoinedStr) for v in n.values}
                for text in ast.walk(part):
                    template = None if id(text) in inside else shape(text)
                    if template is not None and len(template.split()) >= 3:
                        found.setdefault(template, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def shape(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def test_every_message_the_code_answers_with_has_a_template():
    """A message added or changed in the code without its template in the catalogs fails here."""
    templates = {re.sub(r"\{\w+\}", "{}", m.id).replace("{{", "{").replace("}}", "}")
                 for m in catalog(SOURCE) if m.context == "problem"}
    found = raised_messages()
    assert len(found) > 100 and "A die is a whole number from 1 to 6, not {}." in found  # the finder finds them
    missing = []
    for message, where in found.items():
        if message in IN_PARTS:
            prefix = message.split("{}")[0]
            covering = [t for t in templates if t.startswith(prefix)] if prefix else \
                [t for t in templates if t.endswith(message.split("{}")[-1]) and "one die for" in t]
            assert len(covering) >= IN_PARTS[message], (message, covering)
        elif message not in templates and not any(part.startswith(message) for part in templates):
            missing.append((message, where))
    assert missing == []
