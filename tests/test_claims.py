"""Every number in a README's prose is checked (``starbench.analysis.claims``): each is in a
quote of the README's claims file that recomputes it from the committed tables, reads it from
``experiments/published.csv`` or says why it is not a result; an unlisted number fails."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from starbench.analysis import claims, published

ROOT = Path(__file__).resolve().parents[1]
#: the top-level README with the documentation pages (one text, one claims file), then each
#: study's README
TOP = tuple(claims.documents(ROOT))
READMES = [TOP, *sorted((ROOT / "experiments").glob("*/README.md"))]


def _claims(readme: Path | tuple[Path, ...]) -> tuple[Path, str | None]:
    if isinstance(readme, tuple):
        return ROOT / "experiments" / "claims.yaml", None
    return readme.parent / "claims.yaml", readme.parent.name


def _id(readme: Path | tuple[Path, ...]) -> str:
    return "README.md+docs" if isinstance(readme, tuple) else str(readme.relative_to(ROOT))


#: Studies whose claims recompute seconds of tables (the full suite checks them; the quick loop
#: checks the rest).
SLOW_CLAIMS = {"experiments/heyden2009/README.md", "experiments/ballard1983/README.md",
               "experiments/pig-decisions/README.md"}  # fmt: skip


@pytest.mark.parametrize(
    "readme",
    [pytest.param(r, marks=pytest.mark.slow) if _id(r) in SLOW_CLAIMS else r for r in READMES],
    ids=_id,
)
def test_every_number_in_the_prose_is_checked(readme):
    path, study = _claims(readme)
    report = claims.check(readme, path, study)
    assert report.ok, f"{_id(readme)}:\n{report}"


@pytest.mark.parametrize("readme", READMES, ids=_id)
def test_changing_any_quoted_number_is_seen(readme):
    """Change each number of the prose in turn (its last digit): the number is then either
    unlisted or part of a quote that no longer matches."""
    path, _study = _claims(readme)
    text = claims.text_of(readme)
    entries = claims.load_entries(path) if path.exists() else []
    quotes = [e.plain for e in entries]
    spans = claims.numbers(text)
    assert spans or not entries
    for a, b in spans:
        digit = text[b - 1]
        changed = text[: b - 1] + ("3" if digit != "3" else "4") + text[b:]
        still = [q for q in quotes if q in changed]
        lost = [q for q in quotes if q in text and q not in changed]
        assert lost or not any(
            x <= a and b <= x + len(q)
            for q in still
            for x in (m.start() for m in re.finditer(re.escape(q), changed))
        ), (_id(readme), text[max(0, a - 40) : b + 20])


def test_every_published_figure_has_its_source():
    rows = published.table()
    assert rows and all(source for _value, source in rows.values())
    for (study, _q), (value, _s) in rows.items():
        assert (ROOT / "experiments" / study).is_dir(), study
        float(value)


def test_the_mechanism_catches_a_wrong_and_an_unlisted_number(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(
        "Star1 examines 80.6 % of the leaves at N = 10.\n\n"
        "<!-- BEGIN x.md -->\n| 12.5 |\n<!-- END x.md -->\n\n"
        "Run `starbench run trees=100` and see [the figure](figures/f-2.png); 7 more.\n"
    )
    (tmp_path / "claims.yaml").write_text(
        "claims:\n"
        "  - quote: 'examines {80.6} % of the leaves'\n"
        "    expr: \"'80.7'\"\n"
        "facts:\n"
        "  setting:\n"
        "    - 'at N = 10'\n"
    )
    r = claims.check(readme, tmp_path / "claims.yaml", None)
    assert r.wrong and "80.6" in r.wrong[0] and "80.7" in r.wrong[0]
    assert [u.split("'")[1] for u in r.unlisted] == ["7"]  # the table, the code, the link skipped
    assert not r.missing


def test_numbers_after_a_slash_a_caret_a_dot_and_before_a_unit_are_read():
    """``1/36``, ``2^22``, ``.5`` and ``10x`` are numbers of the prose; names are not."""
    text = (
        "a 1/36 chance, 2^22 entries, about .5 of it, 10x faster; Star2.5 and b5 and a 2-ply search"
    )
    found = [text[a:b] for a, b in claims.numbers(claims.prose(text))]
    assert found == ["1", "36", "2", "22", "5", "10"], found


STUDIES = ROOT / "experiments"


def _check_changed(study: str, tmp_path: Path, readme_edits, claims_edits=()) -> claims.Report:
    """The check of a study's README and claims file, each with ``(old, new)`` edits applied
    (each old text must be there)."""
    readme, path = STUDIES / study / "README.md", STUDIES / study / "claims.yaml"
    text, spec = readme.read_text(encoding="utf-8"), path.read_text(encoding="utf-8")
    for old, new in readme_edits:
        assert old in text, old
        text = text.replace(old, new)
    for old, new in claims_edits:
        assert old in spec, old
        spec = spec.replace(old, new)
    (tmp_path / "README.md").write_text(text, encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(spec, encoding="utf-8")
    return claims.check(tmp_path / "README.md", tmp_path / "claims.yaml", study)


def test_a_wrong_denominator_fails_even_where_the_claims_file_quotes_it(tmp_path):
    """pig-inexact's sampled Star2 rows are 900 (2,700 is the count of expectimax-ss rows): the
    count is computed from the rows it describes, so the README and its quote both saying 2,700
    is a wrong claim."""
    edit = [("of its 900 rows", "of its 2,700 rows")]
    r = _check_changed(
        "pig-inexact", tmp_path, edit, [("of its {900} rows", "of its {2,700} rows")]
    )
    assert any("2,700" in w and "900" in w for w in r.wrong), r


def test_a_flipped_verdict_word_fails(tmp_path):
    """A verdict word says what its test must have decided: a sentence turned from "not
    resolved" into "rises", from "not worse by more than" into "worse", from "beats" into "as
    good as", or a new "beats" without a test, fails."""
    cases = [
        ("pig-decisions", "so neither change is resolved at 5 %", "so the rate rises at 5 %"),
        ("chanceprobcut-pig", "its decisions are\n  not worse by more than 2 points",
         "its decisions are\n  worse by 2 points"),
        ("hauk2004", "clearly beats\nexpectimax", "is as good as\nexpectimax"),
        ("pig-inexact", "neither match separates the players", "Star2 beats MCTS"),
    ]  # fmt: skip
    for study, old, new in cases:  # each README as committed passes: test_every_number_...
        r = _check_changed(study, tmp_path, [(old, new)])
        assert not r.ok and any("verdict" in w for w in r.wrong), (study, r)


