/* Anotador's phone page. Plain JavaScript over the public JSON API.
 *
 * Rules live on the server: this page asks /api/v1/score which boxes a roll
 * may take and records turns with /api/v1/games; it never computes points.
 * Text from users is only ever set with textContent, never as markup.
 */
"use strict";

// ---------------------------------------------------------------- words ---
const T = {
  es: {
    brand: "Anotador", language: "Idioma", offline: "Sin conexión: reintentando…", new_game: "Partida nueva",
    rules: "Reglas", house_rules: "Reglas de la casa", players: "Jugadores", add_player: "Agregar jugador",
    remove: "Quitar a {name}", player_n: "Jugador {n}", pick_first: "Sortear quién empieza con un dado",
    first_hint: "Cada uno tira un dado; anotá lo que sacó.", die_of: "Dado de {name}", start: "Empezar",
    recent: "Partidas recientes", share: "Compartir", print_blank: "Hoja en blanco", read_link: "Solo ver",
    write_link: "Para anotar", copy: "Copiar", copied: "Enlace copiado", served: "Servida", clear: "Borrar dados",
    scratch_box: "Tachar…", cancel: "Cancelar", undo: "Deshacer último turno", sheet_pdf: "Hoja (PDF)",
    again: "Otra partida, mismos jugadores", readonly: "Solo ver: para anotar, abrí el enlace para anotar.",
    no: "No", yes: "Sí", turn_of: "Turno de {name} · ronda {round} de {rounds}", your_roll: "Tirada de {name}",
    fix_turn: "Corregir el turno {n} de {name}", add_die: "Agregar un {face}", remove_die: "Quitar el {face}",
    empty_die: "Dado sin cargar", enter_dice: "Tocá los {n} dados.", no_box: "Esta tirada no entra en ningún casillero libre: hay que tachar.",
    scratch_confirm: "¿Tachar {box} de {name}?", scratch_two: "Elegí dos casilleros para tachar.",
    undo_confirm: "¿Deshacer el último turno?", total: "Total", points: "{n} puntos",
    scratched: "tachado", wins: "¡Gana {names}!", win_reason: "{reason}", draw: "Empate entre {names}",
    share_read: "Cualquiera con este enlace ve la hoja en vivo.",
    share_write: "Con este enlace se puede anotar. Compartilo solo con quien anota.",
    game_missing: "No existe esa partida.", conflict: "Otro teléfono anotó primero: la hoja está al día.",
    error: "No se pudo: {detail}", need_players: "Anotá al menos dos jugadores.", roll_off: "Desempate: tiran {names}.",
    roll_off_roll: "Tirada de desempate de {name}", record_roll_off: "Anotar desempate",
    tie_again: "Empate: vuelven a tirar {names}. Anotá su dado y tocá Empezar.",
    group: "Grupo {n}", box_free: "libre", turn_n: "Turno {n}", show_all: "Ver las {n} opciones",
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
    brand: "Anotador", language: "Language", offline: "Connection lost: retrying…", new_game: "New game",
    rules: "Rules", house_rules: "House rules", players: "Players", add_player: "Add player",
    remove: "Remove {name}", player_n: "Player {n}", pick_first: "Roll a die to pick who starts",
    first_hint: "Everyone rolls one die; enter what each rolled.", die_of: "{name}'s die", start: "Start",
    recent: "Recent games", share: "Share", print_blank: "Blank sheet", read_link: "View only",
    write_link: "To score", copy: "Copy", copied: "Link copied", served: "Served", clear: "Clear dice",
    scratch_box: "Scratch…", cancel: "Cancel", undo: "Undo last turn", sheet_pdf: "Sheet (PDF)",
    again: "New game, same players", readonly: "View only: open the scoring link to record turns.",
    no: "No", yes: "Yes", turn_of: "{name}'s turn · round {round} of {rounds}", your_roll: "{name}'s roll",
    fix_turn: "Correct turn {n} of {name}", add_die: "Add a {face}", remove_die: "Remove the {face}",
    empty_die: "No die yet", enter_dice: "Tap the {n} dice.", no_box: "This roll fits no free box: scratch one.",
    scratch_confirm: "Scratch {box} for {name}?", scratch_two: "Pick two boxes to scratch.",
    undo_confirm: "Undo the last turn?", total: "Total", points: "{n} points",
    scratched: "scratched", wins: "{names} wins!", win_reason: "{reason}", draw: "Draw between {names}",
    share_read: "Anyone with this link sees the sheet live.",
    share_write: "This link can record turns. Share it only with whoever keeps score.",
    game_missing: "There is no such game.", conflict: "Another phone recorded first: the sheet is up to date.",
    error: "That did not work: {detail}", need_players: "Enter at least two players.", roll_off: "Roll-off: {names} roll.",
    roll_off_roll: "{name}'s roll-off roll", record_roll_off: "Record roll-off",
    tie_again: "Tie: {names} roll again. Enter their dice and tap Start.",
    group: "Group {n}", box_free: "free", turn_n: "Turn {n}", show_all: "Show all {n} ways",
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
    brand: "Anotador", language: "Idioma", offline: "Sem conexão: tentando de novo…", new_game: "Partida nova",
    rules: "Regras", house_rules: "Regras da casa", players: "Jogadores", add_player: "Adicionar jogador",
    remove: "Tirar {name}", player_n: "Jogador {n}", pick_first: "Sortear quem começa com um dado",
    first_hint: "Cada um joga um dado; marque o que tirou.", die_of: "Dado de {name}", start: "Começar",
    recent: "Partidas recentes", share: "Compartilhar", print_blank: "Folha em branco", read_link: "Só ver",
    write_link: "Para marcar", copy: "Copiar", copied: "Link copiado", served: "De boca", clear: "Limpar dados",
    scratch_box: "Riscar…", cancel: "Cancelar", undo: "Desfazer última jogada", sheet_pdf: "Folha (PDF)",
    again: "Outra partida, mesmos jogadores", readonly: "Só ver: para marcar, abra o link para marcar.",
    no: "Não", yes: "Sim", turn_of: "Vez de {name} · rodada {round} de {rounds}", your_roll: "Jogada de {name}",
    fix_turn: "Corrigir a jogada {n} de {name}", add_die: "Adicionar um {face}", remove_die: "Tirar o {face}",
    empty_die: "Dado vazio", enter_dice: "Toque os {n} dados.", no_box: "Esta jogada não cabe em nenhuma casa livre: risque uma.",
    scratch_confirm: "Riscar {box} de {name}?", scratch_two: "Escolha duas casas para riscar.",
    undo_confirm: "Desfazer a última jogada?", total: "Total", points: "{n} pontos",
    scratched: "riscado", wins: "{names} ganha!", win_reason: "{reason}", draw: "Empate entre {names}",
    share_read: "Quem tiver este link vê a folha ao vivo.",
    share_write: "Com este link se pode marcar. Compartilhe só com quem marca.",
    game_missing: "Essa partida não existe.", conflict: "Outro telefone marcou antes: a folha está em dia.",
    error: "Não deu: {detail}", need_players: "Escreva pelo menos dois jogadores.", roll_off: "Desempate: jogam {names}.",
    roll_off_roll: "Desempate de {name}", record_roll_off: "Marcar desempate",
    tie_again: "Empate: {names} jogam de novo. Marque o dado deles e toque Começar.",
    group: "Grupo {n}", box_free: "livre", turn_n: "Jogada {n}", show_all: "Ver as {n} opções",
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
const LANGS = ["es", "en", "pt"];
let lang = pickLang();

function pickLang() {
  const saved = localStorage.getItem("anotador.lang");
  if (LANGS.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || "es"]) {
    const short = String(l).slice(0, 2).toLowerCase();
    if (LANGS.includes(short)) return short;
  }
  return "es";
}

function t(key, params = {}) {
  let s = key.split(".").reduce((o, k) => (o ? o[k] : undefined), T[lang]);
  if (s === undefined) s = key;
  return String(s).replace(/\{(\w+)\}/g, (_, k) => (params[k] === undefined ? "" : String(params[k])));
}

// ---------------------------------------------------------------- helpers ---
const $ = (sel) => document.querySelector(sel);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = v;
    else if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

async function api(method, path, body, headers = {}) {
  const init = { method, headers: { ...headers }, cache: "no-store" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data = null;
  const type = res.headers.get("Content-Type") || "";
  if (res.status !== 304 && type.includes("json")) data = await res.json();
  return { status: res.status, ok: res.ok, data, headers: res.headers };
}

let toastTimer = null;
function toast(message) {
  const box = $("#toast");
  box.textContent = message;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.textContent = ""; }, 4000);
}

