"""The floors of ``src/``: every import runs down or sideways, never up, and no file imports
itself back through others.

Every file of ``src/`` is on one floor (``FLOORS``, lowest first; ``docs/development.md`` says
what each one does).  An import, wherever it is written (at the top of a file or inside a
function), may reach its own floor or a lower one; an import that reaches a higher floor fails
here, as does an import cycle among files, a file no floor names, and a floor list that has
gone stale.  The walk reads the source (``ast``), so it sees imports that only run inside
functions, and resolves relative imports; a package's ``__init__`` importing its own submodules
is not counted.
"""

from __future__ import annotations

import ast
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"

#: The floors, lowest first: (name, the modules on it; a name ending in ``.*`` is a package's
#: every module, ``__init__`` included).  A module takes the floor of its longest pattern.
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ground", ("starbench.errors", "starbench.ground.*")),
    ("trees", ("starbench.trees.*",)),
    ("search", ("starbench.search.*",)),
    ("games", ("starbench.games.*",)),
    ("oracles", ("starbench.oracles.*",)),
    ("engines", ("starbench.compiled.*", "starbench.engines")),
    ("record", ("starbench.record.*",)),
    ("experiment", ("starbench.experiment.*",)),
    ("analysis", ("starbench.analysis.*",)),
    ("external", ("starbench.external.*",)),
    ("commands", ("starbench.commands.*", "hydra_plugins.*")),
    ("public", ("starbench", "starbench.results", "starbench.__main__", "starbench.run")),
    ("examples", ("starbench.examples.*",)),
)

#: The folders a floor of its own (``FLOORS``), each a package of ``src/starbench``: the layout
#: test below checks the package's top and the folders' sizes against the issue's bounds.
MAX_LOOSE = 12  # modules at the package top
MAX_PER_FOLDER = 14  # modules per folder, ``__init__`` included; ``search/`` is exempt


@dataclass(frozen=True)
class Import:
    """One import of one of our modules by another: where it is written and what it reaches."""

    module: str
    line: int
    target: str
    in_function: bool


