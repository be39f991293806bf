// The advisor's hint on the pad: off by default, switched on per phone.
//
// For the dice entered, /api/v1/advice names the best box (marked ★ among
// the options) or, after roll 1 or 2, the dice to keep (marked on the dice).
// Which roll it is the player says; "served" is roll 1.

import { call } from "./api.js";
import { $, $$, el, isolate } from "./helpers.js";
import { decimal, percent, plural, t } from "./words.js";

const KEY = "anotador.hint";

export class Hint {
  constructor(pad, game) {
    this.pad = pad;
    this.game = game;
    this.roll = 3;
    this.keep = null;  // the keep last advised, picked already when the player rolls again
    this.seq = 0;
    this.timer = null;
    this.on = localStorage.getItem(KEY) === "1";
    $("#hint-on").setAttribute("aria-pressed", String(this.on));
    $("#hint-on").addEventListener("click", () => {
      this.on = !this.on;
      $("#hint-on").setAttribute("aria-pressed", String(this.on));
      localStorage.setItem(KEY, this.on ? "1" : "0");
      this.pad.render();  // recording every throw comes with the hint
    });
    for (const b of $$("#roll-pick button")) b.addEventListener("click", () => this.pick(Number(b.dataset.roll)));
  }

  /** The player says which roll this is; roll 1 is a served roll where that matters. */
  pick(roll) {
    if (roll !== this.pad.throws.length + 1) this.pad.forgetThrows();  // said by hand: earlier throws unknown
    this.roll = roll;
    if (this.game.game.served_matters && (roll === 1) !== this.pad.served) {
      this.pad.served = roll === 1;
      $("#served").checked = this.pad.served;
      this.pad.renderOptions();  // calls update() once the options are drawn
      return;
    }
    this.update();
  }

  /** "Served" ticked or unticked on the pad: roll 1, or a later roll. */
  served(served) {
    if (served) this.roll = 1;
    else if (this.roll === 1) this.roll = 2;
    if (this.roll !== this.pad.throws.length + 1) this.pad.forgetThrows();
  }

  /** Draw the switch, the roll picker and the hint for the dice on the pad. */
  async update() {
    const seq = ++this.seq;
    clearTimeout(this.timer);
    const line = $("#hint");
    $("#hint-bar").hidden = !this.pad.recording();
    for (const b of $$("#roll-pick button")) b.setAttribute("aria-checked", String(Number(b.dataset.roll) === this.roll));
    for (const d of $$("#tray .die.keep")) d.classList.remove("keep");
    for (const b of $$("#options .best, #scratch-btn.best")) b.classList.remove("best");
    this.pad.bestScratch = null;
    // While the hint is on its line keeps its room, empty until the advice comes: the pad's buttons stay
    // where a finger expects them.
    if (!this.on || !this.pad.full() || this.game.rollOff() || !this.game.game) {
      line.hidden = !this.on || !!this.game.rollOff() || !this.game.game;
      line.textContent = "";
      this.keep = null;
      return;
    }
    const body = { rules: this.game.rules(), dice: this.pad.dice, roll: this.roll, sheet: this.game.sheetForRoll() };
    if (this.pad.dice.length > 5) body.limit = 3;
    const opponents = this.opponents();
    if (opponents) body.opponents = opponents;  // everyone else is done: play to win, beside the points
    let res = await call("POST", "/api/v1/advice", { body });
    // play to win not worked out here (501), or past its share of the server for now (429): the points alone
    if ((res.status === 501 || res.status === 429) && body.opponents) {
      delete body.opponents;
      res = await call("POST", "/api/v1/advice", { body });
    }
    if (seq !== this.seq) return;  // another roll since
    if (res.status === 503) {  // the table is being built: say for how long (the server's measured estimate), ask again
      line.hidden = false;
      const wait = Math.min(30, Number(res.headers.get("Retry-After")) || 2);
      const until = Date.now() + wait * 1000;
      const tick = () => {
        const left = Math.ceil((until - Date.now()) / 1000);
        if (left <= 0) { this.update(); return; }
        line.textContent = t("hint_wait_s", { n: left });
        this.timer = setTimeout(tick, Math.min(1000, until - Date.now()));
      };
      tick();
      return;
    }
    if (!res.ok) { line.textContent = ""; return; }
    const best = res.data.best;
    const win = res.data.to_win;
    // the points and the game disagree by a point of chance or more: both, the game's starred
    if (win && !sameMove(win, best) && win.chance - chanceOf(best, res.data) >= 0.01) {
      this.keep = win.keep || null;
      line.hidden = false;
      line.textContent = t("hint_two", { win: this.moveName(win, res.data), chance: percent(win.chance),
                                         points: this.moveName(best, res.data) });
      if (win.keep) this.markKeep(win.keep);
      else this.markBox(win.category, res.data);
      return;
    }
    this.keep = best.keep || null;
    const e = decimal(best.expected);
    line.hidden = false;
    if (best.keep) {
      line.textContent = best.keep.length ? t("hint_keep", { dice: best.keep.join(" "), e }) : t("hint_all", { e });
      this.markKeep(best.keep);
    } else if (best.split) {
      line.textContent = t("hint_box", { box: best.split.map((p) => this.game.boxName(p.category)).join(" + "), e });
    } else if (scoresNothing(best, res.data)) {  // a box crossed out: said as one, its button marked
      line.textContent = t("hint_scratch", { box: this.game.boxName(best.category), e });
      this.markBox(best.category, res.data);
    } else {
      line.textContent = t("hint_box", { box: this.game.boxName(best.category), e });
      this.markBox(best.category, res.data);
    }
  }

