// The API client, and the outbox: every write leaves the phone through it.
//
// A write is stored on the phone with an Idempotency-Key before it is sent,
// and sent (in order) until the server answers; a retry with the same key
// can never apply it twice. Offline, or on a 5xx, it waits and tries again.

import { newKey } from "./helpers.js";
import { store } from "./store.js";
import { lang } from "./words.js";

/** The path prefix the app is served under ("" at the root). */
export const ROOT = document.documentElement.dataset.root || "";

export const url = (path) => ROOT + path;

/**
 * One request. Never aborted: a poll that is slow is waited for, and the
 * next one starts only after it. Resolves { status, ok, data, headers },
 * status 0 when the network failed.
 */
export async function call(method, path, { body, headers = {}, fresh = false } = {}) {
  // the server's refusals ("That did not work: ...") in the page's language, not the browser's
  const init = { method, headers: { "Accept-Language": lang(), ...headers } };
  if (fresh) init.cache = "no-store"; // our own If-None-Match, not the browser's cache
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(url(path), init);
  } catch {
    return { status: 0, ok: false, data: null, headers: new Headers() };
  }
  // Read every answer to its end, a bodiless 304 too: a response left
  // unread is cancelled, and shows up as an aborted request.
  let text = "";
  try { text = await res.text(); } catch { text = ""; }
  let data = null;
  if (text && (res.headers.get("Content-Type") || "").includes("json")) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  return { status: res.status, ok: res.ok, data, headers: res.headers };
}

let variantsPromise = null;
/** The built-in variants (cached by the browser with their ETag); with no connection, those last read. */
export function variants() {
  if (!variantsPromise) {
    variantsPromise = call("GET", "/api/v1/variants").then((r) => {
      if (!r.ok) { variantsPromise = null; return store.variants(); }
      store.keepVariants(r.data);
      return r.data;
    });
  }
  return variantsPromise;
}

/** Turns and corrections a game still has to send, and sends them in order. */
export class Outbox {
  constructor(gameId, token, handlers) {
    this.id = gameId;
    this.token = token;
    this.on = handlers; // { sent(game, etag, item), conflict(item, res), changed() }
    this.sending = false;
    this.paused = false;
    this.retry = null;
  }

  items() { return store.queue(this.id); }

  /** Queue a write (``first``: before every other) and send it (and anything before it) now. */
  add(item, { first = false } = {}) {
    const full = { key: newKey(), at: Date.now(), ...item };
    store.setQueue(this.id, first ? [full, ...this.items()] : [...this.items(), full]);
    this.on.changed();
    this.flush();
    return full;
  }

  remove(key) {
    store.setQueue(this.id, this.items().filter((x) => x.key !== key));
    this.on.changed();
  }

  resume() {
    this.paused = false;
    this.flush();
  }

  async flush() {
    if (this.sending || this.paused) return;
    this.sending = true;
    clearTimeout(this.retry);
    try {
      let item;
      while (!this.paused && (item = this.items()[0])) {
        const res = await call(item.method, `/api/v1/games/${encodeURIComponent(this.id)}${item.path}`, {
          body: item.body,
          headers: { Authorization: `Bearer ${this.token}`, "Idempotency-Key": item.key },
        });
        if (res.status === 0 || res.status >= 500 || res.status === 429) {
          // no connection, or the server cannot answer now: keep it, try again soon
          const wait = Number(res.headers.get("Retry-After")) || 2;
          this.retry = setTimeout(() => this.flush(), Math.min(wait, 30) * 1000);
          this.on.offline?.(true);
          break;
        }
        this.on.offline?.(false);
        store.setQueue(this.id, this.items().filter((x) => x.key !== item.key));
        if (res.ok) {
          this.on.sent(res.data, res.headers.get("ETag"), item);
        } else {
          // refused (409, 412, 422, ...): nothing was applied; the table decides
          this.paused = true;
          this.on.conflict(item, res);
        }
        this.on.changed();
      }
    } finally {
      this.sending = false;
    }
  }
}
