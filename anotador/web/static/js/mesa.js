// A table of regulars ("mesa"): its standings, the chart of wins over time, its history, a new game at it,
// and, with the write link, its players renamed and merged. Everything comes from /api/v1/tables; the
// standings are read again the moment the table's version moves on (a stream of its versions, live.js),
// and polled with their ETag (a 304 while nothing ended) where no stream holds.

import { ROOT, call, url, variants } from "./api.js";
import { $, confirmDialog, el, isolate, toast } from "./helpers.js";
import { COLOURS, svg } from "./hint.js";
import { LiveFeed, LiveMark } from "./live.js";
import { Share } from "./share.js";
import { store } from "./store.js";
import { lang, percent, plural, t } from "./words.js";

/** Lines told apart by their markers and dashes as well as their colours: colour is never the only key. */
const DASHES = ["none", "7 3", "2 3", "9 3 2 3", "1 5", "12 5"];
const MARKERS = ["circle", "square", "triangle", "diamond", "cross", "bar"];
const POLL_MS = 15000;
/** The poll while a stream holds: a safety net only (ms). */
const LIVE_POLL_MS = 60000;

export class MesaView {
  constructor(navigate) {
    this.navigate = navigate;
    this.share = new Share("m-", "m");
    this.timer = null;
    this.feed = new LiveFeed((version) => this.heard(version), (live) => this.showLive(live));
    document.addEventListener("visibilitychange", () => {
      if (!this.active) return;
      if (document.visibilityState === "visible") { this.feed.open(this.eventsPath()); this.update(); this.poll(); }
      else this.feed.close();  // a hidden page holds no stream
    });
    window.addEventListener("online", () => { if (this.active) this.feed.again(); });
    $("#mesa-variant").addEventListener("change", () => this.refresh());
    $("#mesa-year").addEventListener("change", () => this.refresh());
    $("#mesa-more").addEventListener("click", () => this.more());
    $("#mesa-new-game").addEventListener("click", (e) => { e.preventDefault(); this.navigate(e.currentTarget.href); });
  }

  async open(id) {
    for (const s of ["#home", "#game"]) $(s).hidden = true;
    const match = /token=([A-Za-z0-9_-]+)/.exec(location.hash);
    if (match) {
      store.rememberMesa({ id, token: match[1], at: new Date().toISOString() });
      history.replaceState({}, "", `${ROOT}/m/${id}`); // the token stays on this phone, not in the address bar
    }
    Object.assign(this, { id, token: store.mesaToken(id), body: null, etag: null, query: "", games: [], next: null,
                          active: true, mark: new LiveMark($("#m-live")) });
    this.share.open(id, this.token);
    $("#mesa").hidden = false;
    $("#mesa-missing").hidden = true;
    const seen = store.lastMesa(id);  // at once, and with no connection at all
    this.known = await variants();
    if (seen && seen.body && !this.body) {
      this.body = seen.body;
      this.render();
      if (seen.games) this.showHistory(seen.games, null);
    }
    await this.refresh();
    this.loadHistory(true);
    if (this.active && this.id === id) this.feed.open(this.eventsPath());
    this.poll();
  }

  close() {
    this.active = false;
    clearTimeout(this.timer);
    this.feed.close();
    $("#mesa").hidden = true;
  }

  eventsPath() { return `/api/v1/tables/${encodeURIComponent(this.id)}/events`; }

  /** Poll while visible: every 15 s, or every minute while a stream brings each new version. */
  poll() {
    clearTimeout(this.timer);
    this.timer = setTimeout(async () => {
      if (!this.active) return;
      if (document.visibilityState === "visible") await this.update();
      this.poll();
    }, this.feed.live ? LIVE_POLL_MS : POLL_MS);
  }

  /** Read the standings, and the history when they changed; one read at a time, and once more if asked
   *  for meanwhile. */
  async update() {
    if (this.updating) { this.pending = true; return; }
    this.updating = true;
    try {
      do {
        this.pending = false;
        if (await this.refresh()) this.loadHistory(true);
      } while (this.pending && this.active);
    } finally { this.updating = false; }
  }

  /** The stream names a version: read the table again if it is newer than the one shown. */
  heard(version) {
    if (!this.active || !this.body || version <= this.body.version) return;
    this.update();
    this.poll();  // the safety net counts from the last news
  }

