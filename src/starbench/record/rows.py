"""Rows and the tidy table: one row per (instance, algorithm), its status, the table's columns.

A ``Row`` holds what one search produced (``FIELDS``) and the number of the run that computed
it; what a whole run shares (the cell's identity, budgets, versions, machine, date) is stored
once per run (``storage``) and joined into every row's columns only when the table is written.

Statuses are derived from all rows of an instance when they are shown or tabled (``verify``), so
rows added later (a new algorithm, expectimax added to a study) are verified too:

* ``ok``: the value agrees with the reference (within ``1e-9 * max(1, |L|, |U|)``, exactly in
  exact mode): expectimax's value on that tree, searched without a transposition table; where
  it has no such row (not requested, or the tree is over ``expectimax_limit`` nodes), the
  value of the one other exact search without a table, or the value two of them agree on
  (``verified_by`` names them).  A search with a table is never the reference
  (``reference_value``): rows that all use a table are ``unverified``, as is the one search
  without a table that no other row agrees with;
* ``mismatch``: it does not agree; ``unverified``: there is nothing to compare with;
* ``approx``: an inexact request (``AlgorithmInfo.exact`` false: sparse sampling), measured by
  ``value_error`` and ``decision_agrees``; it is never a reference or an agreeing party, and
  is a ``mismatch`` only where it differs from its own family's reference (``expectimax-ss``
  with the same ``samples``: the family searches one sampled tree, exactly);
* ``budget_exceeded``: the search hit ``node_budget`` or ``time_budget`` (kept, never dropped);
* ``error``: the search raised (the ``error`` column says what).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from fractions import Fraction
from itertools import takewhile
from typing import Any

from starbench.oracles.decisions import DECISION_COLUMNS, quality_text, tree_row
from starbench.record import columns
from starbench.search.arith import agree
from starbench.search.registry import ALGORITHMS, KEY_PARAMS, is_exact, key_values
from starbench.search.registry import label as registry_label
from starbench.search.stats import LEVEL_FIELDS

#: What one search produces (the journal stores these, in this order, per row): the declared
#: columns with ``journal`` (``record.columns``, where every column is declared once).
FIELDS: tuple[str, ...] = columns.journal_fields()
#: The table's leading columns, in order (names fixed by the runner's contract): the declared
#: table columns before the first tree parameter.
COLUMNS: tuple[str, ...] = tuple(
    c.name for c in takewhile(lambda c: c.group != "tree", columns.table_columns())
)
STATUSES = ("ok", "mismatch", "approx", "unverified", "budget_exceeded", "error")
#: An inexact request's columns (``approx`` rows; empty on exact rows).
INEXACT_COLUMNS = ("value_error", "decision_agrees")
#: Metadata columns, shared by every row of a run (``record.metadata``): group ``meta``, and
#: the generator version the run's code drew trees with (a tree parameter in the table).
META: tuple[str, ...] = tuple(
    c.name for c in columns.declared() if c.group == "meta" or c.name == "generator_version"
)


def level_columns(by_level: Any) -> dict[str, str | None]:
    """A search's counters per level as the row's columns: each list as compact JSON text
    (``"[1,3,9,27]"``), or None where the search gave none."""
    import json

    if by_level is None:
        return dict.fromkeys(LEVEL_FIELDS)
    return {k: json.dumps(v, separators=(",", ":")) for k, v in by_level.as_dict().items()}


_SHARED: dict[str, dict[str, str]] = {
    name: {} for name in ("algorithm", "after_probe", "engine", "run_status")
}


class Row:
    """One search's result in memory (a slotted record: ~250 bytes plus its numbers)."""

    __slots__ = (*FIELDS, "run")

    @classmethod
    def of(cls, values: dict[str, Any]) -> Row:
        row = cls.__new__(cls)
        for name in cls.__slots__:
            v = values.get(name)
            if type(v) is str and name in _SHARED:
                v = _SHARED[name].setdefault(v, v)  # one string object per distinct value
            setattr(row, name, v)
        return row

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.instance, self.algorithm, *key_values(self))  # type: ignore[attr-defined]

    def values(self) -> list[Any]:
        return [getattr(self, name) for name in FIELDS]

    def get(self, name: str, default: Any = None) -> Any:
        return getattr(self, name, default)

    def __getitem__(self, name: str) -> Any:
        return getattr(self, name)


