// A game's stream of new versions (Server-Sent Events): the sheet is read again the moment another
// phone's turn is stored. Where no stream stays open (a server without them answers once and asks to be
// asked again; a proxy cuts it; too many phones at one address), the game view polls once a second as it
// always has, and the stream is tried again a minute later. The version is the truth: the first event
// of every stream is the current one, so a stream that dropped catches up as it opens.

import { url } from "./api.js";
import { t } from "./words.js";

/** A stream shorter than this is not holding: the server answers once and closes (ms). */
const HELD = 5000;
/** Streams that do not hold, one after another, before the page stops asking for a while. */
const SHORT = 3;
/** How long the page polls before it tries a stream again (ms). */
const AGAIN = 60000;
/** How long a stream must have stayed open before the page calls itself live (ms). */
const SETTLED = 1500;

export class LiveFeed {
  /** ``onVersion(n)`` for each version the stream names; ``onState(live)`` when it starts or stops holding. */
  constructor(onVersion, onState) {
    Object.assign(this, { onVersion, onState, source: null, live: false, short: 0, timer: null, settle: null });
  }

  open(path) {
    this.close();
    this.path = path;
    this.short = 0;
    this.connect();
  }

  connect() {
    clearTimeout(this.timer);
    if (typeof EventSource === "undefined") return;
    const source = new EventSource(url(this.path));
    this.source = source;
    let opened = 0;
    source.addEventListener("open", () => {
      opened = Date.now();
      clearTimeout(this.settle);
      this.settle = setTimeout(() => { if (this.source === source && source.readyState === EventSource.OPEN) this.setLive(true); }, SETTLED);
    });
    source.addEventListener("version", (event) => {
      const version = Number(JSON.parse(event.data).version);
      if (Number.isInteger(version)) this.onVersion(version);
    });
    source.addEventListener("error", () => {
      if (this.source !== source) return;
      clearTimeout(this.settle);
      this.setLive(false);
      // A stream that opened and soon ended is a server that does not hold them; one that never opened
      // is the network, which EventSource retries by itself.
      if (opened) this.short = Date.now() - opened >= HELD ? 0 : this.short + 1;
      opened = 0;
      if (source.readyState === EventSource.CLOSED || this.short >= SHORT) {
        source.close();
        this.source = null;
        this.timer = setTimeout(() => { this.short = 0; this.connect(); }, AGAIN);
      }
    });
  }

  /** Try a stream now if none is open (the connection came back). */
  again() {
    if (this.path && !this.source) { this.short = 0; this.connect(); }
  }

  close() {
    clearTimeout(this.timer);
    clearTimeout(this.settle);
    if (this.source) this.source.close();
    this.source = null;
    this.setLive(false);
  }

  setLive(live) {
    if (this.live === live) return;
    this.live = live;
    this.onState(live);
  }
}

/** The mark that says so, one per screen opened: "live" while a stream holds, "reconnecting" once one has held
 *  on this screen and dropped; hidden on a server without streams, where the page simply polls. */
export class LiveMark {
  constructor(mark) {
    Object.assign(this, { mark, held: false });
    this.draw(false);
  }

  draw(live) {
    this.held ||= live;
    this.mark.hidden = !live && !this.held;
    this.mark.classList.toggle("on", live);
    this.mark.querySelector(".live-text").textContent = t(live ? "live_on" : "live_off");
  }
}