  /** A stream started or stopped holding: say so; when one stops, read at once and poll until another holds. */
  showLive(live) {
    this.mark.draw(live);
    if (!this.active) return;
    if (!live) this.update();
    this.poll();  // at the period that fits
  }

  /** The filter as a query string: the variant picked, the year picked. */
  filter() {
    const q = new URLSearchParams();
    const v = $("#mesa-variant").value;
    const y = $("#mesa-year").value;
    if (v) q.set("variant", v);
    if (y) { q.set("since", `${y}-01-01`); q.set("until", `${y}-12-31`); }
    return q.toString();
  }

  /** Read the standings (a 304 costs nothing); true when they changed. */
  async refresh() {
    const query = this.filter();
    const headers = this.etag && query === this.query ? { "If-None-Match": this.etag } : {};
    const res = await call("GET", `/api/v1/tables/${encodeURIComponent(this.id)}${query ? `?${query}` : ""}`,
      { headers, fresh: true });
    if (res.status === 304) return false;
    if (res.status === 404) {
      store.forgetMesa(this.id);
      $("#mesa-title").textContent = t("m_tables");
      $("#mesa-missing").hidden = false;
      $("#mesa-body").hidden = true;
      return false;
    }
    if (!res.ok || !res.data) return false;
    this.body = res.data;
    this.etag = res.headers.get("ETag");
    this.query = query;
    store.rememberMesa({ id: this.id, name: this.body.name, at: new Date().toISOString() });
    if (!query) store.sawMesa(this.id, { body: this.body });
    this.render();
    return true;
  }

  render() {
    const b = this.body;
    if (!b) return;
    document.title = `${b.name} · Anotador`;
    $("#mesa-title").textContent = b.name;
    $("#mesa-body").hidden = false;
    this.renderFilters();
    const names = new URLSearchParams();
    for (const n of b.usual_players) names.append("players", n);
    names.set("mesa", this.id);
    $("#mesa-new-game").href = `${ROOT}/?${names.toString()}`;
    $("#mesa-new-game").hidden = !this.token;
    // the family's spreadsheet: its language's words and separator, named after the table
    $("#mesa-csv").href = url(`/api/v1/tables/${encodeURIComponent(this.id)}/games.csv?lang=${lang()}`);
    const games = plural("m_games", b.games);
    const playing = plural("m_playing_count", b.playing);
    $("#standings-summary").textContent = b.playing ? t("m_summary", { games, playing }) : games;
    this.renderStandings();
    this.renderChart();
    this.renderPlayers();
  }

  renderFilters() {
    const b = this.body;
    const variant = $("#mesa-variant"), year = $("#mesa-year");
    const pickedV = variant.value, pickedY = year.value;
    const ids = [...new Set(b.rule_sets.map((r) => r.variant))];
    variant.replaceChildren(el("option", { value: "", text: t("m_all_variants") }),
      ...ids.map((id) => el("option", { value: id, text: this.variantName(id), selected: id === pickedV })));
    // the years come from the table's whole history, not the filtered one: a year picked stays pickable
    const years = new Set((this.years || []).concat(b.months.map((m) => m.month.slice(0, 4))));
    if (!b.filter.since && !b.filter.variant) this.years = [...years];
    year.replaceChildren(el("option", { value: "", text: t("m_all_years") }),
      ...[...years].sort().reverse().map((y) => el("option", { value: y, text: y, selected: y === pickedY })));
  }

  variantName(id) {
    const v = (this.known || []).find((x) => x.id === id);
    return v ? v.names[lang()] : id;
  }

