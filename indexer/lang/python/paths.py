"""Python's path rules: which files are tests, and the dotted module of a path."""

from __future__ import annotations

_TEST_DIRS = frozenset({"tests", "test", "testing"})


def is_test_path(path: str) -> bool:
    *dirs, name = path.split("/")  # an index path: relative, "/"-separated, normalised
    if (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or name == "tests.py"
    ):
        return True
    return not _TEST_DIRS.isdisjoint(dirs)  # (any test folder among them)


def module_name(path: str, package_dirs: frozenset[str]) -> str:
    """Dotted module of a .py path.

    `package_dirs` holds every folder (posix, relative) that has an `__init__.py`.
    The module path runs from the outermost package above the file, so a folder
    without `__init__.py` inside a package is a namespace subpackage
    (`flask/sansio/app.py` -> `flask.sansio.app`), while folders above the
    outermost package (`src/`, `lib/`) are source roots and not part of the name.
    """
    *folders, name = path.split("/")  # an index path: relative, "/"-separated, normalised
    dot = name.rfind(".")
    stem = name[:dot] if dot > 0 and name[dot:] in (".py", ".pyi") else name
    top = None  # index of the outermost package folder
    for i in range(len(folders)):
        if "/".join(folders[: i + 1]) in package_dirs:
            top = i
            break
    parts = folders[top:] if top is not None else []
    if stem != "__init__":
        parts.append(stem)
    return ".".join(parts)