  /** Star the button that does ``category``: its option, or for a box it would cross out, "Scratch…" and
   *  that box in the scratch list. */
  markBox(category, advice) {
    if (scoresNothing({ category }, advice)) {
      $("#scratch-btn").classList.add("best");
      this.pad.bestScratch = category;
      if (!$("#scratch-list").hidden) this.pad.renderScratch();
      return;
    }
    const button = $(`#options [data-focus-key="opt:${CSS.escape(category)}"]`);
    if (button) button.classList.add("best");
  }

  /** The other players' sheets, in the order they play after this one: play to win, exactly once they are all
   *  full, else as the chances model has it (for the rules whose chances are worked out; the Yahtzee family's
   *  sampled before its last rounds, once the server has them). Null: points only. */
  opponents() {
    const g = this.game.game;
    if (g.rules.base === "double-cameroon" || g.players.length < 2) return null;
    const me = this.game.who();
    const n = g.players.length;
    const others = Array.from({ length: n - 1 }, (_, k) => g.players[(me + 1 + k) % n]);
    const finished = others.every((p) => Object.values(p.sheet).every((v) => v !== null));
    const worked = (this.game.variant && this.game.variant.chances) || this.game.chances.data;
    if (!finished && !worked) return null;
    return others.map((p) => ({ sheet: p.sheet, bonus: (p.bonuses && p.bonuses.yahtzee_bonus) || 0 }));
  }

  /** A move in words: "Fives 25", "scratch Four of a kind", "keep 6 6", "roll all again". */
  moveName(move, advice) {
    if (move.keep) return move.keep.length ? t("move_keep", { dice: move.keep.join(" ") }) : t("move_all");
    const box = (advice.boxes || []).find((b) => b.category === move.category);
    const name = this.game.boxName(move.category);
    if (box && box.points === 0) return t("move_scratch", { box: name });
    return `${name}${box ? ` ${box.points}` : ""}`;
  }

  /** Mark the dice to keep on the tray (as many of each face as the advice keeps). */
  markKeep(keep) {
    const left = [...keep];
    for (const d of $$("#tray button.die")) {
      const i = left.indexOf(Number(d.textContent));
      if (i >= 0) {
        d.classList.add("keep");
        left.splice(i, 1);
      }
    }
  }
}

/** Whether an advice's move puts these dice in a box for 0 points: a scratch, whatever the box is called. */
function scoresNothing(move, advice) {
  if (!move.category) return false;
  const box = (advice.boxes || []).find((b) => b.category === move.category);
  return Boolean(box) && box.points === 0;
}

/** The chance of winning an advice gives a move (its box's or its keep's). */
function chanceOf(move, advice) {
  const all = [...(advice.boxes || []), ...(advice.keeps || [])];
  const found = all.find((x) => sameMove(x, move));
  return found && found.chance !== undefined ? found.chance : 0;
}

/** Whether two moves of an advice are the same: the same box, or the same dice kept. */
function sameMove(a, b) {
  if (a.keep || b.keep) return Boolean(a.keep && b.keep) && a.keep.join() === b.keep.join();
  return a.category === b.category;
}

