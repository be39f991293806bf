// The sheet, drawn like paper: a column per player, a row per box, totals.
//
// Up to six players fit a 360 px phone with short box labels ("1", "Esc",
// "Póker"; the full name stays in the accessible name, a tooltip and the
// legend). From seven on, the box column stays pinned and the table scrolls
// sideways, keeping the player whose turn it is in view.

import { $, el, isolate, toast } from "./helpers.js";
import { lang, percent, points, t } from "./words.js";

/** "20·25" for a fixed box with a served value, "≤ 30" otherwise. */
export function boxValues(box) {
  if (box.kind === "fixed") {
    // served_points 0: a served roll does not go here (general-pr's Big General wins instead)
    return box.served_points && box.served_points !== box.points ? `${box.points}·${box.served_points}` : `${box.points}`;
  }
  return t("max", { n: box.max_points });
}

/** A player's chance to win under their name, in the sticky header: a slim bar and the percentage. A picture
 *  (the words are in #chances-text), its number drawn by the style sheet from ``data-pct``, so the column's
 *  header, to a screen reader and to anything reading its text, is still the name alone. */
function chanceBar(chance) {
  const bar = el("span", { class: "bar" });
  bar.style.setProperty("--p", `${((chance || 0) * 100).toFixed(1)}%`);
  // not known yet (null): a bar that says it is being worked out ("…"), as tall as a number; the words beside
  // the sheet (#chances-text) say so in full
  return el("span", { class: chance === null ? "chance waiting" : "chance", "aria-hidden": "true" }, bar,
    el("span", { class: "pct", dataset: { pct: chance === null ? "…" : percent(chance) } }));
}

/**
 * Draw ``game`` into #sheet. ``view``: { now (seat or -1), fix: {player, boxes} or null,
 * pending: {seat: {box: text}}, writer, onCell(seat, boxId, button), chances: [chance per seat, or null while
 * not known yet] or null }.
 */
export function renderSheet(game, view) {
  const table = $("#sheet");
  const wrap = $("#sheet-wrap");
  const n = game.players.length;
  const l = lang();
  const focused = document.activeElement && table.contains(document.activeElement)
    ? document.activeElement.dataset.focusKey : null;
  table.className = `sheet players-${n}${n > 6 ? " many" : ""}${roomy(wrap, n) ? " roomy" : ""}`;
  // Many players: every column the same width, wider than the phone; the wrap scrolls.
  table.style.width = n > 6 ? `calc(4.1rem + ${n} * 3.5rem)` : "";
  const mark = (i) => [i === view.now ? "now" : "", view.fix && view.fix.player === i ? "fix" : ""]
    .join(" ").trim() || null;

  const head = el("tr", {},
    el("th", { scope: "col", class: "box-col" }, el("span", { class: "sr-only", text: t("rules") })),
    ...game.players.map((p, i) => el("th", { scope: "col", class: mark(i), title: p.name,
      "aria-current": i === view.now ? "true" : null, dataset: { seat: i } },
      // in its own direction, cut at its logical end; a tap shows it whole
      el("button", { type: "button", class: "name", dir: "auto", text: p.name, onclick: () => toast(p.name) }),
      view.chances ? chanceBar(view.chances[i]) : null)));

  const boxRow = (box) => el("tr", { dataset: { box: box.id, kind: box.kind } },
    el("th", { scope: "row", title: `${box.names[l]} · ${boxValues(box)}` },
      el("span", { class: "box-full", text: box.names[l] }),
      el("span", { class: "box-short", "aria-hidden": "true", text: (box.short_names || box.names)[l] }),
      el("span", { class: "box-values", "aria-hidden": "true", text: boxValues(box) })),
    ...game.players.map((p, i) => {
      const value = p.sheet[box.id];
      const scratched = p.scratched.includes(box.id);
      const pend = view.pending[i] && view.pending[i][box.id];
      const fixing = view.fix && view.fix.player === i && view.fix.boxes.includes(box.id);
      const fixed = value !== null && view.corrected && view.corrected.has(`${i}:${box.id}`);
      const cls = [mark(i), scratched ? "scratched" : "", pend !== undefined ? "pending" : "",
                   fixing ? "fixing" : "", fixed ? "corrected" : ""].filter(Boolean).join(" ") || null;
      const note = fixed ? el("span", { class: "sr-only", text: ` (${t("corrected")})` }) : null;
      if (pend !== undefined) {
        return el("td", { class: cls }, el("span", { text: pend }), el("span", { class: "sr-only", text: ` (${t("pending")})` }));
      }
      if (value === null) return el("td", { class: cls });
      const text = scratched ? "0" : String(value);
      if (!view.writer) {
        return el("td", { class: cls, title: fixed ? t("corrected") : null }, text,
          scratched ? el("span", { class: "sr-only", text: ` (${t("scratched")})` }) : null, note);
      }
      // the name holds what the button shows ("0" of a scratch too): heard as seen (WCAG 2.5.3)
      const label = t("cell_fix", { box: box.names[l], name: isolate(p.name),
                                    value: scratched ? `${points(0)} (${t("scratched")})` : points(value) })
        + (fixed ? ` (${t("corrected")})` : "");
      return el("td", { class: cls }, el("button", { type: "button", class: "cell", "aria-label": label, text,
        dataset: { focusKey: `cell:${i}:${box.id}` }, onclick: (e) => view.onCell(i, box.id, e.currentTarget) }));
    }));

  // After a section's last box, its subtotal and bonus; further Yahtzees' bonus after the last box.
  const rows = [];
  for (const box of game.boxes) {
    rows.push(boxRow(box));
    for (const bonus of game.bonuses || []) {
      if (bonus.subtotal_names && bonus.boxes[bonus.boxes.length - 1] === box.id) rows.push(...sectionRows(game, bonus, mark));
    }
  }
  for (const bonus of game.bonuses || []) if (!bonus.subtotal_names) rows.push(rollBonusRow(game, bonus, mark));

  const foot = el("tr", {}, el("th", { scope: "row", text: t("total") }),
    ...game.players.map((p, i) => {
      const pend = view.pending[i];
      const cls = [mark(i), game.winners.includes(i) ? "winner" : "", pend ? "pending" : ""].filter(Boolean).join(" ");
      if (!pend) return el("td", { class: cls || null, text: String(p.total) });
      // the total as the paper would have it: with the turns still waiting to be sent, marked as such
      return el("td", { class: cls }, el("span", { text: String(withPending(game, p, pend)) }),
        el("span", { class: "sr-only", text: ` (${t("pending")})` }));
    }));

  table.replaceChildren(el("caption", { class: "sr-only", text: t("sheet_label") }),
    el("thead", {}, head), el("tbody", {}, ...rows), el("tfoot", {}, foot));
  if (focused) table.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true });
  fitWidth(wrap, table, view.fix ? view.fix.player : view.now);
  fitNames(table);
}

