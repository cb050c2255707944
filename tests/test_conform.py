"""``starbench conform`` against engines that are separate programs (tests/engines): a correct
one passes; a wrong one is caught and every disagreement shrunk to at most 10 nodes; one that
crashes, hangs, prints garbage or runs out of memory ends the run with one line naming the tree,
exit 1; one that declines everything is not a pass."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from pathlib import Path

import pytest

from starbench.commands import cli
from starbench.external import shrink

ENGINE = f"{sys.executable} {Path(__file__).parent / 'engines' / 'expectimax_engine.py'}"


def _conform(capsys, tmp_path, mode, *extra):
    code = cli.main(
        ["conform", "--engine", f"{ENGINE} {mode}", "--algorithm", "expectimax",
         "--out", str(tmp_path / "out"), *extra]
    )  # fmt: skip
    out, err = capsys.readouterr()
    return code, out, err.strip().splitlines()


def _row(out, name):
    return next(line for line in out.splitlines() if line.startswith(name)).split()[-1]


def test_a_correct_engine_passes_with_equal_counts(capsys, tmp_path):
    code, out, err = _conform(capsys, tmp_path, "correct", "--trees", "20")
    assert code == 0, err
    assert _row(out, "requests") == _row(out, "agree") == "468" and _row(out, "disagree") == "0"
    assert "351 of 351" in out  # its nodes and leaves are expectimax's, every node visited
    assert not (tmp_path / "out").exists()


def test_a_wrong_engine_is_caught_and_shrunk(capsys, tmp_path):
    """Each cause shrunk once (the rest counted), and an engine wrong on more than half of its
    first requests stopped early, in one line."""
    code, out, _err = _conform(capsys, tmp_path, "skip-last-outcome", "--trees", "5")
    assert code == 1
    disagree = int(_row(out, "disagree"))
    assert disagree > 0 and int(_row(out, "agree")) > 0
    files = sorted((tmp_path / "out").glob("disagreement-*.json"))
    assert files and out.count("DISAGREE on") < disagree
    assert int(_row(out, "counted, not shrunk")) == disagree - out.count("; shrunk ")
    assert f"disagreed or failed on {disagree} of the 30 requests so far" in out
    assert "stopped early" in out and _row(out, "requests") == "30"
    for f in files:
        doc = json.loads(f.read_text())
        tree = shrink.Tree.of(doc)
        assert shrink.nodes(tree.root) <= 10
        assert doc["disagreement"]["expectimax"]["value"] == shrink._number(shrink.value(tree.root))


@pytest.mark.parametrize(
    ("mode", "said", "extra"),
    [
        ("crash", "the engine exited with code 1 on corpus mixed #2: engine: something broke", ()),
        (
            "hang",
            "the engine did not answer within 0.5 s on corpus mixed #2",
            ("--time-limit", "0.5"),
        ),
        ("garbage", "not an answer on corpus mixed #2: 'value=7 move=0'", ()),
        ("hog", "over its memory limit of 268435456 bytes", ("--memory-limit", str(2**28))),
    ],
)
def test_a_broken_engine_fails_its_tree_in_one_line_and_fail_fast_stops(
    capsys, tmp_path, mode, said, extra
):
    """With --fail-fast the run stops at the first failed tree: one line naming it, the tree
    written, exit 1."""
    code, out, err = _conform(capsys, tmp_path, mode, "--trees", "0", "--fail-fast", *extra)
    failed = [line for line in out.splitlines() if line.startswith("FAILED on")]
    assert code == 1 and len(failed) == 1 and said in failed[0], (out, err)
    assert _row(out, "failed") == "1"
    (written,) = (tmp_path / "out").glob("failed-*.json")
    doc = json.loads(written.read_text())
    assert doc["disagreement"]["first"] == "corpus mixed #2" and "root" in doc


def test_an_engine_that_declines_everything_does_not_pass(capsys, tmp_path):
    code, out, _err = _conform(capsys, tmp_path, "unsupported", "--trees", "0")
    assert code == 1 and _row(out, "unsupported") == _row(out, "requests") == "441"
    assert "first unsupported: corpus mixed #0: this engine declines every tree" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--trees", "-1"], "--trees"),
        (["--time-limit", "0"], "--time-limit"),
        (["--memory-limit", "10"], "--memory-limit"),
        (["--algorithm", "nosuch"], "unknown algorithm"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, tmp_path, argv, said):
    base = {"--algorithm": "expectimax", "--engine": ENGINE}
    for k, v in zip(argv[::2], argv[1::2], strict=True):
        base[k] = v
    code = cli.main(["conform", *(x for kv in base.items() for x in kv)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and said in err[0], err


def test_an_engine_that_cannot_start_is_one_line(capsys, tmp_path):
    code = cli.main(["conform", "--engine", "/no/such/engine", "--algorithm", "expectimax"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--engine" in err[0], err


def test_openspiel_s_expectiminimax_is_checked_through_the_protocol(capsys, tmp_path):
    """OpenSpiel's own Python expectiminimax (starbench.examples.openspiel_engine): it agrees on
    every tree whose MAX and MIN levels alternate, and declines the others."""
    pytest.importorskip("pyspiel", reason='pip install -c constraints.txt -e ".[games]"')
    engine = f"{sys.executable} -m starbench.examples.openspiel_engine"
    code = cli.main(
        ["conform", "--engine", engine, "--algorithm", "expectimax", "--trees", "20",
         "--out", str(tmp_path / "out")]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert _row(out, "disagree") == "0" and int(_row(out, "agree")) >= 150
    assert int(_row(out, "agree")) + int(_row(out, "unsupported")) == 468
    assert "do not alternate" in out


STAR = f"{sys.executable} {Path(__file__).parent / 'engines' / 'star_engine.py'}"


def _star(mode):
    from starbench.external import conform

    return conform.Engine(f"{STAR} {mode}", 10.0, 2**31)


def _first_disagreements(engine, label, n=1, **options):
    """Run the default cases until ``n`` disagreements are filed; their files and requests."""
    from starbench.external import conform

    run = conform.Run(engine, label, options.pop("out"), show=lambda _line: None)
    asked = 0
    try:
        for case in conform.cases(**options):
            run.case(case)
            asked += 1
            if run.report.disagree >= n:
                break
    finally:
        engine.close()
    return run.report, asked


def test_the_default_run_catches_a_window_edge_bug_early(tmp_path):
    """A Star2 that takes a probe result on its window's edge as the successor's exact value
    (``>=`` for ``>``: the public backgammon engine's bug) is caught by the default trees
    (the game shapes), its counterexample shrunk to at most 10 nodes."""
    from starbench.external import conform

    report, asked = _first_disagreements(_star("edge"), "star2", 2, out=tmp_path)
    assert report.disagree == 2 and asked < 600, asked
    for cause in report.causes.values():
        doc = json.loads(cause.path.read_text())
        assert shrink.nodes(shrink.Tree.of(doc).root) <= 10
    assert conform.DEFAULT_REQUESTS >= sum(conform.conformtrees.DEFAULT.values()) > 0


def test_the_default_run_stays_within_ten_thousand_requests():
    from starbench.external import conform

    assert sum(1 for _case in conform.cases()) <= conform.DEFAULT_REQUESTS == 10_000


def test_an_engine_that_lies_only_inside_windows_is_caught_with_its_window(tmp_path):
    report, _asked = _first_disagreements(_star("window-liar"), "star2", 1, out=tmp_path)
    (cause,) = report.causes.values()
    doc = json.loads(cause.path.read_text())["disagreement"]
    assert doc["window"] is not None and doc["fail_soft_range"] is not None
    assert "with window [" in doc["why"] and "outside" in doc["why"]
    assert doc["nodes"] <= 10


def test_a_correct_star2_passes_every_kind_of_request(capsys, tmp_path):
    code = cli.main(
        ["conform", "--engine", f"{STAR} correct", "--algorithm", "star2", "--trees", "30",
         "--out", str(tmp_path / "out")]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert _row(out, "disagree") == _row(out, "failed") == "0"
    assert not (tmp_path / "out").exists()


def test_a_crash_on_one_kind_of_tree_leaves_the_rest_judged(capsys, tmp_path):
    """An engine that dies on every tree with a wide root: each is a failed tree (a line each
    up to the failure budget, the rest counted; one file for the one cause), the engine
    restarted, the rest judged."""
    code = cli.main(
        ["conform", "--engine", f"{STAR} crash-on-wide", "--algorithm", "star2", "--trees", "0",
         "--out", str(tmp_path / "out")]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1
    failed = int(_row(out, "failed"))
    assert failed > 0 and int(_row(out, "agree")) > 300
    assert out.count("FAILED on") == min(failed, 3)  # the failure budget
    files = list((tmp_path / "out").glob("failed-*.json"))
    assert len(files) == 1  # one cause
    doc = json.loads(files[0].read_text())
    assert doc["trees"] == failed and len(next(iter(doc["root"].values()))) >= 4


def test_an_engine_that_exits_is_said_at_once_with_its_code(tmp_path):
    """An engine that exits while a child of its holds its output open is reported with its
    exit code at once, not after the time limit; the whole process group is killed."""
    import time

    from starbench.external import conform

    engine = conform.Engine(f"{STAR} exit-with-child", 30.0, 2**31)
    t0 = time.monotonic()
    report = conform.conform(
        engine, "star2", conform.cases(0), tmp_path, show=lambda _l: None, fail_fast=True
    )
    assert time.monotonic() - t0 < 10
    (cause,) = report.causes.values()
    assert "exited with code 3" in cause.document["disagreement"]["failed"]


def test_float_answers_are_shown_as_printed_and_grouped_by_cause(tmp_path):

    report, _asked = _first_disagreements(_star("floats3"), "star2", 25, out=tmp_path)
    assert report.disagree == 25 and len(report.causes) < 25  # grouped
    doc = json.loads(next(iter(report.causes.values())).path.read_text())["disagreement"]
    printed = doc["answer"]["value"]
    assert "/" not in printed and "." in printed  # as the engine printed it
    assert f"{printed} differs from " in doc["why"] and "tolerance 1e-08" in doc["why"]


def test_your_own_trees_a_file_a_jsonl_and_a_folder(capsys, tmp_path):
    tree = {"bounds": [0, 10], "root": {"max": [{"chance": [["1/2", 3], ["1/2", 7]]}, 4]}}
    (tmp_path / "one.json").write_text(json.dumps(tree))
    (tmp_path / "many.jsonl").write_text("\n".join(json.dumps(tree) for _ in range(3)))
    folder = tmp_path / "folder"
    folder.mkdir()
    for i in range(2):
        (folder / f"t{i}.json").write_text(json.dumps({**tree, "window": [6, 8]}))
    for path, requests in ((tmp_path / "one.json", 1), (tmp_path / "many.jsonl", 4), (folder, 2)):
        code = cli.main(
            ["conform", "--engine", f"{STAR} correct", "--algorithm", "star2",
             "--trees-from", str(path), "--out", str(tmp_path / "out")]
        )  # fmt: skip
        out = capsys.readouterr().out
        assert code == 0 and _row(out, "requests") == str(requests), out
    (tmp_path / "bad.json").write_text("{")
    code = cli.main(["conform", "--engine", STAR, "--algorithm", "star2", "--trees-from",
                     str(tmp_path / "bad.json")])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "bad.json" in err[0], err


def test_keep_shape_shrinks_within_the_game_s_alternation(tmp_path):
    from starbench.external import conform

    engine = _star("edge")
    run = conform.Run(engine, "star2", tmp_path, show=lambda _l: None, keep_shape=True)
    try:
        for case in conform.cases():
            tree = shrink.Tree.of(case.tree)
            if case.window is not None or not case.what.startswith("backgammon"):
                continue
            found = run.ask(tree, case.what, None)
            if found is not None and found.kind == "disagree":
                _key, doc, _size = run.reduce(tree, case.what, None, found)
                assert conform.keeps_shape(tree)(shrink.Tree.of(doc))
                break
    finally:
        engine.close()


def test_shrink_against_an_external_engine(capsys, tmp_path):
    tree = {"bounds": [0, 10], "root": {"max": [{"chance": [["1/2", 3], ["1/2", 7]]}, 4, 2]}}
    (tmp_path / "t.json").write_text(json.dumps(tree))
    engine = f"{ENGINE} skip-last-outcome"
    code = cli.main(["shrink", str(tmp_path / "t.json"), "--algorithm", "expectimax",
                     "--engine", engine, "--out", str(tmp_path / "s.json")])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    doc = json.loads((tmp_path / "s.json").read_text())
    assert shrink.nodes(shrink.Tree.of(doc).root) <= 4


def test_a_plugin_is_judged_in_process_and_its_disagreements_shrunk(capsys, tmp_path):
    plugins = Path(__file__).parent / "plugins"
    sys.path.insert(0, str(plugins))
    try:
        code = cli.main(
            ["conform", "--plugin", "wrong_stars", "--algorithm", "skip-last-outcome",
             "--trees", "0", "--out", str(tmp_path / "out")]
        )  # fmt: skip
    finally:
        sys.path.remove(str(plugins))
    out = capsys.readouterr().out
    assert code == 1 and int(_row(out, "disagree")) > 0
    for f in (tmp_path / "out").glob("disagreement-*.json"):
        assert shrink.nodes(shrink.Tree.of(json.loads(f.read_text())).root) <= 10
    code = cli.main(["conform", "--algorithm", "star2", "--trees", "0", "--out",
                     str(tmp_path / "own")])  # fmt: skip
    assert code == 0, capsys.readouterr().out


def test_a_javascript_engine_written_from_the_protocol_page_passes(capsys, tmp_path):
    """The protocol page is enough to write an engine in another language: a minimal one in
    JavaScript (tests/engines/expectimax_engine.js), run where Node.js is installed."""
    import shutil

    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed (apt-get install nodejs)")
    engine = f"{node} {Path(__file__).parent / 'engines' / 'expectimax_engine.js'}"
    code = cli.main(["conform", "--engine", engine, "--algorithm", "expectimax", "--trees", "20",
                     "--out", str(tmp_path / "out")])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert _row(out, "disagree") == _row(out, "failed") == "0"


# --------------------------------------------------------------------------- hostile engines
@pytest.mark.parametrize(
    ("mode", "extra", "said"),
    [
        ("hang-wide", ("--time-limit", "0.5"), "did not answer within 0.5 s"),
        ("close-stdout", ("--time-limit", "3"), "closed its standard output without answering"),
        ("setsid-child", ("--time-limit", "0.5"), "did not answer within 0.5 s"),
    ],
)
def test_a_hanging_engine_stops_at_its_failure_budget(capsys, tmp_path, mode, extra, said):
    """A hang, an engine that closes its output and sleeps, one whose child leaves its session
    holding the pipes: each costs the time limit, so the run stops at the failure budget (exit
    1, the summary), bounded by --time-limit, and no process of the engine is left behind."""
    import time

    start = time.monotonic()
    code, out, _err = _conform(capsys, tmp_path, mode, "--trees", "0", *extra)
    took = time.monotonic() - start
    failed = [line for line in out.splitlines() if line.startswith("FAILED on")]
    assert code == 1 and failed and said in failed[0], out
    assert "stopped at the failure budget (--failure-budget 3)" in out
    assert _row(out, "failed") == "3" and len(failed) == 3
    assert took < 30, took
    assert not _strays(), "a process of the engine outlived the run"


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("crash-wide", "the engine exited with code 1 before its first answer on first.jsonl:1"),
        ("huge", "longer than 1048576 bytes (refused unread; it begins b'{"),
    ],
)
def test_a_crash_or_an_oversized_answer_is_said_up_to_the_budget(capsys, tmp_path, mode, said):
    """Cheap failures go on being judged: each cause said at most --failure-budget times (the
    rest counted), with no memory hint for an engine that says why it exited."""
    trees = ("--trees-from", str(_first_trees(tmp_path, 60)))  # the corpus's first trees
    code, out, _err = _conform(capsys, tmp_path, mode, "--failure-budget", "2", *trees)
    failed = [line for line in out.splitlines() if line.startswith("FAILED on")]
    assert code == 1 and failed and said in failed[0], out
    assert len(failed) <= 2 * int(_row(out, "causes")) and "--memory-limit" not in out
    if mode == "crash-wide":
        assert int(_row(out, "failed")) > len(failed) and int(_row(out, "agree")) > 10
        assert "further trees of this cause are counted, not shown" in failed[1]


def _first_trees(tmp_path: Path, n: int) -> Path:
    """The corpus's first ``n`` trees as a JSON-lines file."""
    from starbench.external import corpus

    path = tmp_path / "first.jsonl"
    trees = [tree for _f, _i, tree in corpus.trees()][:n]
    path.write_text("".join(json.dumps(t) + "\n" for t in trees))
    return path


def _strays() -> list[int]:
    """The processes the ``setsid-child`` engine starts (named in their command line)."""
    import os

    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                if b"starbench-stray" in f.read():
                    found.append(int(name))
        except OSError:
            continue
    return found


def test_a_wrong_move_engine_shrinks_each_cause_once(capsys, tmp_path):
    code, out, _err = _conform(capsys, tmp_path, "wrong-move", "--trees", "0")
    assert code == 1 and int(_row(out, "disagree")) > 10
    shrunk = out.count("; shrunk ")
    assert 0 < shrunk <= int(_row(out, "causes")) + out.count("the same cause as") and (
        int(_row(out, "counted, not shrunk")) > int(_row(out, "disagree")) / 2
    )
    assert "further trees of this cause are counted, not shown" in out
    for f in (tmp_path / "out").glob("disagreement-*.json"):
        doc = json.loads(f.read_text())
        assert "best move" in doc["disagreement"]["why"]
        assert doc["trees"] >= 1


@contextlib.contextmanager
def _misbehaving():
    """``tests/plugins`` importable, ``misbehaving_plugins`` imported afresh and forgotten after
    (the registry is reset after each test; the module would stay imported, and another test's
    import of it would register nothing)."""
    plugins = str(Path(__file__).parent / "plugins")
    sys.modules.pop("misbehaving_plugins", None)
    sys.path.insert(0, plugins)
    try:
        yield
    finally:
        sys.path.remove(plugins)
        sys.modules.pop("misbehaving_plugins", None)


def _conform_plugin(tmp_path, algorithm, *extra):
    return cli.main(
        ["conform", "--plugin", "misbehaving_plugins", "--algorithm", algorithm, *extra,
         "--trees", "0", "--out", str(tmp_path / "out")]
    )  # fmt: skip


def test_a_sleeping_plugin_stops_at_the_failure_budget(capsys, tmp_path):
    with _misbehaving():
        code = _conform_plugin(tmp_path, "sleeper", "--time-limit", "0.2")
    out = capsys.readouterr().out
    assert code == 1 and _row(out, "failed") == "3" and _row(out, "requests") == "3", out
    assert "did not answer within 0.2 s" in out and "failure budget" in out


def test_a_plugin_that_ignores_the_deadline_stops_at_the_failure_budget(capsys, tmp_path):
    """A plugin ignoring ``SIGALRM`` and blocking for an hour: its searches run in a worker
    process killed a second past ``--time-limit`` (before, conform blocked for the hour)."""
    start = time.monotonic()
    with _misbehaving():
        code = _conform_plugin(tmp_path, "deaf", "--time-limit", "0.2")
    out = capsys.readouterr().out
    assert code == 1 and _row(out, "failed") == "3" and _row(out, "requests") == "3", out
    assert "did not answer within 0.2 s" in out and "failure budget" in out
    assert time.monotonic() - start < 20


@pytest.mark.parametrize(
    ("window", "said"),
    [
        ('"NaN"', "window must be [ALPHA, BETA]"),
        ("NaN", "window must be [ALPHA, BETA]"),
        ('["1/0", 1]', "window must be [ALPHA, BETA]"),
        ("5", "window must be [ALPHA, BETA]"),
        ('"abc"', "window must be [ALPHA, BETA]"),
        ("[3, 1]", "ALPHA < BETA"),
    ],
)
def test_a_bad_window_in_a_tree_file_is_one_line(capsys, tmp_path, window, said):
    f = tmp_path / "w.json"
    f.write_text('{"bounds": [0, 10], "root": {"max": [1, 2]}, "window": ' + window + "}")
    code = cli.main(["conform", "--algorithm", "expectimax", "--trees-from", str(f),
                     "--out", str(tmp_path / "out")])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and said in err[0], err


def test_bad_input_of_the_newer_surfaces_is_one_line(capsys, tmp_path):
    """A tree file that is not UTF-8, a memory limit past 2^63 - 1, a failure budget below
    one, a negative match seed: one line each, exit 2; ``python -m`` of an old module path
    works or says so in one line."""
    import subprocess

    f = tmp_path / "bin.json"
    f.write_bytes(b"\xff\xfe{}")
    cases = [
        (["conform", "--algorithm", "expectimax", "--trees-from", str(f)], "not UTF-8"),
        (["conform", "--engine", ENGINE, "--algorithm", "expectimax", "--memory-limit",
          str(2**70)], "--memory-limit"),
        (["conform", "--algorithm", "expectimax", "--failure-budget", "0"], "--failure-budget"),
        (["match", "pig(winscore=10)", "--seed", "-1", "--player", "random", "--player",
          "random", "--out", str(tmp_path / "m")], "--seed"),
    ]  # fmt: skip
    for argv, said in cases:
        code = cli.main(argv)
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and said in err[0], (argv, err)
    assert not (tmp_path / "m").exists()
    for module, code, said in (
        ("starbench", 0, ""),
        ("starbench run", 0, ""),  # Hydra's parser reads argv[0] (a traceback before)
        ("starbench.cli", 1, "No module named starbench.cli"),  # a moved module's old path
        ("starbench.match", 1, "No module named starbench.match"),
    ):
        p = subprocess.run(
            [
                sys.executable,
                "-m",
                *module.split(),
                *(["--help"] if " " in module else ["--version"] if code == 0 else []),
            ],  # fmt: skip
            capture_output=True,
            text=True,
        )
        assert p.returncode == code and "Traceback" not in p.stderr, p.stderr
        assert said in p.stderr


def test_a_plugin_that_calls_sys_exit_is_a_row_or_a_line_never_a_silent_exit(capsys, tmp_path):
    """A plugin search calling ``sys.exit(3)`` (before: conform exited 3 and run 1 without a
    word): conform judges it an error of the engine, run stores an error row."""
    with _misbehaving():
        code = _conform_plugin(tmp_path, "quitter")
        out, err = capsys.readouterr()
        assert code == 1 and "quitter raises SystemExit: 3" in out, (out, err)
        from starbench.experiment.runner import run_cell
        from starbench.experiment.settings import AlgorithmSpec, RunSettings
        from starbench.trees import RegularTreeSpec

        s = RunSettings(
            tree=RegularTreeSpec(branching=2, chance_arity=2, depth=2),
            algorithms=(AlgorithmSpec("expectimax"), AlgorithmSpec("quitter")),
            trees=2,
            progress=False,
        )
        outcome = run_cell(s, tmp_path / "cell", out=lambda _: None)
    assert outcome.counts.get("error") == 2 and outcome.exit_code == 1
