"""Where a C/C++ `#include` leads: a file of the repository, or outside it.

The search follows the compilers' order. `#include "x.h"` is looked up in the including
file's folder first, then in the include directories; `#include <x.h>` in the include
directories only. The include directories are those of `compile_commands.json` (every `-I`,
`-iquote`, `-isystem` of every entry, made relative to the repository), else the common
layouts: every folder named `include` (and `inc`), each `src` folder and the repository
root. An include that none of those hold is matched by its path's tail (`"util/log.h"` ->
the one `.../util/log.h` of the repository, the nearest to the includer when several are;
`<sqlite3.h>` -> deps/sqlite3/sqlite3.h): projects built with `-I` flags that no file
records still resolve. A standard header (`<stdio.h>`) never names a repository file, and
what is found nowhere is external. Everything here is a pure function of the paths and the
configs' text.
"""

from __future__ import annotations

import json
import posixpath
import shlex
from dataclasses import dataclass, field

# the C and POSIX headers a system include names: never a repository file of that name
STANDARD_HEADERS = frozenset(
    """assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h locale.h
    math.h setjmp.h signal.h stdalign.h stdarg.h stdatomic.h stdbool.h stddef.h stdint.h
    stdio.h stdlib.h stdnoreturn.h string.h tgmath.h threads.h time.h uchar.h wchar.h
    wctype.h unistd.h fcntl.h pthread.h dirent.h dlfcn.h poll.h sched.h semaphore.h
    strings.h syslog.h termios.h sys/types.h sys/stat.h sys/time.h sys/socket.h sys/mman.h
    sys/wait.h sys/ioctl.h sys/param.h sys/select.h sys/uio.h netinet/in.h arpa/inet.h
    netdb.h windows.h malloc.h memory.h io.h process.h""".split()
)
_FLAGS = ("-I", "-iquote", "-isystem", "-idirafter")
_DIR_NAMES = frozenset({"include", "inc", "src"})


def _flag_dirs(args: list[str]) -> list[str]:
    out = []
    it = iter(range(len(args)))
    for i in it:
        a = args[i]
        for flag in _FLAGS:
            if a == flag and i + 1 < len(args):
                out.append(args[i + 1])
                next(it, None)
            elif a.startswith(flag) and len(a) > len(flag):
                out.append(a[len(flag) :])
    return out


def compile_dirs(configs: dict[str, str], paths: set[str]) -> list[str]:
    """The include directories of the compile_commands.json files, relative to the
    repository (its root is found by matching an entry's `file` to a repository path)."""
    out: list[str] = []
    for cfg, body in sorted(configs.items()):
        if posixpath.basename(cfg) != "compile_commands.json":
            continue
        try:
            entries = json.loads(body)
        except ValueError:
            continue
        if not isinstance(entries, list):
            continue
        root = None
        for e in entries:
            if not isinstance(e, dict):
                continue
            directory = str(e.get("directory", ""))
            file = posixpath.normpath(posixpath.join(directory, str(e.get("file", ""))))
            if root is None:
                root = next((file[: -len(p)] for p in _tails(file) if p in paths), None)
            args = e.get("arguments")
            if not isinstance(args, list):
                try:
                    args = shlex.split(str(e.get("command", "")))
                except ValueError:
                    args = []
            for d in _flag_dirs([str(a) for a in args]):
                full = posixpath.normpath(posixpath.join(directory, d))
                if root is not None and (full + "/").startswith(root):
                    rel = full[len(root) :].strip("/")
                    if rel not in out:
                        out.append(rel)
    return out


def _tails(path: str):
    """The path and every tail of it after one of its slashes, longest first."""
    yield path
    pos = path.find("/")
    while pos >= 0:
        yield path[pos + 1 :]
        pos = path.find("/", pos + 1)


def layout_dirs(paths: set[str]) -> list[str]:
    """Include directories by the common layouts: `include`/`inc`/`src` folders, the root."""
    folders = {posixpath.dirname(p) for p in paths}
    found = set()
    for folder in folders:
        parts = folder.split("/")
        for i, part in enumerate(parts):
            if part in _DIR_NAMES:
                found.add("/".join(parts[: i + 1]))
    return sorted(found, key=lambda d: (d.count("/"), d)) + [""]


@dataclass
class IncludeResolver:
    """Resolves the includes of a project's files."""

    paths: set[str]
    dirs: list[str]
    by_tail: dict[str, list[str]] = field(default_factory=dict)
    # written -> where the include directories lead it: the same for every includer (the
    # kernel's 55,000 files include <linux/slab.h> and the like thousands of times each)
    _in_dirs: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def of(cls, paths, configs: dict[str, str]) -> IncludeResolver:
        paths = set(paths)
        dirs = compile_dirs(configs, paths) or layout_dirs(paths)
        by_tail: dict[str, list[str]] = {}
        for p in paths:
            by_tail.setdefault(posixpath.basename(p), []).append(p)
        return cls(paths, dirs, by_tail)

    def resolve(self, includer: str, written: str, system: bool) -> str | None:
        """The repository path an include names, or None (outside the repository)."""
        if not system:
            hit = self._in(posixpath.dirname(includer), written)
            if hit is not None:
                return hit
        hit = self._in_dirs.get(written, "")
        if hit == "":
            hit = self._in_dirs[written] = next(
                (h for d in self.dirs if (h := self._in(d, written)) is not None), None
            )
        if hit is not None:
            return hit
        if system and written in STANDARD_HEADERS:
            return None
        # `<sqlite3.h>` built with `-Ideps/sqlite3`, which no file of the repository records
        return self._by_tail(includer, written)

    def _in(self, folder: str, written: str) -> str | None:
        p = posixpath.normpath(posixpath.join(folder, written)) if folder else written
        p = posixpath.normpath(p)
        return p if p in self.paths else None

    def _by_tail(self, includer: str, written: str) -> str | None:
        tail = posixpath.normpath(written).lstrip("./")
        cands = [
            p
            for p in self.by_tail.get(posixpath.basename(tail), ())
            if p == tail or p.endswith("/" + tail)
        ]
        if not cands:
            return None
        # the nearest to the includer: the longest common folder prefix, then the shortest path
        here = includer.split("/")

        def nearness(p: str):
            parts = p.split("/")
            common = 0
            for a, b in zip(here, parts):
                if a != b:
                    break
                common += 1
            return (-common, len(parts), p)

        return min(cands, key=nearness)
