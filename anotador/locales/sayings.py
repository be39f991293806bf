"""An English message said again in another language, by the catalog template it was made from.

A problem's detail is written in English where it is raised ("A die is a
whole number from 1 to 6, not 7."). The catalogs hold the template it was
made from under the context ``problem`` ("A die is a whole number from 1 to
6, not {die}.") and each language's translation. To say the message in
Dutch, it is matched against the templates (their literal parts found in
order with ``str.find``: linear time, no regular expression a client's text
could make slow), the values are taken out, and the translation is filled
with them; a value that is itself a message is said again too. A message
no template made stays English, the fallback.
"""

from __future__ import annotations

from functools import lru_cache
from string import Formatter
from typing import NamedTuple

from . import BY_TEXT, LANGUAGES, SOURCE, catalog

#: The catalogs' contexts of what the API answers: a problem's detail and field messages, and its title.
CONTEXTS = BY_TEXT
#: Longer texts are not matched: no message of the service is this long, and a client's text may be.
MAX_LENGTH = 2000


class Template(NamedTuple):
    """A message's template: its literal parts around its fields, and a language's words for it."""

    literals: tuple[str, ...]  # one more than the fields
    fields: tuple[str, ...]
    translation: str


def parse(template: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A python-brace-format template's literal parts and field names: ``"a {x} b"`` → ``(("a ", " b"), ("x",))``."""
    literals, fields = [""], []
    for literal, field, _, _ in Formatter().parse(template):
        literals[-1] += literal
        if field is not None:
            fields.append(field)
            literals.append("")
    return tuple(literals), tuple(fields)


@lru_cache(maxsize=len(LANGUAGES))
def templates(lang: str) -> tuple[dict[tuple[str, str], str], tuple[tuple[str, Template], ...]]:
    """A language's messages without fields, by (context, English text), and its templates, the most
    specific (the most literal text) first."""
    exact: dict[tuple[str, str], str] = {}
    made: list[tuple[str, Template]] = []
    for message in catalog(lang):
        if message.context not in CONTEXTS or not message.string:
            continue
        if "python-brace-format" in message.flags:
            literals, fields = parse(message.id)
            made.append((message.context, Template(literals, fields, message.string)))
        else:
            exact[(message.context, message.id)] = message.string
    made.sort(key=lambda found: -sum(map(len, found[1].literals)))
    return exact, tuple(made)


def values(text: str, literals: tuple[str, ...]) -> list[str] | None:
    """The values a template's fields hold in ``text``, or None if the template did not make it."""
    first, last = literals[0], literals[-1]
    end = len(text) - len(last)
    if end < len(first) or not text.startswith(first) or not text.endswith(last):
        return None
    found, at = [], len(first)
    for literal in literals[1:-1]:
        if not literal:
            return None  # two fields side by side: no telling where one ends
        next_at = text.find(literal, at, end)
        if next_at < 0:
            return None
        found.append(text[at:next_at])
        at = next_at + len(literal)
    found.append(text[at:end])
    return found


def say(text: str, lang: str, context: str = "problem", depth: int = 1) -> str:
    """``text`` in ``lang`` when a catalog template made it; else as it is."""
    if lang == SOURCE or lang not in LANGUAGES or len(text) > MAX_LENGTH:
        return text
    exact, made = templates(lang)
    found = exact.get((context, text))
    if found is not None:
        return found
    for where, template in made:
        if where != context:
            continue
        got = values(text, template.literals)
        if got is not None:
            if depth:
                got = [say(value, lang, context, depth - 1) for value in got]
            return template.translation.format_map(dict(zip(template.fields, got, strict=True)))
    # "dice.4: A die is a whole number from 1 to 6, not 7.": a field's path, then its message
    path, colon, rest = text.partition(": ")
    if colon and depth and " " not in path:
        said = say(rest, lang, context, depth - 1)
        if said != rest:
            return f"{path}: {said}"
    return text
