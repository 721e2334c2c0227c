"""The pytest face of the kit: the plugin, the harness graders call, ``@exercise``, the hypothesis
profiles, the points table, and the spec of a grading run. Chapter test files import
:func:`exercise` from here; it is loaded when first asked for, so that what needs only the run's
spec (``dtlab progress``) does not import pytest."""

__all__ = ["exercise"]


def __getattr__(name: str):
    if name == "exercise":
        from graders.plugin.marker import exercise

        return exercise
    raise AttributeError(f"module 'graders.plugin' has no attribute {name!r}")
