// The page's words, per language. Box and variant names come from the API.

const T = {
  es: {
    brand: "Anotador", language: "Idioma", offline: "Sin conexión: lo anotado queda guardado en este teléfono y se envía al volver.",
    new_game: "Partida nueva", rules: "Reglas", house_rules: "Reglas de la casa", players: "Jugadores",
    add_player: "Agregar jugador", remove: "Quitar al jugador {n}", remove_named: "Quitar al jugador {n} ({name})",
    player_n: "Jugador {n}", pick_first: "Sortear quién empieza con un dado",
    first_hint: "Cada uno tira un dado; anotá lo que sacó.", die_of: "Dado de {name}", start: "Empezar",
    recent: "Partidas recientes", share: "Compartir", print_blank: "Hoja en blanco", read_link: "Solo ver",
    write_link: "Para anotar", copy: "Copiar", copied: "Enlace copiado", served: "Servida", clear: "Borrar dados",
    scratch_box: "Tachar…", cancel: "Cancelar", undo: "Deshacer", sheet_pdf: "Hoja (PDF)",
    again: "Otra partida, mismos jugadores", readonly: "Solo ver: para anotar, abrí el enlace para anotar.",
    no: "No", yes: "Sí", turn_of: "Turno de {name} · ronda {round} de {rounds}", your_roll: "Tirada de {name}",
    fix_title: "Ronda {round} · {name}", fix_hint: "Corregí los dados o el casillero de este turno.",
    add_die: "Agregar un {face}", remove_die: "Dado {n}: {face}. Quitar", empty_die: "Dado {n}: sin cargar",
    enter_dice: "Tocá los {n} dados.", no_box: "Esta tirada no entra en ningún casillero libre: hay que tachar.",
    scratch_confirm: "¿Tachar {box} de {name}?", scratch_two: "Elegí dos casilleros para tachar.",
    scratch_title: "Tachar un casillero", undo_title: "Deshacer el último turno",
    undo_confirm: "¿Deshacer el turno de {what}?", undo_label: "Deshacer: {what}",
    undo_what: "{name}: {box}, {points}", undo_what_scratch: "{name}: {box} tachado",
    undo_what_two: "{name}: {boxes}", undo_roll_off: "la tirada de desempate de {name}",
    total: "Total", points: "{n} puntos", points_one: "1 punto", pts: "{n} puntos",
    scratched: "tachado", pending: "pendiente de enviar",
    wins: "¡Gana {names}!", draw: "Empate entre {names}",
    share_read: "Cualquiera con este enlace ve la hoja en vivo.",
    share_write: "Con este enlace se puede anotar. Compartilo solo con quien anota.",
    qr_read: "Código QR del enlace para ver la partida", qr_write: "Código QR del enlace para anotar",
    game_missing: "No existe esa partida.", conflict: "Otro teléfono anotó primero: la hoja está al día.",
    error: "No se pudo: {detail}", need_players: "Anotá al menos dos jugadores.", roll_off: "Desempate: tiran {names}.",
    roll_off_roll: "Tirada de desempate de {name}", record_roll_off: "Anotar desempate",
    tie_again: "Empate: vuelven a tirar {names}. Anotá su dado y tocá Empezar.",
    group: "Grupo {n}", box_free: "libre", show_all: "Ver las {n} opciones",
    instant_win: "¡{name} gana la partida con esta tirada!", instant_win_option: "Gana la partida",
    instant_confirm_title: "¿Gana {name}?", instant_confirm: "Con {what} {name} gana la partida ahora. ¿Anotar {box}?",
    correct_hint: "Tocá una casilla anotada para corregirla.", hide_hint: "Entendido",
    cell_fix: "{box}, {name}: {value}. Corregir", more_columns: "Hay más jugadores: deslizá la hoja",
    rank: "{place}º {name} {total}", margin: "({n})", reason_line: "Motivo: {reason}",
    pending_n: "{n} anotación(es) pendiente(s) de enviar", conflict_title: "Otro teléfono anotó antes",
    conflict_text: "Mientras este teléfono no tenía conexión, se anotó el turno de {name}: {now}. Lo tuyo sin enviar: {mine}.",
    discard: "Descartar lo mío", reenter: "Volver a cargar mis dados", sheet_label: "Hoja de la partida",
    sent: "Anotado", max: "hasta {n}", roll: "Tirada", scratch_list: "Casilleros para tachar",
    reasons: { instant_win: "generala servida", highest_total: "mayor total", tie_shared: "empate: comparten",
               most_generalas: "más generalas", roll_off: "desempate a los dados", draw: "empate" },
    opt: { served_bonus: "Servida +", straight: "Escalera", ace_as_two: "El 1 vale de 2 en escalera",
           double_generala: "Generala doble", double_generala_after: "Doble después de la generala",
           served_generala: "Generala servida", served_generala_points: "Puntos de la servida",
           three_of_a_kind: "Trío", tie_break: "Desempate", first_player: "Empieza", points: "Puntos de {box}" },
    val: { standard: "1-5 o 2-6", ending_in_1: "también 3-4-5-6-1", circular: "cinco distintos",
           closed: "anotada o tachada", scored: "anotada con puntos", win_always: "gana siempre",
           win_if_open: "gana si está libre", win_unless_scratched: "gana salvo tachada", points: "vale puntos",
           none: "vale como generala", share: "comparten", most_generalas: "más generalas",
           roll_off: "tiran los dados", highest_die: "dado más alto", lowest_die: "dado más bajo",
           as_listed: "el primero de la lista", sum: "suma de los dados", absent: "no" },
  },
  en: {
    brand: "Anotador", language: "Language", offline: "Offline: what you record stays on this phone and is sent when the connection returns.",
    new_game: "New game", rules: "Rules", house_rules: "House rules", players: "Players",
    add_player: "Add player", remove: "Remove player {n}", remove_named: "Remove player {n} ({name})",
    player_n: "Player {n}", pick_first: "Roll a die to pick who starts",
    first_hint: "Everyone rolls one die; enter what each rolled.", die_of: "{name}'s die", start: "Start",
    recent: "Recent games", share: "Share", print_blank: "Blank sheet", read_link: "View only",
    write_link: "To score", copy: "Copy", copied: "Link copied", served: "Served", clear: "Clear dice",
    scratch_box: "Scratch…", cancel: "Cancel", undo: "Undo", sheet_pdf: "Sheet (PDF)",
    again: "New game, same players", readonly: "View only: open the scoring link to record turns.",
    no: "No", yes: "Yes", turn_of: "{name}'s turn · round {round} of {rounds}", your_roll: "{name}'s roll",
    fix_title: "Round {round} · {name}", fix_hint: "Correct this turn's dice or box.",
    add_die: "Add a {face}", remove_die: "Die {n}: {face}. Remove", empty_die: "Die {n}: not entered",
    enter_dice: "Tap the {n} dice.", no_box: "This roll fits no free box: scratch one.",
    scratch_confirm: "Scratch {box} for {name}?", scratch_two: "Pick two boxes to scratch.",
    scratch_title: "Scratch a box", undo_title: "Undo the last turn",
    undo_confirm: "Undo {what}?", undo_label: "Undo: {what}",
    undo_what: "{name}: {box}, {points}", undo_what_scratch: "{name}: {box} scratched",
    undo_what_two: "{name}: {boxes}", undo_roll_off: "{name}'s roll-off roll",
    total: "Total", points: "{n} points", points_one: "1 point", pts: "{n} points",
    scratched: "scratched", pending: "waiting to be sent",
    wins: "{names} wins!", draw: "Draw between {names}",
    share_read: "Anyone with this link sees the sheet live.",
    share_write: "This link can record turns. Share it only with whoever keeps score.",
    qr_read: "QR code of the link to view the game", qr_write: "QR code of the link to score",
    game_missing: "There is no such game.", conflict: "Another phone recorded first: the sheet is up to date.",
    error: "That did not work: {detail}", need_players: "Enter at least two players.", roll_off: "Roll-off: {names} roll.",
    roll_off_roll: "{name}'s roll-off roll", record_roll_off: "Record roll-off",
    tie_again: "Tie: {names} roll again. Enter their dice and tap Start.",
    group: "Group {n}", box_free: "free", show_all: "Show all {n} ways",
    instant_win: "{name} wins the game with this roll!", instant_win_option: "Wins the game",
    instant_confirm_title: "Does {name} win?", instant_confirm: "With {what} {name} wins the game now. Record {box}?",
    correct_hint: "Tap a recorded cell to correct it.", hide_hint: "Got it",
    cell_fix: "{box}, {name}: {value}. Correct", more_columns: "More players: swipe the sheet",
    rank: "{place}. {name} {total}", margin: "({n})", reason_line: "Why: {reason}",
    pending_n: "{n} record(s) waiting to be sent", conflict_title: "Another phone recorded first",
    conflict_text: "While this phone was offline, {name}'s turn was recorded: {now}. Yours, not sent: {mine}.",
    discard: "Discard mine", reenter: "Enter my dice again", sheet_label: "The game's sheet",
    sent: "Recorded", max: "up to {n}", roll: "Roll", scratch_list: "Boxes to scratch",
    reasons: { instant_win: "served generala", highest_total: "highest total", tie_shared: "tie: shared",
               most_generalas: "most generalas", roll_off: "won the roll-off", draw: "draw" },
    opt: { served_bonus: "Served bonus", straight: "Straight", ace_as_two: "A 1 may stand for a 2 in a straight",
           double_generala: "Double generala", double_generala_after: "Double after generala",
           served_generala: "Served generala", served_generala_points: "Served generala points",
           three_of_a_kind: "Three of a kind", tie_break: "Tie-break", first_player: "Who starts",
           points: "{box} points" },
    val: { standard: "1-5 or 2-6", ending_in_1: "also 3-4-5-6-1", circular: "any five different",
           closed: "scored or scratched", scored: "scored with points", win_always: "always wins",
           win_if_open: "wins while open", win_unless_scratched: "wins unless scratched", points: "scores points",
           none: "scores as generala", share: "share the win", most_generalas: "most generalas",
           roll_off: "roll off", highest_die: "highest die", lowest_die: "lowest die",
           as_listed: "first listed", sum: "sum of the dice", absent: "no" },
  },
  pt: {
    brand: "Anotador", language: "Idioma", offline: "Sem conexão: o que você marcar fica neste telefone e é enviado quando a conexão voltar.",
    new_game: "Partida nova", rules: "Regras", house_rules: "Regras da casa", players: "Jogadores",
    add_player: "Adicionar jogador", remove: "Tirar o jogador {n}", remove_named: "Tirar o jogador {n} ({name})",
    player_n: "Jogador {n}", pick_first: "Sortear quem começa com um dado",
    first_hint: "Cada um joga um dado; marque o que tirou.", die_of: "Dado de {name}", start: "Começar",
    recent: "Partidas recentes", share: "Compartilhar", print_blank: "Folha em branco", read_link: "Só ver",
    write_link: "Para marcar", copy: "Copiar", copied: "Link copiado", served: "De boca", clear: "Limpar dados",
    scratch_box: "Riscar…", cancel: "Cancelar", undo: "Desfazer", sheet_pdf: "Folha (PDF)",
    again: "Outra partida, mesmos jogadores", readonly: "Só ver: para marcar, abra o link para marcar.",
    no: "Não", yes: "Sim", turn_of: "Vez de {name} · rodada {round} de {rounds}", your_roll: "Jogada de {name}",
    fix_title: "Rodada {round} · {name}", fix_hint: "Corrija os dados ou a casa desta jogada.",
    add_die: "Adicionar um {face}", remove_die: "Dado {n}: {face}. Tirar", empty_die: "Dado {n}: vazio",
    enter_dice: "Toque os {n} dados.", no_box: "Esta jogada não cabe em nenhuma casa livre: risque uma.",
    scratch_confirm: "Riscar {box} de {name}?", scratch_two: "Escolha duas casas para riscar.",
    scratch_title: "Riscar uma casa", undo_title: "Desfazer a última jogada",
    undo_confirm: "Desfazer {what}?", undo_label: "Desfazer: {what}",
    undo_what: "{name}: {box}, {points}", undo_what_scratch: "{name}: {box} riscado",
    undo_what_two: "{name}: {boxes}", undo_roll_off: "o desempate de {name}",
    total: "Total", points: "{n} pontos", points_one: "1 ponto", pts: "{n} pontos",
    scratched: "riscado", pending: "esperando envio",
    wins: "{names} ganha!", draw: "Empate entre {names}",
    share_read: "Quem tiver este link vê a folha ao vivo.",
    share_write: "Com este link se pode marcar. Compartilhe só com quem marca.",
    qr_read: "Código QR do link para ver a partida", qr_write: "Código QR do link para marcar",
    game_missing: "Essa partida não existe.", conflict: "Outro telefone marcou antes: a folha está em dia.",
    error: "Não deu: {detail}", need_players: "Escreva pelo menos dois jogadores.", roll_off: "Desempate: jogam {names}.",
    roll_off_roll: "Desempate de {name}", record_roll_off: "Marcar desempate",
    tie_again: "Empate: {names} jogam de novo. Marque o dado deles e toque Começar.",
    group: "Grupo {n}", box_free: "livre", show_all: "Ver as {n} opções",
    instant_win: "{name} ganha a partida com esta jogada!", instant_win_option: "Ganha a partida",
    instant_confirm_title: "{name} ganha?", instant_confirm: "Com {what} {name} ganha a partida agora. Marcar {box}?",
    correct_hint: "Toque numa casa marcada para corrigi-la.", hide_hint: "Entendi",
    cell_fix: "{box}, {name}: {value}. Corrigir", more_columns: "Há mais jogadores: deslize a folha",
    rank: "{place}º {name} {total}", margin: "({n})", reason_line: "Motivo: {reason}",
    pending_n: "{n} marcação(ões) esperando envio", conflict_title: "Outro telefone marcou antes",
    conflict_text: "Enquanto este telefone estava sem conexão, marcaram a jogada de {name}: {now}. A sua, não enviada: {mine}.",
    discard: "Descartar a minha", reenter: "Carregar meus dados de novo", sheet_label: "Folha da partida",
    sent: "Marcado", max: "até {n}", roll: "Jogada", scratch_list: "Casas para riscar",
    reasons: { instant_win: "general de boca", highest_total: "maior total", tie_shared: "empate: dividem",
               most_generalas: "mais generais", roll_off: "desempate nos dados", draw: "empate" },
    opt: { served_bonus: "De boca +", straight: "Sequência", ace_as_two: "O 1 vale como 2 na sequência",
           double_generala: "General dupla", double_generala_after: "Dupla depois da general",
           served_generala: "General de boca", served_generala_points: "Pontos da de boca",
           three_of_a_kind: "Trinca", tie_break: "Desempate", first_player: "Quem começa",
           points: "Pontos de {box}" },
    val: { standard: "1-5 ou 2-6", ending_in_1: "também 3-4-5-6-1", circular: "cinco diferentes",
           closed: "marcada ou riscada", scored: "marcada com pontos", win_always: "sempre ganha",
           win_if_open: "ganha se livre", win_unless_scratched: "ganha salvo riscada", points: "vale pontos",
           none: "vale como general", share: "dividem", most_generalas: "mais generais",
           roll_off: "jogam os dados", highest_die: "dado mais alto", lowest_die: "dado mais baixo",
           as_listed: "o primeiro da lista", sum: "soma dos dados", absent: "não" },
  },
};

export const LANGS = ["es", "en", "pt"];

let current = pick();

function pick() {
  const saved = localStorage.getItem("anotador.lang");
  if (LANGS.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || "es"]) {
    const short = String(l).slice(0, 2).toLowerCase();
    if (LANGS.includes(short)) return short;
  }
  return "es";
}

/** The page's language. */
export function lang() { return current; }

export function setLang(l) {
  current = l;
  localStorage.setItem("anotador.lang", l);
  document.documentElement.lang = l;
}

/** A word, with {placeholders} filled: t("turn_of", { name: "Ana", round: 1, rounds: 10 }). */
export function t(key, params = {}) {
  let s = key.split(".").reduce((o, k) => (o ? o[k] : undefined), T[current]);
  if (s === undefined) s = key;
  return String(s).replace(/\{(\w+)\}/g, (_, k) => (params[k] === undefined ? "" : String(params[k])));
}

/** "18 puntos" / "1 point". */
export function points(n) { return n === 1 ? t("points_one") : t("points", { n }); }

/** Apply the language to every [data-i18n] element of the shell. */
export function applyWords() {
  document.documentElement.lang = current;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll("[data-i18n-label]")) {
    node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  }
}
