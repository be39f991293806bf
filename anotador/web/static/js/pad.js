// The dice pad: tap the dice as they came, say if they were served, pick a
// box from the ones the server offers (best first), or scratch one.
//
// The pad never scores by itself: /api/v1/score does, or with no connection
// the game's scoring table, the engine's own answers (scoring.js); the server
// scores the turn again when it is sent. Ten dice offline: every free box.

import { call } from "./api.js";
import { $, confirmDialog, el, focus, unchanged } from "./helpers.js";
import { Hint } from "./hint.js";
import { store } from "./store.js";
import { lang, plural, points, t } from "./words.js";

/** How long options ignore taps after they take the faces' place: a quick double tap's second tap. */
const ARMING_MS = 350;

export class Pad {
  /** ``game``: the controller (current game, whose roll, how to record). */
  constructor(game) {
    this.game = game;
    this.dice = [];
    this.served = false;
    this.showAll = false;
    this.scratchPick = [];
    this.splitting = false; // ten dice split by the player ...
    this.mine = [];         // ... the group (0 or 1) of each die
    this.picked = [null, null];  // the box chosen for each of those groups
    this.bestScratch = null;  // the box the hint says to cross out, marked in the scratch list
    this.result = null;     // the last /score answer: { key, data } or { key, offline: true }
    this.seq = 0;
    // Every throw recorded (the hint on, or "record every roll"): the throws so far and what was kept,
    // the dice kept from the last one (the first ``held`` on the pad, not removable), a keep being picked.
    this.throws = [];
    this.held = 0;
    this.keeping = false;
    this.keepPick = [];
    this.hint = new Hint(this, game);
    $("#served").addEventListener("change", () => {
      this.served = $("#served").checked;
      this.hint.served(this.served);
      this.renderOptions();
    });
    $("#clear").addEventListener("click", () => this.clear());
    $("#reroll").addEventListener("click", () => this.startKeep());
    $("#scratch-btn").addEventListener("click", () => this.toggleScratch());
    $("#split-btn").addEventListener("click", () => this.toggleSplit());
  }

  /** Put dice (and served) on the pad: a new roll, or a turn to place again. */
  set(dice, served = false) {
    this.dice = [...dice];
    // "Record every roll" ticked, a new turn starts at its first throw (served, where that matters, and
    // shown on the pad); otherwise the dice entered are the final roll unless the player says otherwise.
    // The hint never changes this: a family entering final dice with it on scores what it scores off.
    const fresh = !dice.length && store.flag("recordRolls") && !this.game.fix;
    this.served = fresh ? Boolean(this.game.game && this.game.game.served_matters) : served;
    this.hint.roll = this.served || fresh ? 1 : 3;
    this.throws = [];
    this.held = 0;
    this.keeping = false;
    this.keepPick = [];
    this.showAll = false;
    this.scratchPick = [];
    this.splitting = false;
    this.mine = [];
    this.picked = [null, null];
    this.render();
  }

  /** Whether this phone records each throw of a turn: the hint is on, or "record every roll" is ticked. */
  recording() { return this.hint.on || store.flag("recordRolls"); }

  /** The turn's throws as the API takes them, if this turn's were all recorded here; else null. */
  rollsBody() {
    if (this.game.fix || !this.full() || this.game.rollOff()) return null;
    if (this.throws.length) return [...this.throws, { dice: [...this.dice] }];
    return this.recording() && this.hint.roll === 1 ? [{ dice: [...this.dice] }] : null;
  }

  /** The player said which roll this is: the throws recorded before it no longer lead here. */
  forgetThrows() {
    this.throws = [];
    this.held = 0;
  }

  /** ⌫: the dice of this throw go, the kept ones stay; with only kept dice left, the turn starts again. */
  clear() {
    if (this.dice.length > this.held) {
      this.dice = this.dice.slice(0, this.held);
      this.keeping = false;
      this.render();
    } else {
      this.set([], this.served);
    }
    focus($("#faces button"));
  }

