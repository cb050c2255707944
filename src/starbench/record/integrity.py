"""Checksums of everything starbench reads back from disk (one place for the formats).

Two kinds of file, two rules:

* **append-only journals** (a cell's ``rows.jsonl``, a match's ``games.jsonl``): every line is
  ``JSON<TAB>CRC`` where ``CRC`` is the CRC-32 of the JSON text's UTF-8 bytes as 8 lowercase hex
  digits (``sign``).  ``read_lines`` checks each line: a line that fails its checksum or does not
  decode is *bad* (its number is reported, its content never used); an incomplete last line (no
  newline: a crash while it was written) is *torn* and ignored silently.  Lines written before
  checksums (journal version 2 and the first match journals) have no ``<TAB>CRC``: they are
  read only when the caller asks for them (``legacy=True``), as *unchecked*.
  CRC-32 detects every change of one byte and every burst of up to 32 bits in a line: it
  detects damage, not a deliberate edit that recomputes it.
* **single documents** (``cell.json``, ``sweep.json``, ``match.json``, ``collected.json``) carry
  ``"sha256"``: the SHA-256 of their canonical JSON (``canonical``: sorted keys, compact
  separators, ASCII, without the ``sha256`` field itself).  ``read_document`` says whether a
  document is intact, missing, unreadable (not UTF-8 JSON, not an object) or altered (its
  ``sha256`` does not match); a document without the field (written before this rule) is
  intact.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TAB = b"\t"
DIGEST = "sha256"


def crc(body: bytes) -> str:
    """The checksum of one journal line's JSON bytes."""
    return f"{zlib.crc32(body) & 0xFFFFFFFF:08x}"


def sign(text: str) -> str:
    """The journal line of a JSON text (without its newline)."""
    return f"{text}\t{crc(text.encode('utf-8'))}"


@dataclass(frozen=True)
class Line:
    """One complete journal line: its number (from 1), its decoded JSON or None when bad,
    whether it carried a valid checksum, and why it is bad."""

    number: int
    value: Any
    checked: bool
    problem: str | None = None
    raw: bytes = b""


def read_lines(path: Path, legacy: bool = False) -> tuple[list[Line], bool]:
    """Every complete line of a journal, checked (module docstring), and whether the last line
    was torn.  ``legacy``: a line without a checksum is decoded as plain JSON (``checked`` is
    False); otherwise it is bad."""
    data = Path(path).read_bytes()
    parts = data.split(b"\n")
    torn = parts[-1] != b""
    lines = []
    for n, raw in enumerate(parts[:-1], 1):
        lines.append(parse_line(n, raw, legacy))
    return lines, torn


def parse_line(n: int, raw: bytes, legacy: bool) -> Line:
    body, tab, tail = raw.rpartition(TAB)
    if tab and len(tail) == 8:
        if crc(body) != tail.decode("ascii", "replace"):
            return Line(n, None, False, "fails its checksum", raw)
        try:
            return Line(n, json.loads(body.decode("utf-8")), True, raw=raw)
        except ValueError:  # a valid checksum of undecodable text: written so, still bad
            return Line(n, None, False, "does not decode", raw)
    if not legacy:
        return Line(n, None, False, "has no checksum" if raw.strip() else "is empty", raw)
    try:
        return Line(n, json.loads(raw.decode("utf-8")), False, raw=raw)
    except ValueError:
        return Line(n, None, False, "does not decode", raw)


def bad_lines_note(path: Path, bad: list[Line], then: str) -> str:
    """One line naming a journal and its bad lines (at most 10 numbers shown)."""
    numbers = [str(b.number) for b in bad]
    shown = ", ".join(numbers[:10]) + (
        f" and {len(numbers) - 10} more" if len(numbers) > 10 else ""
    )
    what = "line" if len(bad) == 1 else "lines"
    reasons = sorted({b.problem or "bad" for b in bad})
    return (
        f"starbench: {path}: {what} {shown} {' or '.join(reasons)} (damaged or edited): not "
        f"adopted; {then}"
    )


def keep_rejected(path: Path, bad: list[Line]) -> Path:
    """Append the raw bad lines to ``<journal>.rejected`` (kept for inspection, never read)."""
    aside = path.with_name(path.name + ".rejected")
    with open(aside, "ab") as f:
        for b in bad:
            f.write(b.raw + b"\n")
    return aside


def rewrite(path: Path, texts: Iterator[str] | list[str]) -> None:
    """Replace a journal atomically by these JSON texts, each signed."""
    from starbench.ground.files import atomic_write_text

    atomic_write_text(path, "".join(sign(t) + "\n" for t in texts))


# --------------------------------------------------------------------------- documents
def canonical(doc: dict[str, Any]) -> bytes:
    """The bytes a document's ``sha256`` covers: its JSON without that field, sorted keys,
    compact separators, ASCII."""
    body = {k: v for k, v in doc.items() if k != DIGEST}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def seal(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with its ``sha256`` (a new dict)."""
    body = {k: v for k, v in doc.items() if k != DIGEST}
    return {**body, DIGEST: hashlib.sha256(canonical(body)).hexdigest()}


def document_text(doc: dict[str, Any], indent: int | None = 1) -> str:
    return json.dumps(seal(doc), indent=indent, sort_keys=True)


def write_document(path: Path, doc: dict[str, Any], indent: int | None = 1) -> None:
    """Write a sealed document atomically."""
    from starbench.ground.files import atomic_write_text

    atomic_write_text(Path(path), document_text(doc, indent))


@dataclass(frozen=True)
class Document:
    """A document as read: ``state`` is intact, missing, unreadable or altered; ``data`` only
    when intact."""

    path: Path
    state: str
    data: dict[str, Any] | None = None

    @property
    def intact(self) -> bool:
        return self.state == "intact"

    @property
    def damaged(self) -> bool:
        return self.state in ("unreadable", "altered")

    def why(self) -> str:
        return {
            "missing": "does not exist",
            "unreadable": "cannot be read as a JSON document (damaged or truncated)",
            "altered": f"fails its {DIGEST} (damaged or edited)",
        }.get(self.state, "is intact")


def read_document(path: Path) -> Document:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Document(path, "missing")
    except OSError:
        return Document(path, "unreadable")
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:
        return Document(path, "unreadable")
    if not isinstance(data, dict):
        return Document(path, "unreadable")
    want = data.get(DIGEST)
    if want is not None and hashlib.sha256(canonical(data)).hexdigest() != want:
        return Document(path, "altered")
    data.pop(DIGEST, None)
    return Document(path, "intact", data)
