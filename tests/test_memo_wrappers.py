"""memo_wrappers.py holds every `@memoized` wrapper compiled ahead (memo_gen.py): current,
the same code as `memoized` compiled at import, and taken from there by every resolver."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from codeimpact.indexer.lang.engine.memo_wrappers import WRAPPERS

# what tells two code objects apart besides where their source stands
SAME = ("co_code", "co_consts", "co_names", "co_varnames", "co_argcount", "co_kwonlyargcount",
        "co_posonlyargcount", "co_flags", "co_freevars", "co_cellvars", "co_name",
        "co_qualname", "co_exceptiontable", "co_stacksize", "co_nlocals")  # fmt: skip


MADE = """
import json
from codeimpact.indexer.lang.engine import memo_gen
print(json.dumps(memo_gen.made_sources()))
"""


def test_the_generated_module_holds_every_wrapper_made():
    # in a process of its own: a test's own @memoized functions are no part of it (a wrapper
    # no longer made only stays in the file until it is written again)
    out = subprocess.run([sys.executable, "-c", MADE], capture_output=True, text=True, check=True)
    missing = [s.strip().partition("\n")[0] for s in json.loads(out.stdout) if s not in WRAPPERS]
    assert not missing, (missing, "python -m codeimpact.indexer.lang.engine.memo_gen")


def test_each_wrapper_is_the_code_memoized_would_compile():
    assert WRAPPERS
    for source, made in WRAPPERS.items():
        namespace: dict = dict.fromkeys(re.findall(r"default_\w+", source))  # (values unread)
        exec(compile(source, "<memoized>", "exec"), namespace)
        compiled = namespace[made.__name__]
        for attr in SAME:
            assert getattr(made.__code__, attr) == getattr(compiled.__code__, attr), (
                attr,
                source,
            )


PROBE = """
import builtins, sys
compiled = []
real = builtins.compile
def counting(source, filename, *args, **kwargs):
    if str(filename).startswith("<memoized"):
        compiled.append(filename)
    return real(source, filename, *args, **kwargs)
builtins.compile = counting
from codeimpact.indexer.lang import LANGUAGES
for name in LANGUAGES:
    LANGUAGES[name].resolver()
from codeimpact.indexer.lang.engine import memo
assert memo.MADE, "no wrapper made"
sys.exit(1 if compiled else 0)
"""


def test_the_resolvers_compile_no_wrapper_at_import():
    assert subprocess.run([sys.executable, "-c", PROBE]).returncode == 0
