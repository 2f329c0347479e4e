"""An edit's `git status` asks about the paths that can have changed (worktree.StatusProbe):
what it records must be what a whole `git status` says, whatever happened in between."""

from __future__ import annotations

import os

from codeimpact.indexer import worktree
from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.treesig import TreeSignature
from codeimpact.query.index import Index
from conftest import git

FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def f():\n    return 1\n",
    "pkg/b.py": "from pkg.a import f\n\ndef g():\n    return f()\n",
    **{f"pkg/m{i}.py": f"def m{i}():\n    return {i}\n" for i in range(12)},
}


def recorded(repo) -> tuple[dict, str]:
    """(the recorded dirty set, the scope of the status that made it), after checking the
    set against a whole `git status` of the tree now."""
    with Index.open(repo) as index:
        dirty = index.meta["dirty"]
        status = TreeSignature.from_text(index.meta["tree_signature"]).status
    assert dirty == worktree.scan(repo, IndexConfig()).dirty
    return dirty, status["scope"]


def edit(repo, index_repo, files: dict[str, str | None]) -> tuple[dict, str]:
    for rel, text in files.items():
        if text is None:
            (repo / rel).unlink()
        else:
            (repo / rel).write_text(text)
    assert index_repo(repo).mode == "incremental"
    return recorded(repo)


def test_an_edit_asks_git_about_the_paths_that_can_have_changed(make_repo, index_repo):
    repo = make_repo(FILES)
    assert index_repo(repo).mode == "full"
    assert recorded(repo) == ({}, "whole")

    dirty, scope = edit(repo, index_repo, {"pkg/a.py": "def f():\n    return 2\n"})
    assert (set(dirty), scope) == ({"pkg/a.py"}, "paths")
    # back to HEAD's content: asked again (the last status did not find it clean)
    assert edit(repo, index_repo, {"pkg/a.py": FILES["pkg/a.py"]}) == ({}, "paths")
    dirty, scope = edit(repo, index_repo, {"pkg/m3.py": None})
    assert (dirty, scope) == ({"pkg/m3.py": "-"}, "paths")
    assert edit(repo, index_repo, {"pkg/m3.py": FILES["pkg/m3.py"]}) == ({}, "paths")

    # every file's stat changed, none its content: git's index no longer matches any of them
    # (git hashes each file a whole status looks at); the next edit asks about its own file
    for rel in FILES:
        os.chmod(repo / rel, os.stat(repo / rel).st_mode)
    dirty, scope = edit(repo, index_repo, {"pkg/b.py": "def g():\n    return 0\n"})
    assert (set(dirty), scope) == ({"pkg/b.py"}, "paths")

    # git's index changed (a change staged): the whole tree is asked
    git(repo, "add", "pkg/m5.py", "pkg/b.py")
    dirty, scope = edit(repo, index_repo, {"pkg/m7.py": "def m7():\n    return 'x'\n"})
    assert (set(dirty), scope) == ({"pkg/b.py", "pkg/m7.py"}, "whole")
    git(repo, "commit", "-q", "-m", "b")
    dirty, scope = edit(repo, index_repo, {"pkg/m8.py": "def m8():\n    return 'y'\n"})
    assert (set(dirty), scope) == ({"pkg/m7.py", "pkg/m8.py"}, "whole")
    # only git's index changed: b.py's entry back to the older content, the file as it was
    git(repo, "reset", "-q", "HEAD~1", "--", "pkg/b.py")
    dirty, scope = edit(repo, index_repo, {"pkg/m6.py": "def m6():\n    return 'w'\n"})
    assert (set(dirty), scope) == ({"pkg/b.py", "pkg/m6.py", "pkg/m7.py", "pkg/m8.py"}, "whole")

    # HEAD moved and git's index did not (reset --soft): what the last status saw says
    # nothing of the files it did not list (those of the commit undone): the whole tree
    git(repo, "commit", "-q", "-am", "all")
    dirty, scope = edit(repo, index_repo, {"pkg/m2.py": "def m2():\n    return 'v'\n"})
    assert (set(dirty), scope) == ({"pkg/m2.py"}, "whole")
    git(repo, "reset", "-q", "--soft", "HEAD~1")
    dirty, scope = edit(repo, index_repo, {"pkg/m2.py": FILES["pkg/m2.py"]})
    assert (set(dirty), scope) == ({"pkg/m6.py", "pkg/m7.py", "pkg/m8.py"}, "whole")
    dirty, scope = edit(repo, index_repo, {"pkg/m9.py": "def m9():\n    return 'z'\n"})
    assert (set(dirty), scope) == ({"pkg/m6.py", "pkg/m7.py", "pkg/m8.py", "pkg/m9.py"}, "paths")


def test_a_path_with_pathspec_magic_is_asked_literally(make_repo, index_repo):
    # read as pathspecs, `:top.py` would be `top.py` (a magic prefix) and `pkg/m[12].py` a
    # pattern also matching m1.py and m2.py
    repo = make_repo({**FILES, ":top.py": "x = 1\n", "pkg/m[12].py": "y = 1\n"})
    index_repo(repo)
    dirty, scope = edit(repo, index_repo, {":top.py": "x = 2\n", "pkg/m[12].py": "y = 2\n"})
    assert (set(dirty), scope) == ({":top.py", "pkg/m[12].py"}, "paths")
