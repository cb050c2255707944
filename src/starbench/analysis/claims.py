"""Every number a README's prose quotes is checked: generated, recomputed, published or a fact.

A README's *prose* is its text outside generated blocks (``<!-- BEGIN path -->`` ... ``<!-- END
path -->``, written by ``scripts/make_figures.py`` from the committed tables and checked by
their own tests) and outside code blocks; a *number* is any figure in it (``27.4``, ``9,331``,
``1e-9``, the ``4`` of ``N = 4``), except inside inline code (a command or a key's value), link
targets and the names ``0-ply``, ``2-ply`` (gnubg's and Ballard's terms). Every number must be
covered by an entry of the README's claims file, ``experiments/<study>/claims.yaml`` for a
study's README and ``experiments/claims.yaml`` for the top-level one and the documentation
pages under ``docs/``, which are checked together as one text (``documents``). An entry is a
``quote``, a verbatim piece of the prose (whitespace is not significant) with each checked
number in braces, and one of

* ``expr``: a Python expression over the committed tables (the helpers below, and the functions
  the file's ``setup`` block defines) that gives the braced numbers as text, in order (one
  string, or a list of them): a result of ours;
* ``published``: the quantities of ``experiments/published.csv`` (``quantity`` of this study,
  or ``study:quantity``) whose values are the braced numbers: a published figure;
* ``fact``: why the quote's numbers are not results (a setting of the study's config, a
  definition, a citation); every number of a fact quote is covered, braced or not.  The file's
  ``facts:`` mapping (why -> [quote, ...]) lists many at once.

So changing a quoted result makes its quote miss the prose (or its expression disagree), and a
number added to the prose without an entry is unlisted: both fail ``tests/test_claims.py``.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[3]
#: A number: digits (thousands with commas, a decimal part, an exponent) not inside a word or a
#: name (``Star2.5``, ``b5``, ``x86_64``); read also right after ``/`` or ``^`` (``1/36``,
#: ``2^22``), after a ``.`` that follows no word (``.5``), and right before a unit letter (``10x``).
NUMBER = re.compile(
    r"(?:(?<=[/^])|(?<=(?<!\w)\.)|(?<![\w.^/]))\d+(?:,\d{3})*(?:\.\d+)?(?:e[-+]?\d+)?(?!\d)(?!-ply)"
)
BRACED = re.compile(r"\{([^{}]*)\}")
_BLOCK = re.compile(r"<!-- BEGIN [^>]*-->.*?<!-- END [^>]*-->", re.S)
_FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
SEPARATOR = " \u00b6 "  # where removed text stood: no quote reaches across it


def prose(text: str) -> str:
    """The README's prose, whitespace collapsed, removed parts replaced by ``SEPARATOR``."""
    text = _BLOCK.sub(SEPARATOR, text)
    text = _FENCE.sub(SEPARATOR, text)
    text = _COMMENT.sub(SEPARATOR, text)
    lines, code = [], False
    previous_blank = True
    for line in text.splitlines():
        blank = not line.strip()
        if line.startswith("    ") and (previous_blank or code) and not blank:
            code = True  # an indented code block
            lines.append(SEPARATOR)
        else:
            code = code and blank
            lines.append(line)
        previous_blank = blank
    return " ".join(" ".join(lines).split())


def exempt(text: str) -> list[tuple[int, int]]:
    """Spans of ``prose(...)`` whose numbers are not quoted figures: inline code, link and
    image targets, URLs."""
    spans = [m.span() for m in re.finditer(r"`[^`]*`", text)]
    spans += [m.span() for m in re.finditer(r"\]\([^)]*\)", text)]
    spans += [m.span() for m in re.finditer(r"https?://\S+", text)]
    return spans


def numbers(text: str) -> list[tuple[int, int]]:
    """Spans of the numbers of ``prose(...)`` that must be covered."""
    skip = exempt(text)
    return [m.span() for m in NUMBER.finditer(text) if not any(a <= m.start() < b for a, b in skip)]


def normal(quote: str) -> str:
    return " ".join(quote.split())


@dataclass(frozen=True)
class Entry:
    quote: str
    kind: str  # expr, published or fact
    what: Any

    @property
    def plain(self) -> str:
        """The quote as the prose has it (braces dropped)."""
        return BRACED.sub(lambda m: m.group(1), normal(self.quote))

    def braced(self) -> list[str]:
        return BRACED.findall(normal(self.quote))

    def offsets(self) -> list[tuple[int, int]]:
        """Spans of the braced parts within ``plain``."""
        out, shift = [], 0
        for m in BRACED.finditer(normal(self.quote)):
            start = m.start() - shift
            out.append((start, start + len(m.group(1))))
            shift += 2
        return out


def load_entries(path: Path) -> list[Entry]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    out = []
    for i, e in enumerate(data.get("claims") or []):
        kinds = [k for k in ("expr", "published", "fact") if k in e]
        if "quote" not in e or len(kinds) != 1:
            raise ValueError(f"{path}: claims[{i}] needs a quote and one of expr, published, fact")
        out.append(Entry(str(e["quote"]), kinds[0], e[kinds[0]]))
    # shorthand: facts: {why: [quote, ...]}
    for why, quotes in (data.get("facts") or {}).items():
        out += [Entry(str(q), "fact", why) for q in quotes or []]
    return out


