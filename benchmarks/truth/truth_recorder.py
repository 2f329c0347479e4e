"""What a run of a project's code executes: the profile hook behind the suite tracer.

Standard library only, so it runs in whatever interpreter the project needs (the
pytest plugin `truth_hook` and the corpus driver `truth_run` import it as a top-level
module, this folder being on PYTHONPATH). Code whose file lies under the root is the
project's own ("project code"), everything else is external.

A ``sys.setprofile`` hook (also set for new threads) sees every Python frame that
starts. For a project callee it records

- the **edge** from the nearest project frame below it on the stack (the caller),
  with the caller's current line and ``via``: ``None`` when the caller called it
  directly, else the innermost external function in between (``module:qualname``),
  i.e. the call was "reached through external code" (werkzeug calling
  ``Flask.__call__``, contextlib resuming a ``@contextmanager`` body). Frames of
  code compiled from a string (``<string>``: dataclass and namedtuple methods) are
  transparent: they count as neither caller nor ``via``. A callee with no project
  frame below it (a test function or fixture called by pytest) records no edge but
  is an **entry** of the current test;
- a **construction** when the callee is ``__init__``, ``__new__`` or
  ``__post_init__`` and the call site is not an explicit ``X.__init__(...)`` /
  ``super().__init__(...)``: the class constructed (``type(self)``, or ``cls`` for
  ``__new__``), so a scorer can count ``C()`` as a call of ``C`` as well;
- the callee in the **executed set** of the current test item (from the start of its
  setup to the end of its teardown; code run while collecting goes to ``outside``).

A generator, coroutine or async generator records its edge on its first resume only
(the frame that first iterates it, which is the creator for ``for`` loops and
``list(...)``); later resumes only mark it executed.

Raw shape (turned into the documented truth JSON by ``truth.mapping``)::

    {"root": str, "python": str, "exit": int,
     "codes": [[relpath, co_firstlineno, co_qualname], ...],   # project code objects
     "externals": ["module:qualname", ...],                     # values of `via`
     "edges": [[caller, callee, via, line], ...],              # code indices; via -1 = direct
     "constructs": [[caller, class_relpath, class_qualname, via, line], ...],
     "tests": {nodeid: {"outcome": str, "codes": [code index, ...],
                        "entries": [code index, ...]}},   # entered from outside the project
     "outside": [code index, ...]}
"""

from __future__ import annotations

import dis
import json
import linecache
import os
import re
import sys
import threading

_EXTERNAL = -1
_SYNTHESIZED = -2  # code compiled from a string: dataclass/namedtuple methods
_GENERATOR_FLAGS = 0x20 | 0x80 | 0x200  # CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR
_CONSTRUCTORS = frozenset({"__init__", "__new__", "__post_init__"})
# `X.__init__(self)`, `super().__init__()`, `super(C, self).__new__(cls)`: a plain call
# of the method, not a construction of a class.
_EXPLICIT = re.compile(
    r"^\s*(?:super\s*\([^()]*\)|[\w.]+)\s*\.\s*__(?:init|new|post_init)__\s*\(", re.S
)


