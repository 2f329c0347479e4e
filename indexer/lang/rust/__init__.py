"""Rust: extraction (extract.py, queries.scm), crates and modules (crates.py), resolution (resolve.py)."""

from codeimpact.indexer.lang.rust.extract import SPEC

__all__ = ["SPEC"]
