// The start screen: rules (a variant, house rules), players, who starts.

import { call, variants, ROOT } from "./api.js";
import { $, $$, el, focus, isolate } from "./helpers.js";
import { renderMesas } from "./mesa.js";
import { store } from "./store.js";
import { lang, t } from "./words.js";

let known = [];
let seedRules = null;
let remembered = false;  // the rules chosen are the ones this phone last played by
let rematch = false;  // another game of the same table: its rules are known, Start is what comes next
let atMesa = null;  // the table of regulars a new game starts at ({ id, name, token }), from ?mesa=
// A tie for who starts: only the tied players roll again, round after round.
const tie = { key: null, rounds: [], tied: null };

export async function showHome(navigate) {
  $("#home").hidden = false;
  $("#game").hidden = true;
  $("#mesa").hidden = true;
  document.title = "Anotador";
  const params = new URLSearchParams(location.search);
  seedRules = null;
  rematch = params.has("rematch");
  if (params.get("rules")) { try { seedRules = JSON.parse(params.get("rules")); } catch { seedRules = null; } }
  // no rules in the link: the rules this phone last played by, chosen already (and left folded)
  remembered = !seedRules && store.lastRules() !== null;
  if (remembered) seedRules = store.lastRules();
  if (seedRules) {
    const radio = $(`input[name=variant][value="${CSS.escape(seedRules.base || "")}"]`);
    if (radio) radio.checked = true;
  }
  renderVariantWords();
  $("#variants").onchange = () => { seedRules = null; renderHouse(); };
  $("#house-controls").onchange = renderChosen;
  renderPlayers(params.getAll("players").length ? params.getAll("players") : ["", ""]);
  const mesaId = params.get("mesa");
  const saved = store.mesas().find((m) => m.id === mesaId);
  atMesa = saved && saved.token ? saved : null;
  renderAtMesa();
  $("#leave-mesa").onclick = () => { atMesa = null; renderAtMesa(); };
  renderRecent();
  renderMesas(navigate);
  refreshRecent();
  // The handler goes on before the wait: a tap on Start while the variants are
  // still on their way must not submit the form the browser's way (a GET).
  $("#new-game").onsubmit = (event) => startGame(event, navigate);
  known = await variants();
  renderHouse();
  if (rematch) {
    $("#house").open = false;
    $("#start").scrollIntoView({ block: "center" });
    focus($("#start"));
  }
}

function renderAtMesa() {
  $("#at-mesa").hidden = !atMesa;
  if (atMesa) $("#at-mesa-text").textContent = t("m_at", { name: isolate(atMesa.name || atMesa.id) });
}

/** The language changed: every word of the start screen follows. */
export function relabelHome() {
  renderAtMesa();
  renderVariantWords();
  relabelPlayers();
  renderHouse();
  renderRecent();
}

function renderVariantWords() {
  const l = lang();
  for (const label of $$("#variants .choice")) {
    label.querySelector("b").textContent = JSON.parse(label.dataset.names)[l];
    label.querySelector("small").textContent = JSON.parse(label.dataset.descs)[l];
  }
  for (const name of $$("#variants .family-name")) name.textContent = JSON.parse(name.dataset.names)[l];
}

function selectedId() {
  const checked = $("input[name=variant]:checked");
  return checked ? checked.value : "generala";
}

function selectedVariant() { return known.find((v) => v.id === selectedId()); }

// -- house rules -------------------------------------------------------------------

const CHOICES = {
  served_bonus: [0, 5, 10], straight: ["standard", "ending_in_1", "circular"],
  double_generala: [null, 100, 120], double_generala_after: ["closed", "scored"],
  served_generala: ["win_always", "win_if_open", "win_unless_scratched", "points", "none"],
  three_of_a_kind: [null, "sum", 20, 25, 30], tie_break: ["share", "most_generalas", "roll_off"],
  first_player: ["highest_die", "lowest_die", "as_listed"],
  joker: ["forced", "free"], yahtzee_bonus: [100, 50, 0],
};

