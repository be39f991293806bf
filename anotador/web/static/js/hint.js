// The advisor's hint on the pad: off by default, switched on per phone.
//
// For the dice entered, /api/v1/advice names the best box (marked ★ among
// the options) or, after roll 1 or 2, the dice to keep (marked on the dice).
// Which roll it is the player says; "served" is roll 1.

import { call } from "./api.js";
import { $, $$, el, isolate } from "./helpers.js";
import { decimal, t } from "./words.js";

const KEY = "anotador.hint";

export class Hint {
  constructor(pad, game) {
    this.pad = pad;
    this.game = game;
    this.roll = 3;
    this.seq = 0;
    this.timer = null;
    this.on = localStorage.getItem(KEY) === "1";
    $("#hint-on").setAttribute("aria-pressed", String(this.on));
    $("#hint-on").addEventListener("click", () => {
      this.on = !this.on;
      $("#hint-on").setAttribute("aria-pressed", String(this.on));
      localStorage.setItem(KEY, this.on ? "1" : "0");
      this.update();
    });
    for (const b of $$("#roll-pick button")) b.addEventListener("click", () => this.pick(Number(b.dataset.roll)));
  }

  /** The player says which roll this is; roll 1 is a served roll where that matters. */
  pick(roll) {
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
  }

  /** Draw the switch, the roll picker and the hint for the dice on the pad. */
  async update() {
    const seq = ++this.seq;
    clearTimeout(this.timer);
    const line = $("#hint");
    $("#hint-bar").hidden = !this.on;
    for (const b of $$("#roll-pick button")) b.setAttribute("aria-checked", String(Number(b.dataset.roll) === this.roll));
    for (const d of $$("#tray .die.keep")) d.classList.remove("keep");
    for (const b of $$("#options .best")) b.classList.remove("best");
    if (!this.on || !this.pad.full() || this.game.rollOff() || !this.game.game) {
      line.hidden = true;
      return;
    }
    const body = { rules: this.game.rules(), dice: this.pad.dice, roll: this.roll, sheet: this.game.sheetForRoll() };
    if (this.pad.dice.length > 5) body.limit = 3;
    const res = await call("POST", "/api/v1/advice", { body });
    if (seq !== this.seq) return;  // another roll since
    if (res.status === 503) {  // the table is being built: say so, ask again
      line.hidden = false;
      line.textContent = t("hint_wait");
      const wait = Math.min(30, Number(res.headers.get("Retry-After")) || 2);
      this.timer = setTimeout(() => this.update(), wait * 1000);
      return;
    }
    if (!res.ok) { line.hidden = true; return; }
    const best = res.data.best;
    const e = decimal(best.expected);
    line.hidden = false;
    if (best.keep) {
      line.textContent = best.keep.length ? t("hint_keep", { dice: best.keep.join(" "), e }) : t("hint_all", { e });
      this.markKeep(best.keep);
    } else if (best.split) {
      line.textContent = t("hint_box", { box: best.split.map((p) => this.game.boxName(p.category)).join(" + "), e });
    } else {
      line.textContent = t("hint_box", { box: this.game.boxName(best.category), e });
      const button = $(`#options [data-focus-key="opt:${CSS.escape(best.category)}"]`);
      if (button) button.classList.add("best");
    }
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

/** The end screen's analysis: what each player lost to choices, and the luck of the dice. */
export async function showAnalysis(gameId, names, boxName) {
  const box = $("#analysis");
  box.hidden = false;
  box.replaceChildren(el("p", { class: "hint", text: t("hint_wait") }));
  const res = await call("GET", `/api/v1/games/${encodeURIComponent(gameId)}/analysis`);
  if (res.status === 503) {
    const wait = Math.min(30, Number(res.headers.get("Retry-After")) || 2);
    setTimeout(() => showAnalysis(gameId, names, boxName), wait * 1000);
    return;
  }
  if (!res.ok) { box.replaceChildren(el("p", { class: "error", text: t("error", { detail: res.status }) })); return; }
  const a = res.data;
  const rows = a.players.map((p) => el("tr", {},
    el("th", { scope: "row", dir: "auto", text: p.name }),
    el("td", { text: decimal(p.lost) }),
    el("td", { text: decimal(p.luck, { signed: true }) })));
  const worst = a.turns.filter((x) => x.lost !== null && x.lost >= 0.05).sort((x, y) => y.lost - x.lost).slice(0, 5);
  box.replaceChildren(
    el("h2", { text: t("analysis") }),
    el("table", { class: "analysis" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: t("players") }),
        el("th", { scope: "col", text: t("lost") }), el("th", { scope: "col", text: t("luck") }))),
      el("tbody", {}, ...rows)),
    worst.length ? el("ul", { class: "analysis-turns" }, ...worst.map((x) => el("li", {
      text: t("analysis_turn", { round: x.round, name: isolate(names[x.player]),
                                 chose: x.chosen.map(boxName).join(" + "), best: x.best.map(boxName).join(" + "),
                                 lost: decimal(x.lost) }) }))) : el("p", { class: "hint", text: t("analysis_none") }),
    el("p", { class: "hint", text: t("analysis_note") }));
}