function confirmDialog(text) {
  const dialog = $("#confirm");
  $("#confirm-text").textContent = text;
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
    dialog.showModal();
    $("#confirm-yes").focus();
  });
}

function applyWords() {
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  $("#lang").value = lang;
}

// ------------------------------------------------------------ local store ---
const store = {
  games() { try { return JSON.parse(localStorage.getItem("anotador.games")) || []; } catch { return []; } },
  remember(entry) {
    const list = store.games().filter((g) => g.id !== entry.id);
    list.unshift({ ...(store.games().find((g) => g.id === entry.id) || {}), ...entry });
    localStorage.setItem("anotador.games", JSON.stringify(list.slice(0, 20)));
  },
  token(id) { const g = store.games().find((x) => x.id === id); return g ? g.token || null : null; },
};

// ------------------------------------------------------------------ home ---
let variants = [];
let seedPlayers = null; // names carried over by "new game, same players"
let seedRules = null;

async function showHome() {
  $("#home").hidden = false;
  $("#game").hidden = true;
  document.title = "Anotador";
  if (!variants.length) {
    const res = await api("GET", "/api/v1/variants");
    variants = res.data || [];
  }
  const params = new URLSearchParams(location.search);
  if (params.get("players")) seedPlayers = params.getAll("players");
  if (params.get("rules")) { try { seedRules = JSON.parse(params.get("rules")); } catch { seedRules = null; } }
  renderVariants();
  renderPlayers(seedPlayers || ["", ""]);
  renderRecent();
}