function valueLabel(v, name) {
  if (v === null || (name === "yahtzee_bonus" && v === 0)) return t("val.absent");
  if (typeof v === "number") return String(v);
  return t(`val.${v}`);
}

function field(text, control) {
  // The label names the control alone (a wrapping label would add its value).
  return el("div", { class: "field" }, el("label", { for: control.id, text }), control);
}

export function renderHouse() {
  const variant = selectedVariant();
  if (!variant) return;
  const opts = { ...variant.options, ...(seedRules && seedRules.base === variant.id ? seedRules : {}) };
  const controls = [];
  for (const [name, values] of Object.entries(CHOICES)) {
    if (!variant.house_rules.includes(name)) continue;
    const list = values.includes(opts[name]) ? values : [...values, opts[name]];
    controls.push(field(t(`opt.${name}`), el("select", { id: `opt-${name}`, "data-option": name },
      ...list.map((v) => el("option", { value: JSON.stringify(v), text: valueLabel(v, name), selected: v === opts[name] })))));
  }
  if (variant.house_rules.includes("ace_as_two")) {
    controls.push(el("label", { class: "check" }, el("input", { type: "checkbox", id: "opt-ace_as_two",
      "data-option": "ace_as_two", checked: !!opts.ace_as_two }), el("span", { text: t("opt.ace_as_two") })));
  }
  const spPoints = field(t("opt.served_generala_points"), el("input", { type: "number", min: 1, max: 10000,
    inputmode: "numeric", id: "opt-served_generala_points", "data-option": "served_generala_points",
    value: opts.served_generala_points || "" }));
  spPoints.hidden = opts.served_generala !== "points";
  if (variant.house_rules.includes("served_generala")) controls.push(spPoints);
  for (const [box, pts] of Object.entries(variant.options.points)) {
    const b = variant.boxes.find((x) => x.id === box);
    const current = opts.points && opts.points[box] !== undefined ? opts.points[box] : pts;
    // ids of their own: "points-straight", never the same as a select's
    controls.push(field(t("opt.points", { box: b ? b.names[lang()] : box }), el("input", { type: "number", min: 1,
      max: 10000, inputmode: "numeric", id: `points-${box}`, "data-point": box, value: current })));
  }
  $("#house-controls").replaceChildren(...controls);
  const sg = $("#opt-served_generala");
  if (sg) sg.addEventListener("change", () => { spPoints.hidden = JSON.parse(sg.value) !== "points"; });
  if (seedRules && seedRules.base === variant.id && !rematch && !remembered) {
    $("#rules-pick").open = true;
    $("#house").open = true;
  }
  renderChosen();
}

/** The rules' line of the folded choice: "Reglas: Generala", "· reglas de la casa" when any differ. */
function renderChosen() {
  const variant = selectedVariant();
  const label = $(`#variants .choice[data-id="${CSS.escape(selectedId())}"]`);
  const name = label ? JSON.parse(label.dataset.names)[lang()] : selectedId();
  const house = variant && Object.keys(houseRules(variant)).length;
  $("#rules-chosen").textContent = house ? `${name} · ${t("house_rules")}` : name;
}

function houseRules(variant) {
  const rules = {};
  for (const node of $$("#house-controls [data-option]")) {
    const name = node.dataset.option;
    let value;
    if (node.type === "checkbox") value = node.checked;
    else if (node.type === "number") value = node.value === "" ? null : Number(node.value);
    else value = JSON.parse(node.value);
    if (name === "served_generala_points" && (node.closest(".field").hidden || value === null)) continue;
    if (JSON.stringify(value) !== JSON.stringify(variant.options[name])) rules[name] = value;
  }
  const points = {};
  for (const node of $$("#house-controls [data-point]")) {
    const v = Number(node.value);
    if (v !== variant.options.points[node.dataset.point]) points[node.dataset.point] = v;
  }
  if (Object.keys(points).length) rules.points = points;
  return rules;
}

// -- players -----------------------------------------------------------------------

function renderPlayers(names) {
  $("#players").replaceChildren();
  names.forEach((n) => addPlayerRow(n));
  syncDice();
}

