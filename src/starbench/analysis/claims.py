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

**Conclusions** (``conclusion_problems``), in a study's README: every sentence and bold heading
of a section that reports results (all but ``NOT_RESULT_SECTIONS``) holds a checked quote
(``expr``, ``published`` or ``verdict``) or is declared under ``not_results`` (``KIND: why`` ->
[quote, ...], ``KIND`` one of ``NOT_RESULT_KINDS``), whatever its words; a fact accounts for
none.

**Verdict words** (``VERDICT_WORDS``), in a study's README. A sentence that says two things are
alike ("no loss", "no difference", "no gain", "held", "as good as", "equal", "not worse by more
than") needs, on an entry quoted in that sentence, a ``verdict`` key whose expression gives a
``margin`` verdict that holds (a non-inferiority or equivalence interval at a stated margin);
one that says they differ ("a loss", "loses", "better", "worse", "beats", "rises") needs a
``difference`` verdict that holds (a test at p < 0.05, adjusted for the study's other tests
where it makes several). The expression gives one ``Verdict`` or a list (helpers
``margin_verdict``, ``difference``, ``match_margin``, ``match_difference``); a sentence with
both kinds of words needs both. Words that are no verdict of ours (a question, a source's words,
a setting such as "equal depth") are quoted under the file's ``not_verdicts:`` (why -> [quote,
...]). So a verdict word flipped in the prose fails the check, as does a verdict the tables stop
supporting.
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
    verdict: str | None = None  # an expression giving the Verdict(s) behind its verdict words

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


def read_claims(path: Path) -> Any:
    """A claims file's YAML; ``ValueError`` for a key given twice in one mapping (YAML keeps the
    last silently: a second ``not_results:`` would drop the first's quotes)."""
    import yaml

    class Strict(yaml.SafeLoader):
        pass

    def mapping(loader: Any, node: Any) -> dict[Any, Any]:
        keys = [loader.construct_object(k, deep=True) for k, _v in node.value]
        twice = sorted({str(k) for k in keys if keys.count(k) > 1})
        if twice:
            raise ValueError(f"{path}: line {node.start_mark.line + 1}: {twice[0]!r} given twice")
        return loader.construct_mapping(node, deep=True)

    Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return yaml.load(path.read_text(encoding="utf-8"), Loader=Strict)  # noqa: S506 - SafeLoader


def load_entries(path: Path) -> list[Entry]:
    data = read_claims(path) or {}
    out = []
    for i, e in enumerate(data.get("claims") or []):
        kinds = [k for k in ("expr", "published", "fact") if k in e]
        if "quote" not in e or len(kinds) != 1:
            raise ValueError(f"{path}: claims[{i}] needs a quote and one of expr, published, fact")
        verdict = e.get("verdict")
        out.append(
            Entry(str(e["quote"]), kinds[0], e[kinds[0]], None if verdict is None else str(verdict))
        )
    # shorthand: facts: {why: [quote, ...]}
    for why, quotes in (data.get("facts") or {}).items():
        if not isinstance(quotes, list):
            raise ValueError(f"{path}: facts[{why!r}] must be a list of quotes")
        out += [Entry(str(q), "fact", why) for q in quotes]
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

    ns = dict(NAMESPACE)
    data = read_claims(claims) if claims.exists() else None
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

    if study is not None:
        wrong += verdict_problems(text, entries, _not_verdicts(claims), ns)
        assert isinstance(readme, Path)
        wrong += conclusion_problems(readme, entries, not_results(claims))
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


# --------------------------------------------------------------------------- verdicts
#: The words of a result's quote that claim a verdict, by the verdict they need: ``margin``
#: (alike within a stated margin) or ``difference`` (a test at p < 0.05).  The margin phrases
#: are read first and blanked, so "not worse by more than" is not read as "worse".
VERDICT_WORDS: dict[str, tuple[str, ...]] = {
    "margin": (
        r"not worse by more than",
        r"no loss",
        r"no difference",
        r"no gain",
        r"held",
        r"as good as",
        r"equal",
    ),
    "difference": (r"a loss", r"loses", r"better", r"worse", r"beats", r"rises?"),
}


@dataclass(frozen=True)
class Verdict:
    """A verdict a quote's words stand on: ``kind`` ``margin`` (an interval within a stated
    margin of no difference) or ``difference`` (a test's p-value under 0.05); ``holds`` whether
    the tables support it; ``says`` what was tested (shown when it does not hold)."""

    kind: str
    holds: bool
    says: str


def verdict_words(quote: str) -> dict[str, list[str]]:
    """The verdict words of ``quote`` by the kind of verdict they need (``VERDICT_WORDS``)."""
    text, found = normal(quote).lower(), {}
    for kind in ("margin", "difference"):
        for word in VERDICT_WORDS[kind]:
            pattern = re.compile(rf"\b{word}\b")
            if pattern.search(text):
                found.setdefault(kind, []).append(word)
                text = pattern.sub(" ", text)
    return found


#: Where a sentence of the prose ends: its last mark, a heading, a list item, removed text.
SENTENCE_END = re.compile(
    r"(?<=[.!?])\s+(?=[A-Z*(\[!#`])|\s#+\s|\s-\s(?=\*\*)|" + re.escape(SEPARATOR)
)