function selectedVariant() {
  const checked = document.querySelector("input[name=variant]:checked");
  return variants.find((v) => v.id === (checked ? checked.value : "generala")) || variants[0];
}

function renderVariants() {
  const box = $("#variants");
  const current = seedRules ? seedRules.base : (selectedVariant() || {}).id || "generala";
  box.replaceChildren(...variants.map((v) => el("label", { class: "choice" },
    el("input", { type: "radio", name: "variant", value: v.id, checked: v.id === current,
                  onchange: () => renderHouse() }),
    el("span", {}, el("b", { text: v.names[lang] }), el("small", { text: v.description[lang] })))));
  renderHouse();
}

const CHOICES = {
  served_bonus: [0, 5, 10], straight: ["standard", "ending_in_1", "circular"],
  double_generala: [null, 100, 120], double_generala_after: ["closed", "scored"],
  served_generala: ["win_always", "win_if_open", "win_unless_scratched", "points", "none"],
  three_of_a_kind: [null, "sum", 20, 25, 30], tie_break: ["share", "most_generalas", "roll_off"],
  first_player: ["highest_die", "lowest_die", "as_listed"],
};

function valueLabel(v) {
  if (v === null) return t("val.absent");
  if (typeof v === "number") return String(v);
  return t(`val.${v}`);
}

function field(text, control) {
  // The label names the control alone (a wrapping label would add the value).
  control.id = `opt-${control.dataset.option || control.dataset.point}`;
  return el("div", { class: "field" }, el("label", { for: control.id, text }), control);
}

function renderHouse() {
  const variant = selectedVariant();
  if (!variant) return;
  const opts = { ...variant.options, ...(seedRules && seedRules.base === variant.id ? seedRules : {}) };
  const controls = [];
  for (const [name, values] of Object.entries(CHOICES)) {
    if (variant.options[name] === null && !["double_generala", "three_of_a_kind"].includes(name)) continue;
    if (variant.boxes_per_turn > 1 && ["double_generala", "three_of_a_kind"].includes(name)) continue;
    const list = values.includes(opts[name]) ? values : [...values, opts[name]];
    controls.push(field(t(`opt.${name}`), el("select", { "data-option": name }, ...list.map((v) => el("option", {
      value: JSON.stringify(v), text: valueLabel(v), selected: v === opts[name] })))));
  }
  if (variant.options.ace_as_two !== null) {
    controls.push(el("label", { class: "check" }, el("input", { type: "checkbox", "data-option": "ace_as_two",
      checked: !!opts.ace_as_two }), el("span", { text: t("opt.ace_as_two") })));
  }
  controls.push(field(t("opt.served_generala_points"), el("input", { type: "number", min: 1, max: 10000,
    inputmode: "numeric", "data-option": "served_generala_points", value: opts.served_generala_points || "" })));
  for (const [box, pts] of Object.entries(variant.options.points)) {
    const b = variant.boxes.find((x) => x.id === box);
    const current = opts.points && opts.points[box] !== undefined ? opts.points[box] : pts;
    controls.push(field(t("opt.points", { box: b ? b.names[lang] : box }), el("input", { type: "number", min: 1,
      max: 10000, inputmode: "numeric", "data-point": box, value: current })));
  }
  $("#house-controls").replaceChildren(...controls);
  const points = $("#house-controls").querySelector("[data-option=served_generala_points]");
  if (points) points.closest(".field").hidden = opts.served_generala !== "points";
  const sg = $("#house-controls").querySelector("[data-option=served_generala]");
  if (sg) sg.addEventListener("change", () => {
    points.closest(".field").hidden = JSON.parse(sg.value) !== "points";
  });
  if (seedRules && seedRules.base === variant.id) $("#house").open = true;
}

function houseRules(variant) {
  const rules = {};
  for (const node of $("#house-controls").querySelectorAll("[data-option]")) {
    const name = node.dataset.option;
    let value;
    if (node.type === "checkbox") value = node.checked;
    else if (node.type === "number") value = node.value === "" ? null : Number(node.value);
    else value = JSON.parse(node.value);
    if (name === "served_generala_points" && (node.closest(".field").hidden || value === null)) continue;
    if (JSON.stringify(value) !== JSON.stringify(variant.options[name])) rules[name] = value;
  }
  const points = {};
  for (const node of $("#house-controls").querySelectorAll("[data-point]")) {
    const v = Number(node.value);
    if (v !== variant.options.points[node.dataset.point]) points[node.dataset.point] = v;
  }
  if (Object.keys(points).length) rules.points = points;
  return rules;
}

function renderPlayers(names) {
  const list = $("#players");
  list.replaceChildren();
  names.forEach((n) => addPlayerRow(n));
  syncDiceInputs();
}

