// What this phone remembers: recent games and tables and their tokens, the last sheet
// seen of each (shown while offline), turns waiting to be sent, small flags.

const GAMES = "anotador.games";
const MESAS = "anotador.mesas";

function read(key, fallback) {
  try {
    const v = JSON.parse(localStorage.getItem(key));
    return v === null ? fallback : v;
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* full or private: the server has the truth */ }
}

export const store = {
  /** The rules this phone last started a game by ({ base, ...house rules }), or null. */
  lastRules() { return read("anotador.rules", null); },
  // the built-in variants as last read: their names, for a page opened with no connection
  variants() { return read("anotador.variants", []); },
  keepVariants(list) { write("anotador.variants", list); },
  keepRules(rules) { write("anotador.rules", rules); },
  games() { return read(GAMES, []); },
  remember(entry) {
    const list = store.games();
    const old = list.find((g) => g.id === entry.id) || {};
    write(GAMES, [{ ...old, ...entry }, ...list.filter((g) => g.id !== entry.id)].slice(0, 20));
  },
  /** A game the server no longer has: out of the list, with what this phone kept of it. */
  forget(id) {
    write(GAMES, store.games().filter((g) => g.id !== id));
    for (const key of [`anotador.seen.${id}`, `anotador.queue.${id}`, `anotador.fixed.${id}`]) localStorage.removeItem(key);
  },
  token(id) { const g = store.games().find((x) => x.id === id); return g ? g.token || null : null; },

  /** The last game body seen, to draw the sheet with no connection. */
  lastSeen(id) { return read(`anotador.seen.${id}`, null); },
  saw(id, game, etag) { write(`anotador.seen.${id}`, { game, etag }); },

  /** Writes not yet acknowledged by the server, oldest first. */
  queue(id) { return read(`anotador.queue.${id}`, []); },
  setQueue(id, items) {
    if (items.length) write(`anotador.queue.${id}`, items);
    else localStorage.removeItem(`anotador.queue.${id}`);
  },

  /** A game's scoring table (its rules as data, to score with no connection); games under one rule set share it. */
  table(id) {
    const g = store.games().find((x) => x.id === id);
    return g && g.table ? read(`anotador.table.${g.table}`, null) : null;
  },
  keepTable(id, table, tag) {
    if (!tag) return;
    write(`anotador.table.${tag}`, table);
    store.remember({ id, table: tag });
    const used = new Set(store.games().map((g) => g.table));
    for (const key of Object.keys(localStorage)) {
      if (key.startsWith("anotador.table.") && !used.has(key.slice(15))) localStorage.removeItem(key);
    }
  },

  /** The cells of a game this phone saw corrected: ["seat:box", ...]. */
  corrected(id) { return read(`anotador.fixed.${id}`, []); },
  setCorrected(id, cells) {
    if (cells.length) write(`anotador.fixed.${id}`, cells);
    else localStorage.removeItem(`anotador.fixed.${id}`);
  },

  /** This phone's tables of regulars, last opened first: { id, name, token? (write links only), at }. */
  mesas() { return read(MESAS, []); },
  rememberMesa(entry) {
    const list = store.mesas();
    const old = list.find((m) => m.id === entry.id) || {};
    write(MESAS, [{ ...old, ...entry }, ...list.filter((m) => m.id !== entry.id)].slice(0, 20));
  },
  forgetMesa(id) {
    write(MESAS, store.mesas().filter((m) => m.id !== id));
    localStorage.removeItem(`anotador.mesa.${id}`);
  },
  /** A table's standings and first page of history as last seen, to show with no connection. */
  lastMesa(id) { return read(`anotador.mesa.${id}`, null); },
  sawMesa(id, seen) { write(`anotador.mesa.${id}`, { ...(store.lastMesa(id) || {}), ...seen }); },
  mesaToken(id) { const m = store.mesas().find((x) => x.id === id); return m ? m.token || null : null; },

  flag(name) { return read(`anotador.flag.${name}`, false); },
  setFlag(name, value = true) { write(`anotador.flag.${name}`, value); },
};