  renderStandings() {
    const rows = this.body.standings;
    const judged = rows.some((r) => r.judged_games);
    const nf = new Intl.NumberFormat(lang(), { maximumFractionDigits: 1 });
    const cols = [
      ["m_col_games", (r) => r.games], ["m_col_wins", (r) => r.wins + (r.shared_wins ? ` (${r.shared_wins} ${t("m_shared")})` : "")],
      ["m_col_rate", (r) => percent(r.win_rate)], ["m_col_avg", (r) => nf.format(r.average_total)],
      ["m_col_best", (r) => r.best_total], ["m_col_instant", (r) => r.instant_wins],
      ["m_col_generalas", (r) => r.generalas], ["m_col_scratches", (r) => r.scratches],
      ...(judged ? [["m_col_lost", (r) => (r.average_lost === null ? "—" : nf.format(r.average_lost))],
        ["m_col_luck", (r) => (r.average_luck === null ? "—" : signed(nf, r.average_luck))]] : []),
    ];
    const table = $("#standings");
    if (!rows.length) {
      table.replaceChildren(el("caption", { text: t("m_none") }));
      $("#standings-note").textContent = "";
      return;
    }
    table.replaceChildren(
      el("caption", { class: "sr-only", text: t("m_standings") }),
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "#" }), el("th", { scope: "col", text: t("m_col_player") }),
        ...cols.map(([key]) => el("th", { scope: "col", text: t(key) })))),
      el("tbody", {}, ...rows.map((r, i) => el("tr", {},
        el("td", { text: String(i + 1) }),
        el("th", { scope: "row" }, el("bdi", { text: r.name }),
          r.names.length > 1 ? el("small", { text: t("m_names", { names: r.names.slice(1).map(isolate).join(", ") }) }) : null),
        ...cols.map(([, value]) => el("td", { text: String(value(r)) }))))));
    const n = Math.max(0, ...rows.map((r) => r.judged_games));
    // two regulars with as many wins: say what put one above the other (the server's order, sheets/standings)
    const tied = rows.some((r, i) => i > 0 && r.wins === rows[i - 1].wins);
    $("#standings-note").textContent = [judged ? t("m_judged", { n }) : "", tied ? t("m_tiebreak") : ""]
      .filter(Boolean).join(" ");
  }

  /** Each regular's wins, added up month by month: lines with a marker and a dash each, and the same as a table. */
  renderChart() {
    const b = this.body;
    const box = $("#wins-chart");
    const shown = b.standings.slice(0, 6);
    if (!b.months.length || !shown.length) { box.hidden = true; return; }
    box.hidden = false;
    const months = b.months.map((m) => m.month);
    const running = shown.map((p) => {
      let sum = 0;
      return b.months.map((m) => (sum += m.wins[String(p.player)] || 0));
    });
    const top = Math.max(1, ...running.flat());
    const W = 360, H = 200, L = 34, R = 10, T = 10, B = 30;
    const n = months.length - 1;
    const X = (k) => L + (n ? k / n : 0.5) * (W - L - R);
    const Y = (v) => T + (1 - v / top) * (H - T - B);
    const kids = [svg("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B }),
      svg("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B })];
    for (const v of [...new Set([0, Math.round(top / 2), top])]) {
      kids.push(svg("line", { class: "grid", x1: L, y1: Y(v), x2: W - R, y2: Y(v) }),
        svg("text", { x: L - 4, y: Y(v) + 4, "text-anchor": "end" }, String(v)));
    }
    const step = Math.max(1, Math.ceil(months.length / 6));
    for (let k = 0; k <= n; k += step) {
      // the first and last labels inside the frame: "May 26" at the right edge is not cut
      const anchor = !n ? "middle" : k === 0 ? "start" : k + step > n ? "end" : "middle";
      kids.push(svg("text", { x: X(k), y: H - B + 14, "text-anchor": anchor }, monthName(months[k], true)));
    }
    // markers on the same point (as many wins by the same month) side by side, not one hidden under another
    const at = new Map();
    running.forEach((r, i) => r.forEach((v, k) => at.set(`${k}:${v}`, [...(at.get(`${k}:${v}`) || []), i])));
    const beside = (i, k, v) => { const all = at.get(`${k}:${v}`); return (all.indexOf(i) - (all.length - 1) / 2) * 8; };
    shown.forEach((p, i) => {
      const colour = COLOURS[i % COLOURS.length];
      kids.push(svg("polyline", { class: "chance-line", stroke: colour, "stroke-dasharray": DASHES[i % DASHES.length],
        points: running[i].map((v, k) => `${X(k).toFixed(1)},${Y(v).toFixed(1)}`).join(" ") }, svg("title", {}, p.name)));
      running[i].forEach((v, k) => kids.push(marker(MARKERS[i % MARKERS.length], X(k) + beside(i, k, v), Y(v), colour)));
    });
    const chart = svg("svg", { class: "analysis-chart wins-chart", viewBox: `0 0 ${W} ${H}`, role: "img",
                               "aria-label": t("m_chart_label") }, ...kids);
    const legend = el("ul", { class: "analysis-legend" }, ...shown.map((p, i) => el("li", {},
      svg("svg", { class: "swatch", viewBox: "0 0 26 10", width: 26, height: 10, "aria-hidden": "true" },
        svg("line", { class: "chance-line", x1: 1, y1: 5, x2: 25, y2: 5, stroke: COLOURS[i % COLOURS.length],
                      "stroke-dasharray": DASHES[i % DASHES.length] }),
        marker(MARKERS[i % MARKERS.length], 13, 5, COLOURS[i % COLOURS.length])),
      el("bdi", { text: p.name }))));
    const table = el("table", { class: "analysis" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: t("m_month") }),
        ...shown.map((p) => el("th", { scope: "col", dir: "auto", text: p.name })))),
      el("tbody", {}, ...months.map((m, k) => el("tr", {}, el("th", { scope: "row", text: monthName(m) }),
        ...running.map((r) => el("td", { text: String(r[k]) }))))));
    $("#wins-chart-body").replaceChildren(chart, legend,
      el("details", { class: "disclosure" }, el("summary", { text: t("m_chart_table") }),
        el("div", { class: "table-scroll" }, table)));
  }

  /** With the write link: rename a regular, or merge one into another. */
  renderPlayers() {
    const box = $("#mesa-edit");
    const players = this.body.players;
    box.hidden = !this.token || !players.length;
    if (box.hidden) return;
    $("#mesa-players").replaceChildren(...players.map((p) => {
      const input = el("input", { type: "text", maxlength: 40, dir: "auto", value: p.name, id: `rename-${p.player}`,
                                  autocomplete: "off" });
      const save = el("button", { type: "button", class: "secondary", text: t("m_save"),
                                  onclick: () => this.rename(p, input.value) });
      const others = players.filter((o) => o.player !== p.player);
      const into = el("select", { id: `merge-${p.player}` }, el("option", { value: "", text: "—" }),
        ...others.map((o) => el("option", { value: o.player, text: o.name })));
      const merge = el("button", { type: "button", class: "secondary", text: t("m_merge"),
                                   onclick: () => this.merge(p, others.find((o) => String(o.player) === into.value)) });
      return el("li", {},
        el("div", { class: "field" }, el("label", { for: input.id, text: t("m_rename", { name: isolate(p.name) }) }),
          el("div", { class: "row" }, input, save)),
        others.length ? el("div", { class: "field" },
          el("label", { for: into.id, text: t("m_merge_into", { name: isolate(p.name) }) }),
          el("div", { class: "row" }, into, merge)) : null);
    }));
  }

  async write(method, path, body) {
    const res = await call(method, `/api/v1/tables/${encodeURIComponent(this.id)}${path}`,
      { body, headers: { Authorization: `Bearer ${this.token}` } });
    if (!res.ok) { toast(res.data ? res.data.detail : t("offline")); return false; }
    this.etag = null;
    await this.refresh();
    this.loadHistory(true);
    return true;
  }

  rename(p, name) {
    if (name.trim() && name.trim() !== p.name) this.write("PATCH", `/players/${p.player}`, { name });
  }

  async merge(p, into) {
    if (!into) return;
    const a = isolate(p.name), b = isolate(into.name);
    if (await confirmDialog(t("m_merge_title"), t("m_merge_confirm", { a, b }))) {
      this.write("POST", `/players/${p.player}/merge`, { into: into.player });
    }
  }

  /** The history, newest first; ``again``: from the top. */
  async loadHistory(again = false) {
    const path = `/api/v1/tables/${encodeURIComponent(this.id)}/games?limit=20${!again && this.next ? `&cursor=${encodeURIComponent(this.next)}` : ""}`;
    const res = await call("GET", path, { fresh: true });
    if (!res.ok || !res.data) return;
    if (again) store.sawMesa(this.id, { games: res.data.games });
    this.showHistory(again ? res.data.games : this.games.concat(res.data.games), res.data.next);
  }

  showHistory(games, next) {
    this.games = games;
    this.next = next;
    $("#mesa-more").hidden = !this.next;
    $("#mesa-history").replaceChildren(...this.games.map((g) => this.historyItem(g)));
  }

  more() { this.loadHistory(false); }

  historyItem(g) {
    const name = (seat) => isolate(g.players[seat].name);
    const winners = g.winners.map(name).join(", ");
    const state = g.status !== "finished" ? t("m_playing")
      : g.reason === "draw" ? t("draw", { names: winners }) : t("m_won", { names: winners });
    const scores = g.players.map((p) => (p.total === null ? isolate(p.name) : `${isolate(p.name)} ${p.total}`)).join(" · ");
    const day = new Date(`${g.played_on}T12:00:00`).toLocaleDateString(lang(), { year: "numeric", month: "short", day: "numeric" });
    return el("li", {}, el("a", { href: `${ROOT}/g/${g.id}`, onclick: (e) => { e.preventDefault(); this.navigate(`${ROOT}/g/${g.id}`); } },
      el("b", { class: "recent-state", text: state }),
      el("span", { class: "recent-scores", text: scores }),
      el("small", { text: `${this.variantName(g.variant)} · ${day}` })));
  }
}

