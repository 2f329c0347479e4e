"""Dart: extraction (extract.py, queries.scm) into the facts of the Java model, and
resolution (resolve.py) as hooks on Java's: a library (a file and its parts) is a package,
imports name libraries by URI (relative, `package:` from pubspec.yaml, `dart:`)."""

from codeimpact.indexer.lang.api import LanguageSpec
from codeimpact.indexer.lang.dart import extract

NAME = "dart"
EXTRACT_VERSION = extract.EXTRACTOR_VERSION
RESOLVE_VERSION = 2

SPEC = LanguageSpec(
    name=NAME,
    grammar=NAME,
    extensions=(".dart",),
    extract_version=EXTRACT_VERSION,
    resolve_version=RESOLVE_VERSION,
    extract=extract.extract,
    is_test_path=extract.is_test_path,
    resolver="codeimpact.indexer.lang.dart.resolve:DartProject",
    config_files=("pubspec.yaml",),
    package=__name__,
)

__all__ = ["EXTRACT_VERSION", "RESOLVE_VERSION", "SPEC"]
