"""C (and, joining it, C++): extraction (extract.py, c.scm), includes (includes.py) and
resolution (resolve.py) in one resolver group, since C++ calls C and headers are shared."""

from codeimpact.indexer.lang.api import LanguageSpec
from codeimpact.indexer.lang.cfamily import extract

NAME = "c"
GROUP = "cfamily"
EXTRACT_VERSION = extract.EXTRACTOR_VERSION
RESOLVE_VERSION = 1

C_SPEC = LanguageSpec(
    name=NAME,
    grammar=NAME,
    extensions=(".c", ".h"),
    extract_version=EXTRACT_VERSION,
    resolve_version=RESOLVE_VERSION,
    extract=extract.extract_c,
    is_test_path=extract.is_test_path,
    resolver="codeimpact.indexer.lang.cfamily.resolve:CProject",
    config_files=("compile_commands.json",),
    resolver_group=GROUP,
    package=__name__,
)

SPECS = (C_SPEC,)

__all__ = ["EXTRACT_VERSION", "RESOLVE_VERSION", "SPECS"]