function addPlayerRow(name = "") {
  const list = $("#players");
  if (list.children.length >= 12) return;
  const n = list.children.length + 1;
  const input = el("input", { type: "text", maxlength: 40, autocomplete: "off", value: name,
                              "aria-label": t("player_n", { n }), placeholder: t("player_n", { n }) });
  const die = el("select", { class: "first-die", "aria-label": t("die_of", { name: name || t("player_n", { n }) }) },
    ...[1, 2, 3, 4, 5, 6].map((f) => el("option", { value: f, text: String(f) })));
  const remove = el("button", { type: "button", class: "secondary", "aria-label": t("remove", { name: name || n }),
                                text: "✕", onclick: () => { li.remove(); relabel(); } });
  const li = el("li", {}, el("div", { class: "row" }, input, die, remove));
  list.append(li);
  syncDiceInputs();
}

function relabel() {
  [...$("#players").children].forEach((li, i) => {
    const input = li.querySelector("input");
    input.setAttribute("aria-label", t("player_n", { n: i + 1 }));
    input.placeholder = t("player_n", { n: i + 1 });
  });
}

function syncDiceInputs() {
  const on = $("#use-dice").checked;
  for (const s of document.querySelectorAll(".first-die")) s.hidden = !on;
  $("#first-hint").hidden = !on;
  $("#add-player").disabled = $("#players").children.length >= 12;
}

async function startGame(event) {
  event.preventDefault();
  const variant = selectedVariant();
  const rows = [...$("#players").children];
  const names = rows.map((li) => li.querySelector("input").value.trim()).filter(Boolean);
  if (names.length < 2) { $("#form-error").textContent = t("need_players"); return; }
  const body = { players: names };
  const house = houseRules(variant);
  if (Object.keys(house).length) body.rules = { base: variant.id, ...house };
  else body.variant = variant.id;
  if ($("#use-dice").checked) {
    const first = rows.filter((li) => li.querySelector("input").value.trim())
      .map((li) => Number(li.querySelector(".first-die").value));
    const key = JSON.stringify([names, first]);
    if (tie.key !== key) Object.assign(tie, { key, rounds: [first], tied: null });
    if (tie.tied) tie.rounds.push([...$("#tie-dice").querySelectorAll("select")].map((x) => Number(x.value)));
    body.first_rolls = tie.rounds.length > 1 ? tie.rounds : first;
  }
  const res = await api("POST", "/api/v1/games", body);
  if (res.status === 422 && res.data && res.data.tied) {
    // Only the tied players roll again; the rounds so far are kept.
    tie.tied = res.data.tied;
    renderTie(names);
    $("#form-error").textContent = "";
    return;
  }
  if (res.status !== 201) {
    if (tie.tied) tie.rounds.pop();
    $("#form-error").textContent = res.data ? res.data.detail : String(res.status);
    return;
  }
  Object.assign(tie, { key: null, rounds: [], tied: null });
  $("#tie").hidden = true;
  const g = res.data;
  store.remember({ id: g.id, token: g.token, names: g.players.map((p) => p.name), variant: g.variant,
                   at: new Date().toISOString() });
  history.pushState({}, "", `/g/${g.id}`);
  route();
}

// A tie for who starts: the tied players roll again, round after round.
const tie = { key: null, rounds: [], tied: null };

function renderTie(names) {
  const who = tie.tied.map((i) => names[i]);
  $("#tie-text").textContent = t("tie_again", { names: who.join(", ") });
  $("#tie-dice").replaceChildren(...who.map((name) => el("label", { class: "tie-die" },
    el("span", { text: name }),
    el("select", { "aria-label": t("die_of", { name }) },
      ...[1, 2, 3, 4, 5, 6].map((f) => el("option", { value: f, text: String(f) }))))));
  $("#tie").hidden = false;
  $("#tie-dice select")?.focus();
}

function resetTie() {
  Object.assign(tie, { key: null, rounds: [], tied: null });
  $("#tie").hidden = true;
}

function renderRecent() {
  const list = store.games();
  $("#recent-wrap").hidden = !list.length;
  $("#recent").replaceChildren(...list.map((g) => {
    const v = variants.find((x) => x.id === g.variant);
    return el("li", {}, el("a", { href: `/g/${g.id}` },
      el("span", { text: (g.names || []).join(", ") }), el("br"),
      el("small", { text: `${v ? v.names[lang] : g.variant} · ${new Date(g.at).toLocaleString(lang)}` })));
  }));
}

// ------------------------------------------------------------------ game ---
const G = { id: null, token: null, game: null, etag: null, dice: [], served: false, fix: null,
            poll: null, failures: 0, wake: null, shareMode: "read", scratchPick: [] };

async function showGame(id) {
  $("#home").hidden = true;
  $("#game").hidden = false;
  Object.assign(G, { id, game: null, etag: null, dice: [], served: false, fix: null, scratchPick: [] });
  const match = /token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (match) {
    store.remember({ id, token: match[1], at: new Date().toISOString() });
    history.replaceState({}, "", `/g/${id}`); // the token stays on this phone, not in the address bar
  }
  G.token = store.token(id);
  if (!variants.length) variants = (await api("GET", "/api/v1/variants")).data || [];
  await refresh();
  startPolling();
}

function writer() { return !!G.token; }

