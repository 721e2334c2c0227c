"""The ``dtlab`` command: one home for every subcommand."""

from graders.cli.main import main

__all__ = ["main"]
