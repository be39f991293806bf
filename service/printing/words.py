"""What a printed sheet says, in es, en and pt, read off the rule objects.

Every number printed comes from the rule set (a box's value, served value,
maximum; the options); nothing here restates a rule, it only phrases one.
"""

from __future__ import annotations

from ..rules import BOX_NAMES, WORDS, RuleSet

UI: dict[str, dict[str, str]] = {
    "total": {"es": "Total", "en": "Total", "pt": "Total"},
    "game": {"es": "Partida", "en": "Game", "pt": "Partida"},
    "player": {"es": "Jugador", "en": "Player", "pt": "Jogador"},
    "max": {"es": "máx", "en": "max", "pt": "máx"},
    "sum": {"es": "suma", "en": "sum", "pt": "soma"},
    "served_wins": {"es": "servida gana", "en": "served wins", "pt": "de boca ganha"},
    "not_served": {"es": "2º o 3º tiro", "en": "2nd or 3rd roll", "pt": "2º ou 3º lance"},
    "winner": {"es": "Ganador", "en": "Winner", "pt": "Vencedor"},
    "winners": {"es": "Ganadores", "en": "Winners", "pt": "Vencedores"},
    "date": {"es": "Fecha", "en": "Date", "pt": "Data"},
    "house_rules": {"es": "Reglas de la casa", "en": "House rules", "pt": "Regras da casa"},
    "footer": {"es": "Anotador · hoja para", "en": "Anotador · score sheet for", "pt": "Anotador · folha para"},
}

REASONS: dict[str, dict[str, str]] = {
    "instant_win": {"es": "generala servida", "en": "served generala", "pt": "general de boca"},
    "highest_total": {"es": "mayor total", "en": "highest total", "pt": "maior total"},
    "tie_shared": {"es": "empate: comparten la victoria", "en": "tie: they share the win",
                   "pt": "empate: dividem a vitória"},
    "most_generalas": {"es": "empate: más generalas", "en": "tie: most generalas", "pt": "empate: mais generais"},
    "roll_off": {"es": "desempate a los dados", "en": "won the roll-off", "pt": "desempate nos dados"},
    "draw": {"es": "empate", "en": "draw", "pt": "empate"},
}

_SERVED_GENERALA = {
    "win_always": {"es": "{box} servida: gana la partida en el acto.",
                   "en": "Served {box}: wins the game on the spot.",
                   "pt": "{box} de boca: ganha a partida na hora."},
    "win_if_open": {"es": "{box} servida: gana en el acto mientras su casillero esté libre.",
                    "en": "Served {box}: wins on the spot while its box is still open.",
                    "pt": "{box} de boca: ganha na hora enquanto sua casa estiver livre."},
    "win_unless_scratched": {"es": "{box} servida: gana en el acto, salvo con su casillero tachado.",
                             "en": "Served {box}: wins on the spot, unless its box was scratched.",
                             "pt": "{box} de boca: ganha na hora, salvo com sua casa riscada."},
    "points": {"es": "{box} servida: vale {points}.", "en": "Served {box}: scores {points}.",
               "pt": "{box} de boca: vale {points}."},
    "none": {"es": "{box} servida: vale como una {box} cualquiera.", "en": "Served {box}: scores as any {box}.",
             "pt": "{box} de boca: vale como qualquer {box}."},
}

_TIE = {
    "share": {"es": "Empate: comparten la victoria.", "en": "Tie: the tied players share the win.",
              "pt": "Empate: dividem a vitória."},
    "most_generalas": {"es": "Empate: gana quien tenga más generalas; si siguen iguales, empate.",
                       "en": "Tie: most generalas wins; still tied, a draw.",
                       "pt": "Empate: vence quem tiver mais generais; se persistir, empate."},
    "roll_off": {"es": "Empate: un tiro de cinco dados cada uno; gana la suma más alta.",
                 "en": "Tie: each tied player rolls five dice once; highest sum wins.",
                 "pt": "Empate: cada um joga os cinco dados uma vez; vence a maior soma."},
}

_FIRST = {
    "highest_die": {"es": "Empieza quien saque el dado más alto.", "en": "Highest single die starts.",
                    "pt": "Começa quem tirar o dado mais alto."},
    "lowest_die": {"es": "Empieza quien saque el dado más bajo.", "en": "Lowest single die starts.",
                   "pt": "Começa quem tirar o dado mais baixo."},
    "as_listed": {"es": "Empieza el primero de la lista.", "en": "The first seat starts.",
                  "pt": "Começa o primeiro da lista."},
}

_OPTION_NAMES = {
    "points": {"es": "puntos", "en": "points", "pt": "pontos"},
    "served_bonus": {"es": "servida", "en": "served bonus", "pt": "de boca"},
    "straight": {"es": "escalera", "en": "straight", "pt": "sequência"},
    "ace_as_two": {"es": "el 1 vale de 2 en escalera", "en": "a 1 may stand for a 2 in a straight",
                   "pt": "o 1 vale como 2 na sequência"},
    "double_generala": {"es": "generala doble", "en": "double generala", "pt": "general dupla"},
    "double_generala_after": {"es": "generala doble tras la generala", "en": "double generala after generala",
                              "pt": "general dupla após a general"},
    "served_generala": {"es": "generala servida", "en": "served generala", "pt": "general de boca"},
    "served_generala_points": {"es": "generala servida", "en": "served generala", "pt": "general de boca"},
    "three_of_a_kind": {"es": "trío", "en": "three of a kind", "pt": "trinca"},
    "tie_break": {"es": "desempate", "en": "tie-break", "pt": "desempate"},
    "first_player": {"es": "quién empieza", "en": "who starts", "pt": "quem começa"},
}