def row_key(row: Any) -> tuple[Any, ...]:
    return (row["instance"], row["algorithm"], *key_values(row))


def present(x: Any) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x)) and str(x) != "<NA>"


def plain(v: Any) -> Any:
    """A stored cell as plain Python: a missing value (None, NaN, ``pd.NA``) None, a numpy
    scalar its Python value."""
    if not present(v):
        return None
    return v.item() if hasattr(v, "item") else v


def label(row: Any) -> str:
    """``name`` or ``name:k=..,after_probe=..`` (the algorithm and its key parameters: the one
    label, ``registry.label``)."""
    return registry_label(row["algorithm"], row)


def _value(row: Any, exact: bool) -> Any:
    if exact and row.get("value_exact") is not None:
        return Fraction(row["value_exact"])
    return row["value"]


#: (row, status, expectimax_value, verified_by, pct, decision columns)
Verified = tuple[Any, str, Any, Any, Any, dict[str, Any]]


def _exact_request(row: Any) -> bool:
    """Is the row's request exact (``registry.is_exact``)?"""
    return is_exact(row["algorithm"], row)


def _family_reference(r: Any, done: list[Any]) -> Any:
    """The row an inexact row must equal (its registered ``reference`` algorithm with the same
    ``samples``), or None."""
    info = ALGORITHMS[r["algorithm"]]
    if info.exact or info.reference is None:  # made inexact by a parameter, or MCTS: no family
        return None
    name = info.reference
    return next(
        (
            x
            for x in done
            if x["algorithm"] == name and x.get("samples") == r.get("samples") and not x.get("tt")
        ),
        None,
    )


def _inexact_columns(r: Any, ref_row: Any) -> dict[str, Any]:
    """``value_error`` (the row's value minus expectimax's on the same tree at the same depth)
    and ``decision_agrees`` (its move is one of expectimax's best, by expectimax's own values
    of the root moves where it recorded them, else its best move), empty without expectimax."""
    if ref_row is None or r["run_status"] != "done":
        return dict.fromkeys(INEXACT_COLUMNS)
    agrees = None
    if r["best_move"] is not None and ref_row["best_move"] is not None:
        values = ref_row.get("root_values")
        if values:
            best = max(values)
            agrees = agree(values[int(r["best_move"])], best, r["L"], r["U"], False)
        else:
            agrees = int(r["best_move"]) == int(ref_row["best_move"])
    return {"value_error": float(r["value"]) - float(ref_row["value"]), "decision_agrees": agrees}


def reference_value(exact_done: list[Any], exact: bool) -> tuple[Any, str | None, Any]:
    """The value an instance's exact rows are checked against, what it comes from
    (``verified_by``), and the row it is when that row is the only search without a table
    (else None); or (None, None, None).  Only a search without a transposition table is a
    reference (else a table's mistake, on which every row with a table agrees, would be the
    reference): expectimax without one; else the one exact search without one; else the value
    two of them agree on."""
    plain = [r for r in exact_done if not r.get("tt")]
    ex = next((r for r in plain if r["algorithm"] == "expectimax"), None)
    if ex is not None:
        return _value(ex, exact), "expectimax", None
    if len(plain) == 1:
        return _value(plain[0], exact), label(plain[0]), plain[0]
    for i, a in enumerate(plain):
        for b in plain[i + 1 :]:
            if agree(_value(a, exact), _value(b, exact), a["L"], a["U"], exact):
                return _value(a, exact), f"{label(a)}+{label(b)}", None
    return None, None, None


