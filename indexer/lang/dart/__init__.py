"""Dart: extraction (extract.py, queries.scm) into the facts of the Java model, and
resolution (resolve.py) as hooks on Java's: a library (a file and its parts) is a package,
imports name libraries by URI (relative, `package:` from pubspec.yaml, `dart:`)."""

from codeimpact.indexer.lang.dart import extract
from codeimpact.indexer.lang.java.model import java_model_spec

RESOLVE_VERSION = 2

SPEC = java_model_spec(
    __name__,
    extract,
    extensions=(".dart",),
    resolve_version=RESOLVE_VERSION,
    resolver="DartProject",
    config_files=("pubspec.yaml",),
)

__all__ = ["RESOLVE_VERSION", "SPEC"]