function signed(nf, x) { return x > 0 ? `+${nf.format(x)}` : nf.format(x); }

/** A month in words: "noviembre de 2026", or "nov 26" on the chart's axis (``short``). */
function monthName(month, short = false) {
  const d = new Date(`${month}-15T12:00:00`);
  return d.toLocaleDateString(lang(), short ? { month: "short", year: "2-digit" } : { month: "long", year: "numeric" });
}

/** A line's marker at (x, y): a shape of its own for each player. */
function marker(shape, x, y, colour) {
  const s = 3.2;
  const attrs = { class: "marker", fill: colour, stroke: colour };
  if (shape === "circle") return svg("circle", { ...attrs, cx: x, cy: y, r: s });
  if (shape === "square") return svg("rect", { ...attrs, x: x - s, y: y - s, width: 2 * s, height: 2 * s });
  if (shape === "triangle") return svg("polygon", { ...attrs, points: `${x},${y - s - 1} ${x - s - 1},${y + s} ${x + s + 1},${y + s}` });
  if (shape === "diamond") return svg("polygon", { ...attrs, points: `${x},${y - s - 1} ${x + s + 1},${y} ${x},${y + s + 1} ${x - s - 1},${y}` });
  if (shape === "cross") return svg("path", { ...attrs, fill: "none", "stroke-width": 2, d: `M${x - s},${y - s}L${x + s},${y + s}M${x - s},${y + s}L${x + s},${y - s}` });
  return svg("rect", { ...attrs, x: x - s - 1, y: y - 1.2, width: 2 * s + 2, height: 2.4 });
}

