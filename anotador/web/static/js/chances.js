// Who is winning: each player's chance to win, under the sheet's column headers while the game is played,
// and the curve of the game on the end screen. The server works the chances out (GET .../chances); this
// module asks once per version of the game, and draws. A setting kept on this phone turns it all off.

import { call } from "./api.js";
import { $, el, isolate } from "./helpers.js";
import { COLOURS, svg } from "./hint.js";
import { store } from "./store.js";
import { percent, t } from "./words.js";

/** Lines told apart by their dashes as well as their colours: colour is never the only key. */
const DASHES = ["none", "7 3", "2 3", "9 3 2 3", "1 5", "12 5"];

export class Chances {
  /** ``changed()`` is called when there is something new to draw. */
  constructor(changed) {
    this.changed = changed;
    this.reset(null);
  }

  reset(id) {
    clearTimeout(this.timer);
    Object.assign(this, { id, data: null, etag: null, version: null, asking: false, unavailable: false, timer: null,
                          latest: null });
  }

  /** Whether this phone shows the chances (on unless turned off here). */
  static wanted() { return !store.flag("noChances"); }

  /** Whether the chances of ``game`` are to be shown here: wanted, and worked out for its rules (the game says,
   *  house rules included; a game kept offline from before it said so, its ``variant`` once known). */
  shows(game, variant) {
    const refused = game && "chances" in game ? game.chances === false : !!variant && variant.chances === false;
    return this.asks(game) && !this.unavailable && !(refused && !this.data);
  }

  /** Whether the chances of ``game`` are asked for: wanted here; each version once, whatever the last answer. */
  asks(game) { return Chances.wanted() && !!game && game.id === this.id; }

  /** Ask for the chances of ``game``'s version, if not asked yet: a 304 costs the server a poll. */
  async update(game, variant) {
    if (!this.asks(game)) return;
    this.latest = { game, variant };  // asked for while another answer is on its way: asked for after it
    if (this.asking || this.version === game.version) return;
    this.asking = true;
    const headers = this.etag ? { "If-None-Match": this.etag } : {};
    let res;
    try {
      res = await call("GET", `/api/v1/games/${encodeURIComponent(game.id)}/chances`, { headers, fresh: true });
    } finally { this.asking = false; }
    if (game.id !== this.id) return;
    const { latest } = this;
    if (this.answer(game, variant, res) && latest.game.version !== this.version && latest.game !== game) {
      this.update(latest.game, latest.variant);
    }
  }

  /** Take an answer in; whether it was one (a version's chances, or the news that they are unchanged). */
  answer(game, variant, res) {
    if (res.status === 501) {  // not worked out for these rules (a tie-break on Yahtzees)
      Object.assign(this, { unavailable: true, version: game.version, data: null, etag: null });
      this.changed();
      return false;
    }
    if (res.status === 503 || res.status === 429) {  // the table (or outcomes) being built: ask again when it says
      const wait = Math.min(30, Number(res.headers.get("Retry-After")) || 2);
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.update(this.latest.game, this.latest.variant), wait * 1000);
      return false;
    }
    if (res.status === 304) { this.version = game.version; return true; }
    if (!res.ok) return false;  // no connection: the last chances stay until the next version
    this.data = res.data;
    this.etag = res.headers.get("ETag");
    this.version = res.data.version;
    this.unavailable = false;
    this.changed();
    return true;
  }

  /** Each seat's chance for the sheet's headers (null for each while the first answer is on its way: their place
   *  is kept, so nothing moves when they come); null when not shown. */
  forSheet(game, variant) {
    if (!this.shows(game, variant)) return null;
    return this.data ? this.data.players.map((p) => p.chance) : game.players.map(() => null);
  }

  /** The chances in words, beside the sheet, for a screen reader (the bars are pictures). */
  renderSummary(game, variant) {
    const node = $("#chances-text");
    const shown = this.forSheet(game, variant);
    if (shown && !this.data) node.textContent = t("chances_wait");  // asked, not answered yet: said, not a blank
    else node.textContent = shown ? `${t("chances_title")}: ${shown.map((c, i) => `${isolate(game.players[i].name)} ${
      percent(c)}`).join(", ")}.` : "";
  }

  /** The end screen: each player's chance turn by turn, the turn that moved it most, and the same as a table. */
  renderEnd(game, boxName, instantName) {
    const box = $("#chances-end");
    const h = this.data && this.data.history;
    if (!Chances.wanted() || !h || game.status !== "finished" || this.data.version !== game.version) {
      box.hidden = true;
      return;
    }
    const names = game.players.map((p) => p.name);
    const what = (x) => describe(x, x === h[h.length - 1], game, boxName, instantName);
    const swing = biggest(h);
    // null before the turn they were first worked out, under house rules whose early turns are not followed
    const first = h.find((x) => x.chances);
    box.replaceChildren(...[  // (a null child would be shown as the word "null")
      el("h2", { id: "chances-end-title", text: t("chances_title") }),
      el("p", { class: "hint", text: t("chances_meaning") }),
      first && first !== h[0] ? el("p", { class: "hint", id: "chances-from", text: t("chances_from", { round: first.round }) })
        : null,
      chart(h, names),
      legend(names),
      swing ? el("p", { class: "swing", text: t("chances_swing", { round: h[swing].round, name: isolate(names[h[swing].player]),
        what: what(h[swing]), before: percent(h[swing - 1].chances[h[swing].player]),
        after: percent(h[swing].chances[h[swing].player]) }) }) : null,
      el("details", { class: "disclosure" }, el("summary", { text: t("chances_table") }),
        el("div", { class: "table-scroll" }, table(h, names, what)))].filter(Boolean));
    box.hidden = false;
  }
}

