"""Hypothesis settings profiles: ``student`` (default), ``grading`` and ``ci``.

``deadline`` is always None: time limits come from the worker world's task deadlines. Every
profile is derandomized and has no example database, so a submission gets the same verdict on
every run and wherever it runs: a database would replay examples saved by earlier runs (of
other code, too), and the verdict would depend on that history. ``student`` draws fewest,
``grading`` most; ``ci`` is for the kit's own tests. ``mutants`` (5 examples, no shrinking) is
the lighter one the kit's own tests use where a part only has to *pass*: the parts an ``alone``
mutant must not fail, and an honest red-team sample (``tests/chapters/test_mutants.py``,
``tests/chapters/test_cheats.py``); a part that must *fail* is graded with the active profile. Every
profile reports one failure per property (``report_multiple_bugs=False``): two distinct failing
examples would otherwise come back as an ``ExceptionGroup`` instead of one teaching message.
"""

from __future__ import annotations

import hashlib

from hypothesis import HealthCheck, Phase, seed, settings

from graders import config as dtlab_config
from graders.plugin.run_spec import PROFILES

DEFAULT_PROFILE = "student"
#: the kit's own tests grade a mutant's other parts and an honest red-team sample with it
MUTANTS_PROFILE = "mutants"
#: the examples each of the kit's profiles (:data:`graders.plugin.run_spec.PROFILES`) draws
EXAMPLES = {"student": 25, "grading": 60, "ci": 15, MUTANTS_PROFILE: 5}
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
        derandomize=True,
        database=None,
    )
    no_shrink = tuple(phase for phase in _PHASES if phase != Phase.shrink)
    for name in PROFILES:
        if name == "ci" and "ci" not in (requested, dtlab_config.profile()):
            continue
        phases = no_shrink if name == MUTANTS_PROFILE else _PHASES
        settings.register_profile(name, max_examples=EXAMPLES[name], **(common | {"phases": phases}))


def ignore_local_constants() -> None:
    """Draw examples from the strategies alone, whatever modules happen to be imported.

    Hypothesis draws about one integer in twenty from a pool of constants it finds in the
    *local* modules loaded so far (here: the ``graders`` package). Which of them are loaded
    differs between ``pytest exercises/ch2`` and ``dtlab grade`` (whose warm server imports the
    whole kit), and grows during a run, so the same derandomized property drew different
    examples, and a submission got another score, in each. Called once a grader is collected;
    a hypothesis without that pool is left as it is.
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - another hypothesis layout
        return
    if not hasattr(providers, "_get_local_constants"):
        return
    no_constants = providers.Constants()
    providers._get_local_constants = lambda: no_constants
    providers.CONSTANTS_CACHE.cache.clear()  # it may hold pools drawn from the old one


def pin_seed(test, key: str) -> None:
    """Derandomize the grader ``test`` by ``key`` (its exercise, part and name), not its source.

    Hypothesis derandomizes from a digest of a test's source code and, when the source file
    cannot be read, from the function's name alone. ``dtlab grade`` deletes its copy of the
    graders once they are collected (graded code must not read them), so the same property
    drew other examples there than in a local run, and a submission got another score. A seed
    made from ``key`` is the same everywhere. Profiles that do not derandomize, and tests that
    carry their own ``@seed``, are left alone.
    """
    if getattr(test, "hypothesis", None) is None or not settings.default.derandomize:
        return
    if getattr(test, "_hypothesis_internal_use_seed", None) is not None:
        return
    seed(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))(test)


def fewer_examples(fraction: float, minimum: int = 5) -> settings:
    """For an expensive property: ``fraction`` of the active profile's examples (at least
    ``minimum``), keeping every other setting of the profile (derandomize, database, ...).

    Use it under ``@given`` for the structural parts of a property whose result part already
    draws the full number of examples; explicit ``@example`` s always run.
    """
    return settings(max_examples=max(minimum, round(settings.default.max_examples * fraction)))
