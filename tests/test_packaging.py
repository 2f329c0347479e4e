"""A non-editable install (`pip install .`, the README's first command) ships only the packages
and data files pyproject.toml lists: an editable install hides a folder left off the list."""

from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _folders() -> dict[str, Path]:
    """Every package folder of the source tree, by the dotted name it installs as."""
    found = {}
    for name, folder in SETUPTOOLS["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found[".".join([name, *rel.parts])] = init.parent
    return found


def test_every_package_folder_is_listed():
    missing = sorted(set(_folders()) - set(SETUPTOOLS["packages"]))
    assert missing == [], f"pyproject.toml [tool.setuptools] packages lacks {missing}"


def test_every_query_file_is_shipped():
    data = SETUPTOOLS["package-data"]
    unshipped = sorted(
        name
        for name, folder in _folders().items()
        if any(folder.glob("*.scm")) and "*.scm" not in data.get(name, [])
    )
    assert unshipped == [], f"pyproject.toml package-data lacks *.scm of {unshipped}"
