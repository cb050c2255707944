"""ChanceProbCut's calibration model: the linear lines v_deep ~ a v_shallow + b a search reads.

What a ChanceProbCut search reads and checks (this module); the fitting that makes a
calibration (``starbench calibrate``) is ``starbench.experiment.calibrate``, a floor above.

``starbench calibrate`` draws positions of a tree model with the run's generator but a seed of
its own (default: the run's seed + 10^6), and at every chance node of each position's sampled
path with D >= r decision plies below it, searches each outcome twice: deep (to its full depth)
and shallow (to D - r plies, its horizon valued by the static values; ``starbench.trees.
horizon``), both by Star2 with the full window, exact.  Per depth pair (D, D - r) an ordinary
least-squares line through the (shallow, deep) pairs gives a, b, the residual standard deviation
s (n - 2 degrees of freedom; 0 when every point lies on the line, stored and said) and R^2.

A position: instance i of the model under the calibration's seed; its path starts at the root
and goes to a child drawn by a generator seeded with (seed, i) at every node, so every chance
level contributes one chance node per position (a chance node of more than ``MAX_OUTCOMES``
outcomes, a game's set-up, none).

The file, ``<digest>.json`` (``FORMAT``): the model (the tree's parameters without ``depth``:
what a cell must match), the depth it was drawn at, ``r``, the sampler, seed, positions,
starbench's version, and the fits by depth D (``{"n", "a", "b", "s", "r2"}``); the digest is the
first 12 hex digits of the SHA-256 of the file's canonical JSON without it.  ``cal=<digest>``
finds it in ``$STARBENCH_CALIBRATIONS``, in ``calibrations/`` beside the experiments (the
run's ``-cd`` folder, handed down as ``config_dir``, then starbench's ``conf/``) or in
``calibrations/`` of the working folder (``folders``).  A calibration matches a tree when the
model's parameters equal the tree's except depth, its seed is not the tree's, it was fitted with
the search's ``r`` and it covers every depth D >= r of the tree's chance nodes; otherwise the
search is refused, naming the first difference.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starbench.errors import InputError
from starbench.ground.configs import conf_dir

FORMAT = "starbench chanceprobcut calibration"
VERSION = 1
#: Where ``cal=<digest>`` is looked for besides ``$STARBENCH_CALIBRATIONS``.
FOLDER = "calibrations"
ENV = "STARBENCH_CALIBRATIONS"
#: The seed offset of a calibration's positions from the run's seed.
SEED_OFFSET = 10**6
SAMPLER = "random path (one chance node per chance level and position)"


@dataclass(frozen=True)
class Fit:
    n: int
    a: float
    b: float
    s: float
    r2: float


@dataclass(frozen=True)
class Calibration:
    model: dict[str, Any]
    depth: int
    r: int
    seed: int
    positions: int
    version: str
    fits: dict[int, Fit]

    def body(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": VERSION,
            "model": self.model,
            "depth": self.depth,
            "r": self.r,
            "sampler": SAMPLER,
            "seed": self.seed,
            "positions": self.positions,
            "starbench_version": self.version,
            "fits": {
                str(d): {"n": f.n, "a": f.a, "b": f.b, "s": f.s, "r2": f.r2}
                for d, f in sorted(self.fits.items())
            },
        }

    @property
    def digest(self) -> str:
        text = json.dumps(self.body(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def lines(self) -> dict[int, tuple[float, float, float]]:
        """(a, b, s) by depth D."""
        return {d: (f.a, f.b, f.s) for d, f in self.fits.items()}

    def check(self, tree: Any, r: int) -> None:
        """Refuse (InputError naming the first difference) unless this calibration serves
        ``tree`` searched with ``r``."""
        spec = getattr(tree, "spec", None)
        if spec is None:
            raise InputError(
                f"cal={self.digest}: calibrations serve random regular trees and game cells"
            )
        self.check_spec(spec, getattr(tree, "seed", None), r)

    def check_spec(self, spec: Any, seed: Any, r: int) -> None:
        """``check`` for a cell's tree parameters (a ``RegularTreeSpec`` or ``GameSpec``) and
        seed; ``seed`` None for a match's searches, whose positions come from its play: then
        neither the seed nor where the calibration's positions were drawn (``DRAWN_FROM``) is
        compared."""
        mine = model_of(spec)
        skip = set(DRAWN_FROM) if seed is None else set()
        for key in sorted((set(mine) | set(self.model)) - skip):
            if mine.get(key) != self.model.get(key):
                raise InputError(
                    f"cal={self.digest}: made for tree.{key}={self.model.get(key)!r}, the tree "
                    f"has {mine.get(key)!r}"
                )
        if self.r != r:
            raise InputError(f"cal={self.digest}: fitted for r={self.r}, the search has r={r}")
        if seed == self.seed:
            raise InputError(
                f"cal={self.digest}: drawn with seed {self.seed}, the cell's own seed: calibrate "
                f"on other positions (starbench calibrate's default seed is the run's + "
                f"{SEED_OFFSET})"
            )
        missing = [d for d in chance_depths(spec) if d >= r and d not in self.fits]
        if missing:
            raise InputError(
                f"cal={self.digest}: covers depths {sorted(self.fits)}, the tree has chance "
                f"nodes at depth {missing[0]} (calibrate at tree.depth={spec.depth})"
            )


#: the tree parameters that say where a calibration's positions were drawn, not what is
#: searched: compared for a cell (its positions come from the same sampler), not for a match
DRAWN_FROM = ("sampler",)


def model_of(spec: Any) -> dict[str, Any]:
    """The tree parameters a calibration must match: all but ``depth`` (a game's: its
    identity, the game string, heuristic (the game's default named), sampler and the rest, but
    ``depth``, ``iterative`` and the game library's version)."""
    if hasattr(spec, "normalised"):
        d = spec.normalised().as_dict()
    else:
        d = spec.identity()
        for key in ("iterative", "version"):  # the game library's version is not compared
            d.pop(key, None)
        d["heuristic"] = spec.heuristic_name()
    d.pop("depth", None)
    return {
        k: (v if isinstance(v, (int, float, str, bool)) or v is None else str(v))
        for k, v in d.items()
    }


def chance_depths(spec: Any) -> list[int]:
    """D (decision plies below) of every chance level of the spec's trees; a game's chance
    nodes below its root's move may come at every depth below the root's (1 .. depth - 1)."""
    if not hasattr(spec, "level_kinds"):
        return list(range(1, spec.depth))
    kinds = spec.level_kinds
    out = []
    for level, kind in enumerate(kinds):
        if kind.name == "CHANCE":
            out.append(sum(1 for k in kinds[level + 1 :] if k.name != "CHANCE"))
    return out


def from_json(obj: dict[str, Any]) -> Calibration:
    if obj.get("format") != FORMAT:
        raise InputError(f"not a calibration file (format {obj.get('format')!r})")
    return Calibration(
        model=dict(obj["model"]),
        depth=int(obj["depth"]),
        r=int(obj["r"]),
        seed=int(obj["seed"]),
        positions=int(obj["positions"]),
        version=str(obj["starbench_version"]),
        fits={int(d): Fit(**f) for d, f in obj["fits"].items()},
    )


def folders(config_dir: str | Path | None = None) -> list[Path]:
    """Where ``cal=DIGEST`` is looked for, in order: ``$STARBENCH_CALIBRATIONS``;
    ``calibrations/`` beside the experiments of the run's own config folder (``config_dir``:
    ``-cd DIR``) and of starbench's ``conf/`` (the committed studies'); ``calibrations/`` of the
    working folder."""
    env = os.environ.get(ENV)
    out = [Path(env)] if env else []
    if config_dir:
        out.append(Path(config_dir) / FOLDER)
    out += [conf_dir() / FOLDER, Path(FOLDER)]
    return out


def load(digest: str, config_dir: str | Path | None = None) -> Calibration:
    """The calibration ``digest`` from the first of ``folders(config_dir)`` that holds it."""
    text = str(digest).strip()
    if len(text) != 12 or any(c not in "0123456789abcdef" for c in text):
        raise InputError(f"chanceprobcut: cal must be a 12-hex-digit digest, got {digest!r}")
    return _read(text, tuple(str(f) for f in folders(config_dir)))


@functools.lru_cache(maxsize=64)
def _read(text: str, where: tuple[str, ...]) -> Calibration:
    """The calibration file ``text``.json from the first folder of ``where`` (remembered per
    digest and folders: a file is named by its content's digest, so a search made per tree or
    per move reads it once)."""
    for folder in map(Path, where):
        path = folder / f"{text}.json"
        if path.is_file():
            try:
                cal = from_json(json.loads(path.read_text()))
            except (ValueError, KeyError, TypeError) as e:
                raise InputError(f"{path}: not a readable calibration ({e})") from None
            if cal.digest != text:
                raise InputError(f"{path}: its content's digest is {cal.digest}, not {text}")
            return cal
    raise InputError(f"chanceprobcut: cal={text}: no {text}.json in {' or '.join(map(str, where))}")


def check_request(
    params: dict[str, Any], spec: Any, seed: Any, config_dir: str | Path | None = None
) -> Calibration | None:
    """A ChanceProbCut request (its resolved ``r``, ``t``, ``cal``) against the tree parameters
    of a cell or a match player (a ``RegularTreeSpec`` or ``GameSpec``) and their seed, before
    anything runs: ``r`` at most the deepest chance node's depth and, with a finite ``t``,
    static values (a random tree's incremental model; a game's heuristic) and a calibration
    that matches (InputError naming what is wrong).  Returns the calibration a finite ``t``
    reads (looked for in ``folders(config_dir)``), else None."""
    r, t = int(params["r"]), float(params["t"])
    depths = chance_depths(spec)
    if not depths or r > max(depths):
        raise InputError(
            f"chanceprobcut: r must be at most the deepest chance node's depth "
            f"{max(depths or [0])} (decision plies below it; below tree.depth={spec.depth}), got "
            f"r={r}"
        )
    if not math.isfinite(t):
        return None
    model = getattr(spec, "value_model", "incremental")
    if model != "incremental":
        raise InputError(
            f"chanceprobcut with a finite t needs tree.value_model=incremental (its shallow "
            f"searches value their horizon by the path sum), got {model}"
        )
    return resolve_spec(params.get("cal") or None, spec, seed, r, config_dir)


def resolve(cal: Any, tree: Any, r: int) -> Calibration:
    """The checked calibration of a search: ``cal`` a Calibration (the runner hands down the
    one it loaded from the run's config folder) or a digest (looked for in ``folders()``)."""
    return resolve_spec(cal, getattr(tree, "spec", None), getattr(tree, "seed", 0), r)


def resolve_spec(
    cal: Any, spec: Any, seed: Any, r: int, config_dir: str | Path | None = None
) -> Calibration:
    """``resolve`` for a cell's tree parameters and seed (a digest looked for in
    ``folders(config_dir)``)."""
    if cal is None or cal == "":
        hint = (
            " ".join(
                [
                    "starbench calibrate",
                    f"--r {r}",
                    *overrides_of(spec),
                    *([f"seed={seed}"] if seed else []),
                ]
            )
            if spec is not None
            else "starbench calibrate"
        )
        raise InputError(
            f"chanceprobcut: t is finite, so it needs a calibration (cal=DIGEST); make one with: "
            f"{hint}"
        )
    c = cal if isinstance(cal, Calibration) else load(cal, config_dir)
    if spec is None:
        raise InputError(f"cal={c.digest}: calibrations serve random regular trees and game cells")
    c.check_spec(spec, seed, r)
    return c


def overrides_of(spec: Any) -> list[str]:
    """``tree.KEY=VALUE`` overrides of the spec's non-default parameters (for printed hints)."""
    from starbench.trees.regular import RegularTreeSpec

    if not hasattr(spec, "normalised"):  # a game
        keys = {k: v for k, v in spec.identity().items() if v is not None and k != "version"}
        return ["tree=game", *(f"tree.{k}={v}" for k, v in keys.items())]
    default = RegularTreeSpec().as_dict()
    always = ("branching", "chance_arity", "depth")
    return [
        f"tree.{k}={v}"
        for k, v in spec.as_dict().items()
        if (k in always or v != default.get(k)) and v is not None
    ]