def verify(rows: list[Any], exact: bool) -> list[Verified]:
    """Derive (status, expectimax_value, verified_by, percent of expectimax's leaves, decision
    columns) for the rows of one instance (the percent where both searches finished, else
    None; the decision columns a game row holds, else a random-tree row's against the
    instance's expectimax, ``oracles.decisions``; an inexact row's ``value_error`` and
    ``decision_agrees`` with them).  Only exact rows are references or agreeing parties; an
    inexact row is ``approx``, or ``mismatch`` when it differs from its own family's
    reference (``star2-ss`` from ``expectimax-ss`` with the same ``samples``)."""
    done = [r for r in rows if r["run_status"] == "done"]
    exact_done = [r for r in done if _exact_request(r)]
    # expectimax's row: without a transposition table (else with one), the base of the
    # percent of its leaves and of the decision columns
    ex_rows = [r for r in exact_done if r["algorithm"] == "expectimax"]
    ref_row = next((r for r in ex_rows if not r.get("tt")), ex_rows[0] if ex_rows else None)
    ref, by, alone = reference_value(exact_done, exact)
    out = []
    for r in rows:
        inexact = r["run_status"] == "done" and not _exact_request(r)
        extra = dict.fromkeys(INEXACT_COLUMNS)
        r_by = by
        if r["run_status"] != "done":
            status = r["run_status"]
        elif inexact:
            family = _family_reference(r, done)
            same = family is None or agree(
                _value(r, exact), _value(family, exact), r["L"], r["U"], exact
            )
            status = "approx" if same else "mismatch"
            extra = _inexact_columns(r, ref_row)
        elif ref is None:
            status = "unverified"
        elif r is alone:  # the reference itself: checked by another exact row agreeing with it
            other = next(
                (
                    x
                    for x in exact_done
                    if x is not r and agree(_value(x, exact), ref, r["L"], r["U"], exact)
                ),
                None,
            )
            status = "unverified" if other is None else "ok"
            r_by = None if other is None else f"{label(r)}+{label(other)}"
        elif agree(_value(r, exact), ref, r["L"], r["U"], exact):
            status = "ok"
        else:
            status = "mismatch"
        pct = None
        if ref_row is not None and r["run_status"] == "done" and ref_row["leaves"]:
            pct = 100.0 * r["leaves"] / ref_row["leaves"]
        if present(r.get("oracle")):
            decision = {c: r.get(c) for c in DECISION_COLUMNS}
        elif r.get("position") is None:  # a random-tree row: expectimax is its oracle
            decision = tree_row(r, ref_row)
        else:
            decision = dict.fromkeys(DECISION_COLUMNS)
        decision = {**decision, **extra}
        out.append(
            (
                r,
                status,
                None if ref_row is None else ref_row["value"],
                r_by if ref is not None else None,
                pct,
                decision,
            )
        )
    return out


def mismatch_line(row: Any, reference: Any, by: Any, saved: bool = False) -> str:
    where = " (a saved row)" if saved else ""
    return (
        f"starbench: MISMATCH{where} instance {row['instance']} (tree_seed {row['tree_seed']}): "
        f"{label(row)} = {row['value']!r}, reference ({by}) = {reference!r}"
    )


#: What ``summary`` and the runner read back from a written table (``summary`` columns).
SUMMARY_COLUMNS: tuple[str, ...] = columns.summary_columns()
CHUNK = 8192  # rows per table chunk (and parquet row group)


def table_dtypes() -> dict[str, str]:
    """Every column of the tidy table, in order, with its pandas dtype name (one fixed dtype
    per column, so that every chunk of a table has the same schema): the declaration's."""
    return {c.name: c.dtype for c in columns.table_columns()}