/** The turn whose player's own chance moved most (none before the first). */
function biggest(h) {
  let best = 0, most = 0;
  h.forEach((x, k) => {
    if (!k || x.player === null || !x.chances || !h[k - 1].chances) return;
    const moved = Math.abs(x.chances[x.player] - h[k - 1].chances[x.player]);
    if (moved > most) { most = moved; best = k; }
  });
  return best || null;
}

/** A turn in words: "Generala 50, servida", "tachó Póker", or the instant win's own name. */
function describe(x, last, game, boxName, instantName) {
  if (x.roll_off) return t("reasons.roll_off");
  const parts = x.boxes.map((b) => (b.scratch ? t("chances_scratch", { box: boxName(b.category) })
    : `${boxName(b.category)} ${b.points}`));
  if (x.served && game.reason === "instant_win" && last) return instantName;
  return parts.join(" + ") + (x.served ? `, ${t("served").toLowerCase()}` : "");
}

function chart(h, names) {
  const W = 360, H = 200, L = 40, R = 8, T = 8, B = 30;
  const n = h.length - 1;
  // the x-axis is the round, as the analysis' chart has it: turn k of the game ends at k / players rounds
  const rounds = Math.max(1, Math.ceil(n / names.length));
  const X = (k) => L + (k / names.length / rounds) * (W - L - R);
  const Y = (c) => T + (1 - c) * (H - T - B);
  const kids = [svg("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B }),
    svg("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B })];
  for (const c of [0, 0.5, 1]) {
    kids.push(svg("line", { class: "grid", x1: L, y1: Y(c), x2: W - R, y2: Y(c) }),
      svg("text", { x: L - 4, y: Y(c) + 4, "text-anchor": "end" }, percent(c)));
  }
  const step = Math.max(1, Math.ceil(rounds / 12));
  for (let r = 0; r <= rounds; r += step) {
    kids.push(svg("text", { x: X(r * names.length), y: H - B + 14, "text-anchor": "middle" }, String(r)));
  }
  kids.push(svg("text", { x: (L + W - R) / 2, y: H - 3, "text-anchor": "middle" }, t("chart_round")));
  names.forEach((name, i) => {
    kids.push(svg("polyline", { class: "chance-line", stroke: COLOURS[i % COLOURS.length],
      "stroke-dasharray": DASHES[i % DASHES.length],
      points: h.flatMap((x, k) => (x.chances ? [`${X(k).toFixed(1)},${Y(x.chances[i]).toFixed(1)}`] : [])).join(" ") },
    svg("title", {}, name)));
  });
  return svg("svg", { class: "analysis-chart chances-chart", viewBox: `0 0 ${W} ${H}`, role: "img",
                      "aria-label": t("chances_chart_label") }, ...kids);
}

function legend(names) {
  return el("ul", { class: "analysis-legend" }, ...names.map((name, i) => el("li", {},
    svg("svg", { class: "swatch", viewBox: "0 0 26 10", width: 26, height: 10, "aria-hidden": "true" },
      svg("line", { class: "chance-line", x1: 1, y1: 5, x2: 25, y2: 5, stroke: COLOURS[i % COLOURS.length],
                    "stroke-dasharray": DASHES[i % DASHES.length] })),
    el("bdi", { text: name }))));
}

/** The text alternative: every turn worked out, who played what, and every player's chance after it. */
function table(h, names, what) {
  return el("table", { class: "analysis chances-table" },
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: t("chart_turn") }),
      ...names.map((name) => el("th", { scope: "col", dir: "auto", text: name })))),
    el("tbody", {}, ...h.map((x, k) => x.chances && el("tr", {},
      el("th", { scope: "row", text: k === 0 ? t("chances_start") : x.player === null ? what(x)
        : `${t("round_n", { round: x.round })} · ${isolate(names[x.player])}: ${what(x)}` }),
      ...x.chances.map((c) => el("td", { text: percent(c) }))))));
}
