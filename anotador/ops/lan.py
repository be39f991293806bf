"""The address phones on the same network should open: ``python -m anotador.ops.lan [PORT]``.

Prints the URL on standard output (nothing without a network) and, on
standard error, a line to read and a QR code to scan with a phone's camera.
``anotador serve --lan`` does the same and passes the URL to the app as
``ANOTADOR_LAN_URL``.
"""

from __future__ import annotations

import ipaddress
import socket
import sys


def lan_address() -> str | None:
    """This machine's address on its local network (IPv4), or None.

    The address the kernel would send from to reach a public address: a UDP
    "connect" picks the route and sends nothing. Without a default route,
    any non-loopback address of the host name.
    """
    candidates: list[str] = []
    for target in ("192.0.2.1", "10.255.255.255"):  # TEST-NET-1; a private one
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((target, 9))
                candidates.append(s.getsockname()[0])
        except OSError:
            continue
    try:
        candidates += [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    except OSError:
        pass
    for address in candidates:
        ip = ipaddress.ip_address(address)
        if not (ip.is_loopback or ip.is_unspecified or ip.is_link_local):
            return address
    return None


def own_names(lan_url: str | None = None) -> set[str]:
    """The names and addresses under which phones on the LAN reach this machine (for the Host check).

    The LAN address (the one in ``lan_url`` and the one found now), the host
    name, its ``.local`` (mDNS) and fully qualified forms, and every address
    the host name resolves to. Not any name: a web page's own name, pointed
    at this machine by its DNS, must not be served (DNS rebinding).
    """
    from urllib.parse import urlsplit

    names: set[str] = set()
    if lan_url:
        host = urlsplit(lan_url).hostname
        if host:
            names.add(host)
    found = lan_address()
    if found:
        names.add(found)
    host_name = socket.gethostname()
    if host_name:
        names |= {host_name, host_name.split(".")[0] + ".local"}
        try:
            names.add(socket.getfqdn(host_name))
            names |= {str(info[4][0]) for info in socket.getaddrinfo(host_name, None)}
        except OSError:
            pass
    out = set()
    for name in names:
        name = name.lower().split("%")[0]  # no IPv6 zone: not part of a Host
        try:
            out.add(f"[{name}]" if ipaddress.ip_address(name).version == 6 else name)
        except ValueError:
            out.add(name)
    return out


def announce(port: int) -> str | None:
    """Say on standard error where phones should go (a line and a QR code); the URL, or None with no network."""
    address = lan_address()
    if address is None:
        print("anotador: this machine has no network address, so phones cannot reach it: "
              "serving on 127.0.0.1 only.", file=sys.stderr)
        return None
    url = f"http://{address}:{port}/"
    print(f"\nAnotador is open to this network. On a phone on the same Wi-Fi, open\n\n    {url}\n\n"
          "or scan this code with the phone's camera:\n", file=sys.stderr)
    try:
        import segno
    except ImportError:
        segno = None
        print("(no QR code: pip install 'anotador[lan]' to print one)", file=sys.stderr)
    try:
        if segno is not None:
            segno.make(url, error="m").terminal(out=sys.stderr, compact=True)
    except Exception as exc:  # a terminal that cannot show the code still has the URL
        print(f"(no QR code: {exc})", file=sys.stderr)
    print(file=sys.stderr)
    return url


def main(argv: list[str]) -> int:
    url = announce(int(argv[1]) if len(argv) > 1 else 8000)
    if url:
        print(url)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
