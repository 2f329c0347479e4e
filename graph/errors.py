"""Errors every layer may raise; each carries the CLI exit code it maps to."""

from __future__ import annotations


class CodeImpactError(Exception):
    """A failure the user can act on: one line of message, a documented exit code."""

    exit_code = 2


class BadInput(CodeImpactError):
    exit_code = 2


class GitError(BadInput):
    """git refused (dubious ownership, a bad revision, a damaged repository): its message."""


class StorageError(CodeImpactError):
    """The disk is full, a path may not be written, or the file system is read-only."""

    exit_code = 2


class NoIndex(CodeImpactError):
    exit_code = 2


class CorruptIndex(CodeImpactError):
    exit_code = 2


class SchemaMismatch(CorruptIndex):
    exit_code = 2


class IndexLocked(CodeImpactError):
    exit_code = 5


class StaleIndex(CodeImpactError):
    exit_code = 1


class TargetNotFound(CodeImpactError):
    exit_code = 4


class AmbiguousTarget(CodeImpactError):
    exit_code = 3

    def __init__(self, message: str, candidates: list[dict]):
        super().__init__(message)
        self.candidates = candidates
