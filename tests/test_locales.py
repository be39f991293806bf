"""The words' catalogs: each language complete, its placeholders the source's, its plurals CLDR's."""

from __future__ import annotations

import gettext
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.pofile import read_po

from anotador import locales
from anotador.locales import LANGUAGES, SOURCE, catalog, for_the_page, plural_categories, words

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "anotador" / "web"
TRANSLATIONS = [lang for lang in LANGUAGES if lang != SOURCE]
PLACEHOLDER = re.compile(r"\{(\w*)\}")


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def messages(lang: str) -> dict[tuple[str, object], object]:
    return {(m.context, m.id): m for m in catalog(lang) if m.id}


def test_every_language_has_its_catalog_and_every_catalog_a_language():
    """Adding a language is its .po file and its line in LANGUAGES: neither without the other."""
    files = {p.stem for p in locales.HERE.glob("*.po")}
    assert files == set(TRANSLATIONS)
    assert (locales.HERE / "anotador.pot").is_file()
    with pytest.raises(locales.UnknownLanguage):
        catalog("xx")


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_a_catalog_has_every_message_of_the_source_and_no_other(lang):
    source, translated = messages(SOURCE), messages(lang)
    assert sorted(map(str, source.keys() - translated.keys())) == []  # missing
    assert sorted(map(str, translated.keys() - source.keys())) == []  # stale: gone from the source
    for key, message in translated.items():
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings), f"{lang}: {key} untranslated"
        assert "fuzzy" not in message.flags, f"{lang}: {key} marked fuzzy"


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_a_translation_has_the_placeholders_of_its_source(lang):
    """The page fills {name} by name: a placeholder renamed, lost or added would show wrong words."""
    wrong = []
    for (context, msgid), message in messages(lang).items():
        if message.pluralizable:
            one, many = (placeholders(text) for text in msgid)
            for category, text in zip(plural_categories(lang), message.string, strict=True):
                found = placeholders(text)
                # a language's "one" may say "the die" rather than "{n} die"
                if not (found <= many if category == "one" else found == many):
                    wrong.append((context, category, text))
            assert one <= many
        elif placeholders(message.string) != placeholders(msgid):
            wrong.append((context, message.string))
        if placeholders(message.string if isinstance(message.string, str) else "".join(message.string)):
            assert "python-brace-format" in message.flags, context  # so that tools check them too
    assert wrong == []


def test_the_placeholder_check_fails_on_a_renamed_placeholder(tmp_path, monkeypatch):
    """The check above, on a catalog with one placeholder renamed."""
    text = (locales.HERE / "es.po").read_text(encoding="utf-8")
    assert '"Nombre de {name}"' in text
    planted = tmp_path / "es.po"
    planted.write_text(text.replace('"Nombre de {name}"', '"Nombre de {nombre}"'), encoding="utf-8")
    monkeypatch.setattr(locales, "catalog_path", lambda lang: planted if lang == "es" else
                        locales.HERE / ("anotador.pot" if lang == SOURCE else f"{lang}.po"))
    catalog.cache_clear()
    try:
        with pytest.raises(AssertionError, match="nombre"):
            test_a_translation_has_the_placeholders_of_its_source("es")
    finally:
        catalog.cache_clear()


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_a_catalogs_plural_forms_are_cldrs(lang):
    """Form i of a plural is CLDR's i-th category for every count: French's 0 is "one", Spanish's millions
    are "many"."""
    rule = Locale.parse(lang).plural_form
    categories = plural_categories(lang)
    index = gettext.c2py(catalog(lang).plural_expr)
    assert catalog(lang).num_plurals == len(categories)
    for n in [*range(0, 2_001), 1_000_000, 2_000_000, 10**9]:
        assert categories[index(n)] == rule(n), (lang, n)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_page_gets_every_plural_form_by_its_category(lang):
    loaded = words(lang)
    assert loaded.keys() == words(SOURCE).keys()
    forms = loaded["points"]
    assert isinstance(forms, dict) and "other" in forms
    assert set(forms) == ({"one", "other"} if lang == SOURCE else set(plural_categories(lang)))


