#!/usr/bin/env python3
"""A conform-protocol engine that is not starbench: exact expectimax over the JSON tree format,
reading one request a line on stdin and answering one line on stdout (docs/reference/protocol.md).

    expectimax_engine.py [correct|levels|levels-shifted|skip-last-outcome|crash|hang|garbage|
                          unsupported|hog|wrong-move|crash-wide|hang-wide|close-stdout|
                          setsid-child|huge]

correct answers exactly (value as "a/b", the first best move, nodes and leaves as every node
visited); skip-last-outcome ignores the last outcome of every chance node (a wrong engine);
crash exits at its third request; hang stops answering at its third; garbage prints a line that
is not JSON at its third; unsupported declines every tree; hog allocates far more memory than a
limit allows at its third.  levels answers as correct does, with its nodes and leaves per level
(``nodes_by_level``, ``leaves_by_level``: the root at level 0); levels-shifted counts the root at
level 1 (right totals, wrong lists).  The hostile ones: wrong-move names the worst move at
every decision root; crash-wide and hang-wide exit or sleep on any tree whose root has three or
more children; close-stdout reads one request, closes its output and sleeps; setsid-child
starts a child in a session of its own that holds the pipes and sleeps, then answers nothing;
huge prints an answer line of 3 MB at its third request.
"""

import json
import os
import subprocess
import sys
import time
from fractions import Fraction

MODE = sys.argv[1] if len(sys.argv) > 1 else "correct"


def _at(counts, name, level):
    lists = counts.setdefault(name + "_by_level", [])
    while len(lists) <= level:
        lists.append(0)
    lists[level] += 1


def solve(node, counts, level=1 if MODE == "levels-shifted" else 0):
    counts["nodes"] += 1
    _at(counts, "nodes", level)
    if not isinstance(node, dict):
        counts["leaves"] += 1
        _at(counts, "leaves", level)
        return Fraction(str(node))
    ((kind, children),) = node.items()
    if kind == "chance":
        outcomes = children[:-1] if MODE == "skip-last-outcome" and len(children) > 1 else children
        weights = [Fraction(str(p)) for p, _ in outcomes]
        total = sum(weights)
        return sum(
            w / total * solve(c, counts, level + 1)
            for w, (_, c) in zip(weights, outcomes, strict=True)
        )
    values = [solve(c, counts, level + 1) for c in children]
    return max(values) if kind == "max" else min(values)


def answer(request):
    root = request["tree"]["root"]
    counts = {"nodes": 0, "leaves": 0}
    value = solve(root, counts)
    best = None
    if isinstance(root, dict) and "chance" not in root:
        ((kind, children),) = root.items()
        sub = {"nodes": 0, "leaves": 0}
        values = [solve(c, sub) for c in children]
        best = values.index(max(values) if kind == "max" else min(values))
    text = (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )
    if not MODE.startswith("levels"):
        counts = {"nodes": counts["nodes"], "leaves": counts["leaves"]}
    else:
        short = len(counts["nodes_by_level"]) - len(counts["leaves_by_level"])
        counts["leaves_by_level"] += [0] * short
    return {"value": text, "best_move": best, **counts}


def _wide(request):
    root = request["tree"]["root"]
    return isinstance(root, dict) and len(next(iter(root.values()))) >= 3


for n, line in enumerate(sys.stdin):
    request = json.loads(line)
    if MODE == "close-stdout":
        sys.stdout.close()
        os.close(1)
        time.sleep(3600)
    if MODE == "setsid-child":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", "starbench-stray"],
                         start_new_session=True)  # fmt: skip
        time.sleep(3600)
    if MODE == "crash-wide" and _wide(request):
        sys.exit("engine: too wide")
    if MODE == "hang-wide" and _wide(request):
        time.sleep(3600)
    if n == 2 and MODE == "huge":
        print('{"value": "' + "1" * 3 * 2**20 + '", "best_move": 0}', flush=True)
        continue
    if MODE == "wrong-move" and "window" not in request:
        got = answer(request)
        root = request["tree"]["root"]
        if isinstance(root, dict) and "chance" not in root:
            ((kind, children),) = root.items()
            sub = {"nodes": 0, "leaves": 0}
            values = [solve(c, sub) for c in children]
            got["best_move"] = values.index(min(values) if kind == "max" else max(values))
        print(json.dumps(got), flush=True)
        continue
    if n == 2 and MODE == "crash":
        sys.exit("engine: something broke")
    if n == 2 and MODE == "hang":
        time.sleep(3600)
    if n == 2 and MODE == "garbage":
        print("value=7 move=0", flush=True)
        continue
    if n == 2 and MODE == "hog":
        hog = bytearray(4 * 2**30)
    if MODE == "unsupported":
        print(json.dumps({"unsupported": "this engine declines every tree"}), flush=True)
        continue
    print(json.dumps(answer(request)), flush=True)