@dataclass
class Report:
    """What a README's check found."""

    missing: list[str]  # quotes not in the prose
    wrong: list[str]  # quotes whose braced numbers are not what their source gives
    unlisted: list[str]  # numbers no entry covers, with their context

    @property
    def ok(self) -> bool:
        return not (self.missing or self.wrong or self.unlisted)

    def __str__(self) -> str:
        parts = [f"not in the prose: {q!r}" for q in self.missing]
        parts += self.wrong
        parts += [f"unlisted number: {u}" for u in self.unlisted]
        return "\n".join(parts)


def namespace(claims: Path) -> dict[str, Any]:
    """The expressions' namespace: the helpers below, and what the claims file's ``setup``
    (Python statements: the study's own helper functions) defines."""
    import yaml

    ns = dict(NAMESPACE)
    data = yaml.safe_load(claims.read_text(encoding="utf-8")) if claims.exists() else None
    setup = (data or {}).get("setup")
    if setup:
        exec(compile(setup, f"{claims}:setup", "exec"), ns)  # noqa: S102 - the project's own file
    return ns


def text_of(readme: Path | Sequence[Path]) -> str:
    """The prose of one document, or of several read as one (the top-level README and the
    documentation pages share ``experiments/claims.yaml``), ``SEPARATOR`` between them."""
    paths = [readme] if isinstance(readme, Path) else list(readme)
    return SEPARATOR.join(prose(p.read_text(encoding="utf-8")) for p in paths)


def documents(root: Path = ROOT) -> list[Path]:
    """The documents checked against the top-level claims file: the README and every page of
    ``docs/``."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def check(readme: Path | Sequence[Path], claims: Path, study: str | None) -> Report:
    """Check one README (or several documents read as one) against its claims file."""
    text = text_of(readme)
    entries = load_entries(claims) if claims.exists() else []
    ns = namespace(claims)
    covered: list[tuple[int, int]] = []
    missing, wrong = [], []
    for e in entries:
        plain = e.plain
        found = [m.start() for m in re.finditer(re.escape(plain), text)]
        if not found:
            missing.append(plain)
            continue
        if e.kind == "fact":
            covered += [(s, s + len(plain)) for s in found]
        else:
            covered += [(s + a, s + b) for s in found for a, b in e.offsets()]
            got = _values(e, study, ns)
            if got != e.braced():
                wrong.append(f"{plain!r}: the quote says {e.braced()}, its {e.kind} gives {got}")
    unlisted = []
    for a, b in numbers(text):
        if not any(x <= a and b <= y for x, y in covered):
            unlisted.append(f"{text[a:b]!r} in ...{text[max(0, a - 60) : b + 40]}...")
    return Report(missing, wrong, unlisted)


def _values(e: Entry, study: str | None, ns: dict[str, Any]) -> list[str]:
    if e.kind == "published":
        from starbench.analysis import published

        names = e.what if isinstance(e.what, list) else [e.what]
        out = []
        for q in names:
            s, _, name = str(q).rpartition(":")
            out.append(published.text(s or str(study), name))
        return out
    try:
        got = eval(str(e.what), ns)  # noqa: S307 - the project's own claims files
    except Exception as err:  # noqa: BLE001 - reported as a wrong claim
        return [f"error: {type(err).__name__}: {err}"]
    return [str(x) for x in got] if isinstance(got, list | tuple) else [str(got)]


# --------------------------------------------------------------------------- helpers for expr
@functools.lru_cache(maxsize=32)
def load(study: str) -> pd.DataFrame:
    """A committed study's rows (``starbench.analysis.load_results``), cached."""
    from starbench.analysis.data import load_results

    return load_results(ROOT / "results" / study)


@functools.lru_cache(maxsize=8)
def bench(name: str = "bench") -> Any:
    """The committed benchmark ``results/bench/<name>.json``."""
    return json.loads((ROOT / "results" / "bench" / f"{name}.json").read_text(encoding="utf-8"))


def fmt(x: float, digits: int = 1) -> str:
    """``x`` with ``digits`` decimals (``-0.0`` shown as ``0.0``)."""
    text = f"{float(x):.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def whole(x: float) -> str:
    """``x`` rounded to a whole number with thousands separators (``9,331``)."""
    return f"{round(float(x)):,}"


def span(values: Iterable[float], digits: int = 1, sep: str = "-") -> str:
    """``lo-hi`` of ``values`` with ``digits`` decimals."""
    v = [float(x) for x in values]
    return f"{fmt(min(v), digits)}{sep}{fmt(max(v), digits)}"


def pct_table(study: str) -> pd.DataFrame:
    """The study's rows with ``pct_leaves`` and ``pct_nodes`` against expectimax on the same
    tree, and the derived ``order`` column (``analysis.data.percent_leaves``)."""
    from starbench.analysis.data import percent_leaves
    from starbench.analysis.figures import _prepare

    return percent_leaves(_prepare(load(study)))


def mean(frame: pd.DataFrame, column: str = "pct_leaves", **where: Any) -> float:
    """The mean of ``column`` over the rows where every ``where`` column has that value."""
    g = select(frame, **where)
    if not len(g):
        raise ValueError(f"no rows where {where}")
    return float(g[column].astype(float).mean())


def select(frame: pd.DataFrame, **where: Any) -> pd.DataFrame:
    mask = np.ones(len(frame), bool)
    for k, v in where.items():
        mask &= (frame[k] == v).to_numpy()
    return frame[mask]


NAMESPACE: dict[str, Any] = {
    "load": load,
    "bench": bench,
    "fmt": fmt,
    "whole": whole,
    "span": span,
    "pct_table": pct_table,
    "mean": mean,
    "select": select,
    "np": np,
    "pd": pd,
    "math": math,
}
