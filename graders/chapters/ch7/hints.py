"""Chapter 7's graded hints and theory recaps (read through ``graders.hints``)."""

HINTS: dict[str, list[tuple[str, str]]] = {}
RECAPS: dict[str, tuple[str, str]] = {}
