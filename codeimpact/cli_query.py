"""`graph` subcommands: query."""

from __future__ import annotations

from codeimpact.cli import main  # noqa: F401  (commands attach to the group with @main.command())