  /** "Roll again": the player taps the dice kept (the hint's keep picked already, if it advised one). */
  startKeep() {
    this.keeping = true;
    const advised = [...(this.hint.keep || [])];
    this.keepPick = this.dice.map((face, i) => {
      if (i < this.held) return true;
      const at = advised.indexOf(face);
      if (at < 0) return false;
      advised.splice(at, 1);
      return true;
    });
    this.render();
    focus($("#tray button.die"));
  }

  /** The keep picked: recorded with its throw; the kept dice stay, the rest are entered as they come. */
  throwAgain() {
    const keep = this.dice.filter((_, i) => this.keepPick[i]);
    if (keep.length >= this.dice.length) return;
    this.throws.push({ dice: [...this.dice].sort((a, b) => a - b), keep: [...keep].sort((a, b) => a - b) });
    this.dice = keep;
    this.held = keep.length;
    this.keeping = false;
    this.keepPick = [];
    this.served = false;
    this.hint.roll = this.throws.length + 1;
    this.splitting = false;
    this.mine = [];
    this.render();
    focus($("#faces button"));
  }

  render() {
    if (!this.game.game) return;  // no sheet yet
    $("#served").checked = this.served;
    // Yahtzee's family and double-cameroon: nothing depends on it, so nobody is asked.
    $("#served").closest("label").hidden = !this.game.game.served_matters || !!this.game.rollOff();
    $("#reroll").hidden = !this.recording() || !this.full() || this.keeping || this.hint.roll >= 3
      || !!this.game.rollOff() || !!this.game.fix;
    this.renderTray();
    this.renderOptions();
    if (!$("#scratch-list").hidden) this.renderScratch();
    this.game.fitBoard(this.game.who());
  }

  renderTray() {
    const n = this.game.diceCount();
    const slots = [];
    // split by the player: group 1's dice on the left, group 2's on the right
    const grouped = this.grouping();
    const order = [...Array(n).keys()];
    if (grouped) order.sort((a, b) => this.mine[a] - this.mine[b] || a - b);
    const firstGroup = grouped ? this.mine.filter((x) => x === 0).length : 0;  // a gap after its last die
    for (const [at, i] of order.entries()) {
      const face = this.dice[i];
      const group = grouped ? this.mine[i] : null;
      slots.push(face === undefined
        ? el("span", { class: "die empty", role: "img", "aria-label": t("empty_die", { n: i + 1 }), text: "·" })
        : this.keeping
          ? el("button", { type: "button", class: `die${this.keepPick[i] ? " kept" : ""}`, text: String(face),
                           "aria-pressed": String(!!this.keepPick[i]), "aria-label": t("keep_die", { n: i + 1, face }),
                           dataset: { focusKey: `die:${i}` }, onclick: () => this.toggleKeep(i) })
        : i < this.held && group === null
          ? el("span", { class: "die held", role: "img", "aria-label": t("held_die", { n: i + 1, face }),
                         text: String(face) })
        : group !== null
          ? el("button", { type: "button", text: String(face),
                           class: `die group-${group + 1}${at === firstGroup - 1 ? " split-end" : ""}`,
                           "aria-label": t("move_die", { n: i + 1, face, from: group + 1, to: 2 - group }),
                           dataset: { focusKey: `die:${i}` }, onclick: () => this.moveDie(i) })
          : el("button", { type: "button", class: "die", "aria-label": t("remove_die", { n: i + 1, face }),
                           text: String(face), dataset: { focusKey: `die:${i}` }, onclick: () => this.removeDie(i) }));
    }
    $("#split-btn").hidden = n <= 5 || !!this.game.rollOff();
    $("#split-btn").setAttribute("aria-pressed", String(this.splitting));
    $("#tray").replaceChildren(...slots);
    $("#tray").classList.toggle("ten", n > 5);
    // The face buttons are made once and only updated: focus stays on the face just pressed.
    const faces = $("#faces");
    if (faces.children.length !== 6) {
      faces.replaceChildren(...[1, 2, 3, 4, 5, 6].map((face) => el("button", {
        type: "button", class: "face", text: String(face), dataset: { face },
        onclick: () => this.addDie(face) })));
    }
    // Every die in (or the keep being picked), the faces have nothing to add: the choices take their room.
    // The row of ⌫ and ★ moves up into it, never an option, so a tap too many never records a turn.
    const gone = this.keeping || this.full();
    if (gone && !faces.hidden && !this.keeping) this.facesGoneAt = performance.now();
    faces.hidden = gone;
    for (const b of faces.children) {
      b.setAttribute("aria-label", t("add_die", { face: b.dataset.face }));
      b.disabled = this.dice.length >= n;
    }
  }

