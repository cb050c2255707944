"""The reference corpus (``results/corpus``): reproduced byte for byte by ``corpus export``, and
read back without starbench, every value checked by a recursion of this file's own."""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path

import pytest

from starbench.commands import cli

COMMITTED = Path(__file__).resolve().parents[1] / "results" / "corpus"


@pytest.mark.slow
def test_corpus_export_reproduces_the_committed_corpus(tmp_path):
    assert cli.main(["corpus", "export", str(tmp_path / "corpus")]) == 0
    for name in ("trees.json", "manifest.json"):
        assert (tmp_path / "corpus" / name).read_bytes() == (COMMITTED / name).read_bytes(), name


def _value(node):
    """Expectimax, from the format's definition alone."""
    if not isinstance(node, dict):
        return Fraction(str(node))
    ((kind, children),) = node.items()
    if kind == "chance":
        assert sum(Fraction(str(p)) for p, _c in children) == 1
        return sum(Fraction(str(p)) * _value(c) for p, c in children)
    values = [_value(c) for c in children]
    return max(values) if kind == "max" else min(values)


def _count(node):
    if not isinstance(node, dict):
        return 1
    ((kind, children),) = node.items()
    return 1 + sum(_count(c[1] if kind == "chance" else c) for c in children)


def _per_level(node, level=0, out=None):
    """Every node and leaf of the tree per level (root 0), counted here from the format."""
    out = out if out is not None else {"nodes": [], "leaves": []}
    for name in ("nodes", "leaves"):
        while len(out[name]) <= level:
            out[name].append(0)
    out["nodes"][level] += 1
    if not isinstance(node, dict):
        out["leaves"][level] += 1
        return out
    ((kind, children),) = node.items()
    for c in children:
        _per_level(c[1] if kind == "chance" else c, level + 1, out)
    return out


def test_the_corpus_lists_per_level_sum_to_the_totals_and_equal_an_independent_count():
    """Version 3: every algorithm's lists per level sum to its totals; expectimax's and
    minimax's nodes and leaves per level are the tree's, counted by this file's recursion."""
    manifest = json.loads((COMMITTED / "manifest.json").read_text())
    assert manifest["version"] == 4
    for t in json.loads((COMMITTED / "trees.json").read_bytes()):
        tree_levels = _per_level(t["tree"]["root"])
        for a in t["algorithms"]:
            c = a["counters"]
            assert sum(c["nodes_by_level"]) == c["nodes"], (t["id"], a["algorithm"])
            assert sum(c["leaves_by_level"]) == c["leaves"], (t["id"], a["algorithm"])
            cuts = c["chance_cutoffs"] + c["decision_cutoffs"]
            assert sum(c["cutoffs_by_level"]) == cuts, (t["id"], a["algorithm"])
            assert sum(c["probes_by_level"]) == c["probes"], (t["id"], a["algorithm"])
            if a["algorithm"] in ("expectimax", "minimax"):
                assert c["nodes_by_level"] == tree_levels["nodes"], (t["id"], a["algorithm"])
                assert c["leaves_by_level"] == tree_levels["leaves"], (t["id"], a["algorithm"])


def test_an_older_corpus_still_reads_and_an_unknown_version_is_refused(tmp_path):
    from starbench.errors import InputError
    from starbench.external import corpus

    manifest, trees = corpus.read(COMMITTED)
    assert manifest["version"] == corpus.VERSION and len(trees) == manifest["trees"]
    old = tmp_path / "v2"
    old.mkdir()
    text = '[{"id": 0, "algorithms": [{"counters": {"nodes": 1, "leaves": 1}}]}]\n'
    (old / "trees.json").write_text(text)
    sha = hashlib.sha256(text.encode()).hexdigest()
    (old / "manifest.json").write_text(json.dumps({"version": 2, "sha256": {"trees.json": sha}}))
    _, got = corpus.read(old)
    assert "nodes_by_level" not in got[0]["algorithms"][0]["counters"]
    (old / "manifest.json").write_text(json.dumps({"version": 9, "sha256": {"trees.json": sha}}))
    with pytest.raises(InputError, match="reads versions 2, 3, 4"):
        corpus.read(old)


def test_the_corpus_reads_back_with_plain_json_and_every_answer_holds():
    manifest = json.loads((COMMITTED / "manifest.json").read_text())
    raw = (COMMITTED / "trees.json").read_bytes()
    assert len(raw) <= 5 * 2**20
    assert hashlib.sha256(raw).hexdigest() == manifest["sha256"]["trees.json"]
    trees = json.loads(raw)
    assert len(trees) == manifest["trees"] >= 300
    assert {t["family"] for t in trees} == set(manifest["families"])
    for t in trees:
        root = t["tree"]["root"]
        lo, hi = (Fraction(str(b)) for b in t["tree"]["bounds"])
        want = _value(root)
        assert Fraction(str(t["value"])) == want and lo <= want <= hi, t["id"]
        assert t["nodes"] == _count(root)
        ((kind, children),) = root.items()
        if kind != "chance":
            tied = [i for i, c in enumerate(children) if _value(c) == want]
            assert t["best_moves"] == tied, t["id"]
        assert t["algorithms"], t["id"]
        for a in t["algorithms"]:
            assert Fraction(str(a["value"])) == want, (t["id"], a["algorithm"])
            if kind != "chance":
                assert a["best_move"] in tied, (t["id"], a["algorithm"])
            if a["algorithm"] in ("expectimax", "minimax"):
                assert a["counters"]["nodes"] == t["nodes"], (t["id"], a["algorithm"])
            assert a["counters"]["nodes"] >= 1 and a["counters"]["leaves"] >= 1
            if not a["algorithm"].startswith("star2"):  # probes may enter a node again
                assert a["counters"]["nodes"] <= t["nodes"], (t["id"], a["algorithm"])
        # the windowed searches: each window as the manifest defines it, each answer inside the
        # range a fail-soft search may return, worked out here from the exact value alone
        d = (hi - lo) / 64
        assert sorted(w["window"] for w in t["windows"]) == sorted(manifest["windows"]), t["id"]
        for w in t["windows"]:
            a_off, b_off = manifest["windows"][w["window"]]
            alpha, beta = want + a_off * d, want + b_off * d
            assert (Fraction(str(w["alpha"])), Fraction(str(w["beta"]))) == (alpha, beta)
            if want <= alpha:
                what, low, high = "fails low", want, alpha
            elif want >= beta:
                what, low, high = "fails high", beta, want
            else:
                what, low, high = "exact", want, want
            assert w["expect"] == what, (t["id"], w["window"])
            assert [Fraction(str(x)) for x in w["range"]] == [low, high], (t["id"], w["window"])
            assert w["algorithms"], (t["id"], w["window"])
            for a in w["algorithms"]:
                assert low <= Fraction(str(a["value"])) <= high, (t["id"], w["window"], a)
                assert 0 <= a["leaves"] <= a["nodes"] and a["nodes"] >= 1, (t["id"], w["window"], a)
    windows = {w["window"] for t in trees for w in t["windows"]}
    assert {"narrow", "zero-width", "null-below", "null-above"} <= windows
    # the windows reach every outcome, and some searches stop earlier than the full window's
    assert {w["expect"] for t in trees for w in t["windows"]} == {
        "exact",
        "fails low",
        "fails high",
    }
    full = {
        (t["id"], a["algorithm"]): a["counters"]["nodes"] for t in trees for a in t["algorithms"]
    }
    assert any(
        a["nodes"] < full[t["id"], a["algorithm"]]
        for t in trees
        for w in t["windows"]
        for a in w["algorithms"]
    )
