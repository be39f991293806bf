// Sharing a game: a link and a QR code, read-only or with the right to score.
// The QR library loads only when the panel first opens.

import { url } from "./api.js";
import { $, el, toast } from "./helpers.js";
import { t } from "./words.js";

let qrLoading = null;

function loadQr() {
  if (typeof window.qrcode === "function") return Promise.resolve();
  if (!qrLoading) {
    qrLoading = new Promise((resolve, reject) => {
      const script = el("script", { src: url("/static/vendor/qrcode.js") });
      script.addEventListener("load", resolve);
      script.addEventListener("error", () => { qrLoading = null; reject(new Error("qrcode.js")); });
      document.head.append(script);
    });
  }
  return qrLoading;
}

/** The address other phones open: the server's public root (the LAN address under --lan); ``kind`` "g" for a
 *  game's page, "m" for a table's. */
export function shareUrl(id, token, mode, kind = "g") {
  const base = document.documentElement.dataset.public || `${location.origin}${url("/")}`;
  const page = `${base}${kind}/${id}`;
  return mode === "write" && token ? `${page}#token=${token}` : page;
}

/** A share panel: its elements' ids start with ``prefix`` ("" for a game's, "m-" for a table's). */
export class Share {
  constructor(prefix = "", kind = "g") {
    this.mode = "read";
    this.id = null;
    this.token = null;
    this.kind = kind;
    this.$ = (name) => $(`#${prefix}${name}`);
    this.words = kind === "g" ? { read: "share_read", write: "share_write" } : { read: "m_share_read", write: "m_share_write" };
    this.$("share-btn").addEventListener("click", () => this.toggle());
    this.$("tab-read").addEventListener("click", () => { this.mode = "read"; this.render(); });
    this.$("tab-write").addEventListener("click", () => { this.mode = "write"; this.render(); });
    this.$("copy").addEventListener("click", async () => {
      const value = this.$("share-url").value;
      try { await navigator.clipboard.writeText(value); } catch { this.$("share-url").select(); document.execCommand("copy"); }
      toast(t("copied"));
    });
  }

  open(id, token) {
    this.id = id;
    this.token = token;
    this.mode = "read";
    this.$("share").hidden = true;
    this.$("share-btn").setAttribute("aria-expanded", "false");
  }

  toggle() {
    const panel = this.$("share");
    panel.hidden = !panel.hidden;
    this.$("share-btn").setAttribute("aria-expanded", String(!panel.hidden));
    if (!panel.hidden) this.render();
  }

  async render() {
    if (this.$("share").hidden) return;
    const mode = this.token ? this.mode : "read";
    this.$("tab-write").hidden = !this.token;
    this.$("tab-read").setAttribute("aria-selected", String(mode === "read"));
    this.$("tab-write").setAttribute("aria-selected", String(mode === "write"));
    const link = shareUrl(this.id, this.token, mode, this.kind);
    this.$("share-url").value = link;
    this.$("share-hint").textContent = t(this.words[mode]);
    // Named by what it is for: never the URL, which in write mode holds the secret token.
    this.$("qr").setAttribute("aria-label", mode === "write" ? t("qr_write") : t("qr_read"));
    try {
      await loadQr();
      draw(this.$("qr"), link);
    } catch { /* no QR without its script: the link is there to copy */ }
  }
}

function draw(canvas, text) {
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const qr = window.qrcode(0, "M");
  qr.addData(text);
  qr.make();
  const count = qr.getModuleCount();
  const cell = Math.floor(canvas.width / (count + 8));
  const offset = Math.floor((canvas.width - cell * count) / 2);
  ctx.fillStyle = "#000";
  for (let r = 0; r < count; r++) {
    for (let c = 0; c < count; c++) if (qr.isDark(r, c)) ctx.fillRect(offset + c * cell, offset + r * cell, cell, cell);
  }
}