async function refresh() {
  const headers = G.etag ? { "If-None-Match": G.etag } : {};
  let res;
  try {
    res = await api("GET", `/api/v1/games/${encodeURIComponent(G.id)}`, undefined, headers);
  } catch (err) {
    G.failures += 1;
    $("#offline").hidden = G.failures < 2;
    return;
  }
  G.failures = 0;
  $("#offline").hidden = true;
  if (res.status === 304) return;
  if (res.status === 404) { $("#game-title").textContent = t("game_missing"); $("#play").hidden = true; return; }
  if (!res.ok) return;
  setGame(res.data, res.headers.get("ETag"));
}

function setGame(game, etag) {
  const before = G.game;
  G.game = game;
  G.etag = etag;
  store.remember({ id: game.id, names: game.players.map((p) => p.name), variant: game.variant,
                   ...(store.games().some((x) => x.id === game.id) ? {} : { at: game.created_at }) });
  if (before && before.version !== game.version && !G.fix) {
    Object.assign(G, { dice: [], served: false, scratchPick: [], showAll: false });
  }
  render();
}

function startPolling() {
  clearInterval(G.poll);
  G.poll = setInterval(() => { if (!document.hidden) refresh(); }, 1000);
}

function boxName(id) {
  const b = G.game.boxes.find((x) => x.id === id);
  return b ? b.names[lang] : id;
}

function playerName(i) { return G.game.players[i].name; }

function render() {
  const g = G.game;
  if (!g) return;
  const v = variants.find((x) => x.id === g.variant);
  $("#game-title").textContent = v ? v.names[lang] : g.variant;
  document.title = `${$("#game-title").textContent} · Anotador`;
  if (g.turn) {
    $("#turn-line").textContent = t("turn_of", { name: playerName(g.turn.player), round: g.turn.round,
                                                 rounds: g.rounds });
  } else if (g.roll_off) {
    $("#turn-line").textContent = t("roll_off", { names: g.roll_off.players.map(playerName).join(", ") });
  } else {
    $("#turn-line").textContent = "";
  }
  renderSheet();
  renderWinner();
  renderPlay();
  renderLinks();
  keepAwake(g.status === "playing");
}

function renderSheet() {
  const g = G.game;
  const now = g.turn ? g.turn.player : -1;
  const head = el("tr", {}, el("th", { scope: "col" }, el("span", { class: "sr-only", text: t("rules") })),
    ...g.players.map((p, i) => el("th", { scope: "col", class: i === now ? "now" : null,
                                         "aria-current": i === now ? "true" : null, text: p.name })));
  const rows = g.boxes.map((box) => el("tr", {},
    el("th", { scope: "row" }, box.names[lang], el("small", { text: boxValues(box) })),
    ...g.players.map((p, i) => {
      const value = p.sheet[box.id];
      const scratched = p.scratched.includes(box.id);
      const label = value === null ? `${box.names[lang]}, ${p.name}: ${t("box_free")}`
        : `${box.names[lang]}, ${p.name}: ${scratched ? t("scratched") : t("points", { n: value })}`;
      const text = value === null ? "" : String(value);
      const content = value !== null && writer()
        ? el("button", { type: "button", class: scratched ? "scratched" : null, "aria-label": label, text,
                         onclick: () => startFix(i, box.id) })
        : el("span", { class: scratched ? "scratched" : null, "aria-label": label, text });
      return el("td", { class: i === now ? "now" : null }, content);
    })));
  const foot = el("tr", {}, el("th", { scope: "row", text: t("total") }),
    ...g.players.map((p, i) => el("td", { class: [i === now ? "now" : "", g.winners.includes(i) ? "winner" : ""]
      .join(" ").trim() || null, text: String(p.total) })));
  $("#sheet").replaceChildren(el("caption", { class: "sr-only", text: $("#game-title").textContent }),
    el("thead", {}, head), el("tbody", {}, ...rows), el("tfoot", {}, foot));
}

function boxValues(box) {
  // served_points 0: a served roll does not go here (general-pr's Big General wins instead)
  if (box.kind === "fixed") return box.served_points && box.served_points !== box.points ? `${box.points} · ${box.served_points}` : `${box.points}`;
  return `≤ ${box.max_points}`;
}

function renderWinner() {
  const g = G.game;
  const banner = $("#winner");
  if (g.status !== "finished") { banner.hidden = true; return; }
  const names = g.winners.map(playerName).join(", ");
  const reason = t(`reasons.${g.reason}`);
  banner.textContent = g.reason === "draw" ? `${t("draw", { names })} (${reason})`
    : `${t("wins", { names })} (${reason})`;
  banner.hidden = false;
}

function renderLinks() {
  const g = G.game;
  const finished = g.status === "finished";
  const anyTurn = g.players.some((p) => Object.values(p.sheet).some((v) => v !== null));
  $("#undo").hidden = !writer() || !anyTurn;
  $("#pdf-link").href = `/api/v1/games/${g.id}/sheet.pdf?lang=${lang}`;
  $("#pdf-link").hidden = false;
  const again = new URLSearchParams();
  for (const p of g.players) again.append("players", p.name);
  again.set("rules", JSON.stringify(g.rules));
  $("#again").href = `/?${again.toString()}`;
  $("#again").hidden = !finished;
  const names = g.players.map((p) => `names=${encodeURIComponent(p.name)}`).join("&");
  $("#print-link").href = `/api/v1/variants/${g.variant}/sheet.pdf?players=${g.players.length}&${names}&lang=${lang}`;
  $("#print-link").dataset.house = String(isHouseRules(g));
  $("#readonly-note").hidden = writer();
}

