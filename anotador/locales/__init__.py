"""The words people read, from one gettext catalog per language.

``anotador.pot`` is the source: English, each message with its key as its
context (``msgctxt``), the key the page asks for. ``<lang>.po`` is that
language's translation, the file a translator opens in Weblate or Poedit.
Plurals follow CLDR's rules: each catalog's ``Plural-Forms`` is Babel's for
its language, and the page gets each plural's forms named by CLDR category
(``one``, ``many``, ``other``), which ``Intl.PluralRules`` picks from.

Adding a language is its ``.po`` file (``pybabel init -i anotador.pot -l nl
-o nl.po``) and its line in ``LANGUAGES``; the API contract lists the
languages too, and ``tests/test_locales.py`` says where until it does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

HERE = Path(__file__).resolve().parent

#: Every language offered, in its own words, in the order the page's picker lists them.
LANGUAGES = {"es": "Español", "en": "English", "pt": "Português", "de": "Deutsch", "sv": "Svenska", "fr": "Français",
             "it": "Italiano", "nl": "Nederlands"}

#: The variety a catalog is written in, where it is not the language's own default: Rioplatense Spanish
#: (voseo: "tocá"), Brazilian Portuguese. What a PDF tells screen readers.
VARIETY = {"es": "es-AR", "pt": "pt-BR"}

#: The language of the source catalog: its words are the messages' ids.
SOURCE = "en"

#: Every language's code, the source's first: the order of the API's ``names`` objects.
CODES = (SOURCE, *(lang for lang in LANGUAGES if lang != SOURCE))

#: Contexts whose messages are found by their English text, not by a key: what the API's problem documents
#: say (``anotador.locales.sayings``).
BY_TEXT = ("problem", "problem.title")
#: Keys the page never asks for: the names the API gives, the printed sheets' and the spreadsheet's words.
NOT_THE_PAGES = ("box.", "box_short.", "word.", "served.", "variant.", "print.", "export.")

#: CLDR's plural categories, in the order gettext numbers a language's forms.
CLDR_CATEGORIES = ("zero", "one", "two", "few", "many", "other")


class UnknownLanguage(LookupError):
    """A language with no catalog."""


def catalog_path(lang: str) -> Path:
    """The file a language's words come from: the source for English."""
    if lang not in LANGUAGES:
        raise UnknownLanguage(lang)
    return HERE / ("anotador.pot" if lang == SOURCE else f"{lang}.po")


@lru_cache(maxsize=len(LANGUAGES))
def catalog(lang: str) -> Catalog:
    """A language's catalog, read once."""
    with catalog_path(lang).open("rb") as f:
        return read_po(f, locale=lang)


def plural_categories(lang: str) -> tuple[str, ...]:
    """The CLDR categories a language's plurals have, in the order of its catalog's forms."""
    tags = Locale.parse(lang).plural_form.tags | {"other"}
    return tuple(tag for tag in CLDR_CATEGORIES if tag in tags)


@lru_cache(maxsize=len(LANGUAGES))
def words(lang: str) -> dict[str, str | dict[str, str]]:
    """Every message of a language by key: a text, or a plural's forms by CLDR category.

    A message not yet translated is the source's words. Made once per language.
    """
    categories = plural_categories(lang)
    out: dict[str, str | dict[str, str]] = {}
    for message in catalog(lang):
        if not message.context or message.context in BY_TEXT:
            continue
        translated = lang != SOURCE and all(message.string)
        if message.pluralizable:
            out[message.context] = (dict(zip(categories, message.string, strict=True)) if translated
                                    else {"one": message.id[0], "other": message.id[1]})
        else:
            out[message.context] = message.string if translated else message.id
    return out


@lru_cache(maxsize=len(LANGUAGES))
def page_words(lang: str) -> bytes:
    """A language's words as the page loads them: JSON, made once."""
    return json.dumps(for_the_page(lang), ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def for_the_page(lang: str) -> dict[str, str | dict[str, str]]:
    """The words the page asks for."""
    return {key: text for key, text in words(lang).items() if not key.startswith(NOT_THE_PAGES)}


def word(lang: str, key: str, **params: object) -> str:
    """One text in a language, its ``{placeholders}`` filled in."""
    text = words(lang).get(key)
    if not isinstance(text, str):
        raise KeyError(key)
    return text.format(**params) if params else text


class Message(Mapping[str, str]):
    """One message in every language offered, read from the catalogs when first asked for:
    ``Message("box.ones")["es"]`` is "Al 1". What the API sends as a ``names`` object."""

    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def __getitem__(self, lang: str) -> str:
        if lang not in LANGUAGES:
            raise KeyError(lang)
        text = words(lang)[self.key]
        if not isinstance(text, str):
            raise TypeError(f"{self.key} is a plural")
        return text

    def __iter__(self) -> Iterator[str]:
        return iter(CODES)

    def __len__(self) -> int:
        return len(CODES)

    def __repr__(self) -> str:
        return f"Message({self.key!r})"


class Messages(Mapping[str, Message]):
    """The messages whose keys share a prefix, by what follows it: ``Messages("box")["ones"]``.

    ``fixed`` names what every language writes alike and no catalog holds (a narrow sheet's "1" for ones).
    """

    def __init__(self, prefix: str, fixed: Mapping[str, str] | None = None) -> None:
        self.prefix = f"{prefix}."
        self.fixed = dict(fixed or {})

    def __getitem__(self, name: str) -> Mapping[str, str]:
        if not isinstance(name, str):
            raise KeyError(name)
        if name in self.fixed:
            return dict.fromkeys(CODES, self.fixed[name])
        key = self.prefix + name
        if key not in words(SOURCE):
            raise KeyError(name)
        return Message(key)

    def __iter__(self) -> Iterator[str]:
        found = [key.removeprefix(self.prefix) for key in words(SOURCE) if key.startswith(self.prefix)]
        return iter([*self.fixed, *(name for name in found if "." not in name)])

    def __len__(self) -> int:
        return sum(1 for _ in self)