_VALUES = {
    "standard": {"es": "1-5 o 2-6", "en": "1-5 or 2-6", "pt": "1-5 ou 2-6"},
    "ending_in_1": {"es": "también 3-4-5-6-1", "en": "also 3-4-5-6-1", "pt": "também 3-4-5-6-1"},
    "circular": {"es": "cinco dados distintos", "en": "any five different dice", "pt": "cinco dados diferentes"},
    "closed": {"es": "anotada o tachada", "en": "scored or scratched", "pt": "marcada ou riscada"},
    "scored": {"es": "anotada con puntos", "en": "scored with points", "pt": "marcada com pontos"},
    "sum": {"es": "suma de los dados", "en": "sum of the dice", "pt": "soma dos dados"},
    True: {"es": "sí", "en": "yes", "pt": "sim"},
    False: {"es": "no", "en": "no", "pt": "não"},
    None: {"es": "no", "en": "none", "pt": "não"},
}


def box_name(box_id: str, lang: str) -> str:
    return BOX_NAMES[box_id][lang]


def box_values(rules: RuleSet, box_id: str, lang: str) -> str:
    """The values column of a box: "20 · 25 servida", "máx 30", "suma · máx 28"."""
    box = rules.box(box_id)
    if box.kind == "number":
        return f"{UI['max'][lang]} {rules.max_points(box_id)}"
    if box.kind == "sum":
        return f"{UI['sum'][lang]} · {UI['max'][lang]} {rules.max_points(box_id)}"
    served = WORDS["served"][lang]
    if box.role == "generala" and rules.variant.big_general and box.served_value == 0:
        return f"{box.value} · {UI['not_served'][lang]}"
    if box.role == "generala" and (rules.options.served_generala or "").startswith("win"):
        return f"{box.value} · {UI['served_wins'][lang]}"
    if box.served_value != box.value:
        return f"{box.value} · {box.served_value} {served}"
    return str(box.value)


def _value(value, lang: str) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{box_name(k, lang)} {v}" for k, v in value.items())
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
                parts.append(f"{_OPTION_NAMES[name][lang]}: {_value(changed, lang)}")
        elif value != base[name] and name != "served_generala_points":
            parts.append(f"{_OPTION_NAMES[name][lang]}: {_value(value, lang)}")
    return f"{UI['house_rules'][lang]}: " + "; ".join(parts) + "." if parts else None


def legend(rules: RuleSet, lang: str) -> list[str]:
    """Footer lines: served, scratch, instant win, ties, who starts, house rules."""
    lines = []
    served_boxes = [b for b in rules.boxes
                    if b.kind == "fixed" and b.served_value != b.value and b.role != "generala"]
    served = WORDS["served"][lang].capitalize()
    if served_boxes:
        bonus = served_boxes[0].served_value - served_boxes[0].value
        names = ", ".join(box_name(b.id, lang) for b in served_boxes)
        lines.append({"es": f"{served}: con los dados del primer tiro, +{bonus} en {names}.",
                      "en": f"{served}: made on the first roll, +{bonus} in {names}.",
                      "pt": f"{served}: feita no primeiro lance, +{bonus} em {names}."}[lang])
    scratch = WORDS["scratch"][lang].capitalize()
    lines.append({"es": f"{scratch}: anotar 0 en un casillero libre, a elección.",
                  "en": f"{scratch}: write 0 in a free box of your choice.",
                  "pt": f"{scratch}: marcar 0 numa casa livre, à escolha."}[lang])
    generala = next((b for b in rules.boxes if b.role == "generala"), None)
    if generala is not None and rules.variant.big_general and generala.served_value == 0:
        # general-pr: the served five of a kind is not the generala line's.
        big = WORDS["big_general"][lang]
        lines.append({"es": f"{big}: cinco iguales de boca, gana la partida en el acto. "
                            f"{box_name(generala.id, lang)}: cinco iguales en el segundo o tercer tiro.",
                      "en": f"{big}: five of a kind on the first throw wins the game on the spot. "
                            f"{box_name(generala.id, lang)}: five of a kind on the second or third throw.",
                      "pt": f"{big}: cinco iguais de boca, ganha a partida na hora. "
                            f"{box_name(generala.id, lang)}: cinco iguais no segundo ou terceiro lance."}[lang])
    elif generala is not None and rules.options.served_generala:
        text = _SERVED_GENERALA[rules.options.served_generala][lang]
        lines.append(text.format(box=box_name(generala.id, lang), points=generala.served_value))
    double = next((b for b in rules.boxes if b.role == "double_generala"), None)
    if double is not None:
        after = _VALUES[rules.options.double_generala_after][lang]
        lines.append({"es": f"{box_name(double.id, lang)}: solo con la {box_name(generala.id, lang)} ya {after}.",
                      "en": f"{box_name(double.id, lang)}: only once {box_name(generala.id, lang)} is {after}.",
                      "pt": f"{box_name(double.id, lang)}: só com a {box_name(generala.id, lang)} já {after}."}[lang])
    if rules.boxes_per_turn > 1:
        lines.append({"es": f"Dos casilleros por turno: cada grupo de cinco dados en uno distinto. "
                            f"{rules.rounds} rondas.",
                      "en": f"Two boxes a turn: each group of five dice in a different one. {rules.rounds} rounds.",
                      "pt": f"Duas casas por vez: cada grupo de cinco dados numa diferente. "
                            f"{rules.rounds} rodadas."}[lang])
    lines.append(_TIE[rules.options.tie_break][lang] + " " + _FIRST[rules.options.first_player][lang])
    extra = house_rules(rules, lang)
    if extra:
        lines.append(extra)
    return lines