def modules(src: Path = SRC) -> dict[str, Path]:
    """Every module under ``src`` by dotted name (a package by its ``__init__``)."""
    out = {}
    for path in sorted(src.rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(known: dict[str, Path], name: str, node: ast.AST) -> list[str]:
    """The modules of ours an import statement reaches (the longest known prefix of each)."""
    is_package = known[name].name == "__init__.py"
    wanted: list[str] = []
    if isinstance(node, ast.Import):
        wanted = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            parts = name.split(".")
            if not is_package:
                parts = parts[:-1]
            parts = parts[: len(parts) - (node.level - 1)]
            base = ".".join([*parts, *([base] if base else [])])
        wanted = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
    out = []
    for text in wanted:
        parts = text.split(".")
        while parts and ".".join(parts) not in known:
            parts.pop()
        if parts:
            out.append(".".join(parts))
    return out


def imports(src: Path = SRC) -> list[Import]:
    """Every import of one module of ours by another under ``src``, inside functions too."""
    known = modules(src)
    found = []
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inner = {
            id(sub)
            for fn in ast.walk(tree)
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            for sub in ast.walk(fn)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for target in _resolve(known, name, node):
                own_package = known[name].name == "__init__.py" and target.startswith(name + ".")
                if target != name and not own_package:
                    found.append(Import(name, node.lineno, target, id(node) in inner))
    return found


def floor_of(module: str) -> int | None:
    """The floor of ``module`` (its longest matching pattern), or None."""
    best: tuple[int, int] | None = None  # (pattern length, floor)
    for floor, (_name, patterns) in enumerate(FLOORS):
        for pattern in patterns:
            package = pattern.removesuffix(".*")
            matches = (
                module == package or module.startswith(package + ".")
                if pattern.endswith(".*")
                else module == pattern
            )
            if matches and (best is None or len(package) > best[0]):
                best = (len(package), floor)
    return None if best is None else best[1]


def upward(found: list[Import]) -> list[str]:
    """The imports that reach a higher floor, one line each."""
    out = []
    for i in found:
        mine, theirs = floor_of(i.module), floor_of(i.target)
        if mine is not None and theirs is not None and theirs > mine:
            where = " (inside a function)" if i.in_function else ""
            out.append(
                f"{i.module}:{i.line} ({FLOORS[mine][0]}) imports {i.target} "
                f"({FLOORS[theirs][0]}){where}"
            )
    return out


def cycles(found: list[Import]) -> list[list[str]]:
    """The import cycles among files (strongly connected components of more than one file)."""
    graph: dict[str, set[str]] = {}
    for i in found:
        graph.setdefault(i.module, set()).add(i.target)
        graph.setdefault(i.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_every_module_is_on_one_floor():
    unplaced = [m for m in modules() if floor_of(m) is None]
    assert not unplaced, f"modules on no floor (add them to FLOORS): {unplaced}"


def test_every_floor_pattern_names_a_module():
    known = modules()
    stale = [
        p
        for _name, patterns in FLOORS
        for p in patterns
        if not any(floor_of(m) is not None and (m == p or m.startswith(p[:-1])) for m in known)
    ]
    assert not stale, f"FLOORS names modules that do not exist: {stale}"


def test_no_import_runs_upward():
    bad = upward(imports())
    assert not bad, "imports that reach a higher floor:\n" + "\n".join(bad)


def test_no_import_cycle_among_files():
    found = cycles(imports())
    assert not found, f"import cycles: {found}"


def test_the_console_script_points_at_the_top():
    """``starbench`` (the console script) is on the commands floor: nothing below may import
    it."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module = scripts["starbench"].split(":")[0]
    assert FLOORS[floor_of(module)][0] == "commands"  # type: ignore[index]


@pytest.mark.parametrize(
    ("where", "planted"),
    [
        ("starbench/errors.py", "\n\ndef _late():\n    from starbench.commands.cli import main\n"),
        ("starbench/trees/protocol.py", "\nimport starbench.engines\n"),
        ("starbench/record/storage.py", "\nfrom starbench.experiment import runner\n"),
    ],
)
def test_a_planted_upward_import_fails(tmp_path, where, planted):
    """The check itself: an upward import planted in a copy of ``src/`` (inside a function
    too) is found, naming the file, both floors and the line."""
    import shutil

    copy = tmp_path / "src"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__"))
    path = copy / where
    path.write_text(path.read_text() + planted)
    bad = upward(imports(copy))
    assert len(bad) == 1, bad
    module = where.removesuffix(".py").replace("/", ".")
    assert bad[0].startswith(f"{module}:")


def test_a_planted_cycle_is_found(tmp_path):
    import shutil

    copy = tmp_path / "src"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__"))
    path = copy / "starbench" / "ground" / "limits.py"
    path.write_text(path.read_text() + "\n\ndef _late():\n    import starbench.ground.textable\n")
    other = copy / "starbench" / "ground" / "textable.py"
    other.write_text(other.read_text() + "\n\ndef _back():\n    import starbench.ground.limits\n")
    assert ["starbench.ground.limits", "starbench.ground.textable"] in cycles(imports(copy))


def _module_containers(path: Path) -> list[str]:
    """Module-level names bound to a list, dict or set (a literal, a comprehension or a call of
    ``list``/``dict``/``set``/``defaultdict``): state a module's calls could mutate."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if value is None:
            continue
        container = isinstance(
            value, ast.List | ast.Dict | ast.Set | ast.ListComp | ast.DictComp | ast.SetComp
        ) or (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in ("list", "dict", "set", "defaultdict", "OrderedDict")
        )
        if container:
            found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    return found


def test_the_hydra_entry_and_plugins_keep_no_module_state():
    """The module that calls ``hydra.main`` and the Hydra plugins hold no module-level list,
    dict or set: what a launch learns lives in its task (``starbench.commands.run.Task``)."""
    entry = SRC / "starbench" / "commands" / "run.py"
    paths = [entry, *sorted((SRC / "hydra_plugins").rglob("*.py"))]
    found = [hit for p in paths for hit in _module_containers(p)]
    assert not found, f"module-level containers: {found}"
    assert "hydra.main(" in entry.read_text()


def _py(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.py"))


def test_the_folders_spell_the_pipeline():
    """At most ``MAX_LOOSE`` modules at the package top, at most
    ``MAX_PER_FOLDER`` in any folder but ``search/`` (one module per algorithm), every folder
    a floor of its own, and the journal's checksums apart from the runner's loop."""
    top = SRC / "starbench"
    assert len(_py(top)) <= MAX_LOOSE, _py(top)
    for folder in sorted(p for p in top.iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        if folder.name != "search":
            assert len(_py(folder)) <= MAX_PER_FOLDER, (folder.name, _py(folder))
        assert floor_of(f"starbench.{folder.name}") is not None, folder.name
    assert (top / "record" / "integrity.py").exists() and (
        top / "experiment" / "stages.py"
    ).exists()


def test_no_import_finder_and_python_m_starbench_run_runs(tmp_path):
    """No module of starbench installs a ``sys.meta_path`` finder (the old paths' alias finder
    is gone: it overwrote the real modules' ``__spec__``), and ``python -m starbench.run``, the
    Hydra app's documented path, still runs."""
    import importlib
    import subprocess
    import sys

    import starbench

    top = Path(starbench.__file__).parent
    for path in top.rglob("*.py"):
        assert "meta_path" not in path.read_text(), path
    before = list(sys.meta_path)
    importlib.reload(starbench)
    assert sys.meta_path == before
    p = subprocess.run(
        [sys.executable, "-m", "starbench.run", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0 and "starbench run" in p.stdout, p.stderr


def test_every_jitted_module_keys_the_numba_cache():
    """Every module with a jitted function is among the sources whose digest names numba's
    cache folder (``ground.caches.COMPILED_SOURCES``): an edit of any of them compiles afresh,
    never loads a kernel with its old code compiled in."""
    from starbench.ground.caches import COMPILED_SOURCES

    package = SRC / "starbench"
    jitted = {
        f.relative_to(package).as_posix()
        for f in package.rglob("*.py")
        if "@njit" in f.read_text(encoding="utf-8") or "@overload" in f.read_text(encoding="utf-8")
    }
    covered = {
        j
        for j in jitted
        if any(j == s or j.startswith(s.rstrip("/") + "/") for s in COMPILED_SOURCES)
    }
    assert jitted and jitted == covered, sorted(jitted - covered)
