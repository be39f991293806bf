"""The files of the advisor's folder that map into memory (a table, a rule set's outcomes): a magic line, a
JSON header, zeros up to a page, then the arrays. One place for that frame and for telling a sound file from
a look-alike; each kind says what its header must name and what its arrays hold."""

from __future__ import annotations

import json
import os
from typing import Mapping

#: The arrays start at a multiple of this (a page): the file maps straight into memory.
ALIGN = 4096
#: The most a header may take (a rule set's spec is a few KiB at most).
HEADER_MAX = 1 << 16


class BadTable(ValueError):
    """A table file that cannot be used; the subclass says why."""


class NotATable(BadTable):
    """The file is not a table of this format (another program's, or truncated in its header)."""


class OtherTable(BadTable):
    """A sound table, but of another rule set, format or solver version."""


class CorruptTable(BadTable):
    """The header is sound, but the values are not the ones it names: the wrong length or checksum."""


def aligned(n: int) -> int:
    """Where arrays after ``n`` bytes of header start: the next page."""
    return -(-n // ALIGN) * ALIGN


def header_bytes(magic: bytes, header: Mapping) -> bytes:
    """The magic line and the header, padded with zeros to where the arrays start."""
    head = magic + json.dumps(header, sort_keys=True, separators=(",", ":")).encode() + b"\n"
    if len(head) > HEADER_MAX:
        raise ValueError(f"a header takes {len(head)} bytes, more than {HEADER_MAX}")
    return head.ljust(aligned(len(head)), b"\0")


def read_header(path: str, magic: bytes, wanted: Mapping, kind: str, other: str) -> tuple[dict, int, int]:
    """The header of the file at ``path`` once it names ``wanted``; where its arrays start, and the file's size.
    Else :class:`NotATable` (not ``kind``, or no readable header) or :class:`OtherTable` (``other``, saying
    what differs), and OSError."""
    with open(path, "rb") as f:
        head = f.read(HEADER_MAX)
        size = os.fstat(f.fileno()).st_size
    end = head.find(b"\n", len(magic))
    if not head.startswith(magic) or end < 0:
        raise NotATable(f"{path} is not {kind}")
    try:
        header = json.loads(head[len(magic):end])
    except ValueError:
        raise NotATable(f"{path} has no readable header") from None
    if not isinstance(header, dict):
        raise NotATable(f"{path} has no readable header")
    differs = {k: header.get(k) for k, v in wanted.items() if header.get(k) != v}
    if differs:
        raise OtherTable(f"{path} is {other}: " + ", ".join(f"{k} {v!r}, not {wanted[k]!r}"
                                                           for k, v in differs.items()))
    return header, aligned(end + 1), size