def sentences(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences of ``prose(...)`` (``SENTENCE_END``)."""
    out, start = [], 0
    for m in SENTENCE_END.finditer(text):
        out.append((start, m.start()))
        start = m.end()
    return [*out, (start, len(text))]


def _not_verdicts(claims: Path) -> list[str]:
    """The claims file's ``not_verdicts`` quotes (why -> [quote, ...]): verdict words that are
    not a verdict of ours (a question, a source's words, a setting such as "equal depth")."""
    data = read_claims(claims) if claims.exists() else None
    return [normal(str(q)) for qs in ((data or {}).get("not_verdicts") or {}).values() for q in qs]


def verdict_problems(
    text: str, entries: list[Entry], excused: list[str], ns: dict[str, Any]
) -> list[str]:
    """Why the verdict words of a study README's sentences are not backed (empty when they
    are): each sentence's words, outside its ``not_verdicts`` quotes, each need a verdict of
    their kind that holds among the ``verdict`` keys of the entries quoted in the sentence."""
    out = []
    for a, b in sentences(text):
        sentence = text[a:b]
        for quote in excused:
            sentence = sentence.replace(quote, " ")
        words = verdict_words(sentence)
        inside = [e for e in entries if e.verdict is not None and e.plain in text[a:b]]
        if not words and not inside:
            continue
        verdicts: list[Any] = []
        for e in inside:
            try:
                got = eval(e.verdict, ns)  # noqa: S307 - the project's own claims files
            except Exception as err:  # noqa: BLE001 - reported as a wrong claim
                out.append(f"{e.plain!r}: its verdict fails: {type(err).__name__}: {err}")
                continue
            verdicts += list(got) if isinstance(got, list | tuple) else [got]
        shown = text[a:b][:120]
        for kind, ws in words.items():
            backing = [v for v in verdicts if isinstance(v, Verdict) and v.kind == kind]
            if not backing:
                out.append(f"{shown!r}...: says {ws[0]!r}, which needs a {kind} verdict: none")
            out += [f"{shown!r}...: says {ws[0]!r} but {v.says}" for v in backing if not v.holds]
        for v in verdicts:
            if isinstance(v, Verdict) and v.kind not in words:
                out.append(f"{shown!r}...: a {v.kind} verdict, but no word of the sentence says it")
    return out


# --------------------------------------------------------------------------- conclusions
#: The section of a study's README that states what holds (every study has one).
VERDICT_SECTION = "## What holds and what does not"
#: The sections of a study's README that report no result: what is asked, set up, measured and
#: run, and what it cost.  Every other section reports results: each sentence and bold heading
#: in it is a conclusion, whatever its words.
NOT_RESULT_SECTIONS = ("## Question", "## Setup", "## Method", "## Command", "## Run time")
#: What a sentence of a results section may be declared instead of a checked result (the keys
#: of a claims file's ``not_results:``, each followed by why): a setting of the study, a
#: citation, a definition, the scope of a result (where it does not hold, what was not
#: measured), or a pointer to a table, a figure or another study.
NOT_RESULT_KINDS = ("setting", "citation", "definition", "scope", "pointer")


def not_results(claims: Path) -> list[str]:
    """The claims file's ``not_results`` quotes (``KIND: why`` -> [quote, ...], ``KIND`` one of
    ``NOT_RESULT_KINDS``; ``ValueError`` for another)."""
    data = read_claims(claims) if claims.exists() else None
    out = []
    for key, quotes in ((data or {}).get("not_results") or {}).items():
        kind = str(key).split(":")[0].strip()
        if kind not in NOT_RESULT_KINDS or not isinstance(quotes, list):
            raise ValueError(
                f"{claims}: not_results[{key!r}]: a key is KIND: why, KIND one of "
                f"{', '.join(NOT_RESULT_KINDS)}, with a list of quotes"
            )
        out += [normal(str(q)) for q in quotes]
    return out


def results_sections(raw: str) -> list[tuple[int, str]]:
    """(offset, raw text) of each section of a README that reports results: every ``## ``
    section but ``NOT_RESULT_SECTIONS`` (the text before the first one is the title)."""
    starts = [m.start() for m in re.finditer(r"(?m)^## ", raw)]
    out = []
    for a, b in zip(starts, [*starts[1:], len(raw)], strict=True):
        if not raw.startswith(NOT_RESULT_SECTIONS, a):
            out.append((a, raw[a:b]))
    return out


def conclusion_problems(readme: Path, entries: list[Entry], declared: list[str]) -> list[str]:
    """Why the conclusions of a study README are not all accounted for (empty when they are).

    Every sentence of a section that reports results (``results_sections``; the verdict
    section, ``VERDICT_SECTION``, is required) concludes something, whatever its words: it must
    hold a checked result (the quote of an entry with an ``expr``, a ``published`` figure or a
    ``verdict``, which the check recomputes) or be declared a non-result (``not_results``: a
    setting, citation, definition, scope or pointer).  A bold heading there is a verdict too:
    its whole text must lie inside such a quote, so a heading reworded (reversed, say) no longer
    matches and fails.  A fact (``facts``) accounts for no conclusion: facts say why a number is
    not a result, not that a verdict holds.  A section's own heading is not a sentence of it."""
    raw = readme.read_text(encoding="utf-8")
    if VERDICT_SECTION + "\n" not in raw:
        return [f"{readme}: no {VERDICT_SECTION!r} section (every study states what holds)"]
    checked = [e.plain for e in entries if e.kind != "fact" or e.verdict is not None]
    out = []
    for at, section in results_sections(raw):
        body = section.split("\n", 1)[1] if "\n" in section else ""
        text = prose(body)
        spans = [
            (m.start(), m.start() + len(q))
            for q in [*checked, *declared]
            for m in re.finditer(re.escape(q), text)
        ]
        for a, b in sentences(text):
            sentence = text[a:b].strip(" -" + SEPARATOR)
            if sentence.startswith("#") or not re.search(r"\w", _IMAGE.sub("", sentence)):
                continue  # a subsection's heading, or nothing but marks, removed text, an image
            if not any(x < b and a < y for x, y in spans):
                out.append(
                    f"{readme}:{_line(raw, sentence, at)}: a conclusion neither checked nor "
                    f"declared (not_results): {sentence[:100]!r}"
                )
        for m in re.finditer(r"\*\*(.+?)\*\*", text):
            a, b = m.span(1)
            if not any(x <= a and b <= y for x, y in spans):
                out.append(
                    f"{readme}:{_line(raw, m.group(1), at)}: a verdict heading that no checked or "
                    f"declared quote holds whole: {m.group(1)[:100]!r}"
                )
    return out


_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")


def _line(raw: str, sentence: str, start: int = 0) -> int:
    """The line of ``raw`` where ``sentence`` (collapsed whitespace) first starts at or after
    ``start`` (0 if not found)."""
    words = sentence.split()[:6]
    pattern = re.compile(r"\s+".join(re.escape(w) for w in words))
    m = pattern.search(raw, max(start, 0))
    return raw.count("\n", 0, m.start()) + 1 if m else 0


def margin_verdict(
    low: float | None, high: float | None, margin: float, centre: float = 0.5
) -> Verdict:
    """Alike within ``margin``: the interval [low, high] lies above ``centre - margin`` and
    below ``centre + margin`` (an equivalence verdict); one end None: that side is not claimed
    (``high=None``: non-inferiority, "not worse by more than"; ``low=None``: "no gain" or "no
    more than").  A match's score is centred on one half, a difference on 0."""
    above = low is None or low > centre - margin
    below = high is None or high < centre + margin
    ends = ", ".join(
        f"{name} end {x:.3g}" for name, x in (("its low", low), ("its high", high)) if x is not None
    )
    return Verdict("margin", bool(above and below), f"{ends}: not within {margin:g} of {centre:g}")


def difference(p: float, what: str = "p") -> Verdict:
    """A difference: the (adjusted, where the study makes several tests) p-value under 0.05."""
    return Verdict("difference", bool(p < 0.05), f"{what} = {p:.3g} is not under 0.05")


def sign_test(differences: Any, what: str = "the sign test's p") -> Verdict:
    """A difference: the exact two-sided sign test of paired ``differences`` (one per tree or
    position, ties left out; ``scipy.stats.binomtest``) under 0.05."""
    from scipy import stats

    d = np.asarray(differences, dtype=float)
    up, down = int((d > 0).sum()), int((d < 0).sum())
    p = float(stats.binomtest(up, up + down, 0.5).pvalue) if up + down else 1.0
    return difference(p, f"{what} ({up} up, {down} down)")


def match_table(folder: str) -> pd.DataFrame:
    """A committed match's table (``results/<folder>/match.parquet``)."""
    return pd.read_parquet(ROOT / "results" / folder / "match.parquet")


def match_margin(folder: str, margin: float) -> Verdict:
    """Player 1 of a committed match is not worse than player 0 by more than ``margin`` (its
    score's 95 % interval, paired where the match was: ``analysis.matches.score_interval``)."""
    from starbench.analysis.matches import score_interval

    _s, low, _high, _n = score_interval(match_table(folder), 1)
    return Verdict(
        "margin",
        bool(low > 0.5 - margin),
        f"{folder}: its low end {low:.3f} is not above {0.5 - margin:g}",
    )


def match_difference(study: str, match: str) -> Verdict:
    """The players of a committed match differ: its p-value of equal strength, adjusted by Holm
    over the study's matches (``analysis.matches``), under 0.05."""
    from starbench.analysis.matches import holm, p_value, stored

    found = stored(ROOT / "results" / study)
    names = [name for name, _g, _df in found]
    adjusted = dict(zip(names, holm([p_value(df) for _n, _g, df in found]), strict=True))
    return difference(adjusted[match], f"{match}'s Holm-adjusted p")


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
    "Verdict": Verdict,
    "margin_verdict": margin_verdict,
    "difference": difference,
    "sign_test": sign_test,
    "match_table": match_table,
    "match_margin": match_margin,
    "match_difference": match_difference,
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
