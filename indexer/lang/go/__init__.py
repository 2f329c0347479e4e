"""Go: extraction (extract.py, queries.scm) and resolution (resolve.py); packages come from
`go.mod`."""

from codeimpact.indexer.lang.api import LanguageSpec
from codeimpact.indexer.lang.go import extract

NAME = "go"
EXTRACT_VERSION = extract.EXTRACTOR_VERSION
RESOLVE_VERSION = 1

SPEC = LanguageSpec(
    name=NAME,
    grammar=NAME,
    extensions=(".go",),
    extract_version=EXTRACT_VERSION,
    resolve_version=RESOLVE_VERSION,
    extract=extract.extract,
    is_test_path=extract.is_test_path,
    resolver="codeimpact.indexer.lang.go.resolve:GoProject",
    config_files=("go.mod",),
    package=__name__,
)

__all__ = ["EXTRACT_VERSION", "RESOLVE_VERSION", "SPEC"]
