"""Incremental == full for library hooks whose callee the caller never names: the change
plan must re-resolve the caller when any definition the hook may run changes."""

from __future__ import annotations

from test_incremental import assert_same_as_full, make, run

from codeimpact.query.index import Index
from conftest import write_files


def test_a_library_hook_over_every_repository_subclass_follows_edits_of_any(tmp_path):
    """`env.get_template()` on a jinja Environment runs the get_source of every repository
    subclass of jinja2.BaseLoader (lang/python/entrypoints.py `@` hooks): the caller names
    none of them, so adding, editing or re-basing a loader in another file must re-resolve
    it (lang/python/pytest_names.py implicit_names: the hook's callers use the names it
    runs). Without that, removing a get_source left render's edge to it dangling."""
    files = {
        "app/__init__.py": "",
        "app/env.py": "import jinja2\n\n\nclass Env(jinja2.Environment):\n    pass\n\n\n"
        "def render(env: Env):\n    return env.get_template('page.html')\n",
        "app/loaders.py": "import jinja2\n\n\nclass Loader(jinja2.BaseLoader):\n"
        "    def get_source(self, environment, template):\n        return '', None, None\n",
    }
    repo = make(tmp_path, files)

    def loaders_run():
        with Index.open(repo) as index:
            rows = index.cypher("MATCH (a:Symbol)-[c:CALLS]->(b:Symbol) WHERE a.uid = "
                                "'app/env.py::render' RETURN b.uid").rows  # fmt: skip
        return {r[0] for r in rows if r[0].endswith(".get_source")}

    assert loaders_run() == {"app/loaders.py::Loader.get_source"}
    other = files["app/loaders.py"].replace("Loader(", "Other(")
    edits = [
        ("app/more.py", other, {"app/loaders.py::Loader.get_source", "app/more.py::Other.get_source"}),
        ("app/loaders.py", files["app/loaders.py"].replace("get_source", "other"),
         {"app/more.py::Other.get_source"}),
        ("app/more.py", other.replace("(jinja2.BaseLoader)", ""), set()),
    ]  # fmt: skip
    for path, text, loaders in edits:
        write_files(repo, {path: text})
        assert run(repo).mode == "incremental"
        assert loaders_run() == loaders
        assert_same_as_full(repo, tmp_path)
