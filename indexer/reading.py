"""Read and hash one file, and extract facts from bytes: the units of work of a build."""

from __future__ import annotations

import os
from typing import NamedTuple

import xxhash

from codeimpact.indexer.lang import LANGUAGES


class ReadResult(NamedTuple):
    size: int
    content_hash: str  # "" when the file could not be read
    status: str  # "ok" or skipped:<reason>
    detail: str
    data: bytes | None  # the bytes, when they are worth parsing


def content_hash(data: bytes) -> str:
    return xxhash.xxh3_64_hexdigest(data)


def read_source(root: str, path: str, max_size: int) -> ReadResult:
    full = os.path.join(root, path)
    try:
        size = os.path.getsize(full)
        if size > max_size:
            return ReadResult(
                size, "", "skipped:file_too_large", f"{size} bytes > {max_size}", None
            )
        with open(full, "rb") as fh:
            data = fh.read(max_size + 1)
    except OSError as e:
        return ReadResult(0, "", "skipped:unreadable", e.strerror or str(e), None)
    size = len(data)
    if size > max_size:
        return ReadResult(size, "", "skipped:file_too_large", f"{size} bytes > {max_size}", None)
    digest = content_hash(data)
    if b"\0" in data[:8192]:
        return ReadResult(size, digest, "skipped:binary", "NUL byte in the first 8 KiB", None)
    try:
        if not data.isascii():  # ASCII is UTF-8: most sources skip decoding a copy of themselves
            data.decode("utf-8")
    except UnicodeDecodeError as e:
        return ReadResult(
            size, digest, "skipped:decode_error", f"not UTF-8 at byte {e.start}", None
        )
    return ReadResult(size, digest, "ok", "", data)


def extract_source(language: str, data: bytes) -> bytes:
    """Facts of one file as the compact cache blob; bad syntax gives a `partial` result."""
    return LANGUAGES[language].extract(data).to_bytes()


def extract_many(items: list[tuple[str, str, bytes]]) -> list[tuple[str, bytes]]:
    """Worker entry point: [(path, language, data)] -> [(path, facts blob)]."""
    return [(path, extract_source(language, data)) for path, language, data in items]
