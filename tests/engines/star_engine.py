#!/usr/bin/env python3
"""A conform-protocol engine that is not starbench: Ballard's Star2 (a probe phase on each
decision successor's first move, then Star1's search phase; fail-soft, non-strict cut-off
tests) over the JSON tree format, with the root's ``window`` when a request has one
(docs/reference/protocol.md), in exact fractions.

    star_engine.py [correct|edge|window-liar|floats3|crash-on-wide|exit-with-child]

correct searches right; edge takes a probe result that lands exactly on its window's edge as the
successor's exact value (``<=`` where ``<`` is right: with non-strict cut-offs a result on the
edge is only a bound; the bug of a public backgammon engine); window-liar answers every
windowed request with a third of the way up the window when the value falls inside (right
without a window); floats3 prints its values as floats of 3 significant digits; crash-on-wide
exits on any tree whose root has four or more children; exit-with-child leaves a child process
holding its output and exits at its fifth request.
"""

import json
import os
import subprocess
import sys
from fractions import Fraction

MODE = sys.argv[1] if len(sys.argv) > 1 else "correct"


def F(x):
    return Fraction(str(x))


def star(node, alpha, beta, L, U):
    """The fail-soft value of ``node`` searched with the window (alpha, beta)."""
    if not isinstance(node, dict):
        return F(node)
    ((kind, children),) = node.items()
    if kind == "max":
        best = None
        for c in children:
            v = star(c, max(alpha, best) if best is not None else alpha, beta, L, U)
            best = v if best is None or v > best else best
            if best >= beta:
                return best
        return best
    if kind == "min":
        best = None
        for c in children:
            v = star(c, alpha, min(beta, best) if best is not None else beta, L, U)
            best = v if best is None or v < best else best
            if best <= alpha:
                return best
        return best
    probs = [F(p) for p, _c in children]
    kids = [c for _p, c in children]
    lo = [L] * len(kids)
    hi = [U] * len(kids)
    done = [False] * len(kids)
    # probe phase (Star2): each decision successor's first move, a bound on the successor
    for i, c in enumerate(kids):
        if not isinstance(c, dict) or "chance" in c:
            continue
        ((ckind, moves),) = c.items()
        rest_hi = sum(p * h for j, (p, h) in enumerate(zip(probs, hi, strict=True)) if j != i)
        pairs = enumerate(zip(probs, lo, strict=True))
        rest_lo = sum(p * lower for j, (p, lower) in pairs if j != i)
        A = max(L, (alpha - rest_hi) / probs[i])
        B = min(U, (beta - rest_lo) / probs[i])
        v = star(moves[0], A, B, L, U)
        if ckind == "max":
            lo[i] = max(lo[i], v)
            if MODE == "edge" and v == A > L and len(moves) > 1:  # the bug: an edge result as exact
                hi[i], done[i] = v, True
        else:
            hi[i] = min(hi[i], v)
            if MODE == "edge" and v == B < U and len(moves) > 1:
                lo[i], done[i] = v, True
        if len(moves) == 1:
            lo[i] = hi[i] = v
            done[i] = True
        total_lo = sum(p * x for p, x in zip(probs, lo, strict=True))
        total_hi = sum(p * x for p, x in zip(probs, hi, strict=True))
        if total_lo >= beta:
            return total_lo
        if total_hi <= alpha:
            return total_hi
    # search phase (Star1) from those bounds
    x = Fraction(0)
    tail_lo = sum(p * low for p, low in zip(probs, lo, strict=True))
    tail_hi = sum(p * h for p, h in zip(probs, hi, strict=True))
    for i, (p, c) in enumerate(zip(probs, kids, strict=True)):
        tail_lo -= p * lo[i]
        tail_hi -= p * hi[i]
        if done[i]:
            v = lo[i]
            x += p * v
            continue
        a = (alpha - x - tail_hi) / p
        b = (beta - x - tail_lo) / p
        v = star(c, max(a, lo[i]), min(b, hi[i]), L, U)
        if v <= a:
            return x + p * v + tail_hi
        if v >= b:
            return x + p * v + tail_lo
        x += p * v
    return x


def answer(request):
    tree = request["tree"]
    L, U = (F(b) for b in tree["bounds"])
    root = tree["root"]
    window = request.get("window")
    if window is not None:
        alpha, beta = (F(w) for w in window)
        v = star(root, alpha, beta, L, U)
        if MODE == "window-liar" and alpha < v < beta:
            v = alpha + (beta - alpha) / 3
        return {"value": text(v), "best_move": None}
    v = star(root, L - 1, U + 1, L, U)
    best = None
    if isinstance(root, dict) and "chance" not in root:
        ((kind, children),) = root.items()
        values = [star(c, L - 1, U + 1, L, U) for c in children]
        best = values.index(max(values) if kind == "max" else min(values))
    return {"value": text(v), "best_move": best}


def text(v):
    if MODE == "floats3":
        return float(f"{float(v):.3g}")
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


for n, line in enumerate(sys.stdin):
    request = json.loads(line)
    root = request["tree"]["root"]
    if MODE == "crash-on-wide" and isinstance(root, dict) and len(next(iter(root.values()))) >= 4:
        sys.exit("engine: a wide root broke me")
    if MODE == "exit-with-child" and n == 4:
        subprocess.Popen(["sleep", "60"], stdout=sys.stdout)  # holds the output open
        os._exit(3)
    print(json.dumps(answer(request)), flush=True)
