"""The runner identity names the resolvers: a changed resolver is a changed index.

Every language's resolver version and the digests of its queries and hooks, the engine's
version and code, the tree-sitter runtime and each grammar are components; `status --json`
lists all of them in `identity.components` and names those that differ from the index in
`identity.changed`; an analyze under a changed resolver rebuilds in full (an incremental run
would mix edges of two resolvers).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

import codeimpact
from codeimpact.cli import main
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.identity import component_changes, package_digest
from codeimpact.indexer.lang import LANGUAGES

ROOT = Path(codeimpact.__file__).resolve().parent.parent  # the checkout (editable install)
FILES = {"pkg/__init__.py": "", "pkg/a.py": "def f():\n    return 1\n"}


def status_json(repo, monkeypatch=None, override=None) -> dict:
    env = {"CODEIMPACT_IDENTITY_OVERRIDE": json.dumps(override)} if override else None
    res = CliRunner().invoke(main, ["status", "--json", str(repo)], env=env)
    assert res.exit_code in (0, 1), res.output
    return json.loads(res.stdout)


def test_status_lists_every_component(make_repo, index_repo):
    repo = make_repo(FILES)
    index_repo(repo)
    ident = status_json(repo)["identity"]
    comps = ident["components"]
    assert ident["current"] is True and ident["changed"] == []
    for lang in LANGUAGES:
        assert isinstance(comps[f"{lang}.resolve"], int)
        assert isinstance(comps[f"extractors.{lang}"], int)
        for digest in (f"{lang}.queries", f"{lang}.hooks", f"grammars.{lang}"):
            assert isinstance(comps[digest], str) and len(comps[digest]) >= 16, digest
    for name in ("tree_sitter", "tree_sitter_language_pack", "engine.version", "engine.code",
                 "kuzu", "schema", "facts_format", "interpreter", "config.max_file_size"):  # fmt: skip
        assert name in comps, name


def test_a_changed_resolver_is_named_and_rebuilds_in_full(make_repo, index_repo, monkeypatch):
    repo = make_repo(FILES)
    index_repo(repo)
    override = {"python.resolve": 99}
    ident = status_json(repo, override=override)["identity"]
    assert ident["current"] is False
    assert [c["component"] for c in ident["changed"]] == ["python.resolve"]
    assert ident["changed"][0]["current"] == 99 and ident["components"]["python.resolve"] == 99

    monkeypatch.setenv("CODEIMPACT_IDENTITY_OVERRIDE", json.dumps(override))
    (repo / "pkg/a.py").write_text("def f():\n    return 2\n")
    report = analyze(repo, IndexConfig(), RunOptions(workers=1))
    assert report.mode == "full" and report.reason == "runner identity changed"
    assert status_json(repo, override=override)["identity"]["current"] is True


def test_engine_code_is_a_component(make_repo, index_repo):
    repo = make_repo(FILES)
    index_repo(repo)
    ident = status_json(repo, override={"engine.code": "0" * 16})["identity"]
    assert [c["component"] for c in ident["changed"]] == ["engine.code"]


def test_a_component_group_that_came_is_named_member_by_member():
    old = {"tree_sitter": "0.25.0", "interpreter": "3.11"}
    new = {"tree_sitter": "0.25.0", "interpreter": "3.11", "engine": {"version": 1, "code": "ab"}}
    assert [c["component"] for c in component_changes(old, new)] == ["engine.code",
                                                                     "engine.version"]  # fmt: skip


def test_package_digest_covers_the_query_files():
    spec = LANGUAGES["python"]
    assert package_digest(spec.package, ".scm") != package_digest(spec.package, ".py")
    assert package_digest(LANGUAGES["tsx"].package, ".scm") == package_digest(
        LANGUAGES["typescript"].package, ".scm"
    )


# The languages whose extraction and resolution are the Java model's (java/model.py's
# helpers, java/resolve.py's JavaProject) under their own hooks.
JAVA_MODEL = {"csharp", "dart", "kotlin", "php", "ruby", "swift"}


def installed_with_own_lang(tmp: Path) -> Path:
    """The package laid out as installed, indexer/lang a copy (to be edited), the rest links."""
    pkg = tmp / "codeimpact"
    (pkg / "indexer").mkdir(parents=True)
    for entry in (ROOT / "codeimpact").iterdir():
        if entry.suffix == ".py":
            (pkg / entry.name).symlink_to(entry)
    for name in ("graph", "query", "native"):
        (pkg / name).symlink_to(ROOT / name, target_is_directory=True)
    for entry in (ROOT / "indexer").iterdir():
        if entry.name != "lang":
            (pkg / "indexer" / entry.name).symlink_to(entry)
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "indexer" / "lang", pkg / "indexer" / "lang", ignore=ignore)
    return tmp


def components_in(layout: Path) -> dict:
    code = (
        "import json, codeimpact.indexer.identity as i;"
        "from codeimpact.indexer.config import IndexConfig;"
        "print(json.dumps([i.__file__, i.flatten(i.components(IndexConfig()))]))"
    )
    env = {**os.environ, "PYTHONPATH": str(layout)}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=layout)  # fmt: skip
    assert res.returncode == 0, res.stderr
    where, comps = json.loads(res.stdout)
    assert where.startswith(str(layout))  # the copy ran, not the checkout
    return comps


def changed_by(layout: Path, module: str) -> set[str]:
    before = components_in(layout)
    path = layout / "codeimpact" / "indexer" / "lang" / module
    path.write_bytes(path.read_bytes() + b"\n# edited\n")
    after = components_in(layout)
    return {key for key in before if before[key] != after[key]}


def test_a_shared_module_edited_changes_every_language_that_uses_it(tmp_path):
    # the Java-model languages run java/resolve.py (and java/model.py) through their own
    # hooks: an edit there is an edit of their resolution, found from the imports
    layout = installed_with_own_lang(tmp_path)
    assert changed_by(layout, "java/resolve.py") == {"java.hooks"} | {
        f"{lang}.uses" for lang in JAVA_MODEL
    }
    assert changed_by(layout, "java/model.py") == {"java.hooks"} | {
        f"{lang}.uses" for lang in JAVA_MODEL
    }
    # Java's own extractor is Java's alone
    assert changed_by(layout, "java/extract.py") == {"java.hooks"}
    # the typed engine: every language on it, not Python, TypeScript or Rust
    typed = {"go", "java", "c", "cpp"} | JAVA_MODEL
    assert changed_by(layout, "engine/static.py") == {"engine.code"} | {
        f"{lang}.uses" for lang in typed
    }
    # a language's own module is its hooks, nobody else's
    assert changed_by(layout, "kotlin/extract.py") == {"kotlin.hooks"}


def test_the_identity_kept_beside_the_index_is_the_one_computed(tmp_path, monkeypatch):
    from codeimpact.indexer.identity import CACHE_NAME, components, runner_identity

    monkeypatch.delenv("CODEIMPACT_IDENTITY_OVERRIDE", raising=False)
    config = IndexConfig(languages=frozenset({"python", "go"}))
    first = runner_identity(config, tmp_path)
    assert (tmp_path / CACHE_NAME).is_file()
    assert runner_identity(config, tmp_path) == first == runner_identity(config)
    assert first[1] == components(config)
    # another configuration is another key: computed, not the kept one
    assert runner_identity(IndexConfig(), tmp_path) == runner_identity(IndexConfig())
    # the test override still applies over a kept identity
    monkeypatch.setenv("CODEIMPACT_IDENTITY_OVERRIDE", json.dumps({"python.resolve": 99}))
    assert runner_identity(IndexConfig(), tmp_path) == runner_identity(IndexConfig())
    assert runner_identity(IndexConfig(), tmp_path)[1]["python"]["resolve"] == 99


def test_a_kept_identity_is_taken_only_under_its_key(tmp_path, monkeypatch):
    from codeimpact.indexer.identity import CACHE_NAME, cache_key, runner_identity

    monkeypatch.delenv("CODEIMPACT_IDENTITY_OVERRIDE", raising=False)
    config = IndexConfig()
    kept = {"key": cache_key(config), "components": {"planted": 1}}
    (tmp_path / CACHE_NAME).write_text(json.dumps(kept))
    assert runner_identity(config, tmp_path)[1] == {"planted": 1}  # taken while the key holds
    kept["key"] = "0" * 64
    (tmp_path / CACHE_NAME).write_text(json.dumps(kept))
    assert runner_identity(config, tmp_path) == runner_identity(config)


def test_the_code_stamp_sees_a_changed_source_file(tmp_path):
    from codeimpact.indexer.identity import code_stamp

    pkg = tmp_path / "lang" / "python"
    pkg.mkdir(parents=True)
    (pkg / "resolve.py").write_text("RESOLVE_VERSION = 1\n")
    (pkg / "q.scm").write_text("(call)\n")
    (pkg / "__pycache__").mkdir()
    roots = (tmp_path / "lang",)
    before = code_stamp(roots)
    (pkg / "__pycache__" / "resolve.pyc").write_bytes(b"compiled")
    assert code_stamp(roots) == before  # compiled bytecode is no source
    st = (pkg / "resolve.py").stat()
    (pkg / "resolve.py").write_text("RESOLVE_VERSION = 2\n")
    os.utime(pkg / "resolve.py", ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert code_stamp(roots) != before
    (pkg / "new.py").write_text("")
    assert len(code_stamp(roots)) == len(before) + 1


def test_the_identity_key_stamps_the_code_of_every_language():
    from codeimpact.indexer import identity, lang
    from codeimpact.indexer.identity import lang_modules

    folder = os.path.dirname(lang.__file__)
    stamped = {p for p, _, _ in identity.code_stamp((identity.Path(folder),))}
    # every module and query file the components digest is under the stamped folder
    for name in lang_modules():
        rel = name.removeprefix("codeimpact.indexer.lang").lstrip(".").replace(".", "/")
        assert (
            os.path.join(folder, rel, "__init__.py") in stamped
            or os.path.join(folder, rel + ".py") in stamped
        ), name
    assert any(p.endswith(".scm") for p in stamped)


def test_a_new_index_has_its_identity_computed_beside_the_listing(make_repo, monkeypatch):
    # no identity kept yet: a forked child computes and keeps it while the files are listed
    # and scanned; the run takes the same components as computed here
    from codeimpact.indexer.fork_guard import FORKED
    from codeimpact.indexer.identity import CACHE_NAME, cache_key, components

    monkeypatch.delenv("CODEIMPACT_IDENTITY_OVERRIDE", raising=False)
    repo = make_repo(FILES)
    first = analyze(repo, IndexConfig(), RunOptions(workers=2))
    assert first.forks["runner identity"] == FORKED, first.forks
    kept = json.loads((repo / ".codeimpact" / CACHE_NAME).read_bytes())
    assert kept == {"key": cache_key(IndexConfig()), "components": components(IndexConfig())}
    assert status_json(repo)["identity"]["changed"] == []
    # kept: a forced build takes it, nothing is forked for it
    forced = analyze(repo, IndexConfig(), RunOptions(force=True, workers=2))
    assert forced.mode == "full" and "runner identity" not in forced.forks, forced.forks


def test_an_identity_the_child_did_not_keep_is_computed_by_the_run(tmp_path, monkeypatch):
    import signal

    from codeimpact.indexer.identity import CACHE_NAME, IdentitySoon, runner_identity

    monkeypatch.delenv("CODEIMPACT_IDENTITY_OVERRIDE", raising=False)
    config = IndexConfig(languages=frozenset({"python", "go"}))
    soon = IdentitySoon(config, tmp_path)
    proc = soon._job._proc  # the child, killed before it could keep anything (~0.1 s of work)
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()
    if proc.exitcode == 0:  # it finished first (this process was descheduled): as if killed
        (tmp_path / CACHE_NAME).unlink()
    assert proc.exitcode in (0, -signal.SIGKILL) and not (tmp_path / CACHE_NAME).exists()
    assert soon.result() == runner_identity(config)
    assert (tmp_path / CACHE_NAME).is_file()  # kept by the run instead
