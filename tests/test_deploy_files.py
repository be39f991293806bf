"""The files of ``deploy/`` as nginx and systemd read them, and as ``anotador deploy-files`` writes them for an
installed server: the site answers only its own host, the units are hardened and verified."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from anotador.ops import deployment
from bench._http import free_port

from .test_deploy import DEPLOY, NGINX
from .toolkit import require

pytestmark = pytest.mark.slow


def _site(tmp_path, files: Path = DEPLOY) -> tuple[Path, dict[str, int]]:
    """The site file of ``files`` (the shipped ones, or ``anotador deploy-files``') with a throwaway certificate,
    its ports 80 and 443 moved to free ones."""
    require(os.path.exists(NGINX), "nginx is not installed (apt-get install nginx)")
    require(shutil.which("openssl") is not None, "openssl is not installed")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=anotador.example", "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    site = (files / "nginx" / "anotador-site.conf").read_text()
    site = site.replace("/etc/letsencrypt/live/anotador.example/fullchain.pem", str(cert))
    site = site.replace("/etc/letsencrypt/live/anotador.example/privkey.pem", str(key))
    site = site.replace("/srv/anotador/deploy", str(DEPLOY))
    ports = {("", "80"): free_port(), ("", "443"): free_port(), ("[::]:", "80"): free_port(),
             ("[::]:", "443"): free_port()}
    site = re.sub(r"listen (\[::\]:)?(80|443)\b", lambda m: f"listen {'[::1]:' if m.group(1) else '127.0.0.1:'}"
                  f"{ports[(m.group(1) or '', m.group(2))]}", site)
    (tmp_path / "site.conf").write_text(site)
    temp = "\n".join(f"    {k}_temp_path {tmp_path}/{k};" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (tmp_path / "nginx.conf").write_text(f"""
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/error.log;
events {{}}
http {{
{temp}
    access_log off;
    include {files}/nginx/anotador-http.conf;
    include {files}/nginx/anotador-upstream.conf;
    include {tmp_path}/site.conf;
}}
""")
    return tmp_path / "nginx.conf", {"http": ports[("", "80")], "https": ports[("", "443")]}


def test_the_deploy_site_file_is_valid_nginx(tmp_path):
    conf, _ = _site(tmp_path)
    out = subprocess.run([NGINX, "-t", "-c", str(conf)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_the_site_answers_only_its_own_host_on_either_port(tmp_path):
    """Port 80 redirects anotador.example to https and closes on anything else; port 443 refuses other names."""
    import ssl

    conf, ports = _site(tmp_path)
    nginx = subprocess.Popen([NGINX, "-c", str(conf), "-g", "daemon off;"], stderr=subprocess.PIPE,
                             start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", ports["http"]), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline and nginx.poll() is None, (tmp_path / "error.log").read_text()
                time.sleep(0.05)

        def plain(host: str) -> bytes:
            with socket.create_connection(("127.0.0.1", ports["http"]), timeout=5) as s:
                s.sendall(f"GET /x HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
                out = b""
                while chunk := s.recv(4096):
                    out += chunk
                return out

        assert plain("anotador.example").startswith(b"HTTP/1.1 301")
        assert b"https://anotador.example/x" in plain("anotador.example")
        assert plain("evil.example") == b""  # 444: closed, no answer at all
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        with socket.create_connection(("127.0.0.1", ports["https"]), timeout=5) as s:
            with pytest.raises(ssl.SSLError):
                context.wrap_socket(s, server_hostname="evil.example").do_handshake()
    finally:
        os.killpg(nginx.pid, signal.SIGTERM)
        nginx.wait(timeout=10)


@pytest.mark.parametrize("unit", ["anotador.service", "anotador-purge.service", "anotador-backup.service"])
def test_the_systemd_units_are_hardened(unit):
    """systemd's own rating of the units as shipped: exposure 3.0 or less (it was 8.0 and 9.2)."""
    analyze = shutil.which("systemd-analyze")
    require(analyze is not None, "systemd-analyze is not installed (apt-get install systemd)")
    out = subprocess.run([analyze, "security", "--offline=true", str(DEPLOY / "systemd" / unit)],
                         capture_output=True, text=True)
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", out.stdout)
    assert found, out.stdout + out.stderr
    assert float(found.group(1)) <= 3.0, out.stdout


def test_deploy_files_for_an_installed_server_pass_systemd_and_nginx(tmp_path):
    """``anotador deploy-files``: the shipped files with this install's paths (its ``anotador``, the data in
    /var/lib/anotador made by systemd, the site's include): systemd-analyze verifies the units and rates them as
    the shipped ones, nginx -t takes the site."""
    analyze = shutil.which("systemd-analyze")
    require(analyze is not None, "systemd-analyze is not installed (apt-get install systemd)")
    bin_dir = os.path.dirname(sys.executable)
    files = tmp_path / "files"
    written = deployment.write(str(files), bin_dir=bin_dir)
    assert {p.relative_to(files).as_posix() for p in written} == set(deployment.shipped())
    for path in written:
        assert "/srv/anotador" not in path.read_text(), path
    units = sorted(p for p in written if p.parent.name == "systemd")
    for unit in (u for u in units if u.suffix == ".service"):
        text = unit.read_text()
        assert "Environment=ANOTADOR_HOME=/var/lib/anotador" in text and "StateDirectory=anotador" in text
        assert f"ExecStart={bin_dir}/anotador " in text, text
        out = subprocess.run([analyze, "security", "--offline=true", str(unit)], capture_output=True, text=True)
        assert float(re.search(r"Overall exposure level for \S+: (\d+\.\d+)", out.stdout).group(1)) <= 3.0
    out = subprocess.run([analyze, "verify", *map(str, units)], capture_output=True, text=True, cwd=files / "systemd")
    assert out.returncode == 0, out.stderr
    conf, _ = _site(tmp_path, files)
    assert f"include {files}/nginx/anotador-locations.conf;" in (tmp_path / "site.conf").read_text()
    out = subprocess.run([NGINX, "-t", "-c", str(conf)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
