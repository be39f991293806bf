// Small DOM helpers. Text from users is only ever set as text, never as markup.

import { t } from "./words.js";

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

/** el("button", { class: "x", text: "Hi", onclick }, child, ...): an element, attributes set safely. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = v;
    else if (k === "class") node.className = v;
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

// Hebrew, Arabic, Syriac, Thaana, N'Ko... and their presentation forms: letters written right to left.
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFC]/;
/** A player's name inside a sentence: isolated (FSI ... PDI) when it holds right-to-left letters, so it
 *  reads in its own direction and the words and punctuation around it stay outside it. */
export function isolate(name) { return RTL.test(name) ? `\u2068${name}\u2069` : name; }

/** Whether ``node`` already shows what ``key`` names; if not, ``key`` is noted as what it is about to show.
 *  A button replaced between a finger's down and up loses the tap: the same content is not drawn twice. */
export function unchanged(node, key) {
  if (node.dataset.drawn === key && node.children.length) return true;
  node.dataset.drawn = key;
  return false;
}

let toastTimer = null;
/** A short message in the polite live region. */
export function toast(message) {
  const box = $("#toast");
  box.textContent = message;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.textContent = ""; }, 5000);
}

/**
 * Ask before something that cannot be taken back. The dialog is named by its
 * title and described by its text; focus starts on the safe choice.
 */
export function confirmDialog(title, text, { yes = t("yes"), no = t("no") } = {}) {
  const dialog = $("#confirm");
  const back = document.activeElement;
  $("#confirm-title").textContent = title;
  $("#confirm-text").textContent = text;
  $("#confirm-yes").textContent = yes;
  $("#confirm-no").textContent = no;
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      if (back && back.isConnected && typeof back.focus === "function") back.focus();
      resolve(dialog.returnValue === "yes");
    }, { once: true });
    dialog.returnValue = "";
    dialog.showModal();
    $("#confirm-no").focus();
  });
}

/** Focus ``node`` if it can take focus, else the first fallback that can. */
export function focus(...nodes) {
  for (const n of nodes) {
    if (n && n.isConnected && !n.disabled && n.offsetParent !== null) {
      n.focus({ preventScroll: false });
      return n;
    }
  }
  return null;
}

/** A random id for an Idempotency-Key. */
export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}