function isHouseRules(g) {
  const v = variants.find((x) => x.id === g.variant);
  if (!v) return false;
  const { base, ...options } = g.rules;
  return JSON.stringify(options) !== JSON.stringify(v.options);
}

async function printHouseSheet(event) {
  // House rules are not a variant's URL: ask for their sheet, open the PDF.
  if ($("#print-link").dataset.house !== "true") return;
  event.preventDefault();
  const g = G.game;
  const res = await fetch("/api/v1/sheets", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ rules: g.rules, players: g.players.length, names: g.players.map((p) => p.name), lang }) });
  if (!res.ok) { toast(t("error", { detail: res.status })); return; }
  window.open(URL.createObjectURL(await res.blob()), "_blank", "noopener");
}

// ------------------------------------------------------------ the roll ---
function diceCount() { return G.fix && G.fix.rollOff ? 5 : (G.game.rules.base === "double-cameroon" ? 10 : 5); }

function renderPlay() {
  const g = G.game;
  const rollOffPlayer = g.roll_off ? g.roll_off.players.find((p) => !(String(p) in g.roll_off.rolled)) : undefined;
  const active = writer() && (G.fix || g.turn || rollOffPlayer !== undefined);
  $("#play").hidden = !active;
  if (!active) return;
  if (!G.fix && !g.turn && rollOffPlayer !== undefined) G.fix = { rollOff: true, player: rollOffPlayer };
  const who = G.fix ? G.fix.player : g.turn.player;
  $("#play-title").textContent = G.fix && G.fix.rollOff ? t("roll_off_roll", { name: playerName(who) })
    : G.fix ? t("fix_turn", { n: G.fix.number, name: playerName(who) }) : t("your_roll", { name: playerName(who) });
  $("#cancel-fix").hidden = !G.fix || G.fix.rollOff;
  $("#scratch-btn").hidden = !!(G.fix && G.fix.rollOff);
  $("#served").closest("label").hidden = !!(G.fix && G.fix.rollOff);
  $("#served").checked = G.served;
  renderTray();
  renderOptions();
}

function renderTray() {
  const n = diceCount();
  const slots = [];
  for (let i = 0; i < n; i++) {
    const face = G.dice[i];
    slots.push(face === undefined
      ? el("span", { class: "die empty", "aria-label": t("empty_die"), role: "img", text: "·" })
      : el("button", { type: "button", class: "die", "aria-label": t("remove_die", { face }), text: String(face),
                       onclick: () => removeDie(i) }));
  }
  $("#tray").replaceChildren(...slots);
  // The face buttons are made once and only updated, so keyboard focus stays
  // on the face just pressed.
  const faces = $("#faces");
  if (faces.children.length !== 6) {
    faces.replaceChildren(...[1, 2, 3, 4, 5, 6].map((face) => el("button", {
      type: "button", class: "face", text: String(face), "data-face": face,
      onclick: () => { if (G.dice.length < diceCount()) { G.dice.push(face); renderPlay(); } } })));
  }
  for (const b of faces.children) {
    b.setAttribute("aria-label", t("add_die", { face: b.dataset.face }));
    b.disabled = G.dice.length >= n;
  }
}

function removeDie(i) {
  G.dice.splice(i, 1);
  G.showAll = false;
  renderPlay();
  const left = $("#tray").querySelectorAll("button.die");
  (left[Math.min(i, left.length - 1)] || $("#faces button"))?.focus();
}

function sheetFor(player, beforeTurn) {
  // The sheet the server scores against: now, or as it was before a turn being corrected.
  if (beforeTurn === undefined) {
    const sheet = {};
    for (const [box, pts] of Object.entries(G.game.players[player].sheet)) if (pts !== null) sheet[box] = pts;
    return sheet;
  }
  const sheet = {};
  for (const turn of G.fix.history) {
    if (turn.number >= beforeTurn) break;
    if (turn.player === player) for (const b of turn.boxes) sheet[b.category] = b.points;
  }
  return sheet;
}