/** Lines told apart by colour and, past six players, by dashes too. */
export const COLOURS = ["#3b82c4", "#e08a00", "#2e9e4f", "#9b5fc0", "#8c6d1f", "#00a0a0"];
const SVG = "http://www.w3.org/2000/svg";

export function svg(tag, attrs = {}, ...kids) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  node.append(...kids);
  return node;
}

/** The chart: each player's expected final total after each of their turns. A turn's solid stretch is the
 *  dice (luck, and what the record could not judge); its dashed red drop, the points its decisions lost. */
function chart(a, names) {
  const W = 360, H = 210, L = 34, R = 8, T = 8, B = 30;
  const per = a.players.map(() => []);
  for (const x of a.turns) per[x.player].push(x);
  const most = Math.max(1, ...per.map((p) => p.length));
  const ys = a.players.flatMap((p, i) => [p.expected_start, ...per[i].flatMap((x) => [
    x.expected_before + (x.luck || 0) + (x.unjudged || 0), x.expected_after])]);
  let lo = Math.min(...ys), hi = Math.max(...ys);
  if (hi - lo < 10) { lo -= 5; hi += 5; }
  const X = (k) => L + (k / most) * (W - L - R);
  const Y = (v) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
  const kids = [svg("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B }),
    svg("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B })];
  const step = Math.max(1, Math.ceil(most / 12));
  for (let k = 0; k <= most; k += step) {
    kids.push(svg("text", { x: X(k), y: H - B + 14, "text-anchor": "middle" }, String(k)));
  }
  // the x-axis is the round (a player's k-th turn ends round k), as the chances' chart has it
  kids.push(svg("text", { x: (L + W - R) / 2, y: H - 3, "text-anchor": "middle" }, t("chart_round")));
  for (const v of [lo, (lo + hi) / 2, hi]) {
    kids.push(svg("text", { x: L - 4, y: Y(v) + 4, "text-anchor": "end" }, decimal(v).replace(/[.,]\d$/, "")));
  }
  a.players.forEach((p, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const dash = i >= COLOURS.length ? "6 3" : "none";
    const points = [[X(0), Y(p.expected_start)]];
    const drops = [];
    per[i].forEach((x, k) => {
      const moved = x.expected_before + (x.luck || 0) + (x.unjudged || 0);
      points.push([X(k + 1), Y(moved)]);
      if ((x.lost || 0) >= 0.05) {
        drops.push(svg("line", { class: "mistake", x1: X(k + 1), y1: Y(moved), x2: X(k + 1), y2: Y(x.expected_after) }),
          svg("circle", { class: "mistake-dot", cx: X(k + 1), cy: Y(x.expected_after), r: 2.5 }));
      }
      points.push([X(k + 1), Y(x.expected_after)]);
    });
    kids.push(svg("polyline", { class: "luck", stroke: colour, "stroke-dasharray": dash,
      points: points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ") },
    svg("title", {}, names[i])), ...drops);
  });
  return svg("svg", { class: "analysis-chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("chart_label") },
    ...kids);
}

function legend(a, names) {
  return el("ul", { class: "analysis-legend" },
    ...a.players.map((_, i) => el("li", {}, swatch("luck", COLOURS[i % COLOURS.length], i >= COLOURS.length),
      el("bdi", { text: names[i] }))),
    el("li", {}, swatch("mistake", null, false), t("mistakes")));
}

function swatch(kind, colour, dashed) {
  const line = svg("line", { class: kind, x1: 1, y1: 5, x2: 21, y2: 5, ...(colour ? { stroke: colour } : {}),
                             ...(dashed ? { "stroke-dasharray": "6 3" } : {}) });
  return svg("svg", { class: "swatch analysis-chart-key", viewBox: "0 0 22 10", width: 22, height: 10, "aria-hidden": "true" },
    line);
}

/** One costly decision in words: what was done, and what the best move was worth more. */
function sentence(x, d, names, boxName) {
  const faces = (dice) => (dice.length ? dice.join("-") : t("nothing"));
  const name = isolate(names[x.player]);
  const thrown = (kept) => { const n = d.dice.length - kept.length; return plural("dice", n); };
  const box = (m) => (m.split ? m.split.map(boxName).join(" + ") : boxName(m.category));
  let what;
  if (d.chosen.keep) what = t("dec_keep", { round: x.round, name, kept: faces(d.chosen.keep), n: thrown(d.chosen.keep) });
  else if (d.best.keep) what = t("dec_stop", { round: x.round, name, roll: d.roll, dice: faces(d.dice), box: box(d.chosen) });
  else if (x.points === 0) what = t("dec_scratch", { round: x.round, name, dice: faces(d.dice), box: box(d.chosen) });
  else what = t("dec_box", { round: x.round, name, dice: faces(d.dice), box: box(d.chosen) });
  const lost = decimal(d.lost);
  const better = d.best.keep ? t("better_keep", { kept: faces(d.best.keep), lost })
    : t(d.best_points === 0 ? "better_scratch" : "better_box", { box: box(d.best), lost });
  return `${what}; ${better}.`;
}

/** The end screen's analysis: each player's expected total turn by turn, what decisions cost, and luck. ``totals``:
 *  each player's total once the game is finished (a finished sheet's only figure is its total), else null. */
export async function showAnalysis(gameId, names, boxName, totals = null) {
  const box = $("#analysis");
  box.hidden = false;
  box.replaceChildren(el("p", { class: "hint", text: t("hint_wait") }));
  const res = await call("GET", `/api/v1/games/${encodeURIComponent(gameId)}/analysis`);
  if (res.status === 503) {
    const wait = Math.min(30, Number(res.headers.get("Retry-After")) || 2);
    setTimeout(() => showAnalysis(gameId, names, boxName, totals), wait * 1000);
    return;
  }
  if (!res.ok) { box.replaceChildren(el("p", { class: "error", text: t("error", { detail: res.status }) })); return; }
  const a = res.data;
  const unjudged = a.players.some((p) => Math.abs(p.unjudged) >= 0.05);
  const pts = (v, signed = false) => `${decimal(v, { signed })}\u00a0${t("unit")}`;
  // luck is known only from turns whose throws were recorded: with none, it is not 0 but unknown
  const judgedThrows = a.players.map((_, i) => a.turns.some((x) => x.player === i && x.judged === "every_decision"));
  const done = Array.isArray(totals);
  const head = ["players", "col_start", done ? "col_final" : "col_now", "col_lost", "col_luck",
                ...(unjudged ? ["col_unjudged"] : [])];
  const rows = a.players.map((p, i) => el("tr", {},
    el("th", { scope: "row", dir: "auto", text: names[i] }),
    el("td", { text: pts(p.expected_start) }),
    el("td", { text: done ? `${totals[i]}\u00a0${t("unit")}` : pts(p.expected_now) }),
    el("td", { text: p.lost >= 0.05 ? pts(-p.lost, true) : pts(0) }), el("td", { text: judgedThrows[i] ? pts(p.luck, true) : "—" }),
    ...(unjudged ? [el("td", { text: pts(p.unjudged, true) })] : [])));
  const costly = a.turns.flatMap((x) => x.decisions.map((d) => [x, d])).filter(([, d]) => d.lost >= 0.05)
    .sort((p, q) => q[1].lost - p[1].lost).slice(0, 3);
  const boxOnly = a.turns.filter((x) => x.judged === "box").length;
  box.replaceChildren(
    el("h2", { text: t("analysis") }),
    el("p", { class: "hint", text: t("analysis_expected") }),
    chart(a, names), legend(a, names),
    el("p", { class: "hint", text: t("analysis_lines") }),
    el("div", { class: "table-scroll" }, el("table", { class: "analysis" },
      el("thead", {}, el("tr", {}, ...head.map((k) => el("th", { scope: "col", text: t(k) })))),
      el("tbody", {}, ...rows))),
    el("h3", { text: t("costliest") }),
    costly.length ? el("ol", { class: "analysis-turns" }, ...costly.map(([x, d]) => el("li", {
      text: sentence(x, d, names, boxName) }))) : el("p", { class: "hint", text: t("analysis_none") }),
    ...(boxOnly ? [el("p", { class: "hint", text: plural("analysis_box", boxOnly) })] : []),
    // what the table's less plain figures mean, where they are shown
    ...(unjudged ? [el("p", { class: "hint", text: t("analysis_unjudged_note") })] : []),
    ...(judgedThrows.includes(false) ? [el("p", { class: "hint", text: t("analysis_luck_unknown") })] : []));
}
