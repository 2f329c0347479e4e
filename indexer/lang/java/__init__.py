"""Java: extraction (extract.py, queries.scm) and resolution (resolve.py)."""

from codeimpact.indexer.lang.api import LanguageSpec
from codeimpact.indexer.lang.java import extract

NAME = "java"
EXTRACT_VERSION = extract.EXTRACTOR_VERSION
# 2: JUnit (issue 26): a @Test method calls the @BeforeEach/@AfterEach... set-ups of its
#    class and same-file supertypes (java/junit.py, rule fixture).
RESOLVE_VERSION = 2

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
