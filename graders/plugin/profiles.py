"""Hypothesis settings profiles: ``student`` (default), ``grading`` and ``ci``.

``deadline`` is always None: time limits come from the worker world's task deadlines. The
``grading`` profile is derandomized and has no example database, so a submission gets the
same score on every run; ``ci`` is the same, smaller, for the kit's own tests. Every profile
reports one failure per property (``report_multiple_bugs=False``): two distinct failing
examples would otherwise come back as an ``ExceptionGroup`` instead of one teaching message.
"""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, settings

from graders import config as dtlab_config

DEFAULT_PROFILE = "student"
_PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink)
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def register(requested: str | None = None) -> None:
    """Register the kit's profiles. ``ci`` shares its name with the profile hypothesis loads by
    itself on a CI machine, so it replaces that one only when asked for (``requested``, or
    ``$DTLAB_PROFILE``): another project's tests in the same environment keep hypothesis's own."""
    common = dict(
        deadline=None,
        phases=_PHASES,
        suppress_health_check=_QUIET,
        print_blob=False,
        report_multiple_bugs=False,
    )
    settings.register_profile("student", max_examples=25, **common)
    settings.register_profile("grading", max_examples=60, derandomize=True, database=None, **common)
    if "ci" in (requested, dtlab_config.profile()):
        settings.register_profile("ci", max_examples=15, derandomize=True, database=None, **common)


def fewer_examples(fraction: float, minimum: int = 5) -> settings:
    """For an expensive property: ``fraction`` of the active profile's examples (at least
    ``minimum``), keeping every other setting of the profile (derandomize, database, ...).

    Use it under ``@given`` for the structural parts of a property whose result part already
    draws the full number of examples; explicit ``@example`` s always run.
    """
    return settings(max_examples=max(minimum, round(settings.default.max_examples * fraction)))
