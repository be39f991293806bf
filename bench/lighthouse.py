"""Lighthouse 12 (mobile) on the start page and a game page, served as scripts/serve serves them.

Installs Lighthouse from the npm registry into build/lighthouse the first
time (not part of the project), runs it with Debian's Chromium several times
per page, and prints each category's median score and spread, the layout
shift and the largest contentful paint. Targets: performance >= 95,
accessibility and best practices 100, no layout shift.

    python bench/lighthouse.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._http import ROOT, gunicorn, request  # noqa: E402

VERSION = "12.8.2"
HOME = ROOT / "build" / "lighthouse"
CHROMIUM = os.environ.get("ANOTADOR_CHROMIUM", "/usr/bin/chromium")


def lighthouse_bin() -> Path:
    binary = HOME / "node_modules" / ".bin" / "lighthouse"
    if not binary.exists():
        if not shutil.which("npm"):
            sys.exit("npm is needed to install Lighthouse")
        HOME.mkdir(parents=True, exist_ok=True)
        print(f"installing lighthouse@{VERSION} into {HOME} ...", flush=True)
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(HOME),
                        f"lighthouse@{VERSION}"], check=True)
    return binary


def audit(binary: Path, url: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        subprocess.run([str(binary), url, "--only-categories=performance,accessibility,best-practices",
                        "--form-factor=mobile", "--quiet", "--output=json", f"--output-path={out}",
                        "--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-background-networking"],
                       check=True, env={**os.environ, "CHROME_PATH": CHROMIUM})
        report = json.loads(out.read_text())
    scores = {k: round(v["score"] * 100) for k, v in report["categories"].items()}
    scores["CLS"] = report["audits"]["cumulative-layout-shift"]["numericValue"]
    scores["LCP ms"] = report["audits"]["largest-contentful-paint"]["numericValue"]
    return scores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    binary = lighthouse_bin()
    with tempfile.TemporaryDirectory() as tmp:
        env = {"DATABASE_URL": f"sqlite:///{tmp}/lh.sqlite", "ANOTADOR_GAMES_PER_MINUTE": "0"}
        subprocess.run([sys.executable, "-m", "flask", "--app", "wsgi", "db", "upgrade"], cwd=ROOT, check=True,
                       env={**os.environ, **env}, capture_output=True)
        with gunicorn("wsgi:app", worker_class="gthread", threads=4, env=env) as srv:
            base = f"http://127.0.0.1:{srv.port}"
            results: dict[str, list[dict]] = {"/": [], "a game page": []}
            for _ in range(args.runs):
                results["/"].append(audit(binary, f"{base}/"))
                _, _, game = request(srv.port, "POST", "/api/v1/games",
                                     {"variant": "generala-doble", "players": ["Ana", "Beto", "Ceci", "Dani", "Eli",
                                                                               "Fede"]})
                results["a game page"].append(audit(binary, f"{base}/g/{game['id']}#token={game['token']}"))
    print(f"Lighthouse {VERSION}, mobile, {args.runs} runs per page (median, [min-max])")
    for page, runs in results.items():
        parts = []
        for key in runs[0]:
            values = [r[key] for r in runs]
            med = statistics.median(values)
            fmt = (lambda v: f"{v:.3f}") if key == "CLS" else (lambda v: f"{v:.0f}")
            parts.append(f"{key} {fmt(med)} [{fmt(min(values))}-{fmt(max(values))}]")
        print(f"  {page:12s} " + "  ".join(parts))


if __name__ == "__main__":
    main()