export function addPlayerRow(name = "") {
  const list = $("#players");
  if (list.children.length >= 12) return null;
  const input = el("input", { type: "text", maxlength: 40, autocomplete: "off", dir: "auto", value: name });
  const die = el("select", { class: "first-die" }, ...dieOptions());
  const remove = el("button", { type: "button", class: "secondary icon", text: "✕" });
  const li = el("li", {}, el("div", { class: "row" }, input, die, remove));
  remove.addEventListener("click", () => {
    const next = li.nextElementSibling || li.previousElementSibling;
    li.remove();
    resetTie();
    relabelPlayers();
    syncDice();
    // focus stays in the list: the row that took this one's place, or "add"
    focus(next && next.querySelector("button"), $("#add-player"));
  });
  input.addEventListener("input", () => { resetTie(); relabelPlayers(); });
  die.addEventListener("change", () => { resetTie(); $("#form-error").textContent = ""; });
  list.append(li);
  relabelPlayers();
  syncDice();
  return input;
}

/** Labels follow the rows: "Player 3", "Remove player 3 (Ana)", "Ana's die". */
function relabelPlayers() {
  $$("#players li").forEach((li, i) => {
    const n = i + 1;
    const [input, die, remove] = [li.querySelector("input"), li.querySelector("select"), li.querySelector("button")];
    const name = input.value.trim();
    input.setAttribute("aria-label", t("player_n", { n }));
    input.placeholder = t("player_n", { n });
    die.setAttribute("aria-label", t("die_of", { name: name || t("player_n", { n }) }));
    remove.setAttribute("aria-label", name ? t("remove_named", { n, name }) : t("remove", { n }));
  });
}

function syncDice() {
  const on = $("#use-dice").checked;
  for (const s of $$(".first-die")) s.hidden = !on;
  $("#first-hint").hidden = !on;
  $("#add-player").disabled = $("#players").children.length >= 12;
}

export function toggleDice() {
  resetTie();
  syncDice();
}

function resetTie() {
  Object.assign(tie, { key: null, rounds: [], tied: null });
  $("#tie").hidden = true;
}

function renderTie(names) {
  const who = tie.tied.map((i) => isolate(names[i]));
  $("#tie-text").textContent = t("tie_again", { names: who.join(", ") });
  $("#tie-dice").replaceChildren(...who.map((name) => el("label", { class: "tie-die" },
    el("span", { text: name }),
    el("select", { "aria-label": t("die_of", { name }), onchange: () => { $("#form-error").textContent = ""; } },
      ...dieOptions()))));
  $("#tie").hidden = false;
  focus($("#tie-dice select"));
}

/** A die's faces, after a blank: nobody has rolled until they say what came up (a "1" shown by default
 *  made every start a tie of ones). */
function dieOptions() {
  return [el("option", { value: "", text: "–", "aria-label": t("die_none") }),
    ...[1, 2, 3, 4, 5, 6].map((f) => el("option", { value: f, text: String(f) }))];
}

/** The first die nobody set, with whose it is; null when every die is set. */
function unsetDie(selects, names) {
  const at = selects.findIndex((s) => s.value === "");
  return at < 0 ? null : { select: selects[at], name: names[at] };
}

