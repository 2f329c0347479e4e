"""Runnable test ids of C#, Ruby, PHP, Kotlin, Swift and Dart (see test_ids.py): the
command each ecosystem's runner takes to run one test, as small as its convention allows.

- csharp: `dotnet test --filter "FullyQualifiedName~Ns.Class.Method"` (a class's filter
  for code in a test class that is not a method);
- ruby: minitest `ruby -Itest test/x_test.rb -n test_y` for a `test_*` method, an RSpec
  spec file `rspec spec/x_spec.rb` (examples are blocks, not symbols: the file runs them);
- php: `phpunit --filter 'CartTest::testAdd' tests/CartTest.php` for a `test*` method;
- kotlin: `gradle test --tests 'com.x.CartTest.adds'` for a method of a class;
- swift: `swift test --filter 'ShopTests.CartTests/testAdd'` (the test target is the
  folder under Tests/) for a `test*` method;
- dart: `dart test test/x_test.dart --name '^group test( |$)'` for a package:test block
  (a group's id runs its tests), the file for anything else.

Anything else is the test file, as the runner's own unit (expand: the exact tests inside
are listed instead when the index knows them).
"""

from __future__ import annotations

import posixpath
import re
import shlex

from codeimpact.indexer.resolved import strip_dup
from codeimpact.indexer.test_ids import RunId, TestSymbol


def _parts(local: str) -> list[str]:
    return strip_dup(local).split(".") if local else []


def _key(path: str) -> tuple[str, ...]:
    return tuple(p for p in path.split("/") if p and p != ".")


def file_id(t: TestSymbol, command: str = "") -> RunId:
    """The test file (with the runner's command before it when it needs one)."""
    run = f"{command} {shlex.quote(t.file)}" if command else t.file
    return RunId(run, _key(t.file), False, t.file, expand=True)


def _method(t: TestSymbol) -> tuple[list[str], str] | None:
    """(enclosing classes, method name) of a method, else None."""
    parts = _parts(t.local)
    if t.kind != "method" or len(parts) < 2:
        return None
    return parts[:-1], parts[-1]


def dotnet_id(t: TestSymbol) -> RunId:
    parts = _parts(t.local)
    qn = strip_dup(t.qualified_name)
    if _method(t) is not None or t.kind == "class":
        run = f'dotnet test --filter "FullyQualifiedName~{qn}"'
        exact = t.kind == "method"
        return RunId(run, (*_key(t.file), *parts), exact, t.file, expand=not exact)
    return file_id(t)


def ruby_id(t: TestSymbol) -> RunId:
    name = posixpath.basename(t.file)
    if name.endswith("_spec.rb"):
        return RunId(f"rspec {shlex.quote(t.file)}", _key(t.file), True, t.file)
    m = _method(t)
    if m is not None and m[1].startswith("test_"):
        folder = t.file.split("/")[0] if "/" in t.file else "."
        run = f"ruby -I{folder} {shlex.quote(t.file)} -n {m[1]}"
        return RunId(run, (*_key(t.file), *m[0], m[1]), True, t.file)
    return file_id(t, f"ruby -I{t.file.split('/')[0] if '/' in t.file else '.'}")


def phpunit_id(t: TestSymbol) -> RunId:
    m = _method(t)
    if m is not None and m[1].startswith("test"):
        run = f"phpunit --filter {shlex.quote(f'{m[0][-1]}::{m[1]}')} {shlex.quote(t.file)}"
        return RunId(run, (*_key(t.file), *m[0], m[1]), True, t.file)
    return file_id(t, "phpunit")


def gradle_id(t: TestSymbol) -> RunId:
    m = _method(t)
    if m is not None:
        run = f"gradle test --tests {shlex.quote(strip_dup(t.qualified_name))}"
        return RunId(run, (*_key(t.file), *m[0], m[1]), True, t.file)
    return file_id(t)


def swift_id(t: TestSymbol) -> RunId:
    m = _method(t)
    parts = t.file.split("/")
    target = parts[parts.index("Tests") + 1] if "Tests" in parts[:-2] else ""
    if m is not None and m[1].startswith("test") and target:
        run = f"swift test --filter {shlex.quote(f'{target}.{m[0][-1]}/{m[1]}')}"
        return RunId(run, (*_key(t.file), *m[0], m[1]), True, t.file)
    return file_id(t)


def dart_id(t: TestSymbol) -> RunId:
    """A package:test block is named by its description inside the function declaring it
    (`main.Cart.adds`: the test `Cart adds`; a `.` in a description is stored as `_`)."""
    parts = _parts(t.local)
    if len(parts) < 2 or t.kind != "function":
        return file_id(t, "dart test")
    words = [re.escape(p).replace("\\ ", " ").replace("_", "[._]") for p in parts[1:]]
    pattern = f"^{' '.join(words)}( |$)"
    run = f"dart test {shlex.quote(t.file)} --name {shlex.quote(pattern)}"
    return RunId(run, (*_key(t.file), *parts[1:]), True, t.file)


RUN_IDS = {"csharp": dotnet_id, "ruby": ruby_id, "php": phpunit_id, "kotlin": gradle_id,
           "swift": swift_id, "dart": dart_id}  # fmt: skip