  addDie(face) {
    if (this.dice.length >= this.game.diceCount()) return;
    this.dice.push(face);
    this.showAll = false;
    this.render();
    // the last die disables the faces: focus moves on to "served", the next thing to say
    if (this.dice.length >= this.game.diceCount()) focus($("#served").closest("label").hidden ? $("#clear") : $("#served"));
  }

  toggleKeep(i) {
    this.keepPick[i] = !this.keepPick[i];
    this.render();
    focus($(`#tray [data-focus-key="die:${i}"]`));
  }

  removeDie(i) {
    if (i < this.held) return;  // kept from the throw before: ⌫ starts the turn again
    this.dice.splice(i, 1);
    this.mine.splice(i, 1);
    this.picked = [null, null];
    this.showAll = false;
    this.render();
    const left = [...$("#tray").querySelectorAll("button.die")];
    focus(left[Math.min(i, left.length - 1)], $("#faces button:not(:disabled)"));
  }

  full() { return this.dice.length === this.game.diceCount(); }

  async renderOptions() {
    const box = $("#options");
    const n = this.game.diceCount();
    const seq = ++this.seq;  // any answer still on its way is for an older roll
    $("#instant").hidden = true;
    box.classList.remove("arming");  // drawOptions arms the options again, if they take the faces' place
    if (this.keeping) {
      const thrown = this.keepPick.filter((k) => !k).length;
      box.dataset.drawn = "";
      this.game.showChoice([]);
      // the button first: where the pad is short, it is what stays in sight
      box.replaceChildren(
        el("button", { type: "button", id: "throw-again", class: "primary wide", disabled: thrown === 0,
                       text: thrown === 0 ? t("keep_fewer") : plural("throw", thrown),
                       onclick: () => this.throwAgain() }),
        el("p", { class: "hint", text: t("keep_pick") }),
        el("button", { type: "button", class: "secondary wide", text: t("cancel"),
                       onclick: () => { this.keeping = false; this.render(); focus($("#reroll")); } }));
      this.hint.update();
      return;
    }
    if (!this.full()) {
      this.result = null;
      this.game.showChoice([]);
      box.dataset.drawn = "";
      // after a keep, only the dice thrown again are still to tap
      const text = this.held ? plural("enter_rest", n - this.held) : t("enter_dice", { n });
      box.replaceChildren(el("p", { class: "hint", text }));
      this.hint.update();
      return;
    }
    if (this.game.rollOff()) {
      box.dataset.drawn = "";
      box.replaceChildren(el("button", { type: "button", class: "primary", text: t("record_roll_off"),
        onclick: () => this.game.recordRollOff(this.dice) }));
      return;
    }
    if (this.grouping() && !this.groups()) {
      box.dataset.drawn = "";
      box.replaceChildren(el("p", { class: "hint", text: t("split_five") }));
      this.game.showChoice([]);
      return;
    }
    const body = { rules: this.game.rules(), dice: this.dice, served: this.served, sheet: this.game.sheetForRoll() };
    const groups = this.groups();
    if (groups) body.groups = groups;
    else if (n > 5) body.limit = 100;
    const key = JSON.stringify(body);
    if (!this.result || this.result.key !== key) {
      // The buttons drawn are for the roll as it was (before "served" was ticked, say): until this one is
      // scored they cannot be taken, or a tap would skip what the new answer says (an instant win).
      box.setAttribute("aria-busy", "true");
      for (const b of box.querySelectorAll("button.option")) b.disabled = true;
      const res = await call("POST", "/api/v1/score", { body });
      if (seq !== this.seq) return; // a newer roll is being scored
      if (res.status === 0) {
        const data = groups ? this.offlineGroups(groups, body.sheet)
          : this.game.scoreOffline(this.dice, this.served, body.sheet);
        this.result = data ? { key, res: { ok: true, status: 200, data }, local: true } : { key, offline: true };
      } else {
        this.result = { key, res };
      }
    }
    this.drawOptions();
  }

