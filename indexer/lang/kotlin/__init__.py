"""Kotlin: extraction (extract.py, queries.scm) into the facts of the Java model, and
resolution (resolve.py) as hooks on Java's: packages and imports are Java's."""

from codeimpact.indexer.lang.api import LanguageSpec
from codeimpact.indexer.lang.kotlin import extract

NAME = "kotlin"
EXTRACT_VERSION = extract.EXTRACTOR_VERSION
# 2: a capitalized call found in no repository class is a type (b32df4b).
# 3: JUnit set-ups as calls of the tests (java/junit.py, shared with Java).
RESOLVE_VERSION = 3

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
