// Anotador's phone page: routes between the start screen, a game and a table, keeps
// the language, and installs the service worker that keeps the page's shell
// on the phone (never the API: the sheet always comes from the server).

import { ROOT, url } from "./api.js";
import { GameView } from "./game.js";
import { $ } from "./helpers.js";
import { addPlayerRow, relabelHome, showHome, toggleDice } from "./home.js";
import { MesaView, createMesa } from "./mesa.js";
import { store } from "./store.js";
import { applyTheme, nextTheme } from "./theme.js";
import { applyWords, lang, ready, setLang } from "./words.js";

let game = null;
let mesa = null;

function navigate(path) {
  history.pushState({}, "", path);
  route();
}

function route() {
  const path = location.pathname.startsWith(ROOT) ? location.pathname.slice(ROOT.length) : location.pathname;
  const m = /^\/g\/([A-Za-z0-9_-]+)$/.exec(path);
  const at = /^\/m\/([A-Za-z0-9_-]+)$/.exec(path);
  if (!at && mesa) mesa.close();
  if (m) {
    game ||= new GameView();
    return game.open(m[1]);
  }
  if (game) game.close();
  if (at) {
    mesa ||= new MesaView(navigate);
    return mesa.open(at[1]);
  }
  return showHome(navigate);
}

function wire() {
  $("#lang").value = lang();
  $("#lang").addEventListener("change", async () => {
    await setLang($("#lang").value);
    applyWords();
    applyTheme();
    if (!$("#home").hidden) relabelHome();
    else if (mesa && !$("#mesa").hidden) { mesa.render(); mesa.loadHistory(true); mesa.share.render(); }
    else if (game) { game.render(); game.share.render(); }
  });
  $("#theme").addEventListener("click", nextTheme);
  // a short buzz when a turn is recorded, where the phone can (on unless turned off on this phone)
  $("#haptics").checked = !store.flag("noHaptics");
  $("#haptics").addEventListener("change", () => store.setFlag("noHaptics", !$("#haptics").checked));
  // who is winning: the bars under the names and the end screen's curve (on unless turned off on this phone)
  $("#show-chances").checked = !store.flag("noChances");
  $("#show-chances").addEventListener("change", () => store.setFlag("noChances", !$("#show-chances").checked));
  $("#record-rolls").checked = store.flag("recordRolls");
  $("#record-rolls").addEventListener("change", () => store.setFlag("recordRolls", $("#record-rolls").checked));
  $("#add-player").addEventListener("click", () => addPlayerRow("")?.focus());
  $("#use-dice").addEventListener("change", toggleDice);
  $("#new-mesa-form").addEventListener("submit", (e) => createMesa(e, navigate));
  window.addEventListener("popstate", route);
}

if ("serviceWorker" in navigator) {
  window.addEventListener("load", () => {
    navigator.serviceWorker.register(url("/sw.js"), { scope: `${ROOT}/` }).catch(() => { /* the page works without */ });
  });
}

// The shell's controls answer at once; the screens are drawn once the page has its words (at once unless this
// phone picked a language other than the browser's).
applyTheme();
wire();
await ready;
applyWords();
applyTheme();  // its button's label, in words
route();
