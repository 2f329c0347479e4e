"""SHA-256 without importing hashlib.

hashlib loads OpenSSL's libcrypto when it is imported (~2.5 ms of CPU, on every run's
start-up), for the few KB a run hashes (the runner identity's and the configuration's
digests, the schema's, a query's key: 17 KB on a no-op `analyze` of Django). CPython's own
SHA-256 module gives the same digests without it.
"""

from __future__ import annotations

try:
    from _sha256 import sha256  # CPython 3.11
except ImportError:  # pragma: no cover - 3.12 names it _sha2; another build may have neither
    try:
        from _sha2 import sha256  # type: ignore[no-redef]
    except ImportError:
        from hashlib import sha256  # type: ignore[no-redef]

__all__ = ["sha256"]