class Recorder:
    """The profile hook's state: code objects seen, edges, per-test executed sets."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root) + os.sep
        self.keys: dict[int, int] = {}  # id(code) -> project code index, or a negative tag
        self.keep: list = []  # the code objects of `keys`, so their ids are never reused
        self.codes: list[tuple[str, int, str]] = []
        self.resume_at: dict[int, int] = {}  # generator code index -> offset of its RESUME
        self.externals: dict[str, int] = {}
        self.edges: set[tuple[int, int, int, int]] = set()
        self.constructs: set[tuple] = set()
        self.outside: set[int] = set()
        self.current: set[int] = self.outside
        self.tests: dict[str, set[int]] = {}
        self.entries: dict[str, set[int]] = {}  # nodeid -> project code entered from outside
        self.current_entries: set[int] = set()
        self.outcomes: dict[str, str] = {}
        self.sites: dict[tuple[int, int], bool] = {}  # (id(code), lasti) -> explicit call?

    # ------------------------------------------------------------------ classification
    def classify(self, code) -> int:
        filename = code.co_filename
        if filename == "<string>":
            key = _SYNTHESIZED
        else:
            path = os.path.realpath(filename) if os.path.isabs(filename) else ""
            if path.startswith(self.root) and path.endswith(".py"):
                key = len(self.codes)
                rel = path[len(self.root) :].replace(os.sep, "/")
                self.codes.append((rel, code.co_firstlineno, code.co_qualname))
                if code.co_flags & _GENERATOR_FLAGS:
                    self.resume_at[key] = next(
                        (i.offset for i in dis.get_instructions(code) if i.opname == "RESUME"),
                        0,
                    )
            else:
                key = _EXTERNAL
        self.keys[id(code)] = key
        self.keep.append(code)
        return key

    def external(self, frame) -> int:
        module = frame.f_globals.get("__name__")
        if not module:  # code without a module (a template): its file, relative if ours
            module = frame.f_code.co_filename
            if module.startswith(self.root):
                module = module[len(self.root) :].replace(os.sep, "/")
        name = f"{module}:{frame.f_code.co_qualname}"
        idx = self.externals.get(name)
        if idx is None:
            idx = self.externals[name] = len(self.externals)
        return idx

    # ------------------------------------------------------------------ the hook
    def profile(self, frame, event, arg):
        if event != "call":
            return
        code = frame.f_code
        key = self.keys.get(id(code))
        if key is None:
            key = self.classify(code)
        if key < 0:
            return
        self.current.add(key)
        resume = self.resume_at.get(key)
        if resume is not None and frame.f_lasti > resume:
            return  # a generator resumed again: its edge was recorded on the first resume
        caller = frame.f_back
        via = -1
        while caller is not None:
            ckey = self.keys.get(id(caller.f_code))
            if ckey is None:
                ckey = self.classify(caller.f_code)
            if ckey >= 0:
                break
            if ckey == _EXTERNAL and via == -1:
                via = self.external(caller)
            caller = caller.f_back
        if caller is None:
            self.current_entries.add(key)  # entered from outside: a test, a fixture
            return
        line = caller.f_lineno or 0
        self.edges.add((ckey, key, via, line))
        if code.co_name in _CONSTRUCTORS:
            self.construction(frame, code, ckey, via, line)

    def construction(self, frame, code, ckey: int, via: int, line: int) -> None:
        site = frame.f_back
        while site is not None and self.keys.get(id(site.f_code)) == _SYNTHESIZED:
            site = site.f_back
        if site is None or self.explicit_call(site):
            return
        try:
            first = frame.f_locals.get(code.co_varnames[0]) if code.co_argcount else None
        except Exception:  # noqa: BLE001 - a hook must never break the suite
            return
        cls = first if code.co_name == "__new__" else type(first)
        if not isinstance(cls, type):
            return
        module = sys.modules.get(cls.__module__)
        path = os.path.realpath(getattr(module, "__file__", None) or "/")
        if not path.startswith(self.root):
            return
        rel = path[len(self.root) :].replace(os.sep, "/")
        self.constructs.add((ckey, rel, cls.__qualname__, via, line))

    def explicit_call(self, frame) -> bool:
        """Is the call `frame` is making written as `X.__init__(...)` (not `X(...)`)?"""
        code, lasti = frame.f_code, frame.f_lasti
        cached = self.sites.get((id(code), lasti))
        if cached is not None:
            return cached
        explicit = False
        try:
            positions = list(code.co_positions())
            line, end_line, col, end_col = positions[lasti // 2]
            if line and end_line and col is not None and end_col is not None:
                lines = [
                    linecache.getline(code.co_filename, n).encode()
                    for n in range(line, end_line + 1)
                ]
                lines[-1] = lines[-1][:end_col]
                lines[0] = lines[0][col:]
                explicit = bool(_EXPLICIT.match(b"".join(lines).decode(errors="replace")))
        except Exception:  # noqa: BLE001 - a hook must never break the suite
            explicit = False
        self.sites[(id(code), lasti)] = explicit
        return explicit

    # ------------------------------------------------------------------ output
    def start(self) -> None:
        threading.setprofile(self.profile)
        sys.setprofile(self.profile)

    def stop(self) -> None:
        sys.setprofile(None)
        threading.setprofile(None)

    def dump(self, path: str, exit_status: int) -> None:
        doc = {
            "root": self.root.rstrip(os.sep),
            "python": sys.version.split()[0],
            "exit": int(exit_status),
            "codes": self.codes,
            "externals": list(self.externals),
            "edges": sorted(self.edges),
            "constructs": sorted(self.constructs),
            "tests": {
                nodeid: {
                    "outcome": self.outcomes.get(nodeid, "unknown"),
                    "codes": sorted(keys),
                    "entries": sorted(self.entries.get(nodeid, ())),
                }
                for nodeid, keys in self.tests.items()
            },
            "outside": sorted(self.outside),
        }
        with open(path, "w") as fh:
            json.dump(doc, fh)