def asked_for() -> set[str]:
    """Every key the page's scripts and shell name literally."""
    keys = set()
    for path in (PAGE / "static" / "js").glob("*.js"):
        keys |= set(re.findall(r"\b(?:t|plural)\(\s*\"([a-z0-9_.]+)\"", path.read_text(encoding="utf-8")))
    shell = (PAGE / "templates" / "index.html").read_text(encoding="utf-8")
    keys |= set(re.findall(r"data-i18n(?:-label|-placeholder)?=\"([a-z0-9_.]+)\"", shell))
    keys |= set(re.findall(r"\bw\(\"([a-z0-9_.]+)\"\)", shell))
    return keys


def test_every_key_the_page_asks_for_is_in_the_source():
    keys = asked_for()
    assert len(keys) > 150  # the finder finds them
    assert sorted(keys - words(SOURCE).keys()) == []


def test_a_plural_is_asked_for_as_a_plural_and_a_text_as_a_text():
    scripts = "".join(p.read_text(encoding="utf-8") for p in (PAGE / "static" / "js").glob("*.js"))
    plurals = {k for k, v in words(SOURCE).items() if isinstance(v, dict)}
    assert set(re.findall(r"\bplural\(\s*\"([a-z0-9_.]+)\"", scripts)) <= plurals
    assert set(re.findall(r"\bt\(\s*\"([a-z0-9_.]+)\"", scripts)) & plurals == set()


def test_the_page_loads_each_language_from_its_catalog(client):
    for lang in LANGUAGES:
        answer = client.get(f"/static/words/{lang}.json")
        assert answer.status_code == 200 and answer.mimetype == "application/json"
        assert json.loads(answer.data) == for_the_page(lang)
        again = client.get(f"/static/words/{lang}.json", headers={"If-None-Match": answer.headers["ETag"]})
        assert again.status_code == 304
    for wrong in ("xx.json", "es", "es.json.bak", "../es.json", "es.po"):
        assert client.get(f"/static/words/{wrong}").status_code == 404
    worker = client.get("/sw.js").get_data(as_text=True)
    for lang in LANGUAGES:  # kept on the phone: the page opens offline in any language
        assert f'/static/words/{lang}.json"' in worker


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_shell_is_written_in_the_language_asked_for(client, lang):
    html = client.get("/", headers={"Accept-Language": lang}).get_data(as_text=True)
    assert f'<html lang="{lang}"' in html
    new_game = words(lang)["new_game"]
    assert f'data-i18n="new_game">{new_game}<' in html
    # and with its words, so that the page draws its first screen without asking for them
    (shipped,) = re.findall(r'<script type="application/json" id="words" data-lang="(\w+)">(.*?)</script>', html)
    assert shipped[0] == lang and json.loads(shipped[1]) == for_the_page(lang)