def test_a_verdict_the_tables_stop_supporting_fails():
    assert (
        claims.margin_verdict(0.46, 0.54, 0.05).holds
        and claims.margin_verdict(0.46, None, 0.05).holds
    )
    assert not claims.margin_verdict(0.44, 0.55, 0.05).holds
    assert claims.margin_verdict(None, 0.3, 0.5, centre=0.0).holds
    assert not claims.difference(0.062).holds and claims.difference(0.0012).holds
    assert claims.sign_test([1] * 9 + [-1]).holds and not claims.sign_test([1, -1, 1]).holds
    words = claims.verdict_words("ChanceProbCut is not worse by more than 0.05, and Star2 beats it")
    assert words == {"margin": ["not worse by more than"], "difference": ["beats"]}
    assert claims.verdict_words("outcomes equally likely") == {}


def test_a_conclusion_in_any_words_is_checked_or_declared(tmp_path):
    """Every sentence and bold heading of a section of a study's README that reports results is
    a conclusion, whatever its words: a heading reversed without a listed word, a new sentence
    with none, a negation, a declared pointer turned into a claim, a verdict in a results
    section outside the verdict section: each fails, naming the file and line."""
    cases = [
        ("transposition", "**On pig it comes within a point of their node saving, not of their "
         "time saving.**", "**On pig it fails.**"),
        ("pig-decisions", "From depth 2 on most decisions are optimal.",
         "From depth 2 on most decisions are optimal.  Star2 is the algorithm to use in pig."),
        ("chanceprobcut", "**At 2 plies it searched more nodes than Star2, on both shapes.**",
         "**At 2 plies it never searched more nodes than Star2.**"),
        ("transposition-pig", "See [transposition](../transposition/README.md), whose "
         "conclusions cover this part.", "The table changes nothing on pig."),
        ("ballard1983-readings", "level reads his figures best", "level reads his figures worst"),
        ("ballard1983", "**Verdict: not explained.**", "**Verdict: explained.**"),
        ("hauk2004-backgammon", "Every table gives both.", "Every table agrees with theirs."),
    ]  # fmt: skip
    for study, old, new in cases:
        readme, path = STUDIES / study / "README.md", STUDIES / study / "claims.yaml"
        entries, declared = claims.load_entries(path), claims.not_results(path)
        assert not claims.conclusion_problems(readme, entries, declared), study
        text = readme.read_text(encoding="utf-8")
        assert old in text, old
        changed = tmp_path / "README.md"
        changed.write_text(text.replace(old, new), encoding="utf-8")
        said = claims.conclusion_problems(changed, entries, declared)
        assert said, (study, new)
        for w in said:
            assert re.match(rf"{re.escape(str(changed))}:[1-9]\d*: ", w), w


def test_a_fact_accounts_for_no_conclusion_and_declarations_are_of_a_known_kind(tmp_path):
    """A verdict-section sentence filed as a fact is not accounted for (facts say why a number
    is not a result); a ``not_results`` key of another kind, or facts that are not a list, are
    refused."""
    sentence = "Backgammon's real move ordering and evaluation"
    edits = [
        ('not_results:\n  "scope: what the synthetic trees do not model":', "unused:\n  x:"),
        (
            '    - "(Hauk, Buro and Schaeffer 2004)"\n',
            f'    - "(Hauk, Buro and Schaeffer 2004)"\n    - "{sentence}"\n',
        ),
    ]
    spec = (STUDIES / "hauk2004" / "claims.yaml").read_text(encoding="utf-8")
    for old, new in edits:
        assert old in spec, old
        spec = spec.replace(old, new)
    moved = tmp_path / "claims.yaml"
    moved.write_text(spec, encoding="utf-8")
    said = claims.conclusion_problems(
        STUDIES / "hauk2004" / "README.md", claims.load_entries(moved), claims.not_results(moved)
    )
    assert any("neither checked nor declared" in w and sentence[:20] in w for w in said), said
    bad = tmp_path / "bad.yaml"
    bad.write_text('not_results:\n  "opinion: mine":\n    - "x"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="KIND one of setting, citation"):
        claims.not_results(bad)
    bad.write_text('facts:\n  "why": "a string, not a list"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="must be a list"):
        claims.load_entries(bad)
    bad.write_text('not_results:\n  "scope: a": ["x"]\nnot_results:\n  "scope: b": ["y"]\n')
    with pytest.raises(ValueError, match="'not_results' given twice"):
        claims.not_results(bad)
