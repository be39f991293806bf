// Light or dark: as the phone is set (the default), or as chosen on the page and kept on this phone.
// The colors themselves are app.css's (light-dark()); this only says which scheme applies.

import { t } from "./words.js";

const KEY = "anotador.theme";
const ORDER = ["auto", "dark", "light"];
const ICON = { auto: "◐", dark: "☾", light: "☀" };

/** The scheme chosen on this phone: "auto" (the phone's), "dark" or "light". */
export function theme() {
  let saved = null;
  try { saved = localStorage.getItem(KEY); } catch { saved = null; }
  return ORDER.includes(saved) ? saved : "auto";
}

/** Apply ``value`` to the page and label the button with it (its words follow the language). */
export function applyTheme(value = theme()) {
  const root = document.documentElement;
  if (value === "auto") delete root.dataset.theme;
  else root.dataset.theme = value;
  const button = document.querySelector("#theme");
  if (button) {
    button.textContent = ICON[value];
    button.setAttribute("aria-label", t(`theme_${value}`));
    button.title = t(`theme_${value}`);
  }
}

/** The next scheme, kept on this phone. */
export function nextTheme() {
  const value = ORDER[(ORDER.indexOf(theme()) + 1) % ORDER.length];
  try { localStorage.setItem(KEY, value); } catch { /* private mode: for this visit only */ }
  applyTheme(value);
}