  drawOptions() {
    const box = $("#options");
    box.removeAttribute("aria-busy");
    // the same answer drawn again (a poll, a turn acknowledged meanwhile) leaves the buttons alone
    if (unchanged(box, JSON.stringify([this.result.key, this.result.res ? this.result.res.status : 0, this.showAll,
                                       lang(), this.game.who(), this.picked]))) {
      for (const b of box.querySelectorAll("button.option")) b.disabled = false;  // good for this roll after all
      this.hint.update();
      return;
    }
    const focused = document.activeElement && box.contains(document.activeElement)
      ? document.activeElement.dataset.focusKey : null;
    const { res, offline } = this.result;
    let buttons;
    if (offline) {
      buttons = this.offlineChoices();
    } else if (!res.ok) {
      buttons = [el("p", { class: "error", text: res.data ? res.data.detail : String(res.status) })];
    } else if (res.data.groups) {
      buttons = this.groupChoices(res.data.groups);
    } else if (res.data.assignments) {
      const all = res.data.assignments;
      const shown = this.showAll ? all : all.slice(0, 8);
      buttons = shown.map((a, k) => {
        const text = a.boxes.map((b) => `${this.game.boxName(b.category)} ${b.points ? b.points : t("scratched")}`)
          .join(" + ");
        return el("button", { type: "button", class: "option wide",
                              dataset: { focusKey: `split:${k}`, boxes: a.boxes.map((b) => b.category).join(" ") },
                              onclick: () => this.game.recordSplit(a, this) },
          el("span", { class: "label" }, text,
            el("small", { "aria-hidden": "true", text: a.boxes.map((b) => b.dice.join("-")).join(" | ") })),
          ...pointsText(a.points));
      });
      if (shown.length < all.length) {
        buttons.push(el("button", { type: "button", class: "secondary wide", text: t("show_all", { n: all.length }),
          onclick: () => { this.showAll = true; this.drawOptions(); } }));
      }
    } else {
      const wins = res.data.instant_win;
      const who = this.game.playerName(this.game.who());
      // A further Yahtzee earns its bonus whichever box it goes in: said once, above the boxes.
      const bonus = res.data.bonus || 0;
      $("#instant").hidden = !wins && !bonus;
      $("#instant").textContent = wins ? t("instant_win", { name: who })
        : bonus ? t("roll_bonus", { name: who, bonus: this.game.rollBonusName(), n: bonus }) : "";
      buttons = res.data.options.map((o) => {
        const name = this.game.boxName(o.category);
        return el("button", { type: "button", class: `option${wins ? " wins" : ""}`,
                              dataset: { focusKey: `opt:${o.category}` },
                              onclick: () => this.choose(o.category, o.points, wins) },
          el("span", { class: "label" }, name, wins ? el("small", { text: ` ${t("instant_win_option")}` }) : null),
          ...pointsText(o.points));
      });
      if (!buttons.length) buttons = [el("p", { class: "hint", text: t("no_box") })];
    }
    box.replaceChildren(...buttons);
    // The options take the place of the faces: a finger still tapping dice must not pick one.
    // (a cover over them for the time left, timed by CSS: app.css, "arming")
    const armed = ARMING_MS - (performance.now() - (this.facesGoneAt || -Infinity));
    box.classList.remove("arming");
    if (armed > 0) {
      box.style.setProperty("--arming", `${Math.round(armed)}ms`);
      void box.offsetWidth;  // the cover's clock starts again
      box.classList.add("arming");
    }
    if (focused) box.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus();
    // the row each option would fill is shown on the sheet: the best first, then the one pointed at
    const keyed = (b) => (b.dataset.boxes ? b.dataset.boxes.split(" ")
      : (b.dataset.focusKey || "").startsWith("opt:") ? [b.dataset.focusKey.slice(4)] : []);
    for (const b of box.querySelectorAll("button")) {
      const boxes = keyed(b);
      if (!boxes.length) continue;
      b.addEventListener("focus", () => this.game.showChoice(boxes));
      b.addEventListener("pointerenter", () => this.game.showChoice(boxes));
    }
    const first = box.querySelector("button");
    // the options' box never shrinks below its first option (a two-line name at 200 % text): the pad
    // scrolls instead, the tools under the options first
    box.style.setProperty("--first-h", first ? `${first.offsetHeight}px` : "0px");
    this.game.showChoice(first ? keyed(first) : []);
    this.hint.update();
    this.game.fitBoard(this.game.who());
  }

