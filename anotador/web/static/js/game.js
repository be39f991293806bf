// A game's screen: the live sheet, the pad, undo and corrections, the end.
//
// The server is the referee: it scores rolls, checks turns and names the
// winner. Writes go through the outbox, so a tap is never lost to a bad
// connection, and never recorded twice.

import { Outbox, ROOT, call, url, variants } from "./api.js";
import { Chances } from "./chances.js";
import { $, $$, confirmDialog, el, focus, isolate, toast } from "./helpers.js";
import { showAnalysis } from "./hint.js";
import { LiveFeed, LiveMark } from "./live.js";
import { Pad } from "./pad.js";
import { scoreOffline } from "./scoring.js";
import { edges, markScrollRegion, renderLegend, renderSheet } from "./sheet.js";
import { Share } from "./share.js";
import { store } from "./store.js";
import { lang, plural, points, t } from "./words.js";

/** Polls' period without a stream, and with one (ms). */
const POLL_MS = 1000;
const LIVE_POLL_MS = 30000;

export class GameView {
  constructor() {
    this.pad = new Pad(this);
    this.share = new Share();
    this.chances = new Chances(() => this.render());
    this.feed = new LiveFeed((version) => this.heard(version), (live) => this.showLive(live));
    this.active = false;
    this.timer = null;
    this.polling = false;
    this.failures = 0;
    this.offline = false;
    this.fix = null;
    this.wake = null;
    $("#undo").addEventListener("click", () => this.undo());
    $("#cancel-fix").addEventListener("click", () => this.cancelFix());
    $("#print-link").addEventListener("click", (e) => this.printHouseSheet(e));
    $("#fix-hint-ok").addEventListener("click", () => { store.setFlag("fixHintSeen"); this.render(); });
    $("#sheet-wrap").addEventListener("scroll", () => edges($("#sheet-wrap")), { passive: true });
    $("#conflict-discard").addEventListener("click", () => this.resolveConflict(false));
    $("#conflict-reenter").addEventListener("click", () => this.resolveConflict(true));
    document.addEventListener("visibilitychange", () => {
      if (!this.active) return;
      if (document.visibilityState === "visible") { this.feed.open(this.eventsPath()); this.loop(); this.keepAwake(); }
      else this.feed.close();  // a hidden page neither polls nor holds a stream
    });
    window.addEventListener("online", () => {
      if (this.outbox) this.outbox.flush();
      if (this.active) this.feed.again();
    });
    // The sheet's header row sticks just under the game's header, whatever its height.
    // turned sideways, or the pad grew: whether the sheet scrolls may have changed
    new ResizeObserver(() => markScrollRegion()).observe($("#sheet-wrap"));
    window.addEventListener("resize", () => {
      if (document.body.classList.contains("playing")) { this.boardFor = null; this.fitBoard(this.who()); }
    });
    new ResizeObserver(([entry]) => {
      $("#game").style.setProperty("--head-h", `${Math.ceil(entry.borderBoxSize[0].blockSize)}px`);
    }).observe($(".game-head"));
  }

  async open(id) {
    $("#home").hidden = true;
    // Shown whole once the sheet is known: nothing on screen moves when it arrives.
    $("#game").hidden = true;
    const match = /token=([A-Za-z0-9_-]+)/.exec(location.hash);
    if (match) {
      store.remember({ id, token: match[1], at: new Date().toISOString() });
      history.replaceState({}, "", `${ROOT}/g/${id}`); // the token stays on this phone, not in the address bar
    }
    Object.assign(this, { id, token: store.token(id), game: null, etag: null, fix: null, conflict: null, refused: null,
                          variant: null, failures: 0, active: true,
                          mark: new LiveMark($("#live")) });
    this.outbox = this.token ? new Outbox(id, this.token, {
      sent: (game, etag, item) => this.sent(game, etag, item),
      conflict: (item, res) => this.showConflict(item, res),
      changed: () => this.render(),
      offline: (down) => this.setOffline(down),
    }) : null;
    this.share.open(id, this.token);
    this.chances.reset(id);
    this.pad.set([]);
    $("#conflict").hidden = true;
    const seen = store.lastSeen(id);
    if (seen) this.setGame(seen.game, null);  // at once, and with no connection at all
    this.table = store.table(id);
    if (!this.table) this.loadTable(id);
    const all = await variants();
    this.known = all;
    this.refresh().then(() => {
      this.variant = all.find((v) => v.id === (this.game && this.game.variant)) || null;
      this.render();
    });
    this.feed.open(this.eventsPath());
    this.loop();
    if (this.outbox) this.outbox.flush();
  }