async function startGame(event, navigate) {
  event.preventDefault();
  if (!known.length) known = await variants(); // house rules need the variant's options
  const variant = selectedVariant() || { id: selectedId(), options: {} };
  const rows = $$("#players li");
  const names = rows.map((li) => li.querySelector("input").value.trim()).filter(Boolean);
  if (names.length < 2) { $("#form-error").textContent = t("need_players"); return; }
  const body = { players: names };
  const house = variant.options ? houseRules(variant) : {};
  if (Object.keys(house).length) body.rules = { base: variant.id, ...house };
  else body.variant = variant.id;
  if ($("#use-dice").checked) {
    const named = rows.filter((li) => li.querySelector("input").value.trim());
    const missing = tie.tied ? unsetDie($$("#tie-dice select"), tie.tied.map((i) => names[i]))
      : unsetDie(named.map((li) => li.querySelector(".first-die")), names);
    if (missing) {
      $("#form-error").textContent = t("need_dice", { name: missing.name });
      focus(missing.select);
      return;
    }
    const first = named.map((li) => Number(li.querySelector(".first-die").value));
    const key = JSON.stringify([names, first]);
    if (tie.key !== key) Object.assign(tie, { key, rounds: [first], tied: null });
    if (tie.tied) tie.rounds.push($$("#tie-dice select").map((x) => Number(x.value)));
    body.first_rolls = tie.rounds.length > 1 ? tie.rounds : first;
  }
  const headers = {};
  if (atMesa) {
    body.table = atMesa.id;
    headers.Authorization = `Bearer ${atMesa.token}`;
  }
  $("#start").disabled = true;
  const res = await call("POST", "/api/v1/games", { body, headers });
  $("#start").disabled = false;
  if (res.status === 422 && res.data && res.data.tied) {
    tie.tied = res.data.tied;
    renderTie(names);
    $("#form-error").textContent = "";
    return;
  }
  if (res.status !== 201) {
    if (tie.tied) tie.rounds.pop();
    $("#form-error").textContent = res.data ? res.data.detail : t("offline");
    return;
  }
  resetTie();
  const g = res.data;
  store.keepRules(body.rules || { base: body.variant });  // the next game on this phone starts with them
  store.remember({ id: g.id, token: g.token, names: g.players.map((p) => p.name), variant: g.variant,
                   at: new Date().toISOString(), mesa: g.table || undefined });
  navigate(`${ROOT}/g/${g.id}`);
}

/** This phone's games, in course first (whose turn, the scores), then finished ones (the winner). */
function renderRecent() {
  const list = store.games().map((g) => ({ ...g, game: (store.lastSeen(g.id) || {}).game || null }));
  const playing = list.filter((g) => !g.game || g.game.status !== "finished");
  const finished = list.filter((g) => g.game && g.game.status === "finished");
  $("#recent-wrap").hidden = !list.length;
  const group = (title, games) => (games.length
    ? [el("h3", { class: "recent-group", text: title }), el("ul", { class: "recent" }, ...games.map(recentItem))] : []);
  $("#recent").replaceChildren(...group(t("recent_playing"), playing), ...group(t("recent_finished"), finished));
}

function recentItem(g) {
  const label = $(`#variants .choice[data-id="${CSS.escape(g.variant || "")}"]`);
  const variant = label ? label.querySelector("b").textContent : g.variant;
  const game = g.game;
  const name = (i) => isolate(game.players[i].name);
  let state = null;
  if (game && game.status === "finished") {
    const names = game.winners.map(name).join(", ");
    state = game.reason === "draw" ? t("draw", { names }) : t("wins", { names });
  } else if (game && game.turn) {
    state = t("turn_of", { name: name(game.turn.player), round: game.turn.round, rounds: game.rounds });
  }
  const scores = game ? game.players.map((p) => `${isolate(p.name)} ${p.total}`).join(" · ") : (g.names || []).map(isolate).join(", ");
  return el("li", {}, el("a", { href: `${ROOT}/g/${g.id}` },
    state ? el("b", { class: "recent-state", text: state }) : null,
    el("span", { class: "recent-scores", text: scores }),
    el("small", { text: `${variant || ""} · ${new Date(g.at).toLocaleString(lang())}` })));
}

/** Each game of this phone as the server has it now (a 304 costs nothing); one the server no longer has
 *  goes from the list. */
async function refreshRecent() {
  const games = store.games();
  const answers = await Promise.all(games.map(async (g) => {
    const seen = store.lastSeen(g.id);
    const headers = seen && seen.etag ? { "If-None-Match": seen.etag } : {};
    const res = await call("GET", `/api/v1/games/${encodeURIComponent(g.id)}`, { headers, fresh: true });
    if (res.status === 200 && res.data) store.saw(g.id, res.data, res.headers.get("ETag"));
    if (res.status === 404) store.forget(g.id);
    return res.status;
  }));
  if (answers.some((s) => s === 200 || s === 404) && !$("#home").hidden) renderRecent();
}