let optionsSeq = 0;
async function renderOptions() {
  const box = $("#options");
  const n = diceCount();
  if (G.dice.length < n) { box.replaceChildren(el("p", { class: "hint", text: t("enter_dice", { n }) })); return; }
  const g = G.game;
  if (G.fix && G.fix.rollOff) {
    box.replaceChildren(el("button", { type: "button", class: "primary", text: t("record_roll_off"),
      onclick: () => send("POST", "/roll-off", { player: G.fix.player, dice: G.dice }) }));
    return;
  }
  const player = G.fix ? G.fix.player : g.turn.player;
  const body = { rules: g.rules, dice: G.dice, served: G.served, sheet: sheetFor(player, G.fix ? G.fix.number : undefined) };
  const two = n === 10;
  if (two) body.limit = 100;
  const seq = ++optionsSeq;
  const res = await api("POST", "/api/v1/score", body);
  if (seq !== optionsSeq) return; // a newer roll is being scored
  if (!res.ok) { box.replaceChildren(el("p", { class: "error", text: res.data ? res.data.detail : "" })); return; }
  if (two) {
    const all = res.data.assignments;
    const shown = G.showAll ? all : all.slice(0, 8);
    const buttons = shown.map((a) => {
      const text = a.boxes.map((b) => `${boxName(b.category)} ${b.points ? b.points : t("scratched")}`).join(" + ");
      return el("button", { type: "button", class: "secondary", onclick: () => recordAssignment(a) },
        el("span", {}, text, el("br"), el("small", { text: a.boxes.map((b) => b.dice.join("-")).join(" | ") })),
        el("span", { class: "pts", text: String(a.points) }));
    });
    if (shown.length < all.length) {
      buttons.push(el("button", { type: "button", class: "secondary", text: t("show_all", { n: all.length }),
                                  onclick: () => { G.showAll = true; renderOptions(); } }));
    }
    box.replaceChildren(...buttons);
    return;
  }
  const options = res.data.options;
  if (!options.length) { box.replaceChildren(el("p", { class: "hint", text: t("no_box") })); return; }
  box.replaceChildren(...options.map((o) => el("button", { type: "button", class: "secondary",
      onclick: () => recordBox(o.category, false) },
    el("span", { text: boxName(o.category) }), el("span", { class: "pts", text: String(o.points) }))));
}

function recordBox(category, scratch) {
  const player = G.fix ? G.fix.player : G.game.turn.player;
  const body = { player, category, served: G.served };
  if (G.dice.length === 5) body.dice = G.dice;
  if (scratch) body.scratch = true;
  if (G.fix) return send("PATCH", `/turns/${G.fix.number}`, body);
  return send("POST", "/turns", body);
}

function recordAssignment(a) {
  const player = G.fix ? G.fix.player : G.game.turn.player;
  // A group that scores nothing in its box is a scratch of that box.
  const boxes = a.boxes.map((b) => ({ category: b.category, dice: b.dice, ...(b.points === 0 ? { scratch: true } : {}) }));
  const body = { player, dice: G.dice, served: G.served, boxes };
  if (G.fix) return send("PATCH", `/turns/${G.fix.number}`, body);
  return send("POST", "/turns", body);
}

async function send(method, suffix, body) {
  const headers = { Authorization: `Bearer ${G.token}` };
  if (G.etag) headers["If-Match"] = G.etag;
  let res;
  try {
    res = await api(method, `/api/v1/games/${encodeURIComponent(G.id)}${suffix}`, body, headers);
  } catch (err) {
    toast(t("offline"));
    return;
  }
  if (res.ok) {
    G.fix = null;
    G.dice = [];
    G.served = false;
    G.scratchPick = [];
    $("#scratch-list").hidden = true;
    $("#scratch-btn").setAttribute("aria-expanded", "false");
    setGame(res.data, res.headers.get("ETag"));
    return;
  }
  if (res.status === 409 || res.status === 412) {
    // Someone else changed the sheet first: show the true one.
    toast(res.status === 412 || (res.data && res.data.type.endsWith("not-your-turn")) ? t("conflict")
      : t("error", { detail: res.data.detail }));
    G.etag = null;
    G.fix = null;
    await refresh();
    return;
  }
  toast(t("error", { detail: res.data ? res.data.detail : res.status }));
}

function renderScratchList() {
  const g = G.game;
  const player = G.fix ? G.fix.player : g.turn.player;
  const sheet = sheetFor(player, G.fix ? G.fix.number : undefined);
  const free = g.boxes.filter((b) => !(b.id in sheet) || (G.fix && G.fix.own.includes(b.id)));
  const two = g.rules.base === "double-cameroon";
  const list = free.map((b) => el("button", { type: "button", class: "scratch",
      "aria-pressed": two ? String(G.scratchPick.includes(b.id)) : null,
      onclick: async () => {
        if (two) {
          G.scratchPick = G.scratchPick.includes(b.id) ? G.scratchPick.filter((x) => x !== b.id)
            : [...G.scratchPick, b.id].slice(-2);
          renderScratchList();
          if (G.scratchPick.length === 2 && await confirmDialog(t("scratch_confirm", {
            box: G.scratchPick.map(boxName).join(" + "), name: playerName(player) }))) {
            const body = { player, boxes: G.scratchPick.map((c) => ({ category: c, scratch: true })) };
            if (G.fix) send("PATCH", `/turns/${G.fix.number}`, body); else send("POST", "/turns", body);
          }
          return;
        }
        if (await confirmDialog(t("scratch_confirm", { box: b.names[lang], name: playerName(player) }))) {
          recordBox(b.id, true);
        }
      } },
    el("span", { text: b.names[lang] }), el("span", { class: "pts", text: "0" })));
  if (two) list.unshift(el("p", { class: "hint", text: t("scratch_two") }));
  $("#scratch-list").replaceChildren(...list);
}