  close() {
    this.active = false;
    clearTimeout(this.timer);
    this.feed.close();
    this.keepAwake(false);
    document.body.classList.remove("playing");
  }

  // -- the live sheet ------------------------------------------------------------------

  eventsPath() { return `/api/v1/games/${encodeURIComponent(this.id)}/events`; }

  /** Poll while visible: once a second, or every half minute while a stream brings each new version (a
   *  safety net); the next poll starts only after the last answered. */
  async loop() {
    clearTimeout(this.timer);
    if (!this.active || this.polling) return;
    if (document.visibilityState === "visible") {
      this.polling = true;
      try { await this.refresh(); } finally { this.polling = false; }
    }
    if (this.active) this.schedule();
  }

  /** The next poll, a period from now. */
  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.loop(), this.feed.live ? LIVE_POLL_MS : POLL_MS);
  }

  /** The stream names a version: read the game if it is newer than the one shown. With no game shown
   *  yet, the read that opening the game started brings it. */
  heard(version) {
    if (!this.active || !this.game || version <= this.game.version) return;
    this.refresh();
    if (!this.polling) this.schedule();  // the safety net counts from the last news
  }

  /** A stream started or stopped holding: say so; when one stops, poll at once and every second until
   *  another does. */
  showLive(live) {
    this.mark.draw(live);
    if (!live && this.active) this.loop();
  }

  async refresh() {
    const headers = this.etag ? { "If-None-Match": this.etag } : {};
    const res = await call("GET", `/api/v1/games/${encodeURIComponent(this.id)}`, { headers, fresh: true });
    if (res.status === 0 || res.status >= 500) {
      this.failures += 1;
      if (this.failures >= 2) this.setOffline(true);
      return;
    }
    this.failures = 0;
    this.setOffline(false);
    if (!this.table) this.loadTable(this.id);  // opened with no connection: fetch it now
    if (this.outbox && this.outbox.items().length) this.outbox.flush();
    if (res.status === 304) return;
    if (res.status === 404) {
      $("#game").hidden = false;
      $("#game-title").textContent = t("game_missing");
      $("#play").hidden = true;
      return;
    }
    if (res.ok) this.setGame(res.data, res.headers.get("ETag"));
  }

  setOffline(down) {
    if (this.offline === down) return;
    this.offline = down;
    $("#offline").hidden = !down;
    $("#offline").textContent = down ? t("offline") : "";
    if (!down && this.pad.result && (this.pad.result.offline || this.pad.result.local)) this.pad.result = null;
    this.render();
  }

  setGame(game, etag) {
    const before = this.game;
    // A poll sent before our own turn can be answered after it: that game is older than the one we hold
    // (every write adds one to the version), and drawing it would undo the turn on screen and clear the
    // next player's half-entered roll.
    if (before && before.id === game.id && game.version < before.version) return;
    this.game = game;
    if (etag) this.etag = etag;
    if (before && before.id === game.id && game.version > before.version) this.noteCorrections(before, game);
    store.saw(game.id, game, this.etag);
    store.remember({ id: game.id, names: game.players.map((p) => p.name), variant: game.variant,
                     ...(store.games().some((x) => x.id === game.id) ? {} : { at: game.created_at }) });
    // its variant's description, from the list when it is here already: what is drawn first is drawn right
    if (this.variant === null && this.known) this.variant = this.known.find((v) => v.id === game.variant) || null;
    if (this.variant === null && before === null) variants().then((all) => {
      this.variant = all.find((v) => v.id === game.variant) || null;
    });
    if (before && before.version !== game.version && !this.fix) {
      // someone recorded a turn (or a roll-off roll): the half-entered roll was for it. Our own turn
      // acknowledged changes nothing: the pad had already moved on to the next roll.
      if (!this.lastRoller || this.roller() !== this.lastRoller) this.pad.set([]);
    }
    this.render();
    this.chances.update(game, this.variant);  // once per version: after each turn, a new chance for everyone
  }

  // -- what the pad asks ---------------------------------------------------------------

  rules() { return this.game.rules; }
  /** A group of five dice scored from the game's table (no connection), or null. */
  scoreOffline(dice, served, sheet) { return scoreOffline(this.table, dice, served, sheet); }

  /** The game's scoring table, fetched once and kept on this phone for the times it has no connection. */
  async loadTable(id) {
    if (this.tableLoading) return;
    this.tableLoading = true;
    const res = await call("GET", `/api/v1/games/${encodeURIComponent(id)}/scoring`).finally(() => {
      this.tableLoading = false;
    });
    if (!res.ok || id !== this.id) return;
    this.table = res.data;
    store.keepTable(id, res.data, (res.headers.get("ETag") || "").replace(/\W/g, ""));
  }
  boxesPerTurn() { return this.game.rules.base === "double-cameroon" ? 2 : 1; }
  diceCount() { return this.rollOff() ? 5 : this.boxesPerTurn() * 5; }
  /** A player's name as it goes in a sentence (isolated when written right to left). */
  playerName(i) { return isolate(this.game.players[i].name); }
  boxName(id) { const b = this.game.boxes.find((x) => x.id === id); return b ? b.names[lang()] : id; }
  instantWinName() {
    return this.variant && this.variant.instant_win_names ? this.variant.instant_win_names[lang()].toLowerCase()
      : t("reasons.instant_win");
  }

  /** What a roll's points besides its box are called ("Yahtzee bonus"). */
  rollBonusName() {
    const b = (this.game.bonuses || []).find((x) => !x.subtotal_names);
    return b ? b.names[lang()] : "";
  }

  /** The roll-off roll due, if a roll-off is under way: the server's, moved on by rolls still waiting to be
   * sent (as due() is by queued turns), so the next player's dice are never taken for the last one's. */
  rollOff() {
    const g = this.game;
    if (this.fix || !g || !g.roll_off) return null;
    const queued = new Set(this.queued().filter((i) => i.kind === "roll-off").map((i) => i.player));
    const p = g.roll_off.players.find((x) => !(String(x) in g.roll_off.rolled) && !queued.has(x));
    return p === undefined ? null : { player: p };
  }

  /** Whose turn it is on this phone: the server's, moved on by turns still waiting to be sent. A queued
   *  turn the server has already moved past moves nothing: it is ours with its answer still on the way
   *  (a read or a stream can bring the game first), or another phone's, which the answer will say. */
  due() {
    const g = this.game;
    if (!g || !g.turn) return null;
    let turn = { ...g.turn };
    for (const item of [...(this.refused ? [this.refused] : []), ...this.queued()]) {
      if (item.kind !== "turn") continue;
      if (item.player !== turn.player || (item.round && item.round !== turn.round)) continue;
      const n = g.players.length;
      const player = (turn.player + 1) % n;
      const round = turn.round + (player === g.first_player ? 1 : 0);
      turn = round > g.rounds ? null : { player, round };
      if (!turn) break;
    }
    return turn;
  }

  queued() { return this.outbox ? this.outbox.items() : []; }

  /** Whose roll the pad is for, and of what (a turn's round, a roll-off's round): null when nobody's. */
  roller() {
    const r = this.rollOff();
    if (r) return `roll-off ${r.player} ${this.game.roll_off.round || 1}`;
    const due = this.due();
    return due ? `turn ${due.player} ${due.round}` : null;
  }

  who() {
    if (this.fix) return this.fix.player;
    if (this.refused) return this.refused.player;  // a refused turn being entered again goes first
    const r = this.rollOff();
    if (r) return r.player;
    const due = this.due();
    return due ? due.player : -1;
  }

  /** Boxes each seat has waiting to be sent: { seat: { box: "18" } }. */
  pendingCells() {
    const out = {};
    for (const item of this.queued()) {
      if (item.kind !== "turn") continue;
      for (const b of item.boxes) (out[item.player] ||= {})[b.category] = b.points === null ? "…" : String(b.points);
    }
    return out;
  }

  /** The sheet the server scores this roll against: now, or as it was before the turn being corrected. */
  sheetForRoll() {
    const player = this.who();
    const sheet = {};
    if (this.fix) {
      for (const turn of this.fix.history) {
        if (turn.number >= this.fix.number) break;
        if (turn.player === player) for (const b of turn.boxes) sheet[b.category] = b.points;
      }
      return sheet;
    }
    for (const [box, pts] of Object.entries(this.game.players[player].sheet)) if (pts !== null) sheet[box] = pts;
    for (const [box, text] of Object.entries(this.pendingCells()[player] || {})) {
      sheet[box] = text === "…" ? 0 : Number(text);
    }
    return sheet;
  }

  freeBoxes() {
    const sheet = this.sheetForRoll();
    return this.game.boxes.filter((b) => !(b.id in sheet));
  }

  /** Mark the rows a roll is about to go in, in the current player's column, and keep them in sight. */
  showChoice(categories = [], scroll = true) {
    this.choice = categories;
    for (const c of $$("#sheet td.choosing")) c.classList.remove("choosing");
    const cells = categories.map((id) => document.querySelector(`#sheet tbody tr[data-box="${CSS.escape(id)}"]`))
      .map((row) => row && row.querySelectorAll("td")[this.who()]).filter(Boolean);
    for (const cell of cells) cell.classList.add("choosing");
    if (scroll && cells.length && document.body.classList.contains("playing")) {
      // both rows of a two-box turn when they fit, else the first
      for (const cell of [...cells].reverse()) cell.scrollIntoView({ block: "nearest", inline: "nearest" });
    }
  }

  // -- recording ---------------------------------------------------------------------

  recordBox(category, pts, scratch, pad) {
    const body = { player: this.who(), category, served: pad.served };
    if (pad.dice.length === 5) body.dice = [...pad.dice];
    if (scratch) body.scratch = true;
    const rolls = body.dice && pad.rollsBody();
    if (rolls) body.rolls = rolls;
    this.write(body, [{ category, points: scratch ? 0 : pts }], pad);
  }

  recordSplit(assignment, pad) {
    // A group that scores nothing in its box is a scratch of that box.
    const boxes = assignment.boxes.map((b) => ({ category: b.category, dice: b.dice, ...(b.points === 0 ? { scratch: true } : {}) }));
    const rolls = pad.rollsBody();
    this.write({ player: this.who(), dice: [...pad.dice], served: pad.served, boxes, ...(rolls ? { rolls } : {}) },
      assignment.boxes.map((b) => ({ category: b.category, points: b.points })), pad);
  }

  recordScratchTwo(ids, pad) {
    this.write({ player: this.who(), boxes: ids.map((c) => ({ category: c, scratch: true })) },
      ids.map((c) => ({ category: c, points: 0 })), pad);
  }

  recordRollOff(dice) {
    const player = this.rollOff().player;
    this.outbox.add({ kind: "roll-off", method: "POST", path: "/roll-off", body: { player, dice: [...dice] },
                      player, dice: [...dice] });
    this.pad.set([]);
  }

  write(body, boxes, pad) {
    if (!store.flag("noHaptics") && navigator.vibrate) navigator.vibrate(25);  // felt, not only seen
    const player = body.player;
    const item = { player, dice: pad.dice.length ? [...pad.dice] : null, served: pad.served, boxes,
                   label: `${this.playerName(player)}: ${boxes.map((b) => `${this.boxName(b.category)}${
                     b.points === null ? "" : ` ${b.points}`}`).join(" + ")}` };
    pad.closeScratch();
    if (this.fix) {
      const fix = this.fix;
      this.outbox.add({ ...item, kind: "fix", method: "PATCH", path: `/turns/${fix.number}`, body });
      this.fix = null;
      store.setFlag("fixHintSeen");
      pad.set(fix.saved.dice, fix.saved.served);  // the roll that was half entered before
      focus(fix.cell);
    } else if (this.refused) {
      // the refused turn entered again: first in the queue, then what was recorded after it
      const round = this.refused.round;
      this.refused = null;
      this.outbox.add({ ...item, kind: "turn", method: "POST", path: "/turns", body, round }, { first: true });
      this.outbox.resume();
      pad.set([]);
      focus($("#faces button"));
    } else {
      const due = this.due();
      this.outbox.add({ ...item, kind: "turn", method: "POST", path: "/turns", body, round: due && due.round });
      pad.set([]);
      focus($("#faces button"));
    }
  }

  sent(game, etag, item) {
    this.setGame(game, etag);
    if (item.kind === "undo" && item.restore) {
      // the undone turn's dice are back on the pad, ready to be placed again
      const due = this.due();
      if (due && due.player === item.restore.player) this.pad.set(item.restore.dice || [], item.restore.served);
    }
  }

  /** Cells a correction changed, here or on another phone, stay marked on this phone: a value changed in
   *  place, or a turn moved to another box (one cell emptied and another filled in the same column). */
  noteCorrections(before, after) {
    const marks = new Set(store.corrected(after.id));
    after.players.forEach((p, seat) => {
      const was = before.players[seat];
      if (!was) return;
      const emptied = [], filled = [];
      for (const [box, value] of Object.entries(p.sheet)) {
        const old = was.sheet[box];
        if (value === null) {
          if (old !== null && old !== undefined) emptied.push(box);
          marks.delete(`${seat}:${box}`);
        } else if (old === null || old === undefined) {
          filled.push(box);
        } else if (old !== value || was.scratched.includes(box) !== p.scratched.includes(box)) {
          marks.add(`${seat}:${box}`);
        }
      }
      if (emptied.length && filled.length) for (const box of filled) marks.add(`${seat}:${box}`);
    });
    store.setCorrected(after.id, [...marks]);
  }

  // -- conflicts ---------------------------------------------------------------------

  /** A write the server refused: said in the page's language, naming the player and the turn. */
  async showConflict(item, res) {
    this.conflict = item;
    await this.refresh();
    const slug = ((res.data && res.data.type) || "").split(":").pop();
    let theirs = null;
    if (res.status === 409 && item.kind === "turn" && ["not-your-turn", "box-closed", "conflict"].includes(slug)) {
      // another phone recorded this turn first: say what it recorded
      const h = await call("GET", `/api/v1/games/${encodeURIComponent(this.id)}/turns`);
      theirs = h.ok ? [...h.data.turns].reverse().find((x) => x.player === item.player) : null;
    }
    this.conflict.taken = Boolean(theirs);
    if (theirs) {
      const now = theirs.boxes.map((b) => `${this.boxName(b.category)} ${b.points}`).join(" + ");
      $("#conflict-title").textContent = t("conflict_title");
      $("#conflict-text").textContent = t("conflict_text", { name: this.playerName(item.player), now, mine: item.label });
    } else {
      const reason = res.status === 422 ? t("refused_rules") : t({ "box-closed": "refused_closed", "game-over": "refused_over",
        stale: "refused_stale", unauthorized: "refused_token", forbidden: "refused_token" }[slug] || "refused_other",
      { status: res.status });
      const after = this.queued().length ? ` ${t("refused_after")}` : "";
      $("#conflict-title").textContent = t("refused_title");
      $("#conflict-text").textContent = t("refused_text", { name: this.playerName(item.player),
        round: item.round || "?", mine: item.label, reason }) + after;
    }
    $("#conflict-reenter").textContent = t("reenter");
    $("#conflict-discard").textContent = t("discard");
    $("#conflict-reenter").hidden = !item.dice;
    $("#conflict").hidden = false;
    focus($("#conflict-discard"));
  }

  resolveConflict(reenter) {
    const item = this.conflict;
    this.conflict = null;
    $("#conflict").hidden = true;
    if (reenter && item && item.dice) {
      this.pad.set(item.dice, item.served);
      if (item.kind === "turn" && !item.taken) {
        // entered again before anything recorded after it is sent: the outbox waits for it
        this.refused = item;
        this.render();
        focus($("#options button"), $("#faces button:not(:disabled)"));
        return;
      }
    }
    this.outbox.resume();
    this.render();
    focus($("#faces button:not(:disabled)"), $("#turn-line"));
  }

  // -- undo and corrections --------------------------------------------------------

  async undo() {
    const h = await call("GET", `/api/v1/games/${encodeURIComponent(this.id)}/turns`);
    let what = t("undo_title"), restore = null;
    if (h.ok) {
      const rolls = h.data.roll_offs;
      const last = h.data.turns[h.data.turns.length - 1];
      if (rolls.length) what = t("undo_roll_off", { name: this.playerName(rolls[rolls.length - 1].player) });
      else if (last) {
        what = describe(last, this);
        restore = { player: last.player, dice: last.dice, served: last.served };
      }
    }
    if (!await confirmDialog(t("undo_title"), t("undo_confirm", { what }))) return;
    this.outbox.add({ kind: "undo", method: "DELETE", path: "/turns/last", body: undefined, player: -1,
                      boxes: [], label: what, restore });
  }

  async startFix(player, box, cell) {
    const res = await call("GET", `/api/v1/games/${encodeURIComponent(this.id)}/turns`);
    if (!res.ok) { toast(t("offline")); return; }
    const turn = res.data.turns.find((x) => x.player === player && x.boxes.some((b) => b.category === box));
    if (!turn) return;
    this.fix = { number: turn.number, player, round: turn.round, history: res.data.turns, cell,
                 boxes: turn.boxes.map((b) => b.category), saved: { dice: this.pad.dice, served: this.pad.served } };
    this.pad.set(turn.dice || [], turn.served);
    this.render();
    const title = $("#play-title");
    title.scrollIntoView({ block: "nearest" });
    title.focus({ preventScroll: true });
  }

  cancelFix() {
    const fix = this.fix;
    this.fix = null;
    this.pad.set(fix.saved.dice, fix.saved.served);  // the half-entered roll, as it was
    this.render();
    focus(fix.cell && document.querySelector(`[data-focus-key="${CSS.escape(fix.cell.dataset.focusKey)}"]`),
      $("#faces button"));
  }

  // -- drawing -----------------------------------------------------------------------

  render() {
    const g = this.game;
    if (!g || !this.active) return;
    $("#game").hidden = false;
    const writer = !!this.token;
    const vname = this.variant ? this.variant.names[lang()] : g.variant;
    $("#game-title").textContent = vname;
    document.title = `${vname} · Anotador`;
    const due = this.due();
    const rollOff = this.rollOff();
    this.lastRoller = this.roller();
    if (due) {
      $("#turn-line").textContent = t("turn_of", { name: this.playerName(due.player), round: due.round, rounds: g.rounds });
    } else if (g.roll_off) {
      // a tie again looks it: the round is said from the second on
      const names = g.roll_off.players.map((p) => this.playerName(p)).join(", ");
      $("#turn-line").textContent = (g.roll_off.round || 1) > 1 ? t("roll_off_again", { names, round: g.roll_off.round })
        : t("roll_off", { names });
    } else {
      $("#turn-line").textContent = "";
    }
    const queued = this.queued().length;
    $("#pending").hidden = !queued;
    $("#pending").textContent = queued ? plural("pending_count", queued) : "";
    renderSheet(g, { now: this.fix ? -1 : due ? due.player : -1, fix: this.fix, pending: this.pendingCells(),
                     corrected: new Set(store.corrected(g.id)),
                     writer, onCell: (seat, box, cell) => this.startFix(seat, box, cell), chances: this.chances.forSheet(g, this.variant) });
    this.chances.renderSummary(g, this.variant);
    renderLegend(g);
    this.showChoice(this.choice || [], false);
    const anyTurn = g.players.some((p) => Object.values(p.sheet).some((v) => v !== null));
    $("#fix-hint").hidden = !writer || !anyTurn || store.flag("fixHintSeen") || !!this.fix;
    this.renderEnd();
    this.chances.renderEnd(g, (b) => this.boxName(b), this.instantWinName());
    this.renderPad(due, rollOff);
    this.renderLinks();
    this.keepAwake(g.status === "playing");
  }

  renderPad(due, rollOff) {
    const active = !!this.token && !this.conflict && (this.fix || due || rollOff);
    $("#play").hidden = !active;
    // While a turn is entered the game fills the screen: the sheet and the pad side by side or stacked,
    // each scrolling in its own box (app.css, "the board").
    document.body.classList.toggle("playing", Boolean(active));
    if (!active) this.fitBoard(null);
    markScrollRegion();
    $("#undo").hidden = !this.token || !this.game.players.some((p) => Object.values(p.sheet).some((v) => v !== null));
    $("#undo").setAttribute("aria-label", t("undo_title"));
    if (!active) return;
    const who = this.who();
    $("#play-title").textContent = this.fix ? t("fix_title", { round: this.fix.round, name: this.playerName(who) })
      : rollOff ? t("roll_off_roll", { name: this.playerName(who) }) : t("your_roll", { name: this.playerName(who) });
    $("#cancel-fix").hidden = !this.fix;
    $("#scratch-btn").hidden = !!rollOff;
    $("#served").closest("label").hidden = !!rollOff;
    this.pad.render();
  }

  /** When the pad cannot hold the turn under the game's header (big text, a short screen), the board
   *  takes the whole screen and the header scrolls away above it, for the rest of that player's turn. */
  fitBoard(who) {
    const body = document.body;
    if (who === null) { body.classList.remove("crowded"); this.boardFor = null; return; }
    if (this.boardFor !== who) body.classList.remove("crowded");
    this.boardFor = who;
    if (body.classList.contains("crowded")) return;
    const pad = $("#play");
    if (pad.scrollHeight > pad.clientHeight + 1) {
      body.classList.add("crowded");
      $("#board").scrollIntoView({ block: "start" });
    }
  }

  renderEnd() {
    const g = this.game;
    const banner = $("#winner");
    const ranking = $("#ranking");
    if (g.status !== "finished") { banner.hidden = true; ranking.hidden = true; return; }
    const names = g.winners.map((i) => this.playerName(i)).join(", ");
    const reason = g.reason === "instant_win" && this.variant && this.variant.instant_win_names
      ? this.variant.instant_win_names[lang()].toLowerCase() : t(`reasons.${g.reason}`);
    banner.textContent = g.reason === "draw" ? `${t("draw", { names })} (${reason})` : `${t("wins", { names })} (${reason})`;
    banner.hidden = false;
    // Every player, best first. Won on points: each one's distance to the winner. Won by a roll (a served
    // generala): points did not decide, so no distance, and the winner's line says how they won.
    const byRoll = g.reason === "instant_win";
    const order = g.players.map((p, i) => ({ ...p, seat: i }))
      .sort((a, b) => (g.winners.includes(b.seat) - g.winners.includes(a.seat)) || b.total - a.total);
    const top = order[0].total;
    let place = 0;
    ranking.replaceChildren(...order.map((p, k) => {
      if (k === 0 || p.total !== order[k - 1].total || g.winners.includes(p.seat) !== g.winners.includes(order[k - 1].seat)) place = k + 1;
      const gap = p.total - top;
      const won = g.winners.includes(p.seat);
      return el("li", { class: won ? "winner" : null },
        t("rank", { place, name: isolate(p.name), total: p.total }),
        won && byRoll ? ` · ${t("won_with", { reason })}` : "",
        !byRoll && gap < 0 ? ` ${t("margin", { n: `−${-gap}` })}` : "");
    }));
    ranking.hidden = false;
  }

  renderLinks() {
    const g = this.game;
    const finished = g.status === "finished";
    $("#pdf-link").href = url(`/api/v1/games/${g.id}/sheet.pdf?lang=${lang()}`);
    $("#pdf-link").hidden = false;
    // Another game, the same players and rules; the player after this game's first starts, as at a table.
    const again = new URLSearchParams();
    const n = g.players.length;
    for (let k = 1; k <= n; k++) again.append("players", g.players[(g.first_player + k) % n].name);
    again.set("rules", JSON.stringify(g.rules));
    again.set("rematch", "1");
    if (g.table && store.mesaToken(g.table)) again.set("mesa", g.table);  // the next game at the same table
    $("#again").href = `${ROOT}/?${again.toString()}`;
    $("#mesa-link").hidden = !g.table;
    if (g.table) $("#mesa-link").href = `${ROOT}/m/${g.table}`;
    $("#again").hidden = !finished;
    // The advisor's analysis of a finished game, on request: it may need its table built first.
    $("#analysis-btn").hidden = !finished;
    if (!finished) $("#analysis").hidden = true;
    $("#analysis-btn").onclick = () => showAnalysis(g.id, g.players.map((p) => p.name), (b) => this.boxName(b),
                                                    g.status === "finished" ? g.players.map((p) => p.total) : null);
    const names = g.players.map((p) => `names=${encodeURIComponent(p.name)}`).join("&");
    $("#print-link").href = url(`/api/v1/variants/${g.variant}/sheet.pdf?players=${g.players.length}&${names}&lang=${lang()}`);
    $("#readonly-note").hidden = !!this.token;
  }

  async printHouseSheet(event) {
    // House rules are not a variant's URL: ask for their sheet, open the PDF.
    const g = this.game;
    if (!this.variant || JSON.stringify({ ...g.rules, base: undefined }) ===
        JSON.stringify({ ...this.variant.options, base: undefined })) return;
    event.preventDefault();
    const res = await fetch(url("/api/v1/sheets"), { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ rules: g.rules, players: g.players.length, names: g.players.map((p) => p.name), lang: lang() }) });
    if (!res.ok) { toast(t("error", { detail: res.status })); return; }
    window.open(URL.createObjectURL(await res.blob()), "_blank", "noopener");
  }

  async keepAwake(on = true) {
    if (!("wakeLock" in navigator)) return;
    try {
      if (on && this.active && !this.wake && document.visibilityState === "visible") {
        this.wake = await navigator.wakeLock.request("screen");
        this.wake.addEventListener("release", () => { this.wake = null; });
      } else if ((!on || !this.active) && this.wake) {
        const lock = this.wake;
        this.wake = null;
        await lock.release();
      }
    } catch { this.wake = null; /* not allowed here: fine */ }
  }
}

/** "Beto: Al 1, 1 punto" for the undo question. */
function describe(turn, view) {
  const name = view.playerName(turn.player);
  if (turn.boxes.length > 1) {
    return t("undo_what_two", { name, boxes: turn.boxes.map((b) => `${view.boxName(b.category)} ${b.points}`).join(" + ") });
  }
  const b = turn.boxes[0];
  if (b.scratch) return t("undo_what_scratch", { name, box: view.boxName(b.category) });
  return t("undo_what", { name, box: view.boxName(b.category), points: points(b.points) });
}
