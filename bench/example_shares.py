"""Where the examples of every distributed property go: the share of each facet, per property.

.venv/bin/python bench/example_shares.py [ch2 ...] [--profile grading] [--draws 500]

For each grader whose cases can run on several ranks: the share of multi-rank cases in the run
the profile makes (explicit examples, then generated ones), then the shares of 500 draws of its
strategy (what ``tests/chapters/test_coverage.py`` asserts).
"""

from __future__ import annotations

import argparse

from hypothesis import settings

from graders.authoring import coverage
from graders.misconceptions import mutants
from graders.plugin import profiles


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("chapters", nargs="*", default=["ch2", "ch4", "ch5", "ch7"])
    parser.add_argument("--profile", default="grading")
    parser.add_argument("--draws", type=int, default=500)
    args = parser.parse_args()
    profiles.register(args.profile)
    settings.load_profile(args.profile)
    for chapter in args.chapters:
        for (exercise_id, part), tests in mutants.exercise_tests(chapter).items():
            for test in tests:
                key = f"{exercise_id}:{part}:{test.__name__}"
                run = coverage.property_draws(test, key)
                if not any(coverage.is_distributed(case) for case in run):
                    continue
                multi = sum(coverage.is_distributed(case) for case in run)
                drawn = coverage.shares(coverage.strategy_draws(coverage.given_strategy(test), args.draws))
                detail = ", ".join(f"{name} {share:.0%}" for name, share in drawn.items())
                print(f"{exercise_id} [{part}] {test.__name__}: {multi}/{len(run)} multi-rank; {detail}")


if __name__ == "__main__":
    main()