  /** No connection: every free box, its points computed by the server when the turn is sent. */
  offlineChoices() {
    if (this.game.diceCount() > 5) return [el("p", { class: "hint", text: t("offline") })];
    return this.game.freeBoxes().map((b) => el("button", { type: "button", class: "option",
      dataset: { focusKey: `opt:${b.id}` }, onclick: () => this.choose(b.id, null, false) },
    el("span", { class: "label", text: b.names[lang()] }), el("span", { class: "pts", text: "…" }),
    el("span", { class: "sr-only", text: ` (${t("pending")})` })));
  }

  async choose(category, pts, wins) {
    if (wins) {
      // A roll that ends the game says so before the tap, and asks once.
      const who = this.game.playerName(this.game.who());
      const name = this.game.boxName(category);
      const ok = await confirmDialog(t("instant_confirm_title", { name: who }),
        t("instant_confirm", { what: this.game.instantWinName(), name: who, box: `${name} ${pts}` }));
      if (!ok) return;
    }
    this.game.recordBox(category, pts, false, this);
  }

  // -- ten dice split by the player ------------------------------------------------

  /** "Split them myself": the dice go in two groups by taps (the first five, then the rest, to start). */
  toggleSplit() {
    this.splitting = !this.splitting;
    this.mine = [];
    this.picked = [null, null];
    this.result = null;
    this.render();
    focus($("#tray button.die"));
  }

  moveDie(i) {
    this.mine[i] = 1 - this.mine[i];
    this.picked = [null, null];
    this.render();
    focus($(`#tray [data-focus-key="die:${i}"]`));
  }

  /** Whether the tray shows the player's two groups (every die in, splitting): each die's group in ``mine``. */
  grouping() {
    if (!this.splitting || !this.full()) return false;
    this.mine = this.dice.map((_, i) => this.mine[i] ?? (i < 5 ? 0 : 1));
    return true;
  }

  /** The two groups of the player's split, or null (not splitting, or not five and five). */
  groups() {
    if (!this.grouping()) return null;
    const out = [[], []];
    this.dice.forEach((face, i) => out[this.mine[i]].push(face));
    return out[0].length === 5 ? out : null;
  }

  /** Each group scored from the game's table, as /api/v1/score answers for ``groups``. */
  offlineGroups(groups, sheet) {
    const scored = groups.map((g) => this.game.scoreOffline(g, this.served, sheet));
    return scored.every(Boolean)
      ? { groups: scored.map((x, k) => ({ dice: [...groups[k]].sort((a, b) => a - b), ...x })) } : null;
  }

