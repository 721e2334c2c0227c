"""The pytest face of the kit: the plugin, the harness graders call, ``@exercise``, the hypothesis
profiles and the points table. Chapter test files import :func:`exercise` from here."""

from graders.plugin.marker import exercise

__all__ = ["exercise"]
