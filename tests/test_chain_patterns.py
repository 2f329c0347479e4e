"""The Python reference chain functions compile their patterns when they first run: a native
extraction never runs them, so it compiles neither (chains.py `_patterns`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from codeimpact.indexer.lang.python import chains
from codeimpact.native.runner import native_status

PROBE = """
from codeimpact.indexer.lang.python import chains
from codeimpact.indexer.reading import extract_source
extract_source("python", b"import os\\nx = os.path.join('a', 'b')\\nself.tags[k].m(super().f)\\n")
print(chains._patterns.cache_info().currsize)
"""


def test_the_reference_functions_answer_as_before():
    assert chains._py_chain(b"a . b.c") == "a.b.c" and chains._py_chain(b"a(") is None
    assert chains._py_callee_chain(b"super().m") == "super().m"
    assert chains._py_callee_chain(b"self.tags[k].to_python") == "self.tags[].to_python"
    assert chains._py_callee_chain(b"f('[')(x)") == "f()()"


@pytest.mark.skipif(not native_status().used, reason="the native path is not in use")
def test_a_native_extraction_compiles_no_chain_pattern():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0"]