def table_chunks(
    instances: Iterable[list[Row]], runs: dict[int, dict[str, Any]], exact: bool, cell: str
) -> Iterator[Any]:
    """The tidy table of verified rows, as chunks of at most ``CHUNK`` rows (columns by name, in
    the table's order, each a list): the contract's columns first, then every tree parameter, the
    cell, and what each row's run recorded (budgets, versions, machine, date).  Tree parameters
    come from the identity each row's run was computed with, never from the request."""
    from starbench.trees.regular import RegularTreeSpec

    per_run: dict[int, dict[str, Any]] = {}
    for n, head in runs.items():
        ident = head["identity"]
        if "game" in ident:  # a game cell: its keys, no generator parameters
            game = ident["game"]
            own = {
                "game": game["game"],
                "depth": game["depth"],
                "heuristic": game["heuristic"],
                "move_order": game["move_order"],
                "sampler": game.get("sampler") or ("playout" if game["position"] is None else None),
                "game_version": game["version"],
            }
            generator = None
        else:
            tree = ident["tree"]
            own = {
                **tree,
                "pool": tree.get("pool", 0),
                "skew": float(Fraction(str(tree["skew"]))),  # a number; its exact text beside
                "skew_text": str(tree["skew"]),
                "tree_size": RegularTreeSpec(**tree).size_float,
            }
            generator = ident["generator_version"]
        per_run[n] = {
            **own,
            "cell": cell,
            "node_budget": head["budgets"].get("node_budget"),
            "time_budget": head["budgets"].get("time_budget"),
            "seed": ident["seed"],
            "exact": ident["exact"],
            **{m: head["meta"].get(m) for m in META},
            "generator_version": generator,
        }
    order = list(table_dtypes())
    derived = {c.name: c.derive for c in columns.table_columns() if c.derive is not None}

    def batch_of(verified: list[Verified]) -> dict[str, list[Any]]:
        data: dict[str, Any] = {}
        for name in FIELDS:
            data[name] = [getattr(v[0], name) for v in verified]
        data["tt"] = [t or 0 for t in data["tt"]]  # a column like k: 0 when off
        for flag in ("tt_chance", "tt_probe"):  # columns like tt: false when off
            data[flag] = [bool(t) if present(t) else False for t in data[flag]]
        data["status"] = [v[1] for v in verified]
        data["expectimax_value"] = [v[2] for v in verified]
        data["verified_by"] = [v[3] for v in verified]
        data["pct_leaves"] = [v[4] for v in verified]
        for c in (*DECISION_COLUMNS, *INEXACT_COLUMNS):
            data[c] = [v[5][c] for v in verified]
        shared = [per_run[v[0].run] for v in verified]
        for c in order:
            if c not in data and c not in derived:
                data[c] = [r.get(c) for r in shared]
        for c, derive in derived.items():  # from the row's other columns
            data[c] = [derive({k: data[k][i] for k in data}) for i in range(len(verified))]
        return {c: data[c] for c in order}

    batch: list[Verified] = []
    empty = True
    for rows in instances:
        batch.extend(verify(rows, exact))
        if len(batch) >= CHUNK:
            yield batch_of(batch)
            batch, empty = [], False
    if batch or empty:
        yield batch_of(batch)


def _mean_abs(values: Any) -> str:
    import numpy as np

    values = values[~np.isnan(values)]
    return format(float(np.abs(values).mean()), ".4g") if len(values) else "-"


