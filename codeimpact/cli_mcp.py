"""`graph mcp`: starts the MCP server (`python -m codeimpact.mcp`) in this process's place.

The server is a program of its own, so the command line and the server do not import
each other: this command hands its arguments over with exec (the same process id, the
same standard streams, so a client that spawned `graph mcp` talks to the server and
can stop it). Its options and help are the server's (`graph mcp --help`).
"""

from __future__ import annotations

import os
import sys

import click

from codeimpact.cli import main


@main.command(
    "mcp",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    add_help_option=False,
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def mcp_command(args):
    """Serve indexes to agents over the Model Context Protocol (`graph mcp --help`)."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os.execv(sys.executable, [sys.executable, "-m", "codeimpact.mcp", *args])