async function startFix(player, box) {
  const res = await api("GET", `/api/v1/games/${encodeURIComponent(G.id)}/turns`);
  if (!res.ok) return;
  const turn = res.data.turns.find((x) => x.player === player && x.boxes.some((b) => b.category === box));
  if (!turn) return;
  G.fix = { number: turn.number, player, history: res.data.turns, own: turn.boxes.map((b) => b.category) };
  G.dice = turn.dice ? [...turn.dice] : [];
  G.served = turn.served;
  renderPlay();
  $("#play").scrollIntoView({ behavior: "smooth", block: "start" });
  $("#play-title").focus?.();
}

// ----------------------------------------------------------------- share ---
function shareUrl(mode) {
  const base = `${location.origin}/g/${G.id}`;
  return mode === "write" && G.token ? `${base}#token=${G.token}` : base;
}

function renderShare() {
  const mode = G.token ? G.shareMode : "read";
  $("#tab-write").hidden = !G.token;
  $("#tab-read").setAttribute("aria-selected", String(mode === "read"));
  $("#tab-write").setAttribute("aria-selected", String(mode === "write"));
  const url = shareUrl(mode);
  $("#share-url").value = url;
  $("#share-hint").textContent = mode === "write" ? t("share_write") : t("share_read");
  drawQr($("#qr"), url);
  $("#qr").setAttribute("aria-label", url);
}

function drawQr(canvas, text) {
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  if (typeof qrcode !== "function") return;
  const qr = qrcode(0, "M");
  qr.addData(text);
  qr.make();
  const count = qr.getModuleCount();
  const cell = Math.floor(canvas.width / (count + 8));
  const offset = Math.floor((canvas.width - cell * count) / 2);
  ctx.fillStyle = "#000";
  for (let r = 0; r < count; r++) {
    for (let c = 0; c < count; c++) if (qr.isDark(r, c)) ctx.fillRect(offset + c * cell, offset + r * cell, cell, cell);
  }
}

// ----------------------------------------------------------- wake lock ---
async function keepAwake(on) {
  if (!("wakeLock" in navigator)) return;
  try {
    if (on && !G.wake && document.visibilityState === "visible") {
      G.wake = await navigator.wakeLock.request("screen");
      G.wake.addEventListener("release", () => { G.wake = null; });
    } else if (!on && G.wake) {
      await G.wake.release();
      G.wake = null;
    }
  } catch { G.wake = null; /* not allowed here: fine */ }
}

// ---------------------------------------------------------------- route ---
function route() {
  clearInterval(G.poll);
  const m = /^\/g\/([A-Za-z0-9_-]+)$/.exec(location.pathname);
  if (m) return showGame(m[1]);
  return showHome();
}

function wire() {
  $("#lang").addEventListener("change", () => {
    lang = $("#lang").value;
    localStorage.setItem("anotador.lang", lang);
    applyWords();
    if (!$("#home").hidden) { renderVariants(); relabel(); renderRecent(); } else render();
    if (!$("#share").hidden) renderShare();
  });
  $("#new-game").addEventListener("submit", startGame);
  $("#add-player").addEventListener("click", () => { addPlayerRow(""); $("#players").lastElementChild.querySelector("input").focus(); });
  $("#use-dice").addEventListener("change", () => { resetTie(); syncDiceInputs(); });
  $("#players").addEventListener("input", resetTie);
  $("#players").addEventListener("change", (e) => { if (e.target.matches(".first-die")) resetTie(); });
  $("#served").addEventListener("change", () => { G.served = $("#served").checked; renderOptions(); });
  $("#clear").addEventListener("click", () => { G.dice = []; renderPlay(); });
  $("#scratch-btn").addEventListener("click", () => {
    const list = $("#scratch-list");
    list.hidden = !list.hidden;
    $("#scratch-btn").setAttribute("aria-expanded", String(!list.hidden));
    if (!list.hidden) renderScratchList();
  });
  $("#cancel-fix").addEventListener("click", () => { G.fix = null; G.dice = []; G.served = false; render(); });
  $("#undo").addEventListener("click", async () => {
    if (await confirmDialog(t("undo_confirm"))) send("DELETE", "/turns/last");
  });
  $("#share-btn").addEventListener("click", () => {
    const panel = $("#share");
    panel.hidden = !panel.hidden;
    $("#share-btn").setAttribute("aria-expanded", String(!panel.hidden));
    if (!panel.hidden) renderShare();
  });
  $("#print-link").addEventListener("click", printHouseSheet);
  $("#tab-read").addEventListener("click", () => { G.shareMode = "read"; renderShare(); });
  $("#tab-write").addEventListener("click", () => { G.shareMode = "write"; renderShare(); });
  $("#copy").addEventListener("click", async () => {
    const url = $("#share-url").value;
    try { await navigator.clipboard.writeText(url); } catch { $("#share-url").select(); document.execCommand("copy"); }
    toast(t("copied"));
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && G.game) { refresh(); keepAwake(G.game.status === "playing"); }
  });
  window.addEventListener("popstate", route);
}

document.addEventListener("DOMContentLoaded", () => {
  applyWords();
  wire();
  route();
});