def test_the_readmes_pybabel_lines_make_a_new_catalog_and_leave_an_up_to_date_one_as_it_is(tmp_path):
    """The README's two commands, run as written but on copies: ``init`` starts a language's catalog with
    every message and CLDR's plural forms; ``update`` on a catalog already up to date changes no byte (the
    catalogs are kept exactly as the translators' tools write them)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = [line for line in readme.splitlines() if line.startswith(".venv/bin/pybabel ")]
    assert [line.split()[1] for line in lines] == ["init", "update"]
    (tmp_path / "anotador" / "locales").mkdir(parents=True)
    for name in ("anotador.pot", "es.po"):
        (tmp_path / "anotador" / "locales" / name).write_bytes((locales.HERE / name).read_bytes())
    pybabel = Path(sys.executable).with_name("pybabel")
    for line in lines:
        args = line.split()[1:]
        done = subprocess.run([str(pybabel), *args], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    made = tmp_path / "anotador" / "locales" / "nl.po"
    with made.open("rb") as f:
        new = read_po(f)
    assert new.num_plurals == len(plural_categories("nl"))
    assert {(m.context, m.id) for m in new if m.id} == set(messages(SOURCE))
    assert (tmp_path / "anotador" / "locales" / "es.po").read_bytes() == (locales.HERE / "es.po").read_bytes()


def test_every_name_the_rules_give_is_in_every_catalog():
    """Each variant's name and line, each of its boxes' names and short labels, its bonuses' and its
    instant win's names: a message the rules ask for and a catalog lacks fails here, not in a request."""
    from anotador.rules import BOX_SHORT, VARIANTS, WORDS, instant_win_names

    asked = 0
    for variant in VARIANTS.values():
        rules = variant.default_rules
        named = [variant.names, variant.description, *(WORDS[b.id] for b in rules.bonuses)]
        for box in rules.boxes:
            named += [rules.names_of(box.id), BOX_SHORT[box.id]]
        generala = next((b.id for b in rules.boxes if b.role == "generala"), None)
        named.append(instant_win_names(variant.big_general, generala) or {})
        for names in named:
            for lang in names:
                assert lang in LANGUAGES and names[lang].strip(), (variant.id, names, lang)
                asked += 1
    assert asked > 9 * 15 * len(LANGUAGES)
    assert VARIANTS["kniffel"].default_rules.names_of("yahtzee")["de"] == "Kniffel"
    assert dict(WORDS["yahtzee_bonus"])["es"].format(box="Yahtzee") == "Bonus Yahtzee"
    with pytest.raises(KeyError):
        WORDS["no_such_word"]


def test_every_reason_and_house_rule_a_printed_sheet_names_is_in_every_catalog():
    from anotador.printing import words as printed
    from anotador.rules import OPTION_NAMES, REASONS

    for lang in LANGUAGES:
        for reason in REASONS:
            assert printed.REASONS[reason][lang].strip()
        for option in OPTION_NAMES:
            assert printed._OPTION_NAMES[option][lang].strip()
        for flag in (True, False, None):
            assert printed.UI[printed._FLAGS[flag]][lang].strip()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_undo_buttons_spoken_name_holds_its_visible_words(lang):
    """WCAG 2.5.3 (label in name): a voice user says what the button shows."""
    said = words(lang)
    assert said["undo"].casefold() in said["undo_title"].casefold(), (said["undo"], said["undo_title"])


def test_the_spec_offers_every_language_and_no_other():
    """The API contract lists the languages by hand: a language added to LANGUAGES and not to the spec (or
    the reverse) fails here."""
    import yaml

    spec = yaml.safe_load((ROOT / "anotador" / "openapi.yaml").read_text(encoding="utf-8"))
    names = spec["components"]["schemas"]["Names"]
    assert set(names["required"]) == set(names["properties"]) == set(LANGUAGES)
    enums = []

    def walk(node):
        if isinstance(node, dict):
            if "enum" in node and "es" in node["enum"]:
                enums.append(node["enum"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    assert len(enums) >= 4 and all(enum == list(LANGUAGES) for enum in enums), enums


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_tables_history_has_its_columns_and_separator_in_every_language(lang):
    from anotador.api.exports import COLUMNS, HEADERS, STATUS, separator

    headers = [HEADERS[column][lang] for column in COLUMNS]
    assert all(headers) and len(set(headers)) == len(headers)
    assert STATUS["playing"][lang] and STATUS["finished"][lang]
    # a spreadsheet where the decimal mark is a comma separates cells with ";"
    assert separator(lang) == ("," if lang == "en" else ";")


def test_a_printed_label_and_list_are_joined_as_each_language_writes_them():
    """French puts a no-break space before a colon and a semicolon; the code joins through the catalogs."""
    from anotador.printing.words import house_rules, labelled
    from anotador.rules import find_variant

    rules = find_variant("generala").rules(served_bonus=10, straight="circular")
    assert house_rules(rules, "en") == "House rules: served bonus: 10; straight: any five different dice."
    assert house_rules(rules, "fr") == \
        "Règles de la maison\u00a0: bonus sec\u00a0: 10\u00a0; suite\u00a0: cinq dés différents."
    assert labelled("Datum", "7.12.2026", "de") == "Datum: 7.12.2026"
