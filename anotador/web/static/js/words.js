// The page's words in the player's language: that language's catalog (anotador/locales/<lang>.po), as the
// server serves it at /static/words/<lang>.json. Box and variant names come from the API.

const ROOT = document.documentElement.dataset.root || "";

/** The languages offered: the picker's, as the server lists them. */
export const LANGS = [...document.querySelectorAll("#lang option")].map((o) => o.value);

let current = pick();
let words = {};
let asking = 0;

let settle;
/** Settles once the page has words (main.js waits for it before drawing a screen): at once when the shell
 *  came with them, in the language the browser asked for; else when they have been fetched. */
export const ready = new Promise((resolve) => { settle = resolve; });
const shipped = document.getElementById("words");
if (shipped?.dataset.lang === current) {
  words = JSON.parse(shipped.textContent);
  settle();
} else {
  use(current);
}

/** A language's words: text by key, or a plural's forms by CLDR category. */
async function load(l) {
  try {
    const res = await fetch(`${ROOT}/static/words/${l}.json`);
    if (res.ok) return await res.json();
  } catch { /* offline with nothing kept: the keys show */ }
  return {};
}

/** Load a language's words and make it the page's, unless another was asked for meanwhile. */
async function use(l) {
  const asked = ++asking;
  const loaded = await load(l);
  if (asked !== asking) return false;  // a later pick won
  words = loaded;
  current = l;
  settle();
  return true;
}

function pick() {
  const saved = localStorage.getItem("anotador.lang");
  if (LANGS.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || "es"]) {
    const short = String(l).slice(0, 2).toLowerCase();
    if (LANGS.includes(short)) return short;
  }
  return "es";
}

/** The page's language. */
export function lang() { return current; }

const formats = new Map();

/** ``x`` with one decimal, as the page's language writes it (131,7 in Spanish; 131.7 in English);
 *  ``signed``: with its sign, plus included. */
export function decimal(x, { signed = false } = {}) {
  const key = `${current}:${signed}`;
  if (!formats.has(key)) {
    formats.set(key, new Intl.NumberFormat(current, { minimumFractionDigits: 1, maximumFractionDigits: 1,
                                                      signDisplay: signed ? "exceptZero" : "auto" }));
  }
  return formats.get(key).format(x);
}

/** Switch the page's language, once its words have come. */
export async function setLang(l) {
  if (!await use(l)) return;
  localStorage.setItem("anotador.lang", l);
  document.documentElement.lang = l;
}

/** A word, with {placeholders} filled: t("turn_of", { name: "Ana", round: 1, rounds: 10 }). */
export function t(key, params = {}) {
  const s = typeof words[key] === "string" ? words[key] : key;
  return fill(s, params);
}

function fill(s, params) {
  return s.replace(/\{(\w+)\}/g, (_, k) => (params[k] === undefined ? "" : String(params[k])));
}

/** A chance as the page's language writes a percentage ("41 %", "41%"): whole percents, and never 0 % or
 *  100 % for what is only nearly so ("< 1 %", "> 99 %"). */
export function percent(x) {
  const key = `${current}:%`;
  if (!formats.has(key)) formats.set(key, new Intl.NumberFormat(current, { style: "percent", maximumFractionDigits: 0 }));
  const f = formats.get(key);
  if (x > 0 && x < 0.005) return `< ${f.format(0.01)}`;
  if (x < 1 && x > 0.995) return `> ${f.format(0.99)}`;
  return f.format(x);
}

/** The words for ``n`` of something: the form the language's plural rules pick (Intl.PluralRules, CLDR's
 *  categories, as the catalog names its forms); ``{n}`` filled in, as the language writes numbers. */
export function plural(key, n, params = {}) {
  const k = `${current}:plural`;
  if (!formats.has(k)) formats.set(k, new Intl.PluralRules(current));
  const forms = words[key];
  if (typeof forms !== "object" || forms === null) return key;
  const s = forms[formats.get(k).select(n)] ?? forms.other;
  return fill(s, { n: new Intl.NumberFormat(current).format(n), ...params });
}

/** "18 puntos" / "1 point". */
export function points(n) { return plural("points", n); }

/** Apply the language to every [data-i18n] element of the shell. */
export function applyWords() {
  document.documentElement.lang = current;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll("[data-i18n-label]")) {
    node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  }
  for (const node of document.querySelectorAll("[data-i18n-placeholder]")) {
    node.setAttribute("placeholder", t(node.dataset.i18nPlaceholder));
  }
}
