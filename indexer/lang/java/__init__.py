"""Java: extraction (extract.py, queries.scm) and resolution (resolve.py)."""

from codeimpact.indexer.lang.api import LanguageSpec
from codeimpact.indexer.lang.java import extract

NAME = "java"
EXTRACT_VERSION = extract.EXTRACTOR_VERSION
RESOLVE_VERSION = 1

SPEC = LanguageSpec(
    name=NAME,
    grammar=NAME,
    extensions=(".java",),
    extract_version=EXTRACT_VERSION,
    resolve_version=RESOLVE_VERSION,
    extract=extract.extract,
    is_test_path=extract.is_test_path,
    resolver="codeimpact.indexer.lang.java.resolve:JavaProject",
    package=__name__,
)

__all__ = ["EXTRACT_VERSION", "RESOLVE_VERSION", "SPEC"]