/** The home screen's list of this phone's tables. */
export function renderMesas(navigate) {
  const list = store.mesas();
  $("#mesas-wrap").hidden = !list.length;
  $("#mesas").replaceChildren(...list.map((m) => el("li", {}, el("a", {
    href: `${ROOT}/m/${m.id}`, onclick: (e) => { e.preventDefault(); navigate(`${ROOT}/m/${m.id}`); } },
  el("b", { class: "recent-state", dir: "auto", text: m.name || m.id }),
  el("small", { text: new Date(m.at).toLocaleDateString(lang()) })))));
}

/** Make a table from the home screen's form, and open it. */
export async function createMesa(event, navigate) {
  event.preventDefault();
  const name = $("#mesa-name").value.trim();
  if (!name) { $("#mesa-error").textContent = t("m_name"); return; }
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  $("#mesa-create").disabled = true;
  let res = await call("POST", "/api/v1/tables", { body: { name, timezone: zone } });
  if (res.status === 422 && res.data && res.data.errors && res.data.errors.timezone) {
    res = await call("POST", "/api/v1/tables", { body: { name } });  // a zone this server does not know: UTC
  }
  $("#mesa-create").disabled = false;
  if (res.status !== 201) { $("#mesa-error").textContent = res.data ? res.data.detail : t("offline"); return; }
  $("#mesa-error").textContent = "";
  $("#mesa-name").value = "";
  store.rememberMesa({ id: res.data.id, token: res.data.token, name: res.data.name, at: new Date().toISOString() });
  navigate(`${ROOT}/m/${res.data.id}`);
}
