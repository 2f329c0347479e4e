"""Dart: extraction (extract.py, queries.scm) into the facts of the Java model, and
resolution (resolve.py) as hooks on Java's: a library (a file and its parts) is a package,
imports name libraries by URI (relative, `package:` from pubspec.yaml, `dart:`)."""

from codeimpact.indexer.lang.api import ResolverProject
from codeimpact.indexer.lang.dart import extract
from codeimpact.indexer.lang.java.model import java_model_spec

RESOLVE_VERSION = 2


def resolver_class() -> type[ResolverProject]:
    """The resolver class, imported when a run resolves these files (lang/api.py)."""
    from codeimpact.indexer.lang.dart.resolve import DartProject

    return DartProject


SPEC = java_model_spec(
    __name__,
    extract,
    extensions=(".dart",),
    resolve_version=RESOLVE_VERSION,
    resolver=resolver_class,
    config_files=("pubspec.yaml",),
)

__all__ = ["RESOLVE_VERSION", "SPEC"]
