"""Kotlin: extraction (extract.py, queries.scm) into the facts of the Java model, and
resolution (resolve.py) as hooks on Java's: packages and imports are Java's."""

from codeimpact.indexer.lang.api import LanguageSpec
from codeimpact.indexer.lang.kotlin import extract

NAME = "kotlin"
EXTRACT_VERSION = extract.EXTRACTOR_VERSION
RESOLVE_VERSION = 2

SPEC = LanguageSpec(
    name=NAME,
    grammar=NAME,
    extensions=(".kt", ".kts"),
    extract_version=EXTRACT_VERSION,
    resolve_version=RESOLVE_VERSION,
    extract=extract.extract,
    is_test_path=extract.is_test_path,
    resolver="codeimpact.indexer.lang.kotlin.resolve:KotlinProject",
    package=__name__,
)

__all__ = ["EXTRACT_VERSION", "RESOLVE_VERSION", "SPEC"]
