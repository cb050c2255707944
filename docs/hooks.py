"""MkDocs hooks: the pages generated at build time.

* ``reference/config.md``, ``reference/algorithms.md``, ``reference/columns.md``: from the code
  (``starbench.commands.reference``), so the reference cannot fall behind it;
* ``studies/<study>/README.md`` with its ``figures/*.png``: each committed study's README from
  ``experiments/<study>/``, its links to the documentation (``../../docs/PAGE``) rewritten to
  the site's pages.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]


def _studies() -> list[Path]:
    return sorted((ROOT / "experiments").glob("*/README.md"))


def on_config(config):  # noqa: ANN001, ANN201 - MkDocs' hook signature
    """The nav's ``Studies: studies.md`` becomes the overview and one page per study."""
    nav = config["nav"]
    for i, entry in enumerate(nav):
        if entry == {"Studies": "studies.md"}:
            pages = [{"Overview": "studies.md"}]
            pages += [{p.parent.name: f"studies/{p.parent.name}/README.md"} for p in _studies()]
            nav[i] = {"Studies": pages}
    return config


def on_files(files: Files, config) -> Files:  # noqa: ANN001 - MkDocs' hook signature
    from starbench.commands import reference
    for uri, page in reference.PAGES.items():
        files.append(File.generated(config, uri, content=page()))
    for readme in _studies():
        study = readme.parent.name
        text = readme.read_text(encoding="utf-8").replace("](../../docs/", "](../../")
        files.append(File.generated(config, f"studies/{study}/README.md", content=text))
        for figure in sorted((readme.parent / "figures").glob("*.png")):
            uri = f"studies/{study}/figures/{figure.name}"
            files.append(File.generated(config, uri, abs_src_path=str(figure)))
    return files