  /** A box for each group (two different boxes); both chosen, the turn is recorded. */
  groupChoices(groups) {
    const out = [];
    groups.forEach((g, k) => {
      out.push(el("p", { class: "group-title", text: `${t("group", { n: k + 1 })} · ${g.dice.join("-")}` }));
      const zero = g.scratch.filter((id) => !g.options.some((o) => o.category === id))
        .map((id) => ({ category: id, points: 0 }));
      for (const o of [...g.options, ...zero]) {
        const taken = this.picked[1 - k] === o.category;
        out.push(el("button", { type: "button", class: `option${o.points ? "" : " scratch"}`, disabled: taken,
          "aria-pressed": String(this.picked[k] === o.category), dataset: { focusKey: `g${k}:${o.category}`,
            boxes: o.category }, onclick: () => this.pickGroup(k, o, groups) },
        el("span", { class: "label", text: this.game.boxName(o.category) }), ...pointsText(o.points)));
      }
    });
    return out;
  }

  pickGroup(k, option, groups) {
    this.picked[k] = this.picked[k] === option.category ? null : option.category;
    if (this.picked[0] && this.picked[1]) {
      const boxes = groups.map((g, j) => {
        const found = g.options.find((o) => o.category === this.picked[j]);
        return { category: this.picked[j], dice: g.dice, points: found ? found.points : 0 };
      });
      this.game.recordSplit({ boxes }, this);
      return;
    }
    this.drawOptions();
  }

  // -- scratch ---------------------------------------------------------------------

  toggleScratch() {
    const list = $("#scratch-list");
    list.hidden = !list.hidden;
    $("#scratch-btn").setAttribute("aria-expanded", String(!list.hidden));
    if (!list.hidden) {
      this.renderScratch();
      focus(list.querySelector("button"));
    }
  }

  closeScratch() {
    $("#scratch-list").hidden = true;
    $("#scratch-btn").setAttribute("aria-expanded", "false");
    this.scratchPick = [];
  }

  renderScratch() {
    const list = $("#scratch-list");
    list.removeAttribute("aria-label");
    list.setAttribute("aria-labelledby", "scratch-title");
    const two = this.game.boxesPerTurn() > 1;
    if (unchanged(list, JSON.stringify([this.game.freeBoxes().map((b) => b.id), this.scratchPick, lang(),
                                        this.game.who(), this.bestScratch]))) return;
    const buttons = this.game.freeBoxes().map((b) => el("button", { type: "button",
      class: `option scratch${b.id === this.bestScratch ? " best" : ""}`,
      "aria-pressed": two ? String(this.scratchPick.includes(b.id)) : null, dataset: { focusKey: `scr:${b.id}` },
      onclick: () => (two ? this.pickTwo(b.id) : this.scratchOne(b)) },
    el("span", { class: "label", text: b.names[lang()] }), ...pointsText(0)));
    if (two) buttons.unshift(el("p", { class: "hint", text: t("scratch_two") }));
    // its own heading: told apart from the options that score, above it, by more than their colour
    buttons.unshift(el("p", { class: "group-title", id: "scratch-title", text: t("scratch_list") }));
    const focused = document.activeElement && list.contains(document.activeElement)
      ? document.activeElement.dataset.focusKey : null;
    list.replaceChildren(...buttons);
    if (focused) list.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus();
  }

  async scratchOne(box) {
    const who = this.game.playerName(this.game.who());
    if (await confirmDialog(t("scratch_title"), t("scratch_confirm", { box: box.names[lang()], name: who }))) {
      this.game.recordBox(box.id, 0, true, this);
    }
  }

  async pickTwo(id) {
    this.scratchPick = this.scratchPick.includes(id) ? this.scratchPick.filter((x) => x !== id)
      : [...this.scratchPick, id].slice(-2);
    this.renderScratch();
    if (this.scratchPick.length < 2) return;
    const who = this.game.playerName(this.game.who());
    const boxes = this.scratchPick.map((b) => this.game.boxName(b)).join(" + ");
    if (await confirmDialog(t("scratch_title_two"), t("scratch_confirm", { box: boxes, name: who }))) {
      this.game.recordScratchTwo(this.scratchPick, this);
    }
  }
}

/** "30" on the button, "Fours 12 points" for a screen reader: the visible text is the name's start. */
function pointsText(n) {
  const word = plural("points", n).replace(/^\S+\s*/, "");
  return [el("span", { class: "pts", text: String(n) }), el("span", { class: "sr-only", text: ` ${word}` })];
}