def summary(table: Any, computed: dict[str, int] | None = None) -> str:
    """Per algorithm (in the table's order): rows the cell holds, rows computed now (``computed``,
    by label; omitted when None), rows verified ``ok``, median nodes and leaves, percent of
    expectimax's leaves (mean over the instances where both searches finished, with its standard
    error), median CPU seconds.  ``table``: the ``SUMMARY_COLUMNS`` by name, each a list (what
    ``tablefile.write_table`` returns)."""
    import numpy as np

    from starbench.ground.textable import text_table

    if not table["status"]:
        return "(no rows)"

    def numbers(name: str) -> Any:
        return np.array([v if present(v) else np.nan for v in table[name]], np.float64)

    status = np.array(table["status"], dtype=object)
    instance = np.array(table["instance"])
    nodes, leaves = numbers("nodes"), numbers("leaves")
    # CPU time: wall time on a shared machine is mostly the others' load (tables before the
    # cpu_seconds column: wall)
    seconds = numbers("cpu_seconds") if table.get("cpu_seconds") else numbers("seconds")
    finished = np.isin(status, ["ok", "unverified", "mismatch", "approx"])
    algorithm = table["algorithm"]
    no_table = np.array([not (present(t) and t) for t in table.get("tt") or [None] * len(status)])
    is_ex = finished & (np.array(algorithm, dtype=object) == "expectimax") & no_table
    ex = dict(zip(instance[is_ex].tolist(), leaves[is_ex].tolist(), strict=True))
    ex_leaves = np.array([ex.get(i, np.nan) for i in instance.tolist()])
    groups: dict[str, list[int]] = {}
    none = [None] * len(algorithm)
    names = KEY_PARAMS
    columns = [table.get(c) or none for c in names]
    for i, a in enumerate(algorithm):
        row = {"algorithm": a, **{c: col[i] for c, col in zip(names, columns, strict=True)}}
        groups.setdefault(label(row), []).append(i)
    now = () if computed is None else ("computed now",)
    header = ("algorithm", "rows", *now, "ok", "median nodes", "median leaves")
    # decision quality, where an oracle scored the rows (``oracles.decisions``)
    optimal = table.get("decision_optimal") or none
    regret = table.get("regret") or none
    scored = [i for i, o in enumerate(optimal) if present(o)]
    quality = ("% optimal [95% CI]", "mean regret [95% CI]") if scored else ()
    # every scored row an exact search that chose an optimal move: the columns cannot vary
    constant = bool(scored) and all(
        status[i] != "approx" and bool(optimal[i]) and not (present(regret[i]) and float(regret[i]))
        for i in scored
    )
    if constant:
        quality = ()
    error = numbers("value_error") if table.get("value_error") else np.full(len(status), np.nan)
    inexact = ("approx", "mean |value error|") if (status == "approx").any() else ()
    lines = [(*header, *inexact, "% expectimax leaves (mean ± SE)", "median CPU s", *quality)]

    def median(values: Any, fmt: str) -> str:
        values = values[~np.isnan(values)]
        return format(float(np.median(values)), fmt) if len(values) else "-"

    for name, idx in groups.items():
        at = np.array(idx)
        ok = finished[at] & (ex_leaves[at] > 0) & ~np.isnan(leaves[at])
        pcts = 100.0 * leaves[at][ok] / ex_leaves[at][ok]
        pct = "-"
        if len(pcts):
            se = pcts.std(ddof=1) / math.sqrt(len(pcts)) if len(pcts) > 1 else 0.0
            pct = f"{pcts.mean():.1f} ± {se:.1f}"
        lines.append(
            (
                name,
                str(len(idx)),
                *(() if computed is None else (str(computed.get(name, 0)),)),
                str(int((status[at] == "ok").sum())),
                median(nodes[at], ".0f"),
                median(leaves[at], ".0f"),
                *(
                    (
                        str(int((status[at] == "approx").sum())),
                        _mean_abs(error[at]),
                    )
                    if inexact
                    else ()
                ),
                pct,
                median(seconds[at], ".3g"),
                *(
                    quality_text(
                        [optimal[i] for i in idx if present(optimal[i])],
                        [regret[i] for i in idx if present(optimal[i])],
                    )
                    if quality
                    else ()
                ),
            )
        )
    text = text_table(lines)
    shown = [str(line[0]) for line in lines[1:]]
    if any("after_probe=" in label for label in shown):
        text += (
            "\n(after_probe: what Star2 does with a probed outcome after its probe phase: resume "
            "its search where the probe stopped (Ballard's), or research it from the start)"
        )
    if quality:
        text += (
            f"\n(decision quality: {len(scored)} rows scored by an exact oracle; regret in the "
            f"oracle's units: docs/guide/oracles.md)"
        )
    elif constant:
        text += (
            f"\n(decision quality: not shown: the {len(scored)} rows an exact oracle scored are "
            f"all exact searches, which choose an optimal move by construction (100 % optimal, "
            f"regret 0 in every row); it varies only where an inexact search (status approx) is "
            f"run: docs/guide/oracles.md)"
        )
    return text
