"""What a printed sheet says, in es, en, pt, de and sv, read off the rule objects.

Every number printed comes from the rule set (a box's value, served value,
maximum; the bonuses; the options); nothing here restates a rule, it only
phrases one.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import BOX_NAMES, WORDS, RuleSet


def _w(es: str, en: str, pt: str, de: str, sv: str) -> dict[str, str]:
    return {"es": es, "en": en, "pt": pt, "de": de, "sv": sv}


UI: dict[str, dict[str, str]] = {
    "total": _w("Total", "Total", "Total", "Gesamt", "Totalt"),
    "game": _w("Partida", "Game", "Partida", "Spiel", "Spel"),
    "player": _w("Jugador", "Player", "Jogador", "Spieler", "Spelare"),
    "max": _w("máx", "max", "máx", "max", "max"),
    "sum": _w("suma", "sum", "soma", "Summe", "summa"),
    "dice": _w("sus dados", "its dice", "seus dados", "die Würfel", "tärningarna"),
    "served_wins": _w("servida gana", "served wins", "de boca ganha", "serviert gewinnt", "servad vinner"),
    "not_served": _w("2º o 3º tiro", "2nd or 3rd roll", "2º ou 3º lance", "2. oder 3. Wurf", "2:a eller 3:e slag"),
    "winner": _w("Ganador", "Winner", "Vencedor", "Sieger", "Vinnare"),
    "winners": _w("Ganadores", "Winners", "Vencedores", "Sieger", "Vinnare"),
    "date": _w("Fecha", "Date", "Data", "Datum", "Datum"),
    "house_rules": _w("Reglas de la casa", "House rules", "Regras da casa", "Hausregeln", "Husregler"),
    "footer": _w("Anotador · hoja para", "Anotador · score sheet for", "Anotador · folha para",
                 "Anotador · Block für", "Anotador · protokoll för"),
    "bonus_at": _w("{points} con {threshold}", "{points} at {threshold}", "{points} com {threshold}",
                   "{points} ab {threshold}", "{points} vid {threshold}"),
    "each": _w("{points} cada uno", "{points} each", "{points} cada", "je {points}", "{points} var"),
}

REASONS: dict[str, dict[str, str]] = {
    "instant_win": _w("generala servida", "served generala", "general de boca", "servierte Generala",
                      "servad generala"),
    "highest_total": _w("mayor total", "highest total", "maior total", "höchste Summe", "högsta summa"),
    "tie_shared": _w("empate: comparten la victoria", "tie: they share the win", "empate: dividem a vitória",
                     "Gleichstand: sie teilen den Sieg", "lika: de delar segern"),
    "most_generalas": _w("empate: más generalas", "tie: most generalas", "empate: mais generais",
                         "Gleichstand: mehr Generalas", "lika: flest generalor"),
    "roll_off": _w("desempate a los dados", "won the roll-off", "desempate nos dados", "Stechen gewonnen",
                   "vann omkastningen"),
    "draw": _w("empate", "draw", "empate", "unentschieden", "oavgjort"),
}

_SERVED_GENERALA = {
    "win_always": _w("{box} servida: gana la partida en el acto.", "Served {box}: wins the game on the spot.",
                     "{box} de boca: ganha a partida na hora.", "Servierte {box}: gewinnt das Spiel sofort.",
                     "Servad {box}: vinner spelet direkt."),
    "win_if_open": _w("{box} servida: gana en el acto mientras su casillero esté libre.",
                      "Served {box}: wins on the spot while its box is still open.",
                      "{box} de boca: ganha na hora enquanto sua casa estiver livre.",
                      "Servierte {box}: gewinnt sofort, solange ihr Feld frei ist.",
                      "Servad {box}: vinner direkt så länge dess ruta är tom."),
    "win_unless_scratched": _w("{box} servida: gana en el acto, salvo con su casillero tachado.",
                               "Served {box}: wins on the spot, unless its box was scratched.",
                               "{box} de boca: ganha na hora, salvo com sua casa riscada.",
                               "Servierte {box}: gewinnt sofort, außer ihr Feld wurde gestrichen.",
                               "Servad {box}: vinner direkt, om inte dess ruta är struken."),
    "points": _w("{box} servida: vale {points}.", "Served {box}: scores {points}.", "{box} de boca: vale {points}.",
                 "Servierte {box}: zählt {points}.", "Servad {box}: ger {points}."),
    "none": _w("{box} servida: vale como una {box} cualquiera.", "Served {box}: scores as any {box}.",
               "{box} de boca: vale como qualquer {box}.", "Servierte {box}: zählt wie jede {box}.",
               "Servad {box}: räknas som vilken {box} som helst."),
}

_TIE = {
    "share": _w("Empate: comparten la victoria.", "Tie: the tied players share the win.",
                "Empate: dividem a vitória.", "Gleichstand: die Gleichen teilen den Sieg.",
                "Lika: de som står lika delar segern."),
    "most_generalas": _w("Empate: gana quien tenga más generalas; si siguen iguales, empate.",
                         "Tie: most generalas wins; still tied, a draw.",
                         "Empate: vence quem tiver mais generais; se persistir, empate.",
                         "Gleichstand: mehr Generalas gewinnen; sonst unentschieden.",
                         "Lika: flest generalor vinner; annars oavgjort."),
    "roll_off": _w("Empate: un tiro de cinco dados cada uno; gana la suma más alta.",
                   "Tie: each tied player rolls five dice once; highest sum wins.",
                   "Empate: cada um joga os cinco dados uma vez; vence a maior soma.",
                   "Gleichstand: jeder wirft einmal fünf Würfel; die höchste Summe gewinnt.",
                   "Lika: var och en kastar fem tärningar en gång; högsta summan vinner."),
}

_FIRST = {
    "highest_die": _w("Empieza quien saque el dado más alto.", "Highest single die starts.",
                      "Começa quem tirar o dado mais alto.", "Wer den höchsten Würfel wirft, beginnt.",
                      "Högsta tärningen börjar."),
    "lowest_die": _w("Empieza quien saque el dado más bajo.", "Lowest single die starts.",
                     "Começa quem tirar o dado mais baixo.", "Wer den niedrigsten Würfel wirft, beginnt.",
                     "Lägsta tärningen börjar."),
    "as_listed": _w("Empieza el primero de la lista.", "The first seat starts.", "Começa o primeiro da lista.",
                    "Der Erste der Liste beginnt.", "Den första i listan börjar."),
}

_OPTION_NAMES = {
    "points": _w("puntos", "points", "pontos", "Punkte", "poäng"),
    "served_bonus": _w("servida", "served bonus", "de boca", "Servierbonus", "servad bonus"),
    "straight": _w("escalera", "straight", "sequência", "Straße", "stege"),
    "ace_as_two": _w("el 1 vale de 2 en escalera", "a 1 may stand for a 2 in a straight",
                     "o 1 vale como 2 na sequência", "die 1 darf in der Straße als 2 gelten",
                     "en etta får räknas som tvåa i stege"),
    "double_generala": _w("generala doble", "double generala", "general dupla", "doppelte Generala",
                          "dubbel generala"),
    "double_generala_after": _w("generala doble tras la generala", "double generala after generala",
                                "general dupla após a general", "doppelte Generala nach der Generala",
                                "dubbel generala efter generala"),
    "served_generala": _w("generala servida", "served generala", "general de boca", "servierte Generala",
                          "servad generala"),
    "served_generala_points": _w("generala servida", "served generala", "general de boca", "servierte Generala",
                                 "servad generala"),
    "three_of_a_kind": _w("trío", "three of a kind", "trinca", "Dreierpasch", "tretal"),
    "tie_break": _w("desempate", "tie-break", "desempate", "Gleichstand", "lika"),
    "first_player": _w("quién empieza", "who starts", "quem começa", "wer beginnt", "vem börjar"),
    "joker": _w("comodín", "joker", "curinga", "Joker", "joker"),
    "yahtzee_bonus": _w("bonus por Yahtzee", "Yahtzee bonus", "bônus por Yahtzee", "Kniffel-Bonus", "Yatzybonus"),
}

_VALUES = {
    "standard": _w("1-5 o 2-6", "1-5 or 2-6", "1-5 ou 2-6", "1-5 oder 2-6", "1-5 eller 2-6"),
    "ending_in_1": _w("también 3-4-5-6-1", "also 3-4-5-6-1", "também 3-4-5-6-1", "auch 3-4-5-6-1",
                      "även 3-4-5-6-1"),
    "circular": _w("cinco dados distintos", "any five different dice", "cinco dados diferentes",
                   "fünf verschiedene Würfel", "fem olika tärningar"),
    "closed": _w("anotada o tachada", "scored or scratched", "marcada ou riscada", "eingetragen oder gestrichen",
                 "ifylld eller struken"),
    "scored": _w("anotada con puntos", "scored with points", "marcada com pontos", "mit Punkten eingetragen",
                 "ifylld med poäng"),
    "sum": _w("suma de los dados", "sum of the dice", "soma dos dados", "Summe der Würfel", "tärningarnas summa"),
    "forced": _w("en orden oficial", "the official order", "na ordem oficial", "in fester Reihenfolge",
                 "i fast ordning"),
    "free": _w("en cualquier casillero", "any free box", "em qualquer casa", "in jedem freien Feld",
               "i valfri ruta"),
    True: _w("sí", "yes", "sim", "ja", "ja"),
    False: _w("no", "no", "não", "nein", "nej"),
    None: _w("no", "none", "não", "keine", "ingen"),
}


def box_name(box_id: str, lang: str, rules: RuleSet | None = None) -> str:
    """A box's name, as ``rules``' variant calls it (Kniffel's "Kniffel")."""
    return (rules.names_of(box_id) if rules is not None else BOX_NAMES[box_id])[lang]


def box_values(rules: RuleSet, box_id: str, lang: str) -> str:
    """The values column of a box: "20 · 25 servida", "máx 30", "suma · máx 28", "sus dados · máx 24"."""
    box = rules.box(box_id)
    if box.kind == "number":
        return f"{UI['max'][lang]} {rules.max_points(box_id)}"
    if box.kind == "sum":
        return f"{UI['sum'][lang]} · {UI['max'][lang]} {rules.max_points(box_id)}"
    if box.kind == "matching":
        return f"{UI['dice'][lang]} · {UI['max'][lang]} {rules.max_points(box_id)}"
    served = WORDS["served"][lang]
    if box.role == "generala" and rules.variant.big_general and box.served_value == 0:
        return f"{box.value} · {UI['not_served'][lang]}"
    if box.role == "generala" and (rules.options.served_generala or "").startswith("win"):
        return f"{box.value} · {UI['served_wins'][lang]}"
    if box.served_value != box.value:
        return f"{box.value} · {box.served_value} {served}"
    return str(box.value)


@dataclass(frozen=True)
class Row:
    """A line of the printed sheet: a box, or a section's subtotal or bonus, or a bonus of rolls."""

    kind: str          # "box", "subtotal", "bonus", "rolls"
    id: str            # the box id, or the bonus id
    label: str
    values: str


def sheet_rows(rules: RuleSet, lang: str) -> list[Row]:
    """Every line of the sheet in order, the total excepted: the boxes, each bonus section's
    subtotal and bonus right after its last box, and a line for further Yahtzees before the total."""
    rows = []
    last = {b.boxes[-1]: b for b in rules.bonuses}
    for box in rules.boxes:
        rows.append(Row("box", box.id, box_name(box.id, lang, rules), box_values(rules, box.id, lang)))
        if box.id in last:
            bonus = last[box.id]
            rows.append(Row("subtotal", bonus.id, WORDS["upper"][lang], ""))
            rows.append(Row("bonus", bonus.id, WORDS[bonus.id][lang],
                            UI["bonus_at"][lang].format(points=bonus.points, threshold=bonus.threshold)))
    if rules.options.yahtzee_bonus:
        rows.append(Row("rolls", "yahtzee_bonus", yahtzee_bonus_name(rules, lang),
                        UI["each"][lang].format(points=rules.options.yahtzee_bonus)))
    return rows


def yahtzee_bonus_name(rules: RuleSet, lang: str) -> str:
    box = next(b.id for b in rules.boxes if b.role == "yahtzee")
    return WORDS["yahtzee_bonus"][lang].format(box=box_name(box, lang, rules))


def _value(value, lang: str, rules: RuleSet) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{box_name(k, lang, rules)} {v}" for k, v in value.items())
    # bool/None and strings only: 1 == True, so a served bonus of 1 is not "yes".
    if isinstance(value, (bool, str, type(None))) and value in _VALUES:
        return _VALUES[value][lang]
    if value in _TIE:
        return _TIE[value][lang].split(":", 1)[1].strip().rstrip(".")
    if value in _FIRST:
        return _FIRST[value][lang].rstrip(".")
    return str(value)


def house_rules(rules: RuleSet, lang: str) -> str | None:
    """The options that differ from the variant as published, or None."""
    base = rules.variant.default_rules.options.as_dict()
    mine = rules.options.as_dict()
    parts = []
    for name, value in mine.items():
        if name == "points":
            changed = {k: v for k, v in value.items() if base["points"].get(k) != v}
            if changed:
                parts.append(f"{_OPTION_NAMES[name][lang]}: {_value(changed, lang, rules)}")
        elif value != base[name] and name != "served_generala_points":
            parts.append(f"{_OPTION_NAMES[name][lang]}: {_value(value, lang, rules)}")
    return f"{UI['house_rules'][lang]}: " + "; ".join(parts) + "." if parts else None


def legend(rules: RuleSet, lang: str) -> list[str]:
    """Footer lines: served, scratch, instant win, bonuses and jokers, ties, who starts, house rules."""
    lines = []
    served_boxes = [b for b in rules.boxes
                    if b.kind == "fixed" and b.served_value != b.value and b.role != "generala"]
    served = WORDS["served"][lang].capitalize()
    if served_boxes:
        bonus = served_boxes[0].served_value - served_boxes[0].value
        names = ", ".join(box_name(b.id, lang, rules) for b in served_boxes)
        lines.append(_w(f"{served}: con los dados del primer tiro, +{bonus} en {names}.",
                        f"{served}: made on the first roll, +{bonus} in {names}.",
                        f"{served}: feita no primeiro lance, +{bonus} em {names}.",
                        f"{served}: mit dem ersten Wurf, +{bonus} bei {names}.",
                        f"{served}: med första slaget, +{bonus} i {names}.")[lang])
    scratch = WORDS["scratch"][lang].capitalize()
    lines.append(_w(f"{scratch}: anotar 0 en un casillero libre, a elección.",
                    f"{scratch}: write 0 in a free box of your choice.",
                    f"{scratch}: marcar 0 numa casa livre, à escolha.",
                    f"{scratch}: 0 in ein freies Feld nach Wahl eintragen.",
                    f"{scratch}: skriv 0 i en valfri tom ruta.")[lang])
    generala = next((b for b in rules.boxes if b.role == "generala"), None)
    if generala is not None and rules.variant.big_general and generala.served_value == 0:
        # general-pr: the served five of a kind is not the generala line's.
        big, small = WORDS["big_general"][lang], box_name(generala.id, lang, rules)
        lines.append(_w(f"{big}: cinco iguales de boca, gana la partida en el acto. "
                        f"{small}: cinco iguales en el segundo o tercer tiro.",
                        f"{big}: five of a kind on the first throw wins the game on the spot. "
                        f"{small}: five of a kind on the second or third throw.",
                        f"{big}: cinco iguais de boca, ganha a partida na hora. "
                        f"{small}: cinco iguais no segundo ou terceiro lance.",
                        f"{big}: fünf Gleiche im ersten Wurf gewinnen sofort. "
                        f"{small}: fünf Gleiche im zweiten oder dritten Wurf.",
                        f"{big}: fem lika i första slaget vinner direkt. "
                        f"{small}: fem lika i andra eller tredje slaget.")[lang])
    elif generala is not None and rules.options.served_generala:
        text = _SERVED_GENERALA[rules.options.served_generala][lang]
        lines.append(text.format(box=box_name(generala.id, lang, rules), points=generala.served_value))
    double = next((b for b in rules.boxes if b.role == "double_generala"), None)
    if double is not None:
        after = _VALUES[rules.options.double_generala_after][lang]
        d, g = box_name(double.id, lang, rules), box_name(generala.id, lang, rules)
        lines.append(_w(f"{d}: solo con la {g} ya {after}.", f"{d}: only once {g} is {after}.",
                        f"{d}: só com a {g} já {after}.", f"{d}: erst wenn die {g} {after} ist.",
                        f"{d}: först när {g} är {after}.")[lang])
    for bonus in rules.bonuses:
        lines.append(_w(f"{WORDS[bonus.id][lang]}: +{bonus.points} si los casilleros de arriba suman "
                        f"{bonus.threshold} o más.",
                        f"{WORDS[bonus.id][lang]}: +{bonus.points} when the upper boxes add up to "
                        f"{bonus.threshold} or more.",
                        f"{WORDS[bonus.id][lang]}: +{bonus.points} se as casas de cima somarem "
                        f"{bonus.threshold} ou mais.",
                        f"{WORDS[bonus.id][lang]}: +{bonus.points}, wenn die oberen Felder "
                        f"{bonus.threshold} oder mehr ergeben.",
                        f"{WORDS[bonus.id][lang]}: +{bonus.points} när rutorna upptill blir "
                        f"{bonus.threshold} eller mer.")[lang])
    if rules.options.joker:
        lines.append(_joker_line(rules, lang))
    if rules.boxes_per_turn > 1:
        lines.append(_w(f"Dos casilleros por turno: cada grupo de cinco dados en uno distinto. {rules.rounds} rondas.",
                        f"Two boxes a turn: each group of five dice in a different one. {rules.rounds} rounds.",
                        f"Duas casas por vez: cada grupo de cinco dados numa diferente. {rules.rounds} rodadas.",
                        f"Zwei Felder pro Zug: jede Fünfergruppe in ein anderes. {rules.rounds} Runden.",
                        f"Två rutor per tur: varje femgrupp i en annan. {rules.rounds} rundor.")[lang])
    lines.append(_TIE[rules.options.tie_break][lang] + " " + _FIRST[rules.options.first_player][lang])
    extra = house_rules(rules, lang)
    if extra:
        lines.append(extra)
    return lines


def _joker_line(rules: RuleSet, lang: str) -> str:
    """A further Yahtzee: its bonus and the joker rule, phrased from the options."""
    y = box_name(next(b.id for b in rules.boxes if b.role == "yahtzee"), lang, rules)
    pts = rules.options.yahtzee_bonus or 0
    bonus = _w(f"Cada {y} más: +{pts} si {y} tiene 50; ", f"Each further {y}: +{pts} while {y} holds 50; ",
               f"Cada {y} a mais: +{pts} se {y} tiver 50; ", f"Jeder weitere {y}: +{pts}, solange {y} 50 hat; ",
               f"Varje ny {y}: +{pts} om {y} har 50; ")[lang] if pts else ""
    if rules.options.joker == "forced":
        rule = _w("va en su casillero de arriba si está libre; si no, en cualquiera de abajo con todo su valor; "
                  "si no, 0 arriba.",
                  "it goes in its upper box if free; else any lower box at full value; else 0 up top.",
                  "vai na sua casa de cima se livre; senão, em qualquer de baixo com valor cheio; senão, 0 em cima.",
                  "er kommt in sein oberes Feld, wenn frei; sonst voll in ein unteres; sonst 0 oben.",
                  "den går i sin ruta upptill om den är tom; annars i valfri ruta nedtill med fullt värde; "
                  "annars 0 upptill.")[lang]
    else:
        rule = _w("va en cualquier casillero; full y escaleras valen solo con su casillero de arriba ya usado.",
                  "it goes in any box; full house and straights count only once its upper box is closed.",
                  "vai em qualquer casa; full e sequências valem só com sua casa de cima já usada.",
                  "er kommt in jedes Feld; Full House und Straßen zählen erst, wenn sein oberes Feld voll ist.",
                  "den går i valfri ruta; kåk och stegar räknas först när dess ruta upptill är ifylld.")[lang]
    return (bonus + rule) if pts else rule[0].upper() + rule[1:]