/** A player's total with their turns waiting to be sent: their points, and a section's bonus they reach.
 *  Points not known offline ("…", ten dice) count as none until the server scores them. */
export function withPending(game, player, pending) {
  const pts = (box) => (pending[box] === undefined || pending[box] === "…" ? 0 : Number(pending[box]));
  let total = player.total + Object.keys(pending).reduce((sum, box) => sum + pts(box), 0);
  for (const bonus of game.bonuses || []) {
    if (!bonus.subtotal_names || player.bonuses[bonus.id]) continue;
    const subtotal = player.subtotals[bonus.id] + bonus.boxes.reduce((sum, box) => sum + pts(box), 0);
    if (subtotal >= bonus.threshold) total += bonus.points;
  }
  return total;
}

/** Whether the box names fit whole beside ``n`` players: by the width the sheet has, in the page's own text
 *  size (200 % text halves it), never by the number of players alone; else the short labels give the players
 *  the room. */
function roomy(wrap, n) {
  if (n > 6) return false;
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  const room = (wrap.clientWidth || wrap.parentElement.clientWidth) / rem;
  return room - 9.5 >= n * 3.8;  // the full names' column, and a column a player whose name and total fit
}

/** A section's subtotal ("63 of 63") and its bonus, shown once earned or once the section is full. */
function sectionRows(game, bonus, mark) {
  const l = lang();
  const label = (full, short, values) => el("th", { scope: "row", title: `${full} · ${values}` },
    el("span", { class: "box-full", text: full }),
    el("span", { class: "box-short", "aria-hidden": "true", text: short }),
    el("span", { class: "box-values", "aria-hidden": "true", text: values }));
  const subtotal = el("tr", { class: "sum", dataset: { sum: bonus.id } },
    label(bonus.subtotal_names[l], "Σ", `≥ ${bonus.threshold}`),
    ...game.players.map((p, i) => el("td", { class: mark(i),
      text: bonus.boxes.some((b) => p.sheet[b] !== null) ? String(p.subtotals[bonus.id]) : "" })));
  const earned = el("tr", { class: "sum", dataset: { bonus: bonus.id } },
    label(bonus.names[l], bonus.names[l], `+${bonus.points}`),
    ...game.players.map((p, i) => {
      const full = bonus.boxes.every((b) => p.sheet[b] !== null);
      const value = p.bonuses[bonus.id];
      return el("td", { class: mark(i), text: value || full ? String(value) : "" });
    }));
  return [subtotal, earned];
}

/** Points for rolls besides their box (each further Yahtzee's 100), shown once there are any. */
function rollBonusRow(game, bonus, mark) {
  const l = lang();
  const box = game.boxes.find((b) => b.id === bonus.boxes[0]);
  const short = `${(box.short_names || box.names)[l]}+`;
  return el("tr", { class: "sum", dataset: { bonus: bonus.id } },
    el("th", { scope: "row", title: `${bonus.names[l]} · +${bonus.points}` },
      el("span", { class: "box-full", text: bonus.names[l] }),
      el("span", { class: "box-short", "aria-hidden": "true", text: short }),
      el("span", { class: "box-values", "aria-hidden": "true", text: `+${bonus.points}` })),
    ...game.players.map((p, i) => el("td", { class: mark(i), text: p.bonuses[bonus.id] ? String(p.bonuses[bonus.id]) : "" })));
}

/** A name a little too long for its column is set smaller before it is cut: "Lucía" whole beside "Beto". */
function fitNames(table) {
  for (const name of table.querySelectorAll("thead .name")) {
    name.style.fontSize = "";
    for (const size of [0.82, 0.74, 0.66]) {
      if (name.scrollWidth <= name.clientWidth + 0.5) break;
      name.style.fontSize = `${size}rem`;
    }
  }
}

/** A sheet that scrolls (sideways with many players; up and down while a turn is entered) is a region
 *  reachable by keyboard, and named. */
export function markScrollRegion() {
  const wrap = $("#sheet-wrap");
  if (wrap.scrollWidth > wrap.clientWidth + 1 || wrap.scrollHeight > wrap.clientHeight + 1) {
    wrap.setAttribute("tabindex", "0");
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", t("sheet_label"));
  } else {
    wrap.removeAttribute("tabindex");
    wrap.removeAttribute("role");
    wrap.removeAttribute("aria-label");
  }
}

/** Many players: mark the table scrollable, keep ``seat``'s column in view. */
function fitWidth(wrap, table, seat) {
  const scrollable = wrap.scrollWidth > wrap.clientWidth + 1;
  wrap.classList.toggle("scrolls", scrollable);
  markScrollRegion();
  $("#more-columns").hidden = !scrollable;
  $("#more-columns").textContent = scrollable ? `→ ${t("more_columns")}` : "";
  if (scrollable && seat >= 0) {
    const th = table.querySelector(`thead th[data-seat="${seat}"]`);
    const pin = table.querySelector("thead th.box-col").offsetWidth;
    if (th.offsetLeft - wrap.scrollLeft < pin) wrap.scrollLeft = th.offsetLeft - pin;
    else if (th.offsetLeft + th.offsetWidth > wrap.scrollLeft + wrap.clientWidth) {
      wrap.scrollLeft = Math.min(th.offsetLeft - pin, th.offsetLeft + th.offsetWidth - wrap.clientWidth);
    }
  }
  edges(wrap);
}

/** Shadows at the edges that still hide columns. */
export function edges(wrap) {
  const frame = wrap.parentElement;
  frame.classList.toggle("more-left", wrap.scrollLeft > 1);
  frame.classList.toggle("more-right", wrap.scrollLeft + wrap.clientWidth < wrap.scrollWidth - 1);
}

/** The legend: every box's full name and values, for the short labels; then the bonus rows. */
export function renderLegend(game) {
  const l = lang();
  const lines = game.boxes.map((box) => [(box.short_names || box.names)[l], `${box.names[l]} · ${boxValues(box)}`]);
  for (const bonus of game.bonuses || []) {
    if (bonus.subtotal_names) {
      lines.push(["Σ", `${bonus.subtotal_names[l]} · ${bonus.names[l]} +${bonus.points} ≥ ${bonus.threshold}`]);
    } else {
      const box = game.boxes.find((b) => b.id === bonus.boxes[0]);
      lines.push([`${(box.short_names || box.names)[l]}+`, `${bonus.names[l]} · +${bonus.points}`]);
    }
  }
  $("#legend-list").replaceChildren(...lines.flatMap(([short, full]) => [el("dt", { text: short }),
                                                                          el("dd", { text: full })]));
}
